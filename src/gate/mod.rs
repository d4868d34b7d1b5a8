//! The gate: one verdict over a change's risk, evidence, file scope and sign-off.
//!
//! `handoff check` gathers three things — the records (from the records directory at
//! head plus any `--records`), the change set (base..head) and the risk classification
//! of that change — and this module turns them into a [`Verdict`]. The verdict is a pure
//! function of its inputs: no clock, no network, no environment, so CI and an agent on
//! its laptop reach the same answer.
//!
//! - [`task`] chooses the task and orders its records;
//! - [`requirements`] judges the Evidence Bundle against the class's required items, with
//!   [`bundle`] for the substance of each item;
//! - [`reviewer`] decides who must sign off and whether they did;
//! - [`crate::scope`] checks every touched path against the declared scope and the
//!   approved scope expansions;
//! - `scope_check` reads the task's scope expansions and their decisions, and runs that
//!   check on the paths the change touched, within the caps on what is read;
//! - [`run`] gathers the inputs from a repository, in the order that keeps a change
//!   from weakening its own gate;
//! - `rollout` decides a change with no Task Assignment at all (the adoption change,
//!   the policy's `require_task`).
//!
//! The verdict is `pass` exactly when no problem of error severity was found. Its JSON
//! form is the contract of GATE.md.

pub mod bundle;
pub mod requirements;
pub mod reviewer;
mod rollout;
pub mod run;
mod scope_check;
pub mod task;
mod verdict;

pub use verdict::{
    EvidenceReport, ItemProblem, Kind, Outcome, ReviewerSummary, RiskReport, ScopeSummary, Verdict,
};

use crate::diagnostic::{Diagnostic, GateCode, RecordCode};
use crate::evidence::EvidenceItemId;
use crate::identity::AgentName;
use crate::io::STDIN_NAME;
use crate::policy::RiskClass;
use crate::record::{DecisionStatus, FieldKey, InteractionType, Record};
use crate::scope::{ExpansionRequest, Touch};
use reviewer::{ReviewDecision, ReviewerReport, Roles, SignOffInput, SignOffProblem};
use scope_check::{check_scope, expansion_requests, scope_problems, unbounded_scope_problems};
use task::TaskRecords;

/// One file of the change, as the gate sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedPath {
    /// The path after the change (the deleted path for a deletion).
    pub path: String,
    /// The path before a rename or copy.
    pub old_path: Option<String>,
    /// How the change touched it.
    pub touch: Touch,
}

/// Everything a verdict is made from.
pub struct GateInput<'a> {
    /// The task's records.
    pub task: &'a TaskRecords<'a>,
    /// The changed files (records-directory files already left out).
    pub files: &'a [ChangedPath],
    /// The risk classification.
    pub risk: RiskReport,
    /// Migration files of the change (the `migration` trigger's paths).
    pub migrations: &'a [String],
    /// Reviewer roles and availability.
    pub roles: &'a Roles,
    /// The policy's evidence labels ([`crate::evidence::labels`]).
    pub labels: &'a [(EvidenceItemId, String)],
    /// The records directory, where fix commands file new records.
    pub records_dir: &'a str,
    /// Structural diagnostics of the record documents (malformed header tables…).
    pub diagnostics: &'a [Diagnostic],
}

/// Judges a change.
pub fn evaluate(input: GateInput) -> Verdict {
    let task = input.task;
    let class = input.risk.class;
    let mut problems = task_problems(task);
    problems.extend(task.problems.iter().cloned());
    problems.extend(record_problems(task, input.diagnostics));
    problems.extend(name_problems(task));
    // Each scope expansion's Request is read once: a long one is the costliest text here.
    let requests = expansion_requests(task);
    problems.extend(decision_problems(task, &requests));
    problems.extend(invalid_class_problems(task));
    if input.risk.reclassified && !reclassification_documented(task) {
        let mut problem = reclassification_problem(&input.risk);
        if let Some((source, line)) = declared_class_at(task) {
            problem = problem.at_line(source, line);
        }
        problems.push(problem);
    }
    let waiver = waiver(task, input.roles, &mut problems);
    let reviewer = judge_reviewer(task, class, input.roles, waiver.is_some());
    problems.extend(reviewer_problems(&reviewer, task, class, waiver));
    let evidence = requirements::judge(&requirements::BundleInput {
        task,
        class,
        files: input.files,
        migrations: input.migrations,
        labels: input.labels,
        sign_off_ok: reviewer.ok,
    });
    problems.extend(evidence.problems);
    let unbounded = unbounded_scope_problems(task, &requests);
    let scope = check_scope(
        task,
        requests,
        input.files,
        input.roles,
        input.records_dir,
        &mut problems,
    );
    problems.extend(scope_problems(&scope));
    problems.extend(unbounded);
    problems.sort_by_key(|problem| Kind::of(problem.code));
    Verdict {
        verdict: if problems.iter().any(Diagnostic::is_error) {
            Outcome::Reject
        } else {
            Outcome::Pass
        },
        task_id: task.task_id.clone(),
        risk: input.risk,
        evidence: evidence.report,
        scope: ScopeSummary {
            declared: scope.declared,
            undeclared: scope.undeclared.into_iter().map(|u| u.path).collect(),
            expanded: scope.expanded.into_iter().map(|e| e.path).collect(),
        },
        reviewer: ReviewerSummary {
            required: reviewer.requirement.name().map(str::to_string),
            signed_off_by: reviewer.signed_off_by,
            ok: reviewer.ok,
            waived: reviewer.waived,
        },
        problems,
    }
}

fn task_problems(task: &TaskRecords) -> Vec<Diagnostic> {
    if let Some(assignment) = task.assignment {
        if !task.assigned_by_change {
            return Vec::new();
        }
        return vec![Diagnostic::new(
            GateCode::TaskAssignedByChange,
            format!(
                "task {} is assigned by this change: the base does not assign it; a \
                 reviewer of the records directory should confirm the orchestrator assigned it",
                task.task_id
            ),
        )
        .at_line(&assignment.source, assignment.line)];
    }
    vec![Diagnostic::new(
        GateCode::MissingTaskAssignment,
        format!(
            "task {} has no Task Assignment, so no file scope is declared and every changed \
             file is undeclared; add the orchestrator's `## Task Assignment` for it",
            task.task_id
        ),
    )]
}

/// The structural diagnostics of the files that hold the task's records (or came from
/// standard input): a malformed record there may be the evidence the gate cannot see.
fn record_problems(task: &TaskRecords, diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
    let sources: Vec<&str> = task
        .assignment
        .into_iter()
        .chain(task.interactions.iter().copied())
        .map(|record| record.source.as_str())
        .collect();
    diagnostics
        .iter()
        .filter(|d| {
            let source = d.source.as_deref().unwrap_or_default();
            source == STDIN_NAME || sources.contains(&source)
        })
        .map(|d| {
            let message = match &d.hint {
                Some(hint) => format!("{} ({hint})", d.message),
                None => d.message.clone(),
            };
            let mut problem = Diagnostic::new(d.code, message);
            problem.source = d.source.clone();
            problem.line = d.line;
            problem
        })
        .collect()
}

/// A `Risk Class` that is not a class (`hgih`) declares nothing: the gate would judge
/// the change by its computed class alone and drop what the author declared.
fn invalid_class_problems(task: &TaskRecords) -> Vec<Diagnostic> {
    task.assignment
        .into_iter()
        .chain(task.interactions.iter().copied())
        .filter_map(|record| {
            let field = record.field(FieldKey::RiskClass)?;
            let value = field.value.trim();
            if value.is_empty()
                || value.parse::<RiskClass>().is_ok()
                || crate::record::placeholder::is_placeholder_value(FieldKey::RiskClass, value)
            {
                return None;
            }
            let problem = Diagnostic::new(
                RecordCode::InvalidValue,
                format!(
                    "`{value}` is not a valid Risk Class, so the gate cannot tell what was \
                     declared; write low, medium or high"
                ),
            );
            Some(problem.at_line(&record.source, field.line))
        })
        .collect()
}

/// Every agent name the gate reads that is not a name once normalised: the assignee,
/// and the sender, receiver and decider of each record that may grant.
fn name_problems(task: &TaskRecords) -> Vec<Diagnostic> {
    let mut names: Vec<(&str, &Record, usize, &str)> = Vec::new();
    if let Some(assignment) = task.assignment {
        if let Some(field) = assignment.field(FieldKey::AssignedTo) {
            names.push((field.value.as_str(), assignment, field.line, "Assigned to"));
        }
    }
    for record in task.interactions.iter().copied() {
        for key in [FieldKey::From, FieldKey::To] {
            if let Some(field) = record.field(key) {
                names.push((field.value.as_str(), record, field.line, key.label()));
            }
        }
    }
    let deciders: Vec<(String, &Record)> = task
        .granting
        .iter()
        .filter_map(|record| record.decision().by.map(|by| (by, *record)))
        .collect();
    let mut problems: Vec<Diagnostic> = names
        .into_iter()
        .filter(|(value, ..)| task::filled(Some(value)).is_some())
        .filter_map(|(value, record, line, what)| {
            let error = AgentName::parse(value).err()?;
            Some(
                Diagnostic::new(GateCode::InvalidAgentName, format!("{what}: {error}"))
                    .at_line(&record.source, line),
            )
        })
        .collect();
    for (by, record) in deciders {
        if let Err(error) = AgentName::parse(&by) {
            let line = record.decision().line;
            problems.push(
                Diagnostic::new(GateCode::InvalidAgentName, format!("decider: {error}"))
                    .at_line(&record.source, line),
            );
        }
    }
    problems
}

/// The Decisions that grant (a review's, a scope expansion's) and cannot be read as a
/// plain decision: they fail closed, with how to write them.
fn decision_problems(task: &TaskRecords, requests: &[ExpansionRequest]) -> Vec<Diagnostic> {
    task.granting
        .iter()
        .filter(|record| {
            record.interaction_type() == Some(InteractionType::Review)
                || requests
                    .iter()
                    .any(|request| request.source == record.source && request.line == record.line)
        })
        .filter_map(|record| {
            let decision = record.decision();
            let why = match (&decision.ambiguity, decision.unrecognized) {
                (Some(why), _) => why.clone(),
                (None, true) => "its first statement is not a status".to_string(),
                (None, false) => return None,
            };
            Some(
                Diagnostic::new(
                    GateCode::UnreadableDecision,
                    format!(
                        "this Decision cannot be read as a plain decision ({why}), so it \
                         approves nothing; start it with the status alone (`Approved.`, \
                         `Rejected: …`) and put `Reviewer: NAME` on a line of its own"
                    ),
                )
                .at_line(&record.source, decision.line),
            )
        })
        .collect()
}

/// Whether a Decision of the task's records mentions the reclassification, as the seed
/// asks ("Document the reclassification in the Interaction Record's Decision section").
fn reclassification_documented(task: &TaskRecords) -> bool {
    task.interactions.iter().any(|record| {
        record
            .decision()
            .text
            .is_some_and(|text| text.to_lowercase().contains("reclassif"))
    })
}

/// Where the declared class is written: the `Risk Class` row of the Task Assignment.
fn declared_class_at<'a>(task: &TaskRecords<'a>) -> Option<(&'a str, usize)> {
    let assignment = task.assignment?;
    let field = assignment.field(FieldKey::RiskClass)?;
    Some((assignment.source.as_str(), field.line))
}

fn reclassification_problem(risk: &RiskReport) -> Diagnostic {
    let declared = risk.declared.map_or("none".to_string(), |c| c.to_string());
    let mut triggers: Vec<String> = Vec::new();
    let raising = risk
        .findings
        .iter()
        .filter(|f| f.class > risk.declared.unwrap_or(RiskClass::Low));
    for finding in raising {
        let trigger = match &finding.path {
            Some(path) => format!("{} ({})", finding.trigger, path.to_string_lossy()),
            None => finding.trigger.clone(),
        };
        if !triggers.contains(&trigger) {
            triggers.push(trigger);
        }
    }
    Diagnostic::new(
        GateCode::RiskReclassified,
        format!(
            "risk reclassified from {declared} to {}: {}; the {} evidence applies; document \
             the reclassification in the Decision section",
            risk.class,
            triggers.join(", "),
            risk.class
        ),
    )
}

/// The task's reviews that may grant, oldest first, as the reviewer rules see them. A
/// Decision that cannot be read plainly approves nothing.
fn reviews(task: &TaskRecords) -> Vec<ReviewDecision> {
    task.granting_of_type(InteractionType::Review)
        .into_iter()
        .map(|record| {
            let decision = record.decision();
            let approved =
                decision.status == DecisionStatus::Approved && decision.ambiguity.is_none();
            let status = match decision.status {
                DecisionStatus::Approved if !approved => "unreadable",
                status => status.as_str(),
            };
            ReviewDecision {
                decided_by: decider(record, decision.by.as_deref()),
                approved,
                status: status.to_string(),
                source: record.source.clone(),
                line: decision.line,
                timestamp: record.timestamp().and_then(task::timestamp_key),
            }
        })
        .collect()
}

/// Who decided: the Decision's `Reviewer:` line, else the record's `To` (the seed says
/// the receiver fills the Decision).
fn decider(record: &Record, by: Option<&str>) -> String {
    task::filled(by)
        .or(task::filled(record.to()))
        .unwrap_or_default()
        .to_string()
}

/// The user's waiver: the user's latest record (by `Timestamp`) among those that may
/// grant, when it tells the team to ship without review. A later record of the user
/// that does not repeat the waiver revokes it; when the user's records disagree and
/// cannot be put in order, there is no waiver and the records are named.
fn waiver<'a>(
    task: &TaskRecords<'a>,
    roles: &Roles,
    problems: &mut Vec<Diagnostic>,
) -> Option<&'a Record> {
    let from_user: Vec<&Record> = task
        .granting
        .iter()
        .copied()
        .filter(|record| record.from().is_some_and(|from| roles.is_user(from)))
        .collect();
    let waiving: Vec<bool> = from_user
        .iter()
        .map(|r| r.waiver_line().is_some())
        .collect();
    if !waiving.contains(&true) {
        return None;
    }
    if !waiving.contains(&false) {
        return from_user.last().copied();
    }
    let keys: Vec<Option<i128>> = from_user
        .iter()
        .map(|r| r.timestamp().and_then(task::timestamp_key))
        .collect();
    let newest = keys.iter().flatten().max().copied();
    let at_newest: Vec<usize> = (0..keys.len()).filter(|&i| keys[i] == newest).collect();
    let undated: Vec<usize> = (0..keys.len()).filter(|&i| keys[i].is_none()).collect();
    let tied = at_newest
        .iter()
        .any(|&i| waiving[i] != waiving[at_newest[0]]);
    if !undated.is_empty() || tied {
        let unordered = if undated.is_empty() {
            at_newest
        } else {
            undated
        };
        let places: Vec<String> = unordered
            .iter()
            .map(|&i| format!("{}:{}", from_user[i].source, from_user[i].line))
            .collect();
        problems.push(Diagnostic::new(
            GateCode::UnorderedRecords,
            format!(
                "the user's records disagree about waiving review and their order cannot be \
                 established; give each a distinct Timestamp: {}",
                places.join(", ")
            ),
        ));
        return None;
    }
    at_newest
        .first()
        .filter(|&&i| waiving[i])
        .map(|&i| from_user[i])
}

fn judge_reviewer(
    task: &TaskRecords,
    class: RiskClass,
    roles: &Roles,
    waived: bool,
) -> ReviewerReport {
    let reviews = reviews(task);
    let authors = task.authors();
    reviewer::judge(&SignOffInput {
        class,
        authors: &authors,
        roles,
        reviews: &reviews,
        waived,
    })
}

fn reviewer_problems(
    report: &ReviewerReport,
    task: &TaskRecords,
    class: RiskClass,
    waiver: Option<&Record>,
) -> Vec<Diagnostic> {
    let authors = task.authors();
    let author = match authors.is_empty() {
        true => "the author".to_string(),
        false => authors.join(", "),
    };
    let author = author.as_str();
    let evidence = task.evidence_record();
    let mut problems: Vec<Diagnostic> = report
        .problems
        .iter()
        .map(|problem| {
            let problem = sign_off_problem(problem, author, class);
            match evidence {
                // A sign-off that is missing altogether belongs with the work submitted.
                Some(record) if problem.source.is_none() => {
                    let line = record.decision().line;
                    problem.at_line(&record.source, line)
                }
                _ => problem,
            }
        })
        .collect();
    if report.waived {
        let mut problem = Diagnostic::new(
            GateCode::ReviewWaived,
            format!("{class}-risk review waived by an explicit user instruction (\"ship it without review\")"),
        );
        if let Some(record) = waiver {
            problem = problem.at_line(&record.source, record.line);
        }
        problems.push(problem);
    }
    problems
}

fn sign_off_problem(problem: &SignOffProblem, author: &str, class: RiskClass) -> Diagnostic {
    match problem {
        SignOffProblem::Missing { required } => Diagnostic::new(
            GateCode::MissingSignOff,
            format!(
                "{class}-risk work needs sign-off by {required}: a `review` record for the task \
                 whose Decision is `approved` (Reviewer: {required})"
            ),
        ),
        SignOffProblem::SelfSignOff { review } => Diagnostic::new(
            GateCode::SelfSignOff,
            format!(
                "approved by {}, who authored the work; nobody signs off their own work",
                review.decided_by
            ),
        )
        .at_line(&review.source, review.line),
        SignOffProblem::WrongReviewer { review, required } => Diagnostic::new(
            GateCode::WrongReviewer,
            format!(
                "approved by {}, but {class}-risk work by {author} needs sign-off by {required}",
                review.decided_by
            ),
        )
        .at_line(&review.source, review.line),
        SignOffProblem::Refused { review } => Diagnostic::new(
            GateCode::ReviewRefused,
            format!("{} decided `{}`", review.decided_by, review.status),
        )
        .at_line(&review.source, review.line),
        SignOffProblem::Unordered { reviews } => {
            let places: Vec<String> = reviews
                .iter()
                .map(|r| format!("{}:{} ({})", r.source, r.line, r.status))
                .collect();
            Diagnostic::new(
                GateCode::UnorderedRecords,
                format!(
                    "{}'s decisions disagree and their order cannot be established from \
                     timestamps (file names never order grants); give each a distinct, valid \
                     Timestamp: {}",
                    reviews
                        .first()
                        .map_or("the reviewer", |r| r.decided_by.as_str()),
                    places.join(", ")
                ),
            )
        }
        SignOffProblem::NoneAvailable => Diagnostic::new(
            GateCode::NoReviewerAvailable,
            format!(
                "no {class}-risk reviewer is available who did not author the work ({author}); \
                 the task blocks until one is, or the user waives review"
            ),
        ),
    }
}

/// The most scope-expansion paths the gate reads for one task (all its requests
/// together); more is `limit-exceeded`, an error, and no expansion counts.
pub const MAX_EXPANSION_PATHS: usize = 300_000;

/// The most patterns of a declared file scope, or entries of a `Files changed` item;
/// more is `limit-exceeded`, an error.
pub const MAX_SCOPE_PATTERNS: usize = 200_000;

/// The most acceptance criteria of a task; more is `limit-exceeded`, an error.
pub const MAX_CRITERIA: usize = 20_000;
