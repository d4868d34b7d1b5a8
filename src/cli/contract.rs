//! `handoff contract check|next`: validate an agent's `agent_contract_handoff` block and
//! decide what the orchestrator does next.
//!
//! Both commands read one agent output from a file or standard input through
//! [`handoff::io`]: at most 32 MiB of UTF-8 text (the error gives the line and column of
//! the first invalid byte). Exit codes: 0 valid (or a normal next action), 1 not valid (or a
//! repair, stall or illegal transition), 2 when the input or the state file cannot be
//! used.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use handoff::InputError;
use handoff::{check_output, decide, track_contract, ContractOptions as CheckOptions};
use handoff::{ContractCheckReport, ContractNextReport, Format, Report};

use super::inputs::single;
use super::output::{formats, print_report, TemplatesArg};
use super::{Failure, Outcome};

/// The subcommands of `handoff contract`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Validate the agent_contract_handoff block of an agent's output.
    Check(CheckArgs),
    /// Decide the orchestrator's next action from an agent's output.
    Next(NextArgs),
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The agent's output; `-` (or nothing, when it is piped) reads standard input.
    file: Option<PathBuf>,
    #[command(flatten)]
    task: TaskArgs,
    /// Output format.
    #[arg(long, value_parser = formats(ContractCheckReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// What the runtime knows about the task; shared by `check` and `next`.
#[derive(Debug, clap::Args)]
struct TaskArgs {
    /// The task requires a consolidation_report (multi-surface work).
    #[arg(long)]
    consolidation_required: bool,
    /// The agent id the runtime assigned; routes the repair when the block has none.
    #[arg(long, value_name = "ID", default_value = "")]
    task_agent_id: String,
}

impl TaskArgs {
    fn options(self) -> CheckOptions {
        CheckOptions {
            consolidation_required: self.consolidation_required,
            task_agent_id: self.task_agent_id,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct NextArgs {
    /// The agent's output; `-` (or nothing, when it is piped) reads standard input.
    file: Option<PathBuf>,
    /// How many agents are in flight (N > 1 consolidates instead of relaying one summary).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    agents: u32,
    /// A JSON file tracking each agent's status across turns (created when missing).
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    #[command(flatten)]
    task: TaskArgs,
    /// Output format.
    #[arg(long, value_parser = formats(ContractNextReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Runs `handoff contract …`.
pub fn run(command: Command) -> Result<Outcome, Failure> {
    match command {
        Command::Check(args) => run_check(args),
        Command::Next(args) => run_next(args),
    }
}

fn run_check(args: CheckArgs) -> Result<Outcome, Failure> {
    let (name, text) = read_input(args.file.as_deref())?;
    let options = args.task.options();
    let (result, _) = check_output(&text, &options);
    if let Some(reason) = result.no_block.as_ref().filter(|_| args.format.is_data()) {
        // A closed standard error must not turn a verdict into a panic.
        let _ = writeln!(io::stderr(), "note: {name}: {reason}");
    }
    let report = ContractCheckReport {
        name: &name,
        result: &result,
    };
    print_report(&report, args.format, &args.templates)?;
    Ok(if result.valid {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}

fn run_next(args: NextArgs) -> Result<Outcome, Failure> {
    let (name, text) = read_input(args.file.as_deref())?;
    let (result, contract) = check_output(&text, &args.task.options());
    let transition = match &args.state {
        Some(path) => track_contract(path, &result)?,
        None => None,
    };
    let decision = decide(result, contract.as_ref(), args.agents as usize, transition);
    let report = ContractNextReport {
        name: &name,
        decision: &decision,
    };
    print_report(&report, args.format, &args.templates)?;
    Ok(if decision.action.is_normal() {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}

/// Reads the agent's output through [`handoff::io`]: at most 32 MiB of UTF-8 text.
fn read_input(file: Option<&Path>) -> Result<(String, String), Failure> {
    let input = single(file, "the agent's output")?;
    match input.read() {
        Ok(text) => Ok((input.name(), text)),
        Err(InputError::Unreadable { path, source }) => {
            let why = match path.is_dir() {
                true => "it is a directory".to_string(),
                false => source.to_string(),
            };
            Err(Failure(format!(
                "{}: cannot read: {why}; pass the file holding the agent's output, or `-` \
                 for standard input",
                path.display()
            )))
        }
        Err(error) => Err(Failure(error.to_string())),
    }
}
