//! `handoff new <kind>`: a new record in canonical form, ready to fill.
//!
//! Every value given on the command line is validated (a bad enumeration exits 2 and
//! names the allowed values), then fills the kind's skeleton
//! ([`handoff::skeleton`], `templates/new/`): every field and section not given
//! keeps the seed template's placeholder, so `handoff lint` points at what is left.

use super::output::{write_stdout, TemplatesArg};
use super::{Failure, Outcome};
use handoff::RiskClass;
use handoff::{create_new, replace_atomically};
use handoff::{is_valid_timestamp, utc_now_rfc3339};
use handoff::{
    render, skeleton, FailureType, FieldKey, InteractionType, Record, RecordKind, SkeletonValues,
    Templates, Transport,
};
use std::path::{Path, PathBuf};

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
    #[arg(long, default_value = "now", value_parser = parse_timestamp)]
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

fn parse_timestamp(text: &str) -> Result<String, String> {
    if text.eq_ignore_ascii_case("now") {
        return Ok(utc_now_rfc3339());
    }
    if is_valid_timestamp(text) {
        Ok(text.to_string())
    } else {
        Err("expected `now` or RFC 3339 with a zone, e.g. 2026-01-11T20:30:00Z".to_string())
    }
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
        Some(path) => write_new(path, &text, args.force)?,
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
        check_value(&record, key, value)?;
        record.set_field(key, value);
    }
    for (title, text) in &args.sections {
        record.set_section(title, text);
    }
    Ok(record)
}

/// Validates a `--set` value for an enumerated key.
fn check_value(record: &Record, key: &str, value: &str) -> Result<(), Failure> {
    let problem = match record.kind.key_named(key) {
        Some(FieldKey::Type) if InteractionType::parse(value).is_none() => {
            Some(format!("expected one of: {}", InteractionType::allowed()))
        }
        Some(FieldKey::Transport) => parse_transport(value).err(),
        Some(FieldKey::RiskClass) => parse_risk(value).err(),
        Some(FieldKey::Timestamp) => parse_timestamp(value).err(),
        _ => None,
    };
    match problem {
        Some(problem) => Err(Failure(format!("--set {key}={value}: {problem}"))),
        None => Ok(()),
    }
}

/// Writes a new file; an existing one only with `--force` (then atomically).
fn write_new(path: &Path, text: &str, force: bool) -> Result<(), Failure> {
    if path.is_dir() {
        return Err(Failure(format!(
            "{}: is a directory; pass -o the path of the file to create, e.g. {}",
            path.display(),
            path.join("ENG-042-review.md").display()
        )));
    }
    // `-o .handoff/x.md` must work in a repository that has no records yet.
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent).map_err(|error| {
            Failure(format!(
                "{}: cannot create the directory for {}: {error}",
                parent.display(),
                path.display()
            ))
        })?;
    }
    let written = match force {
        true => replace_atomically(path, text.as_bytes()),
        false => create_new(path, text.as_bytes()),
    };
    written.map_err(|error| match error.kind() {
        std::io::ErrorKind::AlreadyExists => Failure(format!(
            "{} already exists; pass --force to overwrite it",
            path.display()
        )),
        _ => Failure(format!("{}: cannot write: {error}", path.display())),
    })
}
