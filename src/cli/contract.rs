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

use handoff::contract::check::{check_output, CheckOptions, CheckResult};
use handoff::contract::next::{decide, Decision};
use handoff::contract::state::{self, StateFile, Transition};
use handoff::contract::PlanStatus;
use handoff::io::{InputError, Source};

use super::output::write_stdout;
use super::{Failure, Outcome};

/// Arguments of `handoff contract`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Validate the agent_contract_handoff block of an agent's output.
    Check(CheckArgs),
    /// Decide the orchestrator's next action from an agent's output.
    Next(NextArgs),
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Lines for a person or an agent to act on.
    Human,
    /// The JSON result documented in docs/contract.md.
    Json,
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// The agent's output; `-` or nothing reads standard input.
    file: Option<PathBuf>,
    #[command(flatten)]
    task: TaskArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
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
struct NextArgs {
    /// The agent's output; `-` or nothing reads standard input.
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
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Runs `handoff contract …`.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    match args.command {
        Command::Check(args) => run_check(args),
        Command::Next(args) => run_next(args),
    }
}

fn run_check(args: CheckArgs) -> Result<Outcome, Failure> {
    let (name, text) = read_input(args.file.as_deref())?;
    let options = args.task.options();
    let (result, _) = check_output(&text, &options);
    match args.format {
        Format::Json => {
            if let Some(reason) = &result.no_block {
                // A closed standard error must not turn a verdict into a panic.
                let _ = writeln!(io::stderr(), "note: {name}: {reason}");
            }
            write_stdout(&to_json(&result)?)?;
        }
        Format::Human => write_stdout(&human_check(&name, &result))?,
    }
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
        Some(path) => track(path, &result)?,
        None => None,
    };
    let decision = decide(result, contract.as_ref(), args.agents as usize, transition);
    match args.format {
        Format::Json => write_stdout(&to_json(&decision)?)?,
        Format::Human => write_stdout(&human_next(&name, &decision))?,
    }
    Ok(if decision.action.is_normal() {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}

/// Runs the state machine for a valid contract and saves an accepted status.
fn track(path: &Path, result: &CheckResult) -> Result<Option<Transition>, Failure> {
    let Some(status) = PlanStatus::parse(&result.plan_status).filter(|_| result.valid) else {
        return Ok(None);
    };
    let mut file = StateFile::load(path)?;
    let record = file.record(&result.agent_id)?;
    let (verdict, updated) = state::transition(record.as_ref(), status);
    if let Some(updated) = updated {
        file.set(&result.agent_id, &updated);
        file.save()?;
    }
    Ok(Some(verdict))
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, Failure> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// Reads the agent's output through [`handoff::io`]: at most 32 MiB of UTF-8 text.
fn read_input(file: Option<&Path>) -> Result<(String, String), Failure> {
    let input = file.map_or(Source::Stdin, Source::from_argument);
    match input.read() {
        Ok(text) => Ok((input.name(), text)),
        Err(error @ InputError::Unreadable { .. }) => Err(Failure(format!(
            "{error}; pass the file holding the agent's output, or `-` (or nothing) for \
             standard input"
        ))),
        Err(error) => Err(Failure(error.to_string())),
    }
}

/// The human verdict: a headline, then one line per code telling what to repair.
fn human_check(name: &str, result: &CheckResult) -> String {
    let mut out = String::new();
    if result.valid {
        out.push_str(&format!(
            "{name}: contract valid (plan_status {}, agent {})\n",
            result.plan_status, result.agent_id
        ));
    } else {
        let count = result.missing().len() + result.invalid().len();
        out.push_str(&format!(
            "{name}: contract not valid: {count} to repair (recommended action: {})\n",
            result.recommended_action
        ));
    }
    if let Some(reason) = &result.no_block {
        out.push_str(&format!(
            "  {reason}\n  end the response with this block, filled in:\n"
        ));
        out.push_str(&indent(TEMPLATE, "    "));
    }
    for line in result.repair_lines() {
        out.push_str(&format!("  {line}\n"));
    }
    for advisory in &result.advisories {
        out.push_str(&format!("  advisory: {advisory}\n"));
    }
    out
}

/// The human decision: the action, the steps, then what to relay.
fn human_next(name: &str, decision: &Decision) -> String {
    let action = serde_json::to_value(decision.action)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    let mut out = format!("{name}: {action}");
    if !decision.plan_status.is_empty() {
        out.push_str(&format!(
            " ({} from {})",
            decision.plan_status,
            or_unknown(&decision.agent_id)
        ));
    }
    out.push('\n');
    for (index, step) in decision.instructions.iter().enumerate() {
        out.push_str(&format!("  {}. {step}\n", index + 1));
    }
    if let Some(summary) = &decision.summary {
        out.push_str(&format!("  summary ({}):\n", summary.source));
        push_items(&mut out, &summary.lines);
    }
    if let Some(verification) = &decision.verification {
        out.push_str(&format!("  verification: {}\n", verification.result));
        if !verification.details.is_empty() {
            out.push_str(&format!("    {}\n", verification.details));
        }
    }
    for (label, items) in [
        ("cross_layer_impacts", &decision.cross_layer_impacts),
        ("open_gaps", &decision.open_gaps),
        ("options", &decision.options),
        ("memory suggestions", &decision.memory_suggestions),
    ] {
        if !items.is_empty() {
            out.push_str(&format!("  {label}:\n"));
            push_items(&mut out, items);
        }
    }
    out
}

fn or_unknown(agent_id: &str) -> &str {
    if agent_id.is_empty() {
        "an unidentified agent"
    } else {
        agent_id
    }
}

fn push_items(out: &mut String, items: &[String]) {
    for item in items {
        out.push_str(&format!("    - {item}\n"));
    }
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|line| format!("{prefix}{line}\n"))
        .collect()
}

/// The skeleton an agent fills in when it emitted no usable block.
const TEMPLATE: &str = r#"```agent_contract_handoff
{
  "agent_status": {
    "plan_status": "IN_PROGRESS | APPROVAL_REQUEST | COMPLETE | BLOCKED | NEEDS_INPUT",
    "agent_id": "<your id, like a1b2c3d4e5>",
    "pending_steps": [],
    "next_action": "<what happens next>"
  },
  "evidence_report": {
    "patterns_checked": [], "files_checked": [], "commands_run": [], "key_outputs": [],
    "verbatim_outputs": [], "cross_layer_impacts": [], "open_gaps": [],
    "verification": {"result": "pass", "details": "<proof; required for COMPLETE>"}
  }
}
```"#;
