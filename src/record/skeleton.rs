//! The records `handoff new` starts from: skeleton templates (`templates/new/`), filled
//! with the values given and parsed into a [`Record`], then written to a new file.
//!
//! A value not given keeps the seed template's placeholder, so `handoff lint` points at
//! exactly what is left to fill. Values reach a skeleton already encoded for a table
//! cell, and what a skeleton produces must read back as exactly one record without
//! structural errors: a user's skeleton cannot smuggle a second record or a broken row.
//! A header value given by key ([`set_checked_value`], `new --set`) is checked against
//! the field's allowed values first. [`write_new_record`] creates the output file (and
//! its directory), and overwrites an existing one only when asked, atomically.

use super::fields::{format_list, is_valid_timestamp, utc_now_rfc3339};
use super::lint::{expected_value, is_empty_value, value_problem};
use super::{parse_document, FieldKey, Record};
use crate::io::{create_new, replace_atomically};
use crate::markdown::cell::encode_cell;
use crate::policy::RiskClass;
use crate::template::{TemplateError, Templates};
use serde::Serialize;
use std::path::{Path, PathBuf};

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

/// What a timestamp given to `new` must be, read after "expected".
const TIMESTAMP_EXPECTED: &str = "`now` or RFC 3339 with a zone, e.g. 2026-01-11T20:30:00Z";

/// A timestamp given to `new`: `now` (any case) is the current UTC time, anything else
/// must be RFC 3339 with a zone and is kept as given. `Err` says what is expected.
pub fn timestamp_or_now(text: &str) -> Result<String, String> {
    if text.eq_ignore_ascii_case("now") {
        return Ok(utc_now_rfc3339());
    }
    if is_valid_timestamp(text) {
        Ok(text.to_string())
    } else {
        Err(format!("expected {TIMESTAMP_EXPECTED}"))
    }
}

/// A header value `new` refuses to write, and what the field expects instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}={value}: {expected}")]
pub struct SetValueError {
    /// The key, as given.
    pub key: String,
    /// The value, as given.
    pub value: String,
    /// What the field expects (`expected one of: …`).
    pub expected: String,
}

/// Sets the header value `key` of a new record, checked the way `lint` checks it, so
/// that a record `new` writes never holds a value `lint` rejects: a value outside the
/// field's allowed values or form, or an empty value (white space, invisible characters,
/// `[]` for a list) of a required field, is refused with what the field expects. `now` (any
/// case) as a `Timestamp` is the current UTC time, as for `--timestamp`. A key the
/// record's kind does not know becomes an extra row.
pub fn set_checked_value(record: &mut Record, key: &str, value: &str) -> Result<(), SetValueError> {
    let refuse = |expected: String| SetValueError {
        key: key.to_string(),
        value: value.to_string(),
        expected,
    };
    let known = record.kind.key_named(key);
    if let Some(field) = known.filter(|&field| record.kind.requires(field)) {
        if is_empty_value(field, &field.canonical_value(value)) {
            let expected = expected_value(field).unwrap_or_else(|| "a value".to_string());
            return Err(refuse(format!(
                "a required field cannot be empty; expected {expected}"
            )));
        }
    }
    let checked = match known {
        Some(FieldKey::Timestamp) => timestamp_or_now(value).map_err(refuse)?,
        Some(FieldKey::RiskClass) => match value.parse::<RiskClass>() {
            Ok(_) => value.to_string(),
            Err(error) => return Err(refuse(error.to_string())),
        },
        Some(field) => match value_problem(field, &field.canonical_value(value)) {
            Some((_, expected)) => return Err(refuse(expected)),
            None => value.to_string(),
        },
        None => value.to_string(),
    };
    record.set_field(key, &checked);
    Ok(())
}

/// Why a new record's file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteNewError {
    /// The path is a directory.
    #[error(
        "{}: is a directory; pass -o the path of the file to create, e.g. {}",
        path.display(),
        path.join("ENG-042-review.md").display()
    )]
    IsADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The file's directory could not be created.
    #[error("{}: cannot create the directory for {}: {source}", directory.display(), path.display())]
    Directory {
        /// The directory.
        directory: PathBuf,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file exists and overwriting was not asked for.
    #[error("{} already exists; pass --force to overwrite it", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// Writing failed.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Writes a new record's text to `path`, creating its directory if missing (records go
/// to `.handoff/`, which a repository may not have yet). An existing file is kept unless
/// `overwrite`, and then replaced atomically.
pub fn write_new_record(path: &Path, text: &str, overwrite: bool) -> Result<(), WriteNewError> {
    if path.is_dir() {
        return Err(WriteNewError::IsADirectory {
            path: path.to_path_buf(),
        });
    }
    if let Some(directory) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(directory).map_err(|source| WriteNewError::Directory {
            directory: directory.to_path_buf(),
            path: path.to_path_buf(),
            source,
        })?;
    }
    let written = match overwrite {
        true => replace_atomically(path, text.as_bytes()),
        false => create_new(path, text.as_bytes()),
    };
    written.map_err(|source| match source.kind() {
        std::io::ErrorKind::AlreadyExists => WriteNewError::Exists {
            path: path.to_path_buf(),
        },
        _ => WriteNewError::Write {
            path: path.to_path_buf(),
            source,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Code, RecordCode};
    use crate::record::lint_record;

    /// The codes lint gives a header value it does not accept.
    fn value_problems(record: &Record) -> Vec<String> {
        let codes = [
            RecordCode::InvalidValue,
            RecordCode::InvalidTimestamp,
            RecordCode::UnrecognizedTieBreak,
        ];
        lint_record(record)
            .into_iter()
            .filter(|d| codes.iter().any(|code| d.code == Code::Record(*code)))
            .map(|d| d.message)
            .collect()
    }

    #[test]
    fn every_value_new_accepts_lints_clean_and_now_is_the_current_time() {
        let templates = Templates::embedded();
        let values = SkeletonValues {
            timestamp: "2026-01-11T20:30:00Z".to_string(),
            ..SkeletonValues::default()
        };
        let awkward = [
            "now",
            "NOW",
            "",
            " ",
            ";;",
            "x",
            "LOW",
            "[",
            "a — ",
            "2026-01-11 20:30:00Z",
            "2026-01-11T20:30:00",
            "<x>",
            "[a, b]",
            "auth: [",
            "a (b",
            "none",
            "review",
        ];
        for name in SKELETONS {
            let fresh = skeleton(name, &values, &templates).expect("the embedded skeleton");
            assert_eq!(value_problems(&fresh), Vec::<String>::new(), "{name}");
            for key in fresh.kind.keys() {
                for value in awkward {
                    let mut record = fresh.clone();
                    if set_checked_value(&mut record, key.label(), value).is_ok() {
                        let problems = value_problems(&record);
                        assert!(
                            problems.is_empty(),
                            "{name} {key:?}={value:?}: {problems:?}"
                        );
                    }
                }
            }
        }
        let mut record = skeleton("review", &values, &templates).expect("a review");
        let before = utc_now_rfc3339();
        set_checked_value(&mut record, "timestamp", "now").expect("now is a timestamp");
        let after = utc_now_rfc3339();
        let stamp = record.timestamp().expect("a timestamp").to_string();
        assert!(
            before <= stamp && stamp <= after,
            "{before} {stamp} {after}"
        );
    }
}
