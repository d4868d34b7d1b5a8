//! `import`: Interaction Records turned into trail events, so a team that writes only
//! Markdown records gets the trail, its views and the audit page.
//!
//! Each Interaction Record (handoff, escalation, review, consultation, capability
//! request) is one handoff, from `From` to `To`, for its `Task ID`, `initiated` at its
//! `Timestamp`: an escalation record is an `escalation` handoff (its failure type, else
//! its request, is the decision rationale), every other kind a `sequential` one; the
//! record's kind, file and line are kept in the event's message. Its Decision adds what
//! the receiver decided, at the same time: approved → `accepted` and `completed`
//! (success); changes requested → `accepted` and `completed` (partial); rejected →
//! `rejected`; deferred, pending or absent → nothing more (the handoff stays open).
//!
//! The handoff id is derived from the record (`rec-` and 16 hex digits of the SHA-256 of
//! its task, kind, sender, receiver and timestamp), so importing twice adds nothing: a
//! handoff already on the trail gets only the events its record now implies beyond
//! where it stands (a decision written after the first import).

use super::append::Scope;
use super::chain::sha256_hex;
use super::event::{EventType, HandoffType, Outcome};
use super::ops::{follow, initiate, Initiation, Step};
use super::store::Trail;
use super::TrailError;
use crate::io::{markdown_files, Depth, Source};
use crate::record::{parse_document, DecisionStatus, InteractionType, Record, RecordKind};
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;

/// A record that could not become a handoff, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The file.
    pub file: String,
    /// The record's line.
    pub line: usize,
    /// What is missing.
    pub reason: String,
}

/// What `import` did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Imported {
    /// Records read.
    pub records: usize,
    /// Events appended.
    pub appended: usize,
    /// Records already on the trail as they stand.
    pub unchanged: usize,
    /// Records that could not be imported.
    pub skipped: Vec<Skipped>,
}

/// One record read as a handoff.
struct Planned {
    request: Initiation,
    decision: Vec<Step>,
}

/// Up to this many records, an import reads only the lines of their handoffs.
const SCOPED_IMPORT_LIMIT: usize = 64;

/// Appends the events the records of the files `paths` name imply (a directory stands
/// for every Markdown file below it), in one transaction. A file that cannot be read
/// stops the import before anything is appended.
pub fn import_files(trail: &Trail, paths: &[PathBuf]) -> Result<Imported, TrailError> {
    let mut documents = Vec::new();
    for path in paths {
        let files = match path.is_dir() {
            true => {
                markdown_files(path, Depth::All).map_err(|e| TrailError::plain(e.to_string()))?
            }
            false => vec![path.clone()],
        };
        for file in files {
            let input = Source::File(file);
            let text = input.read().map_err(|e| TrailError::plain(e.to_string()))?;
            let name = input.name();
            let records = parse_document(&name, &text).records;
            documents.push((name, records));
        }
    }
    import(trail, &documents)
}

/// Appends the events the records of `documents` (file name, records) imply, in one
/// transaction.
pub fn import(trail: &Trail, documents: &[(String, Vec<Record>)]) -> Result<Imported, TrailError> {
    let mut report = Imported::default();
    let mut planned = Vec::new();
    for (file, records) in documents {
        for record in records {
            if record.kind != RecordKind::InteractionRecord {
                continue;
            }
            report.records += 1;
            match plan(file, record) {
                Ok(plan) => planned.push(plan),
                Err(reason) => report.skipped.push(Skipped {
                    file: file.clone(),
                    line: record.line,
                    reason,
                }),
            }
        }
    }
    planned.sort_by(|a, b| a.request.timestamp.cmp(&b.request.timestamp));
    // A few records read only their handoffs' lines; many read the whole trail once
    // (each scoped line is searched for every id: 10k records re-imported took 5 s).
    let scope = match planned.len() <= SCOPED_IMPORT_LIMIT {
        true => Scope::handoffs(planned.iter().map(|p| p.request.handoff_id.clone())),
        false => Scope::All,
    };
    let (unchanged, events) = trail.transact_in(&scope, jiff::Timestamp::now(), |batch| {
        let mut unchanged = 0;
        for plan in planned {
            let id = plan.request.handoff_id.clone();
            let (done, mut added) = match batch.ledger().get(&id) {
                None => {
                    initiate(batch, plan.request)?;
                    (0, true)
                }
                Some(handoff) => (progress(handoff.state), false),
            };
            for step in plan.decision.into_iter().skip(done) {
                follow(batch, step)?;
                added = true;
            }
            unchanged += usize::from(!added);
        }
        Ok(unchanged)
    })?;
    report.unchanged = unchanged;
    report.appended = events.len();
    Ok(report)
}

/// How many of a record's decision steps a handoff in `state` already has.
fn progress(state: EventType) -> usize {
    match state {
        EventType::Initiated => 0,
        EventType::Accepted => 1,
        _ => 2,
    }
}

/// The handoff a record describes, or why it cannot be one.
fn plan(file: &str, record: &Record) -> Result<Planned, String> {
    let field = |value: Option<&str>, name: &str| {
        value
            .map(str::trim)
            .filter(|v| !v.is_empty() && !crate::record::placeholder::is_placeholder(v))
            .map(str::to_string)
            .ok_or_else(|| format!("no `{name}`: a handoff needs it"))
    };
    let task = field(record.task_id(), "Task ID")?;
    let from = field(record.from(), "From")?;
    let to = field(record.to(), "To")?;
    let timestamp = field(record.timestamp(), "Timestamp")?;
    super::time::parse_utc(&timestamp).map_err(|e| format!("`Timestamp`: {e}"))?;
    let kind = record.interaction_type().ok_or(
        "no recognised `Type` (handoff, escalation, review, consultation, capability-request)",
    )?;
    let id = format!(
        "rec-{}",
        &sha256_hex(format!("{task}\n{}\n{from}\n{to}\n{timestamp}", kind.as_str()).as_bytes())
            [..16]
    );
    let request_text = record
        .section("Request")
        .and_then(|s| s.body.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(|line| line.chars().take(200).collect::<String>());
    let reason = request_text
        .clone()
        .unwrap_or_else(|| format!("{} record", kind.as_str()));
    let handoff_type = match kind {
        InteractionType::Escalation => HandoffType::Escalation,
        _ => HandoffType::Sequential,
    };
    let mut request = Initiation::new(&from, &to, handoff_type, &task, reason);
    request.handoff_id = id.clone();
    request.timestamp = Some(timestamp.clone());
    request.risk_level = record.risk_class();
    if kind == InteractionType::Escalation {
        request.decision_rationale = Some(
            record
                .failure_type()
                .map(|f| format!("failure type: {}", f.as_str()))
                .or(request_text)
                .unwrap_or_else(|| "escalated (imported record)".into()),
        );
    }
    let decision = record.decision();
    request.message = Some(json!({
        "record": {"file": file, "line": record.line, "type": kind.as_str()},
        "decision": {"status": decision.status.as_str(), "by": decision.by, "line": decision.line},
    }));
    let step = |event_type| Step {
        timestamp: Some(timestamp.clone()),
        ..Step::new(&id, event_type)
    };
    let completed = |outcome| Step {
        outcome: Some(outcome),
        reason: decision.text.clone(),
        ..step(EventType::Completed)
    };
    let decision = match decision.status {
        DecisionStatus::Approved => vec![step(EventType::Accepted), completed(Outcome::Success)],
        DecisionStatus::ChangesRequested => {
            vec![step(EventType::Accepted), completed(Outcome::Partial)]
        }
        DecisionStatus::Rejected => vec![Step {
            reason: decision.text.clone().or(Some("rejected".into())),
            ..step(EventType::Rejected)
        }],
        _ => Vec::new(),
    };
    Ok(Planned { request, decision })
}
