//! The trail's outputs as text: one function per report and format. The library
//! renders, the CLI writes.

use super::event::Event;
use super::maintenance::{Prune, Repair};
use super::ops::Deferred;
use super::verify::Verification;
use std::fmt::Write;

/// One line per appended event: `seq 12 accepted <handoff_id>`.
pub fn appended(events: &[Event], deferred: &[Deferred]) -> String {
    let mut text = String::new();
    for event in events {
        let _ = writeln!(
            text,
            "seq {} {} {} ({} -> {}, attempt {})",
            event.seq,
            event.event_type,
            event.handoff_id,
            event.from_agent,
            event.to_agent,
            event.attempt
        );
        for warning in &event.warnings {
            let _ = writeln!(text, "  warning: {warning}");
        }
    }
    for deferral in deferred {
        let _ = writeln!(
            text,
            "{}:{}: deferred {} (no event): {}",
            deferral.file, deferral.line, deferral.handoff_id, deferral.reason
        );
    }
    text
}

/// `verify` for a person: every break as `file:line: seq N: kind: message`, then a
/// summary line.
pub fn verification_human(report: &Verification) -> String {
    let mut text = String::new();
    for found in &report.breaks {
        let place = match found.line {
            Some(line) => format!("{}:{line}", found.file.display()),
            None => found.file.display().to_string(),
        };
        let _ = writeln!(
            text,
            "{place}: error[{}]: {}",
            found.kind.as_str(),
            found.message
        );
    }
    for note in &report.notes {
        let _ = writeln!(text, "note: {note}");
    }
    let last = report.last.as_ref().map_or_else(
        || "no events".to_string(),
        |l| format!("last seq {} hash {}", l.seq, l.hash),
    );
    let verdict = match report.is_intact() {
        true => "intact".to_string(),
        false => format!("{} break(s)", report.breaks.len()),
    };
    let _ = writeln!(
        text,
        "{verdict}: {} event(s) in {} segment(s), {} handoff(s); {last}",
        report.events, report.segments, report.handoffs
    );
    text
}

/// `verify --format json`: the [`Verification`] as documented in docs/trail.md.
pub fn verification_json(report: &Verification) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

/// What `repair` did.
pub fn repair_human(report: &Repair) -> String {
    let mut text = String::new();
    match &report.removed {
        Some(torn) => {
            let _ = writeln!(
                text,
                "removed the torn line {}:{} ({} bytes, never acknowledged); its bytes are kept in {}",
                torn.segment.display(),
                torn.line,
                torn.bytes,
                torn.kept_in.display()
            );
        }
        None => text.push_str("no torn line\n"),
    }
    if let Some(head) = &report.head {
        let _ = writeln!(text, "HEAD rewritten: seq {} hash {}", head.seq, head.hash);
    }
    for found in &report.remaining {
        let place = match found.line {
            Some(line) => format!("{}:{line}", found.file.display()),
            None => found.file.display().to_string(),
        };
        let _ = writeln!(
            text,
            "{place}: error[{}]: {} (not repaired: only a torn tail and HEAD are)",
            found.kind.as_str(),
            found.message
        );
    }
    text
}

/// What `prune` did or would do.
pub fn prune_human(report: &Prune) -> String {
    let mut text = String::new();
    for found in &report.breaks {
        let _ = writeln!(
            text,
            "{}: error[{}]: {}",
            found.file.display(),
            found.kind.as_str(),
            found.message
        );
    }
    if !report.breaks.is_empty() {
        text.push_str("not pruned: the trail has breaks (`handoff trail verify`)\n");
        return text;
    }
    let verb = if report.dry_run {
        "would remove"
    } else {
        "removed"
    };
    for segment in &report.segments {
        let _ = writeln!(
            text,
            "{verb} {} ({} events)",
            segment.segment.display(),
            segment.events
        );
    }
    match (&report.anchor, report.segments.is_empty()) {
        (_, true) => text.push_str(
            "nothing to prune: every segment holds an event within its retention minimum\n",
        ),
        (Some(anchor), false) => {
            let _ = writeln!(text, "ANCHOR: seq {} hash {}", anchor.seq, anchor.hash);
        }
        (None, false) => {}
    }
    text
}

/// One event for a person: `seq  timestamp  event  handoff  from -> to  task`.
pub fn event_human(event: &Event) -> String {
    format!(
        "{:>6}  {}  {:<10} {}  {} -> {}  {}{}\n",
        event.seq,
        event.timestamp,
        event.event_type.name(),
        event.handoff_id,
        event.from_agent,
        event.to_agent,
        event.task_id().unwrap_or("-"),
        event
            .reason
            .as_deref()
            .map(|r| format!("  {r}"))
            .unwrap_or_default()
    )
}
