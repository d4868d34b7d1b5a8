//! The file-scope part of the verdict: the scope expansions a task requested and how
//! each was decided, the paths the change touched, the caps on what is read, and the
//! problems of each.

use super::reviewer::Roles;
use super::task::{self, TaskRecords};
use super::{decider, ChangedPath, MAX_EXPANSION_PATHS, MAX_SCOPE_PATTERNS};
use crate::diagnostic::{Diagnostic, GateCode};
use crate::record::{DecisionStatus, Record};
use crate::scope::{
    ExpansionDecision, ExpansionRequest, FixContext, ScopeCheck, ScopeReport, Touch, TouchedPath,
};

/// The scope-expansion requests of the task that may grant.
pub(super) fn expansion_requests(task: &TaskRecords) -> Vec<ExpansionRequest> {
    // Paths are read up to one past the cap, all requests together: a refusal costs no
    // more than the cap.
    let mut read = 0usize;
    task.granting
        .iter()
        .filter_map(|record| {
            let expansion =
                record.scope_expansion_within(MAX_EXPANSION_PATHS.saturating_sub(read))?;
            read += expansion.paths.len();
            let decision = record.decision();
            let status = decision.status.as_str().to_string();
            let decision = match decision.status {
                DecisionStatus::Approved if decision.ambiguity.is_some() => {
                    ExpansionDecision::Undecided {
                        status: "unreadable".to_string(),
                    }
                }
                DecisionStatus::Approved => ExpansionDecision::Approved {
                    by: decider(record, decision.by.as_deref()),
                },
                DecisionStatus::Rejected | DecisionStatus::ChangesRequested => {
                    ExpansionDecision::Refused { status }
                }
                _ => ExpansionDecision::Undecided { status },
            };
            Some(ExpansionRequest {
                paths: expansion.paths,
                requested_by: task::filled(record.from()).unwrap_or_default().to_string(),
                decision,
                source: record.source.clone(),
                line: record.line,
            })
        })
        .collect()
}

/// Every path the change touched: both sides of a rename, deletions included.
fn touched_paths(files: &[ChangedPath]) -> Vec<TouchedPath> {
    let mut touched = Vec::new();
    for file in files {
        if let Touch::RenamedFrom(from) = &file.touch {
            touched.push(TouchedPath {
                path: from.clone(),
                touch: Touch::RenamedTo(file.path.clone()),
            });
        }
        touched.push(TouchedPath {
            path: file.path.clone(),
            touch: file.touch.clone(),
        });
    }
    touched
}

/// The `limit-exceeded` problem for `count` things of a kind beyond `cap`.
fn limit_problem(what: &str, cap: usize, record: Option<&Record>) -> Diagnostic {
    let problem = Diagnostic::new(
        GateCode::LimitExceeded,
        format!(
            "more {what} than the gate reads ({cap}); name directories or globs instead of \
             every file"
        ),
    );
    match record {
        Some(record) => problem.at_line(&record.source, record.line),
        None => problem,
    }
}

pub(super) fn check_scope(
    task: &TaskRecords,
    mut requests: Vec<ExpansionRequest>,
    files: &[ChangedPath],
    roles: &Roles,
    records_dir: &str,
    problems: &mut Vec<Diagnostic>,
) -> ScopeReport {
    let mut declared = task
        .assignment
        .and_then(|a| a.expected_file_scope())
        .unwrap_or_default();
    if declared.len() > MAX_SCOPE_PATTERNS {
        let what = "file-scope patterns";
        problems.push(limit_problem(what, MAX_SCOPE_PATTERNS, task.assignment));
        declared.clear();
    }
    let paths: usize = requests.iter().map(|request| request.paths.len()).sum();
    if paths > MAX_EXPANSION_PATHS {
        let what = "scope-expansion paths";
        problems.push(limit_problem(what, MAX_EXPANSION_PATHS, None));
        requests.clear();
    }
    let authors = task.authors();
    // Nobody grants anything for their own work: not the agent who asked, not an author.
    let may_approve = |name: &str| {
        roles.may_approve(name) && !authors.iter().any(|a| crate::identity::same_agent(a, name))
    };
    let fix = FixContext {
        task_id: task.task_id.clone(),
        author: task.author().unwrap_or("AUTHOR").to_string(),
        orchestrator: roles.orchestrator.clone(),
        records_dir: records_dir.to_string(),
    };
    ScopeCheck {
        declared: &declared,
        requests: &requests,
        may_approve: &may_approve,
        fix: &fix,
    }
    .run(&touched_paths(files))
}

/// A declared scope or a scope expansion that matches every path: an error, whoever
/// wrote it, because it bounds nothing (a task that may touch every file is not scoped).
pub(super) fn unbounded_scope_problems(
    task: &TaskRecords,
    requests: &[ExpansionRequest],
) -> Vec<Diagnostic> {
    let declared = task
        .assignment
        .map(|assignment| assignment.expected_file_scope().unwrap_or_default());
    let declared = task
        .assignment
        .zip(declared.as_ref())
        .map(|(assignment, patterns)| {
            let at = (assignment.source.as_str(), assignment.line);
            (at, "Expected file scope", patterns.as_slice())
        });
    let requests = requests.iter().map(|request| {
        let at = (request.source.as_str(), request.line);
        (at, "scope expansion", request.paths.as_slice())
    });
    declared
        .into_iter()
        .chain(requests)
        .flat_map(|((source, line), what, patterns)| {
            crate::scope::unbounded_patterns(patterns)
                .into_iter()
                .map(move |pattern| {
                    Diagnostic::new(
                        GateCode::UnboundedScope,
                        format!(
                            "the {what} pattern `{pattern}` matches every path, so it bounds \
                             nothing; name the files or directories the task may touch"
                        ),
                    )
                    .at_line(source, line)
                })
        })
        .collect()
}

pub(super) fn scope_problems(scope: &ScopeReport) -> Vec<Diagnostic> {
    let patterns = scope.pattern_errors.iter().map(|error| {
        Diagnostic::new(
            GateCode::InvalidScopePattern,
            format!(
                "scope pattern `{}` is not a valid glob: {}",
                error.pattern, error.message
            ),
        )
    });
    let undeclared = scope.undeclared.iter().map(|file| {
        let why: String = file
            .requests
            .iter()
            .map(|(source, line, standing)| {
                format!("; the expansion at {source}:{line} does not count: {standing}")
            })
            .collect();
        let message = format!(
            "{} ({}) is outside the declared file scope{why}; revert it, or file a scope \
             expansion and have the orchestrator approve it",
            file.path, file.touch
        );
        Diagnostic::new(GateCode::UndeclaredFile, message)
            .in_file(&file.path)
            .with_fix(&file.fix)
    });
    patterns.chain(undeclared).collect()
}
