//! `handoff route`: choose the agent for a task from a registry, by the protocol's rules,
//! and print the `## Routing Decision` record (or its JSON).
//!
//! Exit 0 with a decision; 1 when no agent has the capability (escalate) or agents are
//! still tied and no `--pick` documents the choice; 2 when the registry, the aliases or
//! the request cannot be used.

use super::output::write_stdout;
use super::{Failure, Outcome};
use handoff::record::{render, Record, RecordKind, Templates};
use handoff::routing::aliases::Aliases;
use handoff::routing::artifact::{matched_agents, record_fields};
use handoff::routing::normalise::normalise_term;
use handoff::routing::{
    parse_capability, route, Candidate, Capability, Decision, Pick, Registry, Rejection,
    RouteRequest, RoutingOutcome, Rule,
};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    format: Format,
    /// A directory whose templates override the embedded ones, file by file.
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
}

fn templates(dir: Option<&Path>) -> Result<Templates, Failure> {
    Ok(match dir {
        Some(dir) => Templates::with_overrides(dir)?,
        None => Templates::embedded(),
    })
}

/// How `handoff route` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// The `## Routing Decision` record, canonical Markdown.
    Md,
    /// The decision as JSON (see docs/routing.md).
    Json,
}

/// Routes the task and prints the decision.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let (registry, aliases) = load(&args.registry, args.aliases.as_deref())?;
    let capability = parse_capability(&args.capability)?;
    warn_about_request(&registry, &aliases, &capability, args.requester.as_deref());
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
    let text = match args.format {
        Format::Md => markdown(&outcome, task, &templates(args.templates.as_deref())?)?,
        Format::Json => json(&outcome, task, requester.as_deref())?,
    };
    write_stdout(&text)?;
    Ok(match outcome {
        RoutingOutcome::Selected(_) => Outcome::Ok,
        _ => Outcome::Findings,
    })
}

/// Reads the registry and its aliases (given, discovered, or none), and gives agents
/// the departments the aliases file lists.
pub fn load(
    registry_path: &Path,
    aliases_path: Option<&Path>,
) -> Result<(Registry, Aliases), Failure> {
    let mut registry = Registry::load(registry_path)?;
    let aliases = match aliases_path
        .map(Path::to_path_buf)
        .or_else(|| Aliases::discover(registry_path))
    {
        Some(path) => Aliases::load(&path)?,
        None => Aliases::default(),
    };
    registry.assign_departments(aliases.departments());
    Ok((registry, aliases))
}

fn warn_about_request(
    registry: &Registry,
    aliases: &Aliases,
    capability: &Capability,
    requester: Option<&str>,
) {
    let mut stderr = std::io::stderr().lock();
    for qualifier in &capability.qualifiers {
        if let Some(forms) = aliases.ambiguous_variants().get(qualifier) {
            let forms = forms.join(", ");
            let _ = writeln!(stderr, "warning: qualifier `{qualifier}` is an alias of several qualifiers ({forms}); it is matched as written");
        }
    }
    if let Some(name) = requester.map(normalise_term) {
        match registry.agent(&name) {
            None => {
                let _ = writeln!(stderr, "warning: requester `{name}` is not in the registry; department affinity cannot apply");
            }
            Some(agent) if agent.department.is_none() => {
                let _ = writeln!(stderr, "warning: requester `{name}` has no department; department affinity cannot apply");
            }
            Some(_) => {}
        }
    }
}

fn markdown(
    outcome: &RoutingOutcome,
    task: Option<&str>,
    templates: &Templates,
) -> Result<String, Failure> {
    Ok(match outcome {
        RoutingOutcome::Selected(decision) => render_record(decision, task, templates)?,
        RoutingOutcome::NoCandidates { capability } => format!(
            "no agent declares the domain `{}` (asked: `{capability}`): escalate the task, no agent has the capability\n",
            capability.domain
        ),
        RoutingOutcome::Tied {
            capability, candidates, tied, ..
        } => tie_report(capability, candidates, tied),
    })
}

fn tie_report(capability: &Capability, candidates: &[Candidate], tied: &[String]) -> String {
    let mut text = format!(
        "tie: {} agents are still tied for {capability} after qualifier-match and department-affinity:\n",
        tied.len()
    );
    for candidate in candidates.iter().filter(|c| tied.contains(&c.agent)) {
        text.push_str(&format!(
            "  {}\n",
            matched_agents(std::slice::from_ref(candidate), &capability.domain)
        ));
    }
    text.push_str("the tool never picks silently: re-run with --pick AGENT --reason \"why this agent fits the task\"\n");
    text
}

/// Renders the decision as a canonical `## Routing Decision` record through the record
/// templates (embedded, or a user's directory overriding them).
fn render_record(
    decision: &Decision,
    task: Option<&str>,
    templates: &Templates,
) -> Result<String, Failure> {
    let mut record = Record::new(RecordKind::RoutingDecision);
    for (key, value) in record_fields(decision, task) {
        record.set_field(key, &value);
    }
    Ok(render(&record, templates)?)
}

/// The JSON contract of `handoff route --format json`: every key always present.
#[derive(Debug, Serialize)]
struct Report<'a> {
    outcome: &'static str,
    task_id: Option<&'a str>,
    requested_capability: &'a Capability,
    requester: Option<&'a str>,
    candidates: &'a [Candidate],
    selected: Option<&'a str>,
    reason: Option<&'a str>,
    rejected: &'a [Rejection],
    tie_break: Option<&'static str>,
    tied: &'a [String],
}

fn json(
    outcome: &RoutingOutcome,
    task_id: Option<&str>,
    requester: Option<&str>,
) -> Result<String, Failure> {
    let report = match outcome {
        RoutingOutcome::Selected(d) => Report {
            outcome: "selected",
            task_id,
            requested_capability: &d.capability,
            requester,
            candidates: &d.candidates,
            selected: Some(&d.selected),
            reason: Some(&d.reason),
            rejected: &d.rejected,
            tie_break: Some(Rule::label(d.tie_break)),
            tied: &[],
        },
        RoutingOutcome::NoCandidates { capability } => Report {
            outcome: "no-candidates",
            task_id,
            requested_capability: capability,
            requester,
            candidates: &[],
            selected: None,
            reason: None,
            rejected: &[],
            tie_break: None,
            tied: &[],
        },
        RoutingOutcome::Tied {
            capability,
            candidates,
            tied,
            rejected,
        } => Report {
            outcome: "tied",
            task_id,
            requested_capability: capability,
            requester,
            candidates,
            selected: None,
            reason: None,
            rejected,
            tie_break: None,
            tied,
        },
    };
    Ok(serde_json::to_string_pretty(&report)? + "\n")
}
