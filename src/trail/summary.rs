//! The trail summarised for a team lead's audit page, in one streamed pass: where each
//! task stands (open, blocked, escalated, done; its risk, who holds it, its age), a
//! timeline of the most recently active tasks, and the counts behind the small charts
//! (handoffs per receiving agent, handoffs by status, time to accept and to complete).
//!
//! Memory is one small entry per handoff, not the events.

use super::event::EventType;
use super::store::{ChainPoint, Trail};
use super::time;
use super::TrailError;
use crate::policy::RiskClass;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Timelines drawn: the tasks with the latest activity.
pub const TIMELINE_TASKS: usize = 12;
/// Handoffs drawn in one task's timeline (its first ones).
pub const TIMELINE_BARS: usize = 24;
/// Rows of the task table (the tasks with the latest activity).
pub const TASK_ROWS: usize = 1000;

/// Where one task stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskRow {
    /// The task.
    pub task_id: String,
    /// `open`, `blocked`, `escalated` or `done`.
    pub status: &'static str,
    /// The highest risk any of its handoffs declares.
    pub risk: Option<RiskClass>,
    /// The receiver of its latest open handoff.
    pub holder: Option<String>,
    /// Its handoffs.
    pub handoffs: usize,
    /// When its first handoff began.
    pub started_at: String,
    /// When its last event happened.
    pub updated_at: String,
    /// From its first handoff to `now` (open) or to its last event.
    pub age_ms: u64,
}

/// One handoff in a timeline, placed on a 0–1000 scale of its task's span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bar {
    /// The handoff.
    pub handoff_id: String,
    /// Sender.
    pub from_agent: String,
    /// Receiver.
    pub to_agent: String,
    /// Its last event.
    pub status: EventType,
    /// Whether it has not ended.
    pub open: bool,
    /// Who work went back to, when it failed with a rollback target.
    pub rollback_to: Option<String>,
    /// Left edge, 0–1000.
    pub x: u32,
    /// Width, at least 4.
    pub width: u32,
}

/// A task's handoffs on one time axis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timeline {
    /// The task.
    pub task_id: String,
    /// Where the axis starts.
    pub from: String,
    /// Where it ends.
    pub until: String,
    /// The handoffs, in the order they began.
    pub bars: Vec<Bar>,
    /// Handoffs left out of the picture (beyond [`TIMELINE_BARS`]).
    pub more: usize,
}

/// A label and its count, with its share of the largest count (0–100) for a bar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counted {
    /// What is counted.
    pub label: String,
    /// How many.
    pub count: usize,
    /// Percent of the largest count of its chart.
    pub share: u32,
}

/// A distribution of durations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Spread {
    /// How many were measured.
    pub count: usize,
    /// The median, in milliseconds.
    pub median_ms: Option<u64>,
    /// The 90th percentile, in milliseconds.
    pub p90_ms: Option<u64>,
}

/// The trail summarised.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TrailSummary {
    /// Events read.
    pub events: u64,
    /// Handoffs seen.
    pub handoffs: usize,
    /// Tasks seen.
    pub tasks: usize,
    /// The last event of the chain.
    pub last: Option<ChainPoint>,
    /// Tasks by status.
    pub by_status: Vec<Counted>,
    /// The tasks with the latest activity first (at most [`TASK_ROWS`]).
    pub task_rows: Vec<TaskRow>,
    /// Timelines of the tasks with the latest activity.
    pub timelines: Vec<Timeline>,
    /// Handoffs per receiving agent, most first.
    pub per_agent: Vec<Counted>,
    /// Handoffs by their last event.
    pub handoff_states: Vec<Counted>,
    /// Escalation events.
    pub escalations: usize,
    /// From `initiated` to `accepted`.
    pub to_accept: Spread,
    /// From the first `initiated` to `completed`.
    pub to_complete: Spread,
}

/// One handoff, as much as the summary needs.
struct Entry {
    id: String,
    task: String,
    from: String,
    to: String,
    state: EventType,
    risk: Option<RiskClass>,
    rollback_to: Option<String>,
    started: i64,
    ended: i64,
    started_at: String,
    last_at: String,
    order: u64,
}

fn is_closed(state: EventType) -> bool {
    matches!(
        state,
        EventType::Rejected | EventType::Completed | EventType::Failed | EventType::Escalated
    )
}

/// Reads the trail once and summarises it at `now`.
pub fn summarise(trail: &Trail, now: jiff::Timestamp) -> Result<TrailSummary, TrailError> {
    let now_ms = time::millis(now);
    let mut entries: HashMap<String, Entry> = HashMap::new();
    let mut summary = TrailSummary::default();
    let (mut accepts, mut completes) = (Vec::new(), Vec::new());
    trail.for_each_event(|event, _| {
        summary.events += 1;
        summary.last = Some(ChainPoint {
            seq: event.seq,
            hash: event.hash.clone(),
        });
        let at = time::parse_utc(&event.timestamp).map_or(now_ms, time::millis);
        let order = entries.len() as u64;
        let entry = entries
            .entry(event.handoff_id.clone())
            .or_insert_with(|| Entry {
                id: event.handoff_id.clone(),
                task: event.task_id().unwrap_or("-").to_string(),
                from: event.from_agent.clone(),
                to: event.to_agent.clone(),
                state: event.event_type,
                risk: None,
                rollback_to: None,
                started: at,
                ended: at,
                started_at: event.timestamp.clone(),
                last_at: event.timestamp.clone(),
                order,
            });
        match event.event_type {
            EventType::Accepted => accepts.push(at - entry.started),
            EventType::Completed => completes.push(at - entry.started),
            EventType::Escalated => summary.escalations += 1,
            _ => {}
        }
        entry.state = event.event_type;
        entry.ended = at;
        entry.last_at = event.timestamp.clone();
        entry.risk = entry.risk.max(event.risk_level);
        if event.event_type == EventType::Failed {
            entry.rollback_to = event.rollback_to.clone();
        }
        Ok(())
    })?;
    summary.handoffs = entries.len();
    summary.to_accept = spread(accepts);
    summary.to_complete = spread(completes);
    let mut per_agent: BTreeMap<&str, usize> = BTreeMap::new();
    let mut states: BTreeMap<&str, usize> = BTreeMap::new();
    let mut tasks: HashMap<&str, Vec<&Entry>> = HashMap::new();
    for entry in entries.values() {
        *per_agent.entry(&entry.to).or_default() += 1;
        *states.entry(entry.state.name()).or_default() += 1;
        tasks.entry(&entry.task).or_default().push(entry);
    }
    summary.per_agent = counted(per_agent, 15);
    summary.handoff_states = counted(states, usize::MAX);
    summary.tasks = tasks.len();
    let mut rows: Vec<(i64, TaskRow, Vec<&Entry>)> = tasks
        .into_iter()
        .map(|(task, mut handoffs)| {
            handoffs.sort_by_key(|e| (e.started, e.order));
            let latest = handoffs.iter().map(|e| e.ended).max().unwrap_or(now_ms);
            (latest, task_row(task, &handoffs, now_ms), handoffs)
        })
        .collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.task_id.cmp(&b.1.task_id)));
    let mut by_status: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, row, _) in &rows {
        *by_status.entry(row.status).or_default() += 1;
    }
    summary.by_status = counted(by_status, usize::MAX);
    summary.timelines = rows
        .iter()
        .take(TIMELINE_TASKS)
        .map(|(_, row, handoffs)| timeline(&row.task_id, handoffs, now_ms))
        .collect();
    summary.task_rows = rows
        .into_iter()
        .take(TASK_ROWS)
        .map(|(_, row, _)| row)
        .collect();
    Ok(summary)
}

fn task_row(task: &str, handoffs: &[&Entry], now_ms: i64) -> TaskRow {
    let open: Vec<&&Entry> = handoffs.iter().filter(|e| !is_closed(e.state)).collect();
    let last_ended = handoffs.iter().max_by_key(|e| (e.ended, e.order));
    let status = match (open.last(), last_ended.map(|e| e.state)) {
        (Some(e), _) if e.state == EventType::Timeout => "blocked",
        (Some(_), _) => "open",
        (None, Some(EventType::Completed)) => "done",
        (None, Some(EventType::Escalated)) => "escalated",
        _ => "blocked",
    };
    let first = handoffs.first().map_or(now_ms, |e| e.started);
    let last = handoffs.iter().map(|e| e.ended).max().unwrap_or(now_ms);
    let end = if open.is_empty() { last } else { now_ms };
    TaskRow {
        task_id: task.to_string(),
        status,
        risk: handoffs.iter().filter_map(|e| e.risk).max(),
        holder: open.last().map(|e| e.to.clone()),
        handoffs: handoffs.len(),
        started_at: handoffs
            .first()
            .map(|e| e.started_at.clone())
            .unwrap_or_default(),
        updated_at: handoffs
            .iter()
            .max_by_key(|e| e.ended)
            .map(|e| e.last_at.clone())
            .unwrap_or_default(),
        age_ms: u64::try_from(end - first).unwrap_or(0),
    }
}

fn timeline(task: &str, handoffs: &[&Entry], now_ms: i64) -> Timeline {
    let shown = &handoffs[..handoffs.len().min(TIMELINE_BARS)];
    // The axis ends at the task's last event: open handoffs run to it (drawn dashed),
    // so a task idle for months still shows its chain rather than one long bar.
    let start = shown.iter().map(|e| e.started).min().unwrap_or(now_ms);
    let end = shown.iter().map(|e| e.ended).max().unwrap_or(now_ms);
    let end_of = |e: &Entry| if is_closed(e.state) { e.ended } else { end };
    let span = (end - start).max(1) as f64;
    let place = |at: i64| {
        (((at - start) as f64 / span) * 1000.0)
            .round()
            .clamp(0.0, 1000.0) as u32
    };
    let bars = shown
        .iter()
        .map(|e| {
            let x = place(e.started).min(996);
            Bar {
                handoff_id: e.id.clone(),
                from_agent: e.from.clone(),
                to_agent: e.to.clone(),
                status: e.state,
                open: !is_closed(e.state),
                rollback_to: e.rollback_to.clone(),
                x,
                width: place(end_of(e)).saturating_sub(x).max(4),
            }
        })
        .collect();
    let stamp = |ms: i64| {
        jiff::Timestamp::from_millisecond(ms).map_or_else(|_| String::new(), time::format)
    };
    Timeline {
        task_id: task.to_string(),
        from: stamp(start),
        until: stamp(end),
        bars,
        more: handoffs.len() - shown.len(),
    }
}

fn counted(counts: BTreeMap<&str, usize>, most: usize) -> Vec<Counted> {
    let mut rows: Vec<(&str, usize)> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    rows.truncate(most);
    shares(rows)
}

/// Rows of a small chart, in the order given, each with its share of the largest.
pub fn shares<'a>(rows: impl IntoIterator<Item = (&'a str, usize)>) -> Vec<Counted> {
    let rows: Vec<(&str, usize)> = rows.into_iter().collect();
    let top = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1);
    rows.into_iter()
        .map(|(label, count)| Counted {
            label: label.to_string(),
            count,
            share: u32::try_from(count * 100 / top).unwrap_or(100),
        })
        .collect()
}

fn spread(mut durations: Vec<i64>) -> Spread {
    durations.retain(|d| *d >= 0);
    durations.sort_unstable();
    let at = |q: usize| {
        durations
            .get((durations.len() * q / 100).min(durations.len().saturating_sub(1)))
            .and_then(|d| u64::try_from(*d).ok())
    };
    Spread {
        count: durations.len(),
        median_ms: at(50),
        p90_ms: at(90),
    }
}
