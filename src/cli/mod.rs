//! Command-line arguments (clap derive), one file per command, and the shared output
//! plumbing: every command returns an [`Outcome`] or a [`Failure`], and [`run`] turns
//! them into the exit codes the README documents.

mod contract;
mod explain;
mod output;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

pub use output::{Failure, Outcome};

/// Interaction Records for agent handoffs: parse, render, lint, and gate pull requests.
#[derive(Debug, Parser)]
#[command(name = "handoff", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check an agent_contract_handoff block, or decide the next action from it.
    Contract(contract::Args),
    /// Explain a diagnostic code: what it means, an example, and the fix.
    Explain(explain::Args),
}

/// Parses the command line, runs the command, and maps its result to an exit code.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return match error.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(2),
            };
        }
    };
    let result = match cli.command {
        Command::Contract(args) => contract::run(args),
        Command::Explain(args) => explain::run(args),
    };
    output::finish(result)
}
