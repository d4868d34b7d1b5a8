//! `handoff audit`: re-derive recorded routing decisions and summarise the records.
//!
//! Formats: `human` (findings as `path:line: severity[kind]`, then the summary), `md`
//! (a Markdown report), `html` (that report rendered by comrak into one self-contained
//! page: inline CSS, no scripts, no external assets) and `json` (the documented
//! contract). Exit 0 when no error was found, 1 when a routing finding or a lint error
//! is an error, 2 when an input or the registry cannot be read.

use super::inputs::expand;
use super::output::write_stdout;
use super::route::load;
use super::{Failure, Outcome};
use handoff::diagnostic::{RoutingCode, Severity};
use handoff::record::parse_document;
use handoff::routing::audit::Reference;
use handoff::routing::summary::{audit_documents, AuditReport};
use handoff::routing::Registry;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `handoff audit`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Record files or directories (every `.md` below them); `-` or nothing is standard input.
    paths: Vec<PathBuf>,
    /// The agent registry to re-derive routing decisions against.
    #[arg(long, value_name = "PATH")]
    registry: Option<PathBuf>,
    /// The aliases file (default: `capability-aliases.yaml` inside or next to the registry).
    #[arg(long, value_name = "FILE", requires = "registry")]
    aliases: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// How `handoff audit` prints its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Findings one per line, then the summary.
    Human,
    /// A Markdown report.
    Md,
    /// The report as JSON (see docs/routing.md).
    Json,
    /// One self-contained HTML page.
    Html,
}

/// Reads the records, audits them and prints the report.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let reference = match &args.registry {
        Some(path) => Some(load(path, args.aliases.as_deref())?),
        None => None,
    };
    let mut documents = Vec::new();
    for input in expand(&args.paths) {
        let input = input?;
        let text = input.read()?;
        documents.push(parse_document(&input.name(), &text));
    }
    let report = audit_documents(
        &documents,
        reference
            .as_ref()
            .map(|(registry, aliases)| Reference { registry, aliases }),
    );
    let context = Context {
        files: documents.len(),
        registry: reference.as_ref().map(|(registry, _)| registry),
    };
    let text = match args.format {
        Format::Human => human(&report, &context),
        Format::Md => markdown(&report, &context),
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        Format::Html => html_page(&markdown(&report, &context)),
    };
    write_stdout(&text)?;
    Ok(match report.error_count() {
        0 => Outcome::Ok,
        _ => Outcome::Findings,
    })
}

/// What the report says about its inputs.
struct Context<'a> {
    files: usize,
    registry: Option<&'a Registry>,
}

impl Context<'_> {
    fn registry_line(&self) -> String {
        match self.registry {
            Some(registry) => format!(
                "registry `{}` ({}, {} agents)",
                registry.path().display(),
                registry.layout().describe(),
                registry.agents().count()
            ),
            None => "no registry (routing decisions checked for load-balancing only)".to_string(),
        }
    }
}

fn human(report: &AuditReport, context: &Context<'_>) -> String {
    let mut text = String::new();
    for f in &report.findings {
        let task = f.task_id.as_deref().unwrap_or("-");
        let _ = writeln!(
            text,
            "{}: {}[{}] {task}: {}",
            f.finding.location(),
            f.finding.severity,
            f.finding.code,
            f.finding.message
        );
    }
    for failure in &report.lint_failures {
        for d in &failure.errors {
            let _ = writeln!(text, "{}: error[{}]: {}", d.location(), d.code, d.message);
        }
    }
    if !text.is_empty() {
        text.push('\n');
    }
    let _ = writeln!(
        text,
        "{} record(s) in {} file(s); {}",
        report.records,
        context.files,
        context.registry_line()
    );
    let _ = writeln!(text, "records by kind: {}", counts(&report.by_kind));
    let _ = writeln!(
        text,
        "interaction records by type: {}",
        counts(&report.by_type)
    );
    let risk = report.tasks_by_risk;
    let _ = writeln!(
        text,
        "tasks by risk class: low {}, medium {}, high {}, unclassified {}",
        risk.low, risk.medium, risk.high, risk.unclassified
    );
    for e in &report.escalations {
        let _ = writeln!(
            text,
            "escalations, {}: {} ({} decided) -> {}",
            e.failure_type, e.total, e.decided, e.orchestrator_action
        );
    }
    let scope = report.scope_expansions;
    let _ = writeln!(
        text,
        "scope expansions: {} approved, {} rejected, {} undecided",
        scope.approved, scope.rejected, scope.undecided
    );
    let _ = writeln!(text, "reviews by decision: {}", counts(&report.reviews));
    let routing = report.routing;
    let _ = writeln!(
        text,
        "routing decisions: {} compliant, {} non-compliant, {} unverified",
        routing.compliant, routing.non_compliant, routing.unverified
    );
    let _ = writeln!(text, "records failing lint: {}", report.lint_failures.len());
    let _ = writeln!(
        text,
        "{} error(s), {} warning(s)",
        report.error_count(),
        report.warning_count()
    );
    text
}

fn counts(map: &std::collections::BTreeMap<&'static str, usize>) -> String {
    match map.is_empty() {
        true => "none".to_string(),
        false => map
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The Markdown report: a headline, the summary tables, the findings, the lint failures.
fn markdown(report: &AuditReport, context: &Context<'_>) -> String {
    let mut md = String::from("# Audit report\n\n");
    let _ = writeln!(
        md,
        "{} record(s) in {} file(s); {}. **{} error(s), {} warning(s).**\n",
        report.records,
        context.files,
        context.registry_line(),
        report.error_count(),
        report.warning_count()
    );
    md.push_str("## Summary\n\n");
    summary_tables(report, &mut md);
    findings_section(report, &mut md);
    lint_section(report, &mut md);
    md
}

fn summary_tables(report: &AuditReport, md: &mut String) {
    let routing = report.routing;
    let rows = [
        ("Compliant", routing.compliant),
        ("Non-compliant", routing.non_compliant),
        ("Unverified", routing.unverified),
    ];
    table(
        md,
        "Routing decisions",
        &["Status", "Decisions"],
        label_rows(rows),
    );
    table(
        md,
        "Records by kind",
        &["Kind", "Records"],
        count_rows(&report.by_kind),
    );
    table(
        md,
        "Interaction Records by type",
        &["Type", "Records"],
        count_rows(&report.by_type),
    );
    let risk = report.tasks_by_risk;
    let risk_rows = [
        ("low", risk.low),
        ("medium", risk.medium),
        ("high", risk.high),
        ("unclassified", risk.unclassified),
    ];
    table(
        md,
        "Tasks by risk class",
        &["Risk class", "Tasks"],
        label_rows(risk_rows),
    );
    let escalations = report.escalations.iter().map(|e| {
        vec![
            e.failure_type.to_string(),
            e.orchestrator_action.to_string(),
            e.total.to_string(),
            e.decided.to_string(),
        ]
    });
    table(
        md,
        "Escalations",
        &[
            "Failure type",
            "Orchestrator action",
            "Escalations",
            "Decided",
        ],
        escalations,
    );
    let scope = report.scope_expansions;
    let scope_rows = [
        ("Approved", scope.approved),
        ("Rejected", scope.rejected),
        ("Undecided", scope.undecided),
    ];
    table(
        md,
        "Scope expansions",
        &["Decision", "Requests"],
        label_rows(scope_rows),
    );
    table(
        md,
        "Reviews",
        &["Decision", "Reviews"],
        count_rows(&report.reviews),
    );
}

fn findings_section(report: &AuditReport, md: &mut String) {
    md.push_str("## Routing findings\n\n");
    if report.findings.is_empty() {
        md.push_str("No routing finding.\n\n");
        return;
    }
    let rows = report.findings.iter().map(|f| {
        vec![
            match f.finding.severity {
                Severity::Error => "**error**".to_string(),
                Severity::Warning => "warning".to_string(),
            },
            format!("`{}`", f.finding.code),
            f.task_id.clone().unwrap_or_default(),
            f.finding.location(),
            f.finding.message.clone(),
        ]
    });
    write_table(
        md,
        &["Severity", "Finding", "Task", "Where", "Detail"],
        rows,
    );
    let legend: Vec<String> = RoutingCode::ALL.iter().map(|k| format!("`{k}`")).collect();
    let _ = writeln!(md, "Finding kinds: {}.\n", legend.join(", "));
}

fn lint_section(report: &AuditReport, md: &mut String) {
    md.push_str("## Records that fail lint\n\n");
    if report.lint_failures.is_empty() {
        md.push_str("Every record passes lint.\n\n");
        return;
    }
    let rows = report.lint_failures.iter().map(|f| {
        let errors: Vec<String> = f
            .errors
            .iter()
            .map(|d| {
                let line = d.line.unwrap_or_default();
                format!("line {line}: `{}` {}", d.code, d.message)
            })
            .collect();
        vec![
            format!("{}:{}", f.source, f.line),
            f.kind.unwrap_or("-").to_string(),
            f.task_id.clone().unwrap_or_default(),
            errors.join("\n"),
        ]
    });
    write_table(md, &["Where", "Record", "Task", "Errors"], rows);
}

fn count_rows(map: &std::collections::BTreeMap<&'static str, usize>) -> Vec<Vec<String>> {
    label_rows(map.iter().map(|(label, count)| (*label, *count)))
}

/// Two-column rows: a label and its count.
fn label_rows<'a>(counts: impl IntoIterator<Item = (&'a str, usize)>) -> Vec<Vec<String>> {
    counts
        .into_iter()
        .map(|(label, count)| vec![label.to_string(), count.to_string()])
        .collect()
}

/// A `###` titled table, or "None." when there are no rows.
fn table(
    md: &mut String,
    title: &str,
    header: &[&str],
    rows: impl IntoIterator<Item = Vec<String>>,
) {
    let _ = writeln!(md, "### {title}\n");
    let rows: Vec<Vec<String>> = rows.into_iter().collect();
    if rows.is_empty() {
        md.push_str("None.\n\n");
        return;
    }
    write_table(md, header, rows);
}

fn write_table(md: &mut String, header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    let _ = writeln!(md, "| {} |", header.join(" | "));
    let _ = writeln!(md, "|{}", "---|".repeat(header.len()));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|cell| escape_cell(cell)).collect();
        let _ = writeln!(md, "| {} |", cells.join(" | "));
    }
    md.push('\n');
}

/// Makes text safe inside a GFM table cell: `|` escaped, line breaks as `<br>`, and
/// `<` / `>` as entities so record text cannot open HTML.
fn escape_cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace("\r\n", "<br>")
        .replace(['\n', '\r'], "<br>")
}

const STYLE: &str = "body{font:15px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1f2328;background:#f6f8fa;margin:0}\
main{max-width:1180px;margin:0 auto;padding:24px 32px;background:#fff;min-height:100vh}\
h1{border-bottom:2px solid #d0d7de;padding-bottom:8px}h2{margin-top:32px;border-bottom:1px solid #d0d7de;padding-bottom:4px}\
h3{margin:20px 0 8px;font-size:16px}table{border-collapse:collapse;margin:0 0 12px;font-size:14px}\
th,td{border:1px solid #d0d7de;padding:5px 10px;text-align:left;vertical-align:top}th{background:#f0f3f6}\
tr:nth-child(even) td{background:#fafbfc}td:not(:last-child){white-space:nowrap}code{background:#eff1f3;padding:1px 4px;border-radius:4px;font-size:13px}\
strong{color:#b42318}";

/// One self-contained HTML page: the Markdown rendered by comrak (GFM tables; raw HTML
/// in the input is never passed through), with inline CSS and nothing external.
fn html_page(markdown: &str) -> String {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    let body = comrak::markdown_to_html(markdown, &options);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>handoff audit</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table_or_open_html() {
        assert_eq!(escape_cell("a|b\n<script>"), "a\\|b<br>&lt;script&gt;");
    }

    #[test]
    fn the_page_is_self_contained() {
        let page =
            html_page("# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<img src=\"http://x/y.png\">\n");
        assert!(page.contains("<table>") && page.contains("<td>1</td>"));
        assert!(!page.contains("http://"), "{page}");
    }
}
