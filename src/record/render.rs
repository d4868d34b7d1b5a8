//! Rendering a record to its canonical Markdown through Tera templates.
//!
//! The templates in `templates/` are embedded in the binary: a shared base
//! (`record.md`) and one per record kind and interaction type, each extending the base.
//! [`Templates::with_overrides`] replaces them file by file from a user's directory.
//!
//! Values reach the templates already escaped for their place: cells through
//! [`super::fields::encode_cell`], section titles backslash-escaped, bodies sanitized.
//! Templates are user input too, so [`render`] re-parses what a template produced and
//! refuses output that does not read back as the same record: no template or value can
//! inject a row, a heading or a decision.

use super::fields::encode_cell;
use super::{parse_document, Record};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Every embedded template (name, text), the base first.
const EMBEDDED: [(&str, &str); 9] = [
    ("record.md", include_str!("../../templates/record.md")),
    (
        "consultation.md",
        include_str!("../../templates/consultation.md"),
    ),
    ("handoff.md", include_str!("../../templates/handoff.md")),
    ("review.md", include_str!("../../templates/review.md")),
    (
        "escalation.md",
        include_str!("../../templates/escalation.md"),
    ),
    (
        "capability-request.md",
        include_str!("../../templates/capability-request.md"),
    ),
    (
        "scope-expansion.md",
        include_str!("../../templates/scope-expansion.md"),
    ),
    (
        "task-assignment.md",
        include_str!("../../templates/task-assignment.md"),
    ),
    (
        "routing-decision.md",
        include_str!("../../templates/routing-decision.md"),
    ),
];

/// Why a record could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A template could not be read.
    #[error("{path}: cannot read template: {source}")]
    Read {
        /// The template file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The `--templates` path is not a directory.
    #[error("{path}: not a templates directory ({reason}); pass a directory holding templates named as in `templates/` (e.g. review.md), or leave out --templates")]
    NotADirectory {
        /// The path given.
        path: PathBuf,
        /// Why it is not one.
        reason: String,
    },
    /// A template does not compile or fails to render.
    #[error("{}", template_message(.dir, .message))]
    Template {
        /// The `--templates` directory, when the templates came from one.
        dir: Option<PathBuf>,
        /// Tera's explanation, with the template name and line.
        message: String,
    },
    /// The output does not read back as the record (a broken or hostile template).
    #[error("template `{template}` produced Markdown that does not read back as the record: {difference}")]
    Mismatch {
        /// The template used.
        template: String,
        /// What differs.
        difference: String,
    },
}

fn template_message(dir: &Option<PathBuf>, message: &str) -> String {
    match dir {
        Some(dir) => format!(
            "{}: template error: {message}\nfix that template (templates see heading, kind, \
             type, rows, preamble and sections: docs/records.md), or delete it to use the \
             embedded one",
            dir.display()
        ),
        None => format!("template error: {message}"),
    }
}

/// The set of templates records are rendered with.
pub struct Templates {
    tera: tera::Tera,
    /// The directory overriding the embedded templates, named in errors.
    dir: Option<PathBuf>,
}

impl Templates {
    /// The templates embedded in the binary.
    pub fn embedded() -> Templates {
        Templates::build(
            None,
            EMBEDDED
                .iter()
                .map(|(name, text)| (name.to_string(), text.to_string()))
                .collect(),
        )
        .unwrap_or_else(|_| Templates {
            tera: tera::Tera::default(),
            dir: None,
        })
    }

    /// The embedded templates, each replaced by the file of the same name in `dir` when
    /// there is one.
    /// A `dir` that is missing or not a directory is refused: a mistyped path must not
    /// silently fall back to the embedded templates.
    pub fn with_overrides(dir: &Path) -> Result<Templates, RenderError> {
        let not_a_directory = |reason: String| RenderError::NotADirectory {
            path: dir.to_path_buf(),
            reason,
        };
        match std::fs::metadata(dir) {
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => return Err(not_a_directory("it is a file".to_string())),
            Err(error) => return Err(not_a_directory(error.to_string())),
        }
        let mut sources = Vec::new();
        for (name, embedded) in EMBEDDED {
            let path = dir.join(name);
            let text = if path.is_file() {
                std::fs::read_to_string(&path)
                    .map_err(|source| RenderError::Read { path, source })?
            } else {
                embedded.to_string()
            };
            sources.push((name.to_string(), text));
        }
        Templates::build(Some(dir.to_path_buf()), sources)
    }

    fn build(
        dir: Option<PathBuf>,
        sources: Vec<(String, String)>,
    ) -> Result<Templates, RenderError> {
        let mut tera = tera::Tera::default();
        tera.autoescape_on(Vec::new());
        tera.add_raw_templates(sources)
            .map_err(|error| template_error(&dir, error))?;
        Ok(Templates { tera, dir })
    }
}

fn template_error(dir: &Option<PathBuf>, error: tera::Error) -> RenderError {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    RenderError::Template {
        dir: dir.clone(),
        message,
    }
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
    let error = |error| template_error(&templates.dir, error);
    let context = tera::Context::from_serialize(context_of(&canonical)).map_err(error)?;
    let output = templates.tera.render(name, &context).map_err(error)?;
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
            Err(RenderError::Template { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
