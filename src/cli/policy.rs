//! `handoff policy show`: the effective policy, defaults merged with `.handoff.yaml`.

use super::classify::Change;
use super::output::{formats, print_report, TemplatesArg};
use super::{Failure, Outcome};
use handoff::Policy;
use handoff::{Format, PolicyReport, Report};
use std::path::PathBuf;

/// Arguments of `handoff policy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Print the effective policy: every trigger with its rule ids and patterns,
    /// evidence aliases and reviewer roles.
    Show(ShowArgs),
}

/// Arguments of `handoff policy show`.
#[derive(Debug, clap::Args)]
struct ShowArgs {
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
pub fn run(args: Args) -> Result<Outcome, Failure> {
    match args.command {
        Command::Show(args) => show(args),
    }
}

fn show(args: ShowArgs) -> Result<Outcome, Failure> {
    let policy = match &args.policy {
        Some(path) => Policy::read_file(path)?,
        None => {
            let repo = args.repo.as_deref();
            // Without --base, a repository with no default branch shows HEAD's policy.
            let change = match Change::open(repo, args.base.as_deref(), Some("HEAD")) {
                Err(_) if args.base.is_none() => Change::open(repo, Some("HEAD"), Some("HEAD"))?,
                opened => opened?,
            };
            Policy::load(&change.repo, &change.base, None)?
        }
    };
    print_report(&PolicyReport(&policy), args.format, &args.templates)?;
    Ok(Outcome::Ok)
}
