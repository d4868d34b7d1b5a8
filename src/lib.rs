//! `handoff`: Interaction Records for agent-to-agent work.
//!
//! Interaction Records are the Markdown artifacts that AI agents (and people) exchange
//! when they hand work over, consult, escalate, review or ask for a capability. This
//! crate is the domain: it parses and renders records, lints them, classifies the risk
//! of a git change, checks evidence, file scope and sign-off, routes tasks, checks agent
//! contracts, and reports each result in the format asked for.
//!
//! The library prints nothing and never exits the process (the crate's lints hold it to
//! that); `src/main.rs` and `src/cli/` are a thin command-line layer over it. Parsing is
//! total: it returns what it understood together with [`Diagnostic`]s that carry line
//! numbers.
//!
//! The modules are private, one per idea; what they offer is re-exported here, by area:
//! records, the gate (policy, risk, scope, evidence, verdict), git, routing, agent
//! contracts, handoff messages and the trail, diagnostics, reports and templates, files
//! and patterns.

#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod contract;
mod diagnostic;
mod escape;
mod evidence;
mod gate;
mod git;
mod identity;
mod init;
mod io;
mod markdown;
mod message;
mod pattern;
mod policy;
mod record;
mod report;
mod risk;
mod routing;
mod scope;
mod spelled;
mod suppress;
mod template;
mod trail;

// Records: parse, lint, render, format, create.
pub use record::fields::{format_unix_utc, is_valid_timestamp, utc_now_rfc3339};
pub use record::placeholder::{is_placeholder, is_placeholder_value};
pub use record::{
    format_document, lint, lint_record, parse_document, records_from_json, render, skeleton,
    unified_diff, Capability, CapabilityRequest, Decision, DecisionStatus, FailureType, Field,
    FieldKey, FormattedDocument, InteractionType, JsonInputError, MatchedAgent, ParsedDocument,
    Record, RecordJson, RecordKind, RejectedAgent, RenderError, ScopeExpansion, Section,
    SkeletonError, SkeletonValues, SkippedRecord, TieBreak, Transport, Urgency, SEED_SECTIONS,
    SKELETONS,
};
pub use record::{
    set_checked_value, timestamp_or_now, write_new_record, SetValueError, WriteNewError,
};

// The gate: policy, risk classification, evidence, scope, sign-off, verdict.
pub use evidence::{
    extract_items, labels as evidence_labels, match_label, EvidenceItem, EvidenceItemId,
};
pub use gate::run::{check, CheckError, CheckOptions, RecordsInput};
pub use gate::{
    EvidenceReport, ItemProblem, Kind as ProblemKind, Outcome as GateOutcome, ReviewerSummary,
    RiskReport, ScopeSummary, Verdict,
};
pub use identity::{is_invisible, same_agent, task_key, visible, AgentName, NameError};
pub use init::{init_repository, InitStep, Initialised};
pub use policy::{
    defaults as default_policy, Allowance, EvidencePolicy, Policy, PolicyError, PolicySource,
    PolicyText, ReviewerPolicy, RiskClass, Rule, RuleMatch, Trigger, TriggerPolicy,
    UnknownRiskClass, MAX_POLICY_BYTES, OVERRIDE_RULE, POLICY_FILE,
};
pub use risk::{
    classify, classify_keeping_rules, Classification, ClassifyError, CompileError, CompiledRules,
    Finding, Suppressed, FILE_COUNT_LIMIT, FILE_COUNT_RULE,
};
pub use scope::{
    shell_quote, ExpansionDecision, ExpansionRequest, FixContext, ScopeCheck, ScopeReport,
    Standing, Touch, TouchedPath,
};
pub use suppress::{Baseline, BaselineError, SuppressedBy};

// Git: the change between two revisions, streamed.
pub use git::{
    ChangeSet, ChangeStatus, ChangeVisitor, ChangedFile, DiffLine, GitError, Head, LineSide,
    RenameLimitExceeded, RenameOptions, Repo, RepoPath, DEFAULT_RENAME_LIMIT, MAX_DIRECTORY_DEPTH,
    WORKTREE,
};

// Routing: route a task by the tie-break rules; audit recorded decisions.
pub use routing::artifact::{record_fields, TASK_ID_PLACEHOLDER};
pub use routing::audit::{
    check_decision, RecordedDecision, RecordedMatch, RecordedRule, Reference,
};
pub use routing::normalise::normalise_term;
pub use routing::summary::{
    audit_documents, recorded_decision, AuditReport as Audit, LintFailure, RoutingFinding,
};
pub use routing::{
    load_registry, parse_capability, request_warnings, route, Agent, Aliases, Candidate,
    Decision as RouteDecision, Pick, Registry, RegistryError, Rejection, RouteError, RouteRequest,
    RoutingOutcome,
};

// Agent contracts: check the block, decide the next action, track status.
pub use contract::check::is_resumable_agent_id;
pub use contract::next::{decide, track as track_contract, Action, Decision as NextStep};
pub use contract::state::{transition, AgentRecord, StateError, StateFile, StateLock, Transition};
pub use contract::{
    check_output, CheckOptions as ContractOptions, CheckResult, ContractFinding, Listed, PlanStatus,
};

// Handoff messages: check them, and what the trail appends for each.
pub use message::{
    append_messages, canonical_handoff, check as check_messages, Checked as CheckedMessage,
    Document as MessageDocument, Kind as MessageKind,
};

// The trail: append, the lifecycle, verify, query, timeouts, retention.
pub use trail::{
    against_registry as validate_against_registry, append as append_intents,
    default_dir as default_trail_dir, escalate as escalate_handoff, export_otlp,
    follow as follow_handoff, import as import_records, import_files as import_record_files,
    initiate as initiate_handoff, list as list_handoffs, open_handoff, parse_duration,
    parse_utc as parse_utc_timestamp, prune as prune_trail, query as query_trail,
    repair as repair_trail, show as show_handoff, summarise as summarise_trail, take_steps,
    tick as tick_trail, verify as verify_trail, views as handoff_views, Bar, Batch, ChainPoint,
    ContextSnapshot, Counted, Deferred, Deliverables, ErrorKind as TrailErrorKind,
    Event as TrailEvent, EventSummary, EventType, Expectation, Filter as TrailFilter, Handoff,
    HandoffRow, HandoffType, HandoffView, HandoffViews, Imported, Initiation, Intent, Ledger,
    Line as TrailLine, Located, OnTimeout, Outcome as HandoffOutcome, Prune, PrunedSegment, Repair,
    Scope as TrailScope, Segment as TrailSegment, Skipped as SkippedImport, Spread, Step, TaskRow,
    Timeline, TornLine, Trail, TrailError, TrailSummary, Verification, VerificationCheck,
    Violation, ViolationKind, ACTIVE_TASK_DAYS, COMPLETED_TASK_DAYS, ESCALATION_DAYS, MAX_ATTEMPTS,
    MAX_DEPTH, MAX_REROUTES,
};
// The trail's chain, for checking it independently (tests, fuzzing).
pub use trail::{
    canonical_json, definition_hash as trail_line_definition_hash, event_hash, hash_member,
    parse_line as parse_trail_line, seal as seal_event, sha256_hex_parts, without_hash,
    Parsed as ParsedTrailLine, GENESIS,
};

// Diagnostics, reports and templates.
pub use diagnostic::{
    Code, ContractCode, Diagnostic, Explanation, GateCode, RecordCode, RoutingCode, Severity,
    TrailCode,
};
pub use report::{
    appended_line, apply_audit_baseline, deferred_line, event_line, imported_text,
    write as write_report, write_query, Annotation, AuditHeader, AuditReport, CheckReport,
    ClassifyReport, ContractCheckReport, ContractNextReport, ExplainReport, Format, HandoffHistory,
    HistoryReport, Level as AnnotationLevel, LintReport, ListReport, MessageCheckReport,
    ParseReport, PolicyReport, PruneReport, RepairReport, Report, ReportError, RouteContract,
    RouteReport, ShowReport, VerifyReport,
};
pub use template::{TemplateError, Templates};

// Files, Markdown and patterns.
pub use escape::markdown as escape_report_text;
pub use io::{
    create_new, decode_text, is_markdown_file, markdown_files, read_capped, read_stdin, read_text,
    replace_atomically, utf8_error_position, Depth, InputError, Source, Spool, WalkError,
    MAX_INPUT_BYTES, SPOOL_MEMORY_BYTES, STDIN_NAME,
};
pub use markdown::cell::{decode_cell, encode_cell, split_row};
pub use markdown::{line_at, LineIndex};
pub use pattern::{compile as compile_pattern, Dialect, PatternError, PatternSet};
