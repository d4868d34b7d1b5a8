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
    /// A header-table row that is not `| key | value |`.
    MalformedRow,
    /// The same header key twice in one record.
    DuplicateField,
    /// A required header field is missing.
    MissingField,
    /// A header value outside its allowed values or form.
    InvalidValue,
    /// A timestamp that is not RFC 3339 with a zone.
    InvalidTimestamp,
    /// A template placeholder left unfilled.
    UnfilledPlaceholder,
    /// A Decision section still holding its placeholder.
    UnfilledDecision,
    /// A Decision whose first line is not a recognised decision.
    UnrecognizedDecision,
    /// An escalation without a failure type.
    MissingFailureType,
    /// An escalation failure type the seed does not define.
    InvalidFailureType,
    /// A review without an Evidence Bundle.
    MissingEvidenceBundle,
    /// A capability request without a readable `Capability needed:` line.
    MissingCapability,
    /// A capability request urgency other than blocking or non-blocking.
    InvalidUrgency,
    /// A scope expansion that names no file.
    MissingScopePaths,
    /// A section the seed does not define.
    UnknownSection,
    /// A tie-break rule the protocol does not define.
    UnrecognizedTieBreak,
}

impl Code {
    /// Every code, in the order `handoff explain --list` prints them.
    pub const ALL: &'static [Code] = &[
        Code::MissingHeaderTable,
        Code::MalformedRow,
        Code::DuplicateField,
        Code::MissingField,
        Code::InvalidValue,
        Code::InvalidTimestamp,
        Code::UnfilledPlaceholder,
        Code::UnfilledDecision,
        Code::UnrecognizedDecision,
        Code::MissingFailureType,
        Code::InvalidFailureType,
        Code::MissingEvidenceBundle,
        Code::MissingCapability,
        Code::InvalidUrgency,
        Code::MissingScopePaths,
        Code::UnknownSection,
        Code::UnrecognizedTieBreak,
    ];

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
            Code::MalformedRow => CodeInfo {
                name: "malformed-row",
                severity: Severity::Error,
                summary: "A row of the header table does not have exactly two cells, a key and a value.",
                example: "## Interaction Record\n| Task ID | ENG-042 |\n| Type | consultation | handoff |\n",
                fix: "Write one `| Key | Value |` row per field; escape a literal pipe in a value as `\\|`.",
            },
            Code::DuplicateField => CodeInfo {
                name: "duplicate-field",
                severity: Severity::Error,
                summary: "A header key appears twice in one record (only `Rejected` rows may repeat).",
                example: "## Interaction Record\n| Task ID | ENG-042 |\n| Task ID | ENG-043 |\n",
                fix: "Keep one row per key; the first value is the one used.",
            },
            Code::MissingField => CodeInfo {
                name: "missing-field",
                severity: Severity::Error,
                summary: "A field the record kind requires is missing (Interaction Record: Task ID, Type, From, To; Task Assignment: Task ID, Assigned to, Expected file scope; Routing Decision: Task ID, Requested capability, Selected).",
                example: "## Interaction Record\n| Task ID | ENG-042 |\n| Type | consultation |\n",
                fix: "Add the missing `| Key | value |` row to the header table.",
            },
            Code::InvalidValue => CodeInfo {
                name: "invalid-value",
                severity: Severity::Error,
                summary: "A header value is not one of the allowed values (type, transport, risk class) or not in the expected form (a file-scope list, a capability, matched or rejected agents).",
                example: "## Interaction Record\n| Task ID | ENG-042 |\n| Type | chat |\n",
                fix: "Use one of the values the hint lists, or the form it shows (e.g. `auth: [oauth2, pkce]`).",
            },
            Code::InvalidTimestamp => CodeInfo {
                name: "invalid-timestamp",
                severity: Severity::Error,
                summary: "The Timestamp is not an RFC 3339 / ISO 8601 date and time with a zone.",
                example: "## Interaction Record\n| Timestamp | yesterday at noon |\n",
                fix: "Write it like `2026-01-11T20:30:00Z` (or `handoff new --timestamp now`).",
            },
            Code::UnfilledPlaceholder => CodeInfo {
                name: "unfilled-placeholder",
                severity: Severity::Error,
                summary: "A header value, a section or a labelled line still holds the template's placeholder (`[sender agent name]`, `<git rev-parse HEAD>`, TBD, TODO, ...).",
                example: "## Interaction Record\n| From | [sender agent name] |\n",
                fix: "Replace the placeholder with the real value, or remove the row or section.",
            },
            Code::UnfilledDecision => CodeInfo {
                name: "unfilled-decision",
                severity: Severity::Warning,
                summary: "The Decision section still holds its placeholder; that is expected when sending, and the receiver fills it.",
                example: "### Decision\n[Filled by the receiver: what was decided, rationale, next steps. Left blank when sending.]\n",
                fix: "The receiver writes the decision (`Approved`, `Rejected`, `Changes requested`, `Deferred`) and the rationale.",
            },
            Code::UnrecognizedDecision => CodeInfo {
                name: "unrecognized-decision",
                severity: Severity::Warning,
                summary: "The first line of the Decision section is not a recognised decision, so the decision counts as pending.",
                example: "### Decision\nLooks fine to me, mostly.\n",
                fix: "Start the Decision with `Approved`, `Rejected`, `Changes requested` or `Deferred`, then the rationale.",
            },
            Code::MissingFailureType => CodeInfo {
                name: "missing-failure-type",
                severity: Severity::Error,
                summary: "An escalation's Request has no `Failure Type:` line; the orchestrator cannot pick its action.",
                example: "## Interaction Record\n| Type | escalation |\n### Request\nI am stuck.\n",
                fix: "Add `Failure Type: <type>` to Request, one of the seed's failure types.",
            },
            Code::InvalidFailureType => CodeInfo {
                name: "invalid-failure-type",
                severity: Severity::Error,
                summary: "The `Failure Type:` line names a failure type the seed does not define.",
                example: "### Request\nFailure Type: bad-luck\n",
                fix: "Use wrong-capability, task-too-large, conflicting-requirements, environment-issue, insufficient-context or unknown.",
            },
            Code::MissingEvidenceBundle => CodeInfo {
                name: "missing-evidence-bundle",
                severity: Severity::Error,
                summary: "A review record has no Evidence Bundle section, or an empty one; the seed requires evidence matching the risk class.",
                example: "## Interaction Record\n| Type | review |\n### Context\nDone.\n",
                fix: "Add `### Evidence Bundle` with the items the risk class requires (`- **Files changed**: ...`).",
            },
            Code::MissingCapability => CodeInfo {
                name: "missing-capability",
                severity: Severity::Error,
                summary: "A capability-request record's Request has no `Capability needed:` line in the form `domain + [qualifiers]` or `domain: [qualifiers]`.",
                example: "## Interaction Record\n| Type | capability-request |\n### Request\nNeed help with colours.\n",
                fix: "Add `Capability needed: design-system + [tokens, dark-theme]` to Request.",
            },
            Code::InvalidUrgency => CodeInfo {
                name: "invalid-urgency",
                severity: Severity::Warning,
                summary: "The `Urgency:` line of a capability request is neither `blocking` nor `non-blocking`.",
                example: "### Request\nCapability needed: auth\nUrgency: soon\n",
                fix: "Write `Urgency: blocking` or `Urgency: non-blocking`.",
            },
            Code::MissingScopePaths => CodeInfo {
                name: "missing-scope-paths",
                severity: Severity::Error,
                summary: "A Request starting with `Scope expansion:` names no path, so no file can be approved by it.",
                example: "### Request\nScope expansion: need a few more files because reasons.\n",
                fix: "Name each file, e.g. `Scope expansion: need to also modify src/middleware/cors.ts because ...`.",
            },
            Code::UnknownSection => CodeInfo {
                name: "unknown-section",
                severity: Severity::Warning,
                summary: "A section title is not one of the seed's (Context, Request, Constraints, Evidence Bundle, Decision); it is kept, but tools ignore it.",
                example: "### My Proposal\n43 chars.\n",
                fix: "Nothing to do if it is intended; otherwise rename it to one of the seed's sections.",
            },
            Code::UnrecognizedTieBreak => CodeInfo {
                name: "unrecognized-tie-break",
                severity: Severity::Warning,
                summary: "The `Tie-break rule applied` names none of the protocol's rules, so it cannot be audited.",
                example: "## Routing Decision\n| Tie-break rule applied | fewer current assignments |\n",
                fix: "Use qualifier-match, department-affinity, documented-choice (say why in Reason) or none.",
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
    /// How to fix it (allowed values, the expected form), when there is more to say;
    /// `null` in JSON otherwise (keys are never missing).
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
