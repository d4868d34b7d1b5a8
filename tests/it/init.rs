//! `handoff init` and `handoff policy show` as a new user meets them: an empty
//! repository set up, nothing overwritten, the policy file written and shown back valid.

use crate::common::{handoff_in, stdout_of, TestRepo};
use std::path::Path;

const WRITTEN: [&str; 3] = [
    ".handoff.yaml",
    ".handoff/README.md",
    ".github/workflows/handoff.yml",
];

#[test]
fn init_writes_the_policy_records_and_workflow_and_prints_codeowners() {
    let repo = TestRepo::new();
    let dry = stdout_of(
        &handoff_in(repo.path())
            .args(["init", "--dry-run"])
            .assert()
            .success(),
    );
    for path in WRITTEN {
        assert!(dry.contains(&format!("would create {path}")), "{dry}");
        assert!(!repo.path().join(path).exists(), "--dry-run wrote {path}");
    }
    let out = stdout_of(&handoff_in(repo.path()).arg("init").assert().success());
    for path in WRITTEN {
        assert!(out.contains(&format!("created {path}")), "{out}");
        assert!(repo.path().join(path).is_file(), "{path}");
    }
    // CODEOWNERS: one pattern per line, then its owners.
    for pattern in [
        "/.handoff/",
        "/.handoff.yaml",
        "/.github/workflows/handoff.yml",
    ] {
        assert!(
            out.contains(&format!("\n{pattern} @OWNER/reviewers\n")),
            "{out}"
        );
    }
    assert!(out.contains("3 file(s) created"), "{out}");
    // The workflow is the documented one.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = std::fs::read_to_string(root.join("examples/check/github-actions.yml"))
        .expect("the example workflow");
    let written = std::fs::read_to_string(repo.path().join(WRITTEN[2])).expect("written");
    assert_eq!(written, example);
    // The records directory lints clean, and the policy is valid for the loader.
    let lint = stdout_of(&handoff_in(repo.path()).arg("lint").assert().success());
    assert_eq!(lint, "1 file, 0 records: no problems\n");
    handoff_in(repo.path())
        .args(["policy", "show", "--policy", ".handoff.yaml"])
        .assert()
        .success();
}

#[test]
fn init_never_overwrites() {
    let repo = TestRepo::new();
    repo.write(".handoff.yaml", "records_dir: meta\n");
    let out = stdout_of(&handoff_in(repo.path()).arg("init").assert().success());
    assert!(
        out.contains("kept .handoff.yaml (it exists; not overwritten)"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".handoff.yaml")).expect("kept"),
        "records_dir: meta\n"
    );
    let again = stdout_of(&handoff_in(repo.path()).arg("init").assert().success());
    assert!(again.contains("nothing to do"), "{again}");
}

#[test]
fn the_commented_policy_documents_every_key_and_means_the_defaults() {
    let repo = TestRepo::new();
    handoff_in(repo.path()).arg("init").assert().success();
    let text = std::fs::read_to_string(repo.path().join(".handoff.yaml")).expect("written");
    for key in [
        "records_dir",
        "exclude",
        "copies",
        "triggers",
        "add_paths",
        "remove_paths",
        "add_lines",
        "remove_lines",
        "custom_triggers",
        "evidence",
        "aliases",
        "reviewers",
        "medium",
        "high",
        "orchestrator",
        "unavailable",
    ] {
        assert!(text.contains(&format!("{key}:")), "{key} is not documented");
    }
    let json = |args: &[&str]| -> serde_json::Value {
        let out = stdout_of(&handoff_in(repo.path()).args(args).assert().success());
        let mut value: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        value["source"] = serde_json::Value::Null;
        value
    };
    assert_eq!(
        json(&[
            "policy",
            "show",
            "--policy",
            ".handoff.yaml",
            "--format",
            "json"
        ]),
        json(&["policy", "show", "--format", "json"])
    );
}

#[test]
fn policy_show_works_outside_a_repository() {
    let dir = tempfile::tempdir().expect("a directory");
    let out = stdout_of(
        &handoff_in(dir.path())
            .args(["policy", "show"])
            .assert()
            .success(),
    );
    assert!(
        out.starts_with("# effective policy: built-in defaults"),
        "{out}"
    );
}

#[test]
fn policy_show_prints_yaml_that_policy_accepts_back_unchanged() {
    let repo = TestRepo::new();
    repo.write(
        ".handoff.yaml",
        "records_dir: meta\nexclude: [vendor/]\ncopies: true\nrequire_task: from high\n\
         triggers:\n  auth:\n    remove_paths: [auth.path.session]\n    add_paths: ['src/guards/']\n    add_lines: ['\\bcheckAccess\\(']\n\
         custom_triggers:\n  - name: infra\n    class: high\n    paths: ['*.tf']\n    lines: ['aws_iam_']\n\
         evidence:\n  aliases:\n    rollback-plan: [undo plan]\n\
         reviewers:\n  medium: [reality-checker]\n  unavailable: [qa-engineer]\n\
         allow:\n  - rule: migration\n    paths: ['db/seeds/']\n    reason: seed data\n",
    );
    repo.commit("policy");
    let shown = stdout_of(
        &handoff_in(repo.path())
            .args(["policy", "show", "--base", "HEAD"])
            .assert()
            .success(),
    );
    repo.write("shown.yaml", &shown);
    let json = |args: &[&str]| -> serde_json::Value {
        let out = stdout_of(&handoff_in(repo.path()).args(args).assert().success());
        let mut value: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        value["source"] = serde_json::Value::Null;
        value
    };
    let original = json(&["policy", "show", "--base", "HEAD", "--format", "json"]);
    let back = json(&[
        "policy",
        "show",
        "--policy",
        "shown.yaml",
        "--format",
        "json",
    ]);
    assert_eq!(original, back, "{shown}");
    assert_eq!(original["records_dir"], "meta");
    assert_eq!(original["require_task"], "from high");
    assert_eq!(original["allow"][0]["reason"], "seed data");
}

#[test]
fn every_version_pin_names_the_tag_the_release_creates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    for file in [
        "README.md",
        "templates/init/workflow.yml",
        "examples/check/github-actions.yml",
    ] {
        let text = std::fs::read_to_string(root.join(file)).expect("the file");
        // `OWNER/handoff@vX.Y.Z` and pre-commit's `rev: vX.Y.Z`.
        let pins: Vec<&str> = ["handoff@", "rev: "]
            .iter()
            .flat_map(|prefix| {
                text.match_indices(prefix)
                    .map(move |(at, _)| at + prefix.len())
            })
            .map(|at| {
                let rest = &text[at..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
                    .unwrap_or(rest.len());
                &rest[..end]
            })
            .collect();
        assert!(
            !pins.is_empty() || file != "README.md",
            "{file} pins nothing"
        );
        for pin in pins {
            assert_eq!(pin, tag, "{file} pins {pin}, the release tags {tag}");
        }
    }
    // The release workflow tags exactly Cargo.toml's version.
    let release = std::fs::read_to_string(root.join(".github/workflows/release.yml"))
        .expect("the release workflow");
    assert!(release.contains(r#"test "$TAG" = "v$version""#));
}
