//! `handoff route` end to end: the real binary against the example registry (in all
//! three layouts) and against registries written into temporary directories.

use crate::common::{example_registry, handoff, stdout_of};
use predicates::prelude::*;
use std::fs;
use std::path::Path;

fn route(registry: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    handoff()
        .arg("route")
        .arg("--registry")
        .arg(registry)
        .args(args)
        .assert()
}

/// `route` against the example registry.
fn route_example(args: &[&str]) -> assert_cmd::assert::Assert {
    route(&example_registry(""), args)
}

fn field<'a>(record: &'a str, key: &str) -> &'a str {
    let prefix = format!("| {key} | ");
    record
        .lines()
        .find_map(|line| line.strip_prefix(prefix.as_str()))
        .and_then(|rest| rest.strip_suffix(" |"))
        .unwrap_or_else(|| panic!("no `{key}` row in:\n{record}"))
}

#[test]
fn qualifier_match_decides_when_one_agent_covers_the_most() {
    let assert =
        route_example(&["--capability", "auth: [OAuth 2, pkce]", "--task", "ENG-042"]).success();
    let record = stdout_of(&assert);
    assert!(
        record.starts_with("## Routing Decision\n\n| Field | Value |\n|---|---|\n"),
        "{record}"
    );
    assert_eq!(field(&record, "Task ID"), "ENG-042");
    assert_eq!(
        field(&record, "Requested capability"),
        "auth: [oauth2, pkce]"
    );
    assert_eq!(field(&record, "Selected"), "security-engineer");
    assert_eq!(field(&record, "Tie-break rule applied"), "qualifier-match");
    assert!(field(&record, "Reason").contains("covers oauth2 (1 of 2 requested qualifiers)"));
    assert!(
        field(&record, "Rejected").starts_with("backend-engineer — qualifier-match: covers 0 of 2")
    );
    assert_eq!(
        field(&record, "Matched agents"),
        "backend-engineer (auth: [jwt, middleware, session]), security-engineer (auth: [jwt, oauth2, saml, session])"
    );
}

#[test]
fn department_affinity_decides_a_qualifier_tie_by_the_requester_department() {
    let args = [
        "--capability",
        "backend: [node]",
        "--requester",
        "frontend-engineer",
    ];
    let record = stdout_of(&route_example(&args).success());
    assert_eq!(field(&record, "Selected"), "fullstack-engineer");
    assert_eq!(
        field(&record, "Tie-break rule applied"),
        "department-affinity"
    );
    assert_eq!(field(&record, "Requester"), "frontend-engineer");
    let rejected = field(&record, "Rejected");
    assert!(
        rejected.contains("backend-engineer — department-affinity: in `engineering`"),
        "{rejected}"
    );
    assert!(
        rejected.contains("data-engineer — qualifier-match"),
        "{rejected}"
    );
}

#[test]
fn a_department_from_the_aliases_file_counts() {
    let args = [
        "--capability",
        "backend: [python]",
        "--requester",
        "data-engineer",
    ];
    let record = stdout_of(&route_example(&args).success());
    assert_eq!(field(&record, "Selected"), "data-engineer");
    assert_eq!(
        field(&record, "Tie-break rule applied"),
        "department-affinity"
    );
}

#[test]
fn documented_choice_decides_a_tie_with_pick_and_reason() {
    let args = [
        "--capability",
        "api-design: [rest]",
        "--pick",
        "Fullstack-Engineer",
        "--reason",
        "owns the UI | half of the endpoint",
    ];
    let record = stdout_of(&route_example(&args).success());
    assert_eq!(field(&record, "Selected"), "fullstack-engineer");
    assert_eq!(
        field(&record, "Tie-break rule applied"),
        "documented-choice"
    );
    assert!(field(&record, "Reason").contains("owns the UI \\| half of the endpoint"));
    assert_eq!(
        field(&record, "Rejected"),
        "backend-engineer — documented-choice: not picked"
    );
}

#[test]
fn a_single_candidate_needs_no_rule() {
    let record = stdout_of(&route_example(&["--capability", "design-system: [tokens]"]).success());
    assert_eq!(field(&record, "Selected"), "frontend-engineer");
    assert_eq!(field(&record, "Tie-break rule applied"), "none");
    assert!(field(&record, "Reason").contains("covers none of the 1 requested qualifiers"));
}

#[test]
fn a_pick_must_be_tied_and_its_reason_must_not_be_load_balancing() {
    let tie = ["--capability", "api-design: [rest]"];
    route_example(
        &[
            &tie[..],
            &["--pick", "qa-engineer", "--reason", "knows tests"],
        ]
        .concat(),
    )
    .code(2)
    .stderr(predicate::str::contains(
        "not one of the tied agents (backend-engineer, fullstack-engineer)",
    ));
    route_example(
        &[
            &tie[..],
            &[
                "--pick",
                "backend-engineer",
                "--reason",
                "fewest current assignments",
            ],
        ]
        .concat(),
    )
    .code(2)
    .stderr(predicate::str::contains("load-balancing"));
    route_example(&[
        "--capability",
        "auth: [oauth2]",
        "--pick",
        "backend-engineer",
        "--reason",
        "x",
    ])
    .code(2)
    .stderr(predicate::str::contains(
        "no tie to break: qualifier-match selects `security-engineer`",
    ));
    route_example(&[&tie[..], &["--pick", "backend-engineer"]].concat()).code(2);
}

#[test]
fn the_three_layouts_give_the_same_bytes() {
    let args = [
        "--capability",
        "database: [postgres]",
        "--requester",
        "backend-engineer",
        "--task",
        "ENG-7",
    ];
    let from_files = stdout_of(&route_example(&args).success());
    let from_index = stdout_of(&route(&example_registry("capability-index.yaml"), &args).success());
    let from_plain = stdout_of(&route(&example_registry("registry.yaml"), &args).success());
    assert_eq!(from_files, from_index);
    assert_eq!(from_files, from_plain);
    assert_eq!(
        from_files,
        stdout_of(&route(&example_registry("agents"), &args).success()),
        "same run, same bytes"
    );
    assert_eq!(field(&from_files, "Selected"), "backend-engineer");
}

#[test]
fn json_has_every_key_even_for_a_tie() {
    let assert = route_example(&["--capability", "testing", "--format", "json"]).code(1);
    let value: serde_json::Value =
        serde_json::from_slice(&assert.get_output().stdout).expect("JSON output");
    assert_eq!(value["outcome"], "tied");
    assert_eq!(value["selected"], serde_json::Value::Null);
    assert_eq!(
        value["tied"],
        serde_json::json!([
            "backend-engineer",
            "frontend-engineer",
            "qa-engineer",
            "reality-checker"
        ])
    );
    for key in [
        "task_id",
        "requested_capability",
        "requester",
        "candidates",
        "reason",
        "rejected",
        "tie_break",
    ] {
        assert!(value.get(key).is_some(), "missing {key}");
    }
}

#[test]
fn without_aliases_variants_do_not_match_and_explicit_aliases_are_used() {
    let dir = tempfile::tempdir().expect("temp dir");
    let registry = dir.path().join("registry.yaml");
    fs::write(&registry, "agents:\n  - name: a\n    capabilities: {backend: [nodejs]}\n  - name: b\n    capabilities: {backend: [go]}\n")
        .expect("write registry");
    let plain = stdout_of(&route(&registry, &["--capability", "backend: [node]"]).code(1));
    assert!(plain.contains("tie"), "{plain}");
    let aliases = dir.path().join("my-aliases.yaml");
    fs::write(
        &aliases,
        "domains: [backend]\nqualifiers:\n  nodejs: [node]\n",
    )
    .expect("write aliases");
    let aliased = stdout_of(
        &route(
            &registry,
            &[
                "--capability",
                "backend: [NODE]",
                "--aliases",
                aliases.to_str().unwrap_or_default(),
            ],
        )
        .success(),
    );
    assert_eq!(field(&aliased, "Selected"), "a");
}

#[test]
fn a_malformed_agent_file_is_reported_with_file_and_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(
        dir.path().join("good.md"),
        "---\nname: good\ncapabilities:\n  - auth: [jwt]\n---\nbody\n",
    )
    .expect("write");
    fs::write(
        dir.path().join("bad.md"),
        "---\nname: bad\ncapabilities:\n  - auth: [jwt\n  - backend\n---\n",
    )
    .expect("write");
    route(dir.path(), &["--capability", "auth"]).code(2).stderr(
        predicate::str::contains("bad.md:6:1:")
            .and(predicate::str::contains("flow sequence at line 4")),
    );
    fs::write(dir.path().join("bad.md"), "---\nname: good\n---\n").expect("write");
    route(dir.path(), &["--capability", "auth"])
        .code(2)
        .stderr(predicate::str::contains(
            "good.md:2:1: agent `good` is declared by another file too",
        ));
    fs::write(dir.path().join("bad.md"), "no front matter\n").expect("write");
    route(dir.path(), &["--capability", "auth"])
        .code(2)
        .stderr(predicate::str::contains("bad.md:1:1: no YAML front matter"));
}

#[test]
fn a_registry_that_is_not_text_is_refused_and_an_unknown_requester_is_a_warning() {
    let dir = tempfile::tempdir().expect("temp dir");
    let registry = dir.path().join("registry.yaml");
    fs::write(&registry, b"agents:\n  - name: \xff\xfe\n").expect("write registry");
    route(&registry, &["--capability", "auth"])
        .code(2)
        .stderr(predicate::str::contains(
            "registry.yaml:2:11: is not UTF-8 text",
        ))
        .stderr(predicate::str::contains("save it as UTF-8"));
    route_example(&["--capability", "auth: [oauth2]", "--requester", "nobody"])
        .success()
        .stderr(predicate::str::contains(
            "requester `nobody` is not in the registry",
        ));
}

#[test]
fn the_seed_example_renders_byte_for_byte() {
    let args = [
        "--capability",
        "Auth: [OAuth, PKCE]",
        "--task",
        "ENG-042",
        "--requester",
        "backend-engineer",
    ];
    let expected = "## Routing Decision

| Field | Value |
|---|---|
| Task ID | ENG-042 |
| Requested capability | auth: [oauth2, pkce] |
| Matched agents | backend-engineer (auth: [jwt, middleware, session]), security-engineer (auth: [jwt, oauth2, saml, session]) |
| Selected | security-engineer |
| Reason | Qualifier match: covers oauth2 (1 of 2 requested qualifiers), more than any other candidate |
| Rejected | backend-engineer — qualifier-match: covers 0 of 2 requested qualifiers, the best cover 1 |
| Tie-break rule applied | qualifier-match |
| Requester | backend-engineer |
";
    route_example(&args).success().stdout(expected);
}

#[test]
fn user_templates_that_would_change_the_record_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(
        dir.path().join("routing-decision.md"),
        "## Routing Decision\n\n| Field | Value |\n|---|---|\n| Selected | someone-else |\n",
    )
    .expect("write template");
    route_example(&[
        "--capability",
        "auth: [oauth2]",
        "--templates",
        dir.path().to_str().unwrap_or_default(),
    ])
    .code(2)
    .stdout("");
}

#[test]
fn an_empty_registry_directory_is_a_bad_registry_not_an_escalation() {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join("notes.txt"), "not an agent\n").expect("write");
    route(dir.path(), &["--capability", "auth"])
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("holds no agent files"))
        .stderr(predicate::str::contains("one Markdown file per agent"));
    let records = example_registry("records");
    handoff()
        .arg("audit")
        .arg(&records)
        .arg("--registry")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds no agent files"));
}

/// What may make a request mean less than it says is a warning on standard error that
/// changes neither the decision nor the exit code: a qualifier that is an alias of
/// several, a requester not in the registry, a requester with no department.
#[test]
fn a_request_that_means_less_than_it_says_is_warned_about() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let registry = dir.path().join("registry.yaml");
    fs::write(
        &registry,
        "agents:\n  - name: lone-agent\n    capabilities:\n      backend: [python]\n",
    )
    .expect("the registry");
    let aliases = dir.path().join("aliases.yaml");
    fs::write(
        &aliases,
        "domains: [backend]\nqualifiers:\n  node.js: [nodejs, js]\n  javascript: [js]\n",
    )
    .expect("the aliases");
    let aliases = aliases.to_str().expect("a UTF-8 path");
    let warned = |args: &[&str]| {
        let assert = route(&registry, args).success();
        String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
    };
    let stderr = warned(&[
        "--aliases",
        aliases,
        "--capability",
        "backend: [js]",
        "--requester",
        "lone-agent",
    ]);
    assert_eq!(
        stderr,
        "warning: qualifier `js` is an alias of several qualifiers (javascript, node.js); \
         it is matched as written\n\
         warning: requester `lone-agent` has no department; department affinity cannot apply\n"
    );
    let stderr = warned(&[
        "--capability",
        "backend: [js]",
        "--requester",
        "Someone Else",
    ]);
    assert_eq!(
        stderr,
        "warning: requester `someone else` is not in the registry; department affinity \
         cannot apply\n"
    );
    assert_eq!(warned(&["--capability", "backend: [js]"]), "");
}
