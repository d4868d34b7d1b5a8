//! `handoff message check` on any text: never panics, and every problem points at a
//! line and column inside the document.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let report = handoff::check_messages("fuzz", text);
    // A lone carriage return breaks a line too (YAML 1.2, and the reported positions).
    let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count().max(1);
    for problem in report.all_problems() {
        let line = problem.line.unwrap_or(0);
        assert!(line >= 1 && line <= lines, "{problem:?}");
        assert!(problem.column >= Some(1), "{problem:?}");
    }
    for message in report.messages {
        let _ = message.into_intent();
    }
});
