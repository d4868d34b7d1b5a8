//! The verdict: what `handoff check` decided and why, in the shape of GATE.md's JSON
//! contract. Every problem is a [`Diagnostic`]: a stable [`Code`] (documented by `handoff
//! explain`), the file and line it is about, and, when one command fixes it, that command.

use crate::diagnostic::{Code, Diagnostic, GateCode};
use crate::evidence::EvidenceItemId;
use crate::policy::RiskClass;
use crate::risk::Finding;
use serde::Serialize;
use std::borrow::Cow;

/// `pass` or `reject`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every check holds.
    Pass,
    /// At least one error.
    Reject,
}

/// The gate contract's shape of a problem: `{code, message, path, line}`, a fix appended
/// to the message (reports print it on its own line).
#[derive(Serialize)]
struct ContractProblem<'a> {
    code: Code,
    message: Cow<'a, str>,
    path: &'a Option<String>,
    line: Option<usize>,
}

impl<'a> From<&'a Diagnostic> for ContractProblem<'a> {
    fn from(problem: &'a Diagnostic) -> ContractProblem<'a> {
        let message = match &problem.fix {
            Some(fix) => Cow::Owned(format!("{}: {fix}", problem.message)),
            None => Cow::Borrowed(problem.message.as_str()),
        };
        ContractProblem {
            code: problem.code,
            message,
            path: &problem.source,
            line: problem.line,
        }
    }
}

fn serialize_problems<S: serde::Serializer>(
    problems: &[Diagnostic],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(problems.iter().map(ContractProblem::from))
}

/// The parts of a verdict, in the order reports show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The task and its records.
    Task,
    /// Risk classification.
    Risk,
    /// Evidence Bundle.
    Evidence,
    /// File scope.
    Scope,
    /// Reviewer sign-off.
    Reviewer,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 5] = [
        Kind::Task,
        Kind::Risk,
        Kind::Evidence,
        Kind::Scope,
        Kind::Reviewer,
    ];

    /// The part of the verdict a problem with `code` belongs to.
    pub fn of(code: Code) -> Kind {
        match code {
            Code::Gate(code) => Kind::of_gate(code),
            Code::Record(_) | Code::Routing(_) | Code::Contract(_) | Code::Trail(_) => Kind::Task,
        }
    }

    fn of_gate(code: GateCode) -> Kind {
        match code {
            GateCode::MissingTaskAssignment
            | GateCode::InvalidAgentName
            | GateCode::ReassignedTask
            | GateCode::ConflictingAssignments
            | GateCode::TaskAssignedByChange
            | GateCode::UntrustedGrant
            | GateCode::LimitExceeded
            | GateCode::TaskRequired
            | GateCode::NoTaskAssignment
            | GateCode::AdoptsGate => Kind::Task,
            GateCode::RiskReclassified => Kind::Risk,
            GateCode::UndeclaredFile | GateCode::InvalidScopePattern | GateCode::UnboundedScope => {
                Kind::Scope
            }
            GateCode::MissingSignOff
            | GateCode::SelfSignOff
            | GateCode::WrongReviewer
            | GateCode::NoReviewerAvailable
            | GateCode::ReviewRefused
            | GateCode::ReviewWaived
            | GateCode::UnreadableDecision
            | GateCode::UnorderedRecords => Kind::Reviewer,
            GateCode::NoEvidenceRecord
            | GateCode::EvidenceMissing
            | GateCode::EvidencePlaceholder
            | GateCode::FilesNotListed
            | GateCode::FileListedUnchanged
            | GateCode::DescriptionTooLong
            | GateCode::TestsNotMapped
            | GateCode::CriterionUnmapped
            | GateCode::BeforeAfterIncomplete
            | GateCode::MigrationNotesIncomplete
            | GateCode::RollbackNotExact => Kind::Evidence,
        }
    }

    /// The heading reports use.
    pub fn title(self) -> &'static str {
        match self {
            Kind::Task => "Task and records",
            Kind::Risk => "Risk",
            Kind::Evidence => "Evidence",
            Kind::Scope => "Scope",
            Kind::Reviewer => "Reviewer",
        }
    }
}

/// The risk part of the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RiskReport {
    /// The declared class (Task Assignment, else the evidence record), if any.
    pub declared: Option<RiskClass>,
    /// The highest class the triggers reach on their own.
    pub computed: RiskClass,
    /// The class the gate applies: the higher of the two.
    pub class: RiskClass,
    /// Whether `class` is higher than `declared`.
    pub reclassified: bool,
    /// Why: every trigger that fired.
    pub findings: Vec<Finding>,
    /// Findings the policy's `allow` entries cover, with their reasons (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<crate::risk::Suppressed>,
    /// Present when the similarity search for renames was skipped (too many candidate
    /// files): unpaired files count as added and deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename_search_skipped: Option<crate::git::RenameLimitExceeded>,
}

/// A problem with one evidence item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemProblem {
    /// The item.
    pub item: EvidenceItemId,
    /// What is wrong.
    pub message: String,
    /// The line of the item (or of the record when the item is absent).
    pub line: Option<usize>,
}

/// The evidence part of the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceReport {
    /// The class whose items are required.
    pub class: RiskClass,
    /// The items the class requires, all of them.
    pub required: Vec<EvidenceItemId>,
    /// Required items that are absent or placeholders.
    pub missing: Vec<EvidenceItemId>,
    /// Items that are present but fail their check.
    pub problems: Vec<ItemProblem>,
}

/// The scope part of the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScopeSummary {
    /// Touched paths inside the declared scope.
    pub declared: Vec<String>,
    /// Touched paths outside it with no approved expansion.
    pub undeclared: Vec<String>,
    /// Touched paths covered by an approved expansion.
    pub expanded: Vec<String>,
}

/// The reviewer part of the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewerSummary {
    /// Who must review (`null` for low risk or when nobody is available).
    pub required: Option<String>,
    /// The required reviewer, when they approved.
    pub signed_off_by: Option<String>,
    /// Whether sign-off holds (or is not required, or was waived).
    pub ok: bool,
    /// Whether the user waived review.
    pub waived: bool,
}

/// The gate's verdict: GATE.md's JSON contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// `pass` or `reject`.
    pub verdict: Outcome,
    /// The task checked.
    pub task_id: String,
    /// Risk.
    pub risk: RiskReport,
    /// Evidence.
    pub evidence: EvidenceReport,
    /// Scope.
    pub scope: ScopeSummary,
    /// Reviewer.
    pub reviewer: ReviewerSummary,
    /// Every problem, grouped by kind ([`Kind::of`] their code).
    #[serde(serialize_with = "serialize_problems")]
    pub problems: Vec<Diagnostic>,
}
