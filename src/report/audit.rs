//! `handoff audit`: the routing findings and the summary a team lead reads first, for a
//! terminal, as Markdown, or as one HTML page.

mod page;

pub use page::AuditHeader;

use super::{Annotation, Format, Report};
use crate::diagnostic::{Diagnostic, RoutingCode, Severity};
use crate::escape;
use crate::routing::summary::AuditReport as Audit;
use crate::routing::summary::Baselined;
use crate::routing::Registry;
use crate::suppress::{Baseline, SuppressedBy};
use crate::trail::TrailSummary;
use serde::Serialize;

/// An audit, with what the layouts say about its inputs.
pub struct AuditReport<'a> {
    /// The audit (the JSON contract).
    pub audit: &'a Audit,
    /// How many files the records came from.
    pub files: usize,
    /// The registry decisions were re-derived against, if any.
    pub registry: Option<&'a Registry>,
    /// The trail summarised, for the HTML page.
    pub trail: Option<&'a TrailSummary>,
    /// The HTML page's header: the date, the commit, the inputs.
    pub header: Option<AuditHeader>,
}

#[derive(Serialize)]
struct Context<'a> {
    audit: &'a Audit,
    files: usize,
    /// Which registry was used, in one phrase.
    registry: String,
    errors: usize,
    warnings: usize,
    /// Every routing code, for the legend.
    routing_codes: &'static [RoutingCode],
    /// The summary tables of the Markdown layout, in order.
    tables: Vec<Table>,
    /// The rows of the findings table.
    finding_rows: Vec<Vec<String>>,
    /// The rows of the table of records that fail lint.
    lint_rows: Vec<Vec<String>>,
}

/// A titled table: its header and rows (cells as Markdown: values escaped by
/// [`escape::markdown`], around the report's own markup).
#[derive(Serialize)]
struct Table {
    title: &'static str,
    header: &'static [&'static str],
    rows: Vec<Vec<String>>,
}

impl Report for AuditReport<'_> {
    const NAME: &'static str = "audit";
    const FORMATS: &'static [Format] = &[
        Format::Human,
        Format::Json,
        Format::Yaml,
        Format::Markdown,
        Format::Html,
        Format::Sarif,
        Format::Github,
    ];
    type Contract = Audit;
    const OWN_PAGE: bool = true;

    fn contract(&self) -> &Audit {
        self.audit
    }

    fn context(&self, format: Format) -> serde_json::Value {
        if format == Format::Html {
            return page::context(self);
        }
        let registry = match self.registry {
            Some(registry) => format!(
                "registry `{}` ({}, {} agents)",
                registry.path().display(),
                registry.layout().describe(),
                registry.agents().count()
            ),
            None => "no registry (routing decisions checked for load-balancing only)".to_string(),
        };
        let context = Context {
            audit: self.audit,
            files: self.files,
            registry,
            errors: self.audit.error_count(),
            warnings: self.audit.warning_count(),
            routing_codes: RoutingCode::ALL,
            tables: summary_tables(self.audit),
            finding_rows: finding_rows(self.audit),
            lint_rows: lint_rows(self.audit),
        };
        serde_json::to_value(context).unwrap_or_default()
    }

    /// The routing findings, then the lint errors of the records that fail lint.
    /// The findings and lint errors, then those the baseline covers (suppressed).
    fn annotations(&self) -> Vec<Annotation> {
        let findings = self.audit.findings.iter().map(|f| &f.finding);
        let lint = self.audit.lint_failures.iter().flat_map(|f| &f.errors);
        let counted = findings.chain(lint).map(Annotation::from_diagnostic);
        let baselined = self.audit.baselined.iter().flat_map(|baselined| {
            let reason = format!("in the baseline {}", baselined.baseline);
            let findings = baselined.findings.iter().map(|f| &f.finding);
            findings
                .chain(&baselined.lint_errors)
                .map(move |diagnostic| Annotation {
                    suppressed: Some((SuppressedBy::Baseline, reason.clone())),
                    ..Annotation::from_diagnostic(diagnostic)
                })
        });
        counted.chain(baselined).collect()
    }
}

/// Moves the routing findings and lint errors `baseline` covers out of `audit`'s counts
/// into its `baselined` part; each entry of the baseline covers one.
pub fn apply_baseline(audit: &mut Audit, mut baseline: Baseline) {
    let mut covers = |diagnostic: &Diagnostic| {
        baseline.take(&Annotation::from_diagnostic(diagnostic).fingerprint())
    };
    let (findings, kept) = std::mem::take(&mut audit.findings)
        .into_iter()
        .partition(|f| covers(&f.finding));
    audit.findings = kept;
    let mut lint_errors = Vec::new();
    for failure in &mut audit.lint_failures {
        let (covered, kept) = std::mem::take(&mut failure.errors)
            .into_iter()
            .partition(|d| covers(d));
        failure.errors = kept;
        lint_errors.extend::<Vec<Diagnostic>>(covered);
    }
    audit
        .lint_failures
        .retain(|failure| !failure.errors.is_empty());
    audit.baselined = Some(Baselined {
        baseline: baseline.source,
        findings,
        lint_errors,
    });
}

fn table(title: &'static str, header: &'static [&'static str], rows: Vec<Vec<String>>) -> Table {
    Table {
        title,
        header,
        rows,
    }
}

/// Two-column rows: a label and its count.
fn label_rows<'a>(counts: impl IntoIterator<Item = (&'a str, usize)>) -> Vec<Vec<String>> {
    counts
        .into_iter()
        .map(|(label, count)| vec![escape::markdown(label), count.to_string()])
        .collect()
}

fn summary_tables(audit: &Audit) -> Vec<Table> {
    let counted = |map: &std::collections::BTreeMap<&'static str, usize>| {
        label_rows(map.iter().map(|(label, count)| (*label, *count)))
    };
    let routing = audit.routing;
    let risk = audit.tasks_by_risk;
    let scope = audit.scope_expansions;
    let escalations = audit
        .escalations
        .iter()
        .map(|e| {
            vec![
                e.failure_type.to_string(),
                e.orchestrator_action.to_string(),
                e.total.to_string(),
                e.decided.to_string(),
            ]
        })
        .collect();
    vec![
        table(
            "Routing decisions",
            &["Status", "Decisions"],
            label_rows([
                ("Compliant", routing.compliant),
                ("Non-compliant", routing.non_compliant),
                ("Unverified", routing.unverified),
            ]),
        ),
        table(
            "Records by kind",
            &["Kind", "Records"],
            counted(&audit.by_kind),
        ),
        table(
            "Interaction Records by type",
            &["Type", "Records"],
            counted(&audit.by_type),
        ),
        table(
            "Tasks by risk class",
            &["Risk class", "Tasks"],
            label_rows([
                ("low", risk.low),
                ("medium", risk.medium),
                ("high", risk.high),
                ("unclassified", risk.unclassified),
            ]),
        ),
        table(
            "Escalations",
            &[
                "Failure type",
                "Orchestrator action",
                "Escalations",
                "Decided",
            ],
            escalations,
        ),
        table(
            "Scope expansions",
            &["Decision", "Requests"],
            label_rows([
                ("Approved", scope.approved),
                ("Rejected", scope.rejected),
                ("Undecided", scope.undecided),
            ]),
        ),
        table("Reviews", &["Decision", "Reviews"], counted(&audit.reviews)),
    ]
}

fn finding_rows(audit: &Audit) -> Vec<Vec<String>> {
    audit
        .findings
        .iter()
        .map(|f| {
            let severity = match f.finding.severity {
                Severity::Error => "**error**",
                Severity::Warning => "warning",
            };
            vec![
                severity.to_string(),
                escape::code_span(&f.finding.code.to_string()),
                escape::markdown(f.task_id.as_deref().unwrap_or_default()),
                escape::markdown(&f.finding.location()),
                escape::markdown(&f.finding.message),
            ]
        })
        .collect()
}

fn lint_rows(audit: &Audit) -> Vec<Vec<String>> {
    audit
        .lint_failures
        .iter()
        .map(|f| {
            let errors: Vec<String> = f
                .errors
                .iter()
                .map(|d| {
                    let line = d.line.unwrap_or_default();
                    escape::markdown(&format!("line {line}: `{}` {}", d.code, d.message))
                })
                .collect();
            vec![
                escape::markdown(&format!("{}:{}", f.source, f.line)),
                escape::markdown(f.kind.unwrap_or("-")),
                escape::markdown(f.task_id.as_deref().unwrap_or_default()),
                errors.join("<br>"),
            ]
        })
        .collect()
}
