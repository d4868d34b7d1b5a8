//! The records `handoff new` starts from: skeleton templates (`templates/new/`), filled
//! with the values given and parsed into a [`Record`].
//!
//! A value not given keeps the seed template's placeholder, so `handoff lint` points at
//! exactly what is left to fill. Values reach a skeleton already encoded for a table
//! cell, and what a skeleton produces must read back as exactly one record without
//! structural errors: a user's skeleton cannot smuggle a second record or a broken row.

use super::fields::format_list;
use super::{parse_document, Record};
use crate::markdown::cell::encode_cell;
use crate::template::{TemplateError, Templates};
use serde::Serialize;

/// The record kinds and interaction types `new` creates, by skeleton name.
pub const SKELETONS: [&str; 8] = [
    "consultation",
    "handoff",
    "review",
    "escalation",
    "capability-request",
    "scope-expansion",
    "task-assignment",
    "routing-decision",
];

/// What a skeleton is filled with; `None` keeps its placeholder.
#[derive(Debug, Clone, Default)]
pub struct SkeletonValues {
    /// Task ID.
    pub task: Option<String>,
    /// The sender.
    pub from: Option<String>,
    /// The receiver, or the assignee of a Task Assignment.
    pub to: Option<String>,
    /// The transport's canonical spelling.
    pub transport: Option<String>,
    /// The risk class's canonical spelling.
    pub risk: Option<String>,
    /// An RFC 3339 timestamp.
    pub timestamp: String,
    /// A Task Assignment's expected file scope.
    pub scope: Vec<String>,
    /// The paths a scope expansion asks for.
    pub paths: Vec<String>,
    /// An escalation's failure type.
    pub failure_type: Option<String>,
}

/// What a skeleton template sees: cell values encoded, absent ones left out.
#[derive(Serialize)]
struct Context<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    task: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transport: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    risk: Option<String>,
    timestamp: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<String>,
    paths: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    failure_type: Option<&'a str>,
}

/// Why a skeleton could not be made into a record.
#[derive(Debug, thiserror::Error)]
pub enum SkeletonError {
    /// No skeleton has that name.
    #[error("no skeleton named `{name}`; expected one of: {}", SKELETONS.join(", "))]
    Unknown {
        /// The name asked for.
        name: String,
    },
    /// The template failed.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The template's output is not exactly one well-formed record.
    #[error("skeleton `new/{name}.md` does not read as one record: {problem}")]
    NotARecord {
        /// The skeleton.
        name: String,
        /// What is wrong with its output.
        problem: String,
    },
}

/// The record the skeleton `name` makes with `values`.
pub fn skeleton(
    name: &str,
    values: &SkeletonValues,
    templates: &Templates,
) -> Result<Record, SkeletonError> {
    if !SKELETONS.contains(&name) {
        return Err(SkeletonError::Unknown {
            name: name.to_string(),
        });
    }
    let cell = |value: &Option<String>| value.as_deref().map(encode_cell);
    let context = Context {
        task: cell(&values.task),
        from: cell(&values.from),
        to: cell(&values.to),
        transport: cell(&values.transport),
        risk: cell(&values.risk),
        timestamp: &values.timestamp,
        scope: (!values.scope.is_empty()).then(|| encode_cell(&format_list(&values.scope))),
        paths: &values.paths,
        failure_type: values.failure_type.as_deref(),
    };
    let text = templates.render(&format!("new/{name}.md"), &context)?;
    let not_a_record = |problem: String| SkeletonError::NotARecord {
        name: name.to_string(),
        problem,
    };
    let mut document = parse_document("", &text);
    if let Some(diagnostic) = document.diagnostics.iter().find(|d| d.is_error()) {
        return Err(not_a_record(diagnostic.message.clone()));
    }
    match document.records.len() {
        1 => Ok(document.records.remove(0)),
        count => Err(not_a_record(format!("{count} records"))),
    }
}
