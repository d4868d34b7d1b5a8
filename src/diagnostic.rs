//! Diagnostics: what went wrong, where, and how to fix it.
//!
//! Every problem `handoff` reports about a user's input is a [`Diagnostic`]: a stable
//! [`Code`], a [`Severity`], the file and the 1-based line and column it points at, a
//! message, and an optional hint that says how to repair it. Codes are an enum in the
//! manner of cargo-deny: each one carries its own description, an example of input that
//! triggers it, and the fix, so `handoff explain CODE` and any machine format (JSON,
//! SARIF) derive from one table instead of strings scattered through the code.
//!
//! Code names are a public contract: scripts match on them, so a code is never renamed
//! once shipped. New codes are added to the table in [`Code::ALL`].

use serde::Serialize;
use std::fmt;

/// How serious a diagnostic is. Errors make `lint` and `check` fail; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth fixing, but the input is usable as it is.
    Warning,
    /// The input is wrong: the command reports failure.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// The documentation of one diagnostic code, as `handoff explain` prints it.
#[derive(Debug, Clone, Copy)]
pub struct CodeInfo {
    /// The stable name, e.g. `missing-field`.
    pub name: &'static str,
    /// The severity the code is reported with.
    pub severity: Severity,
    /// One sentence: what the code means.
    pub summary: &'static str,
    /// A small input that triggers it.
    pub example: &'static str,
    /// How to repair the input.
    pub fix: &'static str,
}

/// Every diagnostic code `handoff` can report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// A record heading with no key/value table after it.
    MissingHeaderTable,
}

impl Code {
    /// Every code, in the order `handoff explain --list` prints them.
    pub const ALL: &'static [Code] = &[Code::MissingHeaderTable];

    /// The documentation of this code.
    pub fn info(self) -> CodeInfo {
        match self {
            Code::MissingHeaderTable => CodeInfo {
                name: "missing-header-table",
                severity: Severity::Error,
                summary: "A record heading is not followed by its key/value header table.",
                example: "## Interaction Record\n\nSome prose instead of the table.\n",
                fix: "Put the `| Field | Value |` table directly under the record heading.",
            },
        }
    }

    /// The stable name of this code.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Looks a code up by its name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|code| code.name().eq_ignore_ascii_case(name.trim()))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// One problem found in a user's input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The file it was found in (`-` for standard input).
    pub source: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// Error or warning.
    pub severity: Severity,
    /// The stable code.
    pub code: Code,
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it (allowed values, the expected form), when there is more to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the code's own severity and no hint.
    pub fn new(
        code: Code,
        source: impl Into<String>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            source: source.into(),
            line,
            column,
            severity: code.info().severity,
            code,
            message: message.into(),
            hint: None,
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Whether this diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_name_is_unique_and_round_trips() {
        let mut names: Vec<&str> = Code::ALL.iter().map(|code| code.name()).collect();
        for code in Code::ALL {
            assert_eq!(Code::from_name(code.name()), Some(*code));
            assert!(!code.info().summary.is_empty());
            assert!(!code.info().example.is_empty());
            assert!(!code.info().fix.is_empty());
        }
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate code names");
    }
}
