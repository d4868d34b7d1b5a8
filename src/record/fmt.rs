//! `fmt`: rewriting the records of a document in canonical form, and nothing else.
//!
//! Only the byte span of each record is replaced; prose before, between and after
//! records is never touched, a record written with CRLF keeps CRLF, and a record at the
//! end of a file without a final newline keeps that. Lines end at `\n`, `\r\n` or a lone
//! `\r` alike (as in CommonMark), and a rewritten record keeps its own line ending. A record is left as it is (and the
//! reason reported) when rewriting it would lose or change anything: structural
//! errors (a duplicate key, a malformed row, no header table; the warning for prose
//! joining the table is what `fmt` repairs), a body holding a
//! heading that the canonical form would have to escape, a template failure, or a
//! rewrite that would change how the records around it parse. The result is checked by
//! re-parsing the whole new document.

use super::sanitize::{sanitize_body, PREAMBLE, SECTION_BODY};
use super::{parse_document, render, Record};
use crate::markdown::line_at;
use crate::template::Templates;

/// A record `fmt` left as it was, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedRecord {
    /// The line of the record's heading.
    pub line: usize,
    /// Why it was not rewritten.
    pub reason: String,
}

/// The result of formatting a document.
#[derive(Debug, Clone)]
pub struct FormattedDocument {
    /// The new text (equal to the input when nothing changed).
    pub text: String,
    /// Records left as they were.
    pub skipped: Vec<SkippedRecord>,
}

/// Rewrites every record of `text` in canonical form.
pub fn format_document(source: &str, text: &str, templates: &Templates) -> FormattedDocument {
    let document = parse_document(source, text);
    let records = &document.records;
    let mut replacements: Vec<Result<String, String>> = records
        .iter()
        .map(|record| replacement(record, text, &document.diagnostics, templates))
        .collect();
    for _ in 0..=records.len() {
        let new_text = splice(text, records, &replacements);
        let mismatches = mismatches(source, &new_text, records, &replacements);
        if mismatches.is_empty() {
            return finish(new_text, records, &replacements);
        }
        let culprits: Vec<usize> = mismatches
            .iter()
            .filter_map(|index| culprit(&replacements, *index))
            .collect();
        if culprits.is_empty() {
            break;
        }
        for at in culprits {
            replacements[at] =
                Err("rewriting it would change how the text around it parses".to_string());
        }
    }
    let all_skipped: Vec<Result<String, String>> = records
        .iter()
        .map(|_| Err("rewriting would change how the document parses".to_string()))
        .collect();
    finish(text.to_string(), records, &all_skipped)
}

fn finish(
    text: String,
    records: &[Record],
    replacements: &[Result<String, String>],
) -> FormattedDocument {
    let skipped = records
        .iter()
        .zip(replacements)
        .filter_map(|(record, replacement)| {
            replacement.as_ref().err().map(|reason| SkippedRecord {
                line: record.line,
                reason: reason.clone(),
            })
        })
        .collect();
    FormattedDocument { text, skipped }
}

/// The canonical text of a record for its span, or why it must stay as it is.
fn replacement(
    record: &Record,
    text: &str,
    diagnostics: &[crate::diagnostic::Diagnostic],
    templates: &Templates,
) -> Result<String, String> {
    let span = record.span();
    let last_line = line_at(text, span.end);
    if let Some(problem) = diagnostics.iter().find(|d| {
        d.is_error()
            && d.line
                .is_some_and(|at| (record.line..=last_line).contains(&at))
    }) {
        return Err(format!(
            "line {}: {} (fix it, then run fmt again)",
            problem.line.unwrap_or(record.line),
            problem.message
        ));
    }
    for section in record.sections() {
        if sanitize_body(&section.body, SECTION_BODY) != section.body {
            return Err(format!(
                "section `{}` holds a heading or an unclosed block the canonical form would escape",
                section.title
            ));
        }
    }
    if record
        .preamble()
        .is_some_and(|preamble| sanitize_body(preamble, PREAMBLE) != preamble)
    {
        return Err(
            "the text under the header table holds a heading or an unclosed block".to_string(),
        );
    }
    let rendered = render(record, templates).map_err(|error| error.to_string())?;
    let rendered = rendered.trim_end_matches('\n');
    Ok(match line_ending(&text[span]) {
        "\n" => rendered.to_string(),
        ending => rendered.replace('\n', ending),
    })
}

/// The line ending a record is written with: that of its first line (`\n`, `\r\n` or a
/// lone `\r`), `\n` for a record of one line.
fn line_ending(record: &str) -> &'static str {
    match record.find(['\r', '\n']).map(|at| &record[at..]) {
        Some(rest) if rest.starts_with("\r\n") => "\r\n",
        Some(rest) if rest.starts_with('\r') => "\r",
        _ => "\n",
    }
}

/// The document with every replaceable record span replaced.
fn splice(text: &str, records: &[Record], replacements: &[Result<String, String>]) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    let mut position = 0;
    for (record, replacement) in records.iter().zip(replacements) {
        if let Ok(canonical) = replacement {
            let span = record.span();
            out.push_str(&text[position..span.start]);
            out.push_str(canonical);
            position = span.end;
        }
    }
    out.push_str(&text[position..]);
    out
}

/// The rewritten record at or before `index` that is to blame for a mismatch there.
fn culprit(replacements: &[Result<String, String>], index: usize) -> Option<usize> {
    (0..=index.min(replacements.len().saturating_sub(1)))
        .rev()
        .find(|at| replacements[*at].is_ok())
}

/// The records the new text does not read back as expected: every one when the count
/// still matches (each is blamed on its own rewrite), else only the first, since the
/// records after it no longer line up.
fn mismatches(
    source: &str,
    new_text: &str,
    records: &[Record],
    replacements: &[Result<String, String>],
) -> Vec<usize> {
    let reparsed = parse_document(source, new_text).records;
    let mut found = Vec::new();
    for (index, (record, replacement)) in records.iter().zip(replacements).enumerate() {
        let expected = match replacement {
            Ok(_) => record.canonical(),
            Err(_) => record.clone(),
        };
        if reparsed.get(index) != Some(&expected) {
            found.push(index);
            if reparsed.len() != records.len() {
                return found;
            }
        }
    }
    if found.is_empty() && reparsed.len() != records.len() {
        found.push(records.len());
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fmt(text: &str) -> FormattedDocument {
        format_document("x.md", text, &Templates::embedded())
    }

    #[test]
    fn records_become_canonical_and_prose_stays() {
        let text = "Intro *prose*  \r\n\r\n### interaction record\r\n| Type | Consultation |\r\n| Task ID | A |\r\n#### Request\r\nask\r\n#### Context\r\nctx\r\n\r\n\r\n# Outro";
        let formatted = fmt(text);
        assert!(formatted.skipped.is_empty(), "{:?}", formatted.skipped);
        assert_eq!(
            formatted.text,
            "Intro *prose*  \r\n\r\n## Interaction Record\r\n\r\n| Field | Value |\r\n|---|---|\r\n| Task ID | A |\r\n| Type | consultation |\r\n\r\n### Context\r\n\r\nctx\r\n\r\n### Request\r\n\r\nask\r\n\r\n\r\n# Outro"
        );
        assert_eq!(fmt(&formatted.text).text, formatted.text, "idempotent");
    }

    #[test]
    fn records_that_cannot_be_rewritten_faithfully_are_skipped() {
        let duplicate = "## Task Assignment\n| Task ID | A |\n| Task ID | B |\n";
        assert_eq!(fmt(duplicate).text, duplicate);
        assert_eq!(fmt(duplicate).skipped.len(), 1);
        let deep = "# Interaction Record\n| Task ID | A |\n## Context\ntext\n### Detail\nmore\n";
        assert_eq!(fmt(deep).text, deep);
        let swallow = "### Task Assignment\n| Task ID | A |\n### Notes\nnot part of the record\n\n### Task Assignment\n| Task ID | B |\n### More notes\n";
        let formatted = fmt(swallow);
        assert_eq!(formatted.text, swallow);
        assert!(
            formatted.skipped[0].reason.contains("around it"),
            "{:?}",
            formatted.skipped
        );
    }

    #[test]
    fn prose_ending_with_a_lone_carriage_return_stays_before_the_record() {
        let text = "Intro prose\r## Task Assignment\n| Task ID | T-1 |\n| Assigned to | a-b |\n";
        let formatted = fmt(text);
        assert!(
            formatted
                .text
                .starts_with("Intro prose\r## Task Assignment\n\n| Field | Value |\n"),
            "{:?} {:?}",
            formatted.text,
            formatted.skipped
        );
        assert_eq!(fmt(&formatted.text).text, formatted.text, "idempotent");
        // A record written with lone carriage returns is kept as it is, whole.
        let lone = "Intro\r## Task Assignment\r| Task ID | T-1 |\r";
        assert_eq!(fmt(lone).text, lone);
    }

    /// One piece of a generated document: prose (a heading first when it follows a
    /// record, so that it is not part of the record), or a record that is not canonical.
    #[derive(Debug, Clone)]
    enum Piece {
        Prose { lines: Vec<(String, &'static str)> },
        Record { task: u8, ending: &'static str },
    }

    const ENDINGS: [&str; 3] = ["\n", "\r\n", "\r"];

    fn ending() -> impl Strategy<Value = &'static str> {
        proptest::sample::select(ENDINGS.to_vec())
    }

    fn piece() -> impl Strategy<Value = Piece> {
        let line = ("[a-z \u{e9}*_]{0,12}", ending());
        prop_oneof![
            proptest::collection::vec(line, 1..4).prop_map(|lines| Piece::Prose { lines }),
            (any::<u8>(), ending()).prop_map(|(task, ending)| Piece::Record { task, ending }),
        ]
    }

    /// The document, and the prose text of each prose piece (which fmt must keep).
    fn document(pieces: &[Piece]) -> (String, Vec<String>, usize) {
        let (mut text, mut kept, mut records) = (String::new(), Vec::new(), 0);
        let mut after_record = false;
        for (index, piece) in pieces.iter().enumerate() {
            match piece {
                Piece::Prose { lines } => {
                    let mut prose = String::new();
                    if after_record {
                        prose.push_str(&format!("## Notes {index}{}", lines[0].1));
                    }
                    for (line, ending) in lines {
                        prose.push_str(&format!("prose {index} {line}{ending}"));
                    }
                    text.push_str(&prose);
                    kept.push(prose);
                    after_record = false;
                }
                Piece::Record { task, ending: e } => {
                    text.push_str(&format!(
                        "### interaction record{e}| Type | Consultation |{e}| Task ID | T-{task} |{e}#### Request{e}ask {index}{e}{e}"
                    ));
                    records += 1;
                    after_record = true;
                }
            }
        }
        (text, kept, records)
    }

    proptest::proptest! {
        /// `fmt` keeps every byte outside the records, whatever the mix of line endings.
        #[test]
        fn fmt_keeps_every_byte_outside_records(
            pieces in proptest::collection::vec(piece(), 1..7),
        ) {
            let (text, kept, records) = document(&pieces);
            let formatted = fmt(&text);
            let mut at = 0;
            for prose in &kept {
                let found = formatted.text[at..].find(prose.as_str());
                proptest::prop_assert!(found.is_some(), "{:?} lost from {:?}", prose, formatted.text);
                at += found.unwrap_or(0) + prose.len();
            }
            if let Some(Piece::Prose { .. }) = pieces.first() {
                proptest::prop_assert!(formatted.text.starts_with(kept[0].as_str()));
            }
            let reparsed = parse_document("x.md", &formatted.text).records;
            proptest::prop_assert_eq!(reparsed.len(), records);
            proptest::prop_assert_eq!(fmt(&formatted.text).text, formatted.text.clone());
        }
    }
}
