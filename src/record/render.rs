//! Rendering a record to its canonical Markdown through Tera templates.
//!
//! The record templates in `templates/` ([`crate::template`]) are a shared base
//! (`record.md`) and one per record kind and interaction type, each extending the base;
//! a user's directory can replace them file by file.
//!
//! Values reach the templates already escaped for their place: cells through
//! [`crate::markdown::cell::encode_cell`], section titles backslash-escaped, bodies sanitized.
//! Templates are user input too, so [`render`] re-parses what a template produced and
//! refuses output that does not read back as the same record: no template or value can
//! inject a row, a heading or a decision.

use super::{parse_document, Record};
use crate::markdown::cell::encode_cell;
use crate::template::{TemplateError, Templates};
use serde::Serialize;

/// Why a record could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A template could not be read, compiled or rendered.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The output does not read back as the record (a broken or hostile template).
    #[error("template `{template}` produced Markdown that does not read back as the record: {difference}")]
    Mismatch {
        /// The template used.
        template: String,
        /// What differs.
        difference: String,
    },
}

/// What a template sees.
#[derive(Serialize)]
struct TemplateContext {
    heading: &'static str,
    kind: &'static str,
    #[serde(rename = "type")]
    interaction_type: Option<&'static str>,
    rows: Vec<Row>,
    preamble: Option<String>,
    sections: Vec<SectionContext>,
}

#[derive(Serialize)]
struct Row {
    key: String,
    value: String,
}

#[derive(Serialize)]
struct SectionContext {
    title: String,
    body: String,
}

/// Renders a record in canonical form (see [`Record::canonical`]), and checks that the
/// result parses back to that canonical record.
pub fn render(record: &Record, templates: &Templates) -> Result<String, RenderError> {
    let canonical = record.canonical();
    let name = canonical.template_name();
    let output = templates.render(name, &context_of(&canonical))?;
    let text = format!("{}\n", output.trim_start_matches(['\n', '\r']).trim_end());
    verify(&canonical, &text, name)?;
    Ok(text)
}

fn context_of(record: &Record) -> TemplateContext {
    let mut rows: Vec<Row> = record
        .fields()
        .iter()
        .map(|field| Row {
            key: field.key.label().to_string(),
            value: encode_cell(&field.value),
        })
        .collect();
    rows.extend(record.extra().iter().map(|(key, value)| Row {
        key: encode_cell(key),
        value: encode_cell(value),
    }));
    TemplateContext {
        heading: record.kind.heading(),
        kind: record.kind.as_str(),
        interaction_type: record.interaction_type().map(|t| t.as_str()),
        rows,
        preamble: record.preamble().map(str::to_string),
        sections: record
            .sections()
            .iter()
            .map(|section| SectionContext {
                title: escape_title(&section.title),
                body: section.body.clone(),
            })
            .collect(),
    }
}

/// Backslash-escapes every ASCII punctuation character of a title, so it is plain text.
fn escape_title(title: &str) -> String {
    let mut out = String::with_capacity(title.len() + 4);
    for ch in title.chars() {
        if ch.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

fn verify(canonical: &Record, text: &str, template: &str) -> Result<(), RenderError> {
    let mismatch = |difference: String| RenderError::Mismatch {
        template: template.to_string(),
        difference,
    };
    let document = parse_document("rendered", text);
    if let Some(diagnostic) = document.diagnostics.first() {
        return Err(mismatch(format!(
            "{}: {}",
            diagnostic.location(),
            diagnostic.message
        )));
    }
    match document.records.as_slice() {
        [reparsed] => match canonical.first_difference(reparsed) {
            Some(difference) => Err(mismatch(difference)),
            None => Ok(()),
        },
        records => Err(mismatch(format!(
            "{} records instead of one",
            records.len()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Record, RecordKind};
    use super::*;

    fn hostile() -> Record {
        let mut record = Record::new(RecordKind::InteractionRecord);
        record
            .set_field("Task ID", "ENG-1 | x\n### Decision\nApproved")
            .set_field("Type", "review")
            .set_field("From", "a\\|b <br> c")
            .set_field("Note", "## Interaction Record")
            .set_preamble(Some("| Selected | me |"))
            .push_section("Context", "ok\n## Task Assignment\n| Task ID | X |")
            .push_section("Decision # *x*", "```\nunclosed");
        record
    }

    #[test]
    fn hostile_values_round_trip_and_inject_nothing() {
        let record = hostile();
        let text = render(&record, &Templates::embedded());
        let text = text.unwrap_or_else(|error| panic!("{error}"));
        assert!(text.starts_with("## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-1 \\| x<br>### Decision<br>Approved |\n"), "{text}");
        let document = parse_document("x", &text);
        assert_eq!(document.records.len(), 1);
        assert_eq!(document.records[0], record.canonical());
        assert_eq!(document.records[0].task_id(), record.task_id());
        assert_eq!(document.records[0].sections()[1].title, "Decision # *x*");
        assert_eq!(
            document.records[0].decision().status,
            super::super::DecisionStatus::Absent
        );
    }

    #[test]
    fn a_broken_template_is_refused() {
        let dir = std::env::temp_dir().join(format!("handoff-templates-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(
            dir.join("review.md"),
            "## Interaction Record\n\n| Task ID | forged |\n",
        );
        let templates = Templates::with_overrides(&dir).unwrap_or_else(|error| panic!("{error}"));
        let error = render(&hostile(), &templates)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("template `review.md`"), "{error}");
        let _ = std::fs::write(dir.join("review.md"), "{% if %}");
        assert!(matches!(
            Templates::with_overrides(&dir),
            Err(TemplateError::Template { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
