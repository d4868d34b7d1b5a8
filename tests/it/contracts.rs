//! Every documented output, byte for byte: the `--format json` contracts of `parse`,
//! `lint`, `check`, `classify`, `policy show`, `route`, `audit` and `contract check` /
//! `next`, and the human, Markdown and HTML reports beside them, produced by the real
//! binary on real inputs (the examples, and git repositories built in temporary
//! directories). A change that alters one byte of a contract fails here and shows the
//! difference; `cargo insta review` accepts a change that is meant.

use crate::common::{handoff_in, TestRepo};
use std::path::Path;

/// The project's root: examples are passed as relative paths so outputs name them the
/// same on every machine.
fn project() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The exit code and standard output of `handoff args…` run in `dir`, with `dir` written
/// as `[DIR]` wherever the output names it.
fn run(dir: &Path, args: &[&str], stdin: Option<&str>) -> (i32, String) {
    let mut command = handoff_in(dir);
    command.args(args);
    if let Some(text) = stdin {
        command.write_stdin(text);
    }
    let output = command.output().expect("run handoff");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    let shown = stdout.replace(&dir.display().to_string(), "[DIR]");
    (output.status.code().expect("an exit code"), shown)
}

/// [`run`] in the project's root.
fn run_in_project(args: &[&str]) -> (i32, String) {
    run(project(), args, None)
}

/// Compares `exit N`, the output and an end marker with the snapshot `name` (the marker
/// keeps the output's trailing new lines, which a snapshot would otherwise trim).
fn snapshot(name: &str, (code, stdout): (i32, String)) {
    insta::assert_snapshot!(name, format!("exit {code}\n{stdout}[end of output]"));
}

#[test]
fn parse() {
    snapshot(
        "parse_json",
        run_in_project(&["parse", "--format", "json", "examples/"]),
    );
    snapshot(
        "parse_yaml",
        run_in_project(&["parse", "--format", "yaml", "examples/handoff.md"]),
    );
    snapshot(
        "parse_json_stdin_with_diagnostics",
        run(
            project(),
            &["parse", "--format", "json", "-"],
            Some(BROKEN_RECORD),
        ),
    );
}

/// A record with a malformed row, a duplicate key, an invalid value and placeholders.
const BROKEN_RECORD: &str = "# Notes\n\n## Interaction Record\n\n| Field | Value |\n|---|---|\n\
| Task ID | ENG-9 |\n| Task ID | ENG-10 |\n| Type | chat |\n| From | [sender agent name] |\n\
| To | reviewer | extra |\n| Risk Class | hgih |\n| Timestamp | yesterday |\n\n\
### Request\n\nTBD\n\n### Decision\n\nLooks fine to me, mostly.\n";

#[test]
fn lint() {
    snapshot(
        "lint_json",
        run_in_project(&[
            "lint",
            "--format",
            "json",
            "examples/",
            "tests/fixtures/seed/template.md",
            "tests/fixtures/seed/no-such-file.md",
        ]),
    );
    snapshot(
        "lint_json_stdin",
        run(
            project(),
            &["lint", "--format", "json", "-"],
            Some(BROKEN_RECORD),
        ),
    );
    snapshot(
        "lint_human",
        run(project(), &["lint", "-"], Some(BROKEN_RECORD)),
    );
}

#[test]
fn explain() {
    snapshot("explain_list", run_in_project(&["explain"]));
    snapshot(
        "explain_code",
        run_in_project(&["explain", "undeclared-file"]),
    );
}

/// A repository on branch `feature` over `main`: a high-risk change (auth, a migration,
/// a credential, an environment variable, a test) with a file outside the declared scope,
/// an incomplete Evidence Bundle and no sign-off.
fn risky_change() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.md", "# demo\n")
        .write("docs/guide.md", "# Guide\n\nHelo.\n")
        .write(
            "src/greet.rs",
            "pub fn greet() -> &'static str { \"hi\" }\n",
        )
        .write("src/auth/session.rs", "pub fn open() {}\n")
        .write(".handoff/eng-7.md", assignment_of(RISKY_RECORDS));
    repo.commit("base");
    repo.branch("feature");
    repo.write("docs/guide.md", "# Guide\n\nHello.\n")
        .write(
            "src/auth/session.rs",
            "pub fn open() {\n    let key = std::env::var(\"SESSION_KEY\");\n}\n",
        )
        .write(
            "src/greet.rs",
            "pub fn greet() -> &'static str { \"hello\" }\n",
        )
        .write(
            "db/migrate/001_add_users.rb",
            "class AddUsers < ActiveRecord::Migration[7.0]\nend\n",
        )
        .write("config/deploy.yml", "aws_key: AKIAIOSFODNN7EXAMPLF\n")
        .write("tests/session_test.rs", "#[test]\nfn opens() {}\n")
        .write(".handoff/eng-7.md", RISKY_RECORDS);
    repo.commit("feature");
    repo
}

/// The Task Assignment that `records` starts with: the orchestrator files it on `main`
/// before the work starts, where the base's records may assign a task.
fn assignment_of(records: &str) -> &str {
    records
        .find("## Interaction Record")
        .map_or(records, |end| &records[..end])
}

const RISKY_RECORDS: &str = "## Task Assignment\n\n| Field | Value |\n|---|---|\n\
| Task ID | ENG-7 |\n| Assigned to | backend-engineer |\n\
| Expected file scope | [docs/, src/auth/, db/migrate/, tests/, config/] |\n| Risk Class | medium |\n\n\
### Acceptance Criteria\n\n- AC1: sessions open with the key from the environment\n- AC2: the guide is spelled right\n\n\
## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-7 |\n| Type | review |\n\
| From | backend-engineer |\n| To | reality-checker |\n| Risk Class | medium |\n\n\
### Context\n\nSessions read their key from the environment.\n\n### Evidence Bundle\n\n\
- **Files changed**: `docs/guide.md`, `src/auth/session.rs`, `src/old.rs`\n\
- **Test mapping**: AC1 → `opens` passes\n\
- **Before/after**: the key was hard-coded\n\
- **Migrations**: none\n\
- **Rollback plan**: TBD\n\n\
### Decision\n\nChanges requested: add a test for a missing key.\nReviewer: reality-checker\n";

/// A repository whose `feature` branch fixes a typo with a complete low-risk bundle.
fn passing_change() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.md", "# demo\n")
        .write("docs/guide.md", "# Guide\n\nHelo.\n")
        .write(".handoff/eng-8.md", assignment_of(PASSING_RECORDS));
    repo.commit("base");
    repo.branch("feature");
    repo.write("docs/guide.md", "# Guide\n\nHello.\n")
        .write(".handoff/eng-8.md", PASSING_RECORDS);
    repo.commit("fix the guide");
    repo
}

const PASSING_RECORDS: &str = "## Task Assignment\n\n| Field | Value |\n|---|---|\n\
| Task ID | ENG-8 |\n| Assigned to | docs-writer |\n| Expected file scope | [docs/] |\n| Risk Class | low |\n\n\
## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-8 |\n| Type | review |\n\
| From | docs-writer |\n| To | qa-engineer |\n| Risk Class | low |\n\n\
### Evidence Bundle\n\n- **Files changed**: `docs/guide.md`\n- **Description**: Fix a typo in the guide.\n";

#[test]
fn check() {
    let risky = risky_change();
    let dir = risky.path();
    let base = ["check", "--base", "main"];
    snapshot(
        "check_reject_json",
        run(dir, &[&base[..], &["--format", "json"]].concat(), None),
    );
    snapshot("check_reject_human", run(dir, &base, None));
    snapshot(
        "check_reject_markdown",
        run(dir, &[&base[..], &["--format", "markdown"]].concat(), None),
    );
    let passing = passing_change();
    let dir = passing.path();
    snapshot(
        "check_pass_json",
        run(dir, &[&base[..], &["--format", "json"]].concat(), None),
    );
    snapshot("check_pass_human", run(dir, &base, None));
    snapshot(
        "check_pass_markdown",
        run(dir, &[&base[..], &["--format", "markdown"]].concat(), None),
    );
}

#[test]
fn classify() {
    let risky = risky_change();
    let dir = risky.path();
    snapshot(
        "classify_json",
        run(
            dir,
            &[
                "classify",
                "--base",
                "main",
                "--declared",
                "medium",
                "--format",
                "json",
            ],
            None,
        ),
    );
    snapshot(
        "classify_human",
        run(dir, &["classify", "--base", "main"], None),
    );
}

const POLICY: &str = "records_dir: meta/records/\nexclude: [vendor/, '*.lock']\n\
triggers:\n  auth:\n    add_paths: ['src/guards/**']\n    remove_paths: [auth.path.session]\n    add_lines: ['checkAccess\\(']\n\
custom_triggers:\n  - name: infra\n    class: high\n    paths: ['terraform/']\n    lines: ['aws_instance']\n\
evidence:\n  aliases:\n    rollback-plan: [undo plan]\n\
reviewers:\n  high: [security-engineer]\n  unavailable: [qa-engineer]\n";

#[test]
fn policy_show() {
    let (repo, _) = TestRepo::with_files(&[("README.md", "# demo\n"), ("policy.yaml", POLICY)]);
    let dir = repo.path();
    snapshot(
        "policy_show_defaults_json",
        run(dir, &["policy", "show", "--format", "json"], None),
    );
    snapshot(
        "policy_show_defaults_human",
        run(dir, &["policy", "show"], None),
    );
    snapshot(
        "policy_show_file_json",
        run(
            dir,
            &[
                "policy",
                "show",
                "--policy",
                "policy.yaml",
                "--format",
                "json",
            ],
            None,
        ),
    );
    snapshot(
        "policy_show_file_human",
        run(dir, &["policy", "show", "--policy", "policy.yaml"], None),
    );
}

#[test]
fn route() {
    let registry = ["route", "--registry", "examples/registry"];
    let route = |args: &[&str]| run_in_project(&[&registry[..], args].concat());
    snapshot(
        "route_selected_json",
        route(&[
            "--capability",
            "auth: [OAuth 2, pkce]",
            "--task",
            "ENG-042",
            "--requester",
            "frontend-engineer",
            "--format",
            "json",
        ]),
    );
    snapshot(
        "route_selected_md",
        route(&["--capability", "auth: [OAuth 2, pkce]", "--task", "ENG-042"]),
    );
    snapshot(
        "route_tied_json",
        route(&["--capability", "api-design: [rest]", "--format", "json"]),
    );
    snapshot(
        "route_tied_md",
        route(&["--capability", "api-design: [rest]"]),
    );
    snapshot(
        "route_documented_choice_json",
        route(&[
            "--capability",
            "api-design: [rest]",
            "--pick",
            "fullstack-engineer",
            "--reason",
            "owns the UI half of the endpoint",
            "--format",
            "json",
        ]),
    );
    snapshot(
        "route_no_candidates_json",
        route(&["--capability", "ml: [pytorch]", "--format", "json"]),
    );
    snapshot(
        "route_no_candidates_md",
        route(&["--capability", "ml: [pytorch]"]),
    );
}

#[test]
fn audit() {
    let audit = [
        "audit",
        "examples/registry/records",
        "--registry",
        "examples/registry",
    ];
    let audit_as = |format: &str| run_in_project(&[&audit[..], &["--format", format]].concat());
    snapshot("audit_json", audit_as("json"));
    snapshot("audit_human", audit_as("human"));
    snapshot("audit_md", audit_as("md"));
    // The page's date and commit change with every run: masked.
    let (code, page) = audit_as("html");
    let when = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").expect("a regex");
    let commit = regex::Regex::new(r"commit <code>[0-9a-f]+</code>").expect("a regex");
    let page = when.replace_all(&page, "[DATE]");
    let page = commit.replace_all(&page, "commit <code>[COMMIT]</code>");
    snapshot("audit_html", (code, page.into_owned()));
    snapshot(
        "audit_without_registry_json",
        run_in_project(&["audit", "examples/", "--format", "json"]),
    );
}

/// An agent's output ending in an `agent_contract_handoff` block.
fn agent_output(status: &str, agent_id: &str, verification: &str) -> String {
    format!(
        "Done with the endpoint.\n\n```agent_contract_handoff\n{{\n  \"agent_status\": {{\"plan_status\": \"{status}\", \"agent_id\": \"{agent_id}\", \"pending_steps\": [], \"next_action\": \"hand over\"}},\n  \"evidence_report\": {{\n    \"patterns_checked\": [], \"files_checked\": [\"src/api.rs\"], \"commands_run\": [\"cargo test\"], \"key_outputs\": [\"12 passed\"],\n    \"verbatim_outputs\": [], \"cross_layer_impacts\": [\"web client\"], \"open_gaps\": [],\n    \"verification\": {{\"result\": \"{verification}\", \"details\": \"cargo test: 12 passed\"}}\n  }}\n}}\n```\n"
    )
}

#[test]
fn contract() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dir = dir.path();
    let check = ["contract", "check", "--format", "json"];
    let valid = agent_output("COMPLETE", "a1b2c3d4e5", "pass");
    let invalid = agent_output("DONE", "", "maybe");
    snapshot("contract_check_valid_json", run(dir, &check, Some(&valid)));
    snapshot(
        "contract_check_invalid_json",
        run(
            dir,
            &[&check[..], &["--task-agent-id", "f00d"]].concat(),
            Some(&invalid),
        ),
    );
    snapshot(
        "contract_check_no_block_json",
        run(dir, &check, Some("I am done, trust me.\n")),
    );
    snapshot(
        "contract_check_invalid_human",
        run(dir, &["contract", "check"], Some(&invalid)),
    );
    snapshot(
        "contract_check_no_block_human",
        run(dir, &["contract", "check"], Some("I am done, trust me.\n")),
    );
    let next = [
        "contract",
        "next",
        "--state",
        "agents.json",
        "--format",
        "json",
    ];
    let in_progress = agent_output("IN_PROGRESS", "a1b2c3d4e5", "pass");
    snapshot(
        "contract_next_in_progress_json",
        run(dir, &next, Some(&in_progress)),
    );
    snapshot("contract_next_complete_json", run(dir, &next, Some(&valid)));
    snapshot(
        "contract_next_after_complete_json",
        run(dir, &next, Some(&in_progress)),
    );
    snapshot(
        "contract_next_invalid_json",
        run(
            dir,
            &["contract", "next", "--agents", "3", "--format", "json"],
            Some(&invalid),
        ),
    );
    snapshot(
        "contract_next_human",
        run(dir, &["contract", "next", "--agents", "2"], Some(&valid)),
    );
    let state = std::fs::read_to_string(dir.join("agents.json")).expect("the state file");
    snapshot("contract_state_file", (0, without_clock(&state)));
}

/// The state file with each `last_updated` time (seconds since the epoch) written as
/// `[time]`.
fn without_clock(state: &str) -> String {
    let key = "\"last_updated\": ";
    state
        .split_inclusive('\n')
        .map(|line| match line.find(key) {
            Some(at) => {
                let end = line[at..].find([',', '\n']).map_or(line.len(), |e| at + e);
                format!("{}[time]{}", &line[..at + key.len()], &line[end..])
            }
            None => line.to_string(),
        })
        .collect()
}

/// Messages with problems of every place: a schema error deep in a 002 handoff, a rule
/// beyond the schema, a warning, a document that is not JSON, and valid messages.
const BAD_MESSAGES: &str = r#"{"handoff": {"id": "ho_1", "timestamp": "2026-01-11T20:30:00Z", "from_agent": "a", "to_agent": "b", "type": "relay", "reason": "r", "context": {"task_id": "T-1"}}}
{"handoff": {"id": "ho_2", "timestamp": "2026-01-11T20:30:00+02:00", "from_agent": "a", "to_agent": "b", "type": "delegation", "reason": "r", "context": {"task_id": "T-1"}}}
{"handoff_id": "ho_3", "timestamp": "2026-01-11T20:30:00Z", "source": {"agent": "a"}, "target": {"agent": "b", "reason": "r"}, "metadata": {"workflow_id": "wf_1"}}
{"handoff_id": "ho_3", "status": "accepted", "reason": "ok", "acknowledged_at": "2026-01-11T20:31:00Z"}
"#;

#[test]
fn message_check() {
    let chain = "tests/fixtures/trail/chain-004.jsonl";
    snapshot(
        "message_check_json",
        run(
            project(),
            &["message", "check", "--format", "json", "-", chain],
            Some(BAD_MESSAGES),
        ),
    );
    snapshot(
        "message_check_human",
        run(
            project(),
            &["message", "check", "-", chain],
            Some(BAD_MESSAGES),
        ),
    );
    snapshot(
        "message_check_not_json_json",
        run(
            project(),
            &["message", "check", "--format", "json"],
            Some("{not: [json"),
        ),
    );
}

/// A copy of the 004 example chain's trail (tests/fixtures/trail/chain-004) in a
/// temporary directory, with `edit` applied to its segment.
fn chain_trail(edit: impl Fn(String) -> String) -> tempfile::TempDir {
    let fixture = project().join("tests/fixtures/trail/chain-004");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let trail = dir.path().join("trail");
    std::fs::create_dir(&trail).expect("the trail directory");
    for entry in std::fs::read_dir(&fixture).expect("the fixture trail") {
        let path = entry.expect("an entry").path();
        let text = std::fs::read_to_string(&path).expect("a fixture file");
        let name = path.file_name().expect("a file name");
        let text = match path.extension().is_some_and(|e| e == "jsonl") {
            true => edit(text),
            false => text,
        };
        std::fs::write(trail.join(name), text).expect("a copy");
    }
    dir
}

#[test]
fn trail_verify() {
    let intact = chain_trail(|text| text);
    for (name, format) in [
        ("trail_verify_human", "human"),
        ("trail_verify_json", "json"),
    ] {
        snapshot(
            name,
            run(
                intact.path(),
                &["trail", "verify", "--trail", "trail", "--format", format],
                None,
            ),
        );
    }
    // One event edited, one deleted, and the last one cut off.
    let broken = chain_trail(|text| {
        let lines: Vec<&str> = text.lines().collect();
        let mut kept: Vec<String> = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            match index {
                4 => kept.push(line.replace("auto-code", "auto-c0de")),
                9 => {}
                _ if index == lines.len() - 1 => {}
                _ => kept.push(line.to_string()),
            }
        }
        kept.join("\n") + "\n"
    });
    for (name, format) in [
        ("trail_verify_broken_human", "human"),
        ("trail_verify_broken_json", "json"),
    ] {
        snapshot(
            name,
            run(
                broken.path(),
                &["trail", "verify", "--trail", "trail", "--format", format],
                None,
            ),
        );
    }
}

#[test]
fn trail_query() {
    let trail = chain_trail(|text| text);
    for (name, args) in [
        ("trail_query_task_jsonl", &["--task", "TM-7"][..]),
        (
            "trail_query_handoff_json",
            &["--handoff", "ho_003", "--format", "json"][..],
        ),
        (
            "trail_query_agent_human",
            &["--agent", "qa", "--format", "human"][..],
        ),
        (
            "trail_query_nothing_json",
            &["--task", "NO-SUCH", "--format", "json"][..],
        ),
    ] {
        let mut full = vec!["trail", "query", "--trail", "trail"];
        full.extend_from_slice(args);
        snapshot(name, run(trail.path(), &full, None));
    }
}

#[test]
fn trail_views() {
    let trail = chain_trail(|text| text);
    for (name, args) in [
        ("trail_show_human", &["show", "ho_002"][..]),
        ("trail_show_failed_human", &["show", "ho_003"][..]),
        (
            "trail_show_json",
            &["show", "ho_002", "--format", "json"][..],
        ),
        (
            "trail_list_human",
            &["list", "--now", "2026-01-11T10:30:00Z"][..],
        ),
        (
            "trail_list_all_json",
            &[
                "list",
                "--all",
                "--now",
                "2026-01-11T10:30:00Z",
                "--format",
                "json",
            ][..],
        ),
        (
            "trail_list_markdown",
            &[
                "list",
                "--agent",
                "ciso",
                "--now",
                "2026-01-11T10:30:00Z",
                "--format",
                "markdown",
            ][..],
        ),
        ("trail_history_human", &["history", "--task", "TM-7"][..]),
        (
            "trail_history_mermaid",
            &[
                "history",
                "--workflow",
                "wf_conductor_123",
                "--format",
                "mermaid",
            ][..],
        ),
        (
            "trail_history_json",
            &["history", "--task", "TM-7", "--format", "json"][..],
        ),
    ] {
        let mut full = vec!["trail", "--trail", "trail"];
        full.extend_from_slice(args);
        snapshot(name, run(trail.path(), &full, None));
    }
}
