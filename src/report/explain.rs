//! `handoff explain`: one code's documentation, or the list of every code.

use super::{Format, Report};
use crate::diagnostic::{Code, Explanation};
use serde::Serialize;

/// One code explained, or (for `None`) every code listed.
pub struct ExplainReport(pub Option<Code>);

#[derive(Serialize)]
struct Entry {
    name: &'static str,
    severity: crate::diagnostic::Severity,
    #[serde(flatten)]
    explanation: &'static Explanation,
    /// The example, line by line (the layout indents it).
    example_lines: Vec<&'static str>,
}

fn entry(code: Code) -> Entry {
    let explanation = code.explanation();
    Entry {
        name: code.name(),
        severity: code.severity(),
        explanation,
        example_lines: explanation.example.lines().collect(),
    }
}

#[derive(Serialize)]
struct Context {
    /// The code asked for.
    code: Option<Entry>,
    /// Every code, when none was asked for.
    codes: Vec<Entry>,
}

impl Report for ExplainReport {
    const NAME: &'static str = "explain";
    const FORMATS: &'static [Format] = &[Format::Human];
    type Contract = ();

    fn contract(&self) -> &() {
        &()
    }

    fn context(&self, _format: Format) -> serde_json::Value {
        let context = match self.0 {
            Some(code) => Context {
                code: Some(entry(code)),
                codes: Vec::new(),
            },
            None => Context {
                code: None,
                codes: Code::all().map(entry).collect(),
            },
        };
        serde_json::to_value(context).unwrap_or_default()
    }
}
