//! The protocol checks `handoff lint` runs on every record of a document.
//!
//! Each check reports at the line (and, for header values, the column) of what it is
//! about, so an agent can repair a record from the diagnostics alone: required fields,
//! enumerations and forms, timestamps, unfilled placeholders (a Decision placeholder is
//! only a warning, since the seed leaves Decision blank when sending), an escalation's
//! failure type, a review's evidence, a capability request's capability, a scope
//! expansion's paths, unknown sections and unrecognised decisions or tie-breaks.

use super::fields::{is_valid_timestamp, Capability};
use super::fields::{parse_list, parse_matched_agents, parse_rejected};
use super::placeholder::{is_blank, is_placeholder, is_placeholder_value};
use super::{
    derived, DecisionStatus, FailureType, FieldKey, InteractionType, ParsedDocument, Record,
    RecordKind, TieBreak, Transport, Urgency, SEED_SECTIONS,
};
use crate::diagnostic::{Diagnostic, RecordCode};
use crate::policy::RiskClass;

/// Every diagnostic of a parsed document: the parser's, then the protocol checks,
/// sorted by line and column.
pub fn lint(document: &ParsedDocument) -> Vec<Diagnostic> {
    let mut diagnostics = document.diagnostics.clone();
    for record in &document.records {
        diagnostics.extend(lint_record(record));
    }
    diagnostics.sort_by_key(|d| (d.source.clone(), d.line, d.column));
    diagnostics
}

/// The protocol checks of one record.
pub fn lint_record(record: &Record) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    check_required(record, &mut out);
    check_values(record, &mut out);
    check_sections(record, &mut out);
    if record.kind == RecordKind::InteractionRecord {
        check_by_type(record, &mut out);
    }
    out
}

fn at(
    record: &Record,
    code: RecordCode,
    line: usize,
    column: usize,
    message: String,
) -> Diagnostic {
    Diagnostic::new(code, message).at(record.source.clone(), line, column.max(1))
}

fn check_required(record: &Record, out: &mut Vec<Diagnostic>) {
    for &key in record.kind.keys() {
        if !record.kind.requires(key) {
            continue;
        }
        if let Some(field) = record.field(key) {
            if is_empty_value(key, &field.value) {
                let message = format!("`{}` is empty", key.label());
                let hint = match expected_value(key) {
                    Some(expected) => format!(
                        "write the real {} in its row; expected {expected}",
                        key.label()
                    ),
                    None => format!("write the real {} in its row", key.label()),
                };
                out.push(
                    at(
                        record,
                        RecordCode::MissingField,
                        field.line,
                        field.column,
                        message,
                    )
                    .with_hint(hint),
                );
            }
            continue;
        }
        let message = format!("{} without `{}`", record.kind.heading(), key.label());
        out.push(
            at(record, RecordCode::MissingField, record.line, 1, message).with_hint(format!(
                "add a `| {} | … |` row to the header table",
                key.label()
            )),
        );
    }
}

fn check_values(record: &Record, out: &mut Vec<Diagnostic>) {
    for field in record.fields() {
        let (value, line, column) = (field.value.as_str(), field.line, field.column);
        if record.kind.requires(field.key) && is_empty_value(field.key, value) {
            // check_required reports it, once.
            continue;
        }
        if is_placeholder_value(field.key, value) {
            let message = format!(
                "`{}` still holds the placeholder `{value}`",
                field.key.label()
            );
            out.push(
                at(
                    record,
                    RecordCode::UnfilledPlaceholder,
                    line,
                    column,
                    message,
                )
                .with_hint(placeholder_hint(field.key)),
            );
            continue;
        }
        if let Some((code, hint)) = value_problem(field.key, value) {
            let message = format!("`{}` is not a valid {}", one_line(value), field.key.label());
            out.push(at(record, code, line, column, message).with_hint(hint));
        }
    }
    for ((key, value), line) in record.extra().iter().zip(record.extra_lines()) {
        if is_placeholder(value) {
            let message = format!("`{key}` still holds the placeholder `{value}`");
            out.push(
                at(record, RecordCode::UnfilledPlaceholder, *line, 1, message)
                    .with_hint(format!("replace it with the real {key}")),
            );
        }
    }
}

/// Whether a header value holds nothing: [`is_blank`], or a list key's list without an
/// item (`[]`, `[ , ]`).
pub(super) fn is_empty_value(key: FieldKey, value: &str) -> bool {
    is_blank(value) || (key.is_list() && parse_list(value).is_some_and(|items| items.is_empty()))
}

/// The code and hint for a value outside its allowed values or form.
pub(super) fn value_problem(key: FieldKey, value: &str) -> Option<(RecordCode, String)> {
    let code = match key {
        FieldKey::Type if InteractionType::parse(value).is_none() => RecordCode::InvalidValue,
        FieldKey::Transport if Transport::parse(value).is_none() => RecordCode::InvalidValue,
        FieldKey::RiskClass if value.parse::<RiskClass>().is_err() => RecordCode::InvalidValue,
        FieldKey::Timestamp if !is_valid_timestamp(value) => RecordCode::InvalidTimestamp,
        FieldKey::ExpectedFileScope if parse_list(value).is_none() => RecordCode::InvalidValue,
        FieldKey::RequestedCapability | FieldKey::CapabilityRouted
            if Capability::parse(value).is_none() =>
        {
            RecordCode::InvalidValue
        }
        FieldKey::MatchedAgents if parse_matched_agents(value).is_none() => {
            RecordCode::InvalidValue
        }
        FieldKey::Rejected if parse_rejected(value).is_none() => RecordCode::InvalidValue,
        FieldKey::TieBreakRule if TieBreak::from_rule(value).is_none() => {
            RecordCode::UnrecognizedTieBreak
        }
        _ => return None,
    };
    let expected = expected_value(key).unwrap_or_default();
    Some((code, format!("expected {expected}")))
}

/// The allowed values or the expected form of a header value, for hints (read after
/// "expected"): `one of: …`, `the form `…``, or a description with an example.
pub(super) fn expected_value(key: FieldKey) -> Option<String> {
    let form = |example: &str| Some(format!("the form `{example}`"));
    match key {
        FieldKey::TaskId => Some("the form `DEPT-NNN`, e.g. `ENG-042`".to_string()),
        FieldKey::Type => Some(format!("one of: {}", InteractionType::allowed())),
        FieldKey::Transport => Some(format!("one of: {}", Transport::allowed())),
        FieldKey::RiskClass => Some("one of: low, medium, high".to_string()),
        FieldKey::Timestamp => {
            Some("RFC 3339 with a zone, e.g. `2026-01-11T20:30:00Z`".to_string())
        }
        FieldKey::ExpectedFileScope => form("[src/a.ts, tests/a/*.test.ts]"),
        FieldKey::RequestedCapability | FieldKey::CapabilityRouted => form("auth: [oauth2, pkce]"),
        FieldKey::MatchedAgents => {
            form("security-engineer (auth: [oauth2, saml]), backend-engineer (auth: [jwt])")
        }
        FieldKey::Rejected => form("backend-engineer — qualifier mismatch"),
        FieldKey::TieBreakRule => Some(format!("one of: {}, none", TieBreak::allowed())),
        FieldKey::BaselineSha => {
            Some("a commit SHA, e.g. the output of `git rev-parse HEAD`".to_string())
        }
        FieldKey::From | FieldKey::AssignedTo | FieldKey::Selected => {
            Some("an agent name, e.g. `backend-engineer`".to_string())
        }
        FieldKey::To => {
            Some("an agent name, e.g. `security-engineer`, or `orchestrator`".to_string())
        }
        _ => None,
    }
}

/// The hint for an unfilled placeholder in a header value.
fn placeholder_hint(key: FieldKey) -> String {
    match expected_value(key) {
        Some(expected) => format!(
            "replace it with the real {}; expected {expected}",
            key.label()
        ),
        None => format!("replace it with the real {}", key.label()),
    }
}

fn one_line(value: &str) -> String {
    value.replace('\n', " ")
}

fn check_sections(record: &Record, out: &mut Vec<Diagnostic>) {
    if let Some(preamble) = record.preamble().filter(|p| is_placeholder(p)) {
        let message = format!("the text under the header table is a placeholder: `{preamble}`");
        out.push(at(
            record,
            RecordCode::UnfilledPlaceholder,
            record.line,
            1,
            message,
        ));
    }
    for section in record.sections() {
        let known = SEED_SECTIONS
            .iter()
            .any(|seed| seed.eq_ignore_ascii_case(&section.title));
        if !known {
            let message = format!("`{}` is not one of the protocol's sections", section.title);
            out.push(
                at(record, RecordCode::UnknownSection, section.line, 1, message).with_hint(
                    format!("the protocol's sections: {}", SEED_SECTIONS.join(", ")),
                ),
            );
        }
        if !section.body.is_empty() && is_placeholder(&section.body) {
            let decision = section.title.eq_ignore_ascii_case("Decision");
            let code = if decision {
                RecordCode::UnfilledDecision
            } else {
                RecordCode::UnfilledPlaceholder
            };
            let message = format!("section `{}` still holds its placeholder", section.title);
            let hint = if decision {
                "the receiver fills it: start with Approved, Rejected, Changes requested or Deferred"
                    .to_string()
            } else {
                format!("replace the bracketed text with the real {}", section.title)
            };
            out.push(at(record, code, section.body_line, 1, message).with_hint(hint));
        }
    }
    let decision = record.decision();
    if decision.status == DecisionStatus::Pending && decision.unrecognized {
        let line = record
            .section("Decision")
            .map_or(decision.line, |s| s.body_line);
        out.push(
            at(
                record,
                RecordCode::UnrecognizedDecision,
                line,
                1,
                "the Decision's first line is not a recognised decision; it counts as pending"
                    .to_string(),
            )
            .with_hint("start with Approved, Rejected, Changes requested or Deferred"),
        );
    }
}

fn check_by_type(record: &Record, out: &mut Vec<Diagnostic>) {
    match record.interaction_type() {
        Some(InteractionType::Escalation) => check_failure_type(record, out),
        Some(InteractionType::Review) => check_evidence(record, out),
        Some(InteractionType::CapabilityRequest) => check_capability(record, out),
        _ => {}
    }
    if let Some(expansion) = record.scope_expansion() {
        if expansion.paths.is_empty() {
            out.push(
                at(
                    record,
                    RecordCode::MissingScopePaths,
                    expansion.line,
                    1,
                    "the scope expansion names no file".to_string(),
                )
                .with_hint("name each path, e.g. `src/middleware/cors.ts`"),
            );
        }
        if is_placeholder(&expansion.reason) {
            let message = format!(
                "the scope expansion's reason is a placeholder: `{}`",
                expansion.reason
            );
            out.push(at(
                record,
                RecordCode::UnfilledPlaceholder,
                expansion.line,
                1,
                message,
            ));
        }
    }
}

fn check_failure_type(record: &Record, out: &mut Vec<Diagnostic>) {
    let Some((value, line)) = derived::failure_type_line(record) else {
        let line = record.section("Request").map_or(record.line, |s| s.line);
        out.push(
            at(
                record,
                RecordCode::MissingFailureType,
                line,
                1,
                "an escalation without a `Failure Type:` line in Request".to_string(),
            )
            .with_hint(format!(
                "add `Failure Type: <type>`, one of: {}",
                FailureType::allowed()
            )),
        );
        return;
    };
    if is_placeholder(&value) {
        let message = format!("`Failure Type` still holds the placeholder `{value}`");
        out.push(
            at(record, RecordCode::UnfilledPlaceholder, line, 1, message).with_hint(format!(
                "replace it with the real Failure Type; expected one of: {}",
                FailureType::allowed()
            )),
        );
    } else if FailureType::parse(&value).is_none() {
        out.push(
            at(
                record,
                RecordCode::InvalidFailureType,
                line,
                1,
                format!("`{value}` is not a failure type"),
            )
            .with_hint(format!("expected one of: {}", FailureType::allowed())),
        );
    }
}

fn check_evidence(record: &Record, out: &mut Vec<Diagnostic>) {
    let missing = record
        .section("Evidence Bundle")
        .is_none_or(|section| section.body.trim().is_empty());
    if missing {
        out.push(
            at(
                record,
                RecordCode::MissingEvidenceBundle,
                record.line,
                1,
                "a review without an Evidence Bundle".to_string(),
            )
            .with_hint("add `### Evidence Bundle` with the items the risk class requires"),
        );
    }
}

fn check_capability(record: &Record, out: &mut Vec<Diagnostic>) {
    match derived::labelled_line(record, "Request", "Capability needed") {
        Some((value, line)) if is_placeholder(&value) => {
            let message = format!("`Capability needed` still holds the placeholder `{value}`");
            out.push(
                at(record, RecordCode::UnfilledPlaceholder, line, 1, message).with_hint(
                    "replace it with the real capability; expected the form `design-system + [tokens, dark-theme]`",
                ),
            );
        }
        Some(_) if record.capability_request().is_some() => {}
        found => {
            let line = found.map_or(record.line, |(_, line)| line);
            out.push(
                at(
                    record,
                    RecordCode::MissingCapability,
                    line,
                    1,
                    "no readable `Capability needed:` line in Request".to_string(),
                )
                .with_hint("write `Capability needed: design-system + [tokens, dark-theme]`"),
            );
        }
    }
    if let Some((value, line)) = derived::labelled_line(record, "Request", "Urgency") {
        if Urgency::parse(&value).is_none() {
            let code = if is_placeholder(&value) {
                RecordCode::UnfilledPlaceholder
            } else {
                RecordCode::InvalidUrgency
            };
            out.push(
                at(
                    record,
                    code,
                    line,
                    1,
                    format!("`{value}` is not an urgency"),
                )
                .with_hint(format!("expected one of: {}", Urgency::allowed())),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_document;
    use super::*;

    fn codes(text: &str) -> Vec<(String, usize, usize)> {
        lint(&parse_document("x.md", text))
            .into_iter()
            .map(|d| {
                let (line, column) = (d.line.unwrap_or_default(), d.column.unwrap_or_default());
                (d.code.name().to_string(), line, column)
            })
            .collect()
    }

    #[test]
    fn bad_values_are_reported_where_they_are() {
        let text = "## Interaction Record\n| Task ID | A-1 |\n| Type | chat |\n| From | a |\n| Transport | pigeon |\n| Timestamp | noon |\n";
        assert_eq!(
            codes(text),
            [
                ("missing-field".to_string(), 1, 1),
                ("invalid-value".to_string(), 3, 10),
                ("invalid-value".to_string(), 5, 15),
                ("invalid-timestamp".to_string(), 6, 15)
            ]
        );
    }

    fn hints(text: &str) -> Vec<(usize, String)> {
        lint(&parse_document("x.md", text))
            .into_iter()
            .map(|d| (d.line.unwrap_or_default(), d.hint.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn hints_carry_the_allowed_values_or_the_expected_form() {
        let interaction = "## Interaction Record\n| Task ID | [DEPT-NNN, e.g., ENG-042] |\n| Type | [consultation \\| handoff] |\n| From | a |\n| To | b |\n| Transport | pigeon |\n| Risk Class | TBD |\n| Timestamp | noon |\n";
        assert_eq!(
            hints(interaction),
            [
                (2, "replace it with the real Task ID; expected the form `DEPT-NNN`, e.g. `ENG-042`".to_string()),
                (3, "replace it with the real Type; expected one of: consultation, handoff, review, escalation, capability-request".to_string()),
                (6, "expected one of: agent-teams, orchestrator-mediated".to_string()),
                (7, "replace it with the real Risk Class; expected one of: low, medium, high".to_string()),
                (8, "expected RFC 3339 with a zone, e.g. `2026-01-11T20:30:00Z`".to_string()),
            ]
        );
        let assignment = "## Task Assignment\n| Task ID | A |\n| Assigned to | a |\n| Expected file scope | [src/..., e.g. tests] |\n";
        assert_eq!(
            hints(assignment),
            [(4, "replace it with the real Expected file scope; expected the form `[src/a.ts, tests/a/*.test.ts]`".to_string())]
        );
        let routing = "## Routing Decision\n| Task ID | A |\n| Requested capability | [domain: qualifiers] |\n| Selected | s |\n";
        assert_eq!(
            hints(routing),
            [(3, "replace it with the real Requested capability; expected the form `auth: [oauth2, pkce]`".to_string())]
        );
        let escalation = "## Interaction Record\n| Task ID | A |\n| Type | escalation |\n| From | a |\n| To | b |\n### Request\nFailure Type: [wrong-capability | task-too-large]\n";
        assert_eq!(
            hints(escalation),
            [(7, "replace it with the real Failure Type; expected one of: wrong-capability, task-too-large, conflicting-requirements, environment-issue, insufficient-context, unknown".to_string())]
        );
    }

    #[test]
    fn type_specific_checks() {
        let escalation = "## Interaction Record\n| Task ID | A |\n| Type | escalation |\n| From | a |\n| To | b |\n### Request\nFailure Type: bad-luck\n";
        assert_eq!(
            codes(escalation),
            [("invalid-failure-type".to_string(), 7, 1)]
        );
        let review = "## Interaction Record\n| Task ID | A |\n| Type | review |\n| From | a |\n| To | b |\n### Decision\nLooks fine\n";
        assert_eq!(
            codes(review),
            [
                ("missing-evidence-bundle".to_string(), 1, 1),
                ("unrecognized-decision".to_string(), 7, 1)
            ]
        );
        let capability = "## Interaction Record\n| Task ID | A |\n| Type | capability-request |\n| From | a |\n| To | b |\n### Request\nCapability needed: ???\nUrgency: soon\n";
        assert_eq!(
            codes(capability),
            [
                ("missing-capability".to_string(), 7, 1),
                ("invalid-urgency".to_string(), 8, 1)
            ]
        );
    }
}
