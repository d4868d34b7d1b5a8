//! `handoff message check` and `handoff trail append` on the seeds' own messages, and
//! bad input of every kind: each a clear error naming the file and line, and nothing in
//! the trail lost or rewritten.

use super::{fixture, run_in, TestTrail};
use serde_json::Value;

fn check(args: &[&str]) -> super::Run {
    let mut full = vec!["message", "check"];
    full.extend_from_slice(args);
    run_in(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        &full,
        None,
    )
}

fn path(name: &str) -> String {
    fixture(name).to_string_lossy().into_owned()
}

#[test]
fn the_seeds_example_messages_are_valid() {
    for name in [
        "004-handoff.json",
        "004-completion.json",
        "004-failure.json",
        "002-handoff.yaml",
    ] {
        let run = check(&[&path(name)]);
        assert_eq!(run.code, 0, "{name}: {}", run.stdout);
        assert!(run.stdout.contains("0 error(s)"), "{}", run.stdout);
    }
    let kinds = check(&[
        &path("004-handoff.json"),
        &path("004-completion.json"),
        &path("004-failure.json"),
        &path("002-handoff.yaml"),
        "--format",
        "json",
    ]);
    let reports: Value = serde_json::from_str(&kinds.stdout).expect("JSON");
    let names: Vec<&str> = reports
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| r["messages"][0]["kind"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["handoff-004", "completion", "failure", "handoff"]);
    // 004's handoff names no task: filed under its workflow, with a warning.
    let warning = check(&[&path("004-handoff.json")]).stdout;
    assert!(warning.contains("warning[task-from-workflow]"), "{warning}");
}

#[test]
fn seed_004s_messages_run_end_to_end() {
    let read = |name: &str| std::fs::read_to_string(fixture(name)).expect("fixture");
    for (outcome, message) in [
        ("completed", "004-completion.json"),
        ("failed", "004-failure.json"),
    ] {
        let trail = TestTrail::new();
        let opened = trail.append(&read("004-handoff.json"));
        assert_eq!(opened.code, 0, "{}", opened.stderr);
        assert!(
            opened
                .stdout
                .contains("seq 0 initiated ho_abc123 (architect -> auto-code"),
            "{}",
            opened.stdout
        );
        // The receiver acknowledges (004's handoff_received) before it reports back.
        let early = trail.append(&read(message));
        assert_eq!(early.code, 1, "{}", early.stderr);
        assert!(
            early
                .stderr
                .contains("legal next: accepted, rejected, timeout"),
            "{}",
            early.stderr
        );
        trail.ok(&["accept", "ho_abc123", "--by", "auto-code"]);
        let done = trail.append(&read(message));
        assert_eq!(done.code, 0, "{}", done.stderr);
        assert!(
            done.stdout.contains(&format!("seq 2 {outcome} ho_abc123")),
            "{}",
            done.stdout
        );
        assert_eq!(trail.run(&["verify"]).code, 0);
        let events = trail.ok(&["query", "--handoff", "ho_abc123", "--format", "json"]);
        let events: Value = serde_json::from_str(&events).expect("JSON array");
        let initiated = &events[0];
        assert_eq!(initiated["context_snapshot"]["task_id"], "wf_conductor_123");
        assert_eq!(initiated["context_snapshot"]["artifact_count"], 2);
        assert_eq!(initiated["workflow_id"], "wf_conductor_123");
        assert_eq!(initiated["rollback_to"], "architect");
        assert_eq!(
            initiated["message"]["expectations"]["estimated_duration"],
            "30 minutes"
        );
        assert_eq!(initiated["message"]["from_agent"], "architect");
        assert_eq!(initiated["timestamp"], "2026-01-11T20:30:00.000Z");
        let last = &events[2];
        if outcome == "completed" {
            assert_eq!(last["outcome"], "success");
            assert_eq!(last["duration_ms"], 30 * 60 * 1000);
            assert_eq!(last["message"]["verification"]["tests_passing"], true);
        } else {
            assert_eq!(
                last["reason"],
                "Cannot implement OAuth without client credentials"
            );
            assert_eq!(last["rollback_to"], "architect");
            assert_eq!(last["duration_ms"], 15 * 60 * 1000);
        }
    }
}

#[test]
fn a_batch_of_messages_appends_in_order_all_or_nothing() {
    let trail = TestTrail::new();
    let batch = [
        r#"{"handoff":{"id":"ho_1","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"sequential","reason":"r","context":{"task_id":"T-1"}}}"#,
        r#"{"handoff_id":"ho_1","status":"accepted","acknowledged_at":"2026-01-11T20:31:00Z"}"#,
        r#"{"return":{"handoff_id":"ho_1","status":"partial","audit":{"completion_time":"2026-01-11T21:00:00Z","tokens_consumed":900,"notes":"half done"}}}"#,
        r#"{"handoff_id":"ho_2","status":"deferred","reason":"busy until noon"}"#,
    ];
    let bad = format!(
        "{}\n{}\n",
        batch[0], r#"{"handoff_id":"ho_1","status":"success","completion_id":"c"}"#
    );
    let before = trail.snapshot();
    let refused = trail.append(&bad);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("-:2:"), "{}", refused.stderr);
    assert_eq!(trail.snapshot(), before);
    let illegal = format!("{}\n{}\n", batch[0], batch[2]);
    let refused = trail.append(&illegal);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.starts_with("-:2: refused"),
        "{}",
        refused.stderr
    );
    assert!(!trail.path().join("HEAD").exists(), "nothing was appended");
    let run = trail.append(&(batch.join("\n") + "\n"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("seq 2 completed ho_1"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("-:4: deferred ho_2 (no event): busy until noon"),
        "{}",
        run.stdout
    );
    let completed = trail.ok(&["query", "--event", "completed"]);
    assert!(
        completed.contains("\"outcome\":\"partial\"")
            && completed.contains("\"tokens_consumed\":900"),
        "{completed}"
    );
    // The same messages as one JSON array append alike.
    let other = TestTrail::new();
    let array = format!("[{}]", batch[..3].join(","));
    assert_eq!(other.append(&array).code, 0);
    assert_eq!(other.lines().len(), 3);
}

/// Above 1 MiB a batch is streamed (checked, converted and sealed a message at a time
/// in the transaction): still all or nothing, problems before refusals, one chain.
#[test]
fn a_batch_over_a_mebibyte_streams_all_or_nothing() {
    let trail = TestTrail::new();
    trail.open(&[]);
    let padding = "x".repeat(100_000);
    let mut lines = Vec::new();
    for n in 0..12 {
        lines.push(format!(
            r#"{{"handoff":{{"id":"ho_{n}","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"sequential","reason":"r","context":{{"task_id":"T-1","context_variables":{{"pad":"{padding}"}}}}}}}}"#
        ));
        lines.push(format!(
            r#"{{"handoff_id":"ho_{n}","status":"accepted","acknowledged_at":"2026-01-11T20:31:00Z"}}"#
        ));
    }
    let batch = lines.join("\n") + "\n";
    assert!(batch.len() > 1 << 20);
    let illegal = r#"{"return":{"handoff_id":"ho_none","status":"success"}}"#;
    let invalid = r#"{"handoff_id":"ho_1","status":"success","completion_id":"c"}"#;
    let before = trail.snapshot();
    let refused = trail.append(&format!("{batch}{illegal}\n"));
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.starts_with("-:25: refused"),
        "{}",
        refused.stderr
    );
    assert_eq!(trail.snapshot(), before);
    let rejected = trail.append(&format!("{illegal}\n{batch}{invalid}\n"));
    assert_eq!(rejected.code, 2, "{}", rejected.stderr);
    assert!(rejected.stderr.contains("-:26:"), "{}", rejected.stderr);
    assert!(
        rejected.stderr.contains("nothing appended"),
        "{}",
        rejected.stderr
    );
    assert_eq!(trail.snapshot(), before);
    let run = trail.append(&batch);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 24, "{}", run.stdout);
    assert!(
        run.stdout.starts_with("seq 1 initiated ho_0"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .ends_with("seq 24 accepted ho_11 (a -> b, attempt 1)\n"),
        "{}",
        run.stdout
    );
    let verified = trail.run(&["verify"]);
    assert_eq!(verified.code, 0, "{}", verified.stdout);
    assert!(
        verified.stdout.contains("intact: 25 event(s)"),
        "{}",
        verified.stdout
    );
}

/// A failed append into a trail directory that did not exist leaves nothing behind
/// (not the directory, not its `LOCK`, not a parent it created), streamed or not; one
/// into a trail that exists leaves every byte as it was.
#[test]
fn a_failed_first_append_leaves_no_directory_behind() {
    let trail = TestTrail::new();
    let new_dir = trail.dir.path().join("audit");
    let target = new_dir.join("trail");
    let target_arg = target.to_str().expect("UTF-8");
    let append = |input: &str| {
        let args = ["trail", "append", "-", "--trail", target_arg];
        run_in(trail.dir.path(), &args, Some(input))
    };
    let padding = "x".repeat(100_000);
    let handoff = |n: usize| {
        format!(
            r#"{{"handoff":{{"id":"ho_{n}","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"sequential","reason":"r","context":{{"task_id":"T-1","context_variables":{{"pad":"{padding}"}}}}}}}}"#
        )
    };
    let streamed: String = (0..12).map(|n| handoff(n) + "\n").collect();
    assert!(streamed.len() > 1 << 20);
    let illegal = r#"{"return":{"handoff_id":"ho_none","status":"success"}}"#;
    for input in [format!("{streamed}{illegal}\n"), format!("{illegal}\n")] {
        let refused = append(&input);
        assert_eq!(refused.code, 1, "{}", refused.stderr);
        assert!(refused.stderr.contains("refused"), "{}", refused.stderr);
        assert!(
            !new_dir.exists(),
            "left behind: {:?}",
            std::fs::read_dir(&new_dir).map(|d| d.count())
        );
    }
    let run = append(&streamed);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let before: Vec<(std::path::PathBuf, Vec<u8>)> = std::fs::read_dir(&target)
        .expect("the trail")
        .map(|entry| {
            let path = entry.expect("an entry").path();
            let bytes = std::fs::read(&path).expect("a trail file");
            (path, bytes)
        })
        .collect();
    assert!(before.iter().any(|(path, _)| path.ends_with("HEAD")));
    let refused = append(&format!("{illegal}\n"));
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    for (path, bytes) in &before {
        assert_eq!(
            &std::fs::read(path).expect("still there"),
            bytes,
            "{}",
            path.display()
        );
    }
}

#[test]
fn problems_are_reported_at_their_pointer_and_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("bad.json");
    std::fs::write(
        &file,
        "{\n  \"handoff\": {\n    \"id\": \"ho_9\",\n    \"timestamp\": \"2026-01-11T22:30:00+02:00\",\n    \"from_agent\": \"a\",\n    \"to_agent\": \"b\",\n    \"type\": \"delegate\",\n    \"reason\": \"r\",\n    \"context\": {\"task_id\": \"T\"}\n  }\n}\n",
    )
    .expect("write");
    let run = check(&[file.to_str().expect("UTF-8"), "--format", "json"]);
    assert_eq!(run.code, 1);
    let reports: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let problems = reports[0]["messages"][0]["problems"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let find = |code: &str| {
        problems
            .iter()
            .find(|p| p["code"] == code)
            .cloned()
            .unwrap_or_else(|| panic!("no {code} in {problems:?}"))
    };
    let wrong_enum = find("schema");
    assert_eq!(wrong_enum["pointer"], "/handoff/type");
    assert_eq!(
        (wrong_enum["line"].as_u64(), wrong_enum["column"].as_u64()),
        (Some(7), Some(13))
    );
    let zone = find("not-utc");
    assert_eq!(zone["pointer"], "/handoff/timestamp");
    assert_eq!(zone["line"], 4);
    let human = check(&[file.to_str().expect("UTF-8")]).stdout;
    assert!(human.contains("bad.json:7:13: error[schema]"), "{human}");
}

#[test]
fn the_rules_beyond_the_schemas() {
    let cases = [
        (
            r#"{"handoff":{"id":"h","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"delegation","reason":"r","context":{"task_id":"T"}}}"#,
            "delegation-timeout",
        ),
        (
            r#"{"handoff":{"id":"h","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"escalation","reason":"r","context":{"task_id":"T"}}}"#,
            "escalation-rationale",
        ),
        (
            r#"{"handoff":{"id":"h","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"broadcast","reason":"r","context":{"task_id":"T"}}}"#,
            "broadcast-group",
        ),
        (
            r#"{"handoff":{"id":"h","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"sequential","reason":"r","context":{"task_id":"T"},"metadata":{"depth":4}}}"#,
            "escalation-depth",
        ),
        (
            r#"{"handoff":{"id":"h","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"delegation","reason":"r","context":{"task_id":"T"},"return_protocol":{"timeout":"soon"}}}"#,
            "bad-duration",
        ),
        (
            r#"{"handoff":{"id":"h","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"sequential","reason":"r","context":{"task_id":"T","context_variables":{"n":9007199254740993}}}}"#,
            "number-range",
        ),
        (
            r#"{"handoff_id":"h","status":"rejected","acknowledged_at":"2026-01-11T20:30:00Z"}"#,
            "schema",
        ),
        (r#"{"greeting":"hello"}"#, "unknown-kind"),
        ("{\"handoff\": ", "not-json"),
    ];
    for (text, code) in cases {
        let run = run_in(
            std::path::Path::new("."),
            &["message", "check", "-"],
            Some(text),
        );
        assert_eq!(run.code, 1, "{text}: {}", run.stdout);
        assert!(
            run.stdout.contains(&format!("error[{code}]")),
            "{text}: {}",
            run.stdout
        );
    }
    let uuid_v1 = r#"{"handoff":{"id":"c232ab00-9414-11ec-b3c8-9f6bdeced846","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"sequential","reason":"r","context":{"task_id":"T"}}}"#;
    let run = run_in(
        std::path::Path::new("."),
        &["message", "check", "-"],
        Some(uuid_v1),
    );
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains("warning[not-uuid-v4]"),
        "{}",
        run.stdout
    );
}

#[test]
fn bad_input_to_append_names_the_file_and_line_and_appends_nothing() {
    let trail = TestTrail::new();
    trail.open(&[]);
    let before = trail.snapshot();
    let dir = trail.dir.path();
    let malformed = dir.join("malformed.jsonl");
    std::fs::write(
        &malformed,
        "{\"handoff_id\":\"x\",\"status\":\"accepted\"}\n{\"handoff_id\": \n",
    )
    .expect("write");
    let run = trail.run(&["append", malformed.to_str().expect("UTF-8")]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("malformed.jsonl:2:"), "{}", run.stderr);
    let wrong_enum = dir.join("enum.json");
    std::fs::write(
        &wrong_enum,
        "{\"handoff_id\": \"x\",\n \"status\": \"maybe\"}\n",
    )
    .expect("write");
    let run = trail.run(&["append", wrong_enum.to_str().expect("UTF-8")]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("enum.json:1:1: error[unknown-kind]"),
        "{}",
        run.stderr
    );
    let unknown = dir.join("unknown.json");
    std::fs::write(
        &unknown,
        "\n{\"handoff_id\": \"ho_nobody\", \"status\": \"accepted\"}\n",
    )
    .expect("write");
    let run = trail.run(&["append", unknown.to_str().expect("UTF-8")]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("unknown.json:2: refused: no handoff `ho_nobody`"),
        "{}",
        run.stderr
    );
    let binary = dir.join("binary.json");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x01]).expect("write");
    let run = trail.run(&["append", binary.to_str().expect("UTF-8")]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("binary.json"), "{}", run.stderr);
    assert_eq!(trail.snapshot(), before);
}

#[test]
fn a_trail_directory_that_is_a_file_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("trail");
    std::fs::write(&file, "not a directory").expect("write");
    for args in [
        vec!["verify"],
        vec![
            "open",
            "--from",
            "a",
            "--to",
            "b",
            "--type",
            "sequential",
            "--task",
            "T",
            "--reason",
            "r",
        ],
    ] {
        let mut full = vec!["trail"];
        full.extend(args);
        full.extend(["--trail", file.to_str().expect("UTF-8")]);
        let run = run_in(dir.path(), &full, None);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("is a file, not a trail directory"),
            "{}",
            run.stderr
        );
    }
    assert_eq!(
        std::fs::read_to_string(&file).ok().as_deref(),
        Some("not a directory")
    );
}

#[test]
fn eight_processes_appending_at_once_lose_and_duplicate_nothing() {
    let trail = TestTrail::new();
    let bin = assert_cmd::cargo::cargo_bin("handoff");
    let per_process = 20;
    // Each shell runs its appends one after another (`open`, no input to pipe in).
    let children: Vec<std::process::Child> = (0..8)
        .map(|p| {
            let script = format!(
                "for i in $(seq 0 {}); do '{}' trail open --id ho_{p}_$i --from agent-{p} --to b --type sequential --task T-{p} --reason r --trail '{}' >/dev/null || exit 1; done",
                per_process - 1,
                bin.display(),
                trail.path().display()
            );
            std::process::Command::new("sh").args(["-c", &script]).spawn().expect("spawn")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().expect("wait").success());
    }
    let verified = trail.run(&["verify"]);
    assert_eq!(verified.code, 0, "{}", verified.stdout);
    assert!(
        verified.stdout.starts_with("intact: 160 event(s)"),
        "{}",
        verified.stdout
    );
    let mut ids: Vec<String> = trail
        .lines()
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("JSON")["handoff_id"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 160);
}

/// Inputs the fuzzers found (`fuzz/`), kept as regression tests: every problem points
/// at a real line and a 1-based column.
#[test]
fn fuzz_findings_stay_fixed() {
    let dir = fixture("fuzz");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    assert!(!entries.is_empty());
    for entry in entries {
        let bytes = std::fs::read(entry.path()).expect("read");
        let text = String::from_utf8_lossy(&bytes);
        let report = handoff::check_messages("fuzz", &text);
        // A lone carriage return breaks a line too (YAML 1.2).
        let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count();
        for problem in report.all_problems() {
            let line = problem.line.expect("a line");
            assert!(line >= 1 && line <= lines, "{problem:?}");
            assert!(problem.column >= Some(1), "{:?}: {problem:?}", entry.path());
        }
    }
}
