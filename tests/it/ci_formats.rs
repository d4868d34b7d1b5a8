//! The CI formats on the real binary: `--format sarif` (validated against the official
//! SARIF 2.1.0 JSON Schema, `tests/fixtures/sarif/`) and `--format github` (workflow
//! commands within GitHub's per-step limits), for every command that reports findings.

use crate::common::{handoff_in, stdout_of, TestRepo};
use serde_json::Value;
use std::path::Path;

const RECORDS: &str = "## Task Assignment\n\n| Field | Value |\n|---|---|\n\
| Task ID | ENG-42 |\n| Assigned to | docs-writer |\n| Expected file scope | [docs/] |\n\
| Risk Class | low |\n\n## Interaction Record\n\n| Field | Value |\n|---|---|\n\
| Task ID | ENG-42 |\n| Type | review |\n| From | docs-writer |\n| To | orchestrator |\n\n\
### Context\n\nFixed the typo.\n\n### Evidence Bundle\n\n\
- **Files changed**: `docs/guide.md`, `src/auth/login.py`\n\
- **Description**: Fix the typo in the guide and in the login greeting.\n";

/// A change that touches a file outside the declared scope, in an auth path.
fn rejected_change() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("docs/guide.md", "# Guide\n\nHelo.\n");
    repo.write("src/auth/login.py", "def greet():\n    return 'Helo'\n");
    repo.commit("base");
    repo.branch("fix");
    repo.write(".handoff/eng-42.md", RECORDS);
    repo.write("docs/guide.md", "# Guide\n\nHello.\n");
    repo.write("src/auth/login.py", "def greet():\n    return 'Hello'\n");
    repo.commit("fix the typo");
    repo
}

fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = handoff_in(dir).args(args).output().expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code(), stdout)
}

/// Every violation of the SARIF 2.1.0 schema by `log`.
fn schema_errors(log: &Value) -> Option<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif/sarif-schema-2.1.0.json");
    let text = std::fs::read_to_string(path).expect("the SARIF schema");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    let url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
    compiler
        .add_resource(url, schema)
        .expect("the schema loads");
    let index = compiler
        .compile(url, &mut schemas)
        .expect("the schema compiles");
    schemas
        .validate(log, index)
        .err()
        .map(|error| format!("{error:#}"))
}

fn sarif(dir: &Path, args: &[&str], code: i32) -> Value {
    let (exit, stdout) = run(dir, &[args, &["--format", "sarif"]].concat());
    assert_eq!(exit, Some(code), "{stdout}");
    let log: Value = serde_json::from_str(&stdout).expect("SARIF is JSON");
    if let Some(errors) = schema_errors(&log) {
        panic!("{args:?}: not valid SARIF 2.1.0: {errors}\n{log:#}");
    }
    log
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

#[test]
fn the_schema_rejects_what_is_not_sarif() {
    let bad = serde_json::json!({"version": "2.1.0", "runs": [{"results": []}]});
    assert!(
        schema_errors(&bad).is_some(),
        "a run without a tool is not SARIF"
    );
}

#[test]
fn check_writes_valid_sarif_with_rules_locations_and_fingerprints() {
    let repo = rejected_change();
    let log = sarif(
        repo.path(),
        &["check", "--base", "main", "--head", "HEAD"],
        1,
    );
    assert_eq!(log["version"], "2.1.0");
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["name"], "handoff");
    let found = results(&log);
    let undeclared = found
        .iter()
        .find(|r| r["ruleId"] == "undeclared-file")
        .expect("the undeclared file is a result");
    assert_eq!(undeclared["level"], "error");
    let location = &undeclared["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(location["uri"], "src/auth/login.py");
    assert_eq!(location["uriBaseId"], "%SRCROOT%");
    let rules = driver["rules"].as_array().expect("rules");
    let index = undeclared["ruleIndex"].as_u64().expect("an index") as usize;
    assert_eq!(rules[index]["id"], "undeclared-file");
    // The auth path raised the risk: a note where it fired.
    assert!(found.iter().any(|r| r["level"] == "note"), "{log:#}");
    // Stable: the same run gives the same fingerprints.
    let again = sarif(
        repo.path(),
        &["check", "--base", "main", "--head", "HEAD"],
        1,
    );
    let prints = |log: &Value| -> Vec<Value> {
        results(log)
            .iter()
            .map(|r| r["partialFingerprints"].clone())
            .collect()
    };
    assert_eq!(prints(&log), prints(&again));
}

#[test]
fn a_fingerprint_survives_lines_moving_and_the_region_follows() {
    let repo = TestRepo::new();
    let broken = "## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | chat |\n";
    repo.write("a.md", broken);
    let first = sarif(repo.path(), &["lint", "a.md"], 1);
    repo.write("a.md", format!("# Notes\n\nMoved down.\n\n{broken}"));
    let moved = sarif(repo.path(), &["lint", "a.md"], 1);
    let (a, b) = (&results(&first)[0], &results(&moved)[0]);
    assert_eq!(a["partialFingerprints"], b["partialFingerprints"]);
    let line = |r: &Value| r["locations"][0]["physicalLocation"]["region"]["startLine"].clone();
    assert_eq!(line(b).as_u64(), line(a).as_u64().map(|l| l + 4));
}

#[test]
fn classify_lint_and_audit_write_valid_sarif() {
    let repo = rejected_change();
    let log = sarif(
        repo.path(),
        &["classify", "--base", "main", "--head", "HEAD"],
        0,
    );
    assert!(results(&log).iter().all(|r| r["level"] == "note"));
    assert!(!results(&log).is_empty());
    let clean = sarif(repo.path(), &["lint", ".handoff"], 0);
    assert!(results(&clean).is_empty());
    let project = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The example records hold deliberate routing mistakes: errors, exit 1.
    let args = [
        "audit",
        "examples/registry/records",
        "--registry",
        "examples/registry",
    ];
    let audit = sarif(project, &args, 1);
    assert!(results(&audit).iter().any(|r| r["level"] == "error"));
}

#[test]
fn github_annotations_point_at_file_and_line_within_the_limits() {
    let repo = rejected_change();
    let (code, text) = run(
        repo.path(),
        &[
            "check", "--base", "main", "--head", "HEAD", "--format", "github",
        ],
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.lines().any(
            |l| l.starts_with("::error file=src/auth/login.py,title=handoff undeclared-file::")
        ),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("::notice file=src/auth/login.py")),
        "{text}"
    );
    assert!(text.ends_with("note(s)\n"), "{text}");

    // Twelve broken records: ten annotations, the other two listed in the log.
    let many: String = (0..12)
        .map(|i| format!("## Interaction Record\n\n| Task ID | ENG-{i} |\n\n"))
        .collect();
    repo.write("many.md", many);
    let (code, text) = run(repo.path(), &["lint", "many.md", "--format", "github"]);
    assert_eq!(code, Some(1));
    let errors = text.lines().filter(|l| l.starts_with("::error ")).count();
    assert_eq!(errors, 10, "{text}");
    assert!(
        text.contains("not annotated (GitHub shows at most 10 errors"),
        "{text}"
    );
    let listed = text.lines().filter(|l| l.starts_with("  many.md:")).count();
    let total: usize = text
        .lines()
        .last()
        .and_then(|l| l.split(": ").nth(1))
        .and_then(|counts| counts.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a count line");
    assert_eq!(errors + listed, total, "{text}");
}

#[test]
fn every_command_with_findings_offers_both_ci_formats() {
    let repo = rejected_change();
    for command in [&["check"][..], &["classify"], &["lint"], &["audit"]] {
        let help = stdout_of(
            &handoff_in(repo.path())
                .args(command)
                .arg("--help")
                .assert()
                .success(),
        );
        assert!(
            help.contains("sarif") && help.contains("github"),
            "{command:?}: {help}"
        );
    }
}

#[test]
fn an_allowed_finding_is_a_suppressed_result_and_no_annotation() {
    let policy = "allow:\n  - rule: migration\n    paths: [\"migrations/seeds/\"]\n    \
                  reason: seed data\n";
    let (repo, _) = TestRepo::with_files(&[(".handoff.yaml", policy)]);
    repo.branch("seed");
    repo.write("migrations/seeds/0001.sql", "INSERT INTO t VALUES (1);\n");
    repo.write(
        "migrations/0002_users.sql",
        "CREATE TABLE users (id int);\n",
    );
    repo.commit("a seed and a migration");
    let args = ["classify", "--base", "main", "--head", "HEAD"];
    let log = sarif(repo.path(), &args, 0);
    let results = results(&log);
    let suppressed: Vec<&Value> = results
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .collect();
    assert_eq!(suppressed.len(), 1, "{log:#}");
    let location = &suppressed[0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(location["uri"], "migrations/seeds/0001.sql");
    assert_eq!(suppressed[0]["suppressions"][0]["kind"], "external");
    assert_eq!(
        suppressed[0]["suppressions"][0]["justification"],
        "allow: seed data"
    );
    assert_eq!(results.len(), 2, "{log:#}");
    let (_, github) = run(repo.path(), &[&args[..], &["--format", "github"]].concat());
    assert_eq!(github.matches("::notice ").count(), 1, "{github}");
    assert!(
        !github.contains("::notice file=migrations/seeds/"),
        "{github}"
    );
    assert!(
        github.contains("1 finding(s) suppressed (not annotated):\n  migrations/seeds/0001.sql: note[migration.path.migrations-dir]"),
        "{github}"
    );
    assert!(github.contains("(allow: seed data)\n"), "{github}");
    assert!(
        github.ends_with("handoff classify: 0 error(s), 0 warning(s), 1 note(s), 1 suppressed\n"),
        "{github}"
    );
}
