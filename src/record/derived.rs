//! Facts derived from a record's sections: the decision, an escalation's failure type,
//! a capability request, and a scope expansion.
//!
//! Only a real `Decision` section heading counts as a decision: a header value or a
//! body line that merely contains `### Decision` is text. That is a security property,
//! since a record must not be able to approve itself through a field value.

use super::fields::{Capability, Urgency};
use super::placeholder::is_placeholder;
use super::Record;
use serde::Serialize;
use std::fmt;

/// What the receiver decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecisionStatus {
    /// Approved, accepted, passed, LGTM, ship it.
    Approved,
    /// Rejected, denied, declined.
    Rejected,
    /// Changes requested.
    ChangesRequested,
    /// Deferred, postponed, on hold.
    Deferred,
    /// A Decision section that is blank, a placeholder, or says something unrecognised.
    Pending,
    /// No Decision section.
    Absent,
}

impl DecisionStatus {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionStatus::Approved => "approved",
            DecisionStatus::Rejected => "rejected",
            DecisionStatus::ChangesRequested => "changes-requested",
            DecisionStatus::Deferred => "deferred",
            DecisionStatus::Pending => "pending",
            DecisionStatus::Absent => "absent",
        }
    }
}

impl fmt::Display for DecisionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for DecisionStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A record's decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// The status read from the first non-empty line.
    pub status: DecisionStatus,
    /// Who decided, from a `Reviewer:` / `Signed-off-by:` / `Decided by:` line.
    pub by: Option<String>,
    /// The Decision body, unless blank or a placeholder.
    pub text: Option<String>,
    /// The line of the Decision heading (the record's line when there is none).
    pub line: usize,
    /// Whether the first line said something that is not a recognised decision.
    #[serde(skip)]
    pub unrecognized: bool,
}

/// Decision words, matched against the start of the first line; longer phrases first.
const DECISION_WORDS: &[(&str, DecisionStatus)] = &[
    ("changes requested", DecisionStatus::ChangesRequested),
    ("changes-requested", DecisionStatus::ChangesRequested),
    ("request changes", DecisionStatus::ChangesRequested),
    ("needs changes", DecisionStatus::ChangesRequested),
    ("ship it", DecisionStatus::Approved),
    ("approved", DecisionStatus::Approved),
    ("approve", DecisionStatus::Approved),
    ("accepted", DecisionStatus::Approved),
    ("accept", DecisionStatus::Approved),
    ("passed", DecisionStatus::Approved),
    ("pass", DecisionStatus::Approved),
    ("lgtm", DecisionStatus::Approved),
    ("rejected", DecisionStatus::Rejected),
    ("reject", DecisionStatus::Rejected),
    ("denied", DecisionStatus::Rejected),
    ("declined", DecisionStatus::Rejected),
    ("decline", DecisionStatus::Rejected),
    ("deferred", DecisionStatus::Deferred),
    ("defer", DecisionStatus::Deferred),
    ("postponed", DecisionStatus::Deferred),
    ("on hold", DecisionStatus::Deferred),
];

pub(super) fn decision(record: &Record) -> Decision {
    let Some(section) = record.section("Decision") else {
        return Decision {
            status: DecisionStatus::Absent,
            by: None,
            text: None,
            line: record.line,
            unrecognized: false,
        };
    };
    let body = section.body.trim();
    let blank = body.is_empty() || is_placeholder(body);
    let first = body
        .lines()
        .map(strip_emphasis)
        .find(|line| !line.is_empty());
    let status = match first.as_deref() {
        _ if blank => None,
        Some(line) => status_of(line),
        None => None,
    };
    Decision {
        status: status.unwrap_or(DecisionStatus::Pending),
        by: body.lines().find_map(decider),
        text: (!blank).then(|| body.to_string()),
        line: section.line,
        unrecognized: !blank && status.is_none(),
    }
}

/// Removes emphasis markers and list bullets from a line.
fn strip_emphasis(line: &str) -> String {
    let line = line.replace("**", "").replace("__", "");
    let line = line.trim();
    let line = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .unwrap_or(line);
    line.trim().to_string()
}

fn status_of(line: &str) -> Option<DecisionStatus> {
    let mut lower = line.to_lowercase();
    for label in ["status:", "decision:"] {
        if let Some(rest) = lower.strip_prefix(label) {
            lower = rest.trim().to_string();
        }
    }
    let lower = lower.trim_start_matches(|ch: char| !ch.is_alphanumeric());
    DECISION_WORDS
        .iter()
        .find(|(word, _)| {
            lower
                .strip_prefix(word)
                .is_some_and(|rest| !rest.starts_with(|ch: char| ch.is_alphanumeric() || ch == '-'))
        })
        .map(|(_, status)| *status)
}

/// The decider named on a `Reviewer:` / `Signed-off-by:` / `Decided by:` line.
fn decider(line: &str) -> Option<String> {
    let line = strip_emphasis(line);
    let rest = ["reviewer:", "signed-off-by:", "decided by:"]
        .iter()
        .find_map(|prefix| strip_prefix_ignore_case(&line, prefix))?;
    let token = rest.split_whitespace().next()?;
    let name = token
        .trim_matches(|ch: char| matches!(ch, '*' | '_' | '`' | '@' | '<' | '>' | '(' | ')'))
        .trim_end_matches(['.', ',', ';', ':']);
    (!name.is_empty()).then(|| name.to_string())
}

/// `text` without `prefix`, when it starts with it ignoring ASCII case.
fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// A `Label: value` line of a section, as `(value, 1-based line)`.
pub(super) fn labelled_line(
    record: &Record,
    section: &str,
    label: &str,
) -> Option<(String, usize)> {
    let section = record.section(section)?;
    section.body.lines().enumerate().find_map(|(offset, line)| {
        let line = strip_emphasis(line);
        let rest = strip_prefix_ignore_case(&line, label)?;
        let value = rest.trim_start().strip_prefix(':')?.trim().to_string();
        Some((value, section.body_line + offset))
    })
}

/// The `Failure Type: …` line of Request: its value and line.
pub(super) fn failure_type_line(record: &Record) -> Option<(String, usize)> {
    labelled_line(record, "Request", "Failure Type")
}

/// A capability request read from Request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CapabilityRequest {
    /// The capability domain.
    pub domain: String,
    /// Its qualifiers.
    pub qualifiers: Vec<String>,
    /// The `Reason:` line.
    pub reason: Option<String>,
    /// The `Urgency:` line, when it is `blocking` or `non-blocking`.
    pub urgency: Option<Urgency>,
}

pub(super) fn capability_request(record: &Record) -> Option<CapabilityRequest> {
    let (needed, _) = labelled_line(record, "Request", "Capability needed")?;
    if is_placeholder(&needed) {
        return None;
    }
    let capability = Capability::parse(&needed)?;
    let reason = labelled_line(record, "Request", "Reason")
        .map(|(reason, _)| reason)
        .filter(|reason| !reason.is_empty() && !is_placeholder(reason));
    let urgency = labelled_line(record, "Request", "Urgency")
        .and_then(|(urgency, _)| Urgency::parse(&urgency));
    Some(CapabilityRequest {
        domain: capability.domain,
        qualifiers: capability.qualifiers,
        reason,
        urgency,
    })
}

/// A request to touch files outside the declared scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScopeExpansion {
    /// The path-like tokens of the request.
    pub paths: Vec<String>,
    /// Why: the text after the first `because `, else the whole request.
    pub reason: String,
    /// The line of the `Scope expansion:` text.
    pub line: usize,
}

const SCOPE_PREFIX: &str = "scope expansion:";

pub(super) fn scope_expansion(record: &Record) -> Option<ScopeExpansion> {
    let section = record.section("Request")?;
    let body = section.body.trim_start();
    let stripped = body.replace("**", "");
    let request = strip_prefix_ignore_case(&stripped, SCOPE_PREFIX)?.trim();
    let (subject, reason) = match request.find("because ") {
        Some(at) => (&request[..at], request[at + "because ".len()..].trim()),
        None => (request, request),
    };
    Some(ScopeExpansion {
        paths: path_tokens(subject),
        reason: reason.to_string(),
        line: section.body_line,
    })
}

/// The path-like tokens of a text: backticked spans, or words with a `/` or a file extension.
pub fn path_tokens(text: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let mut push = |path: &str| {
        if !path.is_empty() && !paths.iter().any(|known| known == path) {
            paths.push(path.to_string());
        }
    };
    for (index, piece) in text.split('`').enumerate() {
        if index % 2 == 1 {
            push(piece.trim());
            continue;
        }
        for word in piece.split(|ch: char| ch.is_whitespace() || ch == ',') {
            if let Some(path) = path_word(word) {
                push(path);
            }
        }
    }
    paths
}

fn path_word(word: &str) -> Option<&str> {
    if word.starts_with(['[', '<']) {
        return None;
    }
    let word = word
        .trim_start_matches(['(', '"', '\''])
        .trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '"', '\'']);
    let lower = word.to_lowercase();
    if word.is_empty()
        || lower == "e.g"
        || lower == "i.e"
        || !word.chars().any(char::is_alphanumeric)
    {
        return None;
    }
    (word.contains('/') || has_extension(word)).then_some(word)
}

fn has_extension(word: &str) -> bool {
    word.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && extension.len() <= 10
            && extension.starts_with(|ch: char| ch.is_ascii_alphabetic())
            && extension.chars().all(|ch| ch.is_ascii_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::super::RecordKind;
    use super::*;

    fn with_decision(body: &str) -> Decision {
        let mut record = Record::new(RecordKind::InteractionRecord);
        record.push_section("Decision", body);
        record.decision()
    }

    #[test]
    fn decisions_are_classified_from_the_first_line() {
        assert_eq!(
            with_decision("**Approved** — ship it").status,
            DecisionStatus::Approved
        );
        assert_eq!(
            with_decision("Status: changes requested").status,
            DecisionStatus::ChangesRequested
        );
        assert_eq!(with_decision("LGTM").status, DecisionStatus::Approved);
        assert_eq!(with_decision("Denied.").status, DecisionStatus::Rejected);
        assert_eq!(
            with_decision("On hold until Q3").status,
            DecisionStatus::Deferred
        );
        assert_eq!(
            with_decision("[Filled by the receiver]").status,
            DecisionStatus::Pending
        );
        assert_eq!(
            with_decision("Approval pending").status,
            DecisionStatus::Pending
        );
        assert!(with_decision("Approval pending").unrecognized);
        assert_eq!(
            with_decision("Not approved").status,
            DecisionStatus::Pending
        );
        let decision = with_decision("Approved\n\nReviewer: **reality-checker**");
        assert_eq!(decision.by.as_deref(), Some("reality-checker"));
        assert_eq!(
            Record::new(RecordKind::InteractionRecord).decision().status,
            DecisionStatus::Absent
        );
    }

    #[test]
    fn scope_expansions_name_paths_and_reason() {
        let mut record = Record::new(RecordKind::InteractionRecord);
        record.push_section(
            "Request",
            "Scope expansion: need to also modify src/middleware/cors.ts because OAuth redirect URI changed.\nThis is a 3-line config update, not logic.",
        );
        let expansion = record.scope_expansion();
        let expansion = expansion.as_ref();
        assert_eq!(
            expansion.map(|e| e.paths.clone()),
            Some(vec!["src/middleware/cors.ts".to_string()])
        );
        assert_eq!(
            expansion.map(|e| e.reason.as_str()),
            Some("OAuth redirect URI changed.\nThis is a 3-line config update, not logic.")
        );
        assert_eq!(
            path_tokens("`Makefile`, e.g. docs/a.md and README.md."),
            ["Makefile", "docs/a.md", "README.md"]
        );
    }
}
