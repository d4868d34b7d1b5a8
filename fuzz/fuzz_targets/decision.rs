//! Decision and scope-expansion reading on any section body inside a real `review`
//! record: never panics, and a decision's line lies inside the document.
#![no_main]

use handoff::parse_document;
use libfuzzer_sys::fuzz_target;

const HEAD: &str = "## Interaction Record\n\n| Task ID | T-1 |\n| Type | review |\n\
| From | qa-engineer |\n| To | orchestrator |\n| Transport | orchestrator-mediated |\n\
| Timestamp | 2026-01-02T10:00:00Z |\n\n";

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let (decision, request) = body.split_once('\u{0}').unwrap_or((body, body));
    let text = format!("{HEAD}### Request\n\n{request}\n\n### Decision\n\n{decision}\n");
    // A lone carriage return ends a line too (CommonMark, and the reported lines).
    let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count();
    for record in parse_document("fuzz.md", &text).records {
        let read = record.decision();
        assert!(read.line <= lines, "{read:?}");
        if let Some(expansion) = record.scope_expansion() {
            assert!(expansion.line <= lines, "{expansion:?}");
        }
    }
});
