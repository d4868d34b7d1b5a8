//! `show`, `list`, `history`, `import` and `export`: the views of a trail, on the 004
//! example chain (tests/fixtures/trail/chain-004) and on imported records, from the
//! real binary. The byte-for-byte layouts are snapshots in `contracts.rs`.

use super::TestTrail;
use serde_json::Value;
use std::path::Path;

fn project() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A trail holding the 004 chain, appended from its messages.
fn chain() -> TestTrail {
    let trail = TestTrail::new();
    let messages = std::fs::read_to_string(project().join("tests/fixtures/trail/chain-004.jsonl"))
        .expect("the chain's messages");
    let appended = trail.append(&messages);
    assert_eq!(appended.code, 0, "{}", appended.stderr);
    trail
}

fn json(trail: &TestTrail, args: &[&str]) -> Value {
    let mut full = args.to_vec();
    full.extend(["--format", "json"]);
    serde_json::from_str(&trail.ok(&full)).expect("JSON")
}

#[test]
fn show_tells_the_whole_handoff() {
    let trail = chain();
    let view = json(&trail, &["show", "ho_002"]);
    assert_eq!(view["status"], "completed");
    assert_eq!(view["duration_ms"], 28 * 60 * 1000);
    assert_eq!(
        view["deliverables"]["created"].as_array().map(Vec::len),
        Some(4)
    );
    assert_eq!(
        view["expectations"][0]["criterion"],
        "Implements all spec requirements"
    );
    assert_eq!(view["events"].as_array().map(Vec::len), Some(3));
    let failed = json(&trail, &["show", "ho_003"]);
    assert_eq!(failed["failure"], "Missing test fixtures");
    assert_eq!(failed["rollback_to"], "auto-code");
    let unknown = trail.run(&["show", "ho_999"]);
    assert_eq!(unknown.code, 1);
    assert!(
        unknown.stderr.contains("no handoff `ho_999`"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn list_shows_what_is_open_by_agent_and_all() {
    let trail = chain();
    let now = ["--now", "2026-01-11T10:30:00Z"];
    let open = json(&trail, &["list", now[0], now[1]]);
    let ids: Vec<&str> = open
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["handoff_id"].as_str())
        .collect();
    assert_eq!(ids, ["ho_006", "ho_007"]);
    assert_eq!(open[0]["age_ms"], 9 * 60 * 1000);
    let ciso = json(&trail, &["list", "--agent", "auto-code", now[0], now[1]]);
    assert_eq!(ciso.as_array().map(Vec::len), Some(1));
    let all = json(&trail, &["list", "--all", now[0], now[1]]);
    assert_eq!(all.as_array().map(Vec::len), Some(7));
    // `list` parses only the open handoffs' lines; an id its text spells with an escape
    // is parsed to be read, and a handoff re-opened by a retry is open again.
    let quoted = trail.open(&["--id", r#"ho_"q""#, "--timeout", "1m"]);
    trail.ok(&["accept", &quoted]);
    trail.ok(&["tick", "--now", "2027-01-01T00:00:00Z"]);
    trail.ok(&["retry", &quoted]);
    let open = json(&trail, &["list", now[0], now[1]]);
    let rows: Vec<(&str, &str, u64)> = open
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| {
            Some((
                r["handoff_id"].as_str()?,
                r["status"].as_str()?,
                r["attempt"].as_u64()?,
            ))
        })
        .collect();
    assert!(rows.contains(&(r#"ho_"q""#, "initiated", 2)), "{rows:?}");
    let all = json(&trail, &["list", "--all", now[0], now[1]]);
    let still_open: Vec<&Value> = all
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| {
            ["initiated", "accepted", "timeout"].contains(&r["status"].as_str().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        open.as_array().map(|r| r.iter().collect::<Vec<_>>()),
        Some(still_open)
    );
    let empty = TestTrail::new();
    assert_eq!(empty.run(&["list"]).code, 2, "no trail yet");
}

#[test]
fn history_draws_the_chain_with_its_rollback() {
    let trail = chain();
    let text = trail.ok(&["history", "--task", "TM-7"]);
    let order: Vec<&str> = text
        .lines()
        .filter(|l| l.ends_with('▶'))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        order,
        [
            "architect",
            "auto-code",
            "qa",
            "auto-code",
            "qa",
            "ciso",
            "auto-code"
        ]
    );
    assert!(text.contains("[ROLLBACK to auto-code]"), "{text}");
    let mermaid = trail.ok(&["history", "--task", "TM-7", "--format", "mermaid"]);
    assert!(mermaid.starts_with("sequenceDiagram\n"), "{mermaid}");
    assert!(
        mermaid.contains("--x"),
        "the failure is a crossed arrow: {mermaid}"
    );
    let none = trail.ok(&["history", "--task", "NOPE"]);
    assert!(none.contains("no handoffs for task NOPE"), "{none}");
    assert_eq!(
        trail.run(&["history"]).code,
        2,
        "--task or --workflow is required"
    );
}

#[test]
fn import_turns_records_into_a_trail_once() {
    let trail = TestTrail::new();
    let examples = project().join("examples");
    let examples = examples.to_str().expect("UTF-8");
    // The templates among the examples have no timestamp: skipped and named (exit 1).
    let first = trail.run(&["import", examples]);
    assert_eq!(first.code, 1, "{}", first.stderr);
    assert!(
        first.stdout.contains("skipped: no `Timestamp`"),
        "{}",
        first.stdout
    );
    assert!(
        !first.stdout.contains(" 0 event(s) appended"),
        "{}",
        first.stdout
    );
    let events = trail.lines().len();
    assert!(events > 0);
    let again = trail.run(&["import", examples]);
    assert!(
        again.stdout.contains(" 0 event(s) appended"),
        "{}",
        again.stdout
    );
    assert_eq!(trail.lines().len(), events, "importing twice adds nothing");
    // Every record read and not skipped is counted as already on the trail.
    let counts: Vec<usize> = again
        .stdout
        .lines()
        .last()
        .unwrap_or_default()
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    assert_eq!(counts.len(), 4, "{}", again.stdout);
    assert_eq!(counts[2], counts[0] - counts[3], "{}", again.stdout);
    assert_eq!(trail.run(&["verify"]).code, 0);
    // A decision written after the import is added by the next one.
    let dir = tempfile::tempdir().expect("a directory");
    let record = std::fs::read_to_string(project().join("examples/handoff.md")).expect("record");
    let pending = dir.path().join("handoff.md");
    std::fs::write(&pending, &record).expect("write");
    let fresh = TestTrail::new();
    fresh.ok(&["import", pending.to_str().expect("UTF-8")]);
    assert_eq!(
        fresh.lines().len(),
        1,
        "an undecided record is one initiated event"
    );
    let decided = record.replace(
        "[Filled by the receiver: what was decided, rationale, next steps. Left blank when sending.]",
        "Approved: the flow passes every criterion.",
    );
    assert_ne!(decided, record);
    std::fs::write(&pending, decided).expect("write");
    fresh.ok(&["import", pending.to_str().expect("UTF-8")]);
    let kinds: Vec<String> = fresh
        .lines()
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).expect("event")["event_type"].to_string())
        .collect();
    assert_eq!(kinds, ["\"initiated\"", "\"accepted\"", "\"completed\""]);
}

#[test]
fn import_names_what_it_skips() {
    let trail = TestTrail::new();
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("no-time.md");
    std::fs::write(
        &file,
        "## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | T-1 |\n| Type | handoff |\n| From | a |\n| To | b |\n",
    )
    .expect("write");
    let run = trail.run(&["import", file.to_str().expect("UTF-8")]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("no-time.md:1: skipped: no `Timestamp`"),
        "{}",
        run.stdout
    );
}

#[test]
fn export_is_otlp_json_a_collector_reads() {
    let trail = chain();
    let out = trail.ok(&["export", "--format", "otlp-json"]);
    let document: Value = serde_json::from_str(&out).expect("one JSON document");
    let records = &document["resourceLogs"][0]["scopeLogs"][0]["logRecords"];
    assert_eq!(records.as_array().map(Vec::len), Some(18));
    assert_eq!(records[0]["timeUnixNano"], "1768122000000000000");
    let since = trail.ok(&[
        "export",
        "--format",
        "otlp-json",
        "--since",
        "2026-01-11T10:21:00Z",
    ]);
    let later: Value = serde_json::from_str(&since).expect("JSON");
    assert_eq!(
        later["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    let available = std::process::Command::new("python3")
        .args(["-c", "import opentelemetry.proto"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        assert!(
            std::env::var("CI").is_err(),
            "CI must check the export: pip install opentelemetry-proto"
        );
        eprintln!("skipped: python3 with opentelemetry-proto is not installed");
        return;
    }
    let file = trail.dir.path().join("export.json");
    std::fs::write(&file, &out).expect("write");
    let script = project().join("scripts/check-otlp.py");
    let checked = run_python(&script, &file, "18");
    assert!(checked.0, "{}", checked.1);
    std::fs::write(
        &file,
        out.replace("\"severityNumber\"", "\"severityNumbr\""),
    )
    .expect("write");
    assert!(
        !run_python(&script, &file, "18").0,
        "a misspelt field is refused"
    );
}

fn run_python(script: &Path, file: &Path, expected: &str) -> (bool, String) {
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(file)
        .arg(expected)
        .output()
        .expect("run python3");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn the_views_read_a_trail_imported_from_records() {
    let trail = TestTrail::new();
    let records = project().join("examples/registry/records");
    // Records without a timestamp are skipped and named: exit 1.
    assert_eq!(
        trail
            .run(&["import", records.to_str().expect("UTF-8")])
            .code,
        1
    );
    let all = json(&trail, &["list", "--all"]);
    let rows = all.as_array().expect("rows");
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r["handoff_id"]
        .as_str()
        .is_some_and(|id| id.starts_with("rec-"))));
    // The escalation record, decided (approved): completed, and no longer listed as open.
    let escalation = rows
        .iter()
        .find(|r| r["task_id"] == "ENG-043" && r["from_agent"] == "frontend-engineer")
        .expect("the escalation record's handoff");
    let id = escalation["handoff_id"].as_str().expect("an id");
    let view = json(&trail, &["show", id]);
    assert_eq!(view["status"], "completed");
    assert_eq!(view["to_agent"], "enterprise-orchestrator");
    assert_eq!(view["risk_level"], "medium");
    let open = json(&trail, &["list"]);
    assert!(open
        .as_array()
        .expect("rows")
        .iter()
        .all(|r| r["handoff_id"] != id));
    let history = trail.ok(&["history", "--task", "ENG-042"]);
    assert!(history.contains("reality-checker"), "{history}");
    let mermaid = trail.ok(&["history", "--task", "ENG-042", "--format", "mermaid"]);
    assert!(mermaid.contains("as reality-checker"), "{mermaid}");
}

/// `list` on a trail over 1 MiB leaves a `CHECKPOINT` and reads on from it next time;
/// after appends it lists what a read from the start lists; a trail edited or truncated
/// under it is read from the start again (and `verify`, which never reads it, catches
/// the change).
#[test]
fn list_reads_on_from_a_checkpoint_only_while_the_trail_stands() {
    let trail = TestTrail::new();
    let messages = super::padded_messages();
    assert_eq!(trail.append(&messages).code, 0);
    let checkpoint = trail.path().join("CHECKPOINT");
    let list = |args: &[&str]| {
        let mut full = vec!["list", "--now", "2026-01-12T00:00:00Z"];
        full.extend_from_slice(args);
        trail.ok(&full)
    };
    // What a read from the start lists (it leaves a new checkpoint behind).
    let from_the_start = || {
        let _ = std::fs::remove_file(&checkpoint);
        list(&["--format", "json"])
    };
    for n in [1, 2, 4] {
        trail.ok(&["complete", &format!("ho_{n}")]);
    }
    let first = list(&["--format", "json"]);
    assert!(
        checkpoint.exists(),
        "no checkpoint after a read of over 1 MiB"
    );
    // Read on from it: the file is not written again (an atomic replace is a new file).
    #[cfg(unix)]
    let inode = || {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(&checkpoint)
            .expect("the checkpoint")
            .ino()
    };
    #[cfg(unix)]
    let saved = inode();
    assert_eq!(list(&["--format", "json"]), first);
    #[cfg(unix)]
    assert_eq!(inode(), saved);
    let rows: Value = serde_json::from_str(&first).expect("JSON");
    assert_eq!(rows.as_array().map(Vec::len), Some(9), "{first}");
    // Appends after it: the checkpoint moves on with them and still holds.
    trail.ok(&["complete", "ho_5"]);
    trail.ok(&["fail", "ho_7", "--reason", "broken"]);
    trail.ok(&[
        "open",
        "--from",
        "c",
        "--to",
        "d",
        "--type",
        "sequential",
        "--task",
        "T-99",
        "--reason",
        "r",
        "--id",
        "ho_new",
    ]);
    let after = list(&["--format", "json"]);
    assert!(checkpoint.exists());
    assert!(
        after.contains("ho_new") && !after.contains("\"ho_5\""),
        "{after}"
    );
    assert_eq!(after, from_the_start());
    // A completed handoff edited in place into an `initiated` one (same length): the
    // checkpoint no longer holds, the edit shows as a read from the start shows it.
    let segment = trail.segments()[0].clone();
    let text = std::fs::read_to_string(&segment).expect("the segment");
    let completed = text
        .lines()
        .position(|line| line.contains("\"event_type\":\"completed\"") && line.contains("\"ho_1\""))
        .expect("ho_1 completed");
    let edited: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(n, line)| match n == completed {
            true => line.replace(
                "\"event_type\":\"completed\"",
                "\"event_type\":\"initiated\"",
            ),
            false => line.to_string(),
        })
        .collect();
    let _ = list(&[]);
    std::fs::write(&segment, edited.join("\n") + "\n").expect("edited");
    let listed = list(&["--format", "json"]);
    assert!(
        listed.contains("\"ho_1\""),
        "the edit is not shown: {listed}"
    );
    assert_eq!(listed, from_the_start());
    let verified = trail.run(&["verify"]);
    assert_eq!(verified.code, 1, "{}", verified.stdout);
    assert!(verified.stdout.contains("edited"), "{}", verified.stdout);
    // Truncated below the checkpoint's event: read from the start; `verify` says so.
    std::fs::write(
        &segment,
        text.lines().take(10).collect::<Vec<_>>().join("\n") + "\n",
    )
    .expect("truncated");
    let _ = list(&[]);
    let listed = list(&["--format", "json"]);
    assert!(!listed.contains("ho_new"), "{listed}");
    assert_eq!(listed, from_the_start());
    let verified = trail.run(&["verify"]);
    assert!(verified.stdout.contains("truncated"), "{}", verified.stdout);
    // A damaged checkpoint is ignored.
    std::fs::write(&checkpoint, b"not a checkpoint").expect("damaged");
    assert_eq!(list(&["--format", "json"]), listed);
}
