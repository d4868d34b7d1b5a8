//! `handoff route`: choose the agent for a task from a registry, by the protocol's rules,
//! and print the `## Routing Decision` record (or its JSON).
//!
//! Exit 0 with a decision; 1 when no agent has the capability (escalate) or agents are
//! still tied and no `--pick` documents the choice; 2 when the registry, the aliases or
//! the request cannot be used.

use super::output::{formats, write_stdout, TemplatesArg};
use super::{Failure, Outcome};
use handoff::normalise_term;
use handoff::Templates;
use handoff::{load_registry, parse_capability, request_warnings, route};
use handoff::{write_report, Format, Report, RouteReport};
use handoff::{Pick, RouteRequest, RoutingOutcome};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `handoff route`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The agent registry: a directory of agent Markdown files, a capability index YAML
    /// (`by_agent:`), or a plain registry YAML (`agents:`).
    #[arg(long, value_name = "PATH")]
    registry: PathBuf,
    /// The capability the task needs, e.g. "auth: [oauth2, pkce]".
    #[arg(long)]
    capability: String,
    /// The aliases file (default: `capability-aliases.yaml` inside or next to the registry).
    #[arg(long, value_name = "FILE")]
    aliases: Option<PathBuf>,
    /// The task being routed, e.g. ENG-042.
    #[arg(long, value_name = "ID")]
    task: Option<String>,
    /// The agent asking; its department breaks ties by department affinity.
    #[arg(long, value_name = "AGENT")]
    requester: Option<String>,
    /// The orchestrator's documented choice when agents are still tied.
    #[arg(long, value_name = "AGENT", requires = "reason")]
    pick: Option<String>,
    /// Why the picked agent fits the task (written into the Reason field).
    #[arg(long, value_name = "TEXT", requires = "pick")]
    reason: Option<String>,
    /// Output format (`md` is accepted for `markdown`).
    #[arg(long, value_parser = formats(RouteReport::FORMATS), default_value_t = Format::Markdown)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Routes the task and prints the decision.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let (registry, aliases) = load_registry(&args.registry, args.aliases.as_deref())?;
    let capability = parse_capability(&args.capability)?;
    {
        let mut stderr = std::io::stderr().lock();
        for warning in request_warnings(&registry, &aliases, &capability, args.requester.as_deref())
        {
            let _ = writeln!(stderr, "warning: {warning}");
        }
    }
    let request = RouteRequest {
        capability,
        requester: args.requester.clone(),
        pick: args
            .pick
            .clone()
            .zip(args.reason.clone())
            .map(|(agent, reason)| Pick { agent, reason }),
    };
    let outcome = route(&registry, &aliases, &request)?;
    let task = args.task.as_deref();
    let requester = args.requester.as_deref().map(normalise_term);
    let templates = match args.format {
        Format::Markdown => args.templates.load()?,
        _ => Templates::embedded(),
    };
    let report = RouteReport::new(
        &outcome,
        task,
        requester.as_deref(),
        args.format,
        &templates,
    )?;
    write_stdout(&write_report(&report, args.format, &templates)?)?;
    Ok(match outcome {
        RoutingOutcome::Selected(_) => Outcome::Ok,
        _ => Outcome::Findings,
    })
}
