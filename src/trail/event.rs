//! The audit event: one JSON object per line of the trail.
//!
//! The fields are 002 §7.1's audit record (`handoff_id`, `timestamp`, `event_type`,
//! `from_agent`, `to_agent`, `handoff_type`, `reason`, `context_snapshot`,
//! `decision_rationale`, `risk_level`, `duration_ms`, `tokens_consumed`, `outcome`), the
//! links of TRAIL.md (`workflow_id`, `parent_handoff`, `attempt`), what the lifecycle
//! needs to decide later steps without the original message (`timeout`, `on_timeout`,
//! `depth`, …), the message the event was derived from (`message`, so views can show
//! what was transferred without a second store), and the chain fields (`seq`, `prev`,
//! `hash`). Absent optional fields are left out of the line, never written as `null`.

use crate::policy::RiskClass;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fmt;

/// What happened to a handoff (002 §7.1 `event_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventType {
    /// The handoff was sent (or re-sent by a retry).
    Initiated,
    /// The receiver accepted it.
    Accepted,
    /// The receiver rejected it (final).
    Rejected,
    /// The work was done (final).
    Completed,
    /// The work failed (final).
    Failed,
    /// No acknowledgement or no result came in time.
    Timeout,
    /// The handoff went up the escalation chain (a child handoff carries on).
    Escalated,
}

impl EventType {
    /// Every event type, in lifecycle order.
    pub const ALL: [EventType; 7] = [
        EventType::Initiated,
        EventType::Accepted,
        EventType::Rejected,
        EventType::Completed,
        EventType::Failed,
        EventType::Timeout,
        EventType::Escalated,
    ];

    /// The name used on the trail, e.g. `initiated`.
    pub fn name(self) -> &'static str {
        match self {
            EventType::Initiated => "initiated",
            EventType::Accepted => "accepted",
            EventType::Rejected => "rejected",
            EventType::Completed => "completed",
            EventType::Failed => "failed",
            EventType::Timeout => "timeout",
            EventType::Escalated => "escalated",
        }
    }

    /// The event type called `name`, if any.
    pub fn from_name(name: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The four handoff types of 002 §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HandoffType {
    /// A -> B, no return expected.
    Sequential,
    /// A -> B -> A, a return expected within a timeout.
    Delegation,
    /// A -> [B, C, D], one handoff per recipient sharing a `broadcast_group_id`.
    Broadcast,
    /// Up the authority chain, at most 3 levels.
    Escalation,
}

impl HandoffType {
    /// The name used on the trail.
    pub fn name(self) -> &'static str {
        match self {
            HandoffType::Sequential => "sequential",
            HandoffType::Delegation => "delegation",
            HandoffType::Broadcast => "broadcast",
            HandoffType::Escalation => "escalation",
        }
    }

    /// The handoff type called `name`, if any.
    pub fn from_name(name: &str) -> Option<HandoffType> {
        [
            HandoffType::Sequential,
            HandoffType::Delegation,
            HandoffType::Broadcast,
            HandoffType::Escalation,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }
}

/// 002's `outcome` of a finished handoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Everything expected was delivered.
    Success,
    /// Part of it was delivered.
    Partial,
    /// Nothing usable was delivered.
    Failed,
}

/// What a timeout does (002 `return_protocol.on_timeout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnTimeout {
    /// Re-initiate the same handoff, at most 3 attempts in all.
    Retry,
    /// Record `escalated` and open a child handoff one level up.
    Escalate,
    /// Record `failed`.
    Fail,
}

impl OnTimeout {
    /// The name used on the trail.
    pub fn name(self) -> &'static str {
        match self {
            OnTimeout::Retry => "retry",
            OnTimeout::Escalate => "escalate",
            OnTimeout::Fail => "fail",
        }
    }
}

/// 002 §7.1's `context_snapshot`: the task as it stood when the event happened.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextSnapshot {
    /// How many artifacts the handoff carried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_count: Option<u64>,
    /// SHA-256 (hex) of the RFC 8785 form of the handoff's `context_variables`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_variables_hash: Option<String>,
    /// The task the handoff serves.
    pub task_id: String,
    /// `pending`, `in_progress`, `blocked`, `complete` or `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_status: Option<String>,
}

/// One audit event, as it stands on a line of the trail.
///
/// The fields are declared in lexicographic order, so serializing an event with
/// `serde_json` writes its keys in RFC 8785 order: the line is canonical JSON without
/// a canonicalization pass (`append::seal`; a test holds the two equal).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Event {
    /// 1-based attempt (a retry adds one).
    pub attempt: u32,
    /// Recipients of one broadcast share this id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broadcast_group_id: Option<String>,
    /// The task as it stood.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_snapshot: Option<ContextSnapshot>,
    /// Why the decision was taken (required on escalations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_rationale: Option<String>,
    /// Escalation depth (0 for a handoff that is not an escalation).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub depth: u32,
    /// Time from the first `initiated` to this final event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Who a timeout escalates to (else the sender).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalate_to: Option<String>,
    /// What happened.
    pub event_type: EventType,
    /// The sender of the handoff.
    pub from_agent: String,
    /// The handoff the event belongs to.
    pub handoff_id: String,
    /// The kind of handoff.
    pub handoff_type: HandoffType,
    /// SHA-256 (hex) of the RFC 8785 form of this event without `hash`; empty before
    /// the event is sealed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hash: String,
    /// The message the event was derived from, as given; kept as raw JSON so reading
    /// the trail does not build it unless a view asks ([`Event::message_value`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Box<RawValue>>,
    /// What a timeout does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_timeout: Option<OnTimeout>,
    /// How it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The handoff this one escalates or re-routes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_handoff: Option<String>,
    /// The `hash` of the event before (64 zeros for the first).
    pub prev: String,
    /// Why (the handoff's reason, a rejection's or a failure's reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When the event was appended (UTC); its day names the segment.
    pub recorded_at: String,
    /// Capabilities the handoff requires.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_capabilities: Vec<String>,
    /// Risk of the handoff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_level: Option<RiskClass>,
    /// Who to return to on failure (004 `rollback.on_failure`,
    /// `rollback_request.target_agent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_to: Option<String>,
    /// 0-based position in the trail.
    pub seq: u64,
    /// The return timeout as given (e.g. `30m`, `PT30M`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// The return timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// When it happened (UTC, from the message, or the append time).
    pub timestamp: String,
    /// The receiver of the handoff.
    pub to_agent: String,
    /// Tokens the receiver reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_consumed: Option<u64>,
    /// What validation let through with a warning (a capability gap).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The workflow the handoff belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_id: Option<String>,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

impl Event {
    /// The task the event belongs to, when its snapshot names one.
    pub fn task_id(&self) -> Option<&str> {
        self.context_snapshot
            .as_ref()
            .map(|snapshot| snapshot.task_id.as_str())
    }

    /// The message the event was derived from, parsed.
    pub fn message_value(&self) -> Option<serde_json::Value> {
        self.message
            .as_ref()
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
    }

    /// Whether this event ends its handoff.
    pub fn is_final(&self) -> bool {
        matches!(
            self.event_type,
            EventType::Rejected | EventType::Completed | EventType::Failed
        )
    }
}
