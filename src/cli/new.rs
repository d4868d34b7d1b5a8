//! `handoff new <kind>`: a new record in canonical form, ready to fill.
//!
//! Every value given on the command line is validated (a bad enumeration exits 2 and
//! names the allowed values). Every field and section not given keeps the seed
//! template's placeholder, so `handoff lint` points at exactly what is left to fill.

use super::output::write_stdout;
use super::{Failure, Outcome};
use handoff::io::{create_new, replace_atomically};
use handoff::record::fields::{format_list, is_valid_timestamp, utc_now_rfc3339};
use handoff::record::{
    render, FailureType, FieldKey, InteractionType, Record, RecordKind, Templates, Transport,
};
use handoff::risk::RiskClass;
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
    /// A directory whose templates override the embedded ones, file by file.
    #[arg(long)]
    templates: Option<PathBuf>,
}

fn parse_risk(text: &str) -> Result<RiskClass, String> {
    text.parse()
        .map_err(|error: handoff::risk::UnknownRiskClass| error.to_string())
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

/// The seed's section placeholders.
const CONTEXT: &str = "[What's been done, relevant files, current state. Be specific — the receiver cold-reads this.]";
const REQUEST: &str =
    "[Specific ask — what the sender needs from the receiver. One sentence if possible.]";
const CONSTRAINTS: &str =
    "[Timeline, technical limits, dependencies, files that must not be touched.]";
const EVIDENCE: &str = "[Risk-class-appropriate evidence — see Evidence Bundles section below.]";
const DECISION: &str =
    "[Filled by the receiver: what was decided, rationale, next steps. Left blank when sending.]";

/// Builds, renders and writes the record.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    check_applicable(&args)?;
    let record = build(&args)?;
    let templates = match &args.templates {
        Some(dir) => Templates::with_overrides(dir)?,
        None => Templates::embedded(),
    };
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

fn build(args: &Args) -> Result<Record, Failure> {
    let mut record = Record::new(kind_of(args.kind));
    let task = args.task.as_deref().unwrap_or("[DEPT-NNN, e.g., ENG-042]");
    record.set_field("Task ID", task);
    match record.kind {
        RecordKind::InteractionRecord => fill_interaction(&mut record, args),
        RecordKind::TaskAssignment => fill_assignment(&mut record, args),
        RecordKind::RoutingDecision => fill_routing(&mut record),
    }
    for (key, value) in &args.sets {
        check_value(&record, key, value)?;
        record.set_field(key, value);
    }
    for (title, text) in &args.sections {
        record.set_section(title, text);
    }
    Ok(record)
}

fn risk_text(args: &Args) -> String {
    args.risk
        .map_or("[low | medium | high]".to_string(), |risk| risk.to_string())
}

fn fill_interaction(record: &mut Record, args: &Args) {
    let interaction_type = match args.kind {
        NewKind::Handoff => InteractionType::Handoff,
        NewKind::Review => InteractionType::Review,
        NewKind::Escalation => InteractionType::Escalation,
        NewKind::CapabilityRequest => InteractionType::CapabilityRequest,
        _ => InteractionType::Consultation,
    };
    let transport = args.transport.map(|t| t.to_string());
    record
        .set_field("Type", interaction_type.as_str())
        .set_field(
            "From",
            args.from.as_deref().unwrap_or("[sender agent name]"),
        )
        .set_field(
            "To",
            args.to
                .as_deref()
                .unwrap_or("[receiver agent name or orchestrator]"),
        )
        .set_field(
            "Transport",
            transport
                .as_deref()
                .unwrap_or("[agent-teams | orchestrator-mediated]"),
        )
        .set_field("Risk Class", &risk_text(args))
        .set_field("Timestamp", &args.timestamp)
        .push_section("Context", CONTEXT)
        .push_section("Request", &request_text(args))
        .push_section("Constraints", CONSTRAINTS)
        .push_section("Evidence Bundle", EVIDENCE)
        .push_section("Decision", DECISION);
}

fn request_text(args: &Args) -> String {
    match args.kind {
        NewKind::Escalation => {
            let failure = args.failure_type.map_or_else(
                || format!("[{}]", FailureType::allowed().replace(", ", " | ")),
                |ft| ft.to_string(),
            );
            format!("Failure Type: {failure}\nNeed: [the capability or information that would unblock you]")
        }
        NewKind::CapabilityRequest => "Capability needed: [domain + [qualifier, ...]]\nReason: [why you need it]\nUrgency: [blocking | non-blocking]".to_string(),
        NewKind::ScopeExpansion => {
            let paths = if args.paths.is_empty() {
                "[path/to/file]".to_string()
            } else {
                args.paths.iter().map(|path| format!("`{path}`")).collect::<Vec<_>>().join(", ")
            };
            format!("Scope expansion: need to also modify {paths} because [reason]")
        }
        _ => REQUEST.to_string(),
    }
}

fn fill_assignment(record: &mut Record, args: &Args) {
    let scope = if args.scope.is_empty() {
        "[path/or/glob, ...]".to_string()
    } else {
        format_list(&args.scope)
    };
    record
        .set_field("Assigned to", args.to.as_deref().unwrap_or("[agent name]"))
        .set_field("Expected file scope", &scope)
        .set_field("Baseline SHA", "<git rev-parse HEAD at dispatch>")
        .set_field("Risk Class", &risk_text(args))
        .set_field("Capability routed", "[domain: [qualifier, ...]]");
}

fn fill_routing(record: &mut Record) {
    record
        .set_field("Requested capability", "[domain: [qualifier, ...]]")
        .set_field("Matched agents", "[agent (domain: [qualifiers]), ...]")
        .set_field("Selected", "[agent name]")
        .set_field("Reason", "[why this agent: the rule that decided]")
        .set_field("Rejected", "[agent — reason; ...]")
        .set_field(
            "Tie-break rule applied",
            "[qualifier-match | department-affinity | documented-choice | none]",
        );
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
