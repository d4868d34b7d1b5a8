//! From a checked message to what the trail appends for it ([`Intent`]), through one
//! canonical handoff for both handoff shapes.

use super::Kind;
use crate::policy::RiskClass;
use crate::trail::{EventType, HandoffType, OnTimeout, Outcome};
use crate::trail::{Initiation, Intent, Step};
use serde_json::{json, Map, Value};

fn text(value: &Value, pointer: &str) -> Option<String> {
    super::at(value, pointer)
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .map(str::to_string)
}

fn enum_of<T: serde::de::DeserializeOwned>(value: &Value, pointer: &str) -> Option<T> {
    super::at(value, pointer).and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// The canonical handoff (002's field names) of a handoff message of either shape;
/// 004's `source`, `target`, `expectations`, `rollback` and `metadata` are kept under
/// their own names. `None` for other kinds.
pub fn canonical_handoff(kind: Kind, message: &Value) -> Option<Value> {
    match kind {
        Kind::Handoff => Some(message.clone()),
        Kind::Handoff004 => Some(from_004(message)),
        _ => None,
    }
}

fn from_004(message: &Value) -> Value {
    let task = text(message, "/metadata/task_id")
        .or_else(|| text(message, "/context/task_id"))
        .or_else(|| text(message, "/metadata/workflow_id"));
    let mut context = message
        .get("context")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    context.insert("task_id".into(), json!(task));
    if let Some(state) = context.get("state").cloned() {
        context.entry("context_variables").or_insert(state);
    }
    let mut handoff = Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value.filter(|v| !v.is_null()) {
            handoff.insert(key.to_string(), value);
        }
    };
    put("id", message.get("handoff_id").cloned());
    put("timestamp", message.get("timestamp").cloned());
    put("from_agent", super::at(message, "/source/agent").cloned());
    put("to_agent", super::at(message, "/target/agent").cloned());
    put(
        "type",
        Some(
            super::at(message, "/metadata/type")
                .cloned()
                .unwrap_or(json!("sequential")),
        ),
    );
    put("reason", super::at(message, "/target/reason").cloned());
    put("context", Some(Value::Object(context)));
    let mut return_protocol = Map::new();
    for key in ["timeout", "on_timeout"] {
        if let Some(value) = super::at(message, &format!("/metadata/{key}")) {
            return_protocol.insert(key.into(), value.clone());
        }
    }
    if !return_protocol.is_empty() {
        put("return_protocol", Some(Value::Object(return_protocol)));
    }
    let mut audit = Map::new();
    for key in ["decision_rationale", "risk_level"] {
        if let Some(value) = super::at(message, &format!("/metadata/{key}")) {
            audit.insert(key.into(), value.clone());
        }
    }
    if !audit.is_empty() {
        put("audit", Some(Value::Object(audit)));
    }
    for key in ["workflow_id", "parent_handoff", "broadcast_group_id"] {
        put(
            key,
            super::at(message, &format!("/metadata/{key}")).cloned(),
        );
    }
    for key in ["source", "target", "expectations", "rollback", "metadata"] {
        put(key, message.get(key).cloned());
    }
    Value::Object(handoff)
}

/// What the trail appends for a message without errors.
pub fn intent(kind: Kind, message: Value) -> Option<Intent> {
    let message = &message;
    match kind {
        Kind::Handoff => initiation(message.clone()).map(|i| Intent::Initiate(Box::new(i))),
        Kind::Handoff004 => initiation(from_004(message)).map(|i| Intent::Initiate(Box::new(i))),
        Kind::Acceptance => acceptance(message),
        Kind::Return => returned(message),
        Kind::Completion => {
            let mut step = step(message, EventType::Completed, "/timestamp")?;
            step.outcome = enum_of(message, "/status");
            step.tokens_consumed = message.get("tokens_consumed").and_then(Value::as_u64);
            step.reason = text(message, "/continuation/reason").map(|r| format!("next: {r}"));
            Some(Intent::Step(Box::new(step)))
        }
        Kind::Failure => {
            let mut step = step(message, EventType::Failed, "/timestamp")?;
            step.reason = text(message, "/failure/description");
            step.rollback_to = text(message, "/rollback_request/target_agent");
            Some(Intent::Step(Box::new(step)))
        }
        Kind::Event => event(message),
    }
}

fn step(message: &Value, event_type: EventType, timestamp: &str) -> Option<Step> {
    let mut step = Step::new(text(message, "/handoff_id")?, event_type);
    step.timestamp = text(message, timestamp);
    step.message = Some(message.clone());
    Some(step)
}

fn initiation(handoff: Value) -> Option<Initiation> {
    let handoff_type: HandoffType = enum_of(&handoff, "/type")?;
    let mut request = Initiation::new(
        text(&handoff, "/from_agent")?,
        text(&handoff, "/to_agent")?,
        handoff_type,
        text(&handoff, "/context/task_id")?,
        text(&handoff, "/reason")?,
    );
    request.handoff_id = text(&handoff, "/id")?;
    request.timestamp = text(&handoff, "/timestamp");
    request.task_status = text(&handoff, "/context/context_variables/task_status");
    request.context_variables = super::at(&handoff, "/context/context_variables").cloned();
    request.artifact_count = super::at(&handoff, "/context/artifacts")
        .and_then(Value::as_array)
        .map(|a| a.len() as u64);
    request.decision_rationale = text(&handoff, "/audit/decision_rationale");
    request.risk_level = enum_of::<RiskClass>(&handoff, "/audit/risk_level");
    request.workflow_id =
        text(&handoff, "/workflow_id").or_else(|| text(&handoff, "/metadata/workflow_id"));
    request.parent_handoff =
        text(&handoff, "/parent_handoff").or_else(|| text(&handoff, "/metadata/parent_handoff"));
    request.depth = super::at(&handoff, "/metadata/depth")
        .and_then(Value::as_u64)
        .and_then(|d| u32::try_from(d).ok());
    request.broadcast_group_id = text(&handoff, "/broadcast_group_id");
    request.timeout = match super::at(&handoff, "/return_protocol/timeout") {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Number(seconds)) => Some(format!("{seconds}s")),
        _ => None,
    };
    request.on_timeout = enum_of::<OnTimeout>(&handoff, "/return_protocol/on_timeout");
    request.escalate_to = text(&handoff, "/escalate_to");
    request.rollback_to = text(&handoff, "/rollback/on_failure");
    request.required_capabilities = super::at(&handoff, "/validation/required_capabilities")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| {
                    item.as_str()
                        .or_else(|| item.get("capability_id").and_then(Value::as_str))
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    request.message = Some(handoff);
    Some(request)
}

fn acceptance(message: &Value) -> Option<Intent> {
    let status = text(message, "/status")?;
    let event_type = match status.as_str() {
        "accepted" => EventType::Accepted,
        "rejected" => EventType::Rejected,
        _ => {
            return Some(Intent::Defer {
                handoff_id: text(message, "/handoff_id")?,
                reason: text(message, "/reason").unwrap_or_default(),
            })
        }
    };
    let mut step = step(message, event_type, "/acknowledged_at")?;
    step.reason = text(message, "/reason");
    Some(Intent::Step(Box::new(step)))
}

fn returned(message: &Value) -> Option<Intent> {
    let (event_type, outcome) = match text(message, "/status")?.as_str() {
        "success" => (EventType::Completed, Some(Outcome::Success)),
        "partial" => (EventType::Completed, Some(Outcome::Partial)),
        "failed" => (EventType::Failed, Some(Outcome::Failed)),
        _ => (EventType::Timeout, None),
    };
    let mut step = step(message, event_type, "/audit/completion_time")?;
    step.outcome = outcome;
    step.tokens_consumed = super::at(message, "/audit/tokens_consumed").and_then(Value::as_u64);
    step.reason = text(message, "/audit/notes");
    Some(Intent::Step(Box::new(step)))
}

fn event(message: &Value) -> Option<Intent> {
    let event_type: EventType = enum_of(message, "/event_type")?;
    if event_type == EventType::Initiated {
        let mut request = Initiation::new(
            text(message, "/from_agent")?,
            text(message, "/to_agent")?,
            enum_of(message, "/handoff_type")?,
            text(message, "/context_snapshot/task_id")?,
            text(message, "/reason").unwrap_or_default(),
        );
        request.handoff_id = text(message, "/handoff_id")?;
        request.timestamp = text(message, "/timestamp");
        request.task_status = text(message, "/context_snapshot/task_status");
        request.decision_rationale = text(message, "/decision_rationale");
        request.risk_level = enum_of(message, "/risk_level");
        request.workflow_id = text(message, "/workflow_id");
        request.parent_handoff = text(message, "/parent_handoff");
        request.depth = message
            .get("depth")
            .and_then(Value::as_u64)
            .and_then(|d| u32::try_from(d).ok());
        request.broadcast_group_id = text(message, "/broadcast_group_id");
        request.timeout = text(message, "/timeout");
        request.on_timeout = enum_of(message, "/on_timeout");
        request.escalate_to = text(message, "/escalate_to");
        request.rollback_to = text(message, "/rollback_to");
        return Some(Intent::Initiate(Box::new(request)));
    }
    let mut step = Step::new(text(message, "/handoff_id")?, event_type);
    step.timestamp = text(message, "/timestamp");
    step.reason = text(message, "/reason");
    step.decision_rationale = text(message, "/decision_rationale");
    step.outcome = enum_of(message, "/outcome");
    step.tokens_consumed = message.get("tokens_consumed").and_then(Value::as_u64);
    step.rollback_to = text(message, "/rollback_to");
    Some(Intent::Step(Box::new(step)))
}
