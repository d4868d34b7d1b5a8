//! Evidence extraction on any Evidence Bundle body: never panics, every item's line lies
//! inside the body, and every label is matched or not without panicking.
#![no_main]

use handoff::{evidence_labels, extract_items, match_label, Policy};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let labels = evidence_labels(&Policy::default().evidence);
    let lines = body.split_inclusive(['\n', '\r']).count().max(1);
    for item in extract_items(body, 10) {
        assert!(item.line >= 10 && item.line < 10 + lines + 1, "{item:?}");
        let _ = match_label(&item.label, &labels);
    }
});
