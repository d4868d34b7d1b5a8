//! The audit of a set of records: what a team lead reads first, and every routing finding.
//!
//! [`audit_documents`] walks every record of every parsed document once. Each Routing
//! Decision is re-derived against the registry (see [`super::audit`]) and classified as
//! compliant, non-compliant (an error finding) or unverified (no registry, or the record
//! lacks the requested capability or the selected agent). Alongside, it counts what
//! happened: records by kind and type, tasks by their highest declared risk class,
//! escalations by failure type with the seed's orchestrator action and whether they
//! were decided, scope expansions by decision, reviews by decision, and the records that
//! fail lint with their errors.
//!
//! The requester a department-affinity check needs comes from the decision's own
//! `Requester` row, else from the `From` of the task's capability request or escalation.
//! Everything is kept in sorted maps or in document order, so the same records give the
//! same report.

use super::audit::{check_decision, RecordedDecision, RecordedMatch, RecordedRule, Reference};
use super::normalise::normalise_term;
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::policy::RiskClass;
use crate::record::placeholder::is_placeholder_value;
use crate::record::Capability;
use crate::record::FieldKey;
use crate::record::{lint, DecisionStatus, InteractionType, ParsedDocument, Record, RecordKind};
use serde::Serialize;
use std::collections::BTreeMap;

/// Everything an audit found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AuditReport {
    /// How many records were read.
    pub records: usize,
    /// Records by kind (`interaction-record`, `task-assignment`, `routing-decision`).
    pub by_kind: BTreeMap<&'static str, usize>,
    /// Interaction Records by type (`unknown` when missing or not a seed type).
    pub by_type: BTreeMap<&'static str, usize>,
    /// Tasks (distinct task IDs) by the highest risk class any of their records declares.
    pub tasks_by_risk: RiskCounts,
    /// Escalations by failure type.
    pub escalations: Vec<EscalationCount>,
    /// Scope-expansion requests by decision.
    pub scope_expansions: DecisionCounts,
    /// Reviews by decision status.
    pub reviews: BTreeMap<&'static str, usize>,
    /// Routing decisions by compliance.
    pub routing: RoutingCounts,
    /// Every routing finding, in document order.
    pub findings: Vec<RoutingFinding>,
    /// Every record (or stretch of a document) that fails lint, in document order.
    pub lint_failures: Vec<LintFailure>,
    /// With `--baseline` only: what it covers (not counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baselined: Option<Baselined>,
}

/// The findings and lint errors a baseline covers: reported, not counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Baselined {
    /// Where the baseline was read from.
    pub baseline: String,
    /// The routing findings it covers.
    pub findings: Vec<RoutingFinding>,
    /// The lint errors it covers.
    pub lint_errors: Vec<Diagnostic>,
}

impl AuditReport {
    /// How many errors were found: error findings plus lint errors.
    pub fn error_count(&self) -> usize {
        let findings = self
            .findings
            .iter()
            .filter(|f| f.finding.severity == Severity::Error)
            .count();
        findings
            + self
                .lint_failures
                .iter()
                .map(|f| f.errors.len())
                .sum::<usize>()
    }

    /// How many warnings the routing findings hold.
    pub fn warning_count(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.finding.severity == Severity::Warning)
            .count()
    }
}

/// The escalations of one failure type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EscalationCount {
    /// The failure type, or `unclassified`.
    pub failure_type: &'static str,
    /// The seed's orchestrator action for it.
    pub orchestrator_action: &'static str,
    /// How many escalations.
    pub total: usize,
    /// How many have a decision (anything but pending or absent).
    pub decided: usize,
}

/// Tasks counted by risk class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RiskCounts {
    /// Low risk.
    pub low: usize,
    /// Medium risk.
    pub medium: usize,
    /// High risk.
    pub high: usize,
    /// No record of the task declares a valid risk class.
    pub unclassified: usize,
}

impl RiskCounts {
    fn add(&mut self, risk: Option<RiskClass>) {
        match risk {
            Some(RiskClass::Low) => self.low += 1,
            Some(RiskClass::Medium) => self.medium += 1,
            Some(RiskClass::High) => self.high += 1,
            None => self.unclassified += 1,
        }
    }
}

/// Requests counted by their decision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DecisionCounts {
    /// Approved.
    pub approved: usize,
    /// Rejected.
    pub rejected: usize,
    /// Anything else: pending, absent, deferred, changes requested.
    pub undecided: usize,
}

/// Routing decisions counted by compliance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RoutingCounts {
    /// Re-derived, and no error found.
    pub compliant: usize,
    /// At least one error finding.
    pub non_compliant: usize,
    /// Not re-derived (no registry, or an incomplete record) and no error found.
    pub unverified: usize,
}

/// One finding about one recorded routing decision. Its JSON form is `{source, line,
/// task_id, kind, severity, message}`, `kind` being the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutingFinding {
    /// The task, when the record names it.
    pub task_id: Option<String>,
    /// What was found, at the record's heading.
    pub finding: Diagnostic,
}

impl Serialize for RoutingFinding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Contract<'a> {
            source: &'a Option<String>,
            line: Option<usize>,
            task_id: &'a Option<String>,
            kind: Code,
            severity: Severity,
            message: &'a str,
        }
        Contract {
            source: &self.finding.source,
            line: self.finding.line,
            task_id: &self.task_id,
            kind: self.finding.code,
            severity: self.finding.severity,
            message: &self.finding.message,
        }
        .serialize(serializer)
    }
}

/// A record (or, for `kind: null`, text outside any record) with lint errors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintFailure {
    /// The file.
    pub source: String,
    /// The line of the record's heading (or of the first error outside any record).
    pub line: usize,
    /// The record's kind.
    pub kind: Option<&'static str>,
    /// The task, when the record names it.
    pub task_id: Option<String>,
    /// The lint errors (warnings are left out).
    pub errors: Vec<Diagnostic>,
}

/// Audits every record of `documents`; routing decisions are re-derived when a
/// registry is given.
pub fn audit_documents(
    documents: &[ParsedDocument],
    reference: Option<Reference<'_>>,
) -> AuditReport {
    let requesters = requesters_by_task(documents);
    let mut report = AuditReport::default();
    let mut task_risk: BTreeMap<&str, Option<RiskClass>> = BTreeMap::new();
    let mut escalations: BTreeMap<&'static str, EscalationCount> = BTreeMap::new();
    for record in documents.iter().flat_map(|document| &document.records) {
        report.records += 1;
        *report.by_kind.entry(record.kind.as_str()).or_default() += 1;
        if let Some(task) = record.task_id() {
            let risk = task_risk.entry(task).or_default();
            *risk = (*risk).max(record.risk_class());
        }
        match record.kind {
            RecordKind::InteractionRecord => {
                count_interaction(record, &mut report, &mut escalations)
            }
            RecordKind::RoutingDecision => {
                audit_routing(record, &requesters, reference, &mut report)
            }
            RecordKind::TaskAssignment => {}
        }
    }
    for risk in task_risk.into_values() {
        report.tasks_by_risk.add(risk);
    }
    report.escalations = escalations.into_values().collect();
    report.lint_failures = documents.iter().flat_map(lint_failures).collect();
    report
}

fn count_interaction(
    record: &Record,
    report: &mut AuditReport,
    escalations: &mut BTreeMap<&'static str, EscalationCount>,
) {
    let kind = record.interaction_type();
    *report
        .by_type
        .entry(kind.map_or("unknown", InteractionType::as_str))
        .or_default() += 1;
    let status = record.decision().status;
    if record.scope_expansion().is_some() {
        let counts = &mut report.scope_expansions;
        match status {
            DecisionStatus::Approved => counts.approved += 1,
            DecisionStatus::Rejected => counts.rejected += 1,
            _ => counts.undecided += 1,
        }
    }
    match kind {
        Some(InteractionType::Review) => *report.reviews.entry(status.as_str()).or_default() += 1,
        Some(InteractionType::Escalation) => count_escalation(record, status, escalations),
        _ => {}
    }
}

fn count_escalation(
    record: &Record,
    status: DecisionStatus,
    escalations: &mut BTreeMap<&'static str, EscalationCount>,
) {
    let failure = record.failure_type();
    let name = failure.map_or("unclassified", |f| f.as_str());
    let entry = escalations.entry(name).or_insert_with(|| EscalationCount {
        failure_type: name,
        orchestrator_action: failure
            .map_or("Orchestrator investigates (no Failure Type line)", |f| {
                f.orchestrator_action()
            }),
        total: 0,
        decided: 0,
    });
    entry.total += 1;
    if !matches!(status, DecisionStatus::Pending | DecisionStatus::Absent) {
        entry.decided += 1;
    }
}

fn audit_routing(
    record: &Record,
    requesters: &BTreeMap<String, String>,
    reference: Option<Reference<'_>>,
    report: &mut AuditReport,
) {
    let fallback = record
        .task_id()
        .and_then(|task| requesters.get(task))
        .map(String::as_str);
    let decision = recorded_decision(record, fallback);
    let findings = check_decision(&decision, reference);
    let verifiable =
        reference.is_some() && decision.capability.is_some() && decision.selected.is_some();
    let counts = &mut report.routing;
    if findings.iter().any(|f| f.severity == Severity::Error) {
        counts.non_compliant += 1;
    } else if verifiable {
        counts.compliant += 1;
    } else {
        counts.unverified += 1;
    }
    report
        .findings
        .extend(findings.into_iter().map(|finding| RoutingFinding {
            task_id: record.task_id().map(str::to_string),
            finding: finding.at_line(&record.source, record.line),
        }));
}

/// Task → requester: the `From` of the first capability request or escalation per task.
fn requesters_by_task(documents: &[ParsedDocument]) -> BTreeMap<String, String> {
    let mut requesters = BTreeMap::new();
    for record in documents.iter().flat_map(|document| &document.records) {
        let asks = matches!(
            record.interaction_type(),
            Some(InteractionType::CapabilityRequest | InteractionType::Escalation)
        );
        if let (true, Some(task), Some(from)) = (asks, record.task_id(), record.from()) {
            requesters
                .entry(task.to_string())
                .or_insert_with(|| from.to_string());
        }
    }
    requesters
}

/// What a Routing Decision record states, as [`check_decision`] reads it.
pub fn recorded_decision(record: &Record, requester_fallback: Option<&str>) -> RecordedDecision {
    let requester = record
        .extra()
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case("requester"))
        .map(|(_, value)| value.as_str())
        .or(requester_fallback);
    RecordedDecision {
        capability: record.requested_capability().map(|c| {
            Capability::new(
                normalise_term(&c.domain),
                c.qualifiers.iter().map(|q| normalise_term(q)),
            )
        }),
        requester: requester.map(str::to_string),
        matched: record
            .matched_agents()
            .unwrap_or_default()
            .into_iter()
            .map(|m| RecordedMatch {
                agent: m.agent,
                qualifiers: m.qualifiers,
            })
            .collect(),
        selected: record
            .value(FieldKey::Selected)
            .filter(|s| !s.trim().is_empty() && !is_placeholder_value(FieldKey::Selected, s))
            .map(str::to_string),
        reason: record.value(FieldKey::Reason).map(str::to_string),
        rejected: record
            .rejected()
            .into_iter()
            .filter(|r| !(r.agent.eq_ignore_ascii_case("none") && r.reason.is_none()))
            .map(|r| (r.agent, r.reason.unwrap_or_default()))
            .collect(),
        tie_break_text: record.value(FieldKey::TieBreakRule).map(str::to_string),
        tie_break: match record.tie_break() {
            Some(Some(rule)) => RecordedRule::Applied(rule),
            Some(None) => RecordedRule::NoneNeeded,
            None => RecordedRule::Unreadable,
        },
    }
}

/// The lint errors of one document, grouped by the record they fall in.
fn lint_failures(document: &ParsedDocument) -> Vec<LintFailure> {
    let mut failures: Vec<LintFailure> = Vec::new();
    // One lookup per diagnostic, not a scan: a file of thousands of records stays linear.
    let mut index: std::collections::HashMap<(String, usize), usize> = Default::default();
    for diagnostic in lint(document).into_iter().filter(Diagnostic::is_error) {
        // Records are in document order: the owner is the last one starting at or before
        // the diagnostic.
        let (source, at) = (
            diagnostic.source.clone().unwrap_or_default(),
            diagnostic.line,
        );
        let before = document.records.partition_point(|r| Some(r.line) <= at);
        let owner = document.records[..before]
            .last()
            .filter(|r| r.source == source);
        let line = owner.map_or(at.unwrap_or_default(), |r| r.line);
        let key = (source.clone(), line);
        match index.get(&key) {
            Some(&at) => failures[at].errors.push(diagnostic),
            None => {
                index.insert(key, failures.len());
                failures.push(LintFailure {
                    source,
                    line,
                    kind: owner.map(|r| r.kind.as_str()),
                    task_id: owner.and_then(|r| r.task_id()).map(str::to_string),
                    errors: vec![diagnostic],
                });
            }
        }
    }
    failures.sort_by(|a, b| (&a.source, a.line).cmp(&(&b.source, b.line)));
    failures
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_document;

    const RECORDS: &str = "## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | T-1 |\n| Type | capability-request |\n| From | frontend-engineer |\n| To | enterprise-orchestrator |\n\n### Request\n\nCapability needed: backend: [node]\n\n## Routing Decision\n\n| Field | Value |\n|---|---|\n| Task ID | T-1 |\n| Requested capability | Backend: [Node] |\n| Matched agents | a (backend: [nodejs]) |\n| Selected | [agent name] |\n| Rejected | none |\n| Tie-break rule applied | coin flip |\n\n## Routing Decision\n\n| Field | Value |\n|---|---|\n| Task ID | T-2 |\n| Requested capability | auth |\n| Selected | a |\n| Requester | qa-engineer |\n| Tie-break rule applied | none |\n";

    #[test]
    fn lint_failures_are_grouped_under_the_record_that_holds_them() {
        let text: String = (0..300)
            .map(|i| format!("## Interaction Record\n| Task ID | A{i} |\n\n"))
            .collect();
        let failures = lint_failures(&parse_document("many.md", &text));
        assert_eq!(failures.len(), 300);
        for (i, failure) in failures.iter().enumerate() {
            assert_eq!(failure.line, 1 + 3 * i);
            assert_eq!(failure.task_id.as_deref(), Some(format!("A{i}").as_str()));
            assert!(!failure.errors.is_empty());
        }
    }

    #[test]
    fn records_read_as_decisions_with_their_requester() {
        let document = parse_document("r.md", RECORDS);
        let requesters = requesters_by_task(std::slice::from_ref(&document));
        assert_eq!(
            requesters.get("T-1").map(String::as_str),
            Some("frontend-engineer")
        );
        let first = recorded_decision(
            &document.records[1],
            requesters.get("T-1").map(String::as_str),
        );
        assert_eq!(
            first.capability,
            Some(Capability::new("backend", ["node".to_string()]))
        );
        assert_eq!(first.requester.as_deref(), Some("frontend-engineer"));
        assert_eq!(first.selected, None, "a placeholder selects nobody");
        assert!(first.rejected.is_empty(), "`none` rejects nobody");
        assert_eq!(first.tie_break, RecordedRule::Unreadable);
        let second = recorded_decision(&document.records[2], Some("frontend-engineer"));
        assert_eq!(
            second.requester.as_deref(),
            Some("qa-engineer"),
            "the record's own row wins"
        );
        assert_eq!(second.tie_break, RecordedRule::NoneNeeded);
    }

    #[test]
    fn lint_errors_are_grouped_by_the_record_they_fall_in() {
        let document = parse_document("r.md", RECORDS);
        let failures = lint_failures(&document);
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(
            (failures[0].line, failures[0].kind),
            (document.records[1].line, Some("routing-decision"))
        );
        assert_eq!(failures[0].task_id.as_deref(), Some("T-1"));
    }
}
