//! `handoff new <kind>`: a new record in canonical form, ready to fill.
//!
//! Every value given on the command line is validated (a bad enumeration exits 2 and
//! names the allowed values; a `--set` value is checked as `lint` checks it, by
//! [`handoff::set_checked_value`]), then fills the kind's skeleton
//! ([`handoff::skeleton`], `templates/new/`): every field and section not given
//! keeps the seed template's placeholder, so `handoff lint` points at what is left.

use super::output::{write_stdout, TemplatesArg};
use super::{Failure, Outcome};
use handoff::{
    render, set_checked_value, skeleton, timestamp_or_now, write_new_record, FailureType, Record,
    RecordKind, RiskClass, SkeletonValues, Templates, Transport,
};
use std::path::PathBuf;

/// What to create.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NewKind {
    /// An Interaction Record asking a peer for input.
    Consultation,
    /// An Interaction Record passing work forward.
    Handoff,
    /// An Interaction Record submitting work for review.
    Review,
    /// An Interaction Record for an agent that is stuck.
    Escalation,
    /// An Interaction Record asking for a capability.
    CapabilityRequest,
    /// An Interaction Record asking to touch files outside the declared scope.
    ScopeExpansion,
    /// A Task Assignment with its file scope.
    TaskAssignment,
    /// A Routing Decision.
    RoutingDecision,
}

/// Arguments of `handoff new`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The kind of record.
    #[arg(value_enum)]
    kind: NewKind,
    /// Task ID, e.g. ENG-042.
    #[arg(long)]
    task: Option<String>,
    /// The sender (Interaction Records).
    #[arg(long)]
    from: Option<String>,
    /// The receiver (Interaction Records), or the assignee (Task Assignment).
    #[arg(long)]
    to: Option<String>,
    /// Risk class: low, medium or high.
    #[arg(long, value_parser = parse_risk)]
    risk: Option<RiskClass>,
    /// Transport: agent-teams or orchestrator-mediated.
    #[arg(long, value_parser = parse_transport)]
    transport: Option<Transport>,
    /// `now` (UTC) or an RFC 3339 timestamp with a zone.
    #[arg(long, default_value = "now", value_parser = timestamp_or_now)]
    timestamp: String,
    /// Expected file scope of a Task Assignment, comma-separated.
    #[arg(long, value_delimiter = ',')]
    scope: Vec<String>,
    /// A path a scope expansion asks for (repeatable).
    #[arg(long = "path")]
    paths: Vec<String>,
    /// An escalation's failure type.
    #[arg(long, value_parser = parse_failure_type)]
    failure_type: Option<FailureType>,
    /// Any header field, `KEY=VALUE` (repeatable).
    #[arg(long = "set", value_parser = parse_pair)]
    sets: Vec<(String, String)>,
    /// A section's text, `TITLE=TEXT` (repeatable).
    #[arg(long = "section", value_parser = parse_pair)]
    sections: Vec<(String, String)>,
    /// Write to this file instead of standard output (its directory is created if missing).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    templates: TemplatesArg,
}

fn parse_risk(text: &str) -> Result<RiskClass, String> {
    text.parse()
        .map_err(|error: handoff::UnknownRiskClass| error.to_string())
}

fn parse_transport(text: &str) -> Result<Transport, String> {
    Transport::parse(text).ok_or_else(|| format!("expected one of: {}", Transport::allowed()))
}

fn parse_failure_type(text: &str) -> Result<FailureType, String> {
    FailureType::parse(text).ok_or_else(|| format!("expected one of: {}", FailureType::allowed()))
}

fn parse_pair(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(key, value)| (key.trim().to_string(), value.to_string()))
        .filter(|(key, _)| !key.is_empty())
        .ok_or_else(|| "expected KEY=VALUE".to_string())
}

/// Builds, renders and writes the record.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    check_applicable(&args)?;
    let templates = args.templates.load()?;
    let record = build(&args, &templates)?;
    let text = render(&record, &templates)?;
    match &args.output {
        Some(path) => write_new_record(path, &text, args.force)?,
        None => write_stdout(&text)?,
    }
    Ok(Outcome::Ok)
}

fn kind_of(kind: NewKind) -> RecordKind {
    match kind {
        NewKind::TaskAssignment => RecordKind::TaskAssignment,
        NewKind::RoutingDecision => RecordKind::RoutingDecision,
        _ => RecordKind::InteractionRecord,
    }
}

/// Refuses flags that have no field in the chosen kind.
fn check_applicable(args: &Args) -> Result<(), Failure> {
    let kind = kind_of(args.kind);
    let interaction = kind == RecordKind::InteractionRecord;
    let checks = [
        ("--from", args.from.is_some(), interaction),
        (
            "--to",
            args.to.is_some(),
            kind != RecordKind::RoutingDecision,
        ),
        ("--transport", args.transport.is_some(), interaction),
        (
            "--risk",
            args.risk.is_some(),
            kind != RecordKind::RoutingDecision,
        ),
        (
            "--scope",
            !args.scope.is_empty(),
            kind == RecordKind::TaskAssignment,
        ),
        (
            "--path",
            !args.paths.is_empty(),
            args.kind == NewKind::ScopeExpansion,
        ),
        (
            "--failure-type",
            args.failure_type.is_some(),
            args.kind == NewKind::Escalation,
        ),
    ];
    match checks.iter().find(|(_, given, applies)| *given && !applies) {
        Some((flag, _, _)) => Err(Failure(format!(
            "{flag} does not apply to a {} record",
            new_kind_name(args.kind)
        ))),
        None => Ok(()),
    }
}

fn new_kind_name(kind: NewKind) -> &'static str {
    match kind {
        NewKind::Consultation => "consultation",
        NewKind::Handoff => "handoff",
        NewKind::Review => "review",
        NewKind::Escalation => "escalation",
        NewKind::CapabilityRequest => "capability-request",
        NewKind::ScopeExpansion => "scope-expansion",
        NewKind::TaskAssignment => "task-assignment",
        NewKind::RoutingDecision => "routing-decision",
    }
}

fn build(args: &Args, templates: &Templates) -> Result<Record, Failure> {
    let values = SkeletonValues {
        task: args.task.clone(),
        from: args.from.clone(),
        to: args.to.clone(),
        transport: args.transport.map(|t| t.to_string()),
        risk: args.risk.map(|r| r.to_string()),
        timestamp: args.timestamp.clone(),
        scope: args.scope.clone(),
        paths: args.paths.clone(),
        failure_type: args.failure_type.map(|f| f.to_string()),
    };
    let mut record = skeleton(new_kind_name(args.kind), &values, templates)?;
    for (key, value) in &args.sets {
        set_checked_value(&mut record, key, value)
            .map_err(|error| Failure(format!("--set {error}")))?;
    }
    for (title, text) in &args.sections {
        record.set_section(title, text);
    }
    Ok(record)
}
