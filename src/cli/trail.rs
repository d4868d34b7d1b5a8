//! `handoff trail …`: the tamper-evident trail of handoffs (docs/trail.md).
//!
//! Exit codes: 0 ok; 1 refused (not a legal next step, a registry refusal) or a finding
//! (`verify` found a break); 2 cannot run (bad input, an unreadable or damaged trail).

use super::output::{formats, write_stdout};
use super::{Failure, Outcome};
use handoff::{
    append_messages, appended_line, default_trail_dir, deferred_line, escalate_handoff, event_line,
    follow_handoff, initiate_handoff, parse_utc_timestamp, prune_trail, query_trail, repair_trail,
    tick_trail, validate_against_registry, verify_trail, write_report, Deferred, EventType, Format,
    HandoffOutcome, HandoffType, Initiation, MessageCheckReport, OnTimeout, PruneReport, Registry,
    RepairReport, Report, RiskClass, Source, Step, Templates, Trail, TrailError, TrailErrorKind,
    TrailEvent, TrailFilter, TrailScope, VerifyReport,
};
use handoff::{
    export_otlp, handoff_views, import_records, list_handoffs, markdown_files, parse_document,
    show_handoff, Depth, HandoffHistory, HistoryReport, ListReport, ShowReport,
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
        Command::Accept(args) => answer(trail, &args.id, args.by, EventType::Accepted, args.reason),
        Command::Reject(args) => answer(
            trail,
            &args.id,
            args.by,
            EventType::Rejected,
            Some(args.reason),
        ),
        Command::Complete(args) => {
            let mut step = Step::new(args.id, EventType::Completed);
            step.outcome = Some(match args.outcome {
                OutcomeArg::Success => HandoffOutcome::Success,
                OutcomeArg::Partial => HandoffOutcome::Partial,
            });
            step.tokens_consumed = args.tokens;
            steps(trail, vec![step])
        }
        Command::Fail(args) => steps(
            trail,
            vec![Step::new(args.id, EventType::Failed).because(Some(args.reason))],
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
        Command::Retry(args) => steps(trail, vec![Step::new(args.id, EventType::Initiated)]),
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
    let input = match args.file {
        Some(path) if path.as_os_str() != "-" => Source::File(path),
        _ => Source::Stdin,
    };
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
    if handoff_type == HandoffType::Delegation && args.timeout.is_none() {
        return Err(TrailError::plain(
            "a delegation needs --timeout DUR (the maximum wait for the return), e.g. --timeout 30m",
        ));
    }
    if handoff_type == HandoffType::Broadcast && args.broadcast_group.is_none() {
        return Err(TrailError::plain(
            "a broadcast needs --broadcast-group ID: one handoff per recipient shares it",
        ));
    }
    let registry = match &args.registry {
        Some(path) => Some(Registry::load(path).map_err(|e| TrailError::plain(e.to_string()))?),
        None => None,
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
    request.decision_rationale = args
        .rationale
        .or_else(|| (handoff_type == HandoffType::Escalation).then(|| args.reason.clone()));
    let scope = TrailScope::Only {
        handoffs: [request.handoff_id.clone()]
            .into_iter()
            .chain(request.parent_handoff.clone())
            .collect(),
        receivers: registry.iter().map(|_| request.to_agent.clone()).collect(),
    };
    let (id, events) = trail.transact_in(&scope, jiff::Timestamp::now(), |batch| {
        if let Some(registry) = &registry {
            request.warnings = validate_against_registry(
                registry,
                batch.ledger(),
                &request.to_agent,
                &request.required_capabilities,
            )?;
        }
        initiate_handoff(batch, request)
    })?;
    for warning in events.iter().flat_map(|e| e.warnings.iter()) {
        eprintln!("warning: {warning}");
    }
    print(&format!("{id}\n"))?;
    Ok(Outcome::Ok)
}

fn answer(
    trail: &Trail,
    id: &str,
    by: Option<String>,
    event_type: EventType,
    reason: Option<String>,
) -> Result<Outcome, TrailError> {
    let step = Step::new(id, event_type).because(reason);
    let scope = TrailScope::handoffs([id]);
    let (_, events) = trail.transact_in(&scope, jiff::Timestamp::now(), |batch| {
        if let (Some(by), Some(handoff)) = (&by, batch.ledger().get(id)) {
            if &handoff.to_agent != by {
                return Err(TrailError::refused(format!(
                    "refused: `{by}` is not the receiver of handoff `{id}` ({}); only the receiver accepts or rejects",
                    handoff.to_agent
                )));
            }
        }
        follow_handoff(batch, step).map(|_| ())
    })?;
    print_appended(&events, &[])?;
    Ok(Outcome::Ok)
}

fn steps(trail: &Trail, steps: Vec<Step>) -> Result<Outcome, TrailError> {
    let scope = TrailScope::handoffs(steps.iter().map(|s| s.handoff_id.clone()));
    let (_, events) = trail.transact_in(&scope, jiff::Timestamp::now(), |batch| {
        for step in steps {
            follow_handoff(batch, step)?;
        }
        Ok(())
    })?;
    print_appended(&events, &[])?;
    Ok(Outcome::Ok)
}

fn run_query(trail: &Trail, args: QueryArgs) -> Result<Outcome, TrailError> {
    let events = args
        .events
        .iter()
        .map(|name| {
            EventType::from_name(name).ok_or_else(|| {
                TrailError::plain(format!(
                    "--event {name}: not an event type; one of initiated, accepted, rejected, completed, failed, timeout, escalated"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let filter = TrailFilter {
        handoff: args.handoff,
        task: args.task,
        from: args.from,
        to: args.to,
        agent: args.agent,
        events,
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
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut first = true;
    let format = args.format;
    use std::io::Write;
    let mut write = |bytes: &[u8]| -> Result<(), TrailError> {
        match out.write_all(bytes) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(TrailError::plain(
                format!("cannot write to standard output: {e}"),
            )),
            _ => Ok(()),
        }
    };
    if format == Format::Json {
        write(b"[")?;
    }
    query_trail(trail, &filter, |event, line| match format {
        Format::Jsonl => {
            write(line.text)?;
            write(b"\n")
        }
        Format::Json => {
            if !first {
                write(b",")?;
            }
            first = false;
            write(b"\n")?;
            write(line.text)
        }
        _ => write(event_line(event).as_bytes()),
    })?;
    if format == Format::Json {
        write(b"\n]\n")?;
    }
    let _ = out.flush();
    Ok(Outcome::Ok)
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
    let (of, id, filter) = match (args.task, args.workflow) {
        (Some(task), _) => (
            "task",
            task.clone(),
            TrailFilter {
                task: Some(task),
                ..TrailFilter::default()
            },
        ),
        (None, Some(workflow)) => (
            "workflow",
            workflow.clone(),
            TrailFilter {
                workflow: Some(workflow),
                ..TrailFilter::default()
            },
        ),
        (None, None) => {
            return Err(TrailError::plain(
                "history needs --task ID or --workflow ID",
            ))
        }
    };
    let handoffs = handoff_views(trail, &filter)?;
    print_report(
        &HistoryReport(HandoffHistory { of, id, handoffs }),
        args.format,
    )?;
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
    let mut documents = Vec::new();
    for path in &args.paths {
        let files = match path.is_dir() {
            true => {
                markdown_files(path, Depth::All).map_err(|e| TrailError::plain(e.to_string()))?
            }
            false => vec![path.clone()],
        };
        for file in files {
            let input = Source::File(file);
            let text = input.read().map_err(|e| TrailError::plain(e.to_string()))?;
            let name = input.name();
            let records = parse_document(&name, &text).records;
            documents.push((name, records));
        }
    }
    let imported = import_records(trail, &documents)?;
    let mut text = String::new();
    for skipped in &imported.skipped {
        text.push_str(&format!(
            "{}:{}: skipped: {}\n",
            skipped.file, skipped.line, skipped.reason
        ));
    }
    text.push_str(&format!(
        "{} record(s) read: {} event(s) appended, {} already on the trail, {} skipped\n",
        imported.records,
        imported.appended,
        imported.unchanged,
        imported.skipped.len()
    ));
    print(&text)?;
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
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    export_otlp(trail, &filter, &mut out)?;
    use std::io::Write;
    match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(TrailError::plain(format!(
            "cannot write to standard output: {e}"
        ))),
        _ => Ok(Outcome::Ok),
    }
}
