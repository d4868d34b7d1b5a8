//! `handoff check`: the pull-request gate. Evidence, scope and sign-off in one verdict.
//!
//! Exit 0 when the change passes, 1 when it is rejected, 2 when the gate cannot run.
//! The human report groups problems by kind and ends with the one-line verdict; JSON is
//! the contract of GATE.md; Markdown is a summary for a pull-request comment.

use super::change_args::{discover_repo, head, ChangeArgs};
use super::output::write_stdout;
use super::{Failure, Outcome};
use handoff::diagnostic::{Code, Diagnostic};
use handoff::gate::run::{check, CheckOptions, RecordsInput};
use handoff::gate::{Kind, Outcome as GateOutcome, Verdict};
use handoff::io::{read_stdin, STDIN_NAME};
use std::collections::HashMap;
use std::path::PathBuf;

/// Output formats of `handoff check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A report for a person, grouped by kind.
    Human,
    /// GATE.md's JSON contract.
    Json,
    /// A summary for a pull-request comment.
    Markdown,
}

/// Arguments of `handoff check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    change: ChangeArgs,
    /// The task to check (default: the single Task Assignment found).
    #[arg(long, value_name = "ID")]
    task: Option<String>,
    /// More records: a file, a directory, or `-` for standard input (e.g. a PR body).
    #[arg(long, value_name = "PATH")]
    records: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Runs the gate and prints the verdict.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let repo = discover_repo(args.change.repo.as_deref())?;
    let mut records = Vec::new();
    for path in &args.records {
        if path.as_os_str() == STDIN_NAME {
            records.push(RecordsInput::Text(read_stdin()?));
        } else {
            records.push(RecordsInput::Path(path.clone()));
        }
    }
    let options = CheckOptions {
        base: args.change.base,
        head: head(args.change.head),
        task: args.task,
        records,
        policy: args.change.policy,
        copies: args.change.copies,
    };
    let verdict = check(&repo, &options)?;
    let text = match args.format {
        Format::Human => human(&verdict),
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&verdict)?),
        Format::Markdown => markdown(&verdict),
    };
    write_stdout(&text)?;
    Ok(match verdict.verdict {
        GateOutcome::Pass => Outcome::Ok,
        GateOutcome::Reject => Outcome::Findings,
    })
}

/// `path:line: ` (or just `path: `) for a problem's location.
fn location(problem: &Diagnostic) -> String {
    match problem.location() {
        at if at.is_empty() => at,
        at => format!("{at}: "),
    }
}

/// The human report: a summary, the problems grouped by kind, the one-line verdict.
fn human(verdict: &Verdict) -> String {
    let mut out = String::new();
    for (title, text) in summary_lines(verdict) {
        out.push_str(&format!("{title:<9} {text}\n"));
        if title == "Risk" {
            out.push_str(&findings(verdict));
        }
    }
    for (kind, problems, omitted) in grouped(verdict, HUMAN_PER_CODE) {
        out.push_str(&format!("\n{}:\n", kind.title()));
        for problem in problems {
            out.push_str(&format!(
                "  {}{}[{}]: {}\n",
                location(problem),
                problem.severity,
                problem.code,
                problem.message
            ));
            if let Some(fix) = &problem.fix {
                out.push_str(&format!("      fix: {fix}\n"));
            }
        }
        out.push_str(&omitted_line("  ", omitted));
    }
    out.push_str(&format!("\n{}\n", verdict_line(verdict)));
    out
}

/// How many problems of one code the human report lists before it summarises the rest.
const HUMAN_PER_CODE: usize = 50;

/// The same for a pull-request comment, which must stay short (GitHub caps comments).
const MARKDOWN_PER_CODE: usize = 10;

/// The problems of each kind that has any, at most `per_code` of each code, and how
/// many were left out.
fn grouped(verdict: &Verdict, per_code: usize) -> Vec<(Kind, Vec<&Diagnostic>, usize)> {
    Kind::ALL
        .into_iter()
        .filter_map(|kind| {
            let mut seen: HashMap<Code, usize> = HashMap::new();
            let mut shown = Vec::new();
            let mut omitted = 0;
            for problem in verdict.problems.iter().filter(|p| Kind::of(p.code) == kind) {
                let count = seen.entry(problem.code).or_default();
                *count += 1;
                if *count <= per_code {
                    shown.push(problem);
                } else {
                    omitted += 1;
                }
            }
            (!shown.is_empty()).then_some((kind, shown, omitted))
        })
        .collect()
}

/// `… and N more` when problems were left out, else nothing.
fn omitted_line(indent: &str, omitted: usize) -> String {
    if omitted == 0 {
        String::new()
    } else {
        format!("{indent}… and {omitted} more (`--format json` lists them all)\n")
    }
}

/// How many risk findings the human report lists before it summarises the rest.
const FINDINGS_SHOWN: usize = 10;

/// The risk findings, one per line: why the change has its class.
fn findings(verdict: &Verdict) -> String {
    let all = &verdict.risk.findings;
    let mut out: String = all
        .iter()
        .take(FINDINGS_SHOWN)
        .map(|finding| {
            let at = match (&finding.path, finding.line) {
                (Some(path), Some(line)) => format!("{}:{line}", path.to_string_lossy()),
                (Some(path), None) => path.to_string_lossy().into_owned(),
                _ => "the change".to_string(),
            };
            format!(
                "          {} → {}: {at} ({})\n",
                finding.trigger, finding.class, finding.rule
            )
        })
        .collect();
    if all.len() > FINDINGS_SHOWN {
        let more = all.len() - FINDINGS_SHOWN;
        out.push_str(&format!(
            "          … and {more} more (--format json lists them all)\n"
        ));
    }
    if let Some(skipped) = &verdict.risk.rename_search_skipped {
        out.push_str(&format!("          warning: {skipped}\n"));
    }
    out
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
    let sign_off = match (&reviewer.required, &reviewer.signed_off_by, reviewer.waived) {
        (_, _, true) => "waived by the user".to_string(),
        (Some(required), Some(by), _) => format!("{required} required, signed off by {by}"),
        (Some(required), None, _) => format!("{required} required, no sign-off"),
        (None, _, _) if reviewer.ok => "none required".to_string(),
        (None, _, _) => "none available".to_string(),
    };
    vec![
        ("Task", verdict.task_id.clone()),
        (
            "Risk",
            format!(
                "{} (declared {declared}{reclassified}; {} finding(s))",
                risk.class,
                risk.findings.len()
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
        GateOutcome::Pass => "pass",
        GateOutcome::Reject => "reject",
    };
    format!(
        "{word}: task {} at {} risk, {errors} error(s), {warnings} warning(s)",
        verdict.task_id, verdict.risk.class
    )
}

/// A pull-request comment: the verdict, a table of the parts, the problems by kind.
fn markdown(verdict: &Verdict) -> String {
    let icon = match verdict.verdict {
        GateOutcome::Pass => "✅",
        GateOutcome::Reject => "❌",
    };
    let mut out = format!(
        "### {icon} handoff check — {}\n\n",
        escape(&verdict_line(verdict))
    );
    out.push_str("| | |\n|---|---|\n");
    for (title, text) in summary_lines(verdict) {
        out.push_str(&format!("| {title} | {} |\n", escape(&text)));
    }
    for (kind, problems, omitted) in grouped(verdict, MARKDOWN_PER_CODE) {
        out.push_str(&format!("\n#### {}\n\n", kind.title()));
        for problem in problems {
            let at = location(problem);
            let at = at.trim_end_matches([' ', ':']);
            let at = if at.is_empty() {
                String::new()
            } else {
                format!(" `{at}`")
            };
            out.push_str(&format!(
                "- **{}** `{}`{at}: {}\n",
                problem.severity,
                problem.code,
                escape(&problem.message)
            ));
            if let Some(fix) = &problem.fix {
                out.push_str(&format!("  ```sh\n  {fix}\n  ```\n"));
            }
        }
        out.push_str(&omitted_line("- ", omitted));
    }
    out
}

/// Escapes text for a Markdown table cell or list item: no pipe, no new line, and no
/// HTML or mention outside code spans (inside them Markdown shows text as it is).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            '@' if !in_code => out.push_str("&#64;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markdown_escapes_html_and_pipes_but_not_code() {
        assert_eq!(
            escape("a|b <i>@team `git revert <sha>`"),
            "a\\|b &lt;i&gt;&#64;team `git revert <sha>`"
        );
    }
}
