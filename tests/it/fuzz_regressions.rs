//! Inputs the fuzz targets (`fuzz/`) found, kept as real files: each asserts what the
//! target checks, so the case stays fixed.

use handoff::parse_document;
use std::path::Path;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(name);
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
