//! The verdict: what `handoff check` decided and why, in the shape of GATE.md's JSON
//! contract. Every problem carries a stable [`Code`] (documented by `handoff explain`),
//! the file and line it is about, and, when one command fixes it, that command.

use crate::diagnostic::{Code, Severity};
use crate::evidence::EvidenceItemId;
use crate::risk::{Finding, RiskClass};
use serde::Serialize;

/// `pass` or `reject`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every check holds.
    Pass,
    /// At least one error.
    Reject,
}

/// One problem the gate found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The stable code (`handoff explain CODE`).
    pub code: Code,
    /// What is wrong and how to fix it.
    pub message: String,
    /// The record file, or the changed file, it is about.
    pub path: Option<String>,
    /// The 1-based line in `path`, when it is a record file.
    pub line: Option<usize>,
    /// A command that fixes it, when there is one (reports print it on its own line;
    /// JSON appends it to the message, keeping the contract's four keys).
    pub fix: Option<String>,
}

impl Serialize for Problem {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Contract<'a> {
            code: Code,
            message: String,
            path: &'a Option<String>,
            line: Option<usize>,
        }
        let message = match &self.fix {
            Some(fix) => format!("{}: {fix}", self.message),
            None => self.message.clone(),
        };
        Contract {
            code: self.code,
            message,
            path: &self.path,
            line: self.line,
        }
        .serialize(serializer)
    }
}

impl Problem {
    pub(super) fn new(code: Code, message: impl Into<String>) -> Problem {
        Problem {
            code,
            message: message.into(),
            path: None,
            line: None,
            fix: None,
        }
    }

    pub(super) fn at(mut self, path: &str, line: usize) -> Problem {
        self.path = Some(path.to_string());
        self.line = Some(line);
        self
    }

    /// Whether this problem rejects the change.
    pub fn is_error(&self) -> bool {
        self.code.info().severity == Severity::Error
    }

    /// The part of the verdict the problem belongs to.
    pub fn kind(&self) -> Kind {
        Kind::of(self.code)
    }
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

    /// The kind a code belongs to.
    pub fn of(code: Code) -> Kind {
        match code {
            Code::RiskReclassified => Kind::Risk,
            Code::UndeclaredFile | Code::InvalidScopePattern => Kind::Scope,
            Code::MissingSignOff
            | Code::SelfSignOff
            | Code::WrongReviewer
            | Code::NoReviewerAvailable
            | Code::ReviewRefused
            | Code::ReviewWaived => Kind::Reviewer,
            Code::NoEvidenceRecord
            | Code::EvidenceMissing
            | Code::EvidencePlaceholder
            | Code::FilesNotListed
            | Code::FileListedUnchanged
            | Code::DescriptionTooLong
            | Code::TestsNotMapped
            | Code::CriterionUnmapped
            | Code::BeforeAfterIncomplete
            | Code::MigrationNotesIncomplete
            | Code::RollbackNotExact => Kind::Evidence,
            _ => Kind::Task,
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
    /// Every problem, grouped by kind.
    pub problems: Vec<Problem>,
}
