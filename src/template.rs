//! Tera templates: the embedded ones, and a user's directory overriding them file by file.
//!
//! Everything `handoff` lays out is a template in `templates/`, embedded in the binary:
//! the canonical records (`record.md` and one per kind and type), the skeletons `new`
//! starts from (`new/`), and the report layouts of each command and format (`reports/`).
//! [`Templates::with_overrides`] replaces any of them with the file of the same relative
//! path in a user's directory (`--templates DIR`), so a team can change how a record
//! or a report looks without rebuilding.
//!
//! A template is compiled (with the templates it extends) the first time it is
//! rendered, and only then: compiling every layout up front cost a report 28 M
//! instructions.

use crate::escape;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Every embedded template: its path below `templates/`, and its text.
const EMBEDDED: &[(&str, &str)] = &[
    ("record.md", include_str!("../templates/record.md")),
    (
        "consultation.md",
        include_str!("../templates/consultation.md"),
    ),
    ("handoff.md", include_str!("../templates/handoff.md")),
    ("review.md", include_str!("../templates/review.md")),
    ("escalation.md", include_str!("../templates/escalation.md")),
    (
        "capability-request.md",
        include_str!("../templates/capability-request.md"),
    ),
    (
        "scope-expansion.md",
        include_str!("../templates/scope-expansion.md"),
    ),
    (
        "task-assignment.md",
        include_str!("../templates/task-assignment.md"),
    ),
    (
        "routing-decision.md",
        include_str!("../templates/routing-decision.md"),
    ),
    (
        "new/interaction.md",
        include_str!("../templates/new/interaction.md"),
    ),
    (
        "new/consultation.md",
        include_str!("../templates/new/consultation.md"),
    ),
    (
        "new/handoff.md",
        include_str!("../templates/new/handoff.md"),
    ),
    ("new/review.md", include_str!("../templates/new/review.md")),
    (
        "new/escalation.md",
        include_str!("../templates/new/escalation.md"),
    ),
    (
        "new/capability-request.md",
        include_str!("../templates/new/capability-request.md"),
    ),
    (
        "new/scope-expansion.md",
        include_str!("../templates/new/scope-expansion.md"),
    ),
    (
        "new/task-assignment.md",
        include_str!("../templates/new/task-assignment.md"),
    ),
    (
        "new/routing-decision.md",
        include_str!("../templates/new/routing-decision.md"),
    ),
    (
        "reports/audit.txt",
        include_str!("../templates/reports/audit.txt"),
    ),
    (
        "reports/audit.html",
        include_str!("../templates/reports/audit.html"),
    ),
    (
        "reports/audit.md",
        include_str!("../templates/reports/audit.md"),
    ),
    (
        "reports/check.txt",
        include_str!("../templates/reports/check.txt"),
    ),
    (
        "reports/check.md",
        include_str!("../templates/reports/check.md"),
    ),
    (
        "reports/classify.txt",
        include_str!("../templates/reports/classify.txt"),
    ),
    (
        "reports/contract-check.txt",
        include_str!("../templates/reports/contract-check.txt"),
    ),
    (
        "reports/contract-next.txt",
        include_str!("../templates/reports/contract-next.txt"),
    ),
    (
        "reports/explain.txt",
        include_str!("../templates/reports/explain.txt"),
    ),
    (
        "reports/lint.txt",
        include_str!("../templates/reports/lint.txt"),
    ),
    (
        "reports/page.html",
        include_str!("../templates/reports/page.html"),
    ),
    (
        "reports/route.md",
        include_str!("../templates/reports/route.md"),
    ),
    (
        "reports/message-check.txt",
        include_str!("../templates/reports/message-check.txt"),
    ),
    (
        "reports/trail-verify.txt",
        include_str!("../templates/reports/trail-verify.txt"),
    ),
    (
        "reports/trail-repair.txt",
        include_str!("../templates/reports/trail-repair.txt"),
    ),
    (
        "reports/trail-prune.txt",
        include_str!("../templates/reports/trail-prune.txt"),
    ),
    (
        "reports/trail-show.txt",
        include_str!("../templates/reports/trail-show.txt"),
    ),
    (
        "reports/trail-list.txt",
        include_str!("../templates/reports/trail-list.txt"),
    ),
    (
        "reports/trail-list.md",
        include_str!("../templates/reports/trail-list.md"),
    ),
    (
        "reports/trail-history.txt",
        include_str!("../templates/reports/trail-history.txt"),
    ),
    (
        "reports/trail-history.mmd",
        include_str!("../templates/reports/trail-history.mmd"),
    ),
    (
        "reports/policy.txt",
        include_str!("../templates/reports/policy.txt"),
    ),
];

/// Why a template could not be read, compiled or rendered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateError {
    /// A template file could not be read.
    #[error("{}: cannot read template: {source}", path.display())]
    Read {
        /// The template file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The `--templates` path is not a directory.
    #[error("{}: not a templates directory ({reason}); pass a directory holding templates named as in `templates/` (e.g. review.md), or leave out --templates", path.display())]
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
}

fn template_message(dir: &Option<PathBuf>, message: &str) -> String {
    match dir {
        Some(dir) => format!(
            "{}: template error: {message}\nfix that template (record templates see heading, \
             kind, type, rows, preamble and sections: docs/records.md; a report layout's \
             opening comment lists what it sees), or delete it to use the embedded one",
            dir.display()
        ),
        None => format!("template error: {message}"),
    }
}

/// The templates a command renders with: the embedded ones, some perhaps overridden.
pub struct Templates {
    sources: HashMap<&'static str, String>,
    /// The directory overriding the embedded templates, named in errors.
    dir: Option<PathBuf>,
    /// Each template compiled on first use, with the templates it extends.
    compiled: OnceLock<HashMap<&'static str, OnceLock<Result<tera::Tera, String>>>>,
}

impl Templates {
    /// The templates embedded in the binary.
    pub fn embedded() -> Templates {
        let sources = EMBEDDED
            .iter()
            .map(|(name, text)| (*name, text.to_string()))
            .collect();
        Templates::new(sources, None)
    }

    /// The embedded templates, each replaced by the file of the same relative path in
    /// `dir` when there is one. A `dir` that is missing or not a directory is refused (a
    /// mistyped path must not silently fall back to the embedded templates), and so is an
    /// overriding file that does not compile.
    pub fn with_overrides(dir: &Path) -> Result<Templates, TemplateError> {
        let not_a_directory = |reason: String| TemplateError::NotADirectory {
            path: dir.to_path_buf(),
            reason,
        };
        match std::fs::metadata(dir) {
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => return Err(not_a_directory("it is a file".to_string())),
            Err(error) => return Err(not_a_directory(error.to_string())),
        }
        let mut sources = HashMap::new();
        let mut overridden = Vec::new();
        for (name, embedded) in EMBEDDED {
            let path = dir.join(name);
            let text = if path.is_file() {
                overridden.push(*name);
                std::fs::read_to_string(&path)
                    .map_err(|source| TemplateError::Read { path, source })?
            } else {
                embedded.to_string()
            };
            sources.insert(*name, text);
        }
        let templates = Templates::new(sources, Some(dir.to_path_buf()));
        for name in overridden {
            templates.compiled(name)?;
        }
        Ok(templates)
    }

    /// [`Templates::with_overrides`] when a directory is given, else the embedded ones.
    pub fn from_option(dir: Option<&Path>) -> Result<Templates, TemplateError> {
        match dir {
            Some(dir) => Templates::with_overrides(dir),
            None => Ok(Templates::embedded()),
        }
    }

    fn new(sources: HashMap<&'static str, String>, dir: Option<PathBuf>) -> Templates {
        Templates {
            sources,
            dir,
            compiled: OnceLock::new(),
        }
    }

    /// Renders the template at `name` (a path below `templates/`) with `context`.
    pub fn render(&self, name: &str, context: &impl Serialize) -> Result<String, TemplateError> {
        let tera = self.compiled(name)?;
        let context = tera::Context::from_serialize(context).map_err(|e| self.error(e))?;
        tera.render(name, &context).map_err(|e| self.error(e))
    }

    /// The template at `name`, compiled with the templates it extends.
    fn compiled(&self, name: &str) -> Result<&tera::Tera, TemplateError> {
        let compiled = self.compiled.get_or_init(|| {
            EMBEDDED
                .iter()
                .map(|(name, _)| (*name, OnceLock::new()))
                .collect()
        });
        let Some(cell) = compiled.get(name) else {
            return Err(self.message(format!("no template named `{name}`")));
        };
        let tera = cell.get_or_init(|| self.compile(name).map_err(|e| error_chain(&e)));
        tera.as_ref()
            .map_err(|message| self.message(message.clone()))
    }

    fn compile(&self, name: &str) -> Result<tera::Tera, tera::Error> {
        let mut tera = tera::Tera::default();
        // Every value a report layout prints is escaped for its output kind.
        match name.rsplit_once('.') {
            Some((stem, "txt")) if stem.starts_with("reports/") => {
                tera.autoescape_on(vec![".txt"]);
                tera.set_escape_fn(escape::human_owned);
            }
            Some((stem, "md")) if stem.starts_with("reports/") => {
                tera.autoescape_on(vec![".md"]);
                tera.set_escape_fn(escape::markdown);
            }
            _ => tera.autoescape_on(Vec::new()),
        }
        register_filters(&mut tera);
        let mut chain = Vec::new();
        let mut next = Some(name);
        while let Some(current) = next.filter(|n| !chain.iter().any(|(c, _)| c == n)) {
            let text = self.sources.get(current).map_or("", String::as_str);
            chain.push((current.to_string(), text.to_string()));
            next = extended(text);
        }
        tera.add_raw_templates(chain)?;
        Ok(tera)
    }

    fn message(&self, message: String) -> TemplateError {
        TemplateError::Template {
            dir: self.dir.clone(),
            message,
        }
    }

    fn error(&self, error: tera::Error) -> TemplateError {
        self.message(error_chain(&error))
    }
}

/// Tera's error with every cause behind it (the causes hold the line and the reason).
fn error_chain(error: &tera::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

/// The template `text` extends (`{% extends "name" %}` before any other tag), if any.
fn extended(text: &str) -> Option<&str> {
    let start = text.find("{%")?;
    let tag = text[start + 2..].trim_start_matches('-').trim_start();
    let rest = tag.strip_prefix("extends")?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let name = &rest[1..];
    name.find(quote).map(|end| &name[..end])
}

/// The filters every template can use beside Tera's own.
fn register_filters(tera: &mut tera::Tera) {
    tera.register_filter("pad", pad);
    tera.register_filter("cell", Escaper(escape::markdown));
    tera.register_filter("code", Escaper(escape::code_span));
    tera.register_filter("human", Escaper(escape::human_owned));
    tera.register_filter("lines", Escaper(escape::human_lines));
}

/// A filter that escapes its value for one output kind ([`escape`]); its result is final
/// (not escaped again by the layout's autoescape):
/// - `{{ text | cell }}`: inert Markdown text, for a table cell or a list item;
/// - `{{ text | code }}`: the text as one whole Markdown code span;
/// - `{{ text | human }}`: control characters shown as escapes (e.g. in a code block);
/// - `{{ text | lines }}`: the same, its new lines kept (a text meant to span lines).
struct Escaper(fn(&str) -> String);

impl tera::Filter for Escaper {
    fn filter(
        &self,
        value: &tera::Value,
        _: &HashMap<String, tera::Value>,
    ) -> tera::Result<tera::Value> {
        let text = match value {
            tera::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        Ok(tera::Value::String((self.0)(&text)))
    }

    fn is_safe(&self) -> bool {
        true
    }
}

/// `{{ text | pad(width=9) }}`: the text, left-aligned in `width` characters.
fn pad(value: &tera::Value, args: &HashMap<String, tera::Value>) -> tera::Result<tera::Value> {
    let text = match value {
        tera::Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let width = args.get("width").and_then(tera::Value::as_u64).unwrap_or(0) as usize;
    Ok(tera::Value::String(format!("{text:<width$}")))
}
