//! A change with no Task Assignment: the adoption change `handoff init` prepares passes at
//! its real class, and the policy's `require_task` (read from the base) decides the rest.
//! Each way a change might pass itself off as an adoption, or relax the roll-out for
//! itself, is checked to fail closed.

use crate::common::{handoff_in, json_output, stdout_in, TestRepo};
use serde_json::Value;

/// `handoff check --base main --format json` on the committed head: exit code, verdict.
fn check(repo: &TestRepo) -> (Option<i32>, Value) {
    let args = [
        "check", "--base", "main", "--head", "HEAD", "--format", "json",
    ];
    json_output(repo.path(), &args)
}

/// The codes of the verdict's problems.
fn codes(verdict: &Value) -> Vec<&str> {
    verdict["problems"]
        .as_array()
        .map(|problems| problems.iter().filter_map(|p| p["code"].as_str()).collect())
        .unwrap_or_default()
}

/// The message of the problem with `code`.
fn message<'a>(verdict: &'a Value, code: &str) -> &'a str {
    verdict["problems"]
        .as_array()
        .and_then(|problems| problems.iter().find(|p| p["code"] == code))
        .and_then(|problem| problem["message"].as_str())
        .unwrap_or_else(|| panic!("no {code}: {verdict:#}"))
}

/// A repository whose `main` holds `files`, on a branch `change` ready for the change.
fn repository(files: &[(&str, &str)]) -> TestRepo {
    let (repo, _) = TestRepo::with_files(files);
    repo.branch("change");
    repo
}

/// A repository whose `main` holds `README.md` and the policy file `policy`, and a
/// commit on `change` that writes `files`: the check's exit code and verdict.
fn change_under(policy: &str, files: &[(&str, &str)]) -> (Option<i32>, Value) {
    let repo = repository(&[("README.md", "# app\n"), (".handoff.yaml", policy)]);
    for (path, content) in files {
        repo.write(path, content);
    }
    repo.commit("the change");
    check(&repo)
}

const MIGRATION: (&str, &str) = ("migrations/0001_init.sql", "CREATE TABLE t (id int);\n");

/// Runs `handoff init` in the repository.
fn init(repo: &TestRepo) {
    handoff_in(repo.path()).arg("init").assert().success();
}

#[test]
fn the_adoption_change_init_prepares_passes_at_its_real_class() {
    let repo = repository(&[("README.md", "# app\n"), ("src/app.py", "print(1)\n")]);
    init(&repo);
    repo.write(
        ".github/CODEOWNERS",
        "/.handoff/ @team\n/.handoff.yaml @team\n",
    );
    repo.commit("Adopt the handoff gate");
    let (code, verdict) = check(&repo);
    assert_eq!(code, Some(0), "{verdict:#}");
    assert_eq!(verdict["verdict"], "pass");
    assert_eq!(verdict["task_id"], "");
    assert_eq!(verdict["risk"]["class"], "high", "{verdict:#}");
    assert_eq!(codes(&verdict), ["adopts-gate"]);
    assert!(message(&verdict, "adopts-gate").contains("passes at high risk"));
    let human = stdout_in(repo.path(), &["check", "--base", "main", "--head", "HEAD"]);
    assert!(
        human.contains("pass: no task at high risk, 0 error(s), 1 warning(s)"),
        "{human}"
    );
    assert!(human.contains("none (no Task Assignment)"), "{human}");
}

#[test]
fn an_adoption_change_with_anything_else_in_it_is_not_one() {
    // Each change adds the gate's setup and one thing more; the default require_task
    // (always) then rejects it for want of a Task Assignment.
    type Extra = fn(&TestRepo);
    let extras: [(&str, Extra); 5] = [
        ("a code file", |repo| {
            repo.write("src/app.py", "print(2)\n");
        }),
        ("a deletion", |repo| {
            repo.remove("src/app.py");
        }),
        ("a rename into a workflow", |repo| {
            repo.git_mv("src/app.py", ".github/workflows/app.yml");
        }),
        ("a workflow in a subdirectory", |repo| {
            repo.write(".github/workflows/sub/x.yml", "on: push\n");
        }),
        ("a workflow that does not run the gate", |repo| {
            repo.write(".github/workflows/deploy.yml", "on: push\njobs: {}\n");
        }),
    ];
    for (what, extra) in extras {
        let repo = repository(&[("README.md", "# app\n"), ("src/app.py", "print(1)\n")]);
        init(&repo);
        extra(&repo);
        repo.commit("Adopt the gate, and more");
        let (code, verdict) = check(&repo);
        assert_eq!(code, Some(1), "{what}: {verdict:#}");
        assert_eq!(codes(&verdict), ["task-required"], "{what}");
    }
}

#[test]
fn a_repository_that_has_the_gate_already_cannot_be_adopted_again() {
    // A base with a policy file: a change re-adding the setup is judged by that policy.
    let repo = repository(&[
        ("README.md", "# app\n"),
        (".handoff.yaml", "copies: false\n"),
    ]);
    repo.remove(".handoff.yaml");
    repo.commit("drop the policy");
    init(&repo);
    repo.commit("re-adopt");
    let (code, verdict) = check(&repo);
    assert_eq!(code, Some(1), "{verdict:#}");
    assert_eq!(codes(&verdict), ["task-required"]);
    // A base with records but no policy file: the gate is in use with its defaults.
    let (repo, _) = TestRepo::with_base();
    handoff_in(repo.path())
        .args([
            "new",
            "review",
            "--task",
            "ENG-1",
            "--from",
            "backend-engineer",
        ])
        .args([
            "--to",
            "orchestrator",
            "--risk",
            "low",
            "-o",
            ".handoff/eng-1.md",
        ])
        .assert()
        .success();
    repo.commit("a record");
    repo.branch("change");
    init(&repo);
    repo.commit("adopt over existing records");
    let (code, verdict) = check(&repo);
    assert_eq!(code, Some(1), "{verdict:#}");
    assert_eq!(codes(&verdict), ["task-required"]);
}

#[test]
fn require_task_from_medium_passes_a_low_change_and_rejects_a_high_one() {
    let policy = "require_task: from medium\n";
    let (code, verdict) = change_under(policy, &[("docs/guide.md", "# Guide\n")]);
    assert_eq!(code, Some(0), "{verdict:#}");
    assert_eq!(verdict["risk"]["class"], "low");
    assert_eq!(codes(&verdict), ["no-task-assignment"]);
    let text = message(&verdict, "no-task-assignment");
    assert!(text.contains("require_task: from medium"), "{text}");
    assert!(
        text.contains("would require an evidence bundle with"),
        "{text}"
    );
    let (code, verdict) = change_under(policy, &[MIGRATION]);
    assert_eq!(code, Some(1), "{verdict:#}");
    assert_eq!(verdict["risk"]["class"], "high");
    assert_eq!(codes(&verdict), ["task-required"]);
    let text = message(&verdict, "task-required");
    assert!(text.contains("review by"), "{text}");
    assert!(text.contains("handoff new task-assignment"), "{text}");
}

#[test]
fn require_task_never_passes_a_high_change_with_a_warning() {
    let (code, verdict) = change_under("require_task: never\n", &[MIGRATION]);
    assert_eq!(code, Some(0), "{verdict:#}");
    assert_eq!(verdict["risk"]["class"], "high");
    assert_eq!(codes(&verdict), ["no-task-assignment"]);
}

#[test]
fn a_change_cannot_relax_require_task_for_itself() {
    let relaxed = [
        (".handoff.yaml", "require_task: never\n"),
        ("docs/guide.md", "# Guide\n"),
    ];
    let (code, verdict) = change_under("require_task: always\n", &relaxed);
    assert_eq!(code, Some(1), "{verdict:#}");
    assert_eq!(codes(&verdict), ["task-required"]);
    assert!(message(&verdict, "task-required").contains("require_task: always"));
}

#[test]
fn a_require_task_that_is_not_a_setting_is_an_error_naming_the_line() {
    let policy = "copies: false\nrequire_task: sometimes\n";
    let repo = repository(&[("README.md", "# app\n"), (".handoff.yaml", policy)]);
    repo.write("docs/guide.md", "# Guide\n");
    repo.commit("docs");
    let output = handoff_in(repo.path())
        .args(["check", "--base", "main", "--head", "HEAD"])
        .output()
        .expect("run handoff");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(".handoff.yaml:2"), "{stderr}");
    assert!(
        stderr.contains("always, never, from medium, from high"),
        "{stderr}"
    );
}
