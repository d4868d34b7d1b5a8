//! `repair` and `prune`: the only two commands that remove anything from a trail,
//! and both only what the rules allow.
//!
//! `repair` removes a torn last line (a write a crash interrupted: its append never
//! returned) and keeps its bytes in `<segment>.torn` beside the segment, then rewrites
//! a missing or stale `HEAD` from an intact chain. It never touches a break it cannot
//! explain by a crash: an edited, deleted or truncated trail stays as it is for a
//! person to look at.
//!
//! `prune` applies 002 §7.3's minimums: events of a task are kept until 30 days after
//! the task's final event (90 days when the task completed), escalation events 180
//! days. Only whole segments at the start of the trail go, only when every event in
//! them is past its minimum and no handoff of theirs goes on in a later segment; the
//! last pruned event's `seq` and `hash` go into `ANCHOR` first, and `verify` starts
//! from it. A trail with breaks is never pruned.

use super::error::TrailError;
use super::event::{EventType, HandoffType};
use super::lifecycle::Ledger;
use super::store::{self, ChainPoint, Trail};
use super::time;
use super::verify::verify;
use crate::diagnostic::TrailCode;
use crate::diagnostic::{shape, Code, Diagnostic};
use jiff::Timestamp;
use serde::Serialize;
use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;
/// Minimum days kept after a task's final event, when the task did not complete.
pub const ACTIVE_TASK_DAYS: i64 = 30;
/// Minimum days kept after a completed task's final event.
pub const COMPLETED_TASK_DAYS: i64 = 90;
/// Minimum days an escalation event is kept.
pub const ESCALATION_DAYS: i64 = 180;

/// A torn line `repair` removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TornLine {
    /// The segment.
    pub segment: PathBuf,
    /// Its line number.
    pub line: usize,
    /// How many bytes it had.
    pub bytes: usize,
    /// Where its bytes were kept.
    pub kept_in: PathBuf,
}

/// What `repair` did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Repair {
    /// The torn line removed, if there was one.
    pub removed: Option<TornLine>,
    /// `HEAD` as rewritten, if it was.
    pub head: Option<ChainPoint>,
    /// Breaks `repair` may not fix (an edited, deleted or truncated trail).
    #[serde(serialize_with = "shape::trail_break")]
    pub remaining: Vec<Diagnostic>,
}

/// Removes a torn tail and rewrites `HEAD` from an intact chain.
pub fn repair(trail: &Trail) -> Result<Repair, TrailError> {
    trail.with_lock(|| {
        let mut report = Repair {
            removed: remove_torn_tail(trail)?,
            ..Repair::default()
        };
        let verification = verify(trail)?;
        let head_only = verification
            .breaks
            .iter()
            .all(|b| b.code == Code::Trail(TrailCode::Head) && b.seq.is_none());
        let stale =
            verification.head.as_ref().map(|h| h.seq) != verification.last.as_ref().map(|l| l.seq);
        if head_only && (stale || !verification.breaks.is_empty()) {
            if let Some(last) = verification.last.clone() {
                trail.write_point(store::HEAD, &last)?;
                report.head = Some(last);
            }
        } else {
            report.remaining = verification.breaks;
        }
        Ok(report)
    })
}

fn remove_torn_tail(trail: &Trail) -> Result<Option<TornLine>, TrailError> {
    let Some(segment) = trail.segments()?.pop() else {
        return Ok(None);
    };
    let path = segment.path;
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| TrailError::io(&path, "open the segment", &e))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| TrailError::io(&path, "read the segment", &e))?;
    if bytes.is_empty() || bytes.last() == Some(&b'\n') {
        return Ok(None);
    }
    let keep = bytes
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |at| at + 1);
    let line = bytes[..keep].iter().filter(|b| **b == b'\n').count() + 1;
    let torn = &bytes[keep..];
    let kept_in = path.with_extension("jsonl.torn");
    let mut side = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&kept_in)
        .map_err(|e| TrailError::io(&kept_in, "keep the torn line", &e))?;
    side.write_all(torn)
        .and_then(|()| side.write_all(b"\n"))
        .and_then(|()| side.sync_all())
        .map_err(|e| TrailError::io(&kept_in, "keep the torn line", &e))?;
    file.set_len(keep as u64)
        .and_then(|()| file.seek(SeekFrom::End(0)).map(|_| ()))
        .and_then(|()| file.sync_all())
        .map_err(|e| TrailError::io(&path, "remove the torn line", &e))?;
    Ok(Some(TornLine {
        segment: path,
        line,
        bytes: torn.len(),
        kept_in,
    }))
}

/// One segment `prune` removed (or would remove).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PrunedSegment {
    /// The segment.
    pub segment: PathBuf,
    /// Events in it.
    pub events: u64,
    /// Its last event.
    pub last: Option<ChainPoint>,
}

/// What `prune` did (or, with `dry_run`, would do).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Prune {
    /// The segments removed, oldest first.
    pub segments: Vec<PrunedSegment>,
    /// The new `ANCHOR`.
    pub anchor: Option<ChainPoint>,
    /// Whether anything was actually removed.
    pub dry_run: bool,
    /// Breaks that stopped the prune.
    #[serde(serialize_with = "shape::trail_break")]
    pub breaks: Vec<Diagnostic>,
}

/// The close of one task: when its last handoff ended, and whether it completed.
struct TaskClose {
    open: bool,
    closed_ms: i64,
    completed: bool,
}

/// Removes the segments every event of which is past its retention minimum at `now`.
pub fn prune(trail: &Trail, now: Timestamp, dry_run: bool) -> Result<Prune, TrailError> {
    trail.with_lock(|| {
        let verification = verify(trail)?;
        if !verification.is_intact() {
            return Ok(Prune {
                breaks: verification.breaks,
                dry_run,
                ..Prune::default()
            });
        }
        let anchor = trail.anchor()?;
        let mut ledger = Ledger::new();
        trail.for_each_event(|event, _| {
            ledger.apply(&event);
            Ok(())
        })?;
        let tasks = task_closes(&ledger);
        let plan = plan(trail, &ledger, &tasks, time::millis(now), anchor.as_ref())?;
        let mut report = Prune {
            anchor: plan.last().and_then(|s| s.last.clone()).or(anchor),
            segments: plan,
            dry_run,
            breaks: Vec::new(),
        };
        if dry_run || report.segments.is_empty() {
            if report.segments.is_empty() {
                report.anchor = None;
            }
            return Ok(report);
        }
        if let Some(point) = &report.anchor {
            trail.write_point(store::ANCHOR, point)?;
        }
        for segment in &report.segments {
            fs::remove_file(&segment.segment)
                .map_err(|e| TrailError::io(&segment.segment, "remove the pruned segment", &e))?;
        }
        Ok(report)
    })
}

fn task_closes(ledger: &Ledger) -> HashMap<String, TaskClose> {
    let mut tasks: HashMap<String, TaskClose> = HashMap::new();
    for handoff in ledger.handoffs() {
        let Some(task) = handoff.task_id() else {
            continue;
        };
        let ended = time::parse_utc(&handoff.last_timestamp)
            .map(time::millis)
            .unwrap_or(i64::MAX);
        let entry = tasks.entry(task.to_string()).or_insert(TaskClose {
            open: false,
            closed_ms: i64::MIN,
            completed: false,
        });
        entry.open |= !handoff.is_closed();
        if ended >= entry.closed_ms {
            entry.closed_ms = ended;
            entry.completed = handoff.state == EventType::Completed;
        }
    }
    tasks
}

/// The prefix of segments that may go.
fn plan(
    trail: &Trail,
    ledger: &Ledger,
    tasks: &HashMap<String, TaskClose>,
    now_ms: i64,
    anchor: Option<&ChainPoint>,
) -> Result<Vec<PrunedSegment>, TrailError> {
    let mut plan = Vec::new();
    let mut candidate: Vec<PrunedSegment> = Vec::new();
    let mut reach: u64 = 0;
    for segment in trail.segments()? {
        let mut events = 0;
        let mut last = None;
        let mut prunable = true;
        let mut reader_error = None;
        let file = fs::File::open(&segment.path)
            .map_err(|e| TrailError::io(&segment.path, "read the segment", &e))?;
        for (number, text) in
            std::io::BufRead::split(std::io::BufReader::new(file), b'\n').enumerate()
        {
            let text = text.map_err(|e| TrailError::io(&segment.path, "read the segment", &e))?;
            let event: super::event::Event = match serde_json::from_slice(&text) {
                Ok(event) => event,
                Err(error) => {
                    reader_error = Some(TrailError::at(
                        &segment.path,
                        Some(number + 1),
                        format!("is not an audit event ({error})"),
                    ));
                    break;
                }
            };
            events += 1;
            let before_anchor = anchor.is_some_and(|a| event.seq <= a.seq);
            if !before_anchor {
                prunable &= past_minimum(&event, tasks, now_ms);
                reach = reach.max(
                    ledger
                        .get(&event.handoff_id)
                        .map_or(event.seq, |h| h.last_seq),
                );
            }
            last = Some(ChainPoint {
                seq: event.seq,
                hash: event.hash,
            });
        }
        if let Some(error) = reader_error {
            return Err(error);
        }
        if !prunable {
            break;
        }
        let last_seq = last.as_ref().map(|l| l.seq);
        candidate.push(PrunedSegment {
            segment: segment.path,
            events,
            last,
        });
        if last_seq.is_some_and(|seq| reach <= seq) {
            plan.append(&mut candidate);
        }
    }
    Ok(plan)
}

fn past_minimum(
    event: &super::event::Event,
    tasks: &HashMap<String, TaskClose>,
    now_ms: i64,
) -> bool {
    let Some(task) = event.task_id().and_then(|t| tasks.get(t)) else {
        return false;
    };
    if task.open {
        return false;
    }
    let days = if task.completed {
        COMPLETED_TASK_DAYS
    } else {
        ACTIVE_TASK_DAYS
    };
    let mut keep_until = task.closed_ms.saturating_add(days * DAY_MS);
    let escalation =
        event.event_type == EventType::Escalated || event.handoff_type == HandoffType::Escalation;
    if escalation {
        let at = time::parse_utc(&event.timestamp)
            .map(time::millis)
            .unwrap_or(i64::MAX);
        keep_until = keep_until.max(at.saturating_add(ESCALATION_DAYS * DAY_MS));
    }
    now_ms >= keep_until
}
