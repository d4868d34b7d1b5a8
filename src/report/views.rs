//! The trail's views for a person: `show`, `list` and `history` (human, JSON,
//! Mermaid), laid out by templates (`trail-show`, `trail-list`, `trail-history`).

use super::{Format, Report};
use crate::trail::{views, EventType, Filter, HandoffRow, HandoffView, Trail, TrailError};
use serde::Serialize;
use serde_json::{json, Value};

/// `trail show ID`: one handoff as 004's "View Handoff" lays it out.
#[derive(Debug, Clone)]
pub struct ShowReport(pub HandoffView);

impl Report for ShowReport {
    const NAME: &'static str = "trail-show";
    const FORMATS: &'static [Format] = &[Format::Human, Format::Json];
    type Contract = HandoffView;

    fn contract(&self) -> &HandoffView {
        &self.0
    }

    /// The view, with `label` (the status as 004 writes it), `took` (the duration
    /// spelled) and `files` (what was delivered, counted).
    fn context(&self, _format: Format) -> Value {
        described(&self.0)
    }
}

/// `trail list`: the handoffs still open (or all), oldest first, with their age.
#[derive(Debug, Clone)]
pub struct ListReport(pub Vec<HandoffRow>);

impl Report for ListReport {
    const NAME: &'static str = "trail-list";
    const FORMATS: &'static [Format] = &[Format::Human, Format::Json, Format::Markdown];
    type Contract = Vec<HandoffRow>;

    fn contract(&self) -> &Vec<HandoffRow> {
        &self.0
    }

    /// `rows`: each handoff with `label` and `age` spelled.
    fn context(&self, _format: Format) -> Value {
        let rows: Vec<Value> = self
            .0
            .iter()
            .map(|row| {
                let mut value = serde_json::to_value(row).unwrap_or_default();
                value["label"] = status_label(row.status).into();
                value["age"] = duration_text(row.age_ms).into();
                value
            })
            .collect();
        json!({ "rows": rows })
    }
}

/// `trail history`: the handoffs of a task or a workflow, in the order they began.
#[derive(Debug, Clone, Serialize)]
pub struct HandoffHistory {
    /// `task` or `workflow`.
    pub of: &'static str,
    /// The task's or workflow's id.
    pub id: String,
    /// Its handoffs, in the order of their first event.
    pub handoffs: Vec<HandoffView>,
}

impl HandoffHistory {
    /// The handoffs of task `id`.
    pub fn of_task(trail: &Trail, id: String) -> Result<HandoffHistory, TrailError> {
        let filter = Filter {
            task: Some(id.clone()),
            ..Filter::default()
        };
        HandoffHistory::read(trail, "task", id, &filter)
    }

    /// The handoffs of workflow `id`.
    pub fn of_workflow(trail: &Trail, id: String) -> Result<HandoffHistory, TrailError> {
        let filter = Filter {
            workflow: Some(id.clone()),
            ..Filter::default()
        };
        HandoffHistory::read(trail, "workflow", id, &filter)
    }

    fn read(
        trail: &Trail,
        of: &'static str,
        id: String,
        filter: &Filter,
    ) -> Result<HandoffHistory, TrailError> {
        let handoffs = views(trail, filter)?;
        Ok(HandoffHistory { of, id, handoffs })
    }
}

/// `trail history`: 004's vertical chain (human), the views (JSON), or a Mermaid
/// sequence diagram GitHub draws in a comment.
#[derive(Debug, Clone)]
pub struct HistoryReport(pub HandoffHistory);

impl Report for HistoryReport {
    const NAME: &'static str = "trail-history";
    const FORMATS: &'static [Format] = &[Format::Human, Format::Json, Format::Mermaid];
    type Contract = HandoffHistory;

    fn contract(&self) -> &HandoffHistory {
        &self.0
    }

    /// `of`, `id`, `handoffs` (each [`described`]), and for Mermaid `participants`
    /// (`alias`, `name`) with each handoff's `from` and `to` aliases.
    fn context(&self, _format: Format) -> Value {
        let mut names: Vec<&str> = Vec::new();
        for view in &self.0.handoffs {
            for name in [&view.from_agent, &view.to_agent] {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
        }
        let alias = |name: &str| {
            let index = names.iter().position(|n| *n == name).unwrap_or(0);
            format!("A{index}")
        };
        let handoffs: Vec<Value> = self
            .0
            .handoffs
            .iter()
            .map(|view| {
                let mut value = described(view);
                value["from"] = alias(&view.from_agent).into();
                value["to"] = alias(&view.to_agent).into();
                value["rule"] = rule(&view.to_agent).into();
                value["said"] = mermaid_text(view.reason.as_deref().unwrap_or("")).into();
                value["why"] = mermaid_text(view.failure.as_deref().unwrap_or("")).into();
                value
            })
            .collect();
        let participants: Vec<Value> = names
            .iter()
            .map(|name| json!({"alias": alias(name), "name": mermaid_text(name)}))
            .collect();
        json!({
            "of": self.0.of,
            "id": self.0.id,
            "handoffs": handoffs,
            "participants": participants,
        })
    }
}

/// A view for a layout: its JSON form with `label`, `took` and `files`.
fn described(view: &HandoffView) -> Value {
    let mut value = serde_json::to_value(view).unwrap_or_default();
    value["label"] = status_label(view.status).into();
    value["took"] = view.duration_ms.map(duration_text).into();
    value["files"] = files_text(view).into();
    value
}

/// The agent's line of 004's chain: its name, then a rule out to a fixed width.
fn rule(agent: &str) -> String {
    let width = 64usize.saturating_sub(agent.chars().count() + 1).max(3);
    format!("{agent} {}▶", "─".repeat(width))
}

/// A status as 004 writes it.
pub fn status_label(status: EventType) -> &'static str {
    match status {
        EventType::Initiated => "○ Pending",
        EventType::Accepted => "⟳ In progress",
        EventType::Completed => "✓ Completed",
        EventType::Failed => "⚠ Failed",
        EventType::Rejected => "✗ Rejected",
        EventType::Timeout => "⏱ Timed out",
        EventType::Escalated => "↑ Escalated",
    }
}

/// A duration for a person: `45 s`, `28 min`, `2 h 5 min`, `3 d 4 h`.
pub fn duration_text(ms: u64) -> String {
    let minutes = ms / 60_000;
    match (ms, minutes) {
        (ms, _) if ms < 60_000 => format!("{} s", ms / 1000),
        (_, m) if m < 60 => format!("{m} min"),
        (_, m) if m < 24 * 60 => match m % 60 {
            0 => format!("{} h", m / 60),
            rest => format!("{} h {rest} min", m / 60),
        },
        (_, m) => format!("{} d {} h", m / (24 * 60), (m / 60) % 24),
    }
}

/// `4 created, 1 modified, 1 test` (empty when nothing was delivered).
fn files_text(view: &HandoffView) -> String {
    let files = &view.deliverables;
    [
        (files.created.len(), "created"),
        (files.modified.len(), "modified"),
    ]
    .into_iter()
    .filter(|(count, _)| *count > 0)
    .map(|(count, what)| format!("{count} {what}"))
    .chain((!files.tests.is_empty()).then(|| match files.tests.len() {
        1 => "1 test".to_string(),
        n => format!("{n} tests"),
    }))
    .collect::<Vec<_>>()
    .join(", ")
}

/// Text that cannot break a Mermaid line: `;` and `#` as Mermaid's entity codes, line
/// breaks as spaces.
fn mermaid_text(text: &str) -> String {
    text.replace('#', "#35;")
        .replace(';', "#59;")
        .replace(['\n', '\r'], " ")
}
