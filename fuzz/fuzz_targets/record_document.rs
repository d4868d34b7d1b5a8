//! The record parser, lint and `fmt` on any text: never panic, every diagnostic points at
//! a line of the document, and `fmt` keeps every byte outside the records it rewrites
//! (formatting twice changes nothing more).
#![no_main]

use handoff::{format_document, lint, parse_document, Templates};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let document = parse_document("fuzz.md", text);
    let lines = text.split_inclusive(['\n', '\r']).count().max(1);
    for diagnostic in lint(&document) {
        assert!(diagnostic.line.unwrap_or(1) <= lines + 1, "{diagnostic:?}");
    }
    for record in &document.records {
        assert!(record.span().end <= text.len());
        let _ = record.canonical();
    }
    let templates = Templates::embedded();
    let once = format_document("fuzz.md", text, &templates);
    let twice = format_document("fuzz.md", &once.text, &templates);
    assert_eq!(once.text, twice.text, "fmt is not idempotent");
});
