//! A trail edited by hand: each kind of tampering found by `verify` with its seq, file
//! and line; a torn tail refused by `append` and removed by `repair`; the chain checked
//! by an independent implementation (Python's `rfc8785`).

use super::TestTrail;
use handoff::{canonical_json, event_hash, seal_event, TrailEvent as Event};
use serde_json::Value;

/// A trail of 6 events: seq 0..=5 on lines 1..=6.
fn six_events() -> TestTrail {
    let trail = TestTrail::new();
    let a = trail.open(&[]);
    let b = trail.open(&["--timeout", "2h", "--on-timeout", "retry"]);
    trail.ok(&["accept", &a]);
    trail.ok(&["accept", &b]);
    trail.ok(&["complete", &a, "--tokens", "1200"]);
    trail.ok(&["fail", &b, "--reason", "no credentials"]);
    assert_eq!(trail.lines().len(), 6);
    trail
}

fn verify(trail: &TestTrail) -> super::Run {
    trail.run(&["verify"])
}

fn segment_name(trail: &TestTrail) -> String {
    trail.segments()[0]
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Asserts `verify` exits 1 and names `code`, the seq and `segment:line`.
fn assert_break(trail: &TestTrail, code: &str, seq: u64, line: usize) -> String {
    let run = verify(trail);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let place = format!("{}:{line}: error[{code}]", segment_name(trail));
    let hit = run
        .stdout
        .lines()
        .find(|l| l.contains(&place))
        .unwrap_or_else(|| panic!("no `{place}` in:\n{}", run.stdout));
    assert!(hit.contains(&format!("seq {seq}")), "{hit}");
    run.stdout
}

#[test]
fn an_intact_trail_verifies() {
    let trail = six_events();
    let run = verify(&trail);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.starts_with("intact: 6 event(s)"),
        "{}",
        run.stdout
    );
    let json = trail.run(&["verify", "--format", "json"]);
    let report: Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(report["events"], 6);
    assert_eq!(report["breaks"], Value::Array(Vec::new()));
    assert_eq!(report["head"]["seq"], 5);
}

#[test]
fn an_edited_event_is_found() {
    let trail = six_events();
    let mut lines = trail.lines();
    lines[2] = lines[2].replace("\"in_progress\"", "\"complete\"");
    trail.write_lines(&lines);
    let out = assert_break(&trail, "edited", 2, 3);
    assert_eq!(
        out.matches("error[").count(),
        1,
        "one edit, one break:\n{out}"
    );
}

#[test]
fn an_edited_event_with_its_hash_recomputed_breaks_the_next_link() {
    let trail = six_events();
    let mut lines = trail.lines();
    let mut event: Value = serde_json::from_str(&lines[2]).expect("JSON");
    event["to_agent"] = Value::from("someone-else");
    let map = event.as_object().cloned().expect("an object");
    event["hash"] = Value::from(event_hash(&map));
    lines[2] = String::from_utf8(canonical_json(&event)).expect("UTF-8");
    trail.write_lines(&lines);
    assert_break(&trail, "chain-broken", 3, 4);
    assert_break(&trail, "handoff-mismatch", 2, 3);
}

#[test]
fn a_deleted_event_is_found() {
    let trail = six_events();
    let mut lines = trail.lines();
    lines.remove(2);
    trail.write_lines(&lines);
    let out = assert_break(&trail, "deleted", 2, 3);
    assert!(out.contains("seq 2 is missing"), "{out}");
}

#[test]
fn reordered_events_are_found() {
    let trail = six_events();
    let mut lines = trail.lines();
    lines.swap(2, 3);
    trail.write_lines(&lines);
    let out = assert_break(&trail, "reordered", 2, 4);
    assert!(out.contains("seq 2 stands after seq 3"), "{out}");
    assert!(
        !out.contains("error[deleted]"),
        "a swap deletes nothing:\n{out}"
    );
}

#[test]
fn a_truncated_tail_is_found_and_append_refuses() {
    let trail = six_events();
    let mut lines = trail.lines();
    lines.truncate(4);
    trail.write_lines(&lines);
    let out = assert_break(&trail, "truncated", 4, 4);
    assert!(out.contains("seq 4..=5 were removed"), "{out}");
    let before = trail.snapshot();
    let run = trail.run(&[
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
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("HEAD") && run.stderr.contains("removed from its end"),
        "{}",
        run.stderr
    );
    assert_eq!(trail.snapshot(), before);
}

#[test]
fn a_torn_line_is_found_refused_by_append_and_removed_by_repair() {
    let trail = six_events();
    let segment = trail.segments()[0].clone();
    let mut bytes = std::fs::read(&segment).expect("segment");
    bytes.extend_from_slice(b"{\"attempt\":1,\"context_snap");
    std::fs::write(&segment, &bytes).expect("write");
    let run = verify(&trail);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains(&format!("{}:7: error[torn]", segment_name(&trail))),
        "{}",
        run.stdout
    );
    let before = trail.snapshot();
    let refused = trail.run(&[
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
    ]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains(":7: the last line is torn"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("handoff trail repair"),
        "{}",
        refused.stderr
    );
    assert_eq!(trail.snapshot(), before);
    let repaired = trail.ok(&["repair"]);
    assert!(repaired.contains("removed the torn line"), "{repaired}");
    let kept =
        std::fs::read(segment.with_extension("jsonl.torn")).expect("the torn bytes are kept");
    assert!(kept.starts_with(b"{\"attempt\":1,\"context_snap"));
    assert_eq!(verify(&trail).code, 0);
    trail.open(&[]);
    assert_eq!(verify(&trail).code, 0);
}

#[test]
fn a_missing_head_is_found_and_rewritten_by_repair() {
    let trail = six_events();
    std::fs::remove_file(trail.path().join("HEAD")).expect("remove HEAD");
    let run = verify(&trail);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("error[head]"), "{}", run.stdout);
    trail.ok(&["repair"]);
    assert_eq!(verify(&trail).code, 0);
}

#[test]
fn repair_leaves_an_edited_trail_alone() {
    let trail = six_events();
    let mut lines = trail.lines();
    lines[2] = lines[2].replace("accepted", "rejected");
    trail.write_lines(&lines);
    let before = trail.snapshot();
    let run = trail.run(&["repair"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("not repaired"), "{}", run.stdout);
    assert_eq!(trail.snapshot(), before);
}

#[test]
fn a_corrupt_line_is_named_by_verify_and_stops_append() {
    let trail = six_events();
    let mut lines = trail.lines();
    lines[3] = "garbage".to_string();
    trail.write_lines(&lines);
    let run = verify(&trail);
    assert!(
        run.stdout
            .contains(&format!("{}:4: error[malformed]", segment_name(&trail))),
        "{}",
        run.stdout
    );
    let before = trail.snapshot();
    let refused = trail.run(&[
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
    ]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains(":4: is not an audit event"),
        "{}",
        refused.stderr
    );
    assert_eq!(trail.snapshot(), before);
}

#[test]
fn a_line_nested_past_any_parsers_limit_is_malformed_not_a_crash() {
    let trail = six_events();
    let mut lines = trail.lines();
    // A message in its key-order place, so the line is read as canonical as far as it goes.
    let after_hash = lines[3].find("\"hash\":\"").expect("a hash member") + 8 + 64 + 2;
    let deep = format!(
        "\"message\":{}{},",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    lines[3].insert_str(after_hash, &deep);
    trail.write_lines(&lines);
    let run = verify(&trail);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let place = format!("{}:4: error[malformed]", segment_name(&trail));
    assert!(run.stdout.contains(&place), "{}", run.stdout);
}

#[test]
fn a_forged_fourth_attempt_with_a_valid_hash_is_a_lifecycle_break() {
    let trail = TestTrail::new();
    let id = trail.open(&["--timeout", "1m"]);
    for _ in 0..2 {
        trail.ok(&["tick", "--now", "2099-01-01T00:00:00Z"]);
        trail.ok(&["retry", &id]);
    }
    trail.ok(&["tick", "--now", "2099-01-01T00:00:00Z"]);
    let mut lines = trail.lines();
    let last: Event = serde_json::from_str(lines.last().expect("a line")).expect("an event");
    let mut forged: Event = serde_json::from_str(&lines[0]).expect("an event");
    forged.seq = last.seq + 1;
    forged.prev = last.hash.clone();
    forged.attempt = 4;
    forged.recorded_at = last.recorded_at.clone();
    let line = String::from_utf8(seal_event(&mut forged)).expect("UTF-8");
    lines.push(line);
    trail.write_lines(&lines);
    let head = format!("{{\"seq\":{},\"hash\":\"{}\"}}\n", forged.seq, forged.hash);
    std::fs::write(trail.path().join("HEAD"), head).expect("HEAD");
    assert_break(&trail, "retry-limit", forged.seq, lines.len());
}

/// Python with `rfc8785`, when it is there; CI (`CI=true`) requires it.
fn python_verifier() -> Option<std::process::Command> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/verify-trail.py");
    let available = std::process::Command::new("python3")
        .args(["-c", "import rfc8785"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        assert!(
            std::env::var("CI").is_err(),
            "CI must run the independent verifier: pip install rfc8785"
        );
        eprintln!("skipped: python3 with rfc8785 is not installed");
        return None;
    }
    let mut command = std::process::Command::new("python3");
    command.arg(script);
    Some(command)
}

#[test]
fn an_independent_jcs_implementation_verifies_the_chain() {
    let trail = six_events();
    // Messages with Unicode, floats and nesting, kept in the events.
    let handoff = std::fs::read_to_string(super::fixture("002-handoff.yaml")).expect("fixture");
    let appended = trail.append(&handoff);
    assert_eq!(appended.code, 0, "{}", appended.stderr);
    let completion = r#"{"handoff_id":"7f1c1e0a-3c4b-4d2e-9f6a-0b1c2d3e4f5a","status":"rejected","reason":"ä € 😀 \u0001 333333333.33333329","acknowledged_at":"2026-01-11T20:31:00Z"}"#;
    assert_eq!(trail.append(completion).code, 0);
    let numbers = r#"{"handoff":{"id":"ho_n","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"sequential","reason":"n","context":{"task_id":"T","context_variables":{"x":1e30,"y":4.50,"z":2e-3,"w":-0.0,"v":1e-7}}}}"#;
    assert_eq!(trail.append(numbers).code, 0);
    let Some(mut python) = python_verifier() else {
        return;
    };
    let out = python.arg(trail.path()).output().expect("run python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // And it finds an edit too.
    let mut lines = trail.lines();
    lines[2] = lines[2].replace("accepted", "rejected");
    trail.write_lines(&lines);
    let mut python = python_verifier().expect("still there");
    let out = python.arg(trail.path()).output().expect("run python3");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains(":3: seq 2: edited"));
}

/// Handoffs that ended thousands of handoffs earlier than the events that name them
/// (more than `verify` keeps in full): a reused id, a step on a rejected handoff and a
/// fourth re-route, each forged with a valid hash, are lifecycle breaks at their seq,
/// file and line, as they are when the handoff ended just before.
#[test]
fn a_reused_id_and_steps_long_after_a_handoff_ended_are_lifecycle_breaks() {
    use handoff::{follow_handoff, initiate_handoff, EventType, HandoffType, Initiation, Step};
    let trail = TestTrail::new();
    let open = |batch: &mut handoff::Batch, id: &str, to: &str, parent: Option<&str>| {
        let mut request = Initiation::new("lead", to, HandoffType::Sequential, "ENG-1", "r");
        request.handoff_id = id.into();
        request.parent_handoff = parent.map(str::to_string);
        initiate_handoff(batch, request).expect("initiate");
    };
    let step = |batch: &mut handoff::Batch, id: &str, event: EventType| {
        follow_handoff(batch, Step::new(id, event)).expect("step");
    };
    handoff::Trail::at(trail.path())
        .transact(jiff::Timestamp::now(), |batch| {
            open(batch, "old", "coder", None);
            step(batch, "old", EventType::Accepted);
            step(batch, "old", EventType::Completed);
            open(batch, "parent", "coder", None);
            step(batch, "parent", EventType::Rejected);
            for n in 1..=3 {
                open(
                    batch,
                    &format!("reroute-{n}"),
                    &format!("agent-{n}"),
                    Some("parent"),
                );
            }
            for n in 0..4_200 {
                let id = format!("h{n}");
                open(batch, &id, "coder", None);
                step(batch, &id, EventType::Rejected);
            }
            Ok(())
        })
        .expect("append");
    let mut lines = trail.lines();
    let event = |line: &str| -> Event { serde_json::from_str(line).expect("an event") };
    let mut reused = event(&lines[0]);
    let mut stepped = event(&lines[4]);
    stepped.event_type = EventType::Accepted;
    let mut fourth = event(&lines[7]);
    fourth.handoff_id = "reroute-4".into();
    fourth.to_agent = "agent-4".into();
    let mut expected = Vec::new();
    for mut forged in [reused.clone(), stepped, fourth] {
        let last = event(lines.last().expect("a line"));
        forged.seq = last.seq + 1;
        forged.prev = last.hash.clone();
        forged.recorded_at = last.recorded_at.clone();
        lines.push(String::from_utf8(seal_event(&mut forged)).expect("UTF-8"));
        expected.push((forged.seq, lines.len()));
        reused = forged;
    }
    trail.write_lines(&lines);
    let head = format!("{{\"seq\":{},\"hash\":\"{}\"}}\n", reused.seq, reused.hash);
    std::fs::write(trail.path().join("HEAD"), head).expect("HEAD");
    let codes = ["illegal-transition", "illegal-transition", "reroute-limit"];
    for ((seq, line), code) in expected.into_iter().zip(codes) {
        let report = assert_break(&trail, code, seq, line);
        assert_eq!(report.matches("error[").count(), 3, "{report}");
    }
    let report = verify(&trail).stdout;
    assert!(
        report.contains("initiated may not follow completed for handoff `old`"),
        "{report}"
    );
    assert!(
        report.contains("accepted may not follow rejected for handoff `parent`"),
        "{report}"
    );
    // `old` initiated again is not another handoff; `reroute-4` is.
    let json = trail.run(&["verify", "--format", "json"]).stdout;
    let json: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(json["handoffs"], 2 + 3 + 4_200 + 1);
}

/// A `--format json` output is the whole document or nothing: a trail that is not there
/// or a line that is not an event (after three that match) is an error on standard
/// error, exit 2, and not a byte on standard output (`query` printed `[`, and the events
/// before the bad line, before the error).
#[test]
fn a_json_query_or_export_that_fails_prints_nothing() {
    let commands: [&[&str]; 2] = [
        &["query", "--format", "json"],
        &["export", "--format", "otlp-json"],
    ];
    let missing = TestTrail::new();
    for args in commands {
        let run = missing.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(run.stderr.contains("no trail here yet"), "{}", run.stderr);
    }
    let trail = six_events();
    let mut lines = trail.lines();
    lines[3] = "garbage".to_string();
    trail.write_lines(&lines);
    for args in commands {
        let run = trail.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(
            run.stderr.contains(":4: is not an audit event"),
            "{}",
            run.stderr
        );
    }
    lines.remove(3);
    trail.write_lines(&lines);
    for args in commands {
        let whole: serde_json::Value =
            serde_json::from_str(&trail.ok(args)).expect("the whole JSON document");
        assert!(
            whole.is_array() || whole["resourceLogs"].is_array(),
            "{whole}"
        );
    }
}
