//! `export --format otlp-json`: the trail as OpenTelemetry log records (OTLP/JSON), so a
//! Collector ingests them next to the agents' traces (002: audit records live in the
//! trace log).
//!
//! One document: `{"resourceLogs": [{resource, scopeLogs: [{scope, logRecords}]}]}`, the
//! resource `service.name = handoff`, the scope `handoff.trail`. Each event is one log
//! record: `timeUnixNano` its `timestamp`, `observedTimeUnixNano` its `recorded_at`
//! (64-bit integers as decimal strings, as the OTLP/JSON mapping has them), severity
//! INFO (`initiated`, `accepted`, `completed`), WARN (`rejected`, `timeout`,
//! `escalated`) or ERROR (`failed`), a one-line body, and every field of the event as an
//! attribute `handoff.FIELD` (`handoff.context_snapshot.task_id` for the snapshot's, the
//! message as its canonical JSON text). Where the GenAI semantic conventions name the
//! idea, their attribute is added: `gen_ai.agent.name` (the receiving agent, the one
//! the handoff invokes) and, on `initiated`, `gen_ai.operation.name = invoke_agent`;
//! `event.name` is `handoff.EVENT_TYPE`. Records are written as they are read: memory
//! stays flat however long the trail.

use super::event::{Event, EventType};
use super::query::{query, Filter};
use super::store::Trail;
use super::time;
use super::TrailError;
use serde_json::{json, Map, Value};
use std::io::Write;

/// Writes the events matching `filter` to `out` as one OTLP/JSON logs document;
/// returns how many were written. A trail that is not there is an error before anything
/// is written; an error later (a line that is not an event) leaves the document cut
/// short, so a caller that needs the whole document or nothing writes to a
/// [`crate::io::Spool`] first.
pub fn export_otlp(
    trail: &Trail,
    filter: &Filter,
    out: &mut impl Write,
) -> Result<u64, TrailError> {
    let write = |out: &mut dyn Write, bytes: &[u8]| {
        out.write_all(bytes)
            .map_err(|e| TrailError::plain(format!("cannot write the export: {e}")))
    };
    trail.require()?;
    let head = json!({"attributes": [attribute("service.name", &json!("handoff"))]});
    let scope = json!({"name": "handoff.trail", "version": env!("CARGO_PKG_VERSION")});
    write(
        out,
        format!("{{\"resourceLogs\":[{{\"resource\":{head},\"scopeLogs\":[{{\"scope\":{scope},\"logRecords\":[").as_bytes(),
    )?;
    let mut count = 0u64;
    query(trail, filter, |event, _| {
        if count > 0 {
            write(out, b",\n")?;
        }
        count += 1;
        write(out, log_record(event).to_string().as_bytes())
    })?;
    write(out, b"]}]}]}\n")?;
    Ok(count)
}

/// One event as an OTLP log record.
fn log_record(event: &Event) -> Value {
    let (number, text) = match event.event_type {
        EventType::Initiated | EventType::Accepted | EventType::Completed => (9, "INFO"),
        EventType::Rejected | EventType::Timeout | EventType::Escalated => (13, "WARN"),
        EventType::Failed => (17, "ERROR"),
    };
    let mut attributes = vec![
        attribute(
            "event.name",
            &json!(format!("handoff.{}", event.event_type)),
        ),
        attribute("gen_ai.agent.name", &json!(event.to_agent)),
    ];
    if event.event_type == EventType::Initiated {
        attributes.push(attribute("gen_ai.operation.name", &json!("invoke_agent")));
    }
    if let Ok(Value::Object(fields)) = serde_json::to_value(event) {
        flatten("handoff", &fields, &mut attributes);
    }
    let body = format!(
        "{} {} {} -> {}{}",
        event.event_type,
        event.handoff_id,
        event.from_agent,
        event.to_agent,
        event
            .reason
            .as_deref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default()
    );
    json!({
        "timeUnixNano": nanos(&event.timestamp),
        "observedTimeUnixNano": nanos(&event.recorded_at),
        "severityNumber": number,
        "severityText": text,
        "body": {"stringValue": body},
        "attributes": attributes,
    })
}

/// Nanoseconds since the epoch of a UTC timestamp, as a decimal string ("0" if it is
/// not one).
fn nanos(timestamp: &str) -> String {
    time::parse_utc(timestamp)
        .map(|t| t.as_nanosecond().to_string())
        .unwrap_or_else(|_| "0".into())
}

/// The event's fields as `PREFIX.FIELD` attributes; a nested object one level further
/// down, the message as its JSON text.
fn flatten(prefix: &str, fields: &Map<String, Value>, into: &mut Vec<Value>) {
    for (key, value) in fields {
        let name = format!("{prefix}.{key}");
        match value {
            Value::Object(inner) if key != "message" => flatten(&name, inner, into),
            Value::Object(_) => into.push(attribute(&name, &json!(value.to_string()))),
            Value::Null => {}
            _ => into.push(attribute(&name, value)),
        }
    }
}

/// A `KeyValue` of OTLP/JSON.
fn attribute(key: &str, value: &Value) -> Value {
    json!({"key": key, "value": any_value(value)})
}

/// An `AnyValue` of OTLP/JSON: strings, booleans, integers (as decimal strings),
/// doubles, arrays; anything else as its JSON text.
fn any_value(value: &Value) -> Value {
    match value {
        Value::String(text) => json!({"stringValue": text}),
        Value::Bool(flag) => json!({"boolValue": flag}),
        Value::Number(number) if number.is_i64() || number.is_u64() => {
            json!({"intValue": number.to_string()})
        }
        Value::Number(number) => json!({"doubleValue": number.as_f64()}),
        Value::Array(items) => {
            json!({"arrayValue": {"values": items.iter().map(any_value).collect::<Vec<_>>()}})
        }
        other => json!({"stringValue": other.to_string()}),
    }
}
