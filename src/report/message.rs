//! `message check`: every checked document (the JSON contract of docs/trail.md), and
//! for a person one line per problem, one per valid message, and a summary.

use super::{Format, Report};
use crate::diagnostic::Severity;
use crate::message::Document;
use serde_json::{json, Value};

/// The documents `message check` read, checked.
#[derive(Debug, Clone)]
pub struct MessageCheckReport {
    /// One per input, in the order given.
    pub documents: Vec<Document>,
}

impl MessageCheckReport {
    /// Whether any document or message has errors.
    pub fn has_errors(&self) -> bool {
        self.documents.iter().any(Document::has_errors)
    }
}

impl Report for MessageCheckReport {
    const NAME: &'static str = "message-check";
    const FORMATS: &'static [Format] = &[Format::Human, Format::Json];
    type Contract = [Document];

    fn contract(&self) -> &[Document] {
        &self.documents
    }

    /// For the layout: per document its problems (diagnostics) and its valid messages
    /// (`line`, `kind`); the counts of messages, errors and warnings.
    fn context(&self, _format: Format) -> Value {
        let problems = || self.documents.iter().flat_map(Document::all_problems);
        let count = |severity| problems().filter(|p| p.severity == severity).count();
        let documents: Vec<Value> = self
            .documents
            .iter()
            .map(|document| {
                let ok: Vec<Value> = document
                    .messages
                    .iter()
                    .filter(|message| !message.has_errors())
                    .map(|message| {
                        json!({"line": message.line, "kind": message.kind.map_or("?", |k| k.name())})
                    })
                    .collect();
                let problems: Vec<_> = document.all_problems().collect();
                json!({"file": document.file, "problems": problems, "ok": ok})
            })
            .collect();
        json!({
            "documents": documents,
            "messages": self.documents.iter().map(|d| d.messages.len()).sum::<usize>(),
            "errors": count(Severity::Error),
            "warnings": count(Severity::Warning),
        })
    }
}
