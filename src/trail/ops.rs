//! From requests to events: what `open`, `accept`, `reject`, `complete`, `fail`,
//! `escalate`, `retry` and the messages of `append` add to the trail.
//!
//! A new handoff is an [`Initiation`]; every later step is a [`Step`] on an existing
//! handoff, whose agents, type, task and attempt come from the [`Ledger`], so a step
//! needs only the handoff's id. Each is pushed into a [`Batch`], which checks it
//! against the lifecycle before anything is written.

use super::append::Batch;
use super::chain;
use super::error::TrailError;
use super::event::{ContextSnapshot, Event, EventType, HandoffType, OnTimeout, Outcome};
use super::lifecycle::{Violation, ViolationKind};
use super::time;
use super::validate::against_registry;
use crate::policy::RiskClass;
use crate::routing::Registry;
use serde_json::Value;
use std::path::Path;

/// A new handoff, as a handoff message or `handoff trail open` states it.
#[derive(Debug, Clone, PartialEq)]
pub struct Initiation {
    /// The id (a new UUIDv4 when the request gives none).
    pub handoff_id: String,
    /// When it was sent (UTC); the append time when absent.
    pub timestamp: Option<String>,
    /// The sender.
    pub from_agent: String,
    /// The receiver.
    pub to_agent: String,
    /// The type.
    pub handoff_type: HandoffType,
    /// Why.
    pub reason: String,
    /// The task.
    pub task_id: String,
    /// The task's status when handed over.
    pub task_status: Option<String>,
    /// The context variables (hashed into the snapshot).
    pub context_variables: Option<Value>,
    /// How many artifacts travel with it.
    pub artifact_count: Option<u64>,
    /// Why (escalations must say).
    pub decision_rationale: Option<String>,
    /// The risk.
    pub risk_level: Option<RiskClass>,
    /// The workflow.
    pub workflow_id: Option<String>,
    /// The handoff this one escalates or re-routes.
    pub parent_handoff: Option<String>,
    /// The escalation depth the request states (checked against the parent chain).
    pub depth: Option<u32>,
    /// Broadcast group.
    pub broadcast_group_id: Option<String>,
    /// The return timeout as written.
    pub timeout: Option<String>,
    /// What a timeout does.
    pub on_timeout: Option<OnTimeout>,
    /// Who a timeout escalates to.
    pub escalate_to: Option<String>,
    /// Who to return to on failure.
    pub rollback_to: Option<String>,
    /// Capabilities required.
    pub required_capabilities: Vec<String>,
    /// Warnings from validation (a capability gap).
    pub warnings: Vec<String>,
    /// The message it came from.
    pub message: Option<Value>,
}

impl Initiation {
    /// A handoff with the required fields and nothing else.
    pub fn new(
        from_agent: impl Into<String>,
        to_agent: impl Into<String>,
        handoff_type: HandoffType,
        task_id: impl Into<String>,
        reason: impl Into<String>,
    ) -> Initiation {
        Initiation {
            handoff_id: new_id(),
            timestamp: None,
            from_agent: from_agent.into(),
            to_agent: to_agent.into(),
            handoff_type,
            reason: reason.into(),
            task_id: task_id.into(),
            task_status: None,
            context_variables: None,
            artifact_count: None,
            decision_rationale: None,
            risk_level: None,
            workflow_id: None,
            parent_handoff: None,
            depth: None,
            broadcast_group_id: None,
            timeout: None,
            on_timeout: None,
            escalate_to: None,
            rollback_to: None,
            required_capabilities: Vec::new(),
            warnings: Vec::new(),
            message: None,
        }
    }
}

/// What the trail appends for one message or command.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// A new handoff: `initiated`.
    Initiate(Box<Initiation>),
    /// A step on an existing handoff.
    Step(Box<Step>),
    /// An acceptance `deferred`: no event; the reason is reported.
    Defer {
        /// The handoff.
        handoff_id: String,
        /// Why it was deferred.
        reason: String,
    },
}

/// An intent located in its input, for errors that name the file and line.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// What to append.
    pub intent: Intent,
    /// The input file (`-` for standard input).
    pub file: String,
    /// The line the message starts on.
    pub line: usize,
}

/// A deferral reported by `append`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Deferred {
    /// The handoff.
    pub handoff_id: String,
    /// Why.
    pub reason: String,
    /// Where the acceptance was.
    pub file: String,
    /// Its line.
    pub line: usize,
}

/// Appends every intent, in order, in one transaction: all or nothing. A refusal names
/// the input file and line of the message that was refused.
pub fn append(
    trail: &super::Trail,
    intents: Vec<Located>,
    now: jiff::Timestamp,
) -> Result<(Vec<Deferred>, Vec<Event>), TrailError> {
    let mut ids: Vec<String> = Vec::new();
    for located in &intents {
        match &located.intent {
            Intent::Initiate(request) => {
                ids.push(request.handoff_id.clone());
                ids.extend(request.parent_handoff.clone());
            }
            Intent::Step(step) => ids.push(step.handoff_id.clone()),
            Intent::Defer { handoff_id, .. } => ids.push(handoff_id.clone()),
        }
    }
    // A few handoffs: read only theirs; a large batch reads the whole trail once.
    let scope = match ids.len() <= 64 {
        true => super::Scope::handoffs(ids),
        false => super::Scope::All,
    };
    trail.transact_in(&scope, now, |batch| {
        let mut deferred = Vec::new();
        for located in intents {
            push_intent(
                batch,
                located.intent,
                &located.file,
                located.line,
                &mut deferred,
            )?;
        }
        Ok(deferred)
    })
}

/// Pushes what one message implies; returns its event (none for a deferral, which is
/// kept in `deferred`). A refusal names `file` and `line`.
pub(crate) fn push_intent<'b>(
    batch: &'b mut Batch,
    intent: Intent,
    file: &str,
    line: usize,
    deferred: &mut Vec<Deferred>,
) -> Result<Option<&'b Event>, TrailError> {
    let place = || std::path::PathBuf::from(file);
    let pushed = match intent {
        Intent::Initiate(request) => initiate(batch, *request).map(|_| batch.events().last()),
        Intent::Step(step) => follow(batch, *step).map(Some),
        Intent::Defer { handoff_id, reason } => {
            deferred.push(Deferred {
                handoff_id,
                reason,
                file: file.to_string(),
                line,
            });
            Ok(None)
        }
    };
    pushed.map_err(|e| e.located(&place(), Some(line)))
}

/// A message kept in an event, in canonical form (so the event's line is canonical).
fn raw(message: Option<Value>) -> Option<Box<serde_json::value::RawValue>> {
    chain::canonical_raw(&message?)
}

/// A new handoff id: a UUIDv4.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A step on an existing handoff.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The handoff.
    pub handoff_id: String,
    /// What happened.
    pub event_type: EventType,
    /// When (UTC); the append time when absent.
    pub timestamp: Option<String>,
    /// Why (a rejection's or a failure's reason).
    pub reason: Option<String>,
    /// Why the decision was taken.
    pub decision_rationale: Option<String>,
    /// How it ended.
    pub outcome: Option<Outcome>,
    /// Tokens reported.
    pub tokens_consumed: Option<u64>,
    /// Who to return to (a failure's rollback target).
    pub rollback_to: Option<String>,
    /// The message it came from.
    pub message: Option<Value>,
}

impl Step {
    /// A bare step of `event_type` on `handoff_id`.
    pub fn new(handoff_id: impl Into<String>, event_type: EventType) -> Step {
        Step {
            handoff_id: handoff_id.into(),
            event_type,
            timestamp: None,
            reason: None,
            decision_rationale: None,
            outcome: None,
            tokens_consumed: None,
            rollback_to: None,
            message: None,
        }
    }

    /// The same step with a reason.
    pub fn because(mut self, reason: Option<String>) -> Step {
        self.reason = reason;
        self
    }
}

/// Opens a handoff (`handoff trail open`) in one transaction that reads only the
/// handoffs it names. A delegation must say its timeout and a broadcast its group; an
/// escalation that gives no rationale has its reason as one. With a `registry` (read
/// from its file or directory), every agent the handoff names must be in it, and a
/// capability gap becomes a warning on the event. Returns the handoff's id and the
/// events appended.
pub fn open_handoff(
    trail: &super::Trail,
    mut request: Initiation,
    registry: Option<&Path>,
    now: jiff::Timestamp,
) -> Result<(String, Vec<Event>), TrailError> {
    if request.handoff_type == HandoffType::Delegation && request.timeout.is_none() {
        return Err(TrailError::plain(
            "a delegation needs --timeout DUR (the maximum wait for the return), e.g. --timeout 30m",
        ));
    }
    if request.handoff_type == HandoffType::Broadcast && request.broadcast_group_id.is_none() {
        return Err(TrailError::plain(
            "a broadcast needs --broadcast-group ID: one handoff per recipient shares it",
        ));
    }
    let registry = match registry {
        Some(path) => Some(Registry::load(path).map_err(|e| TrailError::plain(e.to_string()))?),
        None => None,
    };
    if request.handoff_type == HandoffType::Escalation && request.decision_rationale.is_none() {
        request.decision_rationale = Some(request.reason.clone());
    }
    let scope = super::Scope::Only {
        handoffs: [request.handoff_id.clone()]
            .into_iter()
            .chain(request.parent_handoff.clone())
            .collect(),
        receivers: registry.iter().map(|_| request.to_agent.clone()).collect(),
    };
    trail.transact_in(&scope, now, |batch| {
        if let Some(registry) = &registry {
            request.warnings = against_registry(
                registry,
                batch.ledger(),
                &request.to_agent,
                &request.required_capabilities,
            )?;
        }
        initiate(batch, request)
    })
}

/// Takes `steps` on existing handoffs (`accept`, `reject`, `complete`, `fail`,
/// `retry`), in order, in one transaction that reads only those handoffs. With `by`,
/// each step is refused unless `by` is its handoff's receiver: only the receiver
/// accepts or rejects. Returns the events appended.
pub fn take_steps(
    trail: &super::Trail,
    steps: Vec<Step>,
    by: Option<&str>,
    now: jiff::Timestamp,
) -> Result<Vec<Event>, TrailError> {
    let scope = super::Scope::handoffs(steps.iter().map(|s| s.handoff_id.clone()));
    let ((), events) = trail.transact_in(&scope, now, |batch| {
        for step in steps {
            if let (Some(by), Some(handoff)) = (by, batch.ledger().get(&step.handoff_id)) {
                if handoff.to_agent != by {
                    return Err(TrailError::refused(format!(
                        "refused: `{by}` is not the receiver of handoff `{}` ({}); only the receiver accepts or rejects",
                        step.handoff_id, handoff.to_agent
                    )));
                }
            }
            follow(batch, step)?;
        }
        Ok(())
    })?;
    Ok(events)
}

/// Normalises a UTC timestamp to the trail's spelling, or the batch's time.
fn stamp(batch: &Batch, timestamp: Option<&str>) -> Result<String, TrailError> {
    match timestamp {
        Some(text) => time::parse_utc(text)
            .map(time::format)
            .map_err(TrailError::plain),
        None => Ok(time::format(batch.now())),
    }
}

/// Pushes the `initiated` event of a new handoff; returns its id.
pub fn initiate(batch: &mut Batch, request: Initiation) -> Result<String, TrailError> {
    let timestamp = stamp(batch, request.timestamp.as_deref())?;
    let timeout_ms = match &request.timeout {
        Some(text) => Some(time::parse_duration(text).map_err(TrailError::plain)?),
        None => None,
    };
    let depth = match request.handoff_type {
        HandoffType::Escalation => {
            let parent = request
                .parent_handoff
                .as_deref()
                .and_then(|id| batch.ledger().get(id));
            match parent {
                Some(parent) => parent.depth + 1,
                None => request.depth.unwrap_or(1),
            }
        }
        _ => 0,
    };
    let snapshot = ContextSnapshot {
        task_id: request.task_id,
        task_status: Some(request.task_status.unwrap_or_else(|| "pending".into())),
        context_variables_hash: request.context_variables.as_ref().map(chain::value_hash),
        artifact_count: request.artifact_count,
    };
    let id = request.handoff_id.clone();
    batch.push(Event {
        seq: 0,
        prev: String::new(),
        hash: String::new(),
        recorded_at: String::new(),
        handoff_id: request.handoff_id,
        timestamp,
        event_type: EventType::Initiated,
        from_agent: request.from_agent,
        to_agent: request.to_agent,
        handoff_type: request.handoff_type,
        reason: Some(request.reason),
        context_snapshot: Some(snapshot),
        decision_rationale: request.decision_rationale,
        risk_level: request.risk_level,
        duration_ms: None,
        tokens_consumed: None,
        outcome: None,
        workflow_id: request.workflow_id,
        parent_handoff: request.parent_handoff,
        attempt: 1,
        depth,
        broadcast_group_id: request.broadcast_group_id,
        timeout: request.timeout,
        timeout_ms,
        on_timeout: request.on_timeout,
        escalate_to: request.escalate_to,
        rollback_to: request.rollback_to,
        required_capabilities: request.required_capabilities,
        warnings: request.warnings,
        message: raw(request.message),
    })?;
    Ok(id)
}

/// The task status an event leaves its task in.
fn task_status(event_type: EventType) -> &'static str {
    match event_type {
        EventType::Initiated => "pending",
        EventType::Accepted => "in_progress",
        EventType::Completed => "complete",
        EventType::Failed => "failed",
        EventType::Rejected | EventType::Timeout | EventType::Escalated => "blocked",
    }
}

/// Pushes a step on an existing handoff; returns the sealed event.
pub fn follow(batch: &mut Batch, step: Step) -> Result<&Event, TrailError> {
    let Some(handoff) = batch.ledger().get(&step.handoff_id).cloned() else {
        return Err(TrailError::illegal(Violation {
            kind: ViolationKind::UnknownHandoff,
            message: format!(
                "no handoff `{}` on this trail; `handoff trail query --handoff ID` lists what there is, `handoff trail open` starts one",
                step.handoff_id
            ),
            legal: vec![EventType::Initiated],
        }));
    };
    let timestamp = stamp(batch, step.timestamp.as_deref())?;
    let retry = step.event_type == EventType::Initiated;
    let final_event = matches!(
        step.event_type,
        EventType::Rejected | EventType::Completed | EventType::Failed
    );
    let duration_ms = match (final_event, handoff.initiated_ms) {
        (true, Some(start)) => time::parse_utc(&timestamp)
            .ok()
            .map(|at| u64::try_from(time::millis(at) - start).unwrap_or(0)),
        _ => None,
    };
    let outcome = match step.event_type {
        EventType::Completed => Some(step.outcome.unwrap_or(Outcome::Success)),
        EventType::Failed => Some(Outcome::Failed),
        _ => step.outcome,
    };
    let mut snapshot = handoff.snapshot.clone();
    if let Some(snapshot) = snapshot.as_mut() {
        snapshot.task_status = Some(task_status(step.event_type).to_string());
    }
    let event = Event {
        seq: 0,
        prev: String::new(),
        hash: String::new(),
        recorded_at: String::new(),
        handoff_id: handoff.id.clone(),
        timestamp,
        event_type: step.event_type,
        from_agent: handoff.from_agent.clone(),
        to_agent: handoff.to_agent.clone(),
        handoff_type: handoff.handoff_type,
        reason: step
            .reason
            .or_else(|| retry.then(|| handoff.reason.clone()).flatten()),
        context_snapshot: snapshot,
        decision_rationale: step.decision_rationale,
        risk_level: handoff.risk_level,
        duration_ms,
        tokens_consumed: step.tokens_consumed,
        outcome,
        workflow_id: handoff.workflow_id.clone(),
        parent_handoff: handoff.parent_handoff.clone(),
        attempt: if retry {
            handoff.attempt + 1
        } else {
            handoff.attempt
        },
        depth: handoff.depth,
        broadcast_group_id: handoff.broadcast_group_id.clone(),
        timeout: retry.then(|| handoff.timeout.clone()).flatten(),
        timeout_ms: retry.then_some(handoff.timeout_ms).flatten(),
        on_timeout: retry.then_some(handoff.on_timeout).flatten(),
        escalate_to: None,
        rollback_to: step.rollback_to,
        required_capabilities: Vec::new(),
        warnings: Vec::new(),
        message: raw(step.message),
    };
    batch.push(event)
}

/// Escalates `handoff_id` to `to`: `escalated` on it, and a child escalation handoff
/// one level up. An accepted handoff is escalated by the agent holding it; a timed-out
/// one by its sender. Returns the child's id.
pub fn escalate(
    batch: &mut Batch,
    handoff_id: &str,
    to: &str,
    rationale: &str,
) -> Result<String, TrailError> {
    let timed_out = batch
        .ledger()
        .get(handoff_id)
        .is_some_and(|h| h.state == EventType::Timeout);
    let mut step = Step::new(handoff_id, EventType::Escalated);
    step.decision_rationale = Some(rationale.to_string());
    step.reason = Some(rationale.to_string());
    let escalated = follow(batch, step)?.clone();
    let from = match timed_out {
        true => escalated.from_agent.clone(),
        false => escalated.to_agent.clone(),
    };
    let mut child = Initiation::new(
        from,
        to,
        HandoffType::Escalation,
        escalated.task_id().unwrap_or_default(),
        rationale,
    );
    child.timestamp = Some(escalated.timestamp.clone());
    child.decision_rationale = Some(rationale.to_string());
    child.parent_handoff = Some(handoff_id.to_string());
    if let Some(parent) = batch.ledger().get(handoff_id) {
        child.workflow_id.clone_from(&parent.workflow_id);
        child.risk_level = parent.risk_level;
        child.timeout.clone_from(&parent.timeout);
        child.on_timeout = parent.on_timeout;
    }
    initiate(batch, child)
}
