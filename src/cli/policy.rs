//! `handoff policy show`: the effective policy, defaults merged with `.handoff.yaml`.

use super::classify::{Change, Format};
use super::output::write_stdout;
use super::{Failure, Outcome};
use handoff::policy::{Policy, RuleMatch, TriggerPolicy};
use handoff::risk::Trigger;
use std::fmt::Write as _;
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
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
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
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&policy)? + "\n",
        Format::Human => human(&policy),
    };
    write_stdout(&text)?;
    Ok(Outcome::Ok)
}

fn human(policy: &Policy) -> String {
    let mut text = format!("# effective policy: {}\n", policy.source);
    writeln!(text, "records_dir: {}", policy.records_dir).ok();
    writeln!(text, "exclude: {}", list(&policy.exclude)).ok();
    writeln!(text, "copies: {}", policy.copies).ok();
    text.push_str("\ntriggers:\n");
    for trigger in &policy.triggers {
        trigger_text(&mut text, trigger);
    }
    text.push_str("\nevidence aliases:\n");
    for (item, aliases) in &policy.evidence.aliases {
        writeln!(text, "  {item}: {}", list(aliases)).ok();
    }
    let reviewers = &policy.reviewers;
    text.push_str("\nreviewers:\n");
    writeln!(text, "  medium: {}", list(&reviewers.medium)).ok();
    writeln!(text, "  high: {}", list(&reviewers.high)).ok();
    writeln!(text, "  orchestrator: {}", reviewers.orchestrator).ok();
    writeln!(text, "  unavailable: {}", list(&reviewers.unavailable)).ok();
    text
}

fn trigger_text(text: &mut String, trigger: &TriggerPolicy) {
    let about = match trigger.name.parse::<Trigger>() {
        Ok(builtin) if trigger.builtin => builtin.description(),
        _ => "custom",
    };
    writeln!(text, "  {} → {}  ({about})", trigger.name, trigger.class).ok();
    if trigger.name == "file-count" {
        let limit = handoff::risk::FILE_COUNT_LIMIT;
        let rule = handoff::risk::FILE_COUNT_RULE;
        writeln!(
            text,
            "    {rule}  files > {limit}, records and excluded paths left out"
        )
        .ok();
    }
    for rule in &trigger.rules {
        let origin = if rule.from_policy { " (policy)" } else { "" };
        match &rule.matches {
            RuleMatch::Paths { globs } => {
                writeln!(text, "    {}{origin}  paths: {}", rule.id, globs.join(", ")).ok();
            }
            RuleMatch::Line { regex, files } => {
                writeln!(text, "    {}{origin}  line: {regex}", rule.id).ok();
                if !files.is_empty() {
                    writeln!(text, "      in: {}", files.join(", ")).ok();
                }
            }
        }
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".to_string()
    } else {
        items.join(", ")
    }
}
