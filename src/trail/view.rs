//! Views of the trail for a person (seed 004): one handoff (`show`), the handoffs still
//! open (`list`), and the chain of a task or a workflow (`history`).
//!
//! Each is built in one streamed pass: `show` and `history` read only the lines that hold
//! their id (the query's literal prefilter); `list` folds the [`Ledger`] over the lines
//! of the handoffs still open only ([`super::open`]), `list --all` over the trail.
//! A [`HandoffView`] is what 004's "View Handoff" prints: agents, status, duration, the
//! context transferred and the expectations (from the handoff message kept in the
//! `initiated` event), the deliverables and the verification (from the completion
//! message), the failure and its rollback target, and every event.

use super::event::{Event, EventType, HandoffType};
use super::lifecycle::Ledger;
use super::open::open_ledger;
use super::query::{query, Filter};
use super::store::Trail;
use super::time;
use super::TrailError;
use crate::policy::RiskClass;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// One event of a handoff, in short.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventSummary {
    /// Its position in the trail.
    pub seq: u64,
    /// What happened.
    pub event_type: EventType,
    /// When.
    pub timestamp: String,
    /// Why, when the event says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// An acceptance criterion of the handoff, ticked when the completion says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Expectation {
    /// The criterion as the handoff states it.
    pub criterion: String,
    /// Whether the completion reports it met (`null`: not reported).
    pub met: Option<bool>,
}

/// The files a completion reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Deliverables {
    /// Files created.
    pub created: Vec<String>,
    /// Files modified.
    pub modified: Vec<String>,
    /// Test files created.
    pub tests: Vec<String>,
}

impl Deliverables {
    /// Whether no file is reported.
    pub fn is_empty(&self) -> bool {
        self.created.is_empty() && self.modified.is_empty() && self.tests.is_empty()
    }
}

/// One check a completion reports (`tests_passing` → `tests`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerificationCheck {
    /// The check.
    pub check: String,
    /// Whether it passed.
    pub passing: bool,
}

/// One handoff as a person reads it (004's "View Handoff").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HandoffView {
    /// The handoff's id.
    pub handoff_id: String,
    /// The sender.
    pub from_agent: String,
    /// The receiver.
    pub to_agent: String,
    /// Its type.
    pub handoff_type: HandoffType,
    /// Its last event: where it stands.
    pub status: EventType,
    /// The current attempt.
    pub attempt: u32,
    /// The task.
    pub task_id: Option<String>,
    /// The workflow.
    pub workflow_id: Option<String>,
    /// The handoff it escalates or re-routes.
    pub parent_handoff: Option<String>,
    /// Why it was handed over.
    pub reason: Option<String>,
    /// Its risk.
    pub risk_level: Option<RiskClass>,
    /// When it was first initiated.
    pub initiated_at: String,
    /// When its last event happened.
    pub updated_at: String,
    /// From the first `initiated` to its final event, once it has ended.
    pub duration_ms: Option<u64>,
    /// Who work returns to on failure.
    pub rollback_to: Option<String>,
    /// Why it failed (or was rejected, or escalated).
    pub failure: Option<String>,
    /// The context the handoff transferred, one line per item.
    pub context: Vec<String>,
    /// Its acceptance criteria.
    pub expectations: Vec<Expectation>,
    /// The files delivered.
    pub deliverables: Deliverables,
    /// The checks reported.
    pub verification: Vec<VerificationCheck>,
    /// The completion's notes.
    pub notes: Vec<String>,
    /// Every event, in trail order.
    pub events: Vec<EventSummary>,
}

impl HandoffView {
    fn new(event: &Event) -> HandoffView {
        HandoffView {
            handoff_id: event.handoff_id.clone(),
            from_agent: event.from_agent.clone(),
            to_agent: event.to_agent.clone(),
            handoff_type: event.handoff_type,
            status: event.event_type,
            attempt: event.attempt,
            task_id: event.task_id().map(str::to_string),
            workflow_id: event.workflow_id.clone(),
            parent_handoff: event.parent_handoff.clone(),
            reason: event.reason.clone(),
            risk_level: event.risk_level,
            initiated_at: event.timestamp.clone(),
            updated_at: event.timestamp.clone(),
            duration_ms: None,
            rollback_to: None,
            failure: None,
            context: Vec::new(),
            expectations: Vec::new(),
            deliverables: Deliverables::default(),
            verification: Vec::new(),
            notes: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Whether it has ended.
    pub fn is_closed(&self) -> bool {
        matches!(
            self.status,
            EventType::Rejected | EventType::Completed | EventType::Failed | EventType::Escalated
        )
    }

    /// Milliseconds from its first `initiated` to `now` (for a handoff still open) or
    /// to its final event.
    pub fn age_ms(&self, now_ms: i64) -> Option<u64> {
        let start = time::parse_utc(&self.initiated_at).ok()?;
        let end = match self.is_closed() {
            true => time::parse_utc(&self.updated_at).ok()?,
            false => return u64::try_from(now_ms - time::millis(start)).ok(),
        };
        u64::try_from(time::millis(end) - time::millis(start)).ok()
    }

    /// Folds one more event of the handoff in.
    fn apply(&mut self, event: &Event) {
        self.status = event.event_type;
        self.attempt = event.attempt;
        self.updated_at = event.timestamp.clone();
        self.duration_ms = event.duration_ms.or(self.duration_ms);
        if self.risk_level.is_none() {
            self.risk_level = event.risk_level;
        }
        if let Some(target) = &event.rollback_to {
            self.rollback_to = Some(target.clone());
        }
        self.events.push(EventSummary {
            seq: event.seq,
            event_type: event.event_type,
            timestamp: event.timestamp.clone(),
            reason: event.reason.clone(),
        });
        match event.event_type {
            EventType::Initiated if self.context.is_empty() => {
                if let Some(message) = event.message_value() {
                    self.context = context_lines(&message);
                    self.expectations = expectations(&message);
                }
            }
            EventType::Completed => {
                if let Some(message) = event.message_value() {
                    self.complete(&message);
                }
            }
            EventType::Failed | EventType::Rejected | EventType::Escalated => {
                self.failure = event.reason.clone().or_else(|| self.failure.take());
            }
            _ => {}
        }
    }

    /// Deliverables, verification, notes and ticked criteria from a completion message.
    fn complete(&mut self, message: &Value) {
        for deliverable in array(message, "/deliverables") {
            let files = |key: &str| strings(deliverable.get(key));
            self.deliverables.created.extend(files("files_created"));
            self.deliverables.modified.extend(files("files_modified"));
            self.deliverables.tests.extend(files("tests_created"));
        }
        if let Some(Value::Object(checks)) = message.pointer("/verification") {
            for (key, value) in checks {
                if let Value::Bool(passing) = value {
                    let check = key.strip_suffix("_passing").unwrap_or(key);
                    let check = if check == "type_check" {
                        "types"
                    } else {
                        check
                    };
                    self.verification.push(VerificationCheck {
                        check: check.to_string(),
                        passing: *passing,
                    });
                }
            }
        }
        for met in array(message, "/verification/acceptance_criteria_met") {
            let (Some(criterion), Some(done)) = (
                met.get("criterion").and_then(Value::as_str),
                met.get("met").and_then(Value::as_bool),
            ) else {
                continue;
            };
            match self
                .expectations
                .iter_mut()
                .find(|e| e.criterion == criterion)
            {
                Some(expectation) => expectation.met = Some(done),
                None => self.expectations.push(Expectation {
                    criterion: criterion.to_string(),
                    met: Some(done),
                }),
            }
        }
        self.notes.extend(strings(message.get("notes")));
    }
}

fn array<'v>(value: &'v Value, pointer: &str) -> &'v [Value] {
    value
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A value in one line: a string as it is, anything else as compact JSON.
fn inline(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(inline).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// What the canonical handoff transferred: the project, its artifacts, its variables.
fn context_lines(message: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(project) = message.pointer("/context/project") {
        let name = project.get("name").map(inline).unwrap_or_default();
        match project.get("tech_stack") {
            Some(stack) => lines.push(format!("Project: {name} ({})", inline(stack))),
            None if !name.is_empty() => lines.push(format!("Project: {name}")),
            None => {}
        }
    }
    for artifact in array(message, "/context/artifacts") {
        let kind = artifact.get("type").map_or("artifact".into(), inline);
        let what = ["path", "content", "description"]
            .iter()
            .find_map(|key| artifact.get(*key))
            .map(inline)
            .unwrap_or_default();
        lines.push(format!("{kind}: {what}"));
    }
    if let Some(Value::Object(variables)) = message.pointer("/context/context_variables") {
        for (key, value) in variables {
            lines.push(format!("{key}: {}", inline(value)));
        }
    }
    lines
}

/// The acceptance criteria of the handoff's expected deliverables (004).
fn expectations(message: &Value) -> Vec<Expectation> {
    array(message, "/expectations/deliverables")
        .iter()
        .flat_map(|deliverable| strings(deliverable.get("acceptance_criteria")))
        .map(|criterion| Expectation {
            criterion,
            met: None,
        })
        .collect()
}

/// Handoff views folded from events, in the order of their first event.
#[derive(Debug, Default)]
pub struct HandoffViews {
    order: Vec<String>,
    views: HashMap<String, HandoffView>,
}

impl HandoffViews {
    /// Folds one event in.
    pub fn apply(&mut self, event: &Event) {
        let view = self
            .views
            .entry(event.handoff_id.clone())
            .or_insert_with(|| {
                self.order.push(event.handoff_id.clone());
                HandoffView::new(event)
            });
        view.apply(event);
    }

    /// The views, in the order of their first event.
    pub fn into_vec(mut self) -> Vec<HandoffView> {
        self.order
            .iter()
            .filter_map(|id| self.views.remove(id))
            .collect()
    }
}

/// The views of the handoffs whose events match `filter`, in trail order.
pub fn views(trail: &Trail, filter: &Filter) -> Result<Vec<HandoffView>, TrailError> {
    let mut views = HandoffViews::default();
    query(trail, filter, |event, _| {
        views.apply(event);
        Ok(())
    })?;
    Ok(views.into_vec())
}

/// One handoff (`show`), or `None` when the trail never names it.
pub fn show(trail: &Trail, handoff_id: &str) -> Result<Option<HandoffView>, TrailError> {
    let filter = Filter {
        handoff: Some(handoff_id.to_string()),
        ..Filter::default()
    };
    Ok(views(trail, &filter)?.into_iter().next())
}

/// A row of `list`: a handoff and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandoffRow {
    /// The handoff's id.
    pub handoff_id: String,
    /// The sender.
    pub from_agent: String,
    /// The receiver.
    pub to_agent: String,
    /// Its last event.
    pub status: EventType,
    /// The current attempt.
    pub attempt: u32,
    /// The task.
    pub task_id: Option<String>,
    /// When it was first initiated.
    pub initiated_at: String,
    /// When its last event happened.
    pub updated_at: String,
    /// Milliseconds since it was initiated (to its end, once it has ended).
    pub age_ms: u64,
}

/// The handoffs still open (with `all`, every handoff), of `agent` when given (as
/// sender or receiver), oldest first, with their age at `now`.
pub fn list(
    trail: &Trail,
    agent: Option<&str>,
    all: bool,
    now: jiff::Timestamp,
) -> Result<Vec<HandoffRow>, TrailError> {
    let ledger = match all {
        true => {
            let mut ledger = Ledger::new();
            trail.for_each_event(|event, _| {
                ledger.apply(&event);
                Ok(())
            })?;
            ledger
        }
        false => open_ledger(trail)?,
    };
    let now_ms = time::millis(now);
    let since = |text: &str, until: i64| {
        time::parse_utc(text)
            .ok()
            .and_then(|start| u64::try_from(until - time::millis(start)).ok())
            .unwrap_or(0)
    };
    let mut rows: Vec<HandoffRow> = ledger
        .handoffs()
        .filter(|h| all || !h.is_closed())
        .filter(|h| agent.is_none_or(|a| h.from_agent == a || h.to_agent == a))
        .map(|h| {
            let end = match h.is_closed() {
                true => time::parse_utc(&h.last_timestamp).map_or(now_ms, time::millis),
                false => now_ms,
            };
            HandoffRow {
                handoff_id: h.id.clone(),
                from_agent: h.from_agent.clone(),
                to_agent: h.to_agent.clone(),
                status: h.state,
                attempt: h.attempt,
                task_id: h.task_id().map(str::to_string),
                initiated_at: h.initiated_at.clone(),
                updated_at: h.last_timestamp.clone(),
                age_ms: since(&h.initiated_at, end),
            }
        })
        .collect();
    rows.sort_by(|a, b| (&a.initiated_at, &a.handoff_id).cmp(&(&b.initiated_at, &b.handoff_id)));
    Ok(rows)
}
