//! `handoff check`: the pull-request gate. Evidence, scope and sign-off in one verdict.
//!
//! Exit 0 when the change passes, 1 when it is rejected, 2 when the gate cannot run.
//! The human report groups problems by kind and ends with the one-line verdict; JSON is
//! the contract of GATE.md; Markdown is a summary for a pull-request comment.

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
    #[arg(long, value_name = "PATH")]
    records: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = formats(CheckReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
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
    print_report(&CheckReport(&verdict), args.format, &args.templates)?;
    Ok(match verdict.verdict {
        GateOutcome::Pass => Outcome::Ok,
        GateOutcome::Reject => Outcome::Findings,
    })
}
