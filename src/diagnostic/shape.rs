//! The JSON shapes a [`Diagnostic`] takes in the contracts that predate the one type.
//!
//! `lint` and `parse` write a diagnostic as its own serde form. `message check` and the
//! trail's `verify` (and `repair`, `prune`) documented their own shapes before their
//! problems became diagnostics; these serializers keep those contracts byte for byte.

use super::{Code, Diagnostic, Severity};
use serde::{Serialize, Serializer};

/// A message problem: `{severity, code, pointer, line, column, message}`, every key
/// present (an empty pointer for a problem of the document itself).
pub fn pointed<S: Serializer>(problems: &[Diagnostic], serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Pointed<'a> {
        severity: Severity,
        code: &'a Code,
        pointer: &'a str,
        line: usize,
        column: usize,
        message: &'a str,
    }
    serializer.collect_seq(problems.iter().map(|problem| Pointed {
        severity: problem.severity,
        code: &problem.code,
        pointer: problem.pointer.as_deref().unwrap_or(""),
        line: problem.line.unwrap_or(1),
        column: problem.column.unwrap_or(1),
        message: &problem.message,
    }))
}

/// A break in a trail: `{kind, seq, file, line, message}`, every key present (`null`
/// where the seq or the line is not known).
pub fn trail_break<S: Serializer>(breaks: &[Diagnostic], serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Break<'a> {
        kind: &'a Code,
        seq: Option<u64>,
        file: &'a str,
        line: Option<usize>,
        message: &'a str,
    }
    serializer.collect_seq(breaks.iter().map(|found| Break {
        kind: &found.code,
        seq: found.seq,
        file: found.source.as_deref().unwrap_or(""),
        line: found.line,
        message: &found.message,
    }))
}
