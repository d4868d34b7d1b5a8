//! `handoff check`: the pull-request gate. Evidence, scope and sign-off in one verdict.
//!
//! Exit 0 when the change passes, 1 when it is rejected, 2 when the gate cannot run.
//! The human report groups problems by kind and ends with the one-line verdict; JSON is
//! the contract of docs/check.md; Markdown is a summary for a pull-request comment.

use super::change_args::{discover_repo, head, ChangeArgs};
use super::output::{formats, print_report, TemplatesArg};
use super::{Failure, Outcome};
use handoff::GateOutcome;
use handoff::{check, CheckOptions, RecordsInput};
use handoff::{read_stdin, STDIN_NAME};
use handoff::{CheckReport, Format, Report};
use std::path::PathBuf;

/// Arguments of `handoff check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    change: ChangeArgs,
    /// The task to check (default: the single Task Assignment found).
    #[arg(long, value_name = "ID")]
    task: Option<String>,
    /// More records: a file, a directory, or `-` for standard input (e.g. a PR body).
    /// They supply evidence but never assign a task or grant (sign-off, scope
    /// expansion, waiver): a pull request's description is written by its author.
    #[arg(long, value_name = "PATH")]
    records: Vec<PathBuf>,
    /// Records from a source CI vouches for (e.g. a file it builds from the pull
    /// request's approved reviews): like the records directory, they may grant.
    #[arg(long, value_name = "PATH")]
    trusted_records: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = formats(CheckReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Runs the gate and prints the verdict.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let repo = discover_repo(args.change.repo.as_deref())?;
    let records = inputs(&args.records)?;
    let trusted_records = inputs(&args.trusted_records)?;
    let options = CheckOptions {
        trusted_records,
        base: args.change.base,
        head: head(args.change.head),
        task: args.task,
        records,
        policy: args.change.policy,
        baseline: args.change.baseline,
        copies: args.change.copies,
    };
    let verdict = check(&repo, &options)?;
    print_report(&CheckReport(&verdict), args.format, &args.templates)?;
    Ok(match verdict.verdict {
        GateOutcome::Pass => Outcome::Ok,
        GateOutcome::Reject => Outcome::Findings,
    })
}

/// `--records` arguments as inputs: `-` is standard input (read once).
fn inputs(paths: &[PathBuf]) -> Result<Vec<RecordsInput>, Failure> {
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == STDIN_NAME {
            inputs.push(RecordsInput::Text(read_stdin()?));
        } else {
            inputs.push(RecordsInput::Path(path.clone()));
        }
    }
    Ok(inputs)
}
