//! The rules beyond the schemas (TRAIL.md "Messages in"): a delegation states its
//! return timeout, an escalation its rationale, escalation depth is at most 3, a
//! broadcast names its `broadcast_group_id`, timestamps are UTC, durations parse,
//! numbers stay within I-JSON's exact integers (so every JCS library hashes them alike),
//! and an id that is a UUID is a UUIDv4.

use super::Kind;
use crate::diagnostic::TrailCode;
use crate::trail::time;
use crate::trail::MAX_DEPTH;
use serde_json::Value;

/// One rule broken.
pub struct Finding {
    pub code: TrailCode,
    /// The pointer inside the message.
    pub pointer: String,
    pub message: String,
}

fn finding(code: TrailCode, pointer: &str, message: String) -> Finding {
    Finding {
        code,
        pointer: pointer.to_string(),
        message,
    }
}

fn text<'v>(value: &'v Value, pointer: &str) -> Option<&'v str> {
    super::at(value, pointer).and_then(Value::as_str)
}

fn stated(value: &Value, pointer: &str) -> bool {
    match super::at(value, pointer) {
        Some(Value::String(text)) => !text.trim().is_empty(),
        Some(Value::Null) | None => false,
        Some(_) => true,
    }
}

/// Checks `message` (already unwrapped) of `kind`.
pub fn check(kind: Kind, message: &Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    numbers(message, &mut String::new(), &mut findings);
    let timestamps: &[&str] = match kind {
        Kind::Handoff => &["/timestamp", "/context/constraints/deadline"],
        Kind::Handoff004 | Kind::Completion | Kind::Failure => &["/timestamp"],
        Kind::Acceptance => &["/acknowledged_at", "/estimated_completion"],
        Kind::Return => &["/audit/completion_time"],
        Kind::Event => &["/timestamp", "/recorded_at"],
    };
    for pointer in timestamps {
        if let Some(text) = text(message, pointer) {
            if let Err(problem) = time::parse_utc(text) {
                findings.push(finding(TrailCode::NotUtc, pointer, problem));
            }
        }
    }
    match kind {
        Kind::Handoff => handoff_002(message, &mut findings),
        Kind::Handoff004 => handoff_004(message, &mut findings),
        _ => {}
    }
    findings
}

fn handoff_002(message: &Value, findings: &mut Vec<Finding>) {
    if let Some(artifacts) = super::at(message, "/context/artifacts").and_then(Value::as_array) {
        for (index, _) in artifacts.iter().enumerate() {
            let pointer = format!("/context/artifacts/{index}/created_at");
            if let Some(Err(problem)) = text(message, &pointer).map(time::parse_utc) {
                findings.push(finding(TrailCode::NotUtc, &pointer, problem));
            }
        }
    }
    id(message, "/id", findings);
    handoff_type_rules(
        message,
        text(message, "/type"),
        Pointers {
            timeout: "/return_protocol/timeout",
            on_timeout: "/return_protocol/on_timeout",
            rationale: "/audit/decision_rationale",
            group: "/broadcast_group_id",
        },
        findings,
    );
    depth(message, "/metadata/depth", findings);
}

fn handoff_004(message: &Value, findings: &mut Vec<Finding>) {
    id(message, "/handoff_id", findings);
    handoff_type_rules(
        message,
        text(message, "/metadata/type"),
        Pointers {
            timeout: "/metadata/timeout",
            on_timeout: "/metadata/on_timeout",
            rationale: "/metadata/decision_rationale",
            group: "/metadata/broadcast_group_id",
        },
        findings,
    );
    depth(message, "/metadata/depth", findings);
    let has_task = stated(message, "/metadata/task_id") || stated(message, "/context/task_id");
    if !has_task {
        if stated(message, "/metadata/workflow_id") {
            findings.push(finding(
                TrailCode::TaskFromWorkflow,
                "/metadata",
                "names no task (`metadata.task_id`): the trail files it under its `metadata.workflow_id`; add `task_id` to query it by task".into(),
            ));
        } else {
            findings.push(finding(
                TrailCode::MissingTask,
                "",
                "names no task: add `metadata.task_id` (or `metadata.workflow_id`)".into(),
            ));
        }
    }
}

struct Pointers {
    timeout: &'static str,
    on_timeout: &'static str,
    rationale: &'static str,
    group: &'static str,
}

fn handoff_type_rules(
    message: &Value,
    handoff_type: Option<&str>,
    at: Pointers,
    findings: &mut Vec<Finding>,
) {
    let timeout = super::at(message, at.timeout);
    match timeout {
        Some(Value::String(text)) => {
            if let Err(problem) = time::parse_duration(text) {
                findings.push(finding(TrailCode::BadDuration, at.timeout, problem));
            }
        }
        Some(Value::Number(number)) if number.as_u64().is_none_or(|n| n == 0) => {
            findings.push(finding(
                TrailCode::BadDuration,
                at.timeout,
                "a timeout in seconds is a positive whole number".into(),
            ))
        }
        _ => {}
    }
    let has_timeout = matches!(timeout, Some(Value::String(_) | Value::Number(_)));
    if handoff_type == Some("delegation") && !has_timeout {
        findings.push(finding(TrailCode::DelegationTimeout,
            "",
            format!("is a delegation without a return timeout: add `{}` (e.g. 30m); a delegation must say how long it waits", dotted(at.timeout)),
        ));
    }
    if !has_timeout && stated(message, at.on_timeout) {
        findings.push(finding(
            TrailCode::TimeoutMissing,
            at.on_timeout,
            format!(
                "`on_timeout` never applies without `{}`",
                dotted(at.timeout)
            ),
        ));
    }
    if handoff_type == Some("escalation") && !stated(message, at.rationale) {
        findings.push(finding(
            TrailCode::EscalationRationale,
            "",
            format!(
                "is an escalation without its reason: add `{}`: an escalation must say why",
                dotted(at.rationale)
            ),
        ));
    }
    if handoff_type == Some("broadcast") && !stated(message, at.group) {
        findings.push(finding(TrailCode::BroadcastGroup,
            "",
            format!("is a broadcast without `{}`: a broadcast is one handoff per recipient sharing that id", dotted(at.group)),
        ));
    }
}

fn dotted(pointer: &str) -> String {
    pointer.trim_start_matches('/').replace('/', ".")
}

fn depth(message: &Value, pointer: &str, findings: &mut Vec<Finding>) {
    if let Some(depth) = super::at(message, pointer).and_then(Value::as_u64) {
        if depth > u64::from(MAX_DEPTH) {
            findings.push(finding(
                TrailCode::EscalationDepth,
                pointer,
                format!("depth {depth} is deeper than {MAX_DEPTH} (worker -> reviewer -> architect -> human): hand it to a human instead"),
            ));
        }
    }
}

fn id(message: &Value, pointer: &str, findings: &mut Vec<Finding>) {
    let Some(id) = text(message, pointer) else {
        return;
    };
    if id.chars().any(|c| c.is_whitespace() || c.is_control()) {
        findings.push(finding(
            TrailCode::BadId,
            pointer,
            "a handoff id holds no white space or control characters".into(),
        ));
    } else if let Ok(uuid) = uuid::Uuid::parse_str(id) {
        if uuid.get_version_num() != 4 {
            findings.push(finding(
                TrailCode::NotUuidV4,
                pointer,
                format!(
                    "is a version {} UUID; new handoff ids are UUIDv4",
                    uuid.get_version_num()
                ),
            ));
        }
    }
}

/// Integers beyond ±(2^53 − 1) are refused: JCS libraries would hash them differently.
fn numbers(value: &Value, pointer: &mut String, findings: &mut Vec<Finding>) {
    const LIMIT: u64 = (1 << 53) - 1;
    match value {
        Value::Number(number) => {
            let exact = number
                .as_u64()
                .map(|n| n <= LIMIT)
                .or_else(|| number.as_i64().map(|n| n.unsigned_abs() <= LIMIT));
            if exact == Some(false) {
                findings.push(finding(TrailCode::NumberRange,
                    pointer,
                    format!("{number} is beyond ±(2^53 − 1): write it as a string (I-JSON, RFC 7493), so every JCS library hashes it alike"),
                ));
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let length = pointer.len();
                pointer.push_str(&format!("/{index}"));
                numbers(item, pointer, findings);
                pointer.truncate(length);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                numbers(item, pointer, findings);
                pointer.truncate(length);
            }
        }
        _ => {}
    }
}
