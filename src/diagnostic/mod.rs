//! Diagnostics: what went wrong, where, and how to fix it.
//!
//! Every problem `handoff` reports — in a record (`lint`), in a change (`check`), in a
//! routing decision (`audit`), in an agent's contract (`contract`) — is a [`Diagnostic`]:
//! a stable [`Code`], a [`Severity`], where it is (the file, the 1-based line and column,
//! as far as they are known), a message, an optional hint that says how to repair it,
//! and, when one command repairs it, that command (the fix).
//!
//! Codes are one enumeration per area ([`RecordCode`], [`GateCode`], [`RoutingCode`],
//! [`ContractCode`]) under the umbrella [`Code`], in the manner of cargo-deny; what each
//! means, its severity, an example and the fix are one table of data ([`Explanation`]),
//! so `handoff explain CODE` and every report read the same words.

mod code;
mod explain;
pub(crate) mod shape;

pub use code::{Code, ContractCode, GateCode, RecordCode, RoutingCode, TrailCode};
pub use explain::Explanation;

use serde::{Deserialize, Serialize};
use std::fmt;

/// How serious a diagnostic is. Errors make `lint` and `check` fail; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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

/// One problem found in a user's input.
///
/// Its JSON form (`lint`, `parse`) is `{source, line, column, severity, code, message,
/// hint}` in that order, every key present; `fix`, `pointer` and `seq` are added only
/// when there is one. (`message check` and the trail's `verify` write their documented
/// shapes of it.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The file it was found in (`-` for standard input), when it is about a file.
    pub source: Option<String>,
    /// The 1-based line, when known.
    pub line: Option<usize>,
    /// The 1-based column, counted in characters, when known.
    pub column: Option<usize>,
    /// Error or warning.
    pub severity: Severity,
    /// The stable code.
    pub code: Code,
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it (allowed values, the expected form), when there is more to say.
    pub hint: Option<String>,
    /// A command that fixes it, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// The JSON pointer of the value at fault, for a problem in a JSON or YAML document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// The `seq` of the event at fault, for a break in a trail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

impl Diagnostic {
    /// A diagnostic with the code's own severity, about no particular place.
    pub fn new(code: impl Into<Code>, message: impl Into<String>) -> Diagnostic {
        let code = code.into();
        Diagnostic {
            source: None,
            line: None,
            column: None,
            severity: code.severity(),
            code,
            message: message.into(),
            hint: None,
            fix: None,
            pointer: None,
            seq: None,
        }
    }

    /// Points it at a value of a JSON or YAML document.
    pub fn at_pointer(mut self, pointer: impl Into<String>) -> Diagnostic {
        self.pointer = Some(pointer.into());
        self
    }

    /// Points it at an event of a trail.
    pub fn at_seq(mut self, seq: Option<u64>) -> Diagnostic {
        self.seq = seq;
        self
    }

    /// Places it in a file, at no particular line.
    pub fn in_file(mut self, source: impl Into<String>) -> Diagnostic {
        self.source = Some(source.into());
        self
    }

    /// Places it at a line of a file.
    pub fn at_line(self, source: impl Into<String>, line: usize) -> Diagnostic {
        let mut diagnostic = self.in_file(source);
        diagnostic.line = Some(line);
        diagnostic
    }

    /// Places it at a line and column of a file.
    pub fn at(self, source: impl Into<String>, line: usize, column: usize) -> Diagnostic {
        let mut diagnostic = self.at_line(source, line);
        diagnostic.column = Some(column);
        diagnostic
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Adds the command that fixes it.
    pub fn with_fix(mut self, fix: impl Into<String>) -> Diagnostic {
        self.fix = Some(fix.into());
        self
    }

    /// Whether this diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `path:line:column` as far as it is known (empty when about no file).
    pub fn location(&self) -> String {
        let mut text = self.source.clone().unwrap_or_default();
        for number in [self.line, self.column].into_iter().flatten() {
            text.push_str(&format!(":{number}"));
        }
        text
    }
}
