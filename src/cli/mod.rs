//! Command-line arguments (clap derive), one file per command, and the shared output
//! plumbing: every command returns an [`Outcome`] or a [`Failure`], and [`run`] turns
//! them into the exit codes the README documents.

mod audit;
mod change_args;
mod check;
mod classify;
mod contract;
mod explain;
mod fmt;
mod inputs;
mod lint;
mod message;
mod new;
mod output;
mod parse;
mod policy;
mod render;
mod route;
mod trail;

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
    /// Re-derive recorded routing decisions and summarise the records for a team lead.
    Audit(audit::Args),
    /// Gate a change: risk, evidence, file scope and sign-off in one verdict (exit 0 pass,
    /// 1 reject, 2 cannot run).
    Check(check::Args),
    /// Explain a diagnostic code: what it means, an example, and the fix.
    Explain(explain::Args),
    /// Rewrite records in canonical form, in place (`--check`: diff, exit 1).
    Fmt(fmt::Args),
    /// Check records against the protocol: fields, values, placeholders, sections.
    Lint(lint::Args),
    /// Create a record in canonical form, placeholders where values are missing.
    New(new::Args),
    /// Print records as JSON or YAML (the documented contract).
    Parse(parse::Args),
    /// Turn `handoff parse` JSON or YAML back into canonical Markdown.
    Render(render::Args),
    /// Classify a change's risk from its git diff, and say why.
    Classify(classify::Args),
    /// Inspect the gate's policy (`.handoff.yaml`).
    Policy(policy::Args),
    /// Route a task to an agent from a registry by the protocol's tie-break rules.
    Route(route::Args),
    /// Check handoff messages (002's and 004's) against their schemas and rules.
    Message(message::Args),
    /// The tamper-evident trail of handoffs: append, lifecycle, verify, query.
    Trail(trail::Args),
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
        Command::Audit(args) => audit::run(args),
        Command::Check(args) => check::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Lint(args) => lint::run(args),
        Command::New(args) => new::run(args),
        Command::Parse(args) => parse::run(args),
        Command::Render(args) => render::run(args),
        Command::Classify(args) => classify::run(args),
        Command::Policy(args) => policy::run(args),
        Command::Route(args) => route::run(args),
        Command::Message(args) => message::run(args),
        Command::Trail(args) => trail::run(args),
    };
    output::finish(result)
}
