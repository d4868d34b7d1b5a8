//! The `test-file` trigger's default rules: positives that must fire each rule, near
//! misses that must not.

use super::Case;

#[rustfmt::skip]
pub(super) const YES: &[Case] = &[
    ("test-file.path.test-dir", "tests/integration.rs", ""),
    ("test-file.path.test-dir", "web/src/__tests__/app.js", ""),
    ("test-file.path.python", "app/users/test_models.py", ""),
    ("test-file.path.python", "conftest.py", ""),
    ("test-file.path.go", "pkg/server/server_test.go", ""),
    ("test-file.path.js", "src/components/Button.test.tsx", ""),
    ("test-file.path.js", "src/api/users.spec.ts", ""),
    ("test-file.path.ruby", "app/models/user_spec.rb", ""),
    ("test-file.path.java", "src/test/java/com/acme/UserServiceTest.java", ""),
    ("test-file.line.rust-test", "src/parse.rs", "#[cfg(test)]"),
    ("test-file.line.rust-test", "src/parse.rs", "    #[tokio::test]"),
    ("test-file.path.ruby", "spec/signing_form_helper.rb", ""),
    ("test-file.path.ruby", "spec/support/capybara.rb", ""),
    ("test-file.path.php", "phpunit.xml", ""),
    ("test-file.path.php", "phpunit.xml.dist", ""),
    ("test-file.path.dotnet", "BTCPayServer.Tests/BTCPayServerTester.cs", ""),
    ("test-file.path.dotnet", "API.Tests/Services/ScannerServiceTests.cs", ""),
];

#[rustfmt::skip]
pub(super) const NO: &[Case] = &[
    ("test-file.path.test-dir", "src/testimonials/page.tsx", ""),
    ("test-file.path.test-dir", "docs/testing-guide.md", ""),
    ("test-file.path.python", "app/contest.py", ""),
    ("test-file.path.go", "pkg/latest.go", ""),
    ("test-file.path.js", "src/attest.js", ""),
    ("test-file.path.ruby", "app/models/spectrum.rb", ""),
    ("test-file.path.java", "src/main/java/com/acme/Contest.java", ""),
    ("test-file.line.rust-test", "src/parse.rs", "// run the #[test] functions with cargo test"),
    ("test-file.line.rust-test", "src/query.py", "#[test]"),
    ("test-file.path.ruby", "app/helpers/spec_helper_methods.rb", ""),
    ("test-file.path.php", "docs/phpunit.xml.md", ""),
    ("test-file.path.dotnet", "BTCPayServer/Services/TestingService.cs", ""),
    ("test-file.path.dotnet", "BTCPayServer.Abstractions/Contracts/ITestable.cs", ""),
];
