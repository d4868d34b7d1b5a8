//! The `handoff parse` JSON form of a record, and reading it back for `handoff render`.
//!
//! Every record carries the common keys (`source`, `line`, `kind`, `task_id`, `extra`,
//! `preamble`, `sections`, `decision`, `failure_type`, `orchestrator_action`,
//! `capability`, `scope_expansion`, `evidence`) plus its kind's header keys. A structured
//! or enumerated field that parses is emitted typed (a list, an object, a canonical
//! string); one that does not parse, or is an unfilled placeholder, is emitted as written;
//! a field whose row is absent is `null`, or `[]` for the list fields (file scope, matched
//! agents, rejected). `extra` is an object in document order.
//!
//! Reading back accepts a record object, an array of them, or parse's whole output
//! (`{"records": [...]}`); derived keys are ignored, since they follow from the rest.

use super::fields::{
    format_list, format_matched, format_rejected, parse_list, parse_matched_agents, parse_rejected,
    Capability, FieldKey, MatchedAgent, RejectedAgent, TieBreak,
};
use super::{Record, RecordKind};
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A record as `handoff parse` emits it; serialize it with serde (JSON or YAML).
/// Keys come out in the documented order.
pub struct RecordJson<'a>(pub &'a Record);

impl Record {
    /// The record's JSON object. `serde_json::Value` sorts keys; serialize
    /// [`RecordJson`] directly when the documented key order (and `extra`'s order) matters.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(RecordJson(self)).unwrap_or(Value::Null)
    }

    /// The names of the JSON keys of a record of `kind`, in the order they are emitted.
    pub fn json_keys(kind: RecordKind) -> Vec<&'static str> {
        let mut keys = vec!["source", "line", "kind"];
        keys.extend(kind.keys().iter().map(|key| key.json_name()));
        if kind == RecordKind::RoutingDecision {
            keys.push("tie_break");
        }
        keys.extend([
            "extra",
            "preamble",
            "sections",
            "decision",
            "failure_type",
            "orchestrator_action",
            "capability",
            "scope_expansion",
            "evidence",
        ]);
        keys
    }
}

impl Serialize for RecordJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let record = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("source", &record.source)?;
        map.serialize_entry("line", &record.line)?;
        map.serialize_entry("kind", record.kind.as_str())?;
        for key in record.kind.keys() {
            map.serialize_entry(key.json_name(), &typed_field(record, *key))?;
        }
        if record.kind == RecordKind::RoutingDecision {
            let tie_break = record.tie_break().map(TieBreak::label);
            map.serialize_entry("tie_break", &tie_break)?;
        }
        map.serialize_entry("extra", &OrderedPairs(record.extra()))?;
        map.serialize_entry("preamble", &record.preamble())?;
        let sections: Vec<SectionJson> = record.sections().iter().map(SectionJson::from).collect();
        map.serialize_entry("sections", &sections)?;
        map.serialize_entry("decision", &record.decision())?;
        let failure_type = record.failure_type();
        map.serialize_entry("failure_type", &failure_type)?;
        map.serialize_entry(
            "orchestrator_action",
            &failure_type.map(|ft| ft.orchestrator_action()),
        )?;
        map.serialize_entry("capability", &record.capability_request())?;
        map.serialize_entry("scope_expansion", &record.scope_expansion())?;
        map.serialize_entry("evidence", &record.evidence())?;
        map.end()
    }
}

#[derive(Serialize)]
struct SectionJson<'a> {
    title: &'a str,
    line: usize,
    body: &'a str,
    body_line: usize,
}

impl<'a> From<&'a super::Section> for SectionJson<'a> {
    fn from(section: &'a super::Section) -> Self {
        SectionJson {
            title: &section.title,
            line: section.line,
            body: &section.body,
            body_line: section.body_line,
        }
    }
}

/// A field's JSON value: typed when it parses, as written otherwise; when absent, `[]`
/// for a list field and `null` for the others.
fn typed_field(record: &Record, key: FieldKey) -> Value {
    let Some(value) = record.value(key) else {
        return if is_list_field(key) {
            Value::Array(Vec::new())
        } else {
            Value::Null
        };
    };
    let as_written = Value::String(value.to_string());
    if super::placeholder::is_placeholder_value(key, value) {
        return as_written;
    }
    let typed = match key {
        FieldKey::ExpectedFileScope => parse_list(value).map(|items| serde_json::json!(items)),
        FieldKey::RequestedCapability => Capability::parse(value).map(|c| serde_json::json!(c)),
        FieldKey::MatchedAgents => parse_matched_agents(value).map(|a| serde_json::json!(a)),
        FieldKey::Rejected => parse_rejected(value).map(|r| serde_json::json!(r)),
        _ => None,
    };
    typed.unwrap_or(as_written)
}

/// The fields whose JSON value is a list: absent is `[]`, not `null`.
fn is_list_field(key: FieldKey) -> bool {
    matches!(
        key,
        FieldKey::ExpectedFileScope | FieldKey::MatchedAgents | FieldKey::Rejected
    )
}

/// Pairs serialized as a map, in order.
struct OrderedPairs<'a>(&'a [(String, String)]);

impl Serialize for OrderedPairs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// `extra` read back in document order (a `serde_json::Value` map would sort it).
#[derive(Default)]
struct ExtraFields(Vec<(String, String)>);

impl<'de> Deserialize<'de> for ExtraFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PairsVisitor;
        impl<'de> Visitor<'de> for PairsVisitor {
            type Value = ExtraFields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of string values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<ExtraFields, A::Error> {
                let mut pairs = Vec::new();
                while let Some((key, value)) = access.next_entry::<String, Value>()? {
                    pairs.push((key, scalar_text(&value)));
                }
                Ok(ExtraFields(pairs))
            }
            fn visit_unit<E>(self) -> Result<ExtraFields, E> {
                Ok(ExtraFields::default())
            }
        }
        deserializer.deserialize_any(PairsVisitor)
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// One record as `handoff render` reads it.
#[derive(Deserialize)]
struct RecordInput {
    kind: String,
    #[serde(default)]
    extra: ExtraFields,
    #[serde(default)]
    preamble: Option<String>,
    #[serde(default)]
    sections: Vec<SectionInput>,
    #[serde(flatten)]
    rest: serde_json::Map<String, Value>,
}

#[derive(Deserialize)]
struct SectionInput {
    title: String,
    #[serde(default)]
    body: String,
}

/// The shapes `handoff render` accepts.
#[derive(Deserialize)]
#[serde(untagged)]
enum RenderInput {
    Document { records: Vec<RecordInput> },
    Many(Vec<RecordInput>),
    One(Box<RecordInput>),
}

/// Why JSON or YAML could not be turned into records.
#[derive(Debug, thiserror::Error)]
pub enum JsonInputError {
    /// Neither JSON nor YAML of a record, an array of records, or `{"records": [...]}`.
    #[error("not a record in JSON or YAML ({message}); expected `handoff parse` output (`handoff parse FILE.md | handoff render`), a record object or an array of them")]
    Shape {
        /// The 1-based line the parser stopped at (0 when unknown).
        line: usize,
        /// The 1-based column the parser stopped at (0 when unknown).
        column: usize,
        /// The parser's explanation, without its position.
        message: String,
    },
    /// A record's `kind` is unknown.
    #[error("record {index}: unknown kind `{kind}`; expected interaction-record, task-assignment or routing-decision")]
    Kind {
        /// 1-based position of the record.
        index: usize,
        /// The kind as written.
        kind: String,
    },
    /// A field has a JSON type that cannot be a header value.
    #[error("record {index}: field `{field}` must be a string, a list or an object as `handoff parse` emits it")]
    Field {
        /// 1-based position of the record.
        index: usize,
        /// The JSON key.
        field: String,
    },
}

/// Reads records from `handoff parse` output (JSON, or YAML when it is not JSON).
pub fn records_from_json(text: &str) -> Result<Vec<Record>, JsonInputError> {
    let input: RenderInput = match serde_json::from_str(text) {
        Ok(input) => input,
        Err(json_error) => yaml_serde::from_str(text)
            .map_err(|yaml_error| shape_error(text, &json_error, &yaml_error))?,
    };
    let inputs = match input {
        RenderInput::Document { records } | RenderInput::Many(records) => records,
        RenderInput::One(record) => vec![*record],
    };
    inputs
        .into_iter()
        .enumerate()
        .map(|(index, input)| record_from_input(index + 1, input))
        .collect()
}

/// The error of the parser the text was meant for: JSON when it opens with `{` or `[`,
/// YAML otherwise.
fn shape_error(
    text: &str,
    json_error: &serde_json::Error,
    yaml_error: &yaml_serde::Error,
) -> JsonInputError {
    let (message, position) = if text.trim_start().starts_with(['{', '[']) {
        let position = (json_error.line(), json_error.column().max(1));
        (json_error.to_string(), Some(position))
    } else {
        let position = yaml_error
            .location()
            .map(|location| (location.line(), location.column()));
        (yaml_error.to_string(), position)
    };
    let (line, column) = position.unwrap_or((0, 0));
    JsonInputError::Shape {
        line,
        column,
        message: without_position(&message).replace(
            "data did not match any variant of untagged enum RenderInput",
            "a value of the wrong shape",
        ),
    }
}

/// `message` without the " at line L column C" both parsers insert; the position is
/// reported up front.
fn without_position(message: &str) -> String {
    let Some(start) = message.find(" at line ") else {
        return message.to_string();
    };
    let rest = &message[start + " at line ".len()..];
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let Some(rest) = rest.strip_prefix(" column ") else {
        return message.to_string();
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    format!("{}{rest}", &message[..start])
}

fn record_from_input(index: usize, input: RecordInput) -> Result<Record, JsonInputError> {
    let kind = RecordKind::parse(&input.kind).ok_or_else(|| JsonInputError::Kind {
        index,
        kind: input.kind.clone(),
    })?;
    let mut record = Record::new(kind);
    for key in kind.keys() {
        let Some(value) = input.rest.get(key.json_name()) else {
            continue;
        };
        let text = field_text(*key, value).ok_or_else(|| JsonInputError::Field {
            index,
            field: key.json_name().to_string(),
        })?;
        if let Some(text) = text {
            record.set_field(key.label(), &text);
        }
    }
    for (key, value) in &input.extra.0 {
        record.set_field(key, value);
    }
    record.set_preamble(input.preamble.as_deref());
    for section in &input.sections {
        record.push_section(&section.title, &section.body);
    }
    Ok(record)
}

/// The header text of a JSON field value: `Some(None)` for null (and for the `[]` that
/// parse emits for an absent list field), `None` when malformed.
fn field_text(key: FieldKey, value: &Value) -> Option<Option<String>> {
    match value {
        Value::Null => Some(None),
        Value::Array(items) if items.is_empty() && is_list_field(key) => Some(None),
        Value::String(text) => Some(Some(text.clone())),
        Value::Number(_) | Value::Bool(_) => Some(Some(value.to_string())),
        Value::Array(_) | Value::Object(_) => structured_text(key, value).map(Some),
    }
}

fn structured_text(key: FieldKey, value: &Value) -> Option<String> {
    match key {
        FieldKey::ExpectedFileScope => {
            let items: Vec<String> = serde_json::from_value(value.clone()).ok()?;
            Some(format_list(&items))
        }
        FieldKey::RequestedCapability | FieldKey::CapabilityRouted => {
            let capability: CapabilityInput = serde_json::from_value(value.clone()).ok()?;
            Some(
                Capability {
                    domain: capability.domain,
                    qualifiers: capability.qualifiers,
                }
                .to_string(),
            )
        }
        FieldKey::MatchedAgents => {
            let agents: Vec<MatchedAgentInput> = serde_json::from_value(value.clone()).ok()?;
            let agents: Vec<MatchedAgent> = agents
                .into_iter()
                .map(|a| MatchedAgent {
                    agent: a.agent,
                    domain: a.domain,
                    qualifiers: a.qualifiers,
                })
                .collect();
            Some(format_matched(&agents))
        }
        FieldKey::Rejected => {
            let agents: Vec<RejectedInput> = serde_json::from_value(value.clone()).ok()?;
            let agents: Vec<RejectedAgent> = agents
                .into_iter()
                .map(|a| RejectedAgent {
                    agent: a.agent,
                    reason: a.reason,
                })
                .collect();
            Some(format_rejected(&agents))
        }
        _ => None,
    }
}

#[derive(Deserialize)]
struct CapabilityInput {
    domain: String,
    #[serde(default)]
    qualifiers: Vec<String>,
}

#[derive(Deserialize)]
struct MatchedAgentInput {
    agent: String,
    #[serde(default)]
    domain: Option<String>,
    #[serde(default)]
    qualifiers: Vec<String>,
}

#[derive(Deserialize)]
struct RejectedInput {
    agent: String,
    #[serde(default)]
    reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::super::parse_document;
    use super::*;

    const ROUTING: &str = "## Routing Decision\n| Task ID | ENG-042 |\n| Requested capability | auth: [oauth2, pkce] |\n| Matched agents | security-engineer (auth: [oauth2, saml]), backend-engineer (auth: [jwt, session]) |\n| Selected | security-engineer |\n| Reason | Qualifier match |\n| Rejected | backend-engineer — qualifier mismatch |\n| Tie-break rule applied | qualifier-match (highest priority) |\n| Zeta | z |\n| Alpha | a |\n";

    #[test]
    fn json_keys_follow_the_contract_per_kind() {
        for kind in RecordKind::ALL {
            let record = Record::new(kind);
            let json = serde_json::to_string(&RecordJson(&record)).unwrap_or_default();
            let value: Value = serde_json::from_str(&json).unwrap_or_default();
            let mut keys: Vec<&str> = value
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let mut expected = Record::json_keys(kind);
            keys.sort_unstable();
            expected.sort_unstable();
            assert_eq!(keys, expected, "{kind:?}");
        }
        assert_eq!(
            Record::json_keys(RecordKind::InteractionRecord)[3..10],
            [
                "task_id",
                "type",
                "from",
                "to",
                "transport",
                "risk_class",
                "timestamp"
            ]
        );
    }

    #[test]
    fn structured_fields_are_typed_and_extra_keeps_its_order() {
        let record = &parse_document("r.md", ROUTING).records[0];
        let json = serde_json::to_string(&RecordJson(record)).unwrap_or_default();
        assert!(
            json.contains(r#""extra":{"Zeta":"z","Alpha":"a"}"#),
            "{json}"
        );
        let value = record.to_json();
        assert_eq!(
            value["requested_capability"],
            serde_json::json!({"domain": "auth", "qualifiers": ["oauth2", "pkce"]})
        );
        assert_eq!(
            value["matched_agents"][1]["qualifiers"],
            serde_json::json!(["jwt", "session"])
        );
        assert_eq!(
            value["rejected"],
            serde_json::json!([{"agent": "backend-engineer", "reason": "qualifier mismatch"}])
        );
        assert_eq!(value["tie_break"], "qualifier-match");
        assert_eq!(
            value["tie_break_rule"],
            "qualifier-match (highest priority)"
        );
        let back = records_from_json(&json).unwrap_or_default();
        assert_eq!(back.len(), 1);
        assert_eq!(&back[0], record);
        assert_eq!(back[0].extra()[0].0, "Zeta");
    }

    #[test]
    fn absent_list_fields_are_empty_lists_and_read_back_as_absent() {
        let assignment = "## Task Assignment\n| Task ID | ENG-1 |\n| Assigned to | a |\n";
        let routing = "## Routing Decision\n| Task ID | ENG-2 |\n| Selected | s |\n";
        for text in [assignment, routing] {
            let record = &parse_document("x.md", text).records[0];
            let value = record.to_json();
            for key in ["expected_file_scope", "matched_agents", "rejected"] {
                if let Some(field) = value.get(key) {
                    assert_eq!(field, &serde_json::json!([]), "{key} in {text}");
                }
            }
            assert_eq!(value["extra"], serde_json::json!({}));
            assert!(value["task_id"].is_string());
            let json = serde_json::to_string(&RecordJson(record)).unwrap_or_default();
            let back = records_from_json(&json).unwrap_or_default();
            assert_eq!(back.len(), 1);
            assert_eq!(&back[0], record, "{json}");
            assert!(back[0].value(FieldKey::ExpectedFileScope).is_none());
            assert!(back[0].value(FieldKey::MatchedAgents).is_none());
            assert!(back[0].value(FieldKey::Rejected).is_none());
        }
        let routing = parse_document("x.md", routing).records[0].to_json();
        assert_eq!(routing["tie_break_rule"], Value::Null);
        let nulls = "{\"kind\": \"routing-decision\", \"task_id\": \"A\", \"matched_agents\": null, \"rejected\": null}";
        let records = records_from_json(nulls).unwrap_or_default();
        assert_eq!(records.len(), 1);
        assert!(records[0].value(FieldKey::MatchedAgents).is_none());
        assert!(records[0].value(FieldKey::Rejected).is_none());
    }

    #[test]
    fn placeholders_and_unparsed_values_stay_strings() {
        let text = "## Task Assignment\n| Task ID | [DEPT-NNN, e.g., ENG-042] |\n| Expected file scope | [src/..., e.g. tests] |\n";
        let value = parse_document("t.md", text).records[0].to_json();
        assert_eq!(value["task_id"], "[DEPT-NNN, e.g., ENG-042]");
        assert_eq!(value["expected_file_scope"], "[src/..., e.g. tests]");
        assert_eq!(value["baseline_sha"], Value::Null);
        let yaml = "kind: task-assignment\ntask_id: ENG-1\nexpected_file_scope: [a.rs, b.rs]\n";
        let records = records_from_json(yaml).unwrap_or_default();
        assert_eq!(
            records[0].expected_file_scope(),
            Some(vec!["a.rs".to_string(), "b.rs".to_string()])
        );
        assert!(records_from_json("{\"kind\": \"memo\"}").is_err());
    }
}
