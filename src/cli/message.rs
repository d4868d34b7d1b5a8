//! `handoff message check`: validate handoff messages (002's and 004's) against the
//! embedded JSON Schemas and the rules beyond them. Exit 0 valid, 1 a message has
//! errors, 2 an input cannot be read.

use super::inputs::single;
use super::output::{formats, print_report, TemplatesArg};
use super::{Failure, Outcome};
use handoff::{check_messages, Format, MessageCheckReport, Source};
use std::path::PathBuf;

/// The subcommands of `handoff message`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Check messages: schema, rules, each problem at its JSON pointer and line:column.
    Check(CheckArgs),
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Message files (JSON, YAML, a JSON array or JSON lines); `-` (or nothing, when it
    /// is piped) reads standard input.
    files: Vec<PathBuf>,
    /// Output format: human (`file:line:column: error[code]: message (at pointer)`) or
    /// json (the contract of docs/trail.md).
    #[arg(long, value_parser = formats(&[Format::Human, Format::Json]), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Runs `handoff message`.
pub fn run(command: Command) -> Result<Outcome, Failure> {
    let Command::Check(args) = command;
    let inputs: Vec<Source> = match args.files.is_empty() {
        true => vec![single(None, "the messages")?],
        false => args
            .files
            .iter()
            .map(|f| Source::from_argument(f))
            .collect(),
    };
    let mut documents = Vec::new();
    for input in inputs {
        let text = input.read()?;
        documents.push(check_messages(&input.name(), &text));
    }
    let report = MessageCheckReport { documents };
    print_report(&report, args.format, &args.templates)?;
    Ok(match report.has_errors() {
        true => Outcome::Findings,
        false => Outcome::Ok,
    })
}
