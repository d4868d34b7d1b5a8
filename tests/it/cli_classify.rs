//! The `handoff classify` and `handoff policy show` commands, run as a user runs them.

use crate::common::{handoff_in, TestRepo};
use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

/// `handoff classify --base <base> --head HEAD`, then `extra`, run in the repository.
fn classify(repo: &TestRepo, base: &str, extra: &[&str]) -> Command {
    let mut command = repo.handoff();
    command
        .args(["classify", "--base", base, "--head", "HEAD"])
        .args(extra);
    command
}

/// A repository whose head adds an auth file, a credential and a doc.
fn auth_change() -> (TestRepo, String) {
    let (repo, base) = TestRepo::with_base();
    repo.write("src/auth/login.py", "def login():\n    pass\n");
    repo.write(
        "app/settings.py",
        "DEBUG = True\nAPI_KEY = 'q8Zr4x0pLmN2vB7w'\n",
    );
    repo.write("docs/auth.md", "How login works.\n");
    repo.commit("auth change");
    (repo, base)
}

#[test]
fn json_output_follows_the_documented_contract() {
    let (repo, base) = auth_change();
    let output = classify(&repo, &base, &["--declared", "medium", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["risk"], "high");
    assert_eq!(json["declared"], "medium");
    assert_eq!(json["reclassified"], true);
    let file = &json["files"][0];
    for key in ["path", "old_path", "status", "binary"] {
        assert!(file.get(key).is_some(), "files[0] lacks {key}: {file}");
    }
    let findings = json["findings"].as_array().unwrap();
    let credential = findings
        .iter()
        .find(|f| f["trigger"] == "credential")
        .unwrap();
    assert_eq!(credential["path"], "app/settings.py");
    assert_eq!(credential["line"], 2);
    assert_eq!(credential["rule"], "credential.line.secret-assignment");
    assert_eq!(credential["class"], "high");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.contains("q8Zr4x0pLmN2vB7w"),
        "a secret leaked: {stdout}"
    );
}

#[test]
fn human_output_shows_the_class_then_each_trigger_with_its_files() {
    let (repo, base) = auth_change();
    classify(&repo, &base, &[])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "risk: high (reclassified from low",
        ))
        .stdout(predicate::str::contains(
            "\nauth → high\n  src/auth/login.py  [auth.path.auth-dir]\n",
        ))
        .stdout(predicate::str::contains(
            "app/settings.py:2  API_KEY = [redacted]",
        ))
        .stdout(predicate::str::contains("q8Zr4x0pLmN2vB7w").not());
}

#[test]
fn the_default_head_is_the_working_tree_and_the_default_base_the_merge_base() {
    let (repo, _base) = TestRepo::with_base();
    repo.branch("feature");
    repo.write("src/payments/refund.go", "package payments\n");
    repo.handoff()
        .args(["classify", "--format", "json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"trigger\": \"payment\""));
}

#[test]
fn a_low_change_says_no_trigger_fired() {
    let (repo, base) = TestRepo::with_base();
    repo.write("docs/intro.md", "Hello.\n");
    repo.commit("docs");
    classify(&repo, &base, &["--declared", "low"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "risk: low (declared low)\n1 file changed",
        ))
        .stdout(predicate::str::contains("no trigger fired"));
}

#[test]
fn bad_arguments_and_missing_history_exit_2_with_a_clear_message() {
    let (repo, base) = TestRepo::with_base();
    repo.handoff()
        .args(["classify", "--base", &base, "--declared", "critical"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("critical"));
    repo.handoff()
        .args(["classify", "--base", "no-such-rev"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown revision `no-such-rev`"));

    repo.write("a.txt", "a\n");
    repo.commit("second");
    let (_dir, clone) = repo.clone_with(&["--depth", "1"]);
    handoff_in(&clone)
        .args(["classify", "--base", &base, "--head", "HEAD"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("fetch-depth: 0"));
}

#[test]
fn a_broken_policy_in_the_base_names_the_file_and_line() {
    let repo = TestRepo::new();
    repo.write(
        ".handoff.yaml",
        "triggers:\n  auth:\n    add_lines:\n      - '(oops'\n",
    );
    let base = repo.commit("broken policy");
    classify(&repo, &base, &[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(".handoff.yaml:4:"))
        .stderr(predicate::str::contains("invalid regex"));
}

#[test]
fn policy_show_prints_rule_ids_merged_with_the_file() {
    let repo = TestRepo::new();
    repo.write(
        ".handoff.yaml",
        "triggers:\n  auth:\n    remove_paths: [auth.path.session]\n    add_paths: ['src/guards/']\n",
    );
    repo.commit("policy");
    repo.handoff()
        .args(["policy", "show", "--base", "HEAD"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "# effective policy: .handoff.yaml at base",
        ))
        .stdout(predicate::str::contains(
            "auth.path.policy-1 (policy)  paths: src/guards/",
        ))
        .stdout(predicate::str::contains("auth.path.middleware"))
        // Removed: a key of the policy file, no longer a rule in effect.
        .stdout(predicate::str::contains(
            "remove_paths:\n    - auth.path.session\n",
        ))
        .stdout(predicate::str::contains("#     auth.path.session").not())
        .stdout(predicate::str::contains(
            "orchestrator: enterprise-orchestrator",
        ));

    let output = repo
        .handoff()
        .args(["policy", "show", "--base", "HEAD", "--format", "json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["records_dir"], ".handoff");
    assert_eq!(json["reviewers"]["medium"][0], "qa-engineer");
}

#[test]
fn policy_show_reads_an_override_file_and_reports_its_errors() {
    let repo = TestRepo::new();
    let file = repo.path().join("p.yaml");
    std::fs::write(&file, "records_dir: meta\nreviewers:\n  hgh: [x]\n").unwrap();
    repo.handoff()
        .args(["policy", "show", "--policy", "p.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("p.yaml:3:"))
        .stderr(predicate::str::contains("unknown field `hgh`"));
}

#[test]
fn a_policy_under_the_wrong_name_is_an_error_not_ignored() {
    let repo = TestRepo::new();
    repo.write(".handoff.yml", "exclude: [src/]\n");
    let base = repo.commit("misnamed policy");
    classify(&repo, &base, &[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            ".handoff.yml: the policy file is read as `.handoff.yaml`",
        ));
}

#[test]
fn a_policy_committed_as_a_directory_is_an_error_not_ignored() {
    let repo = TestRepo::new();
    repo.write(".handoff.yaml/rules.yaml", "exclude: [src/]\n");
    let base = repo.commit("policy as a directory");
    classify(&repo, &base, &[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(".handoff.yaml at "))
        .stderr(predicate::str::contains("is a directory, not a file"));
}

#[test]
fn outside_a_repository_the_error_says_to_pass_repo() {
    let dir = tempfile::tempdir().unwrap();
    handoff_in(dir.path())
        .args(["classify", "--base", "main"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a git repository"))
        .stderr(predicate::str::contains("pass --repo DIR"));
}

#[test]
fn human_output_snapshot() {
    let (repo, base) = TestRepo::with_base();
    repo.write("src/auth/session.ts", "export const ttl = 3600;\n");
    repo.write(
        "app/config.py",
        "import os\nPORT = os.getenv('PORT')\nAPI_KEY = 'q8Zr4x0pLmN2vB7w'\n",
    );
    repo.write("db/migrate/20260101_add_users.rb", "class AddUsers; end\n");
    repo.write(
        "tests/test_config.py",
        "def test_port():\n    assert True\n",
    );
    repo.write(".handoff/ENG-1.md", "a record\n");
    repo.commit("a risky change");
    let output = classify(&repo, &base, &["--declared", "medium"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn the_output_lists_the_stacks_found_and_the_stack_of_each_finding() {
    let (repo, base) = TestRepo::with_files(&[(
        "Gemfile",
        "source 'https://rubygems.org'\ngem 'rails', '~> 8.0'\n",
    )]);
    repo.write("db/migrate/20260101_add_users.rb", "class AddUsers; end\n");
    repo.commit("a migration");
    classify(&repo, &base, &[])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("\nstacks: rails, ruby\n"))
        .stdout(predicate::str::contains(
            "db/migrate/20260101_add_users.rb  [migration.path.rails, rails]",
        ));
    let output = classify(&repo, &base, &["--format", "json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["stacks"], serde_json::json!(["rails", "ruby"]));
    assert_eq!(json["findings"][0]["rule"], "migration.path.rails");
    assert_eq!(json["findings"][0]["stack"], "rails");
}

#[test]
fn changing_the_override_policy_file_inside_the_repository_fires_policy() {
    let repo = TestRepo::new();
    repo.write("ci/gate-policy.yaml", "exclude: [vendor/]\n");
    let base = repo.commit("ci policy");
    repo.write("ci/gate-policy.yaml", "exclude: [vendor/, src/]\n");
    repo.commit("widen the exclusions");
    let output = classify(&repo, &base, &["--policy", "ci/gate-policy.yaml"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["risk"], "high");
    assert_eq!(json["findings"][0]["rule"], "policy.path.override");
    assert_eq!(json["findings"][0]["path"], "ci/gate-policy.yaml");
}

#[test]
fn hostile_policy_files_exit_2_with_a_short_located_error() {
    let (repo, _) = TestRepo::with_base();
    let write = |name: &str, bytes: &[u8]| std::fs::write(repo.path().join(name), bytes).unwrap();
    write("huge.yaml", &vec![b'a'; 2 * 1024 * 1024]);
    write("long.yaml", &vec![b'a'; 100_000]);
    write("latin1.yaml", b"records_dir: meta\nexclude: [caf\xe9]\n");
    std::fs::create_dir(repo.path().join("dir.yaml")).unwrap();
    let cases = [
        ("huge.yaml", "huge.yaml: too large (2097152 bytes)"),
        ("long.yaml", "expected a mapping of policy keys"),
        ("latin1.yaml", "latin1.yaml:2:14: not UTF-8"),
        (
            "dir.yaml",
            "dir.yaml: cannot read the policy file: it is a directory",
        ),
        ("missing.yaml", "missing.yaml: cannot read the policy file"),
    ];
    for (file, message) in cases {
        for command in [&["policy", "show"][..], &["classify", "--base", "HEAD"]] {
            let output = repo
                .handoff()
                .args(command)
                .args(["--policy", file])
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicate::str::contains(message))
                .get_output()
                .clone();
            assert!(
                output.stderr.len() < 1000,
                "{file}: {} bytes",
                output.stderr.len()
            );
        }
    }
}

#[test]
fn a_non_utf8_policy_in_the_base_is_located() {
    let repo = TestRepo::new();
    repo.write(".handoff.yaml", b"records_dir: meta\n\xff\n");
    repo.commit("latin1 policy");
    repo.handoff()
        .args(["classify", "--base", "HEAD"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(".handoff.yaml:2:1: not UTF-8"))
        .stderr(predicate::str::contains("save the file as UTF-8"));
}

/// A repository whose head adds one file `a/` × `directories` then `a`, staged with
/// `git update-index --cacheinfo` (no file system takes a path that deep), and the base.
fn deep_path_change(directories: usize) -> (TestRepo, String) {
    let (repo, base) = TestRepo::with_base();
    let blob = repo.git(&["hash-object", "-w", "README.md"]);
    let path = format!("{}a", "a/".repeat(directories));
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("100644,{blob},{path}"),
    ]);
    repo.git(&["commit", "-q", "-m", "deep path"]);
    (repo, base)
}

#[test]
fn a_path_twenty_thousand_directories_deep_cannot_run_instead_of_overflowing_the_stack() {
    let (repo, base) = deep_path_change(20_000);
    let output = classify(&repo, &base, &[]).output().expect("run handoff");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(
        stderr.contains("a/a/a/…/a/a: a path of the change lies more than 512 directories deep")
            && stderr.contains("move its files to a shallower path"),
        "{stderr}"
    );
    // Shortened: not the 40,001 bytes of the path.
    assert!(stderr.len() < 1_000, "{} bytes", stderr.len());
    assert!(!stderr.contains("overflow"), "{stderr}");
}

#[test]
fn a_path_at_the_depth_limit_classifies_and_one_directory_more_cannot_run() {
    let limit = handoff::MAX_DIRECTORY_DEPTH;
    let (repo, base) = deep_path_change(limit);
    let output = classify(&repo, &base, &["--format", "json"])
        .output()
        .expect("run handoff");
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let deepest = format!("{}a", "a/".repeat(limit));
    assert_eq!(report["files"][0]["path"], deepest.as_str(), "{report}");

    let (repo, base) = deep_path_change(limit + 1);
    classify(&repo, &base, &[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "more than {limit} directories deep"
        )));
}

#[test]
fn a_staged_path_past_the_depth_limit_cannot_run_against_the_working_tree() {
    let limit = handoff::MAX_DIRECTORY_DEPTH;
    let (repo, base) = TestRepo::with_base();
    repo.write(&format!("{}a", "a/".repeat(limit + 1)), "deep\n");
    repo.git(&["add", "-A"]);
    repo.handoff()
        .args(["classify", "--base", &base])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "a/a/a/…/a/a: a path of the change lies more than {limit} directories deep"
        )));
}
