//! `handoff classify`: the risk class of a change, and why.

use super::change_args::{self, discover_repo, ChangeArgs};
use super::output::write_stdout;
use super::{Failure, Outcome};
use handoff::git::{Head, Repo};
use handoff::policy::Policy;
use handoff::risk::{classify, Classification, Finding, RiskClass};
use std::fmt::Write as _;
use std::path::Path;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people.
    Human,
    /// The documented JSON contract.
    Json,
}

/// Arguments of `handoff classify`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes: 0 classified (whatever the class), 2 cannot run \
    (not a repository, unknown revision, base missing from a shallow clone, broken policy).\n\
    Triggers, rules and the policy file: docs/gate.md."
)]
pub struct Args {
    #[command(flatten)]
    change: ChangeArgs,
    /// The class the task declared: low, medium or high.
    #[arg(long, value_name = "CLASS")]
    declared: Option<RiskClass>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// The repository, the resolved base and the head a command works on.
pub struct Change {
    /// The open repository.
    pub repo: Repo,
    /// The base commit's id.
    pub base: String,
    /// The head.
    pub head: Head,
}

impl Change {
    /// Opens the repository and resolves `--base` (default: merge base with the default
    /// branch) against `--head` (default: the working tree).
    pub fn open(
        repo: Option<&Path>,
        base: Option<&str>,
        head: Option<&str>,
    ) -> Result<Change, Failure> {
        let repo = discover_repo(repo)?;
        let head = change_args::head(head.map(str::to_string));
        let base = match base {
            Some(rev) => repo.resolve_base(rev, &head)?,
            None => repo.merge_base_with_default_branch()?,
        };
        Ok(Change { repo, base, head })
    }
}

/// Classifies the change and prints the result. Exit 0 whatever the class.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let change = Change::open(
        args.change.repo.as_deref(),
        args.change.base.as_deref(),
        args.change.head.as_deref(),
    )?;
    let mut policy = Policy::load(&change.repo, &change.base, args.change.policy.as_deref())?;
    policy.copies |= args.change.copies;
    let result = classify(
        &change.repo,
        &change.base,
        &change.head,
        args.declared,
        &policy,
    )?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&result)? + "\n",
        Format::Human => human(&result, &policy, &change),
    };
    write_stdout(&text)?;
    Ok(Outcome::Ok)
}

/// The class, then each trigger that fired with its files, lines and excerpts.
fn human(result: &Classification, policy: &Policy, change: &Change) -> String {
    let mut text = format!("risk: {}", result.risk);
    match (result.declared, result.reclassified) {
        (Some(declared), true) => write!(text, " (reclassified from declared {declared})"),
        (None, true) => write!(text, " (reclassified from low: no class declared)"),
        (Some(declared), false) => write!(text, " (declared {declared})"),
        (None, false) => Ok(()),
    }
    .ok();
    let files = result.files.len();
    let plural = if files == 1 { "" } else { "s" };
    let base = change.base.get(..12).unwrap_or(&change.base);
    let head = match &change.head {
        Head::WorkTree => "the working tree",
        Head::Rev(rev) => rev.as_str(),
    };
    let source = &policy.source;
    writeln!(
        text,
        "\n{files} file{plural} changed from {base} to {head}; policy: {source}"
    )
    .ok();
    if let Some(skipped) = &result.rename_search_skipped {
        writeln!(text, "warning: {skipped}").ok();
    }
    if result.findings.is_empty() {
        text.push_str("no trigger fired\n");
        return text;
    }
    let mut current: Option<&str> = None;
    for finding in &result.findings {
        if current != Some(finding.trigger.as_str()) {
            current = Some(&finding.trigger);
            writeln!(text, "\n{} → {}", finding.trigger, finding.class).ok();
        }
        writeln!(text, "  {}", finding_line(finding)).ok();
    }
    text
}

fn finding_line(finding: &Finding) -> String {
    let mut line = match (&finding.path, finding.line) {
        (Some(path), Some(number)) => {
            let removed = matches!(finding.side, Some(handoff::git::LineSide::Removed));
            format!(
                "{path}:{number}{}",
                if removed { " (removed line)" } else { "" }
            )
        }
        (Some(path), None) => path.to_string(),
        (None, _) => String::new(),
    };
    if let Some(excerpt) = &finding.excerpt {
        if !line.is_empty() {
            line.push_str("  ");
        }
        line.push_str(excerpt);
    }
    format!("{line}  [{}]", finding.rule)
}
