//! The policy's `allow` entries: a finding they cover raises nothing and is reported with
//! its reason, in `classify` and `check`; an entry only counts from the base, so a change
//! cannot allow its own findings; the gate's own files can never be allowed.

use crate::common::{handoff_in, json_output, stdout_in, stdout_of, TestRepo};
use serde_json::Value;

const ALLOW_SEEDS: &str = "allow:\n  - rule: migration\n    paths: [\"migrations/seeds/\"]\n    \
                           reason: seed data, not a schema change\n";

const SEED: (&str, &str) = ("migrations/seeds/0001.sql", "INSERT INTO t VALUES (1);\n");

/// A repository whose `main` holds `README.md` and `.handoff.yaml` = `policy`, and a
/// commit on a branch that writes `files`.
fn change_under(policy: &str, files: &[(&str, &str)]) -> TestRepo {
    let (repo, _) = TestRepo::with_files(&[("README.md", "# app\n"), (".handoff.yaml", policy)]);
    repo.branch("change");
    for (path, content) in files {
        repo.write(path, content);
    }
    repo.commit("the change");
    repo
}

/// `handoff COMMAND --base main --head HEAD --format json`: exit code and JSON.
fn json(repo: &TestRepo, command: &str) -> (Option<i32>, Value) {
    let args = [
        command, "--base", "main", "--head", "HEAD", "--format", "json",
    ];
    json_output(repo.path(), &args)
}

#[test]
fn an_allowed_finding_raises_nothing_and_is_reported_with_its_reason() {
    let repo = change_under(ALLOW_SEEDS, &[SEED]);
    let (code, classification) = json(&repo, "classify");
    assert_eq!(code, Some(0));
    assert_eq!(classification["risk"], "low", "{classification:#}");
    assert_eq!(classification["findings"], Value::Array(Vec::new()));
    let suppressed = &classification["suppressed"][0];
    assert_eq!(suppressed["path"], SEED.0);
    assert_eq!(suppressed["trigger"], "migration");
    assert_eq!(suppressed["reason"], "seed data, not a schema change");
    let human = stdout_of(
        &handoff_in(repo.path())
            .args(["classify", "--base", "main", "--head", "HEAD"])
            .assert()
            .success(),
    );
    assert!(human.contains("suppressed (not counted): 1"), "{human}");
    assert!(human.contains("seed data, not a schema change"), "{human}");
    // The gate: the class is low, the Risk line counts the allowed finding.
    let (_, verdict) = json(&repo, "check");
    assert_eq!(verdict["risk"]["class"], "low", "{verdict:#}");
    assert_eq!(verdict["risk"]["suppressed"][0]["path"], SEED.0);
    let human = stdout_in(repo.path(), &["check", "--base", "main", "--head", "HEAD"]);
    assert!(
        human.contains("0 finding(s), 1 allowed by the policy"),
        "{human}"
    );
}

#[test]
fn an_allowance_covers_its_paths_only() {
    let other = (
        "migrations/0002_users.sql",
        "CREATE TABLE users (id int);\n",
    );
    let repo = change_under(ALLOW_SEEDS, &[SEED, other]);
    let (_, classification) = json(&repo, "classify");
    assert_eq!(classification["risk"], "high", "{classification:#}");
    assert_eq!(classification["findings"][0]["path"], other.0);
    assert_eq!(classification["suppressed"][0]["path"], SEED.0);
}

#[test]
fn a_change_cannot_allow_its_own_findings() {
    // The change adds the very entry that would cover its migration.
    let repo = change_under("copies: false\n", &[(".handoff.yaml", ALLOW_SEEDS), SEED]);
    let (_, classification) = json(&repo, "classify");
    assert_eq!(classification["risk"], "high", "{classification:#}");
    assert!(
        classification.get("suppressed").is_none(),
        "{classification:#}"
    );
    let triggers: Vec<&str> = classification["findings"]
        .as_array()
        .map(|f| f.iter().filter_map(|f| f["trigger"].as_str()).collect())
        .unwrap_or_default();
    assert!(triggers.contains(&"migration"), "{triggers:?}");
    assert!(triggers.contains(&"policy"), "{triggers:?}");
    let (code, verdict) = json(&repo, "check");
    assert_eq!(code, Some(1), "{verdict:#}");
    assert_eq!(verdict["risk"]["class"], "high");
}

#[test]
fn the_gates_own_files_can_never_be_allowed() {
    // An entry for the policy trigger, one of its rules, the file count, an unknown
    // rule, no reason, no paths: each an error naming the line, the gate cannot run.
    let wrong = [
        ("policy", "[\".handoff.yaml\"]", "ours", "cannot be allowed"),
        (
            "policy.path.gate-file",
            "[\"**\"]",
            "ours",
            "cannot be allowed",
        ),
        (
            "file-count",
            "[\"**\"]",
            "big changes are fine",
            "cannot be allowed",
        ),
        (
            "migraton",
            "[\"x/\"]",
            "typo",
            "neither a trigger nor a rule id",
        ),
        ("migration", "[\"x/\"]", "\"\"", "empty value"),
        ("migration", "[]", "none", "at least one glob"),
        (
            "migration.path.migrations-dir",
            "[\"x/\"]",
            "one rule",
            "allow the trigger `migration`",
        ),
    ];
    for (rule, paths, reason, expected) in wrong {
        let policy = format!(
            "copies: false\nallow:\n  - rule: {rule}\n    paths: {paths}\n    reason: {reason}\n"
        );
        let repo = change_under(&policy, &[SEED]);
        let output = handoff_in(repo.path())
            .args(["check", "--base", "main", "--head", "HEAD"])
            .output()
            .expect("run handoff");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{rule}: {stderr}");
        assert!(stderr.contains(".handoff.yaml:"), "{rule}: {stderr}");
        assert!(stderr.contains(expected), "{rule}: {stderr}");
    }
    // A valid entry for another trigger on the policy file leaves its `policy` finding.
    let allow_all = "allow:\n  - rule: env-var\n    paths: [\"**\"]\n    reason: all\n";
    let repo = change_under(allow_all, &[(".handoff.yaml", "copies: true\n")]);
    let (_, classification) = json(&repo, "classify");
    assert_eq!(classification["risk"], "high", "{classification:#}");
    assert_eq!(classification["findings"][0]["trigger"], "policy");
}
