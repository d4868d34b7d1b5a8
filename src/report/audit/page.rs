//! The audit page (`handoff audit --format html`, layout `reports/audit.html`): what
//! its layout sees. Findings come first, errors before warnings, each with a link to
//! its record's file and line; then the trail's tasks and timelines; then the counts,
//! each with the share of its chart's largest row for a small bar.

use super::AuditReport;
use crate::diagnostic::{Diagnostic, Severity};
use crate::git::Repo;
use crate::report::views::duration_text;
use crate::routing::Registry;
use crate::trail::{shares, Counted, Spread, TrailSummary};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the page's header says about how it was made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AuditHeader {
    /// When the page was made (UTC).
    pub generated_at: String,
    /// The commit of the repository it was made in, when there is one.
    pub commit: Option<String>,
    /// The inputs, one phrase each (records, registry, trail).
    pub inputs: Vec<String>,
}

impl AuditHeader {
    /// The header of a page made at `now` in `here`: the time, the commit of the
    /// repository holding `here` (its first 12 digits), and `inputs`.
    pub fn new(now: jiff::Timestamp, here: &Path, inputs: Vec<String>) -> AuditHeader {
        AuditHeader {
            generated_at: now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
            commit: Repo::discover(here)
                .ok()
                .and_then(|repo| repo.commit_id("HEAD").ok())
                .map(|id| id.chars().take(12).collect()),
            inputs,
        }
    }

    /// The page's inputs, a phrase each: the records (`paths` as given, or the records
    /// directory when none) and how many `files` were read, the registry and its agents,
    /// the trail (its directory and summary) and its events.
    pub fn inputs(
        paths: &[PathBuf],
        files: usize,
        registry: Option<&Registry>,
        trail: Option<(&Path, &TrailSummary)>,
    ) -> Vec<String> {
        let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let mut inputs = vec![format!(
            "records {} ({files} file(s))",
            match paths.is_empty() {
                true => "the records directory".to_string(),
                false => paths.join(", "),
            }
        )];
        inputs.push(match registry {
            Some(registry) => format!(
                "registry {} ({} agents)",
                registry.path().display(),
                registry.agents().count()
            ),
            None => "no registry".into(),
        });
        inputs.push(match trail {
            Some((dir, summary)) => format!(
                "trail {} ({} events{})",
                dir.display(),
                summary.events,
                summary
                    .last
                    .as_ref()
                    .map(|l| format!(", head seq {}", l.seq))
                    .unwrap_or_default()
            ),
            None => "no trail".into(),
        });
        inputs
    }
}

/// One finding of the page.
#[derive(Serialize)]
struct Finding {
    severity: Severity,
    code: String,
    /// `FILE#LLINE`, relative as the input was named (none for standard input).
    href: Option<String>,
    location: String,
    task: String,
    message: String,
}

fn finding(diagnostic: &Diagnostic, source: &str, line: Option<usize>, task: &str) -> Finding {
    let source = diagnostic.source.as_deref().unwrap_or(source);
    let line = diagnostic.line.or(line);
    let location = match line {
        Some(line) => format!("{source}:{line}"),
        None => source.to_string(),
    };
    Finding {
        severity: diagnostic.severity,
        code: diagnostic.code.to_string(),
        href: (source != crate::io::STDIN_NAME).then(|| {
            format!(
                "{source}{}",
                line.map(|l| format!("#L{l}")).unwrap_or_default()
            )
        }),
        location,
        task: task.to_string(),
        message: diagnostic.message.clone(),
    }
}

/// Every finding of the audit, errors first, each in document order.
fn findings(report: &AuditReport<'_>) -> Vec<Finding> {
    let audit = report.audit;
    let mut all: Vec<Finding> = audit
        .lint_failures
        .iter()
        .flat_map(|failure| {
            let task = failure.task_id.clone().unwrap_or_default();
            failure
                .errors
                .iter()
                .map(move |d| finding(d, &failure.source, Some(failure.line), &task))
        })
        .chain(audit.findings.iter().map(|f| {
            let task = f.task_id.clone().unwrap_or_default();
            finding(&f.finding, "-", None, &task)
        }))
        .collect();
    all.sort_by_key(|f| f.severity != Severity::Error);
    all
}

/// A chart: a title and its rows.
fn chart(title: &str, rows: Vec<Counted>) -> Value {
    json!({"title": title, "rows": rows})
}

fn spread_text(spread: &Spread, ms: Option<u64>) -> String {
    match (spread.count, ms) {
        (0, _) | (_, None) => "-".into(),
        (_, Some(ms)) => duration_text(ms),
    }
}

/// The trail summary with its durations spelled and each task's age.
fn trail_context(summary: &TrailSummary) -> Value {
    let mut value = serde_json::to_value(summary).unwrap_or_default();
    value["to_accept_median"] = spread_text(&summary.to_accept, summary.to_accept.median_ms).into();
    value["to_accept_p90"] = spread_text(&summary.to_accept, summary.to_accept.p90_ms).into();
    value["to_complete_median"] =
        spread_text(&summary.to_complete, summary.to_complete.median_ms).into();
    value["to_complete_p90"] = spread_text(&summary.to_complete, summary.to_complete.p90_ms).into();
    if let Some(rows) = value["task_rows"].as_array_mut() {
        for row in rows {
            let age = row["age_ms"].as_u64().unwrap_or(0);
            row["age"] = duration_text(age).into();
        }
    }
    value
}

/// What `reports/audit.html` sees.
pub(super) fn context(report: &AuditReport<'_>) -> Value {
    let audit = report.audit;
    let mut escalations: BTreeMap<String, usize> = BTreeMap::new();
    for e in &audit.escalations {
        let label = format!("{} → {}", e.failure_type, e.orchestrator_action);
        *escalations.entry(label).or_default() += e.total;
    }
    let scope = audit.scope_expansions;
    let routing = audit.routing;
    let risk = audit.tasks_by_risk;
    let mut charts = vec![
        chart(
            "Routing compliance (recorded decisions)",
            shares([
                ("compliant", routing.compliant),
                ("non-compliant", routing.non_compliant),
                ("unverified", routing.unverified),
            ]),
        ),
        chart(
            "Escalations by failure type (records)",
            shares(escalations.iter().map(|(k, v)| (k.as_str(), *v))),
        ),
        chart(
            "Tasks by risk class (records)",
            shares([
                ("low", risk.low),
                ("medium", risk.medium),
                ("high", risk.high),
                ("unclassified", risk.unclassified),
            ]),
        ),
        chart(
            "Scope expansions (records)",
            shares([
                ("approved", scope.approved),
                ("rejected", scope.rejected),
                ("undecided", scope.undecided),
            ]),
        ),
        chart(
            "Records by kind",
            shares(audit.by_kind.iter().map(|(k, v)| (*k, *v))),
        ),
        chart(
            "Interaction Records by type",
            shares(audit.by_type.iter().map(|(k, v)| (*k, *v))),
        ),
        chart(
            "Reviews by decision",
            shares(audit.reviews.iter().map(|(k, v)| (*k, *v))),
        ),
    ];
    if let Some(summary) = report.trail {
        charts.insert(
            0,
            chart(
                "Handoffs per receiving agent (trail)",
                summary.per_agent.clone(),
            ),
        );
        charts.insert(
            1,
            chart("Tasks by status (trail)", summary.by_status.clone()),
        );
        charts.insert(
            2,
            chart(
                "Handoffs by last event (trail)",
                summary.handoff_states.clone(),
            ),
        );
    }
    let findings = findings(report);
    json!({
        "title": "handoff audit",
        "header": report.header.clone().unwrap_or_default(),
        "errors": findings.iter().filter(|f| f.severity == Severity::Error).count(),
        "warnings": findings.iter().filter(|f| f.severity == Severity::Warning).count(),
        "findings": findings,
        "trail": report.trail.map(trail_context),
        "charts": charts,
    })
}
