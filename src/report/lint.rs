//! `handoff lint` and `handoff parse`: what is wrong with records, and records as data.

use super::{Annotation, Format, Report};
use crate::diagnostic::Diagnostic;
use crate::record::{Record, RecordJson};
use crate::suppress::{Baseline, SuppressedBy};
use serde::Serialize;

/// The diagnostics of every input `lint` read, and the inputs it could not read.
///
/// Its JSON form is `{"diagnostics": [...], "errors": [...]}`: `errors` names the inputs
/// that could not be read, so a JSON reader never mistakes a run that exits 2 for a clean
/// one.
#[derive(Debug, Default)]
pub struct LintReport {
    entries: Vec<Entry>,
    errors: Vec<String>,
    /// How many inputs were read, and how many records they held (for the summary line).
    files: usize,
    records: usize,
    /// The diagnostics the baseline covers, and where the baseline was read from.
    baselined: Vec<Entry>,
    baseline: Option<String>,
}

/// A diagnostic and the source line it points at.
#[derive(Debug)]
struct Entry {
    diagnostic: Diagnostic,
    excerpt: Option<String>,
}

/// The JSON form. Each diagnostic's keys are in alphabetical order, as `lint` has always
/// written them (`parse` and `audit` write them in declaration order).
#[derive(Serialize)]
struct Contract<'a> {
    diagnostics: Vec<serde_json::Value>,
    errors: &'a [String],
    /// With `--baseline` only: the diagnostics it covers (not counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    baselined: Option<Vec<serde_json::Value>>,
}

#[derive(Serialize)]
struct EntryContext<'a> {
    #[serde(flatten)]
    diagnostic: &'a Diagnostic,
    /// The source line, for the human layout's excerpt.
    excerpt: Option<&'a str>,
    /// As many spaces as the line number has digits, and as the column is from the start.
    gutter: String,
    caret: String,
}

impl LintReport {
    /// Adds the diagnostics of one input whose text is `text` and which held `records`
    /// records.
    pub fn add(&mut self, text: &str, records: usize, diagnostics: Vec<Diagnostic>) {
        self.files += 1;
        self.records += records;
        let lines: Vec<&str> = text.lines().collect();
        for diagnostic in diagnostics {
            let excerpt = diagnostic
                .line
                .and_then(|line| line.checked_sub(1))
                .and_then(|index| lines.get(index))
                .map(|line| line.to_string());
            self.entries.push(Entry {
                diagnostic,
                excerpt,
            });
        }
    }

    /// Records an input that could not be read.
    pub fn add_unreadable(&mut self, message: String) {
        self.errors.push(message);
    }

    /// The inputs that could not be read.
    pub fn unreadable(&self) -> &[String] {
        &self.errors
    }

    /// Moves the diagnostics `baseline` covers out of the count: each entry of the
    /// baseline covers one diagnostic with its fingerprint.
    pub fn apply_baseline(&mut self, mut baseline: Baseline) {
        let (baselined, kept) =
            std::mem::take(&mut self.entries)
                .into_iter()
                .partition(|entry: &Entry| {
                    baseline.take(&Annotation::from_diagnostic(&entry.diagnostic).fingerprint())
                });
        self.entries = kept;
        self.baselined = baselined;
        self.baseline = Some(baseline.source);
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.entries.iter().any(|e| e.diagnostic.is_error())
    }

    fn contract_view(&self) -> Contract<'_> {
        let sorted = |d: &Diagnostic| serde_json::to_value(d).unwrap_or_default();
        let baselined = self.baseline.as_ref().map(|_| {
            let entries = self.baselined.iter();
            entries.map(|e| sorted(&e.diagnostic)).collect()
        });
        Contract {
            diagnostics: self.entries.iter().map(|e| sorted(&e.diagnostic)).collect(),
            errors: &self.errors,
            baselined,
        }
    }
}

impl Serialize for LintReport {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.contract_view().serialize(serializer)
    }
}

impl Report for LintReport {
    const NAME: &'static str = "lint";
    const FORMATS: &'static [Format] = Format::FINDINGS;
    type Contract = LintReport;

    fn contract(&self) -> &LintReport {
        self
    }

    fn context(&self, _format: Format) -> serde_json::Value {
        let entries: Vec<EntryContext> = self
            .entries
            .iter()
            .map(|entry| {
                let line = entry.diagnostic.line.unwrap_or_default();
                let column = entry.diagnostic.column.unwrap_or(1);
                EntryContext {
                    diagnostic: &entry.diagnostic,
                    excerpt: entry.excerpt.as_deref(),
                    gutter: " ".repeat(line.to_string().len()),
                    caret: " ".repeat(column.saturating_sub(1)),
                }
            })
            .collect();
        let errors = self
            .entries
            .iter()
            .filter(|e| e.diagnostic.is_error())
            .count();
        serde_json::json!({
            "entries": entries,
            "errors": errors,
            "warnings": self.entries.len() - errors,
            "files": self.files,
            "records": self.records,
            "unreadable": self.errors.len(),
            "baselined": self.baselined.len(),
            "baseline": self.baseline,
        })
    }

    /// The diagnostics, then those the baseline covers (suppressed).
    fn annotations(&self) -> Vec<Annotation> {
        let diagnostics = self.entries.iter().map(|entry| &entry.diagnostic);
        let reason = format!("in the baseline {}", self.baseline.as_deref().unwrap_or(""));
        let baselined = self.baselined.iter().map(|entry| Annotation {
            suppressed: Some((SuppressedBy::Baseline, reason.clone())),
            ..Annotation::from_diagnostic(&entry.diagnostic)
        });
        diagnostics
            .map(Annotation::from_diagnostic)
            .chain(baselined)
            .collect()
    }
}

/// The records and diagnostics of every input `parse` read: `{"records": [...],
/// "diagnostics": [...]}`, each record in the documented key order (docs/records.md).
#[derive(Serialize)]
pub struct ParseReport<'a> {
    records: Vec<RecordJson<'a>>,
    diagnostics: &'a [Diagnostic],
}

impl<'a> ParseReport<'a> {
    /// The report of these records and diagnostics.
    pub fn new(records: &'a [Record], diagnostics: &'a [Diagnostic]) -> ParseReport<'a> {
        ParseReport {
            records: records.iter().map(RecordJson).collect(),
            diagnostics,
        }
    }
}

impl Report for ParseReport<'_> {
    const NAME: &'static str = "parse";
    const FORMATS: &'static [Format] = &[Format::Json, Format::Yaml];
    type Contract = Self;

    fn contract(&self) -> &Self {
        self
    }
}
