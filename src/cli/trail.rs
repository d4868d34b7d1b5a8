//! `handoff trail …`: the tamper-evident trail of handoffs (docs/trail.md).
//!
//! Exit codes: 0 ok; 1 refused (not a legal next step, a registry refusal) or a finding
//! (`verify` found a break); 2 cannot run (bad input, an unreadable or damaged trail).

use super::output::{formats, write_stdout};
use super::{Failure, Outcome};
use handoff::{
    append_messages, appended_line, default_trail_dir, deferred_line, escalate_handoff,
    export_otlp, import_record_files, imported_text, list_handoffs, open_handoff,
    parse_utc_timestamp, prune_trail, repair_trail, show_handoff, take_steps, tick_trail,
    verify_trail, write_query, write_report, Deferred, EventType, Format, HandoffHistory,
    HandoffOutcome, HandoffType, HistoryReport, Initiation, ListReport, MessageCheckReport,
    OnTimeout, PruneReport, RepairReport, Report, RiskClass, ShowReport, Source, Spool, Step,
    Templates, Trail, TrailError, TrailErrorKind, TrailEvent, TrailFilter, TrailScope,
    VerifyReport,
};
use std::path::PathBuf;

/// Arguments of `handoff trail`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The trail directory (default: the `trail_dir` of the repository's `.handoff.yaml`,
    /// else `.handoff/trail/` of the repository, else of the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    trail: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Append handoff messages (handoff, acceptance, return, completion, failure) or events: one per line, a JSON array, or one document.
    Append(AppendArgs),
    /// Open a handoff (prints its handoff_id).
    Open(OpenArgs),
    /// The receiver accepts a handoff.
    Accept(AnswerArgs),
    /// The receiver rejects a handoff (final).
    Reject(RejectArgs),
    /// The work of a handoff is done (final).
    Complete(CompleteArgs),
    /// The work of a handoff failed (final).
    Fail(FailArgs),
    /// Escalate a handoff to the next agent up (prints the child handoff's id).
    Escalate(EscalateArgs),
    /// Re-initiate a timed-out handoff (attempt + 1, at most 3).
    Retry(IdArgs),
    /// Apply the timeouts that are due, with their on_timeout.
    Tick(TickArgs),
    /// Re-check the whole trail: chain, HEAD, ANCHOR and every lifecycle rule.
    Verify(VerifyArgs),
    /// Remove a torn last line (kept aside) and rewrite HEAD from an intact chain.
    Repair,
    /// Remove whole segments past the retention minimums (docs/trail.md).
    Prune(PruneArgs),
    /// The events matching a filter.
    Query(QueryArgs),
    /// One handoff: agents, status, duration, context, expectations, deliverables, events.
    Show(ShowArgs),
    /// The handoffs still open (with --all, every one), with their age.
    List(ListArgs),
    /// The chain of a task or a workflow, as text, JSON or a Mermaid diagram.
    History(HistoryArgs),
    /// Turn Interaction Records into trail events (importing twice adds nothing).
    Import(ImportArgs),
    /// Write the trail for another system: OpenTelemetry log records (OTLP/JSON).
    Export(ExportArgs),
}

#[derive(Debug, clap::Args)]
struct AppendArgs {
    /// The messages; `-` or nothing reads standard input.
    file: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct OpenArgs {
    /// The sender.
    #[arg(long)]
    from: String,
    /// The receiver.
    #[arg(long)]
    to: String,
    /// sequential, delegation, broadcast or escalation.
    #[arg(long = "type", value_name = "TYPE")]
    handoff_type: HandoffTypeArg,
    /// The task.
    #[arg(long)]
    task: String,
    /// Why.
    #[arg(long)]
    reason: String,
    /// The return timeout (30m, 2h, PT30M, 90); a delegation needs one.
    #[arg(long, value_name = "DUR")]
    timeout: Option<String>,
    /// What a timeout does.
    #[arg(long, value_enum)]
    on_timeout: Option<OnTimeoutArg>,
    /// Who a timeout escalates to (default: the sender).
    #[arg(long, value_name = "AGENT")]
    escalate_to: Option<String>,
    /// A required capability (`domain` or `domain: [qualifiers]`); repeatable.
    #[arg(long = "capability", value_name = "C")]
    capabilities: Vec<String>,
    /// The agent registry to validate against (every agent named must be in it).
    #[arg(long, value_name = "R")]
    registry: Option<PathBuf>,
    /// The workflow.
    #[arg(long, value_name = "ID")]
    workflow: Option<String>,
    /// The handoff this one escalates or re-routes.
    #[arg(long, value_name = "ID")]
    parent: Option<String>,
    /// Broadcast group: one handoff per recipient shares it.
    #[arg(long, value_name = "ID")]
    broadcast_group: Option<String>,
    /// Risk.
    #[arg(long, value_enum)]
    risk: Option<RiskArg>,
    /// Why (an escalation must say; default: the reason).
    #[arg(long, value_name = "TEXT")]
    rationale: Option<String>,
    /// The handoff id (default: a new UUIDv4).
    #[arg(long, value_name = "ID")]
    id: Option<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum HandoffTypeArg {
    Sequential,
    Delegation,
    Broadcast,
    Escalation,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OnTimeoutArg {
    Retry,
    Escalate,
    Fail,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum RiskArg {
    Low,
    Medium,
    High,
}

#[derive(Debug, clap::Args)]
struct IdArgs {
    /// The handoff id.
    id: String,
}

#[derive(Debug, clap::Args)]
struct AnswerArgs {
    /// The handoff id.
    id: String,
    /// Who answers; must be the handoff's receiver.
    #[arg(long, value_name = "AGENT")]
    by: Option<String>,
    /// Why.
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
}

#[derive(Debug, clap::Args)]
struct RejectArgs {
    /// The handoff id.
    id: String,
    /// Who rejects; must be the handoff's receiver.
    #[arg(long, value_name = "AGENT")]
    by: Option<String>,
    /// Why (required).
    #[arg(long, value_name = "TEXT")]
    reason: String,
}

#[derive(Debug, clap::Args)]
struct CompleteArgs {
    /// The handoff id.
    id: String,
    /// success or partial.
    #[arg(long, value_enum, default_value_t = OutcomeArg::Success)]
    outcome: OutcomeArg,
    /// Tokens the receiver used.
    #[arg(long, value_name = "N")]
    tokens: Option<u64>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OutcomeArg {
    Success,
    Partial,
}

#[derive(Debug, clap::Args)]
struct FailArgs {
    /// The handoff id.
    id: String,
    /// Why.
    #[arg(long, value_name = "TEXT")]
    reason: String,
}

#[derive(Debug, clap::Args)]
struct EscalateArgs {
    /// The handoff id.
    id: String,
    /// The next agent up.
    #[arg(long, value_name = "AGENT")]
    to: String,
    /// Why (the escalation's decision_rationale).
    #[arg(long, value_name = "TEXT")]
    reason: String,
}

#[derive(Debug, clap::Args)]
struct TickArgs {
    /// The time to apply (UTC; default: now).
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
}

#[derive(Debug, clap::Args)]
struct VerifyArgs {
    /// Output format: human or json.
    #[arg(long, value_parser = formats(&[Format::Human, Format::Json]), default_value_t = Format::Human)]
    format: Format,
}

#[derive(Debug, clap::Args)]
struct PruneArgs {
    /// The time to apply (UTC; default: now).
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
    /// Say what would go, remove nothing.
    #[arg(long)]
    dry_run: bool,
}

#[derive(Debug, clap::Args)]
struct QueryArgs {
    /// handoff_id equals.
    #[arg(long, value_name = "ID")]
    handoff: Option<String>,
    /// task_id equals.
    #[arg(long, value_name = "ID")]
    task: Option<String>,
    /// from_agent equals.
    #[arg(long, value_name = "A")]
    from: Option<String>,
    /// to_agent equals.
    #[arg(long, value_name = "B")]
    to: Option<String>,
    /// from_agent or to_agent equals.
    #[arg(long, value_name = "A")]
    agent: Option<String>,
    /// workflow_id equals.
    #[arg(long, value_name = "ID")]
    workflow: Option<String>,
    /// event_type is one of these; repeatable.
    #[arg(long = "event", value_name = "E")]
    events: Vec<String>,
    /// timestamp at or after (UTC).
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// timestamp before (UTC).
    #[arg(long, value_name = "TIME")]
    until: Option<String>,
    /// Output format: jsonl (the matching lines as stored), json (one array) or human.
    #[arg(long, value_parser = formats(&[Format::Jsonl, Format::Json, Format::Human]), default_value_t = Format::Jsonl)]
    format: Format,
}

/// Runs `handoff trail`.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let dir = match args.trail {
        Some(dir) => dir,
        None => default_trail_dir(&std::env::current_dir()?)?,
    };
    let trail = Trail::at(dir);
    match execute(&trail, args.command) {
        Ok(outcome) => Ok(outcome),
        Err(error) if error.kind == TrailErrorKind::Refused => {
            eprintln!("{error}");
            Ok(Outcome::Findings)
        }
        Err(error) => Err(Failure(error.to_string())),
    }
}

fn execute(trail: &Trail, command: Command) -> Result<Outcome, TrailError> {
    let now = jiff::Timestamp::now();
    match command {
        Command::Append(args) => append(trail, args),
        Command::Open(args) => open(trail, args),
        Command::Accept(args) => steps(
            trail,
            vec![Step::new(args.id, EventType::Accepted).because(args.reason)],
            args.by.as_deref(),
        ),
        Command::Reject(args) => steps(
            trail,
            vec![Step::new(args.id, EventType::Rejected).because(Some(args.reason))],
            args.by.as_deref(),
        ),
        Command::Complete(args) => {
            let mut step = Step::new(args.id, EventType::Completed);
            step.outcome = Some(match args.outcome {
                OutcomeArg::Success => HandoffOutcome::Success,
                OutcomeArg::Partial => HandoffOutcome::Partial,
            });
            step.tokens_consumed = args.tokens;
            steps(trail, vec![step], None)
        }
        Command::Fail(args) => steps(
            trail,
            vec![Step::new(args.id, EventType::Failed).because(Some(args.reason))],
            None,
        ),
        Command::Escalate(args) => {
            let scope = TrailScope::handoffs([args.id.clone()]);
            let (child, events) = trail.transact_in(&scope, now, |batch| {
                escalate_handoff(batch, &args.id, &args.to, &args.reason)
            })?;
            print_appended(&events, &[])?;
            print(&format!("{child}\n"))?;
            Ok(Outcome::Ok)
        }
        Command::Retry(args) => steps(trail, vec![Step::new(args.id, EventType::Initiated)], None),
        Command::Tick(args) => {
            let now = at(args.now.as_deref())?;
            let events = tick_trail(trail, now)?;
            print_appended(&events, &[])?;
            Ok(Outcome::Ok)
        }
        Command::Verify(args) => {
            let found = VerifyReport(verify_trail(trail)?);
            print_report(&found, args.format)?;
            Ok(if found.0.is_intact() {
                Outcome::Ok
            } else {
                Outcome::Findings
            })
        }
        Command::Repair => {
            let done = RepairReport(repair_trail(trail)?);
            print_report(&done, Format::Human)?;
            Ok(if done.0.remaining.is_empty() {
                Outcome::Ok
            } else {
                Outcome::Findings
            })
        }
        Command::Prune(args) => {
            let done = PruneReport(prune_trail(trail, at(args.now.as_deref())?, args.dry_run)?);
            print_report(&done, Format::Human)?;
            Ok(if done.0.breaks.is_empty() {
                Outcome::Ok
            } else {
                Outcome::Findings
            })
        }
        Command::Query(args) => run_query(trail, args),
        Command::Show(args) => show(trail, args),
        Command::List(args) => list(trail, args),
        Command::History(args) => history(trail, args),
        Command::Import(args) => import(trail, args),
        Command::Export(args) => export(trail, args),
    }
}

fn print(text: &str) -> Result<(), TrailError> {
    write_stdout(text).map_err(|Failure(message)| TrailError::plain(message))
}

/// Writes a report with the embedded layouts.
fn print_report<R: Report>(report: &R, format: Format) -> Result<(), TrailError> {
    let text = write_report(report, format, &Templates::embedded())
        .map_err(|e| TrailError::plain(e.to_string()))?;
    print(&text)
}

/// One line per appended event, then one per deferral.
fn print_appended(events: &[TrailEvent], deferred: &[Deferred]) -> Result<(), TrailError> {
    let mut text: String = events.iter().map(appended_line).collect();
    text.extend(deferred.iter().map(deferred_line));
    print(&text)
}

fn at(text: Option<&str>) -> Result<jiff::Timestamp, TrailError> {
    match text {
        Some(text) => {
            parse_utc_timestamp(text).map_err(|e| TrailError::plain(format!("--now: {e}")))
        }
        None => Ok(jiff::Timestamp::now()),
    }
}

fn append(trail: &Trail, args: AppendArgs) -> Result<Outcome, TrailError> {
    let input = args
        .file
        .as_deref()
        .map_or(Source::Stdin, Source::from_argument);
    let text = input.read().map_err(|e| TrailError::plain(e.to_string()))?;
    let mut lines = String::new();
    let appended = append_messages(
        trail,
        &input.name(),
        &text,
        jiff::Timestamp::now(),
        |event| lines.push_str(&appended_line(event)),
    )?;
    match appended {
        Ok(deferred) => {
            lines.extend(deferred.iter().map(deferred_line));
            print(&lines)?;
            Ok(Outcome::Ok)
        }
        Err(document) => {
            let checked = MessageCheckReport {
                documents: vec![document],
            };
            let mut problems = write_report(&checked, Format::Human, &Templates::embedded())
                .map_err(|e| TrailError::plain(e.to_string()))?;
            problems.push_str("nothing appended: fix the messages above (`handoff message check`)");
            Err(TrailError::plain(problems))
        }
    }
}

fn open(trail: &Trail, args: OpenArgs) -> Result<Outcome, TrailError> {
    let handoff_type = match args.handoff_type {
        HandoffTypeArg::Sequential => HandoffType::Sequential,
        HandoffTypeArg::Delegation => HandoffType::Delegation,
        HandoffTypeArg::Broadcast => HandoffType::Broadcast,
        HandoffTypeArg::Escalation => HandoffType::Escalation,
    };
    let mut request = Initiation::new(&args.from, &args.to, handoff_type, args.task, &args.reason);
    if let Some(id) = args.id {
        request.handoff_id = id;
    }
    request.timeout = args.timeout;
    request.on_timeout = args.on_timeout.map(|o| match o {
        OnTimeoutArg::Retry => OnTimeout::Retry,
        OnTimeoutArg::Escalate => OnTimeout::Escalate,
        OnTimeoutArg::Fail => OnTimeout::Fail,
    });
    request.escalate_to = args.escalate_to;
    request.required_capabilities = args.capabilities;
    request.workflow_id = args.workflow;
    request.parent_handoff = args.parent;
    request.broadcast_group_id = args.broadcast_group;
    request.risk_level = args.risk.map(|r| match r {
        RiskArg::Low => RiskClass::Low,
        RiskArg::Medium => RiskClass::Medium,
        RiskArg::High => RiskClass::High,
    });
    request.decision_rationale = args.rationale;
    let (id, events) = open_handoff(
        trail,
        request,
        args.registry.as_deref(),
        jiff::Timestamp::now(),
    )?;
    for warning in events.iter().flat_map(|e| e.warnings.iter()) {
        eprintln!("warning: {warning}");
    }
    print(&format!("{id}\n"))?;
    Ok(Outcome::Ok)
}

/// Takes the steps (`by`, when given, must be each handoff's receiver) and prints what
/// was appended.
fn steps(trail: &Trail, steps: Vec<Step>, by: Option<&str>) -> Result<Outcome, TrailError> {
    let events = take_steps(trail, steps, by, jiff::Timestamp::now())?;
    print_appended(&events, &[])?;
    Ok(Outcome::Ok)
}

fn run_query(trail: &Trail, args: QueryArgs) -> Result<Outcome, TrailError> {
    let filter = TrailFilter {
        handoff: args.handoff,
        task: args.task,
        from: args.from,
        to: args.to,
        agent: args.agent,
        events: TrailFilter::event_types(&args.events)?,
        workflow: args.workflow,
        since: args
            .since
            .as_deref()
            .map(TrailFilter::time_bound)
            .transpose()?,
        until: args
            .until
            .as_deref()
            .map(TrailFilter::time_bound)
            .transpose()?,
    };
    // A JSON array is held back until the last event is read: an error (a line that is
    // not an event) then leaves standard output empty instead of half an array.
    let mut spool = (args.format == Format::Json).then(Spool::default);
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    use std::io::Write;
    write_query(trail, &filter, args.format, |bytes| match spool.as_mut() {
        Some(spool) => spool.write_all(bytes).map_err(spool_error),
        None => match out.write_all(bytes) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(TrailError::plain(
                format!("cannot write to standard output: {e}"),
            )),
            _ => Ok(()),
        },
    })?;
    if let Some(spool) = spool {
        copy_out(spool, &mut out)?;
    }
    let _ = out.flush();
    Ok(Outcome::Ok)
}

/// Why output could not be held back.
fn spool_error(error: std::io::Error) -> TrailError {
    TrailError::plain(format!(
        "cannot hold the output back in a temporary file: {error}"
    ))
}

/// Writes held-back output to standard output; a closed pipe is not an error.
fn copy_out(spool: Spool, out: &mut impl std::io::Write) -> Result<(), TrailError> {
    match spool.copy_to(out) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(TrailError::plain(format!(
            "cannot write to standard output: {e}"
        ))),
        _ => Ok(()),
    }
}

#[derive(Debug, clap::Args)]
struct ShowArgs {
    /// The handoff id.
    id: String,
    /// Output format: human (004's "View Handoff") or json.
    #[arg(long, value_parser = formats(ShowReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
}

#[derive(Debug, clap::Args)]
struct ListArgs {
    /// Only the handoffs this agent sends or receives.
    #[arg(long, value_name = "A")]
    agent: Option<String>,
    /// Every handoff, ended ones too.
    #[arg(long)]
    all: bool,
    /// The time ages are counted to (UTC; default: now).
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
    /// Output format: human, json or markdown (004's table).
    #[arg(long, value_parser = formats(ListReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
}

#[derive(Debug, clap::Args)]
struct HistoryArgs {
    /// The task whose chain to draw.
    #[arg(
        long,
        value_name = "ID",
        conflicts_with = "workflow",
        required_unless_present = "workflow"
    )]
    task: Option<String>,
    /// The workflow whose chain to draw.
    #[arg(long, value_name = "ID")]
    workflow: Option<String>,
    /// Output format: human (004's chain), json, or mermaid (a sequence diagram).
    #[arg(long, value_parser = formats(HistoryReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
}

fn show(trail: &Trail, args: ShowArgs) -> Result<Outcome, TrailError> {
    trail.require()?;
    match show_handoff(trail, &args.id)? {
        Some(view) => {
            print_report(&ShowReport(view), args.format)?;
            Ok(Outcome::Ok)
        }
        None => Err(TrailError::refused(format!(
            "no handoff `{}` in the trail {}; `handoff trail list --all` lists them",
            args.id,
            trail.dir().display()
        ))),
    }
}

fn list(trail: &Trail, args: ListArgs) -> Result<Outcome, TrailError> {
    trail.require()?;
    let now = at(args.now.as_deref())?;
    let rows = list_handoffs(trail, args.agent.as_deref(), args.all, now)?;
    print_report(&ListReport(rows), args.format)?;
    Ok(Outcome::Ok)
}

fn history(trail: &Trail, args: HistoryArgs) -> Result<Outcome, TrailError> {
    trail.require()?;
    let history = match (args.task, args.workflow) {
        (Some(task), _) => HandoffHistory::of_task(trail, task)?,
        (None, Some(workflow)) => HandoffHistory::of_workflow(trail, workflow)?,
        (None, None) => {
            return Err(TrailError::plain(
                "history needs --task ID or --workflow ID",
            ))
        }
    };
    print_report(&HistoryReport(history), args.format)?;
    Ok(Outcome::Ok)
}

#[derive(Debug, clap::Args)]
struct ImportArgs {
    /// Record files or directories of them (`.md`, `.markdown`).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct ExportArgs {
    /// The export format: otlp-json (OpenTelemetry log records).
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// Only events at or after this time (UTC).
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ExportFormat {
    /// OpenTelemetry log records, OTLP/JSON.
    OtlpJson,
}

fn import(trail: &Trail, args: ImportArgs) -> Result<Outcome, TrailError> {
    let imported = import_record_files(trail, &args.paths)?;
    print(&imported_text(&imported))?;
    Ok(match imported.skipped.is_empty() {
        true => Outcome::Ok,
        false => Outcome::Findings,
    })
}

fn export(trail: &Trail, args: ExportArgs) -> Result<Outcome, TrailError> {
    trail.require()?;
    let ExportFormat::OtlpJson = args.format;
    let filter = TrailFilter {
        since: args
            .since
            .as_deref()
            .map(TrailFilter::time_bound)
            .transpose()?,
        ..TrailFilter::default()
    };
    // Held back until the last event is read, so that an error leaves standard output
    // empty instead of half a document.
    let mut spool = Spool::default();
    export_otlp(trail, &filter, &mut spool)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    copy_out(spool, &mut out)?;
    use std::io::Write;
    match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(TrailError::plain(format!(
            "cannot write to standard output: {e}"
        ))),
        _ => Ok(Outcome::Ok),
    }
}
