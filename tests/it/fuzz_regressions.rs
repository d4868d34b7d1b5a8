//! Inputs the fuzz targets (`fuzz/`) found, kept as real files: each asserts what the
//! target checks, so the case stays fixed.

use handoff::{
    hash_member, parse_document, parse_trail_line, trail_line_definition_hash, ParsedTrailLine,
};
use std::path::{Path, PathBuf};

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(name)
}

fn fixture(name: &str) -> String {
    let path = fixture_path(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The line the byte at `byte` is on when `\n`, `\r\n` and a lone `\r`
/// each end a line, as CommonMark counts them.
fn commonmark_line(text: &str, byte: usize) -> usize {
    let before = &text[..byte];
    1 + before.matches('\n').count() + before.replace("\r\n", "\n").matches('\r').count()
}

/// The `decision` target: a Decision after a run of lone carriage returns (and NUL
/// bytes) is read at its heading's line, counted with a lone `\r` ending a line.
#[test]
fn a_decision_after_lone_carriage_returns_is_at_its_headings_line() {
    let text = fixture("decision-lone-cr.md");
    let document = parse_document("decision-lone-cr.md", &text);
    let [record] = &document.records[..] else {
        panic!("one record expected: {:?}", document.records.len());
    };
    let heading = text
        .find("### Decision")
        .expect("the fixture has a Decision");
    let decision = record.decision();
    assert_eq!(decision.line, commonmark_line(&text, heading));
    assert_eq!(decision.line, 77);
}

/// The `trail_line` target: a line shaped as canonical JSON whose string holds bytes
/// that are not UTF-8. The canonical scan checks each string's UTF-8, so it declines
/// the line; it is no event: `verify` refuses it and the definition has no hash for it.
#[test]
fn a_canonical_shaped_line_that_is_not_utf8_is_no_event() {
    let path = fixture_path("trail-line-invalid-utf8.jsonl");
    let line = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(std::str::from_utf8(&line).is_err());
    assert!(hash_member(&line).is_none());
    assert_eq!(trail_line_definition_hash(&line), None);
    assert!(matches!(
        parse_trail_line(&line, true),
        ParsedTrailLine::Broken(..)
    ));
}
