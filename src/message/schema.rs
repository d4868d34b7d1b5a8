//! The JSON Schemas of the messages (`schema/*.schema.json`), embedded in the binary
//! and compiled once with `boon` (JSON Schema draft 2020-12).

use super::Kind;
use boon::{Compiler, SchemaIndex, Schemas};
use serde_json::Value;
use std::sync::OnceLock;

/// The schema files, by kind, as shipped in `schema/`.
pub fn text(kind: Kind) -> &'static str {
    match kind {
        Kind::Handoff => include_str!("../../schema/message-handoff.schema.json"),
        Kind::Handoff004 => include_str!("../../schema/message-handoff-004.schema.json"),
        Kind::Acceptance => include_str!("../../schema/message-acceptance.schema.json"),
        Kind::Return => include_str!("../../schema/message-return.schema.json"),
        Kind::Completion => include_str!("../../schema/message-completion.schema.json"),
        Kind::Failure => include_str!("../../schema/message-failure.schema.json"),
        Kind::Event => include_str!("../../schema/trail-event.schema.json"),
    }
}

struct Compiled {
    schemas: Schemas,
    indexes: Vec<(Kind, SchemaIndex)>,
}

fn compiled() -> Option<&'static Compiled> {
    static COMPILED: OnceLock<Option<Compiled>> = OnceLock::new();
    COMPILED
        .get_or_init(|| {
            let mut schemas = Schemas::new();
            let mut compiler = Compiler::new();
            let mut indexes = Vec::new();
            for kind in Kind::ALL {
                let url = format!("urn:handoff:{}", kind.name());
                let value: Value = serde_json::from_str(text(kind)).ok()?;
                compiler.add_resource(&url, value).ok()?;
                indexes.push((kind, compiler.compile(&url, &mut schemas).ok()?));
            }
            Some(Compiled { schemas, indexes })
        })
        .as_ref()
}

/// Every schema violation of `value` as `kind`: (JSON pointer, message).
pub fn validate(kind: Kind, value: &Value) -> Vec<(String, String)> {
    let Some(compiled) = compiled() else {
        return vec![(String::new(), "the embedded schemas do not compile".into())];
    };
    let Some((_, index)) = compiled.indexes.iter().find(|(k, _)| *k == kind) else {
        return Vec::new();
    };
    match compiled.schemas.validate(value, *index) {
        Ok(()) => Vec::new(),
        Err(error) => {
            let mut leaves = Vec::new();
            collect(&error, &mut leaves);
            leaves.sort();
            leaves.dedup();
            leaves
        }
    }
}

fn collect(error: &boon::ValidationError<'_, '_>, leaves: &mut Vec<(String, String)>) {
    if error.causes.is_empty() {
        leaves.push((error.instance_location.to_string(), error.kind.to_string()));
    }
    for cause in &error.causes {
        collect(cause, leaves);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_compiles() {
        assert!(compiled().is_some());
        for kind in Kind::ALL {
            let problems = validate(kind, &serde_json::json!([]));
            assert!(!problems.is_empty(), "{kind:?} accepts an array");
        }
    }
}
