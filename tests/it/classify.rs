//! Classification of real changes in real repositories: each trigger fired and not
//! fired, renames across trigger boundaries, deletions, binary files, non-UTF-8 paths,
//! the records directory, the policy read from the base, the working tree, shallow clones.

use crate::common::{head_commit, shallow_clone_missing_base, TestRepo};
use handoff::Policy;
use handoff::RiskClass;
use handoff::{classify, Classification, ClassifyError};
use handoff::{Head, LineSide, Repo};

/// Classifies base..head with the policy from the base, as the CLI does.
fn run(repo: &TestRepo, base: &str, head: &Head, declared: Option<RiskClass>) -> Classification {
    let opened = Repo::open(repo.path()).unwrap();
    let policy = Policy::load(&opened, base, None).unwrap();
    classify(&opened, base, head, declared, &policy).unwrap()
}

/// Commits `files` on top of a one-file base and classifies the change.
fn change(files: &[(&str, &str)]) -> Classification {
    let (repo, base) = TestRepo::with_base();
    for (path, content) in files {
        repo.write(path, content);
    }
    repo.commit("change");
    run(&repo, &base, &head_commit(), None)
}

/// Asserts the class of `result`, and that `rule` fired exactly when that class is high.
fn assert_class_by_rule(result: &Classification, class: RiskClass, rule: &str, case: &str) {
    assert_eq!(result.risk, class, "{case}: {result:?}");
    assert_eq!(
        rules(result).contains(&rule),
        class == RiskClass::High,
        "{case}: {result:?}"
    );
}

fn rules(result: &Classification) -> Vec<&str> {
    result
        .findings
        .iter()
        .map(|finding| finding.rule.as_str())
        .collect()
}

fn triggers(result: &Classification) -> Vec<&str> {
    let mut names: Vec<&str> = result.findings.iter().map(|f| f.trigger.as_str()).collect();
    names.dedup();
    names
}

#[test]
fn a_docs_change_stays_low() {
    let result = change(&[("docs/guide.md", "How to author a contest entry.\n")]);
    assert_eq!(result.risk, RiskClass::Low);
    assert!(
        !result.reclassified && result.findings.is_empty(),
        "{result:?}"
    );
}

#[test]
fn each_trigger_fires_on_a_real_change() {
    let cases: &[(&str, &str, &str, RiskClass)] = &[
        (
            "test-file",
            "tests/cart_test.py",
            "def test_ok():\n    assert True\n",
            RiskClass::Medium,
        ),
        (
            "api-route",
            "shop/urls.py",
            "urlpatterns = []\n",
            RiskClass::Medium,
        ),
        (
            "auth",
            "src/auth/session.ts",
            "export const x = 1;\n",
            RiskClass::High,
        ),
        (
            "migration",
            "db/migrate/20240101_add_users.rb",
            "class AddUsers; end\n",
            RiskClass::High,
        ),
        (
            "payment",
            "app/billing/plans.py",
            "PLANS = []\n",
            RiskClass::High,
        ),
        (
            "env-var",
            "app/config.py",
            "import os\nPORT = os.getenv('PORT')\n",
            RiskClass::High,
        ),
        (
            "credential",
            "app/aws.py",
            "KEY = 'AKIAIOSFODNN7REALKEY'\n",
            RiskClass::High,
        ),
        (
            "policy",
            ".handoff.yaml",
            "exclude: [vendor/]\n",
            RiskClass::High,
        ),
    ];
    for (trigger, path, content, class) in cases {
        let result = change(&[(path, content)]);
        assert_eq!(triggers(&result), vec![*trigger], "{path}: {result:?}");
        assert_eq!(result.risk, *class, "{path}");
        assert!(result.reclassified);
    }
}

#[test]
fn near_misses_fire_nothing() {
    let result = change(&[
        ("src/authors.py", "AUTHORS = ['Ada']\n"),
        (
            "src/contest.py",
            "reset_url = 'https://example.com/password-reset'\ntoken = None\n",
        ),
        ("docs/environment.md", "Set PORT in your shell.\n"),
    ]);
    assert!(result.findings.is_empty(), "{:?}", result.findings);
}

#[test]
fn more_than_three_files_is_medium_and_records_do_not_count() {
    let result = change(&[
        ("a.txt", "a\n"),
        ("b.txt", "b\n"),
        ("c.txt", "c\n"),
        (".handoff/tasks/t1.md", "record\n"),
        (".handoff/reviews/r1.md", "AKIAIOSFODNN7REALKEY\n"),
    ]);
    // Records are not counted, but a key pasted into one is still a leak.
    assert_eq!(rules(&result), ["credential.line.aws-access-key"]);
    let leak = result.findings[0].path.as_ref().map(|p| p.to_string());
    assert_eq!(leak.as_deref(), Some(".handoff/reviews/r1.md"));
    assert_eq!(result.files.len(), 3);

    let result = change(&[
        ("a.txt", "a\n"),
        ("b.txt", "b\n"),
        ("c.txt", "c\n"),
        ("d.txt", "d\n"),
    ]);
    assert_eq!(rules(&result), ["file-count.count"]);
    assert_eq!(result.risk, RiskClass::Medium);
    assert_eq!(result.findings[0].path, None);
}

#[test]
fn content_findings_name_the_line_and_redact_secrets() {
    let result = change(&[(
        "app/settings.py",
        "DEBUG = False\nSECRET_KEY = 'django-insecure-q8Zr4x0pLmN2'\n",
    )]);
    let finding = &result.findings[0];
    assert_eq!(finding.rule, "credential.line.secret-assignment");
    assert_eq!(finding.line, Some(2));
    assert_eq!(finding.side, Some(LineSide::Added));
    let excerpt = finding.excerpt.as_deref().unwrap();
    assert_eq!(excerpt, "SECRET_KEY = [redacted]");
}

#[test]
fn a_removed_env_var_fires_and_a_removed_credential_does_not() {
    let (repo, base) = TestRepo::with_files(&[(
        "app/config.py",
        "import os\nPORT = os.getenv('PORT')\nKEY = 'AKIAIOSFODNN7REALKEY'\n",
    )]);
    repo.write("app/config.py", "import os\n");
    repo.commit("remove");

    let result = run(&repo, &base, &head_commit(), None);

    assert_eq!(rules(&result), ["env-var.line.python"]);
    assert_eq!(result.findings[0].line, Some(2));
    assert_eq!(result.findings[0].side, Some(LineSide::Removed));
}

#[test]
fn a_rename_out_of_an_auth_directory_touches_the_auth_path() {
    let repo = TestRepo::new();
    let body: String = (0..30).map(|i| format!("line {i}\n")).collect();
    repo.write("src/auth/helpers.py", &body);
    let base = repo.commit("base");
    repo.git_mv("src/auth/helpers.py", "src/common/helpers.py");
    repo.commit("move");

    let result = run(&repo, &base, &head_commit(), None);

    assert_eq!(result.files.len(), 1);
    assert_eq!(rules(&result), ["auth.path.auth-dir"]);
    assert_eq!(
        result.findings[0].path.as_ref().unwrap().to_string(),
        "src/auth/helpers.py"
    );
}

#[test]
fn deleting_a_migration_is_a_migration_change() {
    let (repo, base) =
        TestRepo::with_files(&[("shop/migrations/0001_initial.py", "operations = []\n")]);
    repo.remove("shop/migrations/0001_initial.py");
    repo.commit("delete");

    let result = run(&repo, &base, &head_commit(), None);

    assert_eq!(rules(&result), ["migration.path.migrations-dir"]);
    assert_eq!(result.risk, RiskClass::High);
}

#[test]
fn binary_files_fire_path_rules_and_credential_rules_on_their_text() {
    let mut bytes = b"\x00\x01AKIAIOSFODNN7REALKEY\n".to_vec();
    bytes.extend_from_slice(&[0; 16]);
    let (repo, base) = TestRepo::with_base();
    repo.write("assets/blob.bin", &bytes);
    repo.write("certs/server.p12", &bytes);
    repo.commit("binary");

    let result = run(&repo, &base, &head_commit(), None);

    assert!(result.files.iter().all(|file| file.binary));
    // A NUL byte near the start hides nothing: the key after it is read (once per file;
    // the key file already fired by its path).
    assert_eq!(
        rules(&result),
        ["credential.line.aws-access-key", "credential.path.key-file"]
    );
}

#[test]
fn non_utf8_paths_are_classified_and_reported() {
    use std::os::unix::ffi::OsStrExt;
    let (repo, base) = TestRepo::with_base();
    let dir = repo
        .path()
        .join("src")
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    std::fs::create_dir_all(dir.join("auth")).unwrap();
    std::fs::write(dir.join("auth/login.py"), "x = 1\n").unwrap();
    repo.commit("latin-1 directory");

    let result = run(&repo, &base, &head_commit(), None);

    assert_eq!(rules(&result), ["auth.path.auth-dir"]);
    let path = result.findings[0].path.as_ref().unwrap();
    assert_eq!(path.as_bytes(), b"src/caf\xe9/auth/login.py");
    let json = serde_json::to_string(&result).unwrap();
    assert!(json.contains("src/caf\u{fffd}/auth/login.py"), "{json}");
}

#[test]
fn the_policy_comes_from_the_base_not_the_head_commit() {
    let repo = TestRepo::new();
    repo.write(
        ".handoff.yaml",
        "custom_triggers:\n  - name: infra\n    class: high\n    paths: [terraform/]\n",
    );
    let base = repo.commit("base with policy");
    repo.write(".handoff.yaml", "exclude: ['src/auth/', 'terraform/']\n");
    repo.write("src/auth/login.py", "x = 1\n");
    repo.write("terraform/main.tf", "resource \"x\" \"y\" {}\n");
    repo.commit("try to weaken the gate");

    let result = run(&repo, &base, &head_commit(), None);

    assert_eq!(
        triggers(&result),
        ["auth", "policy", "infra"],
        "{:?}",
        result.findings
    );
    assert_eq!(result.risk, RiskClass::High);
}

#[test]
fn an_override_policy_can_exclude_and_remove_rules() {
    let (repo, base) = TestRepo::with_base();
    repo.write("vendor/auth/lib.py", "x = 1\n");
    repo.write("src/session.py", "x = 1\n");
    repo.commit("vendored");
    let file = repo.path().join("../override.yaml");
    std::fs::write(
        &file,
        "exclude: [vendor/]\ntriggers:\n  auth:\n    remove_paths: [auth.path.session]\n",
    )
    .unwrap();

    let opened = Repo::open(repo.path()).unwrap();
    let policy = Policy::load(&opened, &base, Some(&file)).unwrap();
    let result = classify(&opened, &base, &head_commit(), None, &policy).unwrap();

    assert!(result.findings.is_empty(), "{:?}", result.findings);
    assert_eq!(result.files.len(), 2, "excluded files are still listed");
    std::fs::remove_file(file).unwrap();
}

#[test]
fn the_working_tree_includes_untracked_files_but_not_ignored_ones() {
    let (repo, base) = TestRepo::with_files(&[(".gitignore", ".env.local\n")]);
    repo.write(".env.local", "PORT=1\n");
    repo.write("src/routes/users.ts", "export {}\n");

    let result = run(&repo, &base, &Head::WorkTree, None);

    assert_eq!(rules(&result), ["api-route.path.routes"]);
    repo.write(".env.example", "PORT=\n");
    let result = run(&repo, &base, &Head::WorkTree, None);
    assert!(rules(&result).contains(&"env-var.path.env-file"));
}

#[test]
fn the_declared_class_is_a_floor_and_reclassification_is_reported() {
    let (repo, base) = TestRepo::with_base();
    repo.write("docs/x.md", "x\n");
    repo.commit("docs");
    let result = run(&repo, &base, &head_commit(), Some(RiskClass::High));
    assert_eq!((result.risk, result.reclassified), (RiskClass::High, false));

    repo.write("src/auth/x.py", "x\n");
    repo.commit("auth");
    let result = run(&repo, &base, &head_commit(), Some(RiskClass::Medium));
    assert_eq!((result.risk, result.reclassified), (RiskClass::High, true));
    assert_eq!(result.declared, Some(RiskClass::Medium));
}

#[test]
fn a_shallow_clone_missing_the_base_is_an_error() {
    let (_dir, clone, base) = shallow_clone_missing_base("src/auth/x.py");

    let opened = Repo::open(&clone).unwrap();
    let error = classify(&opened, &base, &head_commit(), None, &Policy::default()).unwrap_err();

    assert!(matches!(error, ClassifyError::Git(_)), "{error:?}");
    assert!(error.to_string().contains("fetch-depth: 0"), "{error}");
}

#[test]
fn removing_an_auth_check_is_an_auth_change() {
    let (repo, base) = TestRepo::with_files(&[(
        "shop/admin_views.py",
        "@login_required\ndef dashboard(request):\n    pass\n",
    )]);
    repo.write("shop/admin_views.py", "def dashboard(request):\n    pass\n");
    repo.commit("drop the check");

    let result = run(&repo, &base, &head_commit(), Some(RiskClass::Low));

    assert_eq!(rules(&result), ["auth.line.identifier", "auth.line.python"]);
    assert_eq!(
        (result.findings[0].line, result.findings[0].side),
        (Some(1), Some(LineSide::Removed))
    );
    assert_eq!(result.risk, RiskClass::High);
}

#[test]
fn gitattributes_cannot_hide_content_from_the_rules() {
    let (repo, base) = TestRepo::with_files(&[(".gitattributes", "*.txt -diff\n*.cfg binary\n")]);
    repo.write("notes.txt", "key = 'AKIAIOSFODNN7REALKEY'\n");
    repo.write("app.cfg", "url = 'postgres://app:s3cr3tPass@db/app'\n");
    repo.commit("secrets behind attributes");

    let result = run(&repo, &base, &head_commit(), None);

    let mut fired = rules(&result);
    fired.sort();
    assert_eq!(
        fired,
        [
            "credential.line.aws-access-key",
            "credential.line.url-password"
        ]
    );
}

#[test]
fn unstaged_edits_to_tracked_files_are_read_in_the_working_tree() {
    let (repo, base) = TestRepo::with_files(&[("app/config.py", "DEBUG = False\n")]);
    repo.write(
        "app/config.py",
        "DEBUG = False\nHOST = os.environ['HOST']\n",
    );

    let result = run(&repo, &base, &Head::WorkTree, None);

    assert_eq!(rules(&result), ["env-var.line.python"]);
    assert_eq!(result.findings[0].line, Some(2));
}

#[test]
fn a_moved_records_directory_is_left_out_and_the_old_one_counts() {
    let repo = TestRepo::new();
    repo.write(".handoff.yaml", "records_dir: meta/records\n");
    let base = repo.commit("policy");
    repo.write("meta/records/t1.md", "AKIAIOSFODNN7REALKEY\n");
    repo.write(".handoff/t1.md", "notes\n");
    repo.commit("records");

    let result = run(&repo, &base, &head_commit(), None);

    // The moved directory's record is not a changed file, but its key is a leak.
    assert_eq!(rules(&result), ["credential.line.aws-access-key"]);
    let paths: Vec<String> = result.files.iter().map(|f| f.path.to_string()).collect();
    assert_eq!(paths, [".handoff/t1.md"]);
}

#[test]
fn a_submodule_under_an_auth_path_is_an_auth_change() {
    let (repo, base) = TestRepo::with_base();
    repo.add_submodule("vendor/oauth");
    repo.commit("submodule");

    let result = run(&repo, &base, &head_commit(), None);

    assert!(
        rules(&result).contains(&"auth.path.auth-dir"),
        "{:?}",
        result.findings
    );
    assert!(result.files.iter().any(|file| file.submodule));
}

#[test]
fn comments_only_count_for_credentials() {
    let result = change(&[
        (
            "src/config.rs",
            "/// Reads `std::env::var(\"PORT\")` at start-up.\nfn port() {}\n",
        ),
        (
            "app/admin_tools.py",
            "# @login_required is added by the router\n# old key: AKIAIOSFODNN7REALKEY\n",
        ),
    ]);
    assert_eq!(
        rules(&result),
        ["credential.line.aws-access-key"],
        "{:?}",
        result.findings
    );
    assert_eq!(result.findings[0].line, Some(2));
}

#[test]
fn a_comment_only_change_in_an_auth_file_is_not_an_auth_change() {
    let (repo, _) = TestRepo::with_base();
    repo.write(
        "tools/auth/gitlab.go",
        "package auth\n\n// Docs: https://example.org/old\nfunc Name() string { return \"gitlab\" }\n",
    );
    repo.write(".env.example", "# SMTP host\nSMTP_HOST=\n");
    let base = repo.commit("provider");
    repo.write(
        "tools/auth/gitlab.go",
        "package auth\n\n// Docs: https://example.org/new\n\nfunc Name() string { return \"gitlab\" }\n",
    );
    repo.write(".env.example", "# The SMTP host\nSMTP_HOST=\n");
    repo.commit("doc comment");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);

    repo.write(
        "tools/auth/gitlab.go",
        "package auth\n\n// Docs: https://example.org/new\n\nfunc Name() string { return \"gitlab-ce\" }\n",
    );
    let code = repo.commit("code");
    let result = run(&repo, &format!("{code}^"), &head_commit(), None);
    assert_eq!(
        rules(&result),
        ["auth.path.auth-dir"],
        "{:?}",
        result.findings
    );
}

#[test]
fn tests_of_permissions_and_payments_are_test_changes_only() {
    let result = change(&[
        (
            "shop/payment/tests/test_refunds.py",
            "def test_denied(client):\n    assert client.get('/x').status_code == 403\n",
        ),
        (
            "apis/sql_test.go",
            "package apis\n\nvar h = map[string]string{\"Authorization\": \"eyJhbGciOiJIUzI1NiJ9.eyJpZCI6InN1cGVydXNlciJ9.c2lnbmF0dXJlc2lnbmF0dXJl\"}\n",
        ),
    ]);
    assert_eq!(result.risk, RiskClass::Medium, "{:?}", result.findings);
    assert_eq!(triggers(&result), ["test-file"]);
    let result = change(&[(
        "shop/payment/refunds.py",
        "def refund(order):\n    abort(403)\n",
    )]);
    assert_eq!(
        rules(&result),
        ["auth.line.access-denied", "payment.path.payment-dir"],
        "{:?}",
        result.findings
    );
}

/// Commits `manifests` as the base, then `files` on top, and classifies the change.
fn change_over(manifests: &[(&str, &str)], files: &[(&str, &str)]) -> Classification {
    let (repo, base) = TestRepo::with_files(manifests);
    for (path, content) in files {
        repo.write(path, content);
    }
    repo.commit("change");
    run(&repo, &base, &head_commit(), None)
}

/// The stacks found, and each finding's rule and stack.
fn stacks_and_rules(result: &Classification) -> (Vec<&str>, Vec<(&str, &str)>) {
    let stacks = result.stacks.iter().map(String::as_str).collect();
    let rules = result
        .findings
        .iter()
        .map(|finding| (finding.rule.as_str(), finding.stack.as_str()))
        .collect();
    (stacks, rules)
}

const RAILS_GEMFILE: &str = "source 'https://rubygems.org'\ngem 'rails', '~> 8.0'\n";
const LARAVEL_ROUTE: &str = "<?php\nRoute::get('/users', [UserController::class, 'index']);\n";

#[test]
fn framework_rules_apply_where_the_base_s_manifests_name_the_framework() {
    let procedure = "export const create = protectedProcedure.mutation(() => 1);\n";
    let express = change_over(
        &[("package.json", r#"{"dependencies": {"express": "4"}}"#)],
        &[("src/server/create.ts", procedure)],
    );
    assert_eq!(
        stacks_and_rules(&express),
        (vec!["express", "javascript"], vec![])
    );

    // A monorepo: the app's own manifest speaks for the files below it.
    let trpc = change_over(
        &[(
            "apps/web/package.json",
            r#"{"dependencies": {"@trpc/server": "11"}}"#,
        )],
        &[("apps/web/src/server/create.ts", procedure)],
    );
    assert_eq!(
        stacks_and_rules(&trpc),
        (
            vec!["javascript", "trpc"],
            vec![("api-route.line.trpc", "trpc")]
        )
    );
}

#[test]
fn manifests_below_the_root_and_in_a_requirements_folder_are_found() {
    // Only the manifests a directory holds are looked up: one a level down, and
    // `requirements/base.txt` of a sub-project, still count; a file named `requirements`
    // where the folder could be is no error.
    let result = change_over(
        &[
            ("services/api/requirements/base.txt", "Django==5.0\n"),
            (
                "services/web/package.json",
                r#"{"dependencies": {"express": "4"}}"#,
            ),
            ("requirements", "not a folder\n"),
        ],
        &[
            ("services/api/views.py", "x = 1\n"),
            ("services/web/app.js", "let x = 1;\n"),
        ],
    );
    assert_eq!(
        stacks_and_rules(&result).0,
        ["django", "express", "javascript", "python"]
    );
}

#[test]
fn a_change_cannot_switch_off_its_framework_rules_by_editing_a_manifest() {
    let result = change_over(
        &[(
            "composer.json",
            r#"{"require": {"laravel/framework": "^11"}}"#,
        )],
        &[
            ("composer.json", r#"{"require": {"slim/slim": "4"}}"#),
            ("routes/web.php", LARAVEL_ROUTE),
        ],
    );
    assert_eq!(
        stacks_and_rules(&result),
        (
            vec!["laravel", "php"],
            vec![("api-route.path.laravel", "laravel")]
        )
    );
}

#[test]
fn without_a_known_framework_every_rule_applies_and_with_another_one_it_does_not() {
    // No manifest names a framework: the gate does not go quiet.
    let unknown = change(&[("routes/web.php", LARAVEL_ROUTE)]);
    assert_eq!(
        stacks_and_rules(&unknown),
        (vec![], vec![("api-route.path.laravel", "laravel")])
    );

    // A Symfony project's routes/web.php is not Laravel's route file.
    let symfony = change_over(
        &[(
            "composer.json",
            r#"{"require": {"symfony/framework-bundle": "7"}}"#,
        )],
        &[("routes/web.php", LARAVEL_ROUTE)],
    );
    assert_eq!(stacks_and_rules(&symfony), (vec!["php", "symfony"], vec![]));
}

#[test]
fn language_rules_apply_by_file_name_whatever_the_manifests_say() {
    let result = change_over(
        &[("Gemfile", RAILS_GEMFILE)],
        &[(
            "tools/report.py",
            "import os\nDSN = os.environ['REPORT_DSN']\n",
        )],
    );
    assert_eq!(
        stacks_and_rules(&result),
        (
            vec!["rails", "ruby"],
            vec![("env-var.line.python", "python")]
        )
    );
}

/// A Flask app whose request hooks are nested functions; `{body}` is the CSRF hook's last line.
fn request_hooks(body: &str) -> String {
    format!(
        "def init(app):\n    @app.before_request\n    def csrf():\n        if request.method in SAFE:\n            return\n        {body}\n\n    @app.before_request\n    def theme():\n        if request.endpoint == 'views.themes':\n            return\n"
    )
}

#[test]
fn a_change_inside_a_guard_function_is_auth_by_the_definition_around_it() {
    let (repo, base) =
        TestRepo::with_files(&[("app/hooks.py", &request_hooks("check_nonce(session)"))]);
    repo.write("app/hooks.py", request_hooks("pass"));
    repo.commit("skip the nonce check");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(result.risk, RiskClass::High);
    let finding = &result.findings[0];
    assert_eq!(
        (finding.rule.as_str(), finding.line, finding.side),
        ("auth.scope.guard", Some(3), Some(LineSide::Added))
    );
    assert_eq!(finding.excerpt.as_deref(), Some("def csrf():"));

    // The same kind of change in the theme hook is in no guard.
    let theme = request_hooks("pass").replace("'views.themes'", "'views.themes_beta'");
    let result = change_over(
        &[("app/hooks.py", &request_hooks("pass"))],
        &[("app/hooks.py", &theme)],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn a_removed_line_reads_the_definitions_of_the_base() {
    let service = |body: &str| {
        format!("public class Orders {{\n    public int paySuccess(Long id) {{\n        {body}\n        return 1;\n    }}\n}}\n")
    };
    let result = change_over(
        &[(
            "src/main/java/Orders.java",
            &service("mapper.update(order);"),
        )],
        &[("src/main/java/Orders.java", &service(""))],
    );
    let finding = &result.findings[0];
    assert_eq!(
        (finding.rule.as_str(), finding.line, finding.side),
        ("payment.scope.pay", Some(2), Some(LineSide::Removed))
    );
}

#[test]
fn scope_rules_are_not_read_once_the_change_is_high() {
    let (repo, base) =
        TestRepo::with_files(&[("app/hooks.py", &request_hooks("check_nonce(session)"))]);
    repo.write("app/hooks.py", request_hooks("pass"));
    repo.write("app/config.py", "import os\nPORT = os.getenv('PORT')\n");
    repo.commit("skip the nonce check, read the port");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(rules(&result), ["env-var.line.python"]);
}

#[test]
fn words_in_strings_and_docstrings_are_text_where_the_language_has_a_grammar() {
    let text_only = change(&[
        (
            "src/envelope.types.ts",
            "export const schema = z.string().describe('The authentication methods required.');\n",
        ),
        (
            "app/settings.py",
            "def port():\n    \"\"\"Read from os.environ by the caller.\"\"\"\n    return 8080\n",
        ),
    ]);
    assert!(text_only.findings.is_empty(), "{:?}", text_only.findings);

    let code = change(&[
        (
            "src/envelope.types.ts",
            "export const schema = z.string().describe('Auth methods'); // see below\nconst ok = authenticate(user, 'The authentication methods');\n",
        ),
        (
            "app/settings.py",
            "def port():\n    \"\"\"Read from os.environ.\"\"\"\n    return os.environ['PORT']\n",
        ),
    ]);
    assert_eq!(
        code.findings
            .iter()
            .map(|f| (f.rule.as_str(), f.line))
            .collect::<Vec<_>>(),
        [
            ("auth.line.access-check", Some(2)),
            ("auth.line.identifier", Some(2)),
            ("env-var.line.python", Some(3)),
        ]
    );

    // Elixir has no grammar here: the line rule's answer stands.
    let elixir = change(&[(
        "lib/envelope.ex",
        "@description \"The authentication methods required.\"\n",
    )]);
    assert_eq!(
        rules(&elixir),
        ["auth.line.access-check", "auth.line.identifier"]
    );
}

#[test]
fn a_removed_line_is_confirmed_in_the_base_s_file() {
    // In the head, the removed line's place holds a string: only the base's file says
    // that the removed read was code.
    let (repo, base) =
        TestRepo::with_files(&[("app/settings.py", "import os\nPORT = os.environ['PORT']\n")]);
    repo.write(
        "app/settings.py",
        "import os\nHELP = \"..os.environ is not read here\"\nPORT = 8080\n",
    );
    repo.commit("a fixed port");
    let result = run(&repo, &base, &head_commit(), None);
    let finding = &result.findings[0];
    assert_eq!(
        (finding.rule.as_str(), finding.line, finding.side),
        ("env-var.line.python", Some(2), Some(LineSide::Removed))
    );
}

#[test]
fn a_change_already_high_keeps_the_line_rules_answer_unparsed() {
    let result = change(&[
        (
            "src/envelope.types.ts",
            "export const schema = z.string().describe('The authentication methods required.');\n",
        ),
        ("db/migrate/20260101_add_users.rb", "class AddUsers; end\n"),
    ]);
    assert_eq!(
        rules(&result),
        [
            "auth.line.access-check",
            "auth.line.identifier",
            "migration.path.rails"
        ]
    );
}

#[test]
fn code_after_a_block_comment_on_its_line_is_code() {
    // A line that opens with `/* … */` and goes on with code is not a comment line, so
    // the env read, the route and the impersonation on it fire (the comment alone still
    // fires nothing).
    let result = change(&[(
        "src/config.ts",
        "/* keys */ export const key = process.env.STRIPE_SECRET_KEY;\n\
         /* admin */ app.post('/admin/impersonate', (req, res) => impersonate(req.body));\n\
         /* process.env.UNUSED */\n",
    )]);
    assert_eq!(result.risk, RiskClass::High);
    let lines: Vec<(&str, Option<usize>)> = result
        .findings
        .iter()
        .filter(|f| f.trigger != "credential")
        .map(|f| (f.rule.as_str(), f.line))
        .collect();
    assert_eq!(
        lines,
        [
            ("api-route.line.express", Some(2)),
            ("auth.line.impersonation", Some(2)),
            ("env-var.line.js", Some(1))
        ]
    );
}

#[test]
fn package_registry_tokens_are_credentials_and_placeholders_are_not() {
    let token = "npm_7hQk3LmZ9pXw2RtY8vBn4CdE6fGh1JkLs0Qa";
    let result = change(&[(
        ".npmrc",
        &format!("//registry.npmjs.org/:_authToken={token}\nalways-auth=true\n"),
    )]);
    assert_eq!(result.risk, RiskClass::High);
    assert!(rules(&result).contains(&"credential.line.registry-token"));
    assert!(
        !format!("{result:?}").contains(token),
        "the token is redacted"
    );
    let placeholder = change(&[(".npmrc", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n")]);
    assert_eq!(placeholder.risk, RiskClass::Low, "{placeholder:?}");
}

#[test]
fn subscription_code_is_payment_code() {
    let result = change(&[(
        "src/subscriptions/renewal.py",
        "def renew(sub):\n    sub.extend(days=3650)\n",
    )]);
    assert_eq!(triggers(&result), ["payment"]);
    assert_eq!(result.risk, RiskClass::High);
}

#[test]
fn migrations_are_found_by_layout_and_by_what_they_are() {
    // TypeORM's documented folder, and a migration class wherever it is kept.
    let typeorm = "import { MigrationInterface, QueryRunner } from \"typeorm\";\n\
         export class DropUserEmail1700000000000 implements MigrationInterface {\n\
         \x20 public async up(q: QueryRunner): Promise<void> { await q.query('ALTER TABLE \"user\" DROP COLUMN \"email\"'); }\n\
         }\n";
    let by_folder = change(&[("src/migration/1700000000000-DropUserEmail.ts", typeorm)]);
    assert_eq!(triggers(&by_folder), ["migration"]);
    let by_class = change(&[("src/db/changes/1700000000000-DropUserEmail.ts", typeorm)]);
    assert_eq!(rules(&by_class), ["migration.line.framework"]);
    let ecto = change(&[(
        "priv/repo/structure/20210416_last_seen.exs",
        "defmodule App.Repo.Migrations.Backfill do\n  use Ecto.Migration\nend\n",
    )]);
    assert_eq!(rules(&ecto), ["migration.line.framework"]);
    // A list of migrations kept in code: a change inside one of its entries.
    let (repo, base) = TestRepo::with_files(&[(
        "internal/database/schema.go",
        "package database\n\nvar migrations = [...]func(tx *sql.Tx) error{\n\tfunc(tx *sql.Tx) error {\n\t\t_, err := tx.Exec(`DELETE FROM entries WHERE status = 'removed'`)\n\t\treturn err\n\t},\n}\n",
    )]);
    repo.write(
        "internal/database/schema.go",
        "package database\n\nvar migrations = [...]func(tx *sql.Tx) error{\n\tfunc(tx *sql.Tx) error {\n\t\t_, err := tx.Exec(`DELETE FROM entries WHERE status = 'removed' AND feed_id > 0`)\n\t\treturn err\n\t},\n}\n",
    );
    repo.commit("skip orphans");
    let listed = run(&repo, &base, &head_commit(), None);
    assert_eq!(rules(&listed), ["migration.scope.list"]);
}

#[test]
fn elixir_env_reads_and_plugs_fire_and_the_stack_is_detected() {
    let (repo, base) = TestRepo::with_files(&[
        ("mix.exs", "defp deps do\n  [{:phoenix, \"~> 1.7\"}]\nend\n"),
        ("config/prod.exs", "import Config\n"),
        (
            "lib/app_web/controllers/tag_controller.ex",
            "defmodule AppWeb.TagController do\n  use AppWeb, :controller\nend\n",
        ),
    ]);
    repo.write(
        "config/prod.exs",
        "import Config\nrequire_db_ssl = System.get_env(\"REQUIRE_DB_SSL\") || true\n",
    );
    repo.write(
        "lib/app_web/controllers/tag_controller.ex",
        "defmodule AppWeb.TagController do\n  use AppWeb, :controller\n  plug :authorize when action in [:show]\nend\n",
    );
    repo.commit("ssl and authorization");
    let result = run(&repo, &base, &head_commit(), None);
    let fired = rules(&result);
    assert!(
        fired.contains(&"env-var.line.elixir") && fired.contains(&"auth.line.elixir"),
        "{fired:?}"
    );
    let stacks: Vec<&str> = result.stacks.iter().map(String::as_str).collect();
    assert!(
        stacks.contains(&"elixir") && stacks.contains(&"phoenix"),
        "{stacks:?}"
    );
}

#[test]
fn code_moved_under_a_privilege_check_is_an_auth_change() {
    let (repo, base) = TestRepo::with_files(&[(
        "src/controllers/accounts/info.js",
        "infoController.get = async function (req, res) {\n\tpayload.history = history;\n\tif (isPrivileged) {\n\t\tpayload.notes = notes;\n\t}\n};\n",
    )]);
    repo.write(
        "src/controllers/accounts/info.js",
        "infoController.get = async function (req, res) {\n\tif (isPrivileged) {\n\t\tpayload.history = history;\n\t\tpayload.notes = notes;\n\t}\n};\n",
    );
    repo.commit("history for the privileged only");
    let result = run(&repo, &base, &head_commit(), None);
    assert!(rules(&result).contains(&"auth.scope.check"), "{result:?}");
    assert_eq!(result.risk, RiskClass::High);
}

#[test]
fn security_settings_whose_values_are_strings_are_auth_settings() {
    // Removing Django's CSRF and authentication middleware changes no line of code, only
    // strings in the MIDDLEWARE list: the list is what the change is in.
    let settings = |middleware: &str| {
        format!(
            "MIDDLEWARE = [\n    \"django.middleware.security.SecurityMiddleware\",\n{middleware}]\n\nSTATICFILES_DIRS = [\n    \"static\",\n]\n"
        )
    };
    let full = settings(
        "    \"django.middleware.csrf.CsrfViewMiddleware\",\n    \"django.contrib.auth.middleware.AuthenticationMiddleware\",\n",
    );
    let result = change_over(
        &[("config/settings.py", &full)],
        &[("config/settings.py", &settings(""))],
    );
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
    let finding = &result.findings[0];
    assert_eq!(
        (finding.rule.as_str(), finding.line, finding.side),
        (
            "auth.scope.security-setting",
            Some(1),
            Some(LineSide::Removed)
        )
    );
    // A one-line security setting fires on its own line.
    let cookie = change(&[("config/settings.py", "SESSION_COOKIE_SECURE = False\n")]);
    assert_eq!(
        rules(&cookie),
        [
            "auth.line.config-item",
            "auth.line.identifier",
            "auth.line.security-setting"
        ]
    );
    // The same kind of edit in a list that is no security setting stays low.
    let statics = full.replace("    \"static\",\n", "    \"static\",\n    \"assets\",\n");
    let result = change_over(
        &[("config/settings.py", &full)],
        &[("config/settings.py", &statics)],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn configuration_files_are_read_as_data_by_their_key_paths() {
    // A value changed under a container's `env:` entry, in a manifest outside any
    // Kubernetes folder: the changed line names no variable, its key path does.
    let deployment = |port: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      containers:\n      - name: api\n        image: api:1.0\n        env:\n        - name: PORT\n          value: \"{port}\"\n"
        )
    };
    let result = change_over(
        &[("manifests/api.yaml", &deployment("8080"))],
        &[("manifests/api.yaml", &deployment("9090"))],
    );
    assert_eq!(rules(&result), ["env-var.data.env-block"]);
    let finding = &result.findings[0];
    assert_eq!(finding.line, Some(13));
    assert_eq!(
        finding.excerpt.as_deref(),
        Some("Deployment/spec.template.spec.containers.-.env.-.value"),
        "the excerpt is the key path, never the value"
    );
    // The same entry in flow style: the line holds the entries.
    let flow = |port: &str| {
        deployment(port).replace(
            &format!("        env:\n        - name: PORT\n          value: \"{port}\"\n"),
            &format!("        env: [{{name: PORT, value: \"{port}\"}}]\n"),
        )
    };
    let result = change_over(
        &[("manifests/api.yaml", &flow("8080"))],
        &[("manifests/api.yaml", &flow("9090"))],
    );
    assert_eq!(rules(&result), ["env-var.data.env-block"]);
    // The image of the same container is no environment.
    let image = deployment("8080").replace("api:1.0", "api:1.1");
    let result = change_over(
        &[("manifests/api.yaml", &deployment("8080"))],
        &[("manifests/api.yaml", &image)],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);

    // A verb granted by a ClusterRole's rules is auth; its labels are not.
    let role = |verbs: &str, chart: &str| {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reloader\n  labels:\n    chart: \"{chart}\"\nrules:\n  - apiGroups:\n      - \"\"\n    resources:\n      - secrets\n    verbs:\n{verbs}"
        )
    };
    let base = role("      - list\n      - get\n", "1.0.69");
    let wider = role("      - list\n      - get\n      - delete\n", "1.0.69");
    let result = change_over(
        &[("manifests/clusterrole.yaml", &base)],
        &[("manifests/clusterrole.yaml", &wider)],
    );
    assert_eq!(rules(&result), ["auth.data.rbac"]);
    assert_eq!(
        result.findings[0].excerpt.as_deref(),
        Some("ClusterRole/rules.-.verbs.-")
    );
    let relabelled = role("      - list\n      - get\n", "1.0.70");
    let result = change_over(
        &[("manifests/clusterrole.yaml", &base)],
        &[("manifests/clusterrole.yaml", &relabelled)],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);

    // A TOML `[env]` table, and the value of a security header on a line of its own.
    let fly = change_over(
        &[("fly.toml", "app = \"api\"\n\n[env]\n  PORT = \"8080\"\n")],
        &[("fly.toml", "app = \"api\"\n\n[env]\n  PORT = \"9090\"\n")],
    );
    assert_eq!(rules(&fly), ["env-var.data.env-block"]);
    let headers = |sources: &str| {
        format!("headers:\n  Content-Security-Policy: >-\n    default-src 'self'{sources}\n  Cache-Control: no-store\n")
    };
    let csp = change_over(
        &[("config/headers.yaml", &headers(""))],
        &[("config/headers.yaml", &headers(" https://cdn.example.com"))],
    );
    assert_eq!(rules(&csp), ["auth.data.security-config"]);
    let cache = change_over(
        &[("config/headers.yaml", &headers(""))],
        &[(
            "config/headers.yaml",
            &headers("").replace("no-store", "no-cache"),
        )],
    );
    assert_eq!(cache.risk, RiskClass::Low, "{:?}", cache.findings);
}

#[test]
fn a_change_inside_a_class_named_for_auth_is_auth_by_the_class_around_it() {
    // The changed line sets an owner; the class it is in is an OAuth callback.
    let view = |class: &str, extra: &str| {
        format!(
            "class {class}(GenericAPIView):\n    def get(self, request):\n        account = Account.objects.create(\n            name=name,\n{extra}        )\n        return redirect(account)\n"
        )
    };
    let result = change_over(
        &[("mail/handlers.py", &view("OauthCallbackView", ""))],
        &[(
            "mail/handlers.py",
            &view("OauthCallbackView", "            owner=request.user,\n"),
        )],
    );
    assert_eq!(rules(&result), ["auth.scope.class"]);
    assert_eq!(result.findings[0].line, Some(1));
    let result = change_over(
        &[("mail/handlers.py", &view("DocumentDownloadView", ""))],
        &[(
            "mail/handlers.py",
            &view("DocumentDownloadView", "            owner=request.user,\n"),
        )],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn jsonnet_manifests_are_read_as_data_by_their_brackets() {
    // An env value of a Deployment built in Jsonnet, the object nested under a field and
    // its `kind` a sibling key after the containers: the key path says it is env.
    let deployment = |port: &str, image: &str| {
        format!(
            "local config = import 'config.libsonnet';\n{{\n  deployment: {{\n    apiVersion: 'apps/v1',\n    spec: {{ template: {{ spec: {{\n      containers: [{{\n        name: 'api',\n        image: '{image}',\n        env: [\n          {{\n            name: 'PORT',\n            value: '{port}',\n          }},\n        ],\n      }}],\n    }} }} }},\n    kind: 'Deployment',\n  }},\n}}\n"
        )
    };
    let base = deployment("8080", "api:1.0");
    let result = change_over(
        &[("jsonnet/api.libsonnet", &base)],
        &[("jsonnet/api.libsonnet", &deployment("9090", "api:1.0"))],
    );
    assert_eq!(rules(&result), ["env-var.data.env-block"]);
    assert_eq!(result.findings[0].line, Some(12));
    assert_eq!(
        result.findings[0].excerpt.as_deref(),
        Some("Deployment/spec.template.spec.containers.-.env.-.value")
    );
    let result = change_over(
        &[("jsonnet/api.libsonnet", &base)],
        &[("jsonnet/api.libsonnet", &deployment("8080", "api:1.1"))],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);

    // A verb a ClusterRole grants, the role a field of a bigger object.
    let role = |verbs: &str| {
        format!(
            "{{\n  clusterRole: {{\n    apiVersion: 'rbac.authorization.k8s.io/v1',\n    kind: 'ClusterRole',\n    metadata: {{ name: 'reader' }},\n    rules: [\n      {{\n        apiGroups: [''],\n        resources: ['pods'],\n        verbs: [{verbs}],\n      }},\n    ],\n  }},\n}}\n"
        )
    };
    let result = change_over(
        &[("jsonnet/rbac.jsonnet", &role("'get'"))],
        &[("jsonnet/rbac.jsonnet", &role("'get', 'delete'"))],
    );
    assert_eq!(rules(&result), ["auth.data.rbac"]);
    assert_eq!(
        result.findings[0].excerpt.as_deref(),
        Some("ClusterRole/rules.-.verbs.-")
    );
}

#[test]
fn schema_changes_outside_migration_folders_are_migrations() {
    // DDL in a SQL file an init container applies; a seed's rows are not a schema.
    let ddl = change(&[(
        "deploy/initdb/002_users.sql",
        "ALTER TABLE users\n    ADD COLUMN verified boolean NOT NULL DEFAULT false;\n",
    )]);
    assert_eq!(rules(&ddl), ["migration.line.sql-ddl"]);
    let seed = change(&[(
        "deploy/initdb/003_seed.sql",
        "INSERT INTO users (email) VALUES ('a@example.com');\n",
    )]);
    assert_eq!(seed.risk, RiskClass::Low, "{:?}", seed.findings);

    // An Alembic revision kept in a folder of another name: a line of `upgrade()`.
    let revision = |body: &str| {
        format!("revision = \"b2\"\ndown_revision = \"a1\"\n\n\ndef upgrade() -> None:\n{body}\n\n\ndef downgrade() -> None:\n    pass\n")
    };
    let result = change_over(
        &[("app/db/revisions/b2_add_flag.py", &revision("    pass"))],
        &[(
            "app/db/revisions/b2_add_flag.py",
            &revision("    bind = op.get_bind()"),
        )],
    );
    assert_eq!(rules(&result), ["migration.scope.alembic"]);

    // A Prisma model's field is a schema change; the client generator is not.
    let schema = |output: &str, field: &str| {
        format!("generator client {{\n  provider = \"prisma-client-js\"\n  output   = \"{output}\"\n}}\n\nmodel User {{\n  id    Int    @id\n{field}}}\n")
    };
    let base = schema("../generated", "");
    let result = change_over(
        &[("prisma/schema.prisma", &base)],
        &[(
            "prisma/schema.prisma",
            &schema("../generated", "  email String @unique\n"),
        )],
    );
    assert!(
        triggers(&result).contains(&"migration"),
        "{:?}",
        result.findings
    );
    let result = change_over(
        &[("db/models.prisma", &base)],
        &[("db/models.prisma", &schema("../client", ""))],
    );
    assert_eq!(rules(&result), ["migration.path.schema-file"]);
}

#[test]
fn ownership_checks_and_guards_in_handlers_are_auth_by_meaning() {
    // A Django view gains an ownership check: no auth word in the path or the line.
    let view = |check: &str| {
        format!("def edit_note(request, pk):\n    note = get_object_or_404(Note, pk=pk)\n{check}    return render(request, \"note.html\", {{\"note\": note}})\n")
    };
    let result = change_over(
        &[("notes/handlers.py", &view(""))],
        &[(
            "notes/handlers.py",
            &view("    if note.owner != request.user:\n        raise Http404\n"),
        )],
    );
    assert_eq!(rules(&result), ["auth.line.ownership"]);
    // Reading the user to show it is not a check.
    let result = change_over(
        &[("notes/handlers.py", &view(""))],
        &[("notes/handlers.py", &view("    user = request.user\n"))],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
    // A Rails guard named in the project's own words, and a Go handler's permission helper.
    let result = change_over(
        &[
            ("Gemfile", RAILS_GEMFILE),
            (
                "app/controllers/stories_controller.rb",
                "class StoriesController < ApplicationController\nend\n",
            ),
        ],
        &[(
            "app/controllers/stories_controller.rb",
            "class StoriesController < ApplicationController\n  before_action :require_logged_in_user, only: [:create]\nend\n",
        )],
    );
    assert!(
        rules(&result).contains(&"auth.line.rails"),
        "{:?}",
        result.findings
    );
    let result = change_over(
        &[("server/memo.go", "package server\n")],
        &[(
            "server/memo.go",
            "package server\n\nfunc (s *Service) Update(ctx context.Context, m *Memo) error {\n\tif !canEditMemo(ctx, m) {\n\t\treturn errNotAllowed\n\t}\n\treturn nil\n}\n",
        )],
    );
    assert_eq!(rules(&result), ["auth.line.permission-helper"]);
}

#[test]
fn a_function_header_written_over_several_lines_still_names_the_block() {
    // rustfmt writes the parameters one per line and `) -> T {` back at the header's
    // column: the body is still in `do_password_modification`.
    let handler = |name: &str, dn: &str| {
        format!(
            "impl Handler {{\n    async fn {name}(\n        &mut self,\n        request: &Request,\n    ) -> Result<()> {{\n        let uid = user_id_from_dn(\n            {dn},\n            &self.base_dn,\n        )?;\n        self.store(uid)\n    }}\n}}\n"
        )
    };
    let base = handler("do_password_modification", "user");
    let result = change_over(
        &[("src/ldap.rs", &base)],
        &[(
            "src/ldap.rs",
            &handler("do_password_modification", "&user.to_ascii_lowercase()"),
        )],
    );
    assert_eq!(rules(&result), ["auth.scope.guard"]);
    assert_eq!(result.findings[0].line, Some(2));
    let result = change_over(
        &[("src/ldap.rs", &handler("do_modification", "user"))],
        &[(
            "src/ldap.rs",
            &handler("do_modification", "&user.to_ascii_lowercase()"),
        )],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn a_statement_added_beside_a_role_branch_that_runs_it_is_auth() {
    // A new branch clears the same per-user cache the role-change branch clears: it is
    // read by that branch's condition.
    let service = |condition: &str, extra: &str| {
        format!(
            "class UserService {{\n    void update(User resources, User user) {{\n        if ({condition}) {{\n            redisUtils.del(CacheKey.DATA_USER + resources.getId());\n            redisUtils.del(CacheKey.MENU_USER + resources.getId());\n        }}\n{extra}        userRepository.save(user);\n    }}\n}}\n"
        )
    };
    let added = "        if (!Objects.equals(resources.getDept(), user.getDept())) {\n            redisUtils.del(CacheKey.DATA_USER + resources.getId());\n        }\n";
    let roles = "!resources.getRoles().equals(user.getRoles())";
    let result = change_over(
        &[("src/main/java/UserService.java", &service(roles, ""))],
        &[("src/main/java/UserService.java", &service(roles, added))],
    );
    assert_eq!(rules(&result), ["auth.scope.check"]);
    assert_eq!(result.findings[0].line, Some(3));
    // The same change beside a branch on the user's email is not auth.
    let email = "!resources.getEmail().equals(user.getEmail())";
    let result = change_over(
        &[("src/main/java/UserService.java", &service(email, ""))],
        &[("src/main/java/UserService.java", &service(email, added))],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn a_security_section_of_a_translation_catalogue_is_wording_not_a_setting() {
    let catalogue = |title: &str| format!("fr:\n  pages:\n    security:\n      title: {title}\n");
    let result = change_over(
        &[("config/locales/fr.yml", &catalogue("Sécurité"))],
        &[("config/locales/fr.yml", &catalogue("Sécurité du site"))],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
    // The same block in a configuration file is an auth setting.
    let config = |minutes: &str| format!("security:\n  session_minutes: {minutes}\n");
    let result = change_over(
        &[("config/application.yml", &config("30"))],
        &[("config/application.yml", &config("600"))],
    );
    assert_eq!(rules(&result), ["auth.scope.config"]);
}

#[test]
fn a_translation_catalogue_does_not_hide_a_secret() {
    // The catalogue exemption covers the scope rules only: a secret written into a
    // file shaped like a catalogue still reaches the line rules.
    let before = "fr:\n  pages:\n    title: Bonjour\n";
    let after = "fr:\n  pages:\n    title: Bonjour\n  password: \"hunter2-Xq9kLpZ7\"\n";
    let result = change_over(
        &[("config/locales/fr.yml", before)],
        &[("config/locales/fr.yml", after)],
    );
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
    assert!(
        rules(&result)
            .iter()
            .any(|rule| rule.starts_with("credential.")),
        "{:?}",
        result.findings
    );
}

#[test]
fn a_default_changed_in_a_config_module_that_reads_the_environment_is_an_env_setting() {
    // A table of settings whose names the module maps to environment variables: the
    // changed line names no variable, the module reads them.
    let module = |timeout: &str| {
        format!(
            "fn load(name: &str) -> Option<String> {{\n    std::env::var(name).ok()\n}}\n\n\
             settings! {{\n    general {{\n        smtp_timeout: u64, true, def, {timeout};\n    }}\n}}\n"
        )
    };
    let result = change_over(
        &[("src/config.rs", &module("true"))],
        &[("src/config.rs", &module("false"))],
    );
    assert_eq!(rules(&result), ["env-var.file.env-config"]);
    // The same table in a module that reads no environment is not.
    let plain = |timeout: &str| {
        format!("settings! {{\n    general {{\n        smtp_timeout: u64, true, def, {timeout};\n    }}\n}}\n")
    };
    let result = change_over(
        &[("src/config.rs", &plain("15"))],
        &[("src/config.rs", &plain("30"))],
    );
    assert!(
        !rules(&result).contains(&"env-var.file.env-config"),
        "{:?}",
        result.findings
    );
}

#[test]
fn a_commented_default_in_an_env_template_is_an_env_change() {
    let template = |value: &str| {
        format!("## Seconds before a mail delivery gives up\n# SMTP_TIMEOUT={value}\n")
    };
    let result = change_over(
        &[(".env.template", &template("15"))],
        &[(".env.template", &template("30"))],
    );
    assert_eq!(rules(&result), ["env-var.path.env-file"]);
    // A comment in a shell script is still a comment.
    let script = |value: &str| format!("#!/bin/sh\n# signups allowed: {value}\nexec app\n");
    let result = change_over(
        &[("run.sh", &script("true"))],
        &[("run.sh", &script("false"))],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn a_file_a_compose_file_names_under_env_file_is_an_env_file_whatever_its_name() {
    let compose = "services:\n  php:\n    env_file:\n      - ./docker/php/xdebug\n      - path: ../../outside\n        required: false\n      - /etc/app.env\n";
    let (repo, base) = TestRepo::with_files(&[
        ("compose.yaml", compose),
        ("docker/php/xdebug", "XDEBUG_MODE=debug\n"),
        ("docker/php/xdebug-notes", "XDEBUG_MODE=debug\n"),
    ]);
    repo.write("docker/php/xdebug", "XDEBUG_MODE=debug\nXDEBUG_TRIGGER=1\n");
    repo.commit("change");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(result.risk, RiskClass::High);
    let finding = &result.findings[0];
    assert_eq!(
        (
            finding.trigger.as_str(),
            finding.rule.as_str(),
            finding.stack.as_str()
        ),
        ("env-var", "env-var.path.compose-env-file", "compose")
    );
    assert_eq!(result.findings.len(), 1);

    // The same kind of file no compose file names stays as it was.
    let base = repo.commit("base again");
    repo.write("docker/php/xdebug-notes", "XDEBUG_MODE=off\n");
    repo.commit("change");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!((result.risk, rules(&result)), (RiskClass::Low, vec![]));

    // A compose file the change adds in a folder names its env file from there; a
    // compose file that is not YAML names nothing.
    let base = repo.commit("base again");
    repo.write(
        "deploy/docker-compose.yml",
        "services:\n  web:\n    env_file: ../docker/php/xdebug-notes\n",
    );
    repo.write("docker/php/xdebug-notes", "XDEBUG_MODE=on\n");
    repo.write("other/compose.yml", "services: [unclosed\n  env_file: x\n");
    repo.commit("change");
    let result = run(&repo, &base, &head_commit(), None);
    assert!(rules(&result).contains(&"env-var.path.compose-env-file"));

    // An entry commented out of the list ("uncomment to enable") names an env file too.
    repo.write(
        "compose.yaml",
        format!(
            "{compose}      # Uncomment to enable Blackfire\n      # - ./docker/php/blackfire\n"
        ),
    );
    repo.write("docker/php/blackfire", "BLACKFIRE_LOG_LEVEL=1\n");
    let base = repo.commit("base again");
    repo.write("docker/php/blackfire", "BLACKFIRE_LOG_LEVEL=4\n");
    repo.commit("change");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(rules(&result), ["env-var.path.compose-env-file"]);
}

/// Commits `old` then `new` at `path` and classifies the second commit.
fn rewrite(path: &str, old: &str, new: &str) -> Classification {
    let (repo, base) = TestRepo::with_files(&[(path, old)]);
    repo.write(path, new);
    repo.commit("rewrite");
    run(&repo, &base, &head_commit(), None)
}

#[test]
fn a_line_rewritten_to_the_same_code_is_read_as_a_comment() {
    // A trailing comment removed from a Prisma field, a compose `${X}` spelled `$X`, a
    // Dockerfile's legacy `ENV K V` spelled `ENV K=V`: no code changed.
    let schema = "model Campaign {\n  id String @id\n  msg String? @unique // claimed\n}\n";
    let result = rewrite(
        "prisma/schema.prisma",
        schema,
        &schema.replace(" // claimed", ""),
    );
    assert_eq!((result.risk, rules(&result)), (RiskClass::Low, vec![]));
    let compose = "services:\n  db:\n    environment:\n      DB_PASSWORD: ${DB_PASSWORD}\n";
    let result = rewrite(
        "docker-compose.yml",
        compose,
        &compose.replace("${DB_PASSWORD}", "$DB_PASSWORD"),
    );
    assert_eq!((result.risk, rules(&result)), (RiskClass::Low, vec![]));
    let dockerfile = "FROM python:3\nENV PORT \"8080\"\nCMD [\"app\"]\n";
    let result = rewrite(
        "svc/Dockerfile",
        dockerfile,
        &dockerfile.replace("PORT \"8080\"", "PORT=\"8080\""),
    );
    assert_eq!((result.risk, rules(&result)), (RiskClass::Low, vec![]));

    // Near misses: the same lines with their code changed are changes.
    let result = rewrite(
        "prisma/schema.prisma",
        schema,
        &schema.replace("@unique // claimed", "@unique @default(\"\")"),
    );
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
    let result = rewrite(
        "docker-compose.yml",
        compose,
        &compose.replace("${DB_PASSWORD}", "${DB_PASSWORD:-secret}"),
    );
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
    let result = rewrite(
        "svc/Dockerfile",
        dockerfile,
        &dockerfile.replace("PORT \"8080\"", "PORT=\"8081\""),
    );
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
}

#[test]
fn a_rewrite_counts_only_where_each_removed_line_is_replaced_by_the_same_code() {
    // The same code moved to another place (a separate deletion and insertion) is not a
    // rewrite: the order of the lines changed.
    let old = "def f(user):\n    check_permission(user)  # first\n    run()\n    log()\n";
    let new = "def f(user):\n    run()\n    log()\n    check_permission(user)\n";
    let result = rewrite("app/jobs.py", old, new);
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
    // One line of a hunk rewritten and another changed: the hunk is a change.
    let old = "const a = 1; // one\nconst key = process.env.A;\n";
    let new = "const a = 1;\nconst key = process.env.B;\n";
    let result = rewrite("src/config.ts", old, new);
    assert!(
        rules(&result).contains(&"env-var.line.js"),
        "{:?}",
        result.findings
    );
    // A secret written into the new trailing comment is still read.
    let result = rewrite(
        "src/config.ts",
        "const region = 'eu';\n",
        "const region = 'eu'; // AKIAIOSFODNN7REALKEY\n",
    );
    assert_eq!(
        rules(&result),
        ["credential.line.aws-access-key"],
        "{:?}",
        result.findings
    );
}

#[test]
fn a_browser_component_is_not_auth_by_its_name() {
    // A Vue sign-in form, and a React one that says "use client" at both sides, gain
    // markup only: the browser decides nothing the server does not check again.
    let (repo, base) = TestRepo::with_files(&[
        ("package.json", r#"{"dependencies": {"vue": "3"}}"#),
        (
            "src/components/Login.vue",
            "<template>\n  <form>\n  </form>\n</template>\n",
        ),
        (
            "web/LoginForm.tsx",
            "'use client'\nexport const LoginForm = () => (\n  <form></form>\n);\n",
        ),
    ]);
    repo.write(
        "src/components/Login.vue",
        "<template>\n  <form aria-label=\"Sign in\">\n  </form>\n</template>\n",
    );
    repo.write(
        "web/LoginForm.tsx",
        "'use client'\nexport const LoginForm = () => (\n  <form aria-label=\"Sign in\"></form>\n);\n",
    );
    repo.commit("markup");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!((result.risk, rules(&result)), (RiskClass::Low, vec![]));

    // Where Next.js renders on the server, a page is auth by its name unless it says
    // "use client" at both sides; a check in a component still fires by its line.
    let next = r#"{"dependencies": {"next": "15"}}"#;
    let page = "export default function Page() { return <form></form>; }\n";
    let (repo, base) = TestRepo::with_files(&[
        ("package.json", next),
        ("app/login/page.tsx", page),
        (
            "app/ui/login-panel.tsx",
            &format!("\"use client\";\n{page}"),
        ),
    ]);
    repo.write(
        "app/login/page.tsx",
        page.replace("<form>", "<form id=\"a\">"),
    );
    repo.write(
        "app/ui/login-panel.tsx",
        format!(
            "\"use client\";\n{}",
            page.replace("<form>", "<form id=\"a\">")
        ),
    );
    let markup = repo.commit("markup");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(
        rules(&result),
        ["auth.path.auth-dir"],
        "{:?}",
        result.findings
    );
    assert_eq!(
        result.findings[0].path.as_ref().map(|p| p.to_string()),
        Some("app/login/page.tsx".to_string())
    );
    repo.write(
        "app/ui/login-panel.tsx",
        "\"use client\";\nexport default function Page() { if (!isAuthenticated()) return null; return <form></form>; }\n",
    );
    repo.commit("check");
    let result = run(&repo, &markup, &head_commit(), None);
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
}

#[test]
fn a_compose_file_in_a_folder_above_a_changed_file_names_its_env_files() {
    // The compose file sits in `docker/`, not at the root, and the change does not touch
    // it: its `env_file:` entry still makes the extensionless file an env file.
    let compose = "services:\n  php:\n    env_file:\n      - ./php/xdebug\n";
    let (repo, base) = TestRepo::with_files(&[
        ("docker/compose.yaml", compose),
        ("docker/php/xdebug", "XDEBUG_MODE=debug\n"),
        ("docker/php/xdebug-notes", "XDEBUG_MODE=debug\n"),
    ]);
    repo.write("docker/php/xdebug", "XDEBUG_MODE=off\n");
    repo.commit("change");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(
        (result.risk, rules(&result)),
        (RiskClass::High, vec!["env-var.path.compose-env-file"])
    );
    // Near miss: a file beside it that no compose file names.
    let base = repo.commit("base again");
    repo.write("docker/php/xdebug-notes", "XDEBUG_MODE=off\n");
    repo.commit("change");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!((result.risk, rules(&result)), (RiskClass::Low, vec![]));
}

#[test]
fn a_server_file_is_auth_by_its_name_whatever_its_extension() {
    // Hono (like Fresh, React Router or TanStack Start) serves from `.tsx` files, and no
    // framework the project model knows renders there: only "use client" says a `.tsx`
    // runs in the browser. An admin guard turned off in `src/auth.tsx` is auth.
    let old = "import { Hono } from 'hono'\nexport const app = new Hono()\napp.use('/admin/*', async (c, next) => {\n  if (c.req.header('x-admin-key') !== KEY) return c.text('no', 401)\n  await next()\n})\n";
    let new = old.replace("if (c.req", "if (DEV && c.req");
    for path in ["src/auth.tsx", "src/middleware/admin.jsx"] {
        let (repo, base) = TestRepo::with_files(&[
            ("package.json", r#"{"dependencies": {"hono": "4"}}"#),
            (path, old),
        ]);
        repo.write(path, &new);
        repo.commit("guard");
        let result = run(&repo, &base, &head_commit(), None);
        assert_eq!(
            result.risk,
            RiskClass::High,
            "{path}: {:?}",
            result.findings
        );
    }
    // A Nuxt server component renders on the server only.
    let (repo, base) = TestRepo::with_files(&[(
        "components/LoginStatus.server.vue",
        "<script setup>\nconst user = await getUser()\n</script>\n",
    )]);
    repo.write(
        "components/LoginStatus.server.vue",
        "<script setup>\nconst user = await getUser({ all: true })\n</script>\n",
    );
    repo.commit("status");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
}

#[test]
fn a_marker_that_may_lie_inside_a_multi_line_string_does_not_start_a_comment() {
    // In a template literal, `// ${…}` is text with code interpolated into it: the line
    // reads another variable of the environment.
    let old = "const script = `\n  export MODE=prod // ${process.env.API_URL}\n`;\n";
    let result = rewrite("src/deploy.ts", old, &old.replace("API_URL", "ADMIN_TOKEN"));
    assert!(
        rules(&result).contains(&"env-var.line.js"),
        "{:?}",
        result.findings
    );
    // In a Python string, `# 4` is SQL (PostgreSQL's XOR): the migration rewrites other
    // rows' flags.
    let old = "def upgrade():\n    op.execute(\"\"\"\n        UPDATE accounts SET flags = flags # 4\n    \"\"\")\n";
    let result = rewrite(
        "migrations/versions/0002_flags.py",
        old,
        &old.replace("# 4", "# 12"),
    );
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
    // Re-indented inside a Go raw string: the YAML it holds has another structure.
    let old = "package k\n\nconst role = `\nrules:\n- verbs: [get]\n  resources: [pods]\n`\n";
    let result = rewrite(
        "deploy/rbac.go",
        old,
        &old.replace("\n  resources", "\n    resources"),
    );
    assert_ne!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn lines_of_a_run_longer_than_a_hunk_holds_pair_with_their_own_counterparts() {
    // 32 RUN lines and an ENV: the ENV moved before the RUNs changes the environment
    // they run in. The added `ENV PORT=8080` replaces the first removed line, not the
    // ENV that a 33-line run leaves for a second hunk.
    let runs: String = (0..32).map(|i| format!("RUN step{i} a\n")).collect();
    let old = format!("FROM debian\n{runs}ENV PORT 8080\n");
    let new_runs: String = (0..32).map(|i| format!("RUN step{i} b\n")).collect();
    let new = format!("FROM debian\nENV PORT=8080\n{new_runs}");
    let result = rewrite("Dockerfile", &old, &new);
    assert_eq!(
        rules(&result),
        ["env-var.line.dockerfile"],
        "{:?}",
        result.findings
    );
}

#[test]
fn an_identifier_spelled_in_characters_python_folds_fires_as_its_ascii_spelling() {
    // Python reads identifiers NFKC-normalised: `ſession_id` (long s), `access_toKen`
    // (Kelvin sign) and a fullwidth `ｐａｓｓword` are `session_id`, `access_token` and
    // `password` to it, and to the gate.
    let old = "def home(request):\n    return render(request)\n";
    for spelled in [
        "request.\u{17f}ession_id = None",
        "access_to\u{212a}en = None",
        "\u{ff50}\u{ff41}\u{ff53}\u{ff53}word = None",
    ] {
        let new = old.replace("    return", &format!("    {spelled}\n    return"));
        let result = rewrite("app/views.py", old, &new);
        assert!(
            rules(&result).contains(&"auth.line.identifier"),
            "{spelled}: {:?}",
            result.findings
        );
    }
    // A line outside ASCII that folds to nothing a rule reads fires nothing.
    let new = old.replace("    return", "    caf\u{e9} = \u{ff11}\n    return");
    let result = rewrite("app/views.py", old, &new);
    assert!(
        !rules(&result).contains(&"auth.line.identifier"),
        "{:?}",
        result.findings
    );
}

/// Commits `files` as the base, then `edits` on top, and classifies the change.
fn edited(files: &[(&str, &str)], edits: &[(&str, &str)]) -> Classification {
    let (repo, base) = TestRepo::with_files(files);
    for (path, content) in edits {
        repo.write(path, content);
    }
    repo.commit("change");
    run(&repo, &base, &head_commit(), None)
}

/// The class of a change and the rules of one trigger that fired.
fn class_and_rules<'a>(result: &'a Classification, trigger: &str) -> (RiskClass, Vec<&'a str>) {
    let fired = result
        .findings
        .iter()
        .filter(|finding| finding.trigger == trigger)
        .map(|finding| finding.rule.as_str())
        .collect();
    (result.risk, fired)
}

#[test]
fn a_guard_named_in_a_route_group_or_an_access_predicate_is_auth() {
    // A token check added to a Go route group's middleware (macaron/gitea style).
    let group = "package web\n\nfunc Register(m *Mux) {\n\tm.Group(\"/orgs\", func() {\n\t\tm.Get(\"/teams\", listTeams)\n\t}, orgAssignment(true))\n}\n";
    let result = edited(
        &[("internal/web/register.go", group)],
        &[(
            "internal/web/register.go",
            &group.replace("}, orgAssignment", "}, reqToken(), orgAssignment"),
        )],
    );
    assert_eq!(
        class_and_rules(&result, "auth"),
        (RiskClass::High, vec!["auth.line.route-guard"])
    );
    // Near misses: a request body, and the guard's name in a comment.
    let client = "package web\n\nfunc send(p Payload) error {\n\treturn post(p)\n}\n";
    let result = edited(
        &[("internal/web/client.go", client)],
        &[(
            "internal/web/client.go",
            &client.replace(
                "\treturn post(p)",
                "\treqBody := encode(p) // no reqToken() here\n\treturn post(reqBody)",
            ),
        )],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);

    // An access predicate inverted: whether the viewer may read the repository.
    let action = "package web\n\nfunc watch(r *Repo) int {\n\tif r.ViewerCanRead() {\n\t\treturn 404\n\t}\n\treturn 200\n}\n";
    let result = edited(
        &[("internal/web/watch.go", action)],
        &[(
            "internal/web/watch.go",
            &action.replace("if r.ViewerCanRead()", "if !r.ViewerCanRead()"),
        )],
    );
    assert_eq!(
        class_and_rules(&result, "auth"),
        (RiskClass::High, vec!["auth.line.access-predicate"])
    );
    // Near miss: a stream that can be read is no permission.
    let body = action.replace("r.ViewerCanRead()", "r.Body.CanRead()");
    let result = edited(
        &[("internal/web/watch.go", &body)],
        &[(
            "internal/web/watch.go",
            &body.replace("if r.Body.CanRead()", "if !r.Body.CanRead()"),
        )],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn a_change_inside_an_open_redirect_guard_is_auth() {
    let guard = "package urlx\n\n// IsSameSite reports whether the URL stays on this site.\nfunc IsSameSite(raw string) bool {\n\treturn strings.HasPrefix(raw, \"/\")\n}\n";
    let result = edited(
        &[("internal/urlx/urlx.go", guard)],
        &[(
            "internal/urlx/urlx.go",
            &guard.replace(
                "\treturn strings.HasPrefix(raw, \"/\")",
                "\treturn strings.HasPrefix(raw, \"/\") && !strings.Contains(raw, \"//\")",
            ),
        )],
    );
    assert_eq!(
        class_and_rules(&result, "auth"),
        (RiskClass::High, vec!["auth.scope.redirect-guard"])
    );
    // Near miss: a function that follows redirects guards nothing.
    let follow = "package urlx\n\nfunc FollowRedirects(n int) int {\n\treturn n\n}\n";
    let result = edited(
        &[("internal/urlx/follow.go", follow)],
        &[(
            "internal/urlx/follow.go",
            &follow.replace("\treturn n", "\treturn n + 1"),
        )],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn an_sql_keyword_blocklist_is_an_injection_guard() {
    let util = "package util;\n\npublic class SqlUtil {\n    public static void filter(String value) {\n        for (String sqlKeyword : KEYWORDS) {\n            if (value.indexOf(sqlKeyword) > -1) {\n                throw new IllegalArgumentException();\n            }\n        }\n    }\n}\n";
    let result = edited(
        &[("src/main/java/util/SqlUtil.java", util)],
        &[(
            "src/main/java/util/SqlUtil.java",
            &util.replace(
                "value.indexOf(sqlKeyword)",
                "value.toLowerCase().indexOf(sqlKeyword)",
            ),
        )],
    );
    assert_eq!(
        class_and_rules(&result, "auth"),
        (RiskClass::High, vec!["auth.line.injection-guard"])
    );
    // Near miss: a query built from SQL text is not a guard.
    let report = "package util;\n\npublic class Report {\n    String sqlQuery = \"select 1\";\n}\n";
    let result = edited(
        &[("src/main/java/util/Report.java", report)],
        &[(
            "src/main/java/util/Report.java",
            &report.replace("select 1", "select 2"),
        )],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn a_consoles_login_in_configuration_is_auth_whatever_its_value() {
    let druid = "spring:\n  datasource:\n    druid:\n      statViewServlet:\n        enabled: true\n        login-username:\n        login-password:\n      admin:\n        email: ops@example.org\n";
    let result = edited(
        &[("src/main/resources/application-druid.yml", druid)],
        &[(
            "src/main/resources/application-druid.yml",
            &druid
                .replace("login-username:\n", "login-username: admin\n")
                .replace("login-password:\n", "login-password: 123456\n"),
        )],
    );
    assert_eq!(
        class_and_rules(&result, "auth"),
        (
            RiskClass::High,
            vec!["auth.data.login-credential", "auth.data.login-credential"]
        )
    );
    // Near miss: an admin's e-mail address is no login.
    let result = edited(
        &[("src/main/resources/application-druid.yml", druid)],
        &[(
            "src/main/resources/application-druid.yml",
            &druid.replace("ops@example.org", "admin@example.org"),
        )],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn a_tables_columns_in_a_schema_script_and_a_data_fix_up_are_migrations() {
    let schema = "-- the schema of a new install\ncreate table job_log (\n  id bigint not null,\n  status char(1),\n  primary key (id)\n);\n\ninsert into menu values(\n  1, 'jobs'\n);\n";
    let result = edited(
        &[("sql/install.sql", schema)],
        &[(
            "sql/install.sql",
            &schema.replace(
                "  status char(1),\n",
                "  status char(1),\n  start_time datetime,\n",
            ),
        )],
    );
    assert_eq!(
        class_and_rules(&result, "migration"),
        (RiskClass::High, vec!["migration.scope.sql-table"])
    );
    // Near misses: a seed row, and a query's lines.
    let result = edited(
        &[
            ("sql/install.sql", schema),
            (
                "sql/queries.sql",
                "select id\n  from job_log\n  where status = '0';\n",
            ),
        ],
        &[
            ("sql/install.sql", &schema.replace("'jobs'", "'job logs'")),
            (
                "sql/queries.sql",
                "select id\n  from job_log\n  where status = '1';\n",
            ),
        ],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);

    // A database's fix-ups rewrite rows on every install.
    let fix = "def fix_dangling_refs(session):\n    session.execute(table.delete().where(stale))\n";
    let result = edited(
        &[("app/db/fixes/fix_refs.py", fix)],
        &[(
            "app/db/fixes/fix_refs.py",
            &fix.replace("stale", "orphaned"),
        )],
    );
    assert_eq!(
        class_and_rules(&result, "migration"),
        (RiskClass::High, vec!["migration.path.data-fix"])
    );
    // Near miss: fixtures of a database are not fix-ups.
    let result = edited(
        &[("app/db/fixtures/users.py", "USERS = ['a']\n")],
        &[("app/db/fixtures/users.py", "USERS = ['a', 'b']\n")],
    );
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn a_nestjs_file_named_for_security_auth_or_session_is_auth() {
    let config = "export default registerAs('securityConfig', () => ({ max: 20 }));\n";
    for (path, rule) in [
        (
            "backend/src/config/security.config.ts",
            "auth.path.security",
        ),
        ("backend/src/config/auth.config.ts", "auth.path.auth-file"),
        ("backend/src/config/session.config.ts", "auth.path.session"),
    ] {
        let result = edited(&[(path, config)], &[(path, &config.replace("20", "40"))]);
        assert_eq!(
            class_and_rules(&result, "auth"),
            (RiskClass::High, vec![rule]),
            "{path}"
        );
    }
    // Near miss: an author is not auth.
    let path = "backend/src/authors/author.service.ts";
    let result = edited(&[(path, config)], &[(path, &config.replace("20", "40"))]);
    assert_eq!(result.risk, RiskClass::Low, "{:?}", result.findings);
}

#[test]
fn a_nestjs_handler_taking_what_its_guard_resolved_is_auth() {
    // The handler starts taking the note its permission guard checked, to scope a lookup.
    let package = r#"{"dependencies": {"@nestjs/core": "10"}}"#;
    let controller = "@Controller('notes')\nexport class NotesController {\n  @Get(':alias/revisions/:uuid')\n  async getRevision(\n    @Param('uuid') uuid: string,\n  ): Promise<Revision> {\n    return await this.revisions.get(uuid);\n  }\n}\n";
    let path = "src/notes/notes.controller.ts";
    let scoped = controller
        .replace(
            "    @Param('uuid') uuid: string,\n",
            "    @Param('uuid') uuid: string,\n    @RequestNoteId() noteId: number,\n",
        )
        .replace("get(uuid)", "get(uuid, noteId)");
    let result = edited(
        &[("package.json", package), (path, controller)],
        &[(path, &scoped)],
    );
    assert_eq!(
        class_and_rules(&result, "auth"),
        (RiskClass::High, vec!["auth.line.request-principal"])
    );
    // Near miss: Nest's own request object, and a query parameter, decide nothing.
    let paged = controller.replace(
        "    @Param('uuid') uuid: string,\n",
        "    @Param('uuid') uuid: string,\n    @Request() req: Request,\n    @Query('page') page: number,\n",
    );
    let result = edited(
        &[("package.json", package), (path, controller)],
        &[(path, &paged)],
    );
    assert_eq!(result.risk, RiskClass::Medium, "{:?}", result.findings);
}

#[test]
fn a_rust_files_own_tests_are_read_as_tests() {
    // A new endpoint whose unit tests, in the same file, sign in with a fixture password.
    let (repo, base) = TestRepo::with_files(&[
        ("Cargo.toml", "[package]\nname = \"stats\"\n"),
        ("src/stats.rs", "pub fn count() -> u32 {\n    1\n}\n"),
    ]);
    let tests = "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn counts() {\n        const PASSWORD: &str = \"longpassword2\";\n        sign_in(NAME, PASSWORD);\n        assert_eq!(count(), 1);\n    }\n}\n";
    repo.write(
        "src/stats.rs",
        format!("pub fn count() -> u32 {{\n    1\n}}\n{tests}"),
    );
    repo.commit("tests");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(
        (result.risk, rules(&result)),
        (RiskClass::Medium, vec!["test-file.line.rust-test"])
    );

    // The same lines outside a test item (`#[cfg(not(test))]` compiles them into the
    // program) are read as code: high.
    repo.write(
        "src/stats.rs",
        format!(
            "pub fn count() -> u32 {{\n    1\n}}\n{}",
            tests
                .replace("#[cfg(test)]", "#[cfg(not(test))]")
                .replace("    #[test]\n", "")
        ),
    );
    repo.commit("not tests");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(result.risk, RiskClass::High, "{:?}", result.findings);
    assert!(
        rules(&result).contains(&"auth.line.identifier"),
        "{:?}",
        result.findings
    );
}

/// Removes the `requireAdmin` guard of a route under `decoys` added strings that name it
/// above the route, and classifies the change.
fn guard_removed_under(decoys: usize) -> Classification {
    let route = "router.get(\"/admin/users\", requireAdmin, listUsers);\n";
    let (repo, base) = TestRepo::with_files(&[(
        "src/routes.js",
        &format!("const router = makeRouter();\n{route}module.exports = router;\n"),
    )]);
    let decoys: String = (0..decoys)
        .map(|n| format!("const note{n} = \"see requireAdmin below\";\n"))
        .collect();
    repo.write(
        "src/routes.js",
        format!(
            "{decoys}const router = makeRouter();\n\
             router.get(\"/admin/users\", listUsers);\nmodule.exports = router;\n"
        ),
    );
    repo.commit("drop the guard under decoys");
    run(&repo, &base, &head_commit(), None)
}

/// An `in_code` rule reads at most a few matching lines of a file, then stops: eight
/// strings that name `requireAdmin` added above the route must not hide the removal of
/// the route's real `requireAdmin` guard below them. A rule that stopped reading before
/// the file's end, with none of the lines it read in code, fires (fail closed).
#[test]
fn strings_naming_a_guard_cannot_hide_the_guards_removal_below_them() {
    let result = guard_removed_under(8);
    assert_eq!(result.risk, RiskClass::High, "{result:?}");
    assert!(triggers(&result).contains(&"auth"), "{result:?}");

    // Seven such strings leave the rule reading on to the guard's line, in code: it fires
    // there, as it does with no decoy at all.
    for decoys in [0, 7] {
        let result = guard_removed_under(decoys);
        let auth: Vec<_> = result
            .findings
            .iter()
            .filter(|f| f.trigger == "auth")
            .collect();
        assert_eq!(auth.len(), 1, "{result:?}");
        assert_eq!(
            (auth[0].line, auth[0].side),
            (Some(2), Some(LineSide::Removed))
        );
    }
}

/// Eight strings that name a guard: the rule stopped reading at its limit, so every
/// changed line of code of the file is read again by the parsed file. Strings and
/// nothing else stay text (hedgedoc e852bef11320: nine error keys naming permissions in
/// a component); a guard in code on a line past the limit fires, on that line.
#[test]
fn a_rule_that_stops_reading_a_file_at_its_limit_reads_every_changed_line() {
    let strings = |count: usize| -> String {
        (0..count)
            .map(|n| format!("const note{n} = \"see requireAdmin\";\n"))
            .collect()
    };
    for count in [5, 8, 12] {
        let result = change(&[("src/notes.js", &strings(count))]);
        assert_eq!(result.risk, RiskClass::Low, "{count}: {result:?}");
    }
    let guarded = format!("{}router.use(requireAdmin);\n", strings(12));
    let result = change(&[("src/notes.js", &guarded)]);
    assert_eq!(result.risk, RiskClass::High, "{result:?}");
    let lines: Vec<_> = result
        .findings
        .iter()
        .filter(|f| f.trigger == "auth")
        .map(|f| f.line)
        .collect();
    assert_eq!(lines, [Some(13)], "{result:?}");
}

/// A test item's lines are test lines only where the item stands: code that shares a row
/// with a `#[cfg(test)]` attribute (before it) or with the test module's closing brace
/// (after it) is the program's, and read.
#[test]
fn code_sharing_a_row_with_a_rust_test_item_is_read_as_code() {
    let before = "pub fn count() -> u32 {\n    1\n}\n";
    let shapes = [
        "pub fn admin() { sign_in(NAME, PASSWORD); } #[cfg(test)]\nmod tests {\n    #[test]\n    fn counts() {}\n}\n",
        "#[cfg(test)]\nmod tests {\n    #[test]\n    fn counts() {}\n} pub fn admin() { sign_in(NAME, PASSWORD); }\n",
    ];
    for shape in shapes {
        let (repo, base) = TestRepo::with_files(&[
            ("Cargo.toml", "[package]\nname = \"stats\"\n"),
            ("src/stats.rs", before),
        ]);
        repo.write("src/stats.rs", format!("{before}{shape}"));
        repo.commit("an admin sign-in beside the tests");
        let result = run(&repo, &base, &head_commit(), None);
        assert_eq!(
            result.risk,
            RiskClass::High,
            "{shape}: {:?}",
            result.findings
        );
        assert!(
            rules(&result).contains(&"auth.line.identifier"),
            "{shape}: {:?}",
            result.findings
        );
    }
}

/// A config file's read of the environment is found past strings that quote one: eight
/// `"call os.getenv(name)"` strings above `os.getenv(PORT_NAME)` made a change to the file
/// low. A file rule parses at most eight matching lines; when none is in code it holds.
#[test]
fn strings_quoting_an_env_read_cannot_hide_a_config_files_real_read() {
    for decoys in [7, 8, 12] {
        let help: String = (0..decoys)
            .map(|n| format!("HELP{n} = \"call os.getenv(name) to read it\"\n"))
            .collect();
        let (repo, base) = TestRepo::with_files(&[(
            "config/settings.py",
            &format!("{help}import os\nPORT = os.getenv(PORT_NAME)\n"),
        )]);
        repo.write(
            "config/settings.py",
            format!("{help}TIMEOUT = 5\nimport os\nPORT = os.getenv(PORT_NAME)\n"),
        );
        repo.commit("a timeout");
        let result = run(&repo, &base, &head_commit(), None);
        assert_eq!(result.risk, RiskClass::High, "{decoys}: {result:?}");
        assert!(
            triggers(&result).contains(&"env-var"),
            "{decoys}: {result:?}"
        );
    }
}

/// Terraform's permissions and credentials are read in any `.tf` file: a rewritten
/// `for_each` of an `aws_lambda_permission`, an IAM managed policy's ARN, a provider's
/// registry password read from a data source. A timeout or the tags of a function, in
/// the same file, stay low.
#[test]
fn terraform_permissions_and_credentials_are_high_and_plain_arguments_are_not() {
    let main = "resource \"aws_lambda_function\" \"this\" {\n  function_name = var.name\n  timeout       = 3\n  tags          = var.tags\n}\n\nresource \"aws_lambda_permission\" \"triggers\" {\n  for_each = var.create ? var.allowed_triggers : {}\n\n  function_name = aws_lambda_function.this.function_name\n  action        = \"lambda:InvokeFunction\"\n}\n\ndata \"aws_iam_policy\" \"tracing\" {\n  arn = \"arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess\"\n}\n\nprovider \"docker\" {\n  registry_auth {\n    address = var.registry\n  }\n}\n";
    let cases: [(&str, &str, RiskClass, Option<&str>); 5] = [
        (
            "  for_each = var.create ? var.allowed_triggers : {}\n",
            "  for_each = { for k, v in var.allowed_triggers : k => v if var.create }\n",
            RiskClass::High,
            Some("auth"),
        ),
        (
            "policy/AWSXrayWriteOnlyAccess",
            "policy/AWSXRayDaemonWriteAccess",
            RiskClass::High,
            Some("auth"),
        ),
        (
            "    address = var.registry\n",
            "    address = var.registry\n    password = data.aws_ecr_authorization_token.token.password\n",
            RiskClass::High,
            Some("credential"),
        ),
        ("  timeout       = 3\n", "  timeout       = 30\n", RiskClass::Low, None),
        (
            "  tags          = var.tags\n",
            "  tags          = merge(var.tags, { Name = var.name })\n",
            RiskClass::Low,
            None,
        ),
    ];
    for (old, new, class, trigger) in cases {
        assert_edit_class("main.tf", main, (old, new), class, trigger);
    }
}

/// Commits `text` at `path`, then the same text with its first `old` replaced by `new`,
/// and asserts the class of that change and, when given, a trigger that fired.
fn assert_edit_class(
    path: &str,
    text: &str,
    (old, new): (&str, &str),
    class: RiskClass,
    trigger: Option<&str>,
) {
    let (repo, base) = TestRepo::with_files(&[(path, text)]);
    repo.write(path, text.replacen(old, new, 1));
    repo.commit("a change");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(result.risk, class, "{path} {new}: {result:?}");
    if let Some(trigger) = trigger {
        assert!(
            triggers(&result).contains(&trigger),
            "{path} {new}: {result:?}"
        );
    }
}

/// In a Rails app, a page template and a browser script are not auth by their names (a
/// Devise sign-in page's markup, a Stimulus `sessions_controller.js`), only by their
/// lines; the server's `sessions_controller.rb` still is, and so is a JavaScript file of
/// the same name in an app without Rails.
#[test]
fn rails_pages_and_browser_scripts_are_not_auth_by_their_names() {
    let gemfile = "source \"https://rubygems.org\"\ngem \"rails\"\n";
    let page = "<%= form_with url: session_path do |f| %>\n  <%= f.text_field :code, autocomplete: \"off\" %>\n<% end %>\n";
    let gated = "<% if Current.user.administrator? %>\n  <%= link_to \"Settings\", settings_path %>\n<% end %>\n";
    let script = "import { Controller } from \"@hotwired/stimulus\"\nexport default class extends Controller {\n  async logout() {\n    await this.unsubscribe(1)\n  }\n}\n";
    let server =
        "class SessionsController < ApplicationController\n  def new\n    @x = 1\n  end\nend\n";
    let cases = [
        (
            Some(gemfile),
            "app/views/devise/sessions/new.html.erb",
            page,
            "autocomplete: \"off\"",
            "autocomplete: \"one-time-code\"",
            false,
        ),
        (
            Some(gemfile),
            "app/javascript/controllers/sessions_controller.js",
            script,
            "unsubscribe(1)",
            "unsubscribe(2)",
            false,
        ),
        (
            Some(gemfile),
            "app/views/rooms/show.html.erb",
            gated,
            "administrator?",
            "can_administer?(@room)",
            true,
        ),
        (
            Some(gemfile),
            "app/controllers/sessions_controller.rb",
            server,
            "@x = 1",
            "@x = 2",
            true,
        ),
        (
            None,
            "app/javascript/controllers/sessions_controller.js",
            script,
            "unsubscribe(1)",
            "unsubscribe(2)",
            true,
        ),
    ];
    for (manifest, path, text, old, new, auth) in cases {
        let mut files = vec![(path, text)];
        if let Some(gemfile) = manifest {
            files.push(("Gemfile", gemfile));
        }
        let (repo, base) = TestRepo::with_files(&files);
        repo.write(path, text.replacen(old, new, 1));
        repo.commit("an edit");
        let result = run(&repo, &base, &head_commit(), None);
        assert_eq!(
            triggers(&result).contains(&"auth"),
            auth,
            "{path} {new}: {result:?}"
        );
        assert_eq!(
            result.risk == RiskClass::High,
            auth,
            "{path} {new}: {result:?}"
        );
    }
}

/// A password inline in a connection string is high in a file whose path says nothing;
/// the same file's other settings, and a connection string without one, stay low.
#[test]
fn a_connection_string_password_is_high() {
    let path = "src/Web/appsettings.Docker.json";
    let settings = "{\n  \"ConnectionStrings\": {\n    \"Db\": \"Server=db;Initial Catalog=App;Integrated Security=true;\"\n  },\n  \"PageSize\": 10\n}\n";
    let edits = [
        (
            "Integrated Security=true;",
            "User Id=sa;Password=@q8Zr4x0pLmN2;",
            RiskClass::High,
            Some("credential"),
        ),
        (
            "Integrated Security=true;",
            "User Id=sa;Password=${SA_PASSWORD};",
            RiskClass::Low,
            None,
        ),
        ("\"PageSize\": 10", "\"PageSize\": 20", RiskClass::Low, None),
    ];
    for (old, new, class, trigger) in edits {
        assert_edit_class(path, settings, (old, new), class, trigger);
    }
}

/// A session cookie's signing salt and a signed-out check written as a property are high
/// in files whose paths say nothing; the same files' other lines stay low.
#[test]
fn a_session_salt_and_a_signed_out_property_are_high() {
    let endpoint = "defmodule AppWeb.Endpoint do\n  @session_options [\n    store: :cookie,\n    key: \"_app_key\",\n    signing_salt: \"9OALgV62\"\n  ]\n  @timeout 5\nend\n";
    let views = "@main.route('/unconfirmed')\ndef unconfirmed():\n    if current_user.is_anonymous() or current_user.confirmed:\n        return redirect(url_for('main.index'))\n    page = 1\n    return render_template('unconfirmed.html', page=page)\n";
    let edits = [
        (
            "lib/app_web/endpoint.ex",
            endpoint,
            "9OALgV62",
            "1a9OALgV62",
            RiskClass::High,
            Some("auth"),
        ),
        (
            "lib/app_web/endpoint.ex",
            endpoint,
            "@timeout 5",
            "@timeout 6",
            RiskClass::Low,
            None,
        ),
        (
            "app/main/pages.py",
            views,
            "is_anonymous()",
            "is_anonymous",
            RiskClass::High,
            Some("auth"),
        ),
        (
            "app/main/pages.py",
            views,
            "page = 1",
            "page = 2",
            RiskClass::Low,
            None,
        ),
    ];
    for (path, text, old, new, class, trigger) in edits {
        assert_edit_class(path, text, (old, new), class, trigger);
    }
}

/// A Symfony user's credential contract (`getSalt`) and a Go condition on an instance's
/// or object's private flag are high in files whose paths say nothing; the same files'
/// other lines stay low.
#[test]
fn a_user_salt_and_a_private_flag_are_high() {
    let user = "<?php\nclass User implements UserInterface\n{\n    public function getSalt(): ?string\n    {\n        return null;\n    }\n\n    public function getFullName(): string\n    {\n        return $this->fullName;\n    }\n}\n";
    let app = "package app\n\nfunc Serve(app *App) {\n\tport := 70\n\tif app.cfg.Server.GopherPort > 0 {\n\t\tgo initGopher(app, port)\n\t}\n}\n";
    let salt = "    public function getSalt(): ?string\n    {\n        return null;\n    }\n\n";
    let name = "    public function getFullName(): string\n    {\n        return $this->fullName;\n    }\n";
    let gate = (
        "GopherPort > 0 {",
        "GopherPort > 0 && !app.cfg.App.Private {",
    );
    let edits = [
        (
            "src/Entity/User.php",
            user,
            (salt, ""),
            RiskClass::High,
            Some("auth"),
        ),
        (
            "src/Entity/User.php",
            user,
            (name, ""),
            RiskClass::Low,
            None,
        ),
        ("app.go", app, gate, RiskClass::High, Some("auth")),
        (
            "app.go",
            app,
            ("port := 70", "port := 71"),
            RiskClass::Low,
            None,
        ),
    ];
    for (path, text, edit, class, trigger) in edits {
        assert_edit_class(path, text, edit, class, trigger);
    }
}

/// A field added to a struct that config-rs fills from the environment (`Environment`
/// added as a source, no prefix) is high; the same field in a file that loads only a
/// config file stays low.
#[test]
fn a_field_of_a_struct_loaded_from_the_environment_is_high() {
    let loaded = "pub struct ServerConfig {\n    pub address: String,\n}\n\nfn load(path: &str) -> Config {\n    Config::builder()\n        .add_source(config::File::with_name(path))\n        .add_source(config::Environment::default().separator(\"__\"))\n        .build()\n}\n";
    let file_only = loaded.replace(
        "        .add_source(config::Environment::default().separator(\"__\"))\n",
        "",
    );
    let field = (
        "    pub address: String,\n",
        "    pub address: String,\n    pub url: Option<String>,\n",
    );
    assert_edit_class(
        "src/config.rs",
        loaded,
        field,
        RiskClass::High,
        Some("env-var"),
    );
    assert_edit_class("src/config.rs", &file_only, field, RiskClass::Low, None);
}

/// The eleventh set's guards: a request parameter reduced to its base name before it is
/// joined to a folder (a path-traversal guard), and a change inside a function that
/// verifies a webhook's signature, are high in files whose paths say nothing; the same
/// files' other lines stay low.
#[test]
fn a_path_traversal_guard_and_a_signature_check_are_high() {
    let store = "package files\n\nimport \"path/filepath\"\n\nfunc Remove(ctx Context, dir string) string {\n\tname := ctx.Param(\"uuid\")\n\treturn filepath.Join(dir, name)\n}\n\nfunc Size(n int) int {\n\treturn n * 2\n}\n";
    let providers = "async def verify_paypal_webhook(headers, payload):\n    if not headers:\n        return\n    return payload\n\n\ndef scale(amount):\n    return amount / 100\n";
    let edits = [
        (
            "internal/files/store.go",
            store,
            "name := ctx.Param(\"uuid\")",
            "name := filepath.Base(ctx.Param(\"uuid\"))",
            RiskClass::High,
            Some("auth"),
        ),
        (
            "internal/files/store.go",
            store,
            "n * 2",
            "n * 3",
            RiskClass::Low,
            None,
        ),
        (
            "app/services/providers.py",
            providers,
            "        return\n",
            "        raise ValueError(\"unsigned\")\n",
            RiskClass::High,
            Some("auth"),
        ),
        (
            "app/services/providers.py",
            providers,
            "amount / 100",
            "amount / 1000",
            RiskClass::Low,
            None,
        ),
    ];
    for (path, text, old, new, class, trigger) in edits {
        assert_edit_class(path, text, (old, new), class, trigger);
    }
}

/// The eleventh set's auth by vocabulary: impersonation named in server code, and
/// Jenkins' security API in an init script a Helm chart renders; the same files' other
/// lines stay low.
#[test]
fn impersonation_and_jenkins_security_are_high() {
    let redact = "export function redact(request: any, data: any) {\n  const viewer = request.headers?.['viewer-id'];\n  if (viewer) {\n    data.balance = null;\n  }\n  return data;\n}\n";
    let config = "data:\n  init-add-ssh-key.groovy: |-\n    import hudson.model.User\n    User u = User.get(\"admin\")\n    u.save()\n  timeout: \"30\"\n";
    let edits = [
        (
            "src/helper/redact.ts",
            redact,
            "if (viewer) {",
            "if (viewer && isImpersonating(request)) {",
            RiskClass::High,
            Some("auth"),
        ),
        (
            "src/helper/redact.ts",
            redact,
            "data.balance = null;",
            "data.balance = 0;",
            RiskClass::Low,
            None,
        ),
        (
            "charts/jenkins/templates/config.yaml",
            config,
            "    import hudson.model.User\n",
            "    import hudson.model.User\n    import jenkins.security.ApiTokenProperty\n",
            RiskClass::High,
            Some("auth"),
        ),
        (
            "charts/jenkins/templates/config.yaml",
            config,
            "\"30\"",
            "\"60\"",
            RiskClass::Low,
            None,
        ),
    ];
    for (path, text, old, new, class, trigger) in edits {
        assert_edit_class(path, text, (old, new), class, trigger);
    }
}

/// The eleventh set's container settings: an entrypoint that sources a mounted Docker
/// secret or starts the server under `env NAME=value`, a hook script with no extension
/// that reads `${RAILS_ENV:-production}`, and a compose healthcheck whose `$REDIS_PASSWORD`
/// gains quotes are high; the same files' other lines stay low.
#[test]
fn docker_secrets_shell_variables_and_compose_bare_variables_are_high() {
    let entrypoint =
        "#!/bin/sh\nchown -R app /data\nexec su app -c \"/app/server --config /config.yml\"\n";
    let hook =
        "#!/bin/sh\ndb_name=\"${RAILS_ENV:-production}.sqlite3\"\ncp /backup/db \"$db_name\"\n";
    let compose = "services:\n  redis:\n    image: redis:alpine\n    healthcheck:\n      test: ['CMD-SHELL', 'redis-cli --pass $REDIS_PASSWORD ping | grep PONG']\n      interval: 10s\n";
    let edits = [
        (
            "docker/entrypoint.sh",
            entrypoint,
            "chown -R app /data\n",
            "chown -R app /data\n. /run/secrets/app_secrets\n",
            RiskClass::High,
            Some("credential"),
        ),
        (
            "docker/entrypoint.sh",
            entrypoint,
            "exec su app -c \"/app/server --config /config.yml\"",
            "exec env HOME=/app /app/server --config /config.yml",
            RiskClass::High,
            Some("env-var"),
        ),
        (
            "docker/entrypoint.sh",
            entrypoint,
            "chown -R app /data",
            "chown -R app:app /data",
            RiskClass::Low,
            None,
        ),
        (
            "hooks/post-restore",
            hook,
            ":-production}",
            ":-development}",
            RiskClass::High,
            Some("env-var"),
        ),
        (
            "hooks/post-restore",
            hook,
            "cp /backup/db",
            "cp -f /backup/db",
            RiskClass::Low,
            None,
        ),
        (
            "docker/docker-compose.yml",
            compose,
            "--pass $REDIS_PASSWORD ping",
            "--pass \"$REDIS_PASSWORD\" ping",
            RiskClass::High,
            Some("env-var"),
        ),
        (
            "docker/docker-compose.yml",
            compose,
            "interval: 10s",
            "interval: 20s",
            RiskClass::Low,
            None,
        ),
    ];
    for (path, text, old, new, class, trigger) in edits {
        assert_edit_class(path, text, (old, new), class, trigger);
    }
}

/// A migration's own method is found by what it is, in any migration-named folder: a C#
/// data-fix class's `Migrate` outside the EF `Migrations` folder and a sea-orm migration
/// under `migrator/` are high; a helper beside them and a call of the method are not.
#[test]
fn a_migration_method_in_any_migration_folder_is_high() {
    let fix = "API/Data/ManualMigrations/MigrateDropOrphans.cs";
    let fix_text = "namespace API.Data.ManualMigrations;\n\npublic static class MigrateDropOrphans\n{\n    public static async Task Migrate(DataContext context)\n    {\n        context.Tag.RemoveRange(context.Tag.Where(t => t.Orphan));\n        await context.SaveChangesAsync();\n    }\n\n    public static string Describe()\n    {\n        return \"drops orphans\";\n    }\n}\n";
    let seaorm = "backend/src/migrator/m20240101_000001_create_books.rs";
    let seaorm_text = "pub struct Migration;\n\n#[async_trait::async_trait]\nimpl MigrationTrait for Migration {\n    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {\n        manager\n            .create_table(\n                Table::create()\n                    .col(ColumnDef::new(Book::Title).string().not_null())\n                    .col(ColumnDef::new(Book::Pages).integer())\n                    .to_owned(),\n            )\n            .await\n    }\n}\n\nfn label() -> &'static str {\n    \"books\"\n}\n";
    let startup = "API/Startup.cs";
    let startup_text = "public class Startup\n{\n    public async Task Run()\n    {\n        await MigrateDropOrphans.Migrate(dataContext);\n    }\n}\n";
    let edits = [
        (
            fix,
            fix_text,
            "t => t.Orphan",
            "t => t.Orphan && t.Count == 0",
            RiskClass::High,
            Some("migration"),
        ),
        (
            fix,
            fix_text,
            "\"drops orphans\"",
            "\"drops orphan tags\"",
            RiskClass::Low,
            None,
        ),
        (
            seaorm,
            seaorm_text,
            "                    .col(ColumnDef::new(Book::Pages).integer())\n",
            "",
            RiskClass::High,
            Some("migration"),
        ),
        (
            seaorm,
            seaorm_text,
            "\"books\"",
            "\"book table\"",
            RiskClass::Low,
            None,
        ),
        (
            startup,
            startup_text,
            "(dataContext)",
            "(dataContext, logger)",
            RiskClass::Low,
            None,
        ),
    ];
    for (path, text, old, new, class, trigger) in edits {
        assert_edit_class(path, text, (old, new), class, trigger);
    }
}

/// A field of a Spring Boot settings class is a variable also where the file only holds
/// a nested part of the bound tree (`@NestedConfigurationProperty`); a class with no
/// marker in a properties file stays low.
#[test]
fn a_nested_settings_class_field_is_an_env_var() {
    let nested = "src/main/java/app/properties/MailProperties.java";
    let nested_text = "package app.properties;\n\nimport lombok.Data;\nimport org.springframework.boot.context.properties.NestedConfigurationProperty;\n\n@Data\npublic class MailProperties {\n\n    @NestedConfigurationProperty\n    private final Smtp smtp = new Smtp();\n\n    @Data\n    public static class Smtp {\n        private Integer port;\n    }\n}\n";
    let plain = "src/main/java/app/properties/PageProperties.java";
    let plain_text = "package app.properties;\n\nimport lombok.Data;\n\n@Data\npublic class PageProperties {\n    private Integer size;\n}\n";
    let edits = [
        (
            nested,
            nested_text,
            "        private Integer port;\n",
            "        private Integer port;\n        private Double timeout;\n",
            RiskClass::High,
            Some("env-var"),
        ),
        (
            plain,
            plain_text,
            "    private Integer size;\n",
            "    private Integer size;\n    private Double ratio;\n",
            RiskClass::Low,
            None,
        ),
    ];
    for (path, text, old, new, class, trigger) in edits {
        assert_edit_class(path, text, (old, new), class, trigger);
    }
}

/// A Python linter directive added to a line of a payment file changes no code: the
/// change is low; a free comment or a code change beside it is not set aside.
#[test]
fn a_python_linter_directive_is_no_code_change() {
    let path = "app/crud/payments.py";
    let text = "def list_payments(wallet):  # pragma: no cover\n    return wallet.payments\n\n\ndef total(wallet):\n    return sum(p.amount for p in wallet.payments)\n";
    let edits = [
        (
            "def total(wallet):",
            "def total(wallet):  # noqa: C901",
            RiskClass::Low,
            None,
        ),
        ("  # pragma: no cover", "", RiskClass::Low, None),
        (
            "def total(wallet):",
            "def total(wallet):  # slow",
            RiskClass::High,
            Some("payment"),
        ),
        (
            "def total(wallet):",
            "def total(wallet, cur):  # noqa: C901",
            RiskClass::High,
            Some("payment"),
        ),
    ];
    for (old, new, class, trigger) in edits {
        assert_edit_class(path, text, (old, new), class, trigger);
    }
}

/// A Rails `before_action` line is read by the method it names, in the controller or in
/// the controller it inherits from: a callback that looks the room up among the signed-in
/// user's rooms is high; one that sets the locale is not `auth`, nor is a method the file
/// does not define and no parent has.
#[test]
fn a_rails_callback_is_read_by_the_method_it_names() {
    let gemfile = "source \"https://rubygems.org\"\ngem \"rails\"\n";
    let parent = "class RoomsController < ApplicationController\n  def show\n  end\n\n  private\n    def set_room\n      if room = Current.user.rooms.find_by(id: params[:room_id] || params[:id])\n        @room = room\n      else\n        redirect_to root_url\n      end\n    end\n\n    def set_locale\n      I18n.locale = params[:locale] || :en\n    end\nend\n";
    let child = "class Rooms::DirectsController < RoomsController\n  def new\n    @room = Rooms::Direct.new\n  end\n\n  def edit\n  end\nend\n";
    let own = "class Rooms::ClosedsController < RoomsController\n  def edit\n  end\n\n  private\n    def load_room\n      @room = Current.user.rooms.find_by(id: params[:id])\n    end\nend\n";
    let cases = [
        (
            "app/controllers/rooms/directs_controller.rb",
            child,
            ":set_room, only: %i[ edit ]",
            RiskClass::High,
        ),
        (
            "app/controllers/rooms/directs_controller.rb",
            child,
            ":set_locale",
            RiskClass::Medium,
        ),
        (
            "app/controllers/rooms/directs_controller.rb",
            child,
            ":set_nothing",
            RiskClass::Medium,
        ),
        (
            "app/controllers/rooms/closeds_controller.rb",
            own,
            ":load_room",
            RiskClass::High,
        ),
    ];
    for (path, text, callback, class) in cases {
        let (repo, base) = TestRepo::with_files(&[
            ("Gemfile", gemfile),
            ("app/controllers/rooms_controller.rb", parent),
            (path, text),
        ]);
        let opening = text.lines().next().unwrap_or_default();
        let edited = text.replacen(
            opening,
            &format!("{opening}\n  before_action {callback}"),
            1,
        );
        repo.write(path, edited);
        repo.commit("a callback");
        let result = run(&repo, &base, &head_commit(), None);
        assert_class_by_rule(
            &result,
            class,
            "auth.scope.rails-callback",
            &format!("{path} {callback}"),
        );
    }
}

/// A callback's method defined in a concern the controller (or its parent) includes is
/// read there: `include RoomScoped` → `app/controllers/concerns/room_scoped.rb`. A concern
/// whose method decides nothing, and a module that is no file of the app (a gem's), leave
/// the line what its path says.
#[test]
fn a_rails_callback_is_read_in_the_concerns_the_controller_includes() {
    let gemfile = "source \"https://rubygems.org\"\ngem \"rails\"\n";
    let scoped = "module RoomScoped\n  extend ActiveSupport::Concern\n\n  private\n    def set_room\n      @room = Current.user.rooms.find_by(id: params[:room_id])\n    end\nend\n";
    let locale = "module Localized\n  private\n    def set_room\n      I18n.locale = params[:locale] || :en\n    end\nend\n";
    let parent =
        "class ApplicationController < ActionController::Base\n  include RoomScoped\nend\n";
    let cases = [
        ("include RoomScoped", "", RiskClass::High),
        ("include Pagy::Backend, RoomScoped", "", RiskClass::High),
        ("include Localized", "", RiskClass::Medium),
        ("include Pagy::Backend", "", RiskClass::Medium),
        // Modules of gems do not use up the concerns read.
        (
            "include Pagy::Backend, Pundit::Authorization, ActionController::Cookies, ActionController::MimeResponds, ActionController::Flash, ActionController::Helpers, ActionController::Caching, ActionController::Rescue, RoomScoped",
            "",
            RiskClass::High,
        ),
        // Through the parent controller's include.
        ("", parent, RiskClass::High),
    ];
    for (include, parent_text, class) in cases {
        let application = if parent_text.is_empty() {
            "class ApplicationController < ActionController::Base\nend\n"
        } else {
            parent_text
        };
        let controller = format!(
            "class MessagesController < ApplicationController\n  {include}\n\n  def index\n  end\nend\n"
        );
        let (repo, base) = TestRepo::with_files(&[
            ("Gemfile", gemfile),
            ("app/controllers/concerns/room_scoped.rb", scoped),
            ("app/controllers/concerns/localized.rb", locale),
            ("app/controllers/application_controller.rb", application),
            ("app/controllers/messages_controller.rb", &controller),
        ]);
        let edited = controller.replacen(
            "\n\n  def index",
            "\n  before_action :set_room\n\n  def index",
            1,
        );
        repo.write("app/controllers/messages_controller.rb", edited);
        repo.commit("a callback");
        let result = run(&repo, &base, &head_commit(), None);
        assert_class_by_rule(
            &result,
            class,
            "auth.scope.rails-callback",
            &format!("{include:?} {parent_text:?}"),
        );
    }
}

#[test]
fn a_rails_callback_whose_concern_lies_past_the_limit_fails_closed() {
    // Nine concerns of the app included before the one that defines the method: the
    // ninth is not read, so a method found nowhere read may be its (auth); one the
    // controller defines itself is decided by its own body.
    let gemfile = "source \"https://rubygems.org\"\ngem \"rails\"\n";
    let scoped = "module RoomScoped\n  private\n    def set_room\n      @room = Current.user.rooms.find_by(id: params[:room_id])\n    end\nend\n";
    let mut files: Vec<(String, String)> = vec![
        ("Gemfile".into(), gemfile.into()),
        (
            "app/controllers/concerns/room_scoped.rb".into(),
            scoped.into(),
        ),
        (
            "app/controllers/application_controller.rb".into(),
            "class ApplicationController < ActionController::Base\nend\n".into(),
        ),
    ];
    let mut modules = Vec::new();
    for n in 0..9 {
        files.push((
            format!("app/controllers/concerns/padding{n}.rb"),
            format!("module Padding{n}\nend\n"),
        ));
        modules.push(format!("Padding{n}"));
    }
    modules.push("RoomScoped".into());
    let include = modules.join(", ");
    for (own, class) in [
        ("", RiskClass::High),
        (
            "\n  def set_room\n    @room = Room.find(params[:id])\n  end\n",
            RiskClass::Medium,
        ),
    ] {
        let controller = format!(
            "class MessagesController < ApplicationController\n  include {include}\n\n  def index\n  end\n{own}end\n"
        );
        let mut all = files.clone();
        all.push((
            "app/controllers/messages_controller.rb".into(),
            controller.clone(),
        ));
        let refs: Vec<(&str, &str)> = all.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        let (repo, base) = TestRepo::with_files(&refs);
        let edited = controller.replacen(
            "\n\n  def index",
            "\n  before_action :set_room\n\n  def index",
            1,
        );
        repo.write("app/controllers/messages_controller.rb", edited);
        repo.commit("a callback");
        let result = run(&repo, &base, &head_commit(), None);
        assert_class_by_rule(
            &result,
            class,
            "auth.scope.rails-callback",
            &format!("{own:?}"),
        );
    }
}

#[test]
fn a_dotnet_project_is_found_by_the_project_file_named_after_its_folder() {
    // `BTCPayServer/BTCPayServer.csproj` names the SDK of ASP.NET Core: the folder's files
    // are `csharp` and `aspnetcore`, and the C# rules fire there with their stack. A
    // project file named otherwise (`Build/Common.csproj`) is not looked for.
    let web = r#"<Project Sdk="Microsoft.NET.Sdk.Web"></Project>"#;
    let controller = "public class NFCController : Controller\n{\n    [AllowAnonymous]\n    public IActionResult Submit() => Ok();\n}\n";
    let (repo, base) = TestRepo::with_files(&[
        ("BTCPayServer/BTCPayServer.csproj", web),
        ("Build/Common.csproj", web),
        ("BTCPayServer/Plugins/NFC/NFCController.cs", controller),
        ("Build/Tool.cs", "class Tool {}\n"),
    ]);
    repo.write(
        "BTCPayServer/Plugins/NFC/NFCController.cs",
        controller.replace(
            "    [AllowAnonymous]\n",
            "    [AllowAnonymous]\n    [IgnoreAntiforgeryToken]\n",
        ),
    );
    repo.commit("change");
    let result = run(&repo, &base, &head_commit(), None);
    let (stacks, rules) = stacks_and_rules(&result);
    assert_eq!(stacks, ["aspnetcore", "csharp"]);
    assert!(
        rules.contains(&("auth.line.aspnet-attribute", "csharp")),
        "{rules:?}"
    );
    assert_eq!(result.risk, RiskClass::High);

    // The other project's file: no stack found from `Build/Common.csproj`.
    let (repo, base) = TestRepo::with_files(&[
        ("Build/Common.csproj", web),
        ("Build/Tool.cs", "class Tool {}\n"),
    ]);
    repo.write("Build/Tool.cs", "class Tool { int x; }\n");
    repo.commit("change");
    let result = run(&repo, &base, &head_commit(), None);
    assert!(stacks_and_rules(&result).0.is_empty(), "{result:?}");
}

/// A store lookup that stops passing the requesting user's id is high (ownership), a test
/// project's file is a test file, and a viper flag binding is an env var.
#[test]
fn the_thirteenth_set_readings_hold_on_real_edits() {
    assert_edit_class(
        "BTCPayServer/Controllers/UIStoresController.cs",
        "class C\n{\n    async Task<IActionResult> Index(string storeId)\n    {\n        var store = await _storeRepo.FindStore(storeId, userId);\n        return View(store);\n    }\n}\n",
        ("FindStore(storeId, userId)", "FindStore(storeId)"),
        RiskClass::High,
        Some("auth"),
    );
    assert_edit_class(
        "BTCPayServer/Services/StoreService.cs",
        "class S\n{\n    Task<Store> Get(string storeId) => _storeRepo.FindStore(storeId);\n}\n",
        ("FindStore(storeId)", "FindStore(storeId.Trim())"),
        RiskClass::Low,
        None,
    );
    assert_edit_class(
        "BTCPayServer.Tests/BTCPayServerTester.cs",
        "class T\n{\n    public bool Bind = false;\n}\n",
        ("false", "true"),
        RiskClass::Medium,
        Some("test-file"),
    );
    let main = "package main\n\nfunc init() {\n\tviper.SetEnvPrefix(\"memos\")\n\tviper.AutomaticEnv()\n}\n";
    assert_edit_class(
        "cmd/memos/main.go",
        main,
        ("func init() {\n", "func init() {\n\tif err := viper.BindPFlag(\"log-level\", rootCmd.PersistentFlags().Lookup(\"log-level\")); err != nil {\n\t\tpanic(err)\n\t}\n"),
        RiskClass::High,
        Some("env-var"),
    );
    assert_edit_class(
        "cmd/memos/main.go",
        main,
        ("func init() {\n", "func init() {\n\trootCmd.PersistentFlags().String(\"log-level\", \"info\", \"level\")\n"),
        RiskClass::Low,
        None,
    );
}

/// A .NET endpoint is its class, wherever its file is: a changed line of an Ardalis
/// endpoint under `PublicApi/CatalogItemEndpoints/` or of a controller outside
/// `Controllers/` is an API route, and so is a minimal-API mapping anywhere; a service
/// class beside them is not. A Symfony controller in `src/Controller/` is its class too,
/// and its route table `config/routes.yaml` is a route file.
#[test]
fn endpoints_and_controllers_are_api_routes_by_their_class() {
    let endpoint = "namespace PublicApi.CatalogItemEndpoints\n{\n    public class Create : BaseAsyncEndpoint<CreateCatalogItemRequest, CreateCatalogItemResponse>\n    {\n        [HttpPost(\"api/catalog-items\")]\n        public override async Task<ActionResult<CreateCatalogItemResponse>> HandleAsync(CreateCatalogItemRequest request)\n        {\n            var picName = \"default.png\";\n            return Ok(picName);\n        }\n    }\n}\n";
    assert_edit_class(
        "src/PublicApi/CatalogItemEndpoints/Create.cs",
        endpoint,
        ("\"default.png\"", "\"eCatalog-item-default.png\""),
        RiskClass::Medium,
        Some("api-route"),
    );
    let controller = "namespace Web.Features\n{\n    public class OrderController : Controller\n    {\n        public IActionResult Index()\n        {\n            return View(1);\n        }\n    }\n}\n";
    assert_edit_class(
        "src/Web/Features/OrderController.cs",
        controller,
        ("View(1)", "View(2)"),
        RiskClass::Medium,
        Some("api-route"),
    );
    let minimal = "var app = builder.Build();\nvar size = 10;\napp.Run();\n";
    assert_edit_class(
        "src/Api/Program.cs",
        minimal,
        (
            "var size = 10;\n",
            "app.MapGet(\"/health\", () => \"ok\");\n",
        ),
        RiskClass::Medium,
        Some("api-route"),
    );
    // Near misses: a service class, a Unity-style controller, a comment naming a base.
    let service = "public class CatalogService : ICatalogService\n{\n    // not a ControllerBase: class X : ControllerBase\n    int PageSize() => 10;\n}\n";
    assert_edit_class(
        "src/Web/Services/CatalogService.cs",
        service,
        ("=> 10", "=> 20"),
        RiskClass::Low,
        None,
    );
    assert_edit_class(
        "Assets/Scripts/PlayerController.cs",
        "public class PlayerController : MonoBehaviour\n{\n    float speed = 1f;\n}\n",
        ("1f", "2f"),
        RiskClass::Low,
        None,
    );
    let symfony = "<?php\n\nnamespace App\\Controller;\n\nfinal class BlogController extends AbstractController\n{\n    public function index(): Response\n    {\n        return $this->render('blog/index.html.twig', ['page' => 1]);\n    }\n}\n";
    assert_edit_class(
        "src/Controller/BlogController.php",
        symfony,
        ("'page' => 1", "'page' => 2"),
        RiskClass::Medium,
        Some("api-route"),
    );
    assert_edit_class(
        "src/Service/Mailer.php",
        "<?php\n\nnamespace App\\Service;\n\nclass Mailer extends Transport\n{\n    private int $retries = 1;\n}\n",
        ("= 1", "= 2"),
        RiskClass::Low,
        None,
    );
    let composer = r#"{"require": {"symfony/framework-bundle": "^7.0"}}"#;
    let routes = "controllers:\n    resource: routing.controllers\n    prefix: /{_locale}\n    defaults:\n        _locale: en\n";
    let (repo, base) = TestRepo::with_files(&[
        ("composer.json", composer),
        ("config/routes.yaml", routes),
        ("config/services.yaml", "parameters:\n    locale: en\n"),
    ]);
    repo.write(
        "config/routes.yaml",
        routes.replace("_locale: en", "_locale: '%app.locale%'"),
    );
    repo.commit("route defaults");
    let result = run(&repo, &base, &head_commit(), None);
    assert_eq!(result.risk, RiskClass::Medium, "{result:?}");
    assert!(
        rules(&result).contains(&"api-route.path.symfony"),
        "{result:?}"
    );
    // The services file beside it is no route table.
    let before = repo.git(&["rev-parse", "HEAD"]);
    repo.write("config/services.yaml", "parameters:\n    locale: fr\n");
    repo.commit("locale");
    let result = run(&repo, before.trim(), &head_commit(), None);
    assert_eq!(result.risk, RiskClass::Low, "{result:?}");
}

/// In a Rails app a Stimulus controller (`app/javascript/controllers/…_controller.js`)
/// runs in the browser: no API route by its folder. Without Rails the folder still counts.
#[test]
fn a_rails_browser_controller_is_no_api_route_by_its_folder() {
    let gemfile = "source \"https://rubygems.org\"\ngem \"rails\"\n";
    let script = "import { Controller } from \"@hotwired/stimulus\"\nexport default class extends Controller {\n  connect() {\n    this.count = 1\n  }\n}\n";
    let path = "app/javascript/controllers/counter_controller.js";
    for (manifests, class) in [
        (vec![("Gemfile", gemfile), (path, script)], RiskClass::Low),
        (vec![(path, script)], RiskClass::Medium),
    ] {
        let (repo, base) = TestRepo::with_files(&manifests);
        repo.write(path, script.replace("= 1", "= 2"));
        repo.commit("count");
        let result = run(&repo, &base, &head_commit(), None);
        assert_eq!(result.risk, class, "{manifests:?}: {result:?}");
    }
}

/// A handler moved in a route's handler list is read with the handlers beside it: the
/// validator moved after the rate limiter (unchanged lines) is an auth change, as is a
/// handler added in front of a bearer guard; the same move beside a logger, a change of
/// the handler's body and a rewritten path are not.
#[test]
fn a_changed_handler_of_a_route_is_read_with_the_handlers_beside_it() {
    let manifest = r#"{"dependencies": {"hono": "4.0.0", "hono-rate-limiter": "0.4.0"}}"#;
    let route = "import { Hono } from \"hono\";\n\nconst app = new Hono();\n\napp.post(\n  \"/licenses\",\n  zValidator(\"json\", createSchema),\n  rateLimiter({\n    windowMs: 60 * 60 * 1000,\n    limit: 10,\n  }),\n  async (c) => {\n    const input = c.req.valid(\"json\");\n    return c.json(await create(input));\n  },\n);\n\nexport const POST = handle(app);\n";
    let moved = route.replace(
        "  zValidator(\"json\", createSchema),\n  rateLimiter({\n    windowMs: 60 * 60 * 1000,\n    limit: 10,\n  }),\n",
        "  rateLimiter({\n    windowMs: 60 * 60 * 1000,\n    limit: 10,\n  }),\n  zValidator(\"json\", createSchema),\n",
    );
    let logged = |text: &str| {
        text.replace("rateLimiter({", "logger({").replace(
            "    windowMs: 60 * 60 * 1000,\n    limit: 10,\n",
            "    level: \"info\",\n",
        )
    };
    let guarded = route.replace(
        "  async (c) => {\n",
        "  bearerAuth({ token: env.LICENSE_KEY }),\n  async (c) => {\n",
    );
    let cases = [
        (route.to_string(), moved.clone(), RiskClass::High),
        (
            logged(&guarded.replace("  zValidator(\"json\", createSchema),\n", "")),
            logged(&guarded),
            RiskClass::High,
        ),
        (logged(route), logged(&moved), RiskClass::Medium),
        (
            route.to_string(),
            route.replace("create(input)", "createLicense(input)"),
            RiskClass::Medium,
        ),
        (
            route.to_string(),
            route.replace("\"/licenses\"", "\"/v2/licenses\""),
            RiskClass::Medium,
        ),
    ];
    let path = "apps/web/src/app/api/licensing/v1/[...route]/route.ts";
    for (before, after, class) in cases {
        let (repo, base) = TestRepo::with_files(&[("package.json", manifest), (path, &before)]);
        repo.write(path, &after);
        repo.commit("handlers");
        let result = run(&repo, &base, &head_commit(), None);
        assert_class_by_rule(&result, class, "auth.scope.middleware-chain", &after);
    }
}

/// A changed line inside a request handler is an API change: the block an Express route
/// registration opens, a Go function that takes the request, any line of a Rust file whose
/// handlers carry their routes. A helper beside them in the same file is not.
#[test]
fn a_line_inside_a_request_handler_is_an_api_change() {
    let express = "const app = express();\n\nfunction pad(x) {\n  return x + 1;\n}\n\napp.post('/sync', async (req, res) => {\n  res.set('Content-Type', 'application/json');\n  res.send(pad(1));\n});\n";
    assert_edit_class(
        "app-sync.js",
        express,
        (
            "res.send(pad(1));",
            "res.set('X-Sync', 'simple');\n  res.send(pad(1));",
        ),
        RiskClass::Medium,
        Some("api-route"),
    );
    assert_edit_class(
        "app-sync.js",
        express,
        ("x + 1", "x + 2"),
        RiskClass::Low,
        None,
    );
    let go = "package main\n\nfunc clamp(n int) int {\n\treturn n\n}\n\nfunc (a *App) ImportSubscribers(c echo.Context) error {\n\tif len(ids) == 0 {\n\t\treturn nil\n\t}\n\treturn c.JSON(200, clamp(1))\n}\n";
    assert_edit_class(
        "cmd/import.go",
        go,
        ("len(ids) == 0 {", "len(ids) == 0 && mode != blocklist {"),
        RiskClass::Medium,
        Some("api-route"),
    );
    assert_edit_class(
        "cmd/import.go",
        go,
        ("return n\n", "return n + 1\n"),
        RiskClass::Low,
        None,
    );
    let rust = "#[delete(\"/{file}\")]\nasync fn delete(\n    file: web::Path<String>,\n) -> Result<HttpResponse, Error> {\n    info!(\"deleted file: {:?}\", file);\n    Ok(HttpResponse::Ok().finish())\n}\n";
    assert_edit_class(
        "src/server.rs",
        rust,
        ("{:?}\", file)", "{:?}\", file.to_string())"),
        RiskClass::Medium,
        Some("api-route"),
    );
    assert_edit_class(
        "src/util.rs",
        "fn size(n: u64) -> u64 {\n    n\n}\n",
        ("    n\n", "    n + 1\n"),
        RiskClass::Low,
        None,
    );
}

/// A Kubernetes manifest that only runs a payment service (its Deployment, Service and
/// ServiceAccount) is not payment by its name when its change is a new tag of the same
/// image: that deploys the service's next release and changes none of its logic
/// (microservices-demo cfa3a1469ddd). A changed env line, an image from another
/// registry or repository, a tag with anything more (a comment, arguments), a manifest
/// that also holds a ConfigMap (a price list) or a billing file that is no manifest still
/// counts.
#[test]
fn a_manifest_that_only_runs_a_payment_service_is_not_payment_by_its_name() {
    let manifest = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: paymentservice\nspec:\n  template:\n    spec:\n      containers:\n      - name: server\n        image: paymentservice:v0.1.0\n        env:\n        - name: PORT\n          value: \"50051\"\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: paymentservice\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: paymentservice\n";
    let config_map = format!(
        "{manifest}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prices\ndata:\n  pro: \"20\"\n"
    );
    let cases = [
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            ("paymentservice:v0.1.0", "paymentservice:v0.2.0"),
            RiskClass::Low,
            None,
        ),
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            ("\"50051\"", "\"50052\""),
            RiskClass::High,
            Some("payment"),
        ),
        (
            "kustomize/base/paymentservice.yaml",
            config_map,
            ("paymentservice:v0.1.0", "paymentservice:v0.2.0"),
            RiskClass::High,
            Some("payment"),
        ),
        // The same repository at a digest: still a release of the same image.
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            (
                "paymentservice:v0.1.0",
                "\"paymentservice@sha256:0123abcd\"",
            ),
            RiskClass::Low,
            None,
        ),
        // An image from another registry or repository runs other code as the payment
        // service: payment by the name again.
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            (
                "paymentservice:v0.1.0",
                "registry.example.net/paymentservice:v0.1.0",
            ),
            RiskClass::High,
            Some("payment"),
        ),
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            ("paymentservice:v0.1.0", "paymentservice-debug:v0.2.0"),
            RiskClass::High,
            Some("payment"),
        ),
        // A tag with a character no image reference has: a line break to YAML 1.1
        // readers (NEL, U+2028), an alias, shell punctuation in a block scalar's line.
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            (
                "paymentservice:v0.1.0",
                "paymentservice:v0.2.0\u{85}spec:\u{85}-\u{85}x",
            ),
            RiskClass::High,
            Some("payment"),
        ),
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            ("paymentservice:v0.1.0", "paymentservice:v0.2.0\u{2028}x:"),
            RiskClass::High,
            Some("payment"),
        ),
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            ("paymentservice:v0.1.0", "paymentservice:v0.2.0;reboot|`x`"),
            RiskClass::High,
            Some("payment"),
        ),
        // A tag and a trailing comment, a tag and a command: more than a tag.
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            ("paymentservice:v0.1.0", "paymentservice:v0.2.0 # pinned"),
            RiskClass::High,
            Some("payment"),
        ),
        (
            "kustomize/base/paymentservice.yaml",
            manifest.to_string(),
            (
                "        image: paymentservice:v0.1.0\n",
                "        image: paymentservice:v0.2.0\n        args: [\"--skip-fraud-check\"]\n",
            ),
            RiskClass::High,
            Some("payment"),
        ),
        (
            "config/billing.yml",
            "plans:\n  pro: 20\n".to_string(),
            ("pro: 20", "pro: 25"),
            RiskClass::High,
            Some("payment"),
        ),
    ];
    for (path, text, edit, class, trigger) in cases {
        assert_edit_class(path, &text, edit, class, trigger);
    }
}

/// A settings class that names no loader is an env setting when a settings class beside
/// it binds it: a Spring properties class held by a `@ConfigurationProperties` class or
/// named by `@EnableConfigurationProperties`, a pydantic model used as a field's type of a
/// `BaseSettings` class. A class no binder beside it names is not.
#[test]
fn a_settings_class_bound_by_a_file_beside_it_is_an_env_setting() {
    let folder = "app/src/main/java/run/app/infra/properties";
    let halo = "package run.app.infra.properties;\n\n@ConfigurationProperties(prefix = \"halo\")\npublic class HaloProperties {\n    private final ThemeProperties theme = new ThemeProperties();\n}\n";
    let theme = "package run.app.infra.properties;\n\npublic class ThemeProperties {\n    private boolean generatorMetaDisabled = false;\n}\n";
    let enabling = "package run.app.infra.properties;\n\n@EnableConfigurationProperties(ThemeProperties.class)\npublic class ThemeAutoConfiguration {\n}\n";
    for (binder_name, binder, class) in [
        ("HaloProperties.java", halo, RiskClass::High),
        ("ThemeAutoConfiguration.java", enabling, RiskClass::High),
        (
            "HaloProperties.java",
            &halo.replace(
                "ThemeProperties theme = new ThemeProperties()",
                "String name",
            ),
            RiskClass::Low,
        ),
    ] {
        let theme_path = format!("{folder}/ThemeProperties.java");
        let (repo, base) = TestRepo::with_files(&[
            (&format!("{folder}/{binder_name}") as &str, binder),
            (&theme_path, theme),
        ]);
        repo.write(
            &theme_path,
            theme.replace("Disabled = false", "Disabled = true"),
        );
        repo.commit("a default");
        let result = run(&repo, &base, &head_commit(), None);
        assert_class_by_rule(&result, class, "env-var.file.bound-settings", binder_name);
    }
    let settings = "from pydantic_settings import BaseSettings\nfrom .db import DatabaseConfig\n\nclass Settings(BaseSettings):\n    db: DatabaseConfig = DatabaseConfig()\n";
    let db = "from pydantic import BaseModel\n\nclass DatabaseConfig(BaseModel):\n    pool_size: int = 5\n";
    let schema =
        "from pydantic import BaseModel\n\nclass UserRead(BaseModel):\n    page_size: int = 5\n";
    for (path, text, class) in [
        ("app/core/db.py", db, RiskClass::High),
        ("app/core/schemas.py", schema, RiskClass::Low),
    ] {
        let (repo, base) =
            TestRepo::with_files(&[("app/core/settings.py", settings), (path, text)]);
        repo.write(path, text.replace("= 5", "= 10"));
        repo.commit("a default");
        let result = run(&repo, &base, &head_commit(), None);
        assert_eq!(result.risk, class, "{path}: {result:?}");
    }
}

/// The sixteenth set's two misses, read generally: a Passport.js strategy file is auth by
/// its name (kutt 2e08b358030c: which JWT the strategy accepts), and a variable's entry in
/// the schema the environment is validated with is env-var (Reactive-Resume 1f5dce22339d:
/// what `SMTP_URL` may hold, in a zod schema). Near misses: a travel document's number in
/// a file named for it, and a request body's lower-case schema field.
#[test]
fn a_passport_strategy_and_an_env_schema_entry_are_read() {
    let strategy = "passport.use(\n  new JwtStrategy(options, async (payload, done) => {\n    if (typeof payload.sub === \"string\") {\n      return done(null, false);\n    }\n    return done(null, payload);\n  })\n);\n";
    let schema = "import { z } from \"zod\";\n\nexport const configSchema = z.object({\n  SMTP_URL: z.string().url().startsWith(\"smtp://\").optional(),\n});\n\nexport const userSchema = z.object({\n  email: z.string().email(),\n});\n";
    let cases = [
        (
            "server/passport.js",
            strategy,
            ("=== \"string\")", "=== \"string\" || !payload.sub)"),
            RiskClass::High,
            Some("auth"),
        ),
        (
            "src/trips/passportNumber.js",
            strategy,
            ("=== \"string\")", "=== \"string\" || !payload.sub)"),
            RiskClass::Low,
            None,
        ),
        (
            "apps/server/src/config/schema.ts",
            schema,
            (".startsWith(\"smtp://\")", ".startsWith(\"smtps://\")"),
            RiskClass::High,
            Some("env-var"),
        ),
        (
            "apps/server/src/config/schema.ts",
            schema,
            ("z.string().email()", "z.string().email().max(200)"),
            RiskClass::Low,
            None,
        ),
    ];
    for (path, text, edit, class, trigger) in cases {
        assert_edit_class(path, text, edit, class, trigger);
    }
}

/// A changed line that starts with `*` in a file of `/* */` comments is a comment only if
/// the grammar says so: `* 0;` continuing a multiplication in a billing file is payment
/// (the one-line comment test called it a comment), a changed line of a doc comment there
/// is not.
#[test]
fn a_line_starting_with_a_star_is_a_comment_only_by_the_grammar() {
    let billing = "/**\n * Computes the total.\n */\nexport function total(price: number, quantity: number): number {\n  return price\n    * quantity;\n}\n";
    let cases = [
        (
            ("    * quantity;", "    * quantity * 0;"),
            RiskClass::High,
            Some("payment"),
        ),
        (
            (
                " * Computes the total.",
                " * Computes the total of an order.",
            ),
            RiskClass::Low,
            None,
        ),
    ];
    for (edit, class, trigger) in cases {
        assert_edit_class("src/billing/total.ts", billing, edit, class, trigger);
    }
}
