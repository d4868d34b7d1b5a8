//! `prune`: 002 §7.3's retention minimums, whole segments only, the anchor, and a
//! pruned trail that still verifies (here and with the independent recipe).

use super::TestTrail;
use handoff::{
    escalate_handoff, follow_handoff, initiate_handoff, parse_utc_timestamp, Batch, EventType,
    HandoffType, Initiation, Step, Trail,
};

fn at(text: &str) -> jiff::Timestamp {
    parse_utc_timestamp(text).expect("a UTC time")
}

/// Appends on `day` (as the append clock and the events' time).
fn on(trail: &TestTrail, day: &str, work: impl FnOnce(&mut Batch)) {
    let when = at(day);
    Trail::at(trail.path())
        .with_clock(when)
        .transact(when, |batch| {
            work(batch);
            Ok(())
        })
        .expect("append");
}

fn handoff(batch: &mut Batch, id: &str, task: &str) {
    let mut request = Initiation::new("architect", "auto-code", HandoffType::Sequential, task, "r");
    request.handoff_id = id.into();
    initiate_handoff(batch, request).expect("initiate");
}

fn step(batch: &mut Batch, id: &str, event: EventType) {
    follow_handoff(batch, Step::new(id, event)).expect("step");
}

fn segments(trail: &TestTrail) -> Vec<String> {
    trail
        .segments()
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect()
}

#[test]
fn segments_go_only_when_every_event_is_past_its_minimum() {
    let trail = TestTrail::new();
    on(&trail, "2026-01-01T10:00:00Z", |b| {
        handoff(b, "done", "TASK-A");
        step(b, "done", EventType::Accepted);
        step(b, "done", EventType::Completed);
    });
    on(&trail, "2026-01-02T10:00:00Z", |b| {
        handoff(b, "rejected", "TASK-B");
        step(b, "rejected", EventType::Rejected);
    });
    on(&trail, "2026-02-01T10:00:00Z", |b| {
        handoff(b, "escalating", "TASK-C");
        step(b, "escalating", EventType::Accepted);
        let child = escalate_handoff(b, "escalating", "ciso", "beyond budget").expect("escalate");
        step(b, &child, EventType::Accepted);
        step(b, &child, EventType::Completed);
    });
    on(&trail, "2026-03-01T10:00:00Z", |b| {
        handoff(b, "open", "TASK-D")
    });
    assert_eq!(segments(&trail).len(), 4);

    // 2026-03-15: task A completed on 01-01, kept 90 days; task B failed, kept 30 days
    // but its segment comes after A's, and only a prefix goes.
    let early = trail.ok(&["prune", "--now", "2026-03-15T00:00:00Z"]);
    assert!(early.contains("nothing to prune"), "{early}");
    assert_eq!(segments(&trail).len(), 4);

    // 2026-04-02: A is past 90 days, B past 30: both segments go. The escalation
    // (180 days from 02-01) and the open task D stay.
    let dry = trail.ok(&["prune", "--now", "2026-04-02T00:00:00Z", "--dry-run"]);
    assert!(
        dry.contains("would remove") && dry.contains("2026-01-02.jsonl"),
        "{dry}"
    );
    assert_eq!(segments(&trail).len(), 4, "a dry run removes nothing");
    let pruned = trail.ok(&["prune", "--now", "2026-04-02T00:00:00Z"]);
    assert!(pruned.contains("ANCHOR: seq 4"), "{pruned}");
    assert_eq!(segments(&trail), ["2026-02-01.jsonl", "2026-03-01.jsonl"]);
    assert!(trail.path().join("ANCHOR").exists());
    let verified = trail.run(&["verify"]);
    assert_eq!(verified.code, 0, "{}", verified.stdout);

    // Years later the escalation may go, but never the open task's segment.
    trail.ok(&["prune", "--now", "2030-01-01T00:00:00Z"]);
    assert_eq!(segments(&trail), ["2026-03-01.jsonl"]);
    assert_eq!(trail.run(&["verify"]).code, 0);
    // The chain goes on from the anchor.
    trail.ok(&["accept", "open"]);
    assert_eq!(trail.run(&["verify"]).code, 0);
}

#[test]
fn a_broken_trail_is_never_pruned() {
    let trail = TestTrail::new();
    on(&trail, "2026-01-01T10:00:00Z", |b| {
        handoff(b, "done", "TASK-A");
        step(b, "done", EventType::Accepted);
        step(b, "done", EventType::Completed);
    });
    on(&trail, "2026-06-01T10:00:00Z", |b| {
        handoff(b, "open", "TASK-B")
    });
    let first = trail.segments()[0].clone();
    let text = std::fs::read_to_string(&first).expect("segment");
    std::fs::write(&first, text.replace("\"accepted\"", "\"rejected\"")).expect("edit");
    let before = trail.snapshot();
    let run = trail.run(&["prune", "--now", "2030-01-01T00:00:00Z"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("not pruned"), "{}", run.stdout);
    assert_eq!(trail.snapshot(), before);
}
