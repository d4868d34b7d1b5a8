//! `handoff classify`: the risk class of a change, and why.

use super::change_args::{self, discover_repo, ChangeArgs};
use super::output::{formats, print_report, TemplatesArg};
use super::{Failure, Outcome};
use handoff::classify_keeping_rules;
use handoff::RiskClass;
use handoff::{Baseline, Policy};
use handoff::{ClassifyReport, Format, Report};
use handoff::{Head, Repo};
use std::path::Path;

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
    #[arg(long, value_parser = formats(ClassifyReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
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
    if let Some(path) = &args.change.baseline {
        policy.baseline = Some(Baseline::read_at(&change.repo, Some(&change.base), path)?);
    }
    let (result, rules) = classify_keeping_rules(
        &change.repo,
        &change.base,
        &change.head,
        args.declared,
        &policy,
    )?;
    let report = ClassifyReport {
        classification: &result,
        base: &change.base,
        head: &change.head,
        policy: &policy.source,
    };
    print_report(&report, args.format, &args.templates)?;
    // The process ends next: freeing the policy, the result and the repository piece by
    // piece cost a one-file change 3% of its instructions, and the compiled rules 5% more.
    std::mem::forget((policy, result, change, rules));
    Ok(Outcome::Ok)
}
