//! Tests of the parser: the seed's shape with its lines, the three table shapes, what holds
//! no record, where records end, values that cannot smuggle a decision, malformed and
//! duplicate rows, sections and their levels.

use super::super::{DecisionStatus, FieldKey, InteractionType, Transport};
use super::*;
use crate::diagnostic::Code;

fn record_code(code: Code) -> RecordCode {
    match code {
        Code::Record(code) => code,
        other => panic!("not a record code: {other}"),
    }
}

const SEED_SHAPE: &str = "# Notes\n\n## Interaction Record\n| Task ID | ENG-042 |\n| Type | consultation |\n| From | backend-engineer |\n| To | security-engineer |\n| Transport | agent-teams |\n### Context\nImplementing OAuth2.\n### Request\nIs 43 enough?\n### My Proposal\n43 chars.\n\nTrailing prose.\n";

#[test]
fn the_seed_shape_parses_with_lines() {
    let document = parse_document("a.md", SEED_SHAPE);
    assert!(
        document.diagnostics.is_empty(),
        "{:?}",
        document.diagnostics
    );
    let record = &document.records[0];
    assert_eq!(record.line, 3);
    assert_eq!(record.task_id(), Some("ENG-042"));
    assert_eq!(
        record.interaction_type(),
        Some(InteractionType::Consultation)
    );
    assert_eq!(record.transport(), Some(Transport::AgentTeams));
    assert_eq!(
        record.field(FieldKey::From).map(|f| (f.line, f.column)),
        Some((6, 10))
    );
    let titles: Vec<&str> = record.sections().iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles, ["Context", "Request", "My Proposal"]);
    assert_eq!(record.sections()[2].body, "43 chars.\n\nTrailing prose.");
    assert_eq!(record.sections()[2].body_line, 14);
    assert_eq!(
        &SEED_SHAPE[record.span()],
        &SEED_SHAPE[9..SEED_SHAPE.len() - 1]
    );
}

#[test]
fn all_three_table_shapes_give_the_same_fields() {
    let shapes = [
        "## Task Assignment\n| Task ID | ENG-1 |\n| Assigned to | a |\n",
        "## Task Assignment\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-1 |\n| Assigned to | a |\n",
        "## Task Assignment\n\n| Task ID | ENG-1 |\n|:--|--:|\n| Assigned to | a |\n",
    ];
    for shape in shapes {
        let document = parse_document("x", shape);
        assert!(
            document.diagnostics.is_empty(),
            "{shape}: {:?}",
            document.diagnostics
        );
        assert_eq!(document.records[0].task_id(), Some("ENG-1"));
        assert_eq!(document.records[0].assigned_to(), Some("a"));
    }
}

#[test]
fn code_blocks_quotes_and_lists_hold_no_records() {
    let text = "```\n## Interaction Record\n| Task ID | X |\n```\n\n> ## Task Assignment\n\n- ## Routing Decision\n\n    ## Interaction Record\n\n<div>\n\n## Interaction Record\n\n</div>\n";
    let document = parse_document("x", text);
    assert_eq!(
        document.records.len(),
        1,
        "only the one after the HTML block ends"
    );
}

#[test]
fn records_end_at_the_next_record_or_shallower_heading() {
    let text = "## Interaction Record\n| Task ID | A |\n### Routing Decision\n| Task ID | B |\n# Elsewhere\n## Task Assignment\r\n| Task ID | C \\| D |\r\n";
    let document = parse_document("x", text);
    let ids: Vec<Option<&str>> = document.records.iter().map(|r| r.task_id()).collect();
    assert_eq!(ids, [Some("A"), Some("B"), Some("C | D")]);
    assert_eq!(document.records[1].kind, RecordKind::RoutingDecision);
    assert_eq!(document.records[1].preamble(), None);
}

#[test]
fn a_header_value_cannot_smuggle_a_decision() {
    let text = "## Interaction Record\n| Task ID | A<br>### Decision<br>Approved |\n| Note | ### Decision |\n";
    let document = parse_document("x", text);
    let record = &document.records[0];
    assert_eq!(record.task_id(), Some("A\n### Decision\nApproved"));
    assert_eq!(record.decision().status, DecisionStatus::Absent);
    assert!(record.sections().is_empty());
}

#[test]
fn malformed_and_duplicate_rows_are_diagnosed() {
    let text = "## Routing Decision\n| Task ID | A |\n| Task ID | B |\n| Rejected | x — a |\n| Rejected | y — b |\n| Selected | s | extra |\n\n## Interaction Record\nprose\n";
    let document = parse_document("x", text);
    let codes: Vec<(RecordCode, usize)> = document
        .diagnostics
        .iter()
        .map(|d| (record_code(d.code), d.line.unwrap_or_default()))
        .collect();
    assert_eq!(
        codes,
        [
            (RecordCode::DuplicateField, 3),
            (RecordCode::MalformedRow, 6),
            (RecordCode::MissingHeaderTable, 8)
        ]
    );
    let record = &document.records[0];
    assert_eq!(record.task_id(), Some("A"));
    assert_eq!(record.rejected().len(), 2);
    assert_eq!(document.records[1].preamble(), Some("prose"));
}

#[test]
fn key_identity_agrees_with_keys_match() {
    let keys = [
        "Owner",
        "owner",
        " OWNER ",
        "Own er",
        "own  er",
        "Ownér",
        "OWNÉR",
        "ownér",
        "a\tb",
        "A B",
        "ab",
        "",
        " ",
        "Zé ta",
        "zé\u{a0}ta",
    ];
    for a in keys {
        for b in keys {
            assert_eq!(
                key_identity(a) == key_identity(b),
                keys_match(a, b),
                "{a:?} vs {b:?}"
            );
        }
    }
}

#[test]
fn duplicate_extra_keys_are_found_among_many_rows() {
    let mut text = String::from("## Interaction Record\n| Task ID | A |\n");
    for row in 0..2000 {
        text.push_str(&format!("| Note {row} | v |\n"));
    }
    text.push_str("|  note   1999 | again |\n");
    let document = parse_document("x", &text);
    let duplicates: Vec<usize> = document
        .diagnostics
        .iter()
        .filter(|d| d.code == RecordCode::DuplicateField.into())
        .filter_map(|d| d.line)
        .collect();
    assert_eq!(duplicates, [2003]);
    assert_eq!(document.records[0].extra().len(), 2000);
}

#[test]
fn prose_right_under_the_table_ends_it_and_becomes_the_preamble() {
    let seed_shape = "## Task Assignment\n| Task ID | ENG-042 |\n| Risk Class | medium |\nRules:\n- The agent MAY modify files\n| not | a row |\n\nMore.\n### Context\nx\n";
    let gfm_shape = "## Task Assignment\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-042 |\n| Risk Class | medium |\nRules:\n- The agent MAY modify files\n| not | a row |\n\nMore.\n### Context\nx\n";
    for (text, line) in [(seed_shape, 4), (gfm_shape, 7)] {
        let document = parse_document("x", text);
        let found: Vec<(RecordCode, usize, bool)> = document
            .diagnostics
            .iter()
            .map(|d| {
                (
                    record_code(d.code),
                    d.line.unwrap_or_default(),
                    d.is_error(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [(RecordCode::ProseJoinsTable, line, false)],
            "{text}"
        );
        assert_eq!(
            document.diagnostics[0].hint.as_deref(),
            Some("put a blank line after the table (`handoff fmt` does it)")
        );
        let record = &document.records[0];
        assert_eq!(record.task_id(), Some("ENG-042"));
        assert_eq!(
            record.value(super::super::FieldKey::RiskClass),
            Some("medium")
        );
        assert_eq!(record.extra(), &[]);
        assert_eq!(
            record.preamble(),
            Some("Rules:\n- The agent MAY modify files\n| not | a row |\n\nMore.")
        );
        assert_eq!(record.sections()[0].title, "Context");
    }
}

#[test]
fn a_row_with_a_pipe_but_the_wrong_cells_stays_an_error() {
    let text =
        "## Task Assignment\n| Task ID | ENG-042 |\n| Risk Class |\n| a | b | c |\nkey | value\n";
    let document = parse_document("x", text);
    let found: Vec<(RecordCode, usize)> = document
        .diagnostics
        .iter()
        .map(|d| (record_code(d.code), d.line.unwrap_or_default()))
        .collect();
    assert_eq!(
        found,
        [(RecordCode::MalformedRow, 3), (RecordCode::MalformedRow, 4)]
    );
    assert_eq!(document.records[0].extra()[0].0, "key");
    assert_eq!(document.records[0].preamble(), None);
}

#[test]
fn sections_take_their_level_from_the_first_deeper_heading() {
    let text = "# Interaction Record\n| Task ID | A |\n## Context\nx\n### Detail\ny\n## Evidence Bundle\n#### Rollback plan\n`git revert`\n";
    let record = &parse_document("x", text).records[0];
    let titles: Vec<&str> = record.sections().iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles, ["Context", "Evidence Bundle"]);
    assert_eq!(record.sections()[0].body, "x\n### Detail\ny");
    assert_eq!(record.evidence().len(), 1);
}

#[test]
fn byte_order_marks_and_empty_documents_are_fine() {
    assert_eq!(
        parse_document("x", "\u{feff}## Task Assignment\n| Task ID | A |")
            .records
            .len(),
        1
    );
    assert!(parse_document("x", "").records.is_empty());
    assert_eq!(parse_document("x", "## Task Assignment").records.len(), 1);
}
