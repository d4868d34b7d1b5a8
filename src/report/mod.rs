//! Reports: every command's result as a library type, written in the format asked for.
//!
//! A [`Report`] has a documented JSON contract (its serde form) and a layout per format
//! it supports. [`write`] is the one reporter per [`Format`]: JSON and YAML serialize the
//! contract; human and Markdown render the report's layout template
//! (`templates/reports/NAME.txt`, `NAME.md`) with the report's [`Report::context`]; HTML
//! renders the Markdown layout and places it in one self-contained page
//! (`templates/reports/page.html`: inline CSS, no scripts, no external assets). Layouts are
//! templates a user can override (`--templates DIR`, file `reports/NAME.txt` …).
//!
//! Every value a layout prints is escaped for its output kind ([`crate::escape`]): a `.txt`
//! layout's values show control characters as escapes, a `.md` layout's are inert
//! Markdown, so a file name cannot forge a verdict line or a heading. A layout opts out
//! only for text it built itself (`| safe`), and places a value in a code span with
//! `| code` and in a code block with `| human`.
//!
//! The CI formats write a report's findings ([`Report::annotations`]): SARIF 2.1.0
//! ([`sarif`]) and GitHub workflow commands ([`github`]).
//!
//! A new format is a new [`Format`] and one arm of [`write`]; a command offers it by
//! adding it to its report's [`Report::FORMATS`].

mod annotation;
mod audit;
mod check;
mod classify;
mod contract;
mod explain;
mod format;
mod github;
mod lint;
mod message;
mod policy;
mod route;
mod sarif;
mod trail;
mod views;

pub use annotation::{Annotation, Level};
pub use audit::AuditHeader;
pub use audit::{apply_baseline as apply_audit_baseline, AuditReport};
pub use check::CheckReport;
pub use classify::ClassifyReport;
pub use contract::{ContractCheckReport, ContractNextReport};
pub use explain::ExplainReport;
pub use format::Format;
pub use lint::{LintReport, ParseReport};
pub use message::MessageCheckReport;
pub use policy::PolicyReport;
pub use route::{RouteContract, RouteReport};
pub use trail::{
    appended_line, deferred_line, event_line, imported_text, write_query, PruneReport,
    RepairReport, VerifyReport,
};
pub use views::{HandoffHistory, HistoryReport, ListReport, ShowReport};

use crate::template::{TemplateError, Templates};
use serde::Serialize;

/// A command's result, in every format it can be written in.
pub trait Report {
    /// The layout's name: `templates/reports/NAME.txt` for human, `NAME.md` for Markdown.
    const NAME: &'static str;
    /// The formats it can be written in, the default first.
    const FORMATS: &'static [Format];
    /// The documented JSON form.
    type Contract: Serialize + ?Sized;
    /// Whether the report lays out its own HTML page (`templates/reports/NAME.html`)
    /// rather than its Markdown layout inside the shared page.
    const OWN_PAGE: bool = false;

    /// What JSON and YAML serialize.
    fn contract(&self) -> &Self::Contract;

    /// What the layout of `format` sees (by default, the JSON form).
    fn context(&self, _format: Format) -> serde_json::Value {
        serde_json::to_value(self.contract()).unwrap_or_default()
    }

    /// The findings, for the CI formats (`sarif`, `github`); a report that offers them
    /// lists every finding here.
    fn annotations(&self) -> Vec<Annotation> {
        Vec::new()
    }
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The format is not one this report offers.
    #[error("the {report} report has no {format} format; use one of: {allowed}")]
    Unsupported {
        /// The report.
        report: &'static str,
        /// The format asked for.
        format: Format,
        /// The formats it has.
        allowed: String,
    },
    /// The contract does not serialize (a bug, reported rather than hidden).
    #[error("cannot write the {0}")]
    Serialize(String),
    /// A layout template failed.
    #[error(transparent)]
    Template(#[from] TemplateError),
}

/// Writes `report` in `format`, laid out with `templates`.
pub fn write<R: Report>(
    report: &R,
    format: Format,
    templates: &Templates,
) -> Result<String, ReportError> {
    if !R::FORMATS.contains(&format) {
        return Err(ReportError::Unsupported {
            report: R::NAME,
            format,
            allowed: names(R::FORMATS),
        });
    }
    let serialize = |what: &str, error: &dyn std::fmt::Display| {
        ReportError::Serialize(format!("{} as {what}: {error}", R::NAME))
    };
    match format {
        Format::Json => serde_json::to_string_pretty(report.contract())
            .map(|text| text + "\n")
            .map_err(|e| serialize("JSON", &e)),
        Format::Yaml => yaml_serde::to_string(report.contract()).map_err(|e| serialize("YAML", &e)),
        Format::Sarif => serde_json::to_string_pretty(&sarif::log(R::NAME, &report.annotations()))
            .map(|text| text + "\n")
            .map_err(|e| serialize("SARIF", &e)),
        Format::Github => Ok(github::commands(R::NAME, &report.annotations())),
        Format::Html if R::OWN_PAGE => layout(report, format, templates),
        Format::Html => {
            let markdown = layout(report, Format::Markdown, templates)?;
            Ok(html_page(
                &format!("handoff {}", R::NAME),
                &markdown,
                templates,
            )?)
        }
        _ => layout(report, format, templates),
    }
}

/// The formats, comma-separated.
pub fn names(formats: &[Format]) -> String {
    let names: Vec<&str> = formats.iter().map(|format| format.as_str()).collect();
    names.join(", ")
}

fn layout<R: Report>(
    report: &R,
    format: Format,
    templates: &Templates,
) -> Result<String, ReportError> {
    let name = format!("reports/{}.{}", R::NAME, format.template_extension());
    Ok(templates.render(&name, &report.context(format))?)
}

/// One self-contained HTML page: the Markdown rendered by comrak (GFM tables; raw HTML
/// in the input is never passed through), in the page template.
fn html_page(title: &str, markdown: &str, templates: &Templates) -> Result<String, TemplateError> {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    let body = comrak::markdown_to_html(markdown, &options);
    templates.render(
        "reports/page.html",
        &serde_json::json!({ "title": title, "body": body }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_self_contained() {
        let markdown = "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<img src=\"http://x/y.png\">\n";
        let page = html_page("t", markdown, &Templates::embedded()).expect("a page");
        assert!(page.contains("<table>") && page.contains("<td>1</td>"));
        assert!(!page.contains("http://"), "{page}");
    }
}
