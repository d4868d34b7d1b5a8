//! Advisory fields: optional parts of the contract that never invalidate it.
//!
//! `user_facing_summary`, `memorialize_suggestions`, `memory_suggestions`,
//! `update_contracts`, `rollback_executed` and `context_consumption` are read by the
//! reference with tolerant parsers that skip malformed entries and log a warning. This
//! module returns those warnings as messages (the `advisories` list of the result), in
//! the reference's wording where it has one. `rollback_executed` accepts any value
//! (the reference `str()`s it), so it never produces a message.

use serde_json::{Map, Value};

use super::python::{is_truthy, repr, string_repr, to_float, to_int, type_name};

const MEMORIALIZE_TYPES: [&str; 3] = ["atom", "decision", "negative"];
// Sorted, as the reference prints them in its messages.
const MEMORIALIZE_CLASSES: [&str; 3] = ["anchor", "log", "thread"];

/// Messages about every malformed advisory field of `contract`, in field order.
pub fn advisories(contract: &Map<String, Value>) -> Vec<String> {
    let mut messages = Vec::new();
    user_facing_summary(contract.get("user_facing_summary"), &mut messages);
    memorialize_suggestions(contract.get("memorialize_suggestions"), &mut messages);
    expect_array(
        "memory_suggestions",
        contract.get("memory_suggestions"),
        &mut messages,
    );
    update_contracts(contract.get("update_contracts"), &mut messages);
    context_consumption(contract.get("context_consumption"), &mut messages);
    messages
}

fn user_facing_summary(value: Option<&Value>, messages: &mut Vec<String>) {
    match value {
        None | Some(Value::Null) | Some(Value::String(_)) => {}
        Some(other) => messages.push(format!(
            "user_facing_summary: expected a string, got {} (ignored)",
            type_name(other)
        )),
    }
}

/// Pushes "expected array" for a present, non-null, non-array value; returns the array.
fn expect_array<'a>(
    field: &str,
    value: Option<&'a Value>,
    messages: &mut Vec<String>,
) -> Option<&'a Vec<Value>> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(items),
        Some(other) => {
            messages.push(format!("{field}: expected array, got {}", type_name(other)));
            None
        }
    }
}

fn memorialize_suggestions(value: Option<&Value>, messages: &mut Vec<String>) {
    let Some(entries) = expect_array("memorialize_suggestions", value, messages) else {
        return;
    };
    for (index, entry) in entries.iter().enumerate() {
        let Value::Object(entry) = entry else {
            messages.push(format!("memorialize_suggestions[{index}]: not an object"));
            continue;
        };
        let absent: Vec<&str> = ["description", "body"]
            .into_iter()
            .filter(|key| !entry.get(*key).is_some_and(is_truthy))
            .collect();
        if !absent.is_empty() {
            messages.push(format!(
                "memorialize_suggestions[{index}]: missing required field(s) {}",
                absent.join(", ")
            ));
            continue;
        }
        off_enum(index, "type", entry, &MEMORIALIZE_TYPES, messages);
        off_enum(index, "class", entry, &MEMORIALIZE_CLASSES, messages);
    }
}

fn off_enum(
    index: usize,
    key: &str,
    entry: &Map<String, Value>,
    allowed: &[&str],
    messages: &mut Vec<String>,
) {
    let value = match entry.get(key) {
        None | Some(Value::Null) => return,
        Some(value) => super::python::to_str(value).to_lowercase(),
    };
    if !value.is_empty() && !allowed.contains(&value.as_str()) {
        let allowed: Vec<String> = allowed.iter().map(|name| string_repr(name)).collect();
        messages.push(format!(
            "memorialize_suggestions[{index}]: {key}={} not in [{}] (kept as-is)",
            string_repr(&value),
            allowed.join(", ")
        ));
    }
}

fn update_contracts(value: Option<&Value>, messages: &mut Vec<String>) {
    let Some(entries) = expect_array("update_contracts", value, messages) else {
        return;
    };
    for (index, entry) in entries.iter().enumerate() {
        match entry {
            Value::Object(map) if map.contains_key("contract") && map.contains_key("payload") => {}
            Value::Object(_) => messages.push(format!(
                "update_contracts[{index}]: missing required keys 'contract'/'payload', skipping"
            )),
            _ => messages.push(format!(
                "update_contracts[{index}]: not an object, skipping"
            )),
        }
    }
}

fn context_consumption(value: Option<&Value>, messages: &mut Vec<String>) {
    let map = match value {
        None | Some(Value::Null) => return,
        Some(Value::Object(map)) => map,
        Some(other) => {
            messages.push(format!(
                "context_consumption: expected object, got {}",
                type_name(other)
            ));
            return;
        }
    };
    if let Some(tokens) = map.get("tokens_used").filter(|v| !v.is_null()) {
        if to_int(tokens).is_none() {
            messages.push(format!(
                "context_consumption.tokens_used: expected an integer, got {} (read as null)",
                repr(tokens)
            ));
        }
    }
    if let Some(pct) = map.get("pct_window").filter(|v| !v.is_null()) {
        if to_float(pct).is_none() {
            messages.push(format!(
                "context_consumption.pct_window: expected a number, got {} (read as null)",
                repr(pct)
            ));
        }
    }
}
