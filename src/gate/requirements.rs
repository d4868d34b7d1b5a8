//! The Evidence Bundle a risk class requires, and the judgement of a task's bundle.
//!
//! The seed's requirements are conjunctive: every item of the class is required, never
//! "one of". The bundle is the `### Evidence Bundle` section of the task's latest
//! `review` record (else its latest `handoff`). A required item is *missing* when no
//! label names it or its content is a placeholder; every present item, required or
//! not, must also pass its check of substance ([`super::bundle`]): a bundle may say more
//! than its class asks, but what it says must hold. `reviewer-sign-off` is not a label: it holds
//! when the reviewer rules say so.

use super::bundle::{self, MappingProblem, MigrationProblem};
use super::task::TaskRecords;
use super::{ChangedPath, EvidenceReport, ItemProblem};
use crate::diagnostic::{Diagnostic, GateCode};
use crate::evidence::{match_label, EvidenceItem, EvidenceItemId};
use crate::policy::RiskClass;
use crate::record::placeholder::is_placeholder;
use crate::record::{fields, Record};

/// Answers that say nothing, whatever the item (folded: lower case, a trailing `.`
/// removed). `none` is not one: it is an answer for migration notes, whose own check
/// judges it.
const CONTENT_FREE: &[&str] = &[
    "n/a",
    "na",
    "n.a",
    "not applicable",
    "nil",
    "null",
    "same",
    "ditto",
    "as above",
    "see above",
    "see below",
    "see diff",
    "see the diff",
    "see pr",
    "see the pr",
];

/// Whether an item's text is empty or still a placeholder ([`is_placeholder`]).
fn placeholder(text: &str) -> bool {
    text.trim().is_empty() || is_placeholder(text)
}

/// Whether an item's text says nothing: no letter or digit (`-`, `**`, `?`), or one of
/// the [`CONTENT_FREE`] answers.
fn content_free(text: &str) -> bool {
    let trimmed = text.trim();
    let folded = trimmed.trim_end_matches('.').to_lowercase();
    !trimmed.chars().any(char::is_alphanumeric) || CONTENT_FREE.contains(&folded.as_str())
}

/// Whether an item is missing though labelled: empty, a placeholder, or content-free.
fn unfilled(text: &str) -> bool {
    placeholder(text) || content_free(text)
}

/// The items a class requires, ALL of them, in the seed's order.
pub fn required_items(class: RiskClass) -> &'static [EvidenceItemId] {
    use EvidenceItemId::*;
    match class {
        RiskClass::Low => &[FilesChanged, Description],
        RiskClass::Medium => &[FilesChanged, TestMapping, BeforeAfter, MigrationNotes],
        RiskClass::High => &[
            FilesChanged,
            TestMapping,
            SecurityAnalysis,
            RollbackPlan,
            ReviewerSignOff,
            BeforeAfter,
        ],
    }
}

/// What the bundle is judged against.
pub struct BundleInput<'a> {
    /// The task's records.
    pub task: &'a TaskRecords<'a>,
    /// The class whose items are required.
    pub class: RiskClass,
    /// The changed files.
    pub files: &'a [ChangedPath],
    /// The migration files of the change.
    pub migrations: &'a [String],
    /// The policy's evidence labels ([`crate::evidence::labels`]).
    pub labels: &'a [(EvidenceItemId, String)],
    /// Whether reviewer sign-off holds (or was waived).
    pub sign_off_ok: bool,
}

/// The evidence part of a verdict and the problems behind it.
pub struct BundleJudgement {
    /// The report.
    pub report: EvidenceReport,
    /// The problems, with codes, files and lines.
    pub problems: Vec<Diagnostic>,
}

/// A problem with one item, before it is placed in both lists.
struct Flaw {
    code: GateCode,
    item: EvidenceItemId,
    message: String,
    line: Option<usize>,
}

/// Judges the task's Evidence Bundle.
pub fn judge(input: &BundleInput) -> BundleJudgement {
    let required = required_items(input.class).to_vec();
    let Some(record) = input.task.evidence_record() else {
        return no_evidence_record(input, required);
    };
    let items = items_of(record, input.labels);
    let mut missing = Vec::new();
    let mut flaws = Vec::new();
    for id in &required {
        if *id == EvidenceItemId::ReviewerSignOff {
            if !input.sign_off_ok {
                missing.push(*id);
            }
            continue;
        }
        match find_item(&items, *id) {
            Some(item) if !unfilled(&item.text) => {
                flaws.extend(check_item(input, *id, item));
            }
            found => {
                missing.push(*id);
                flaws.push(absent(input.class, *id, found, record));
            }
        }
    }
    for id in EvidenceItemId::ALL
        .iter()
        .filter(|id| !required.contains(id))
    {
        if let Some(item) = find_item(&items, *id).filter(|i| !unfilled(&i.text)) {
            flaws.extend(check_item(input, *id, item));
        }
    }
    let problems = flaws
        .iter()
        .map(|flaw| {
            let mut problem = Diagnostic::new(flaw.code, &flaw.message).in_file(&record.source);
            problem.line = flaw.line;
            problem
        })
        .collect();
    BundleJudgement {
        report: EvidenceReport {
            class: input.class,
            required,
            missing,
            problems: flaws
                .into_iter()
                .map(|flaw| ItemProblem {
                    item: flaw.item,
                    message: flaw.message,
                    line: flaw.line,
                })
                .collect(),
        },
        problems,
    }
}

fn no_evidence_record(input: &BundleInput, required: Vec<EvidenceItemId>) -> BundleJudgement {
    let message = format!(
        "task {} has no `review` (or `handoff`) record, so there is no Evidence Bundle; \
         {}-risk work needs: {}",
        input.task.task_id,
        input.class,
        item_list(&required)
    );
    BundleJudgement {
        report: EvidenceReport {
            class: input.class,
            missing: required.clone(),
            required,
            problems: Vec::new(),
        },
        problems: vec![Diagnostic::new(GateCode::NoEvidenceRecord, message)],
    }
}

fn item_list(items: &[EvidenceItemId]) -> String {
    items
        .iter()
        .map(|id| id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The record's items, their labels matched with the policy's.
fn items_of(record: &Record, labels: &[(EvidenceItemId, String)]) -> Vec<EvidenceItem> {
    let mut items = record.evidence();
    for item in &mut items {
        item.item = match_label(&item.label, labels);
    }
    items
}

/// The item for `id`: the first one with content, else the first one at all.
fn find_item(items: &[EvidenceItem], id: EvidenceItemId) -> Option<&EvidenceItem> {
    let mut named = items.iter().filter(|item| item.item == Some(id));
    let first = named.clone().next();
    named.find(|item| !unfilled(&item.text)).or(first)
}

fn absent(
    class: RiskClass,
    id: EvidenceItemId,
    found: Option<&EvidenceItem>,
    record: &Record,
) -> Flaw {
    match found {
        Some(item) => {
            let what = if placeholder(&item.text) {
                "is empty or a placeholder".to_string()
            } else {
                let said: String = item.text.trim().chars().take(40).collect();
                format!("says nothing ({said:?})")
            };
            Flaw {
                code: GateCode::EvidencePlaceholder,
                item: id,
                message: format!(
                    "`{}` ({id}) {what}; write the real {}",
                    item.label,
                    id.seed_wording().to_lowercase()
                ),
                line: Some(item.line),
            }
        }
        None => Flaw {
            code: GateCode::EvidenceMissing,
            item: id,
            message: format!(
                "{class}-risk evidence needs {id} ({}): add `- **{}**: …` to the Evidence Bundle",
                id.seed_wording(),
                suggested_label(id)
            ),
            line: Some(
                record
                    .section("Evidence Bundle")
                    .map_or(record.line, |section| section.line),
            ),
        },
    }
}

/// The label `evidence-missing` suggests for an item.
fn suggested_label(id: EvidenceItemId) -> &'static str {
    match id {
        EvidenceItemId::FilesChanged => "Files changed",
        EvidenceItemId::Description => "Description",
        EvidenceItemId::TestMapping => "Test mapping",
        EvidenceItemId::BeforeAfter => "Before/after",
        EvidenceItemId::MigrationNotes => "Migration notes",
        EvidenceItemId::SecurityAnalysis => "Security implications",
        EvidenceItemId::RollbackPlan => "Rollback plan",
        EvidenceItemId::ReviewerSignOff => "Reviewer sign-off",
    }
}

/// The check of substance for one present item.
fn check_item(input: &BundleInput, id: EvidenceItemId, item: &EvidenceItem) -> Vec<Flaw> {
    let flaw = |code: GateCode, message: String| Flaw {
        code,
        item: id,
        message,
        line: Some(item.line),
    };
    match id {
        EvidenceItemId::FilesChanged => check_files(input, item)
            .into_iter()
            .map(|(code, message)| flaw(code, message))
            .collect(),
        EvidenceItemId::Description => {
            let sentences = bundle::sentence_count(&item.text);
            (sentences > 3)
                .then(|| {
                    let message =
                        format!("the description has {sentences} sentences; at most 3 are allowed");
                    flaw(GateCode::DescriptionTooLong, message)
                })
                .into_iter()
                .collect()
        }
        EvidenceItemId::TestMapping => {
            let criteria = acceptance_criteria(input.task);
            if criteria.len() > super::MAX_CRITERIA {
                let message = format!(
                    "the task declares {} acceptance criteria, more than the gate reads ({})",
                    criteria.len(),
                    super::MAX_CRITERIA
                );
                return vec![flaw(GateCode::LimitExceeded, message)];
            }
            match bundle::test_mapping(&item.text, &criteria) {
                Ok(()) => Vec::new(),
                Err(problem) => vec![mapping_flaw(problem, &flaw)],
            }
        }
        EvidenceItemId::BeforeAfter if !bundle::says_before_and_after(&item.text) => {
            let message = "the before/after item must say both what happened before and what \
                           happens after (`Before: … After: …`)";
            vec![flaw(GateCode::BeforeAfterIncomplete, message.to_string())]
        }
        EvidenceItemId::MigrationNotes => {
            match bundle::migration_notes(&item.text, input.migrations) {
                Ok(()) => Vec::new(),
                Err(problem) => vec![flaw(
                    GateCode::MigrationNotesIncomplete,
                    migration_message(problem),
                )],
            }
        }
        EvidenceItemId::RollbackPlan if !bundle::has_exact_rollback(&item.text) => {
            let message = "the rollback plan needs exact commands in a code span or block \
                           (`git revert <sha>`) or numbered steps";
            vec![flaw(GateCode::RollbackNotExact, message.to_string())]
        }
        _ => Vec::new(),
    }
}

fn check_files(input: &BundleInput, item: &EvidenceItem) -> Vec<(GateCode, String)> {
    let changed: Vec<(String, Option<String>)> = input
        .files
        .iter()
        .map(|file| (file.path.clone(), file.old_path.clone()))
        .collect();
    let listed = bundle::listed_paths(&item.text, super::MAX_SCOPE_PATTERNS);
    if listed.len() > super::MAX_SCOPE_PATTERNS {
        let message = format!(
            "`{}` lists more entries than the gate reads ({}); name directories or globs \
             instead of every file",
            item.label,
            super::MAX_SCOPE_PATTERNS
        );
        return vec![(GateCode::LimitExceeded, message)];
    }
    let coverage = bundle::file_coverage(listed, &changed);
    let mut problems = Vec::new();
    if !coverage.unbounded.is_empty() {
        problems.push((
            GateCode::FilesNotListed,
            format!(
                "`{}` lists {}, which would cover any change and names no file; list the \
                 changed files",
                item.label,
                coverage.unbounded.join(", ")
            ),
        ));
    }
    if !coverage.omitted.is_empty() {
        problems.push((
            GateCode::FilesNotListed,
            format!(
                "`{}` omits changed files: {}",
                item.label,
                coverage.omitted.join(", ")
            ),
        ));
    }
    for path in coverage.unchanged {
        problems.push((
            GateCode::FileListedUnchanged,
            format!(
                "`{}` lists {path}, which the change does not touch",
                item.label
            ),
        ));
    }
    problems
}

fn mapping_flaw(problem: MappingProblem, flaw: &dyn Fn(GateCode, String) -> Flaw) -> Flaw {
    match problem {
        MappingProblem::NoMapping => flaw(
            GateCode::TestsNotMapped,
            "the test output is not mapped to acceptance criteria; write which test verifies \
             which criterion (`AC1 → test_login`, a table, or `- AC1: test_login`)"
                .to_string(),
        ),
        MappingProblem::Unmapped(criteria) => flaw(
            GateCode::CriterionUnmapped,
            format!(
                "acceptance criteria mapped to no test: {}",
                criteria.join("; ")
            ),
        ),
    }
}

fn migration_message(problem: MigrationProblem) -> String {
    match problem {
        MigrationProblem::SaysNone(files) => format!(
            "the migration notes say none, but the change holds migrations: {}",
            files.join(", ")
        ),
        MigrationProblem::Unnamed(files) => format!(
            "the migration notes do not name these migration files: {}",
            files.join(", ")
        ),
    }
}

/// The task's declared acceptance criteria: an `Acceptance criteria` row of the Task
/// Assignment, else the items of an `Acceptance Criteria` section of the assignment or
/// of the first record (by Timestamp) with the assignment's authority: a record the
/// change adds, whatever date it gives itself, never replaces what the task asks for.
pub fn acceptance_criteria(task: &TaskRecords) -> Vec<String> {
    let row = task.assignment.and_then(|assignment| {
        assignment
            .extra()
            .iter()
            .find(|(key, _)| fields::fold_key(key) == fields::fold_key("Acceptance criteria"))
            .and_then(|(_, value)| fields::parse_list(value))
    });
    if let Some(criteria) = row {
        return criteria;
    }
    task.assignment
        .into_iter()
        .chain(task.assigning.iter().copied())
        .find_map(|record| record.section("Acceptance Criteria"))
        .map(|section| list_lines(&section.body))
        .unwrap_or_default()
}

/// The non-empty lines of a body, list markers removed.
fn list_lines(body: &str) -> Vec<String> {
    body.lines()
        .map(|line| {
            let trimmed = line.trim();
            let unmarked = trimmed
                .strip_prefix(['-', '*', '+'])
                .map(str::trim_start)
                .unwrap_or(trimmed);
            unmarked
                .strip_prefix("[ ]")
                .or_else(|| unmarked.strip_prefix("[x]"))
                .map(str::trim_start)
                .unwrap_or(unmarked)
                .to_string()
        })
        .filter(|line| !line.is_empty())
        .collect()
}

#[cfg(test)]
mod tests;
