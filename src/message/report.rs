//! `message check` outputs: human lines and the JSON contract.

use super::Report;
use std::fmt::Write;

/// Every problem as `file:line:column: severity[code]: message (at pointer)`, then a
/// summary.
pub fn human(reports: &[Report]) -> String {
    let mut text = String::new();
    let (mut messages, mut errors, mut warnings) = (0, 0, 0);
    for report in reports {
        messages += report.messages.len();
        for problem in report.all_problems() {
            match problem.severity {
                crate::diagnostic::Severity::Error => errors += 1,
                crate::diagnostic::Severity::Warning => warnings += 1,
            }
            let at = match problem.pointer.is_empty() {
                true => String::new(),
                false => format!(" (at {})", problem.pointer),
            };
            let _ = writeln!(
                text,
                "{}:{}:{}: {}[{}]: {}{at}",
                report.file,
                problem.line,
                problem.column,
                problem.severity,
                problem.code,
                problem.message
            );
        }
        for message in &report.messages {
            if !message.has_errors() {
                let kind = message.kind.map_or("?", |k| k.name());
                let _ = writeln!(text, "{}:{}: ok: {kind}", report.file, message.line);
            }
        }
    }
    let _ = writeln!(
        text,
        "{messages} message(s) checked: {errors} error(s), {warnings} warning(s)"
    );
    text
}

/// The reports as JSON (docs/trail.md "message check JSON").
pub fn json(reports: &[Report]) -> String {
    let mut text = serde_json::to_string_pretty(reports).unwrap_or_default();
    text.push('\n');
    text
}
