//! The one `--format` vocabulary: every command takes the names it supports (and the old
//! `md` for `markdown`), refuses the others with the list, and lays its reports out with
//! templates a user can override.

use crate::common::{handoff_in, TestRepo};
use predicates::prelude::*;

#[test]
fn md_is_markdown_wherever_markdown_is_offered() {
    let project = env!("CARGO_MANIFEST_DIR");
    for args in [
        ["audit", "examples/registry/records"],
        ["route", "--registry=examples/registry"],
    ] {
        let run = |format: &str| {
            let mut command = handoff_in(std::path::Path::new(project));
            command.args(args).args(["--format", format]);
            if args[0] == "route" {
                command.args(["--capability", "auth: [oauth2]"]);
            }
            command.output().expect("run handoff")
        };
        let (md, markdown) = (run("md"), run("markdown"));
        assert!(!md.stdout.is_empty(), "{args:?}");
        assert_eq!(md.stdout, markdown.stdout, "{args:?}");
        assert_eq!(md.status.code(), markdown.status.code(), "{args:?}");
    }
}

#[test]
fn a_report_layout_is_a_template_a_user_can_override() {
    let (repo, _) = TestRepo::with_files(&[("README.md", "# demo\n")]);
    let dir = repo.path().join("layouts/reports");
    std::fs::create_dir_all(&dir).expect("a layouts directory");
    std::fs::write(
        dir.join("policy.txt"),
        "records in {{ policy.records_dir }}; {{ triggers | length }} triggers\n",
    )
    .expect("write a layout");
    handoff_in(repo.path())
        .args(["policy", "show", "--templates", "layouts"])
        .assert()
        .success()
        .stdout("records in .handoff; 9 triggers\n");
    std::fs::write(dir.join("policy.txt"), "{{ broken").expect("write a layout");
    handoff_in(repo.path())
        .args(["policy", "show", "--templates", "layouts"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("reports/policy.txt"));
}
