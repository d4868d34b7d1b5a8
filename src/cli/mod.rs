//! Command-line arguments (clap derive), one file per command, and the shared output
//! plumbing: every command returns an [`Outcome`] or a [`Failure`], and [`run`] turns
//! them into the exit codes the README documents.

mod audit;
mod change_args;
mod check;
mod classify;
mod color;
mod completions;
mod contract;
mod explain;
mod fmt;
mod init;
mod inputs;
mod lint;
mod man;
mod message;
mod new;
mod output;
mod parse;
mod policy;
mod render;
mod route;
mod trail;

use clap::{ArgMatches, ColorChoice, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::process::ExitCode;

pub use output::{Failure, Outcome};

/// Interaction Records for agent handoffs: parse, render, lint, and gate pull requests.
#[derive(Debug, Parser)]
#[command(name = "handoff", version = VERSION, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

/// The options every command takes.
#[derive(Debug, clap::Args)]
struct Global {
    /// Colour: `auto` on a terminal unless `NO_COLOR` is set, `always`, or `never`.
    #[arg(long, global = true, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// The version, with the commit it was built from when it was built from a git checkout
/// (`0.1.0 (3f2a9c1d0b4e 2026-11-23)`; set by `build.rs`).
const VERSION: &str = env!("HANDOFF_VERSION");

#[derive(Debug, Subcommand)]
enum Command {
    /// Check an agent_contract_handoff block, or decide the next action from it.
    #[command(subcommand)]
    Contract(contract::Command),
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
    #[command(subcommand)]
    Policy(policy::Command),
    /// Route a task to an agent from a registry by the protocol's tie-break rules.
    Route(route::Args),
    /// Check handoff messages (handoff, acceptance, return, completion, failure) against
    /// their schemas and rules.
    #[command(subcommand)]
    Message(message::Command),
    /// The tamper-evident trail of handoffs: append, lifecycle, verify, query.
    Trail(trail::Args),
    /// Set a repository up for the gate: a commented .handoff.yaml, the records directory,
    /// the workflow, and the CODEOWNERS lines to add (never overwrites; --dry-run).
    Init(init::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
    /// Print the manual page (roff), of `handoff` or of one command.
    Man(man::Args),
}

/// Parses the command line, runs the command, and maps its result to an exit code.
pub fn run() -> ExitCode {
    let cli = match parse(std::env::args_os().collect()) {
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
    color::choose(cli.global.color);
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
        Command::Init(args) => init::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
    };
    output::finish(result)
}

/// Parses the command line. One that names `classify` or `check` first (a gate's every run)
/// is parsed against that command alone: describing all the commands and their arguments
/// cost each run about 0.45 M instructions and 200 KB of heap. Whatever that parse does not
/// accept (help, a version request, any error) is parsed again against the whole tool, so
/// what is printed is what the whole tool prints.
fn parse(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    if let Some(cli) = parse_alone(&args) {
        return Ok(cli);
    }
    let mut tool = Cli::command();
    let parsed = tool
        .try_get_matches_from_mut(args)
        .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
    // The description of every command and argument is not torn down: the process ends
    // when the command does (freeing it cost every run about 0.2 M instructions).
    std::mem::forget(tool);
    parsed
}

/// The command line parsed against the one command it names first, when that is a gate
/// command and the parse succeeds; `None` otherwise.
fn parse_alone(args: &[OsString]) -> Option<Cli> {
    type Build = fn(clap::Command) -> clap::Command;
    type Read = fn(&mut ArgMatches) -> Result<Command, clap::Error>;
    let (name, build, read): (&'static str, Build, Read) = match args.get(1)?.to_str()? {
        "classify" => (
            "classify",
            <classify::Args as clap::Args>::augment_args,
            |matches| classify::Args::from_arg_matches_mut(matches).map(Command::Classify),
        ),
        "check" => (
            "check",
            <check::Args as clap::Args>::augment_args,
            |matches| check::Args::from_arg_matches_mut(matches).map(Command::Check),
        ),
        _ => return None,
    };
    let mut tool = <Global as clap::Args>::augment_args(clap::Command::new("handoff"))
        .subcommand(build(clap::Command::new(name)));
    let mut matches = tool.try_get_matches_from_mut(args).ok()?;
    std::mem::forget(tool);
    let global = Global::from_arg_matches_mut(&mut matches).ok()?;
    let (_, mut command) = matches.remove_subcommand()?;
    let command = read(&mut command).ok()?;
    Some(Cli { global, command })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole tool's parse of `line`, as `run` falls back to it.
    fn whole(line: &[&str]) -> Result<Cli, clap::Error> {
        let mut tool = Cli::command();
        tool.try_get_matches_from_mut(line)
            .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches))
    }

    /// The gate commands' own parse takes a line only when the whole tool takes it, and
    /// then reads the same values (a setting on the command's entry in `Command`, or on
    /// `Cli`, that its own parse lacks would let a line through that the tool refuses,
    /// or read it otherwise).
    #[test]
    fn a_gate_command_alone_reads_a_line_as_the_whole_tool_does() {
        let gate_lines: &[&[&str]] = &[
            &[],
            &[
                "--base", "main", "--head", "HEAD", "--repo", "r", "--policy", "p.yaml",
            ],
            &["--base=HEAD~1", "--head=v1", "--format=json", "--copies"],
            &[
                "--format",
                "sarif",
                "--baseline",
                "b.sarif",
                "--templates",
                "t",
            ],
            &["--format", "markdown", "--color", "never"],
            &["--color=always", "--base", "-x"],
            &["--base=", "--head", ""],
            &["--declared", "low"],
            &["--declared", "HIGH"],
            &["--declared", "none"],
            &[
                "--task",
                "T-1",
                "--records",
                "a",
                "--records",
                "-",
                "--trusted-records",
                "t",
            ],
            &["--trusted-record", "x"],
            &["--format", "xml"],
            &["--format"],
            &["--base"],
            &["--base", "a", "--base", "b"],
            &["--copies=true"],
            &["--bogus"],
            &["extra"],
            &["--", "--base", "x"],
            &["--base", "x", "--"],
            &["-h"],
            &["--help"],
            &["-V"],
            &["--version"],
            &["help"],
            &["--color", "sometimes"],
        ];
        for command in ["classify", "check"] {
            for args in gate_lines {
                for color_first in [false, true] {
                    let mut line = vec!["handoff"];
                    if color_first {
                        line.extend(["--color", "never"]);
                    }
                    line.push(command);
                    line.extend(args.iter());
                    let os: Vec<OsString> = line.iter().map(OsString::from).collect();
                    let alone = parse_alone(&os).map(|cli| format!("{cli:?}"));
                    let whole = whole(&line).map(|cli| format!("{cli:?}"));
                    match (&alone, &whole) {
                        (Some(alone), Ok(whole)) => assert_eq!(alone, whole, "{line:?}"),
                        (None, Err(_)) => {}
                        // The own parse may decline a line (the tool then reads it).
                        (None, Ok(_)) => assert!(color_first, "{line:?} declined"),
                        (Some(_), Err(error)) => panic!("{line:?} taken; the tool: {error}"),
                    }
                }
            }
        }
    }
}
