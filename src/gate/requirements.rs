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
mod tests {
    use super::*;
    use crate::gate::task::{Origin, Sourced};
    use crate::gate::{MAX_CRITERIA, MAX_SCOPE_PATTERNS};
    use crate::record::parse_document;

    fn criteria_of(text: &str) -> Vec<String> {
        let records: Vec<Sourced> = parse_document("t.md", text)
            .records
            .into_iter()
            .map(|record| Sourced {
                record,
                origin: Origin::Base,
            })
            .collect();
        acceptance_criteria(&TaskRecords::gather(&records, "ENG-1"))
    }

    #[test]
    fn an_item_that_says_nothing_is_unfilled() {
        for nothing in [
            "",
            "TBD",
            "…",
            "-",
            "**",
            "`-`",
            "?",
            "N/A.",
            "see the diff",
        ] {
            assert!(unfilled(nothing), "{nothing:?}");
        }
        for something in ["none", "No new surface.", "`git revert HEAD`", "src/"] {
            assert!(!unfilled(something), "{something:?}");
        }
    }

    #[test]
    fn criteria_come_from_a_row_or_a_section() {
        let row = "## Task Assignment\n\n| Task ID | ENG-1 |\n\
            | Acceptance criteria | [AC1 login works, AC2 logout works] |\n";
        assert_eq!(criteria_of(row), ["AC1 login works", "AC2 logout works"]);
        let section = "## Task Assignment\n\n| Task ID | ENG-1 |\n\n\
            ### Acceptance Criteria\n\n- [ ] AC1: login works\n* AC2: logout works\n";
        assert_eq!(
            criteria_of(section),
            ["AC1: login works", "AC2: logout works"]
        );
        let handoff = "## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | handoff |\n\n\
            ### Acceptance Criteria\n\n- the page loads\n";
        assert_eq!(criteria_of(handoff), ["the page loads"]);
        assert!(criteria_of("## Task Assignment\n\n| Task ID | ENG-1 |\n").is_empty());
    }

    /// The task ENG-1 (criteria AC1, AC2) and a handoff whose Evidence Bundle is `bundle`,
    /// judged at `class` for a change to `src/a.rs` (and `migrations`).
    fn judged(
        class: RiskClass,
        bundle: &str,
        migrations: &[&str],
        sign_off: bool,
    ) -> BundleJudgement {
        let text = format!(
            "## Task Assignment\n\n| Task ID | ENG-1 |\n| Assigned to | backend-engineer |\n\n\
             ### Acceptance Criteria\n\n- AC1: login works\n- AC2: logout works\n\n\
             ## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | handoff |\n\
             | From | backend-engineer |\n\n### Evidence Bundle\n\n{bundle}"
        );
        judged_text(class, &text, migrations, sign_off)
    }

    fn judged_text(
        class: RiskClass,
        text: &str,
        migrations: &[&str],
        sign_off: bool,
    ) -> BundleJudgement {
        let records: Vec<Sourced> = parse_document(".handoff/eng-1.md", text)
            .records
            .into_iter()
            .map(|record| Sourced {
                record,
                origin: Origin::Head,
            })
            .collect();
        let task = TaskRecords::gather(&records, "ENG-1");
        let mut files = vec![ChangedPath {
            path: "src/a.rs".to_string(),
            old_path: None,
            touch: crate::scope::Touch::Modified,
        }];
        files.extend(migrations.iter().map(|path| ChangedPath {
            path: path.to_string(),
            old_path: None,
            touch: crate::scope::Touch::Added,
        }));
        let migrations: Vec<String> = migrations.iter().map(|m| m.to_string()).collect();
        let labels = crate::evidence::labels(&crate::policy::defaults().evidence);
        judge(&BundleInput {
            task: &task,
            class,
            files: &files,
            migrations: &migrations,
            labels: &labels,
            sign_off_ok: sign_off,
        })
    }

    /// The codes of a judgement's problems, in order.
    fn codes(judgement: &BundleJudgement) -> Vec<GateCode> {
        judgement
            .problems
            .iter()
            .filter_map(|problem| match problem.code {
                crate::diagnostic::Code::Gate(code) => Some(code),
                _ => None,
            })
            .collect()
    }

    const HIGH: &str = "- **Files changed**: `src/a.rs`\n\
        - **Test mapping**: AC1 → `test_login`, AC2 → `test_logout`\n\
        - **Security implications**: The session token is now rotated on login.\n\
        - **Rollback plan**: `git revert abc123`\n\
        - **Before/after**: Before: tokens were reused. After: tokens rotate on login.\n";

    #[test]
    fn a_full_bundle_passes_and_sign_off_is_required_only_where_it_does_not_hold() {
        let passed = judged(RiskClass::High, HIGH, &[], true);
        assert!(
            passed.report.missing.is_empty(),
            "{:?}",
            passed.report.missing
        );
        assert!(passed.problems.is_empty(), "{:?}", passed.problems);
        assert_eq!(passed.report.required, required_items(RiskClass::High));

        let unsigned = judged(RiskClass::High, HIGH, &[], false);
        assert_eq!(unsigned.report.missing, [EvidenceItemId::ReviewerSignOff]);
        // Sign-off is no label: nothing in the bundle is reported for it.
        assert!(unsigned.problems.is_empty(), "{:?}", unsigned.problems);
    }

    #[test]
    fn a_missing_or_unfilled_item_is_missing_with_what_to_write() {
        let judgement = judged(RiskClass::Low, "- **Files changed**: TBD\n", &[], true);
        assert_eq!(
            judgement.report.missing,
            [EvidenceItemId::FilesChanged, EvidenceItemId::Description]
        );
        assert_eq!(
            codes(&judgement),
            [GateCode::EvidencePlaceholder, GateCode::EvidenceMissing]
        );
        let missing = &judgement.problems[1].message;
        assert!(missing.contains("add `- **Description**: …`"), "{missing}");
        assert_eq!(judgement.problems[0].line, Some(19));

        let nothing = judged(RiskClass::Low, "- **Description**: n/a\n", &[], true);
        assert!(nothing.problems[1]
            .message
            .contains("says nothing (\"n/a\")"));
    }

    #[test]
    fn the_filled_one_of_two_items_with_one_label_counts() {
        let bundle = "- **Files changed**: `src/a.rs`\n- **Description**: TBD\n\
            - **Description**: Rotates the session token.\n";
        let judgement = judged(RiskClass::Low, bundle, &[], true);
        assert!(
            judgement.report.missing.is_empty(),
            "{:?}",
            judgement.report.missing
        );
        assert!(judgement.problems.is_empty(), "{:?}", judgement.problems);
    }

    #[test]
    fn no_evidence_record_names_every_required_item() {
        let text =
            "## Task Assignment\n\n| Task ID | ENG-1 |\n| Assigned to | backend-engineer |\n";
        let judgement = judged_text(RiskClass::Low, text, &[], true);
        assert_eq!(codes(&judgement), [GateCode::NoEvidenceRecord]);
        assert!(judgement.problems[0]
            .message
            .ends_with("low-risk work needs: files-changed, description"));
        assert_eq!(judgement.report.missing, judgement.report.required);
    }

    #[test]
    fn each_present_item_is_checked_once_required_or_not() {
        let low = |extra: &str| {
            let bundle = format!(
                "- **Files changed**: `src/a.rs`\n- **Description**: Rotates the token.\n{extra}"
            );
            codes(&judged(RiskClass::Low, &bundle, &[], true))
        };
        // Items a low change does not require are still checked when they say something.
        assert_eq!(
            low("- **Rollback plan**: revert it\n"),
            [GateCode::RollbackNotExact]
        );
        assert_eq!(low("- **Rollback plan**: `git revert abc123`\n"), []);
        assert_eq!(low("- **Rollback plan**: TBD\n"), []);
        assert_eq!(
            low("- **Before/after**: It is better.\n"),
            [GateCode::BeforeAfterIncomplete]
        );
        assert_eq!(
            low("- **Before/after**: Before: tokens were reused. After: they rotate.\n"),
            []
        );
        assert_eq!(
            low("- **Test mapping**: AC1 → `test_login`\n"),
            [GateCode::CriterionUnmapped]
        );
        assert_eq!(
            low("- **Test mapping**: it works\n"),
            [GateCode::TestsNotMapped]
        );
        assert_eq!(
            low("- **Test mapping**: AC1 → `test_login`, AC2 → `test_logout`\n"),
            []
        );
    }

    #[test]
    fn a_description_may_have_three_sentences_not_four() {
        let with = |description: &str| {
            let bundle =
                format!("- **Files changed**: `src/a.rs`\n- **Description**: {description}\n");
            codes(&judged(RiskClass::Low, &bundle, &[], true))
        };
        assert_eq!(with("One. Two. Three."), []);
        assert_eq!(
            with("One. Two. Three. Four."),
            [GateCode::DescriptionTooLong]
        );
    }

    #[test]
    fn files_changed_names_every_changed_file_and_only_those() {
        let with = |files: &str| {
            let bundle =
                format!("- **Files changed**: {files}\n- **Description**: Rotates the token.\n");
            judged(RiskClass::Low, &bundle, &[], true)
        };
        assert_eq!(codes(&with("`src/a.rs`")), []);
        let omits = with("`src/b.rs`");
        assert_eq!(
            codes(&omits),
            [GateCode::FilesNotListed, GateCode::FileListedUnchanged]
        );
        assert!(omits.problems[0]
            .message
            .ends_with("omits changed files: src/a.rs"));
        let unbounded = with("`src/a.rs`, `**`");
        assert_eq!(codes(&unbounded), [GateCode::FilesNotListed]);
        assert!(unbounded.problems[0]
            .message
            .contains("lists **, which would cover any change"));
    }

    #[test]
    fn migration_notes_name_the_migrations() {
        let with = |notes: &str| {
            let bundle = format!(
                "- **Files changed**: `src/a.rs`, `db/migrate/1_add.rb`\n\
                 - **Test mapping**: AC1 → `test_login`, AC2 → `test_logout`\n\
                 - **Before/after**: Before: tokens were reused. After: they rotate.\n\
                 - **Migration notes**: {notes}\n"
            );
            judged(RiskClass::Medium, &bundle, &["db/migrate/1_add.rb"], true)
        };
        assert_eq!(codes(&with("`db/migrate/1_add.rb` adds a column")), []);
        let none = with("none");
        assert_eq!(codes(&none), [GateCode::MigrationNotesIncomplete]);
        assert!(none.problems[0]
            .message
            .ends_with("say none, but the change holds migrations: db/migrate/1_add.rb"));
        let unnamed = with("adds a column");
        assert!(unnamed.problems[0]
            .message
            .ends_with("do not name these migration files: db/migrate/1_add.rb"));
    }

    #[test]
    fn criteria_are_read_up_to_their_cap() {
        let criteria = |count: usize| {
            let lines: String = (1..=count)
                .map(|i| format!("- AC{i}: case {i}\n"))
                .collect();
            let text = format!(
                "## Task Assignment\n\n| Task ID | ENG-1 |\n\n### Acceptance Criteria\n\n{lines}\n\
                 ## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | handoff |\n\n\
                 ### Evidence Bundle\n\n- **Files changed**: `src/a.rs`\n\
                 - **Description**: Cases.\n- **Test mapping**: it works\n"
            );
            codes(&judged_text(RiskClass::Low, &text, &[], true))
        };
        assert_eq!(criteria(MAX_CRITERIA), [GateCode::TestsNotMapped]);
        assert_eq!(criteria(MAX_CRITERIA + 1), [GateCode::LimitExceeded]);
    }

    #[test]
    fn a_file_list_past_its_cap_is_refused_unread() {
        // One past the cap (the at-cap side is scripts/bench-trust-caps.sh's
        // `files:200000`: 200,000 entries cost seconds in a debug build).
        let list: Vec<String> = (0..MAX_SCOPE_PATTERNS)
            .map(|i| format!("`src/f{i}.rs`"))
            .collect();
        let bundle = format!(
            "- **Files changed**: `src/a.rs`, {}\n- **Description**: Many.\n",
            list.join(", ")
        );
        let judgement = judged(RiskClass::Low, &bundle, &[], true);
        assert_eq!(codes(&judgement), [GateCode::LimitExceeded]);
        assert!(judgement.problems[0]
            .message
            .contains("lists more entries than the gate reads (200000)"));
    }

    #[test]
    fn every_class_requires_files_and_high_requires_sign_off() {
        for &class in RiskClass::ALL {
            assert_eq!(required_items(class)[0], EvidenceItemId::FilesChanged);
        }
        assert_eq!(required_items(RiskClass::High).len(), 6);
        assert!(required_items(RiskClass::High).contains(&EvidenceItemId::ReviewerSignOff));
        assert!(!required_items(RiskClass::Medium).contains(&EvidenceItemId::ReviewerSignOff));
    }
}
