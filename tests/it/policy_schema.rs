//! The JSON Schema of the policy file and `docs/gate.md` agree with the code: the same
//! keys, trigger names, evidence items, and every default rule documented.

use handoff::{default_policy as defaults, Trigger};
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
        "trail_dir",
        "exclude",
        "copies",
        "require_task",
        "triggers",
        "custom_triggers",
        "evidence",
        "reviewers",
        "allow",
    ]
    .map(String::from)
    .into();
    assert_eq!(top, expected);

    let triggers = keys(&schema["properties"]["triggers"]["properties"]);
    let editable: BTreeSet<String> = Trigger::ALL
        .iter()
        .filter(|trigger| **trigger != Trigger::FileCount)
        .map(|trigger| trigger.as_str().to_string())
        .collect();
    assert_eq!(triggers, editable);

    let items = keys(&schema["properties"]["evidence"]["properties"]["aliases"]["properties"]);
    let ids: BTreeSet<String> = defaults().evidence.aliases.keys().cloned().collect();
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
    let source = handoff::PolicySource::File {
        path: "docs/gate.md".into(),
    };
    let policy = handoff::Policy::parse(&docs.as_bytes()[start..end], source);
    assert!(policy.is_ok(), "{:?}", policy.err());
}

#[test]
fn every_default_rule_is_documented() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/gate.md"))
        .expect("docs/gate.md ships in the repository");
    let missing: Vec<&str> = defaults()
        .triggers
        .iter()
        .flat_map(|trigger| &trigger.rules)
        .map(|rule| &*rule.id)
        .filter(|id| !docs.contains(&format!("`{id}`")))
        .collect();
    assert!(missing.is_empty(), "undocumented rules: {missing:?}");
}

const CODE_EXTENSIONS: &str = ".{py,pyi,rb,erb,rake,js,jsx,mjs,cjs,ts,tsx,mts,cts,vue,svelte,go,rs,java,kt,kts,scala,groovy,php,cs,ex,exs,swift,c,h,cc,cpp,sql,yml,yaml,json,toml,xml,properties,conf,ini,tf,sh}";

/// The trigger tables of docs/gate.md, rendered from the default policy.
fn rules_tables() -> String {
    use handoff::{Policy, RuleMatch};
    let cell = |text: &str| {
        format!(
            "`{}`",
            text.replace(CODE_EXTENSIONS, ".‹code›").replace('|', "\\|")
        )
    };
    let mut out = String::new();
    for trigger in Policy::default().triggers {
        out.push_str(&format!("### `{}` → {}\n\n", trigger.name, trigger.class));
        if trigger.name == "file-count" {
            out.push_str("| rule | matches |\n|---|---|\n");
            out.push_str("| `file-count.count` | more than 3 changed files (records directory and excluded paths not counted) |\n\n");
            continue;
        }
        out.push_str("| rule | stack | kind | patterns |\n|---|---|---|---|\n");
        for rule in trigger.rules {
            let (kind, patterns) = match &rule.matches {
                RuleMatch::Paths { globs } => (
                    "path".to_string(),
                    globs.iter().map(|g| cell(g)).collect::<Vec<_>>().join(", "),
                ),
                RuleMatch::Line { regex, files } => {
                    let files = if files.is_empty() {
                        "any file".to_string()
                    } else {
                        files.iter().map(|g| cell(g)).collect::<Vec<_>>().join(", ")
                    };
                    let kind = match (rule.scope, rule.data, rule.in_code) {
                        (true, _, _) => "scope",
                        (_, true, _) => "data",
                        (_, _, true) => "line in code",
                        _ if rule.file_scope => "file",
                        _ => "line",
                    };
                    (format!("{kind} ({files})"), cell(regex))
                }
            };
            out.push_str(&format!(
                "| `{}` | {} | {kind} | {patterns} |\n",
                rule.id, rule.stack
            ));
        }
        out.push('\n');
    }
    out
}

#[test]
fn the_rule_tables_in_the_docs_match_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/gate.md");
    let docs = std::fs::read_to_string(path).expect("docs/gate.md ships in the repository");
    let begin = docs.find("<!-- rules:begin").expect("a rules:begin marker");
    let begin = begin + docs[begin..].find("-->\n").expect("the marker is closed") + "-->\n".len();
    let end = docs.find("<!-- rules:end -->").expect("a rules:end marker");
    let expected = rules_tables();
    if std::env::var_os("HANDOFF_UPDATE_DOCS").is_some() {
        let updated = format!("{}{expected}{}", &docs[..begin], &docs[end..]);
        std::fs::write(path, updated).expect("docs/gate.md is writable");
        return;
    }
    assert!(
        docs[begin..end] == expected,
        "docs/gate.md's rule tables are stale; run HANDOFF_UPDATE_DOCS=1 cargo test --test it policy_schema"
    );
}
