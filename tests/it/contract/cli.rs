//! The real binary: exit codes, the JSON contract, human repair lines, input limits and
//! the state file.

use crate::common::handoff;
use predicates::prelude::*;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;
use tempfile::TempDir;

fn contract(status: &str) -> Value {
    json!({
        "agent_status": {"plan_status": status, "agent_id": "a1b2c3d4e5", "pending_steps": [], "next_action": "continue"},
        "evidence_report": {
            "patterns_checked": [], "files_checked": [], "commands_run": [], "key_outputs": ["k"],
            "verbatim_outputs": [], "cross_layer_impacts": [], "open_gaps": [],
            "verification": {"result": "pass", "details": "ok"}
        }
    })
}

fn output(contract: &Value) -> String {
    format!("Work done.\n\n```agent_contract_handoff\n{contract:#}\n```\n")
}

fn write(dir: &TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    fs::write(&path, bytes).expect("write fixture");
    path.display().to_string()
}

fn stdout_json(assert: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_slice(&assert.get_output().stdout).expect("stdout is JSON")
}

#[test]
fn check_json_has_the_spec_fields_in_order() {
    let dir = TempDir::new().expect("tempdir");
    let file = write(&dir, "out.md", output(&contract("COMPLETE")).as_bytes());
    let assert = handoff()
        .args(["contract", "check", &file, "--format", "json"])
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let keys = [
        "valid",
        "severity",
        "missing",
        "invalid",
        "warnings",
        "evidence_required",
        "consolidation_required",
        "recommended_action",
        "plan_status",
        "agent_id",
        "advisories",
    ];
    let positions: Vec<usize> = keys
        .iter()
        .map(|key| {
            text.find(&format!("\"{key}\""))
                .unwrap_or_else(|| panic!("{key} missing in {text}"))
        })
        .collect();
    assert!(
        positions.windows(2).all(|pair| pair[0] < pair[1]),
        "field order: {text}"
    );
    let value = stdout_json(&assert);
    assert_eq!(value.as_object().map(|o| o.len()), Some(keys.len()));
    assert_eq!(value["valid"], true);
    assert_eq!(value["plan_status"], "COMPLETE");
}

#[test]
fn check_human_output_says_what_to_add_and_where() {
    let mut broken = contract("DONE");
    broken["agent_status"]["agent_id"] = json!("");
    broken["approval_request"] = json!({"operation": "apply", "verification": "v"});
    handoff()
        .args(["contract", "check", "-", "--task-agent-id", "a12345"])
        .write_stdin(output(&broken))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("contract not valid: 3 to repair (recommended action: resume_same_agent_contract_repair)"))
        .stdout(predicate::str::contains(
            "missing AGENT_ID: add \"agent_status.agent_id\": your agent id",
        ))
        .stdout(predicate::str::contains(
            "missing APPROVAL_REQUEST_ROLLBACK: add \"approval_request.rollback\"",
        ))
        .stdout(predicate::str::contains(
            "invalid PLAN_STATUS:DONE: set \"agent_status.plan_status\" to one of IN_PROGRESS, APPROVAL_REQUEST, COMPLETE, BLOCKED, NEEDS_INPUT (found 'DONE')",
        ))
        .stdout(predicate::str::contains("warning APPROVAL_REQUEST_FIELD_MISSING:scope: add \"approval_request.scope\""));
}

#[test]
fn check_without_a_block_prints_the_reason_and_a_template() {
    handoff()
        .args(["contract", "check"])
        .write_stdin("```agent_contract_handoff\nagent_status: {plan_status: COMPLETE}\n```\n")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("block on line 1 is not JSON"))
        .stdout(predicate::str::contains("\"evidence_report\": {"))
        .stdout(predicate::str::contains(
            "missing PLAN_STATUS: add \"agent_status.plan_status\"",
        ));
    let assert = handoff()
        .args(["contract", "check", "--format", "json"])
        .write_stdin("no block here")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "no ```agent_contract_handoff block found",
        ));
    let value = stdout_json(&assert);
    assert_eq!(
        value["missing"],
        json!([
            "AGENT_STATUS",
            "PLAN_STATUS",
            "PENDING_STEPS",
            "NEXT_ACTION",
            "AGENT_ID"
        ])
    );
    assert_eq!(value["recommended_action"], "escalate_contract_repair");
}

#[test]
fn consolidation_flag_requires_the_report() {
    let assert = handoff()
        .args([
            "contract",
            "check",
            "--consolidation-required",
            "--format",
            "json",
        ])
        .write_stdin(output(&contract("IN_PROGRESS")))
        .assert()
        .code(1);
    let value = stdout_json(&assert);
    assert_eq!(value["consolidation_required"], true);
    assert_eq!(value["missing"][0], "CONSOLIDATION_REPORT");
}

#[test]
fn unreadable_and_oversized_inputs_exit_2() {
    let dir = TempDir::new().expect("tempdir");
    let missing = dir.path().join("absent.md").display().to_string();
    handoff()
        .args(["contract", "check", &missing])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("absent.md: cannot read"))
        .stderr(predicate::str::contains(
            "pass the file holding the agent's output",
        ));
    let directory = dir.path().display().to_string();
    handoff()
        .args(["contract", "next", &directory])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "{directory}: cannot read"
        )))
        .stderr(predicate::str::contains("or `-` for standard input"));
    let huge = vec![b'x'; 32 * 1024 * 1024 + 1];
    let file = write(&dir, "huge.md", &huge);
    handoff()
        .args(["contract", "next", &file])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("32 MiB"));
}

#[test]
fn next_follows_the_decision_table() {
    let mut approval = contract("APPROVAL_REQUEST");
    approval["approval_request"] = json!({
        "operation": "apply", "exact_content": "terraform apply", "scope": "prod",
        "risk_level": "HIGH", "rollback": "destroy", "verification": "plan clean", "approval_id": "apr-9"
    });
    let assert = handoff()
        .args(["contract", "next", "--format", "json"])
        .write_stdin(output(&approval))
        .assert()
        .code(0);
    let value = stdout_json(&assert);
    assert_eq!(value["action"], "present_approval");
    assert_eq!(value["approval_id"], "apr-9");
    handoff()
        .args(["contract", "next"])
        .write_stdin(output(&contract("COMPLETE")))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("close (COMPLETE from a1b2c3d4e5)"))
        .stdout(predicate::str::contains("verification: pass"));
    handoff()
        .args(["contract", "next"])
        .write_stdin("prose without a contract")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("escalate_contract_repair"))
        .stdout(predicate::str::contains(
            "end the response with a ```agent_contract_handoff block",
        ));
}

#[test]
fn next_routes_a_repair_with_the_task_agent_id() {
    let assert = handoff()
        .args([
            "contract",
            "next",
            "--format",
            "json",
            "--task-agent-id",
            "a0f1e2d3",
        ])
        .write_stdin("prose without a contract")
        .assert()
        .code(1);
    assert_eq!(stdout_json(&assert)["action"], "resume_contract_repair");
}

#[test]
fn next_rejects_zero_agents() {
    handoff()
        .args(["contract", "next", "--agents", "0"])
        .write_stdin("x")
        .assert()
        .code(2);
}

/// `handoff contract next --state <state>`, then `args`, given an output with `status`.
fn next_with_state_file(state: &Path, status: &str, args: &[&str]) -> assert_cmd::assert::Assert {
    handoff()
        .args(["contract", "next", "--state"])
        .arg(state)
        .args(args)
        .write_stdin(output(&contract(status)))
        .assert()
}

fn next_with_state(state: &Path, status: &str) -> Value {
    let assert = next_with_state_file(state, status, &["--format", "json"]);
    let code = assert.get_output().status.code();
    let mut value = stdout_json(&assert);
    value["exit"] = json!(code);
    value
}

#[test]
fn the_state_file_caps_consecutive_in_progress_at_two() {
    let dir = TempDir::new().expect("tempdir");
    let state = dir.path().join("agents.json");
    let first = next_with_state(&state, "in_progress");
    assert_eq!(
        (first["action"].clone(), first["exit"].clone()),
        (json!("resume"), json!(0))
    );
    assert_eq!(first["transition"]["in_progress_count"], 1);
    let second = next_with_state(&state, "IN_PROGRESS");
    assert_eq!(second["transition"]["in_progress_count"], 2);
    assert!(second["instructions"]
        .to_string()
        .contains("Next IN_PROGRESS will be rejected"));
    let third = next_with_state(&state, "IN_PROGRESS");
    assert_eq!(
        (third["action"].clone(), third["exit"].clone()),
        (json!("escalate_stall"), json!(1))
    );
    assert_eq!(third["transition"]["outcome"], "stalled");
    let recorded: Value = serde_json::from_str(&fs::read_to_string(&state).expect("state written"))
        .expect("state is JSON");
    assert_eq!(recorded["a1b2c3d4e5"]["state"], "IN_PROGRESS");
    assert_eq!(
        recorded["a1b2c3d4e5"]["in_progress_count"], 2,
        "a rejected status is not recorded"
    );
    let blocked = next_with_state(&state, "BLOCKED");
    assert_eq!(
        (blocked["action"].clone(), blocked["exit"].clone()),
        (json!("present_blockers"), json!(0))
    );
}

#[test]
fn an_illegal_transition_is_rejected_and_other_records_are_kept() {
    let dir = TempDir::new().expect("tempdir");
    let state = dir.path().join("agents.json");
    let other = json!({"a999999": {"state": "BLOCKED", "in_progress_count": 0, "saw_review": true, "team": "infra"}});
    fs::write(&state, other.to_string()).expect("seed state");
    assert_eq!(next_with_state(&state, "APPROVAL_REQUEST")["exit"], 0);
    let illegal = next_with_state(&state, "COMPLETE");
    assert_eq!(
        (illegal["action"].clone(), illegal["exit"].clone()),
        (json!("reject_transition"), json!(1))
    );
    assert!(illegal["instructions"][0]
        .as_str()
        .is_some_and(|s| s.starts_with("Illegal state transition: APPROVAL_REQUEST -> COMPLETE. Allowed from APPROVAL_REQUEST: IN_PROGRESS.")));
    let recorded: Value =
        serde_json::from_str(&fs::read_to_string(&state).expect("state")).expect("JSON");
    assert_eq!(recorded["a999999"], other["a999999"]);
    assert_eq!(recorded["a1b2c3d4e5"]["state"], "APPROVAL_REQUEST");
    let mut leftovers: Vec<_> = fs::read_dir(dir.path())
        .expect("list")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    leftovers.sort();
    assert_eq!(
        leftovers,
        ["agents.json", "agents.json.lock"],
        "no temporary files left behind, the lock file stays"
    );
}

#[test]
fn a_corrupt_state_file_is_an_error_naming_it() {
    let dir = TempDir::new().expect("tempdir");
    let state = dir.path().join("agents.json");
    fs::write(&state, "{\"a1b2c3d4e5\": {\"state\": \"IN_PROGRESS\",").expect("seed");
    next_with_state_file(&state, "IN_PROGRESS", &[])
        .code(2)
        .stderr(predicate::str::contains("agents.json is corrupt"))
        .stderr(predicate::str::contains(
            "delete it to start tracking afresh",
        ));
    fs::write(&state, "{\"a1b2c3d4e5\": {\"state\": 3}}").expect("seed");
    next_with_state_file(&state, "IN_PROGRESS", &[])
        .code(2)
        .stderr(predicate::str::contains(
            "record of agent \"a1b2c3d4e5\" has no string \"state\"",
        ));
}

#[test]
fn an_invalid_contract_does_not_touch_the_state_file() {
    let dir = TempDir::new().expect("tempdir");
    let state = dir.path().join("agents.json");
    next_with_state_file(&state, "FINISHED", &[])
        .code(1)
        .stdout(predicate::str::contains("resume_contract_repair"));
    assert!(!state.exists());
}

/// The whole human report, pinned: the wording an agent reads to repair its contract.
#[test]
fn human_reports_are_stable() {
    let mut broken = contract("COMPLETE");
    broken["agent_status"]["pending_steps"] = Value::Null;
    broken["evidence_report"]["verification"]["result"] = json!("fail");
    broken["evidence_report"]
        .as_object_mut()
        .map(|evidence| evidence.remove("open_gaps"));
    broken["approval_request"] =
        json!({"rollback": "git revert", "verification": "v", "risk_level": "urgent"});
    broken["loop_state"] =
        json!({"iteration": 1, "max_iterations": 3, "metric": 0.25, "threshold": 1});
    broken["memory_suggestions"] = json!("remember this");
    let check = handoff()
        .args(["contract", "check", "--consolidation-required"])
        .write_stdin(output(&broken))
        .assert()
        .code(1);
    insta::assert_snapshot!(
        "check_human",
        String::from_utf8_lossy(&check.get_output().stdout)
    );
    let next = handoff()
        .args(["contract", "next"])
        .write_stdin(output(&broken))
        .assert()
        .code(1);
    insta::assert_snapshot!(
        "next_human",
        String::from_utf8_lossy(&next.get_output().stdout)
    );
}

#[cfg(unix)]
#[test]
fn the_state_file_is_replaced_through_its_link_with_its_permissions() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = TempDir::new().expect("tempdir");
    let target = dir.path().join("agents.json");
    fs::write(&target, "{}\n").expect("write the state file");
    fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).expect("chmod");
    let link = dir.path().join("state-link.json");
    symlink(&target, &link).expect("symlink");
    let input = write(&dir, "out.md", output(&contract("IN_PROGRESS")).as_bytes());
    handoff()
        .args(["contract", "next", "--state"])
        .arg(&link)
        .arg(&input)
        .assert()
        .code(0);
    let link_type = fs::symlink_metadata(&link).expect("the link").file_type();
    assert!(link_type.is_symlink(), "the link stays a link");
    let mode = fs::metadata(&target)
        .expect("the state file")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the permissions are kept");
    let state = fs::read_to_string(&target).expect("the state file");
    assert!(state.contains("\"IN_PROGRESS\""), "{state}");
}

/// An output whose contract reports `status` for agent `agent`.
fn output_for(agent: &str, status: &str) -> String {
    let mut contract = contract(status);
    contract["agent_status"]["agent_id"] = json!(agent);
    output(&contract)
}

#[test]
fn other_content_of_the_state_file_is_kept_byte_for_byte() {
    let dir = TempDir::new().expect("tempdir");
    let state = dir.path().join("agents.json");
    let zeta = r#"{"state": "BLOCKED", "n": 123456789012345678901234567890, "f": 1.10, "tiny": 1e-400, "order": {"z": 1, "a": 2}}"#;
    let alpha = "{\n    \"state\":\"COMPLETE\" ,\"huge\": -98765432109876543210.5e300\n  }";
    let own = r#"{"team": "x", "state": "IN_PROGRESS", "in_progress_count": 1, "big": 18446744073709551616, "last_updated": 5}"#;
    fs::write(
        &state,
        format!("{{\"zeta\": {zeta}, \"alpha\": {alpha}, \"a1b2c3d4e5\": {own}}}"),
    )
    .expect("seed state");
    assert_eq!(next_with_state(&state, "IN_PROGRESS")["exit"], 0);
    let written = fs::read_to_string(&state).expect("state");
    let (at_zeta, at_alpha, at_own) = (
        written.find(zeta).expect("zeta kept exactly"),
        written.find(alpha).expect("alpha kept exactly"),
        written.find("\"a1b2c3d4e5\"").expect("the agent"),
    );
    assert!(at_zeta < at_alpha && at_alpha < at_own, "{written}");
    let own_written = &written[at_own..];
    let keys: Vec<usize> = ["team", "state", "in_progress_count", "big", "last_updated"]
        .iter()
        .map(|key| {
            own_written
                .find(&format!("\"{key}\""))
                .expect("each key kept")
        })
        .collect();
    assert!(
        keys.windows(2).all(|pair| pair[0] < pair[1]),
        "{own_written}"
    );
    assert!(
        own_written.contains("\"big\": 18446744073709551616"),
        "{own_written}"
    );
    assert!(
        own_written.contains("\"in_progress_count\": 2"),
        "{own_written}"
    );
    assert!(
        !own_written.contains("\"last_updated\": 5"),
        "{own_written}"
    );
}

/// Starts `handoff contract next --state` once per output, all at once, and waits for
/// every one: their exit codes.
fn run_concurrently(state: &Path, outputs: &[String]) -> Vec<Option<i32>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let binary = assert_cmd::cargo::cargo_bin("handoff");
    let children: Vec<_> = outputs
        .iter()
        .map(|output| {
            let mut child = Command::new(&binary)
                .args(["contract", "next", "--format", "json", "--state"])
                .arg(state)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .expect("start handoff");
            (child.stdin.take(), child, output)
        })
        .collect();
    children
        .into_iter()
        .map(|(stdin, mut child, output)| {
            if let Some(mut stdin) = stdin {
                stdin
                    .write_all(output.as_bytes())
                    .expect("write the output");
            }
            child.wait().expect("handoff ends").code()
        })
        .collect()
}

#[test]
fn concurrent_runs_lose_no_update() {
    let dir = TempDir::new().expect("tempdir");
    let state = dir.path().join("agents.json");
    let agents: Vec<String> = (0..12).map(|n| format!("a{n:02}ffee")).collect();
    let outputs: Vec<String> = agents
        .iter()
        .map(|agent| output_for(agent, "IN_PROGRESS"))
        .collect();
    let codes = run_concurrently(&state, &outputs);
    assert!(codes.iter().all(|code| *code == Some(0)), "{codes:?}");
    let recorded: Value =
        serde_json::from_str(&fs::read_to_string(&state).expect("state")).expect("JSON");
    for agent in &agents {
        assert_eq!(
            recorded[agent]["state"], "IN_PROGRESS",
            "{agent} in {recorded}"
        );
    }
    // One agent, three turns at once: they queue, so the third is the stall, whichever
    // process it is.
    let same = vec![output_for("ab0ffee", "IN_PROGRESS"); 3];
    let mut codes = run_concurrently(&state, &same);
    codes.sort();
    assert_eq!(codes, [Some(0), Some(0), Some(1)]);
    let recorded: Value =
        serde_json::from_str(&fs::read_to_string(&state).expect("state")).expect("JSON");
    assert_eq!(recorded["ab0ffee"]["in_progress_count"], 2);
    assert_eq!(recorded.as_object().map(|agents| agents.len()), Some(13));
}
