//! Tests of the Evidence Bundle's judgement: acceptance criteria read from a task, each
//! class's required items, missing and unfilled items, each present item's substance,
//! the caps on what is read.

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
fn judged(class: RiskClass, bundle: &str, migrations: &[&str], sign_off: bool) -> BundleJudgement {
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
    let text = "## Task Assignment\n\n| Task ID | ENG-1 |\n| Assigned to | backend-engineer |\n";
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
        let bundle = format!("- **Files changed**: `src/a.rs`\n- **Description**: {description}\n");
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
