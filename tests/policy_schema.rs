//! The JSON Schema of the policy file and `docs/gate.md` agree with the code: the same
//! keys, trigger names, evidence items, and every default rule documented.

use handoff::policy::EVIDENCE_ITEMS;
use handoff::risk::Trigger;
use serde_json::Value;
use std::collections::BTreeSet;

fn schema() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/schema/handoff-policy.schema.json"
    ))
    .expect("the schema ships in the repository");
    serde_json::from_str(&text).expect("the schema is JSON")
}

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect()
}

#[test]
fn the_schema_lists_every_key_trigger_and_evidence_item() {
    let schema = schema();
    let top = keys(&schema["properties"]);
    let expected: BTreeSet<String> = [
        "records_dir",
        "exclude",
        "triggers",
        "custom_triggers",
        "evidence",
        "reviewers",
    ]
    .map(String::from)
    .into();
    assert_eq!(top, expected);

    let triggers = keys(&schema["properties"]["triggers"]["properties"]);
    let editable: BTreeSet<String> = Trigger::ALL
        .iter()
        .filter(|trigger| **trigger != Trigger::FileCount)
        .map(|trigger| trigger.name().to_string())
        .collect();
    assert_eq!(triggers, editable);

    let items = keys(&schema["properties"]["evidence"]["properties"]["aliases"]["properties"]);
    let ids: BTreeSet<String> = EVIDENCE_ITEMS
        .iter()
        .map(|item| item.0.to_string())
        .collect();
    assert_eq!(items, ids);

    let edit = keys(&schema["$defs"]["trigger_edit"]["properties"]);
    let expected: BTreeSet<String> = ["add_paths", "remove_paths", "add_lines", "remove_lines"]
        .map(String::from)
        .into();
    assert_eq!(edit, expected);
}

#[test]
fn the_example_policy_in_the_docs_parses() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/gate.md"))
        .expect("docs/gate.md ships in the repository");
    let start = docs
        .find("```yaml\n")
        .expect("docs/gate.md has a YAML example")
        + "```yaml\n".len();
    let end = start + docs[start..].find("```").expect("the example is closed");
    let source = handoff::policy::PolicySource::File {
        path: "docs/gate.md".into(),
    };
    let policy = handoff::policy::Policy::parse(&docs.as_bytes()[start..end], source);
    assert!(policy.is_ok(), "{:?}", policy.err());
}

#[test]
fn every_default_rule_is_documented() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/gate.md"))
        .expect("docs/gate.md ships in the repository");
    let missing: Vec<&str> = Trigger::ALL
        .iter()
        .flat_map(|trigger| trigger.default_rules())
        .map(|rule| rule.id)
        .filter(|id| !docs.contains(&format!("`{id}`")))
        .collect();
    assert!(missing.is_empty(), "undocumented rules: {missing:?}");
}
