//! `handoff policy show`: the effective policy, defaults merged with `.handoff.yaml`.

use super::classify::Change;
use super::output::{formats, print_report, TemplatesArg};
use super::{Failure, Outcome};
use handoff::{default_policy, Policy};
use handoff::{Format, PolicyReport, Report};
use std::path::PathBuf;

/// The subcommands of `handoff policy`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Print the effective policy as a policy file (valid YAML that `--policy` and
    /// `.handoff.yaml` accept back), every rule id in comments; anywhere (outside a
    /// repository: the built-in defaults).
    Show(ShowArgs),
}

/// Arguments of `handoff policy show`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The repository (default: the one containing the current directory).
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// The revision to read `.handoff.yaml` from (default: the merge base with the
    /// default branch, as `classify` reads it; HEAD when there is no default branch).
    #[arg(long, value_name = "REV")]
    base: Option<String>,
    /// A policy file to show instead (no repository needed).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = formats(PolicyReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Runs `handoff policy …`.
pub fn run(command: Command) -> Result<Outcome, Failure> {
    match command {
        Command::Show(args) => show(args),
    }
}

fn show(args: ShowArgs) -> Result<Outcome, Failure> {
    print_report(
        &PolicyReport(&effective(&args)?),
        args.format,
        &args.templates,
    )?;
    Ok(Outcome::Ok)
}

/// The policy `show` prints: the `--policy` file; else the one of `--base`; else the
/// merge base's with the default branch, HEAD's when there is no default branch, and the
/// built-in defaults outside a repository or in one without a commit yet.
fn effective(args: &ShowArgs) -> Result<Policy, Failure> {
    if let Some(path) = &args.policy {
        return Ok(Policy::read_file(path)?);
    }
    let repo = args.repo.as_deref();
    let change = match &args.base {
        Some(base) => Change::open(repo, Some(base), Some("HEAD"))?,
        None => match Change::open(repo, None, Some("HEAD"))
            .or_else(|_| Change::open(repo, Some("HEAD"), Some("HEAD")))
        {
            Ok(change) => change,
            Err(_) if repo.is_none() => return Ok(default_policy().clone()),
            Err(error) => return Err(error),
        },
    };
    Ok(Policy::load(&change.repo, &change.base, None)?)
}
