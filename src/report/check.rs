//! `handoff check`: the gate's verdict for a person (grouped by kind, ending with the
//! one-line verdict) and for a pull-request comment (Markdown, kept short).

use super::{Annotation, Format, Report};
use crate::diagnostic::{Code, Diagnostic};
use crate::gate::{Kind, Outcome, Verdict};
use crate::suppress::SuppressedBy;
use serde::Serialize;
use std::collections::HashMap;

/// The verdict, as `check` reports it.
pub struct CheckReport<'a>(pub &'a Verdict);

/// How many problems of one code the human report lists before it summarises the rest.
const HUMAN_PER_CODE: usize = 50;

/// The same for a pull-request comment, which must stay short (GitHub caps comments).
const MARKDOWN_PER_CODE: usize = 10;

/// How many risk findings the human report lists before it summarises the rest.
const FINDINGS_SHOWN: usize = 10;

#[derive(Serialize)]
struct Context<'a> {
    verdict: &'a Verdict,
    /// `pass: …` or `reject: …`, with the error and warning counts.
    verdict_line: String,
    /// One `[title, text]` per part of the verdict.
    summary: Vec<(&'static str, String)>,
    /// The first risk findings, and how many more there are.
    findings: Vec<FindingLine<'a>>,
    more_findings: usize,
    /// Why renames were not searched for, when they were not.
    rename_warning: Option<String>,
    /// The problems of each kind that has any, capped per code.
    groups: Vec<Group<'a>>,
}

#[derive(Serialize)]
struct FindingLine<'a> {
    trigger: &'a str,
    class: crate::policy::RiskClass,
    /// `path:line`, `path`, or `the change`.
    at: String,
    rule: &'a str,
}

#[derive(Serialize)]
struct Group<'a> {
    title: &'static str,
    problems: Vec<ProblemLine<'a>>,
    /// How many were left out.
    omitted: usize,
}

#[derive(Serialize)]
struct ProblemLine<'a> {
    /// `path:line`, `path`, or empty.
    at: String,
    severity: crate::diagnostic::Severity,
    code: Code,
    message: &'a str,
    fix: Option<&'a str>,
}

impl Report for CheckReport<'_> {
    const NAME: &'static str = "check";
    const FORMATS: &'static [Format] = &[
        Format::Human,
        Format::Json,
        Format::Yaml,
        Format::Markdown,
        Format::Sarif,
        Format::Github,
    ];
    type Contract = Verdict;

    fn contract(&self) -> &Verdict {
        self.0
    }

    fn context(&self, format: Format) -> serde_json::Value {
        let verdict = self.0;
        let per_code = match format {
            Format::Markdown => MARKDOWN_PER_CODE,
            _ => HUMAN_PER_CODE,
        };
        let all = &verdict.risk.findings;
        let context = Context {
            verdict,
            verdict_line: verdict_line(verdict),
            summary: summary_lines(verdict),
            findings: all.iter().take(FINDINGS_SHOWN).map(finding_line).collect(),
            more_findings: all.len().saturating_sub(FINDINGS_SHOWN),
            rename_warning: verdict.risk.rename_search_skipped.map(|s| s.to_string()),
            groups: grouped(verdict, per_code),
        };
        serde_json::to_value(context).unwrap_or_default()
    }

    /// The problems, then the risk findings as notes (why the change has its class), then
    /// the findings the policy allows (suppressed).
    fn annotations(&self) -> Vec<Annotation> {
        let problems = self.0.problems.iter().map(Annotation::from_diagnostic);
        let risk = self
            .0
            .risk
            .findings
            .iter()
            .map(Annotation::from_risk_finding);
        let allowed = self
            .0
            .risk
            .suppressed
            .iter()
            .map(Annotation::from_suppressed);
        problems.chain(risk).chain(allowed).collect()
    }
}

fn finding_line(finding: &crate::risk::Finding) -> FindingLine<'_> {
    let at = match (&finding.path, finding.line) {
        (Some(path), Some(line)) => format!("{}:{line}", path.to_string_lossy()),
        (Some(path), None) => path.to_string_lossy().into_owned(),
        _ => "the change".to_string(),
    };
    FindingLine {
        trigger: &finding.trigger,
        class: finding.class,
        at,
        rule: &finding.rule,
    }
}

/// The problems of each kind that has any, at most `per_code` of each code, and how
/// many were left out.
fn grouped(verdict: &Verdict, per_code: usize) -> Vec<Group<'_>> {
    Kind::ALL
        .into_iter()
        .filter_map(|kind| {
            let mut seen: HashMap<Code, usize> = HashMap::new();
            let mut problems = Vec::new();
            let mut omitted = 0;
            for problem in verdict.problems.iter().filter(|p| Kind::of(p.code) == kind) {
                let count = seen.entry(problem.code).or_default();
                *count += 1;
                if *count <= per_code {
                    problems.push(problem_line(problem));
                } else {
                    omitted += 1;
                }
            }
            (!problems.is_empty()).then_some(Group {
                title: kind.title(),
                problems,
                omitted,
            })
        })
        .collect()
}

fn problem_line(problem: &Diagnostic) -> ProblemLine<'_> {
    ProblemLine {
        at: problem.location(),
        severity: problem.severity,
        code: problem.code,
        message: &problem.message,
        fix: problem.fix.as_deref(),
    }
}

/// One line per part of the verdict: `(title, text)`.
fn summary_lines(verdict: &Verdict) -> Vec<(&'static str, String)> {
    let risk = &verdict.risk;
    let declared = risk.declared.map_or("none".to_string(), |c| c.to_string());
    let reclassified = if risk.reclassified {
        ", reclassified"
    } else {
        ""
    };
    let evidence = &verdict.evidence;
    let missing = if evidence.missing.is_empty() {
        "complete".to_string()
    } else {
        let ids: Vec<&str> = evidence.missing.iter().map(|id| id.as_str()).collect();
        format!("missing {}", ids.join(", "))
    };
    let scope = &verdict.scope;
    let reviewer = &verdict.reviewer;
    // At medium risk the reviewer is named but their sign-off is not required.
    let needed = match risk.class {
        crate::policy::RiskClass::Medium => "reviews (sign-off not required)",
        _ => "required",
    };
    let sign_off = match (&reviewer.required, &reviewer.signed_off_by, reviewer.waived) {
        (_, _, true) => "waived by the user".to_string(),
        (Some(required), Some(by), _) => format!("{required} {needed}, signed off by {by}"),
        (Some(required), None, _) => format!("{required} {needed}, no sign-off"),
        (None, _, _) if reviewer.ok => "none required".to_string(),
        (None, _, _) => "none available".to_string(),
    };
    vec![
        (
            "Task",
            match verdict.task_id.as_str() {
                "" => "none (no Task Assignment)".to_string(),
                id => id.to_string(),
            },
        ),
        (
            "Risk",
            format!(
                "{} (declared {declared}{reclassified}; {} finding(s){})",
                risk.class,
                risk.findings.len(),
                suppressed_counts(&risk.suppressed)
            ),
        ),
        (
            "Evidence",
            format!("{} items required, {missing}", evidence.required.len()),
        ),
        (
            "Scope",
            format!(
                "{} declared, {} expanded, {} undeclared",
                scope.declared.len(),
                scope.expanded.len(),
                scope.undeclared.len()
            ),
        ),
        ("Reviewer", sign_off),
    ]
}

/// `pass: …` or `reject: …`, with the error and warning counts.
fn verdict_line(verdict: &Verdict) -> String {
    let errors = verdict.problems.iter().filter(|p| p.is_error()).count();
    let warnings = verdict.problems.len() - errors;
    let word = match verdict.verdict {
        Outcome::Pass => "pass",
        Outcome::Reject => "reject",
    };
    format!(
        "{word}: {} at {} risk, {errors} error(s), {warnings} warning(s)",
        task_name(verdict),
        verdict.risk.class
    )
}

/// `task ID`, or `no task` for a change with no Task Assignment (an empty task id).
fn task_name(verdict: &Verdict) -> String {
    match verdict.task_id.as_str() {
        "" => "no task".to_string(),
        id => format!("task {id}"),
    }
}

/// `, 1 allowed by the policy, 2 baselined`: the suppressed findings, by what
/// suppressed them (empty when none were).
fn suppressed_counts(suppressed: &[crate::risk::Suppressed]) -> String {
    SuppressedBy::ALL
        .iter()
        .filter_map(|&by| {
            let n = suppressed.iter().filter(|s| s.by == by).count();
            let what = match by {
                SuppressedBy::Allow => "allowed by the policy",
                SuppressedBy::Marker => "allowed by a marker",
                SuppressedBy::Baseline => "baselined",
            };
            (n > 0).then(|| format!(", {n} {what}"))
        })
        .collect()
}
