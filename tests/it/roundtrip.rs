//! The round trip: `parse(render(r)) == r.canonical()` for generated records full of
//! hostile strings; rendering is a fixed point (what `fmt` relies on); the rendered
//! header is a real GFM table with one row per field for an independent renderer
//! (comrak); and arbitrary bytes never panic the parser.

use comrak::nodes::NodeValue;
use handoff::{format_document, parse_document, render, Record, RecordKind, Templates};
use proptest::prelude::*;
use std::path::Path;

/// Pieces that have broken Markdown round trips before: table syntax, line breaks,
/// escapes, headings that would start a section or a record, fences, HTML, unicode.
const FRAGMENTS: &[&str] = &[
    "a",
    "ENG-042",
    " ",
    "|",
    "\\|",
    "\\",
    "\\\\",
    "<br>",
    "<BR/>",
    "<br />",
    "\n",
    "\r\n",
    "\r",
    "### Decision",
    "## Interaction Record",
    "# Task Assignment",
    "`",
    "```",
    "~~~",
    "é",
    "日本",
    "Approved",
    "[x]",
    "- item",
    "<!--",
    "<script>",
    "<div>",
    "---",
    "===",
    "**",
    "    ",
    "> ",
    "1. ",
    "\t",
    ":",
    ",",
    ";",
    "—",
    "(",
    ")",
    "[",
    "]",
    "...",
    "e.g.",
    "&amp;",
    "\u{a0}",
    "#",
    "Field",
    "Value",
    "*",
    "_",
    "<",
    ">",
    "!",
    "=",
    "\u{2028}",
    "İ",
    "\u{212A}",
];

fn hostile() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..8).prop_map(|pieces| pieces.concat())
}

fn title() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(
            &[
                "Context",
                "Request",
                "Constraints",
                "Evidence Bundle",
                "Decision",
                "My Proposal"
            ][..]
        )
        .prop_map(str::to_string),
        hostile(),
    ]
}

fn kind() -> impl Strategy<Value = RecordKind> {
    prop::sample::select(RecordKind::ALL.to_vec())
}

prop_compose! {
    fn record()(
        kind in kind(),
        values in prop::collection::vec(prop::option::of(hostile()), 7),
        extra in prop::collection::vec((hostile(), hostile()), 0..3),
        preamble in prop::option::of(hostile()),
        sections in prop::collection::vec((title(), hostile()), 0..6),
    ) -> Record {
        let mut record = Record::new(kind);
        for (key, value) in kind.keys().iter().zip(&values) {
            if let Some(value) = value {
                record.set_field(key.label(), value);
            }
        }
        for (key, value) in &extra {
            record.set_field(key, value);
        }
        record.set_preamble(preamble.as_deref());
        // A section title twice is an error of its own (`duplicate-section`).
        let mut titles = std::collections::HashSet::new();
        for (title, body) in &sections {
            let key = handoff::visible(title.trim()).split_whitespace().collect::<Vec<_>>().join(" ");
            if titles.insert(key.to_lowercase()) {
                record.push_section(title, body);
            }
        }
        record
    }
}

/// Cases of each round-trip property: 400 by default, 100 under CI (`.ci/run` sets `CI`),
/// where every other property runs `PROPTEST_CASES` (64) instead of proptest's 256.
fn round_trip_cases() -> u32 {
    match std::env::var_os("CI") {
        Some(_) => 100,
        None => 400,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: round_trip_cases(), ..ProptestConfig::default() })]

    #[test]
    fn parse_of_render_is_the_canonical_record(record in record()) {
        let templates = Templates::embedded();
        let text = render(&record, &templates).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let document = parse_document("generated", &text);
        prop_assert!(document.diagnostics.is_empty(), "{:?}\n{}", document.diagnostics, text);
        prop_assert_eq!(document.records.len(), 1);
        prop_assert_eq!(&document.records[0], &record.canonical());
        for key in record.kind.keys() {
            prop_assert_eq!(document.records[0].value(*key), record.value(*key));
        }
        prop_assert_eq!(document.records[0].extra(), record.extra());
        let again = render(&document.records[0], &templates).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&again, &text);
    }

    #[test]
    fn fmt_leaves_prose_and_canonical_records_alone(record in record(), prose in hostile()) {
        let templates = Templates::embedded();
        let text = render(&record, &templates).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let document = format!("Intro: {}\n\n{text}\n# After\n", prose.replace(['#', '\n', '\r', '<', '`', '~'], " "));
        let formatted = format_document("doc.md", &document, &templates);
        prop_assert_eq!(&formatted.text, &document);
        prop_assert!(formatted.skipped.is_empty(), "{:?}", formatted.skipped);
    }

    #[test]
    fn prose_joined_to_the_table_reads_as_the_preamble_and_fmt_restores_the_blank_line(
        record in record(),
        first_line in "[A-Za-zé日本:,.()]{1,12}( [A-Za-z:]{1,8}){0,3}",
        rest in prop::option::of(hostile()),
    ) {
        let templates = Templates::embedded();
        let mut record = record;
        let preamble = match &rest {
            Some(rest) => format!("{first_line}\n{rest}"),
            None => first_line.clone(),
        };
        record.set_preamble(Some(&preamble));
        let canonical = record.canonical();
        let text = render(&record, &templates).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let separated = format!("|\n\n{first_line}");
        prop_assert!(text.contains(&separated), "{}", text);
        let joined = text.replacen(&separated, &format!("|\n{first_line}"), 1);
        let document = parse_document("joined", &joined);
        let codes: Vec<&str> = document.diagnostics.iter().map(|d| d.code.name()).collect();
        prop_assert_eq!(codes, ["prose-joins-table"], "{}", joined);
        prop_assert_eq!(document.records.len(), 1);
        prop_assert_eq!(&document.records[0], &canonical);
        let formatted = format_document("joined", &joined, &templates);
        prop_assert!(formatted.skipped.is_empty(), "{:?}", formatted.skipped);
        prop_assert_eq!(&formatted.text, &text);
    }

    #[test]
    fn rendered_headers_are_real_tables_for_comrak(record in record()) {
        let text = render(&record, &Templates::embedded()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let rows = gfm_table_rows(&text);
        prop_assert_eq!(rows.len(), 1 + record.fields().len() + record.extra().len(), "{}", text);
        prop_assert_eq!(&rows[0], &vec!["Field".to_string(), "Value".to_string()]);
        for (row, field) in rows[1..].iter().zip(record.fields()) {
            prop_assert_eq!(row.len(), 2);
            prop_assert_eq!(&row[0], field.key.label());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let lossy = String::from_utf8_lossy(&bytes).into_owned();
        let document = parse_document("lossy", &lossy);
        for record in &document.records {
            let _ = record.to_json();
            let _ = render(record, &Templates::embedded());
        }
        let _ = format_document("lossy", &lossy, &Templates::embedded());
        if let Ok(text) = handoff::decode_text(bytes, Path::new("bytes")) {
            let _ = handoff::lint(&parse_document("bytes", &text));
        }
    }

    #[test]
    fn markdown_shaped_noise_never_panics(text in prop::collection::vec(prop::sample::select(NOISE), 0..40)) {
        let text = text.concat();
        let document = parse_document("noise", &text);
        let _ = handoff::lint(&document);
        for record in &document.records {
            let _ = record.to_json();
        }
        let formatted = format_document("noise", &text, &Templates::embedded());
        let again = format_document("noise", &formatted.text, &Templates::embedded());
        prop_assert_eq!(&again.text, &formatted.text, "fmt is idempotent");
    }
}

/// Markdown that looks like records, for the noise test.
const NOISE: &[&str] = &[
    "## Interaction Record\n",
    "# Task Assignment\n",
    "### Routing Decision\n",
    "| Task ID | A |\n",
    "| Type | review |\n",
    "| Field | Value |\n",
    "|---|---|\n",
    "### Decision\n",
    "#### Item\n",
    "Approved\n",
    "\n",
    "\r\n",
    "text ",
    "```\n",
    "> ",
    "- ",
    "<!-- ",
    "-->\n",
    "| Rejected | a — b |\n",
    "Setext\n---\n",
    "    code\n",
    "| x |\n",
    "| a | b | c |\n",
    "\\|",
    "<br>",
    "| Type | escalation |\n",
    "| Type | capability-request |\n",
    "### Request\n",
    "### Evidence Bundle\n",
    "İİ",
    "Failure Type: İ\n",
    "Scope expansion: İ because İ\n",
    "Reviewer: İ\n",
    "Capability needed: İ\n",
    "Urgency: İ\n",
    "- **Files**: İ\n",
];

/// The rows (cell texts) of the first table comrak finds.
fn gfm_table_rows(text: &str) -> Vec<Vec<String>> {
    let arena = comrak::Arena::new();
    let mut options = comrak::Options::default();
    options.extension.table = true;
    let root = comrak::parse_document(&arena, text, &options);
    let Some(table) = root
        .descendants()
        .find(|node| matches!(node.data.borrow().value, NodeValue::Table(_)))
    else {
        return Vec::new();
    };
    table
        .children()
        .map(|row| {
            row.children()
                .map(|cell| cell.collect_text().trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn the_seed_records_render_as_tables_with_their_keys() {
    let dir = format!("{}/tests/fixtures/seed", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(format!("{dir}/routing-decision.md")).expect("readable");
    let record = &parse_document("r", &text).records[0];
    let rendered = render(record, &Templates::embedded()).expect("renders");
    let rows = gfm_table_rows(&rendered);
    let keys: Vec<&str> = rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(
        keys,
        [
            "Field",
            "Task ID",
            "Requested capability",
            "Matched agents",
            "Selected",
            "Reason",
            "Rejected",
            "Tie-break rule applied"
        ]
    );
    assert_eq!(
        rows[3][1],
        "security-engineer (auth: [oauth2, saml]), backend-engineer (auth: [jwt, session])"
    );
}
