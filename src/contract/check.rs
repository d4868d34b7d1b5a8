//! `contract check`: the validation rules of CONTRACT.md, in its order and with its codes.
//!
//! Each rule appends codes to `missing`, `invalid` or `warnings` and, alongside each
//! code, one repair line telling the agent what to add and where. The rules read the
//! block the way the reference implementation does (Python falsiness, `str()` of
//! scalars, lower- or upper-case keys), through the helpers in [`super::python`].

use serde::Serialize;
use serde_json::{Map, Value};

use super::block::{self, NoBlock};
use super::python::{is_truthy, string_repr, to_float, to_int, to_str};
use super::{PlanStatus, EVIDENCE_FIELDS};
use crate::diagnostic::{ContractCode, Diagnostic};

/// The consolidation list fields, in rule order (the JSON keys are their lower-case forms).
const CONSOLIDATION_FIELDS: [ContractCode; 5] = [
    ContractCode::ConfirmedFindings,
    ContractCode::SuspectedFindings,
    ContractCode::Conflicts,
    ContractCode::OpenGaps,
    ContractCode::NextBestAgent,
];

/// Allowed values of `consolidation_report.ownership_assessment`.
const OWNERSHIP_ASSESSMENTS: [&str; 3] =
    ["owned_here", "cross_surface_dependency", "not_my_surface"];

/// Approval fields whose absence is only a warning.
const APPROVAL_ADVISORY_FIELDS: [&str; 4] = ["operation", "exact_content", "scope", "risk_level"];

/// Allowed values of `approval_request.risk_level`.
const RISK_LEVELS: [&str; 4] = ["LOW", "MEDIUM", "HIGH", "CRITICAL"];

/// The codes reported when there is no usable block.
const NO_BLOCK_MISSING: [ContractCode; 5] = [
    ContractCode::AgentStatus,
    ContractCode::PlanStatus,
    ContractCode::PendingSteps,
    ContractCode::NextAction,
    ContractCode::AgentId,
];

/// `recommended_action` when the contract is valid.
pub const ACTION_NONE: &str = "none";
/// `recommended_action` when the same agent can be resumed to repair its contract.
pub const ACTION_RESUME_REPAIR: &str = "resume_same_agent_contract_repair";
/// `recommended_action` when no agent id can route the repair.
pub const ACTION_ESCALATE_REPAIR: &str = "escalate_contract_repair";

/// What the caller knows about the task (the flags of `contract check`).
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// The task asked for a `consolidation_report` (multi-surface work).
    pub consolidation_required: bool,
    /// The id the runtime gave the agent; routes the repair when the block has none.
    pub task_agent_id: String,
}

/// The list of the JSON contract a finding is reported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    /// `missing`: an absent or empty required field (invalidates).
    Missing,
    /// `invalid`: a value outside its enumeration (invalidates).
    Invalid,
    /// `warnings`: a non-blocking `APPROVAL_REQUEST_*` finding.
    Warning,
}

/// One finding: its code, the value it is about, and the line that tells the agent what
/// to repair and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractFinding {
    /// The list it is reported in.
    pub listed: Listed,
    /// The code.
    pub code: ContractCode,
    /// What follows the code after a `:` in the list (`DONE` in `PLAN_STATUS:DONE`).
    pub detail: Option<String>,
    /// What to add or set, e.g. `add "agent_status.agent_id": …`.
    pub repair: String,
}

impl ContractFinding {
    /// The finding as the contract's lists spell it: `CODE` or `CODE:detail`.
    pub fn listed_as(&self) -> String {
        match &self.detail {
            Some(detail) => format!("{}:{detail}", self.code),
            None => self.code.to_string(),
        }
    }

    /// The finding as a [`Diagnostic`]: the listed text as the message, the repair as
    /// the hint.
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic::new(self.code, self.listed_as()).with_hint(&self.repair)
    }
}

/// The verdict on one agent output. Serializes to the JSON contract, fields in the
/// order CONTRACT.md lists them: `valid`, `severity`, `missing`, `invalid`, `warnings`,
/// `evidence_required`, `consolidation_required`, `recommended_action`, `plan_status`,
/// `agent_id`, `advisories`.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckResult {
    /// Nothing missing and nothing invalid.
    pub valid: bool,
    /// `"none"` when valid, `"hard"` otherwise.
    pub severity: &'static str,
    /// Every finding, in rule order.
    pub findings: Vec<ContractFinding>,
    /// The status is canonical, so the evidence report is required.
    pub evidence_required: bool,
    /// Echo of [`CheckOptions::consolidation_required`].
    pub consolidation_required: bool,
    /// `none`, `resume_same_agent_contract_repair` or `escalate_contract_repair`.
    pub recommended_action: &'static str,
    /// The normalised `agent_status.plan_status` (empty when absent).
    pub plan_status: String,
    /// `agent_status.agent_id` as written (empty when absent).
    pub agent_id: String,
    /// Messages about malformed advisory fields; never affect validity.
    pub advisories: Vec<String>,
    /// Why there is no usable block, when there is none.
    pub no_block: Option<NoBlock>,
    /// The id a repair routes to: the block's `agent_id`, else `--task-agent-id`, when
    /// it matches `^a[0-9a-f]{5,}$`; "" when neither does.
    pub repair_agent_id: String,
}

impl CheckResult {
    /// The findings reported in `list`, in rule order.
    pub fn listed(&self, list: Listed) -> impl Iterator<Item = &ContractFinding> {
        self.findings.iter().filter(move |f| f.listed == list)
    }

    /// `missing`: codes of absent or empty required fields (duplicates kept).
    pub fn missing(&self) -> Vec<String> {
        self.listed(Listed::Missing)
            .map(ContractFinding::listed_as)
            .collect()
    }

    /// `invalid`: `CODE:value` for values outside their enumeration.
    pub fn invalid(&self) -> Vec<String> {
        self.listed(Listed::Invalid)
            .map(ContractFinding::listed_as)
            .collect()
    }

    /// `warnings`: the non-blocking codes.
    pub fn warnings(&self) -> Vec<String> {
        self.listed(Listed::Warning)
            .map(ContractFinding::listed_as)
            .collect()
    }

    /// One line per finding, `missing`, then `invalid`, then `warnings`:
    /// `missing AGENT_ID: add "agent_status.agent_id": …`.
    pub fn repair_lines(&self) -> Vec<String> {
        [
            (Listed::Missing, "missing"),
            (Listed::Invalid, "invalid"),
            (Listed::Warning, "warning"),
        ]
        .into_iter()
        .flat_map(|(list, word)| {
            self.listed(list)
                .map(move |f| format!("{word} {}: {}", f.listed_as(), f.repair))
        })
        .collect()
    }
}

impl Serialize for CheckResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Contract<'a> {
            valid: bool,
            severity: &'static str,
            missing: Vec<String>,
            invalid: Vec<String>,
            warnings: Vec<String>,
            evidence_required: bool,
            consolidation_required: bool,
            recommended_action: &'static str,
            plan_status: &'a str,
            agent_id: &'a str,
            advisories: &'a [String],
        }
        Contract {
            valid: self.valid,
            severity: self.severity,
            missing: self.missing(),
            invalid: self.invalid(),
            warnings: self.warnings(),
            evidence_required: self.evidence_required,
            consolidation_required: self.consolidation_required,
            recommended_action: self.recommended_action,
            plan_status: &self.plan_status,
            agent_id: &self.agent_id,
            advisories: &self.advisories,
        }
        .serialize(serializer)
    }
}

/// Checks an agent's whole output: finds the block, then applies every rule.
pub fn check_output(
    output: &str,
    options: &CheckOptions,
) -> (CheckResult, Option<Map<String, Value>>) {
    match block::extract(output) {
        Ok(contract) => (check_contract(&contract, options), Some(contract)),
        Err(reason) => (no_block(reason, options), None),
    }
}

/// The verdict when the output holds no usable block.
fn no_block(reason: NoBlock, options: &CheckOptions) -> CheckResult {
    let mut findings = Findings::default();
    for code in NO_BLOCK_MISSING {
        findings.missing(code, missing_status_hint(code));
    }
    let mut result = findings.into_result(options, "", "", false);
    result.no_block = Some(reason);
    result
}

/// Applies rules 1–8 of CONTRACT.md to a parsed block.
pub fn check_contract(contract: &Map<String, Value>, options: &CheckOptions) -> CheckResult {
    let mut findings = Findings::default();
    let status = read_agent_status(contract);
    check_agent_status(&status, &mut findings);
    let canonical = PlanStatus::parse(&status.plan_status);
    if canonical.is_some() {
        check_evidence(contract, &mut findings);
    }
    if options.consolidation_required {
        check_consolidation(contract, &mut findings);
    }
    check_approval_request(contract, &mut findings);
    if canonical == Some(PlanStatus::Complete) {
        check_verification(contract, &mut findings);
        check_loop_state(contract, &mut findings);
    }
    let mut result = findings.into_result(
        options,
        &status.plan_status,
        &status.agent_id,
        canonical.is_some(),
    );
    result.advisories = super::advisory::advisories(contract);
    result
}

/// The findings, collected in rule order.
#[derive(Default)]
struct Findings(Vec<ContractFinding>);

impl Findings {
    fn push(&mut self, listed: Listed, code: ContractCode, detail: Option<String>, repair: String) {
        self.0.push(ContractFinding {
            listed,
            code,
            detail,
            repair,
        });
    }

    fn missing(&mut self, code: ContractCode, repair: String) {
        self.push(Listed::Missing, code, None, repair);
    }

    fn invalid(&mut self, code: ContractCode, value: &str, repair: String) {
        self.push(Listed::Invalid, code, Some(value.to_string()), repair);
    }

    fn warning(&mut self, code: ContractCode, detail: &str, repair: String) {
        self.push(Listed::Warning, code, Some(detail.to_string()), repair);
    }

    fn into_result(
        self,
        options: &CheckOptions,
        plan_status: &str,
        agent_id: &str,
        evidence_required: bool,
    ) -> CheckResult {
        let valid = self.0.iter().all(|f| f.listed == Listed::Warning);
        let repair_agent_id = repair_agent_id(agent_id, &options.task_agent_id);
        CheckResult {
            valid,
            severity: if valid { "none" } else { "hard" },
            findings: self.0,
            evidence_required,
            consolidation_required: options.consolidation_required,
            recommended_action: if valid {
                ACTION_NONE
            } else if repair_agent_id.is_empty() {
                ACTION_ESCALATE_REPAIR
            } else {
                ACTION_RESUME_REPAIR
            },
            plan_status: plan_status.to_string(),
            agent_id: agent_id.to_string(),
            advisories: Vec::new(),
            no_block: None,
            repair_agent_id,
        }
    }
}

/// The block's agent id when it can be resumed, else the task's, else "".
fn repair_agent_id(agent_id: &str, task_agent_id: &str) -> String {
    [agent_id, task_agent_id]
        .into_iter()
        .find(|id| is_resumable_agent_id(id))
        .unwrap_or_default()
        .to_string()
}

/// Whether `id` matches the reference's `^a[0-9a-f]{5,}$` (Python's `$` also accepts
/// one trailing line break).
pub fn is_resumable_agent_id(id: &str) -> bool {
    let id = id.strip_suffix('\n').unwrap_or(id);
    let Some(hex) = id.strip_prefix('a') else {
        return false;
    };
    hex.len() >= 5 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `agent_status` as the reference reads it: each field `str()`-ed, empty when absent.
struct AgentStatus {
    present: bool,
    plan_status: String,
    pending_steps: String,
    next_action: String,
    agent_id: String,
}

fn read_agent_status(contract: &Map<String, Value>) -> AgentStatus {
    let Some(status) = non_empty_object(contract.get("agent_status")) else {
        return AgentStatus {
            present: false,
            plan_status: String::new(),
            pending_steps: String::new(),
            next_action: String::new(),
            agent_id: String::new(),
        };
    };
    AgentStatus {
        present: true,
        plan_status: normalise_status(&scalar(status, "plan_status")),
        pending_steps: scalar(status, "pending_steps"),
        next_action: scalar(status, "next_action"),
        agent_id: scalar(status, "agent_id"),
    }
}

/// `trim`, upper-case, trailing `.,;` removed.
pub fn normalise_status(raw: &str) -> String {
    raw.trim()
        .to_uppercase()
        .trim_end_matches(['.', ',', ';'])
        .to_string()
}

/// The reference's `_get_str`: the lower-case key, else the upper-case one, `str()`-ed;
/// absent, `null` and `{}` give "".
fn scalar(map: &Map<String, Value>, key: &str) -> String {
    let value = present(map, key).or_else(|| present(map, &key.to_uppercase()));
    value.map(to_str).unwrap_or_default()
}

/// The value under `key`, unless it is absent, `null` or `{}` (which counts as absent
/// throughout CONTRACT.md).
fn present<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    match map.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::Object(object)) if object.is_empty() => None,
        found => found,
    }
}

/// An object with at least one key; `{}` counts as absent throughout.
fn non_empty_object(value: Option<&Value>) -> Option<&Map<String, Value>> {
    match value {
        Some(Value::Object(map)) if !map.is_empty() => Some(map),
        _ => None,
    }
}

/// Rules 1–3: the status block and its four fields.
fn check_agent_status(status: &AgentStatus, findings: &mut Findings) {
    if !status.present {
        let code = ContractCode::AgentStatus;
        findings.missing(code, missing_status_hint(code));
    }
    if status.plan_status.is_empty() {
        let code = ContractCode::PlanStatus;
        findings.missing(code, missing_status_hint(code));
    } else if PlanStatus::parse(&status.plan_status).is_none() {
        findings.invalid(
            ContractCode::PlanStatus,
            &status.plan_status,
            format!(
                "set \"agent_status.plan_status\" to one of {} (found {})",
                PlanStatus::NAMES.join(", "),
                string_repr(&status.plan_status)
            ),
        );
    }
    for (code, value) in [
        (ContractCode::PendingSteps, &status.pending_steps),
        (ContractCode::NextAction, &status.next_action),
        (ContractCode::AgentId, &status.agent_id),
    ] {
        if value.is_empty() {
            findings.missing(code, missing_status_hint(code));
        }
    }
}

fn missing_status_hint(code: ContractCode) -> String {
    match code {
        ContractCode::AgentStatus => "add \"agent_status\": an object with plan_status, agent_id, pending_steps and next_action".into(),
        ContractCode::PlanStatus => format!("add \"agent_status.plan_status\": one of {}", PlanStatus::NAMES.join(", ")),
        ContractCode::PendingSteps => "add \"agent_status.pending_steps\": the steps still to do, a list ([] when none)".into(),
        ContractCode::NextAction => "add \"agent_status.next_action\": a non-empty string saying what happens next".into(),
        _ => "add \"agent_status.agent_id\": your agent id (like a1b2c3d4e5, matching ^a[0-9a-f]{5,}$)".into(),
    }
}

/// Rule 4: the evidence report and its seven keys (`[]` is present).
fn check_evidence(contract: &Map<String, Value>, findings: &mut Findings) {
    let Some(evidence) = non_empty_object(contract.get("evidence_report")) else {
        findings.missing(
            ContractCode::EvidenceReport,
            "add \"evidence_report\": an object with the seven evidence keys below".into(),
        );
        for field in EVIDENCE_FIELDS {
            findings.missing(field, evidence_hint(field));
        }
        return;
    };
    for field in EVIDENCE_FIELDS {
        let key = field.as_str();
        if !has_key(evidence, &key.to_lowercase()) && !has_key(evidence, key) {
            findings.missing(field, evidence_hint(field));
        }
    }
}

/// Key presence (`null` and `[]` are present), except that `{}` counts as absent.
fn has_key(map: &Map<String, Value>, key: &str) -> bool {
    match map.get(key) {
        None => false,
        Some(Value::Object(object)) => !object.is_empty(),
        Some(_) => true,
    }
}

fn evidence_hint(field: ContractCode) -> String {
    format!(
        "add \"evidence_report.{}\": a list ([] when there is nothing to report)",
        field.as_str().to_lowercase()
    )
}

/// Rule 5: the consolidation report, when the task requires one.
fn check_consolidation(contract: &Map<String, Value>, findings: &mut Findings) {
    let report = non_empty_object(contract.get("consolidation_report"));
    if report.is_none() {
        findings.missing(
            ContractCode::ConsolidationReport,
            "add \"consolidation_report\": an object with ownership_assessment and the five finding lists below".into(),
        );
    }
    let empty = Map::new();
    let report = report.unwrap_or(&empty);
    let ownership = scalar(report, "ownership_assessment");
    let allowed = OWNERSHIP_ASSESSMENTS.join(", ");
    if ownership.is_empty() {
        findings.missing(
            ContractCode::OwnershipAssessment,
            format!("add \"consolidation_report.ownership_assessment\": one of {allowed}"),
        );
    } else if !OWNERSHIP_ASSESSMENTS.contains(&ownership.as_str()) {
        findings.invalid(
            ContractCode::OwnershipAssessment,
            &ownership,
            format!(
                "set \"consolidation_report.ownership_assessment\" to one of {allowed} (found {})",
                string_repr(&ownership)
            ),
        );
    }
    for field in CONSOLIDATION_FIELDS {
        let key = field.as_str();
        let lower = key.to_lowercase();
        let filled =
            report.get(&lower).is_some_and(is_truthy) || report.get(key).is_some_and(is_truthy);
        if !filled {
            findings.missing(
                field,
                format!("add \"consolidation_report.{lower}\": a non-empty list"),
            );
        }
    }
}

/// Rule 6: an `approval_request` object needs rollback and verification; the other
/// fields and the risk level only warn.
fn check_approval_request(contract: &Map<String, Value>, findings: &mut Findings) {
    let Some(request) = non_empty_object(contract.get("approval_request")) else {
        return;
    };
    let filled = |key: &str| request.get(key).is_some_and(is_truthy);
    if !filled("rollback") {
        findings.missing(
            ContractCode::ApprovalRequestRollback,
            "add \"approval_request.rollback\": how to undo the operation (non-empty)".into(),
        );
    }
    if !filled("verification") {
        findings.missing(
            ContractCode::ApprovalRequestVerification,
            "add \"approval_request.verification\": how success will be confirmed (non-empty)"
                .into(),
        );
    }
    for field in APPROVAL_ADVISORY_FIELDS {
        if !filled(field) {
            findings.warning(
                ContractCode::ApprovalRequestFieldMissing,
                field,
                format!(
                    "add \"approval_request.{field}\": {}",
                    approval_field_meaning(field)
                ),
            );
        }
    }
    // `str(request.get("risk_level", "")).upper()`: a `null` risk level reads "NONE".
    let risk = request
        .get("risk_level")
        .map(to_str)
        .unwrap_or_default()
        .to_uppercase();
    if !risk.is_empty() && !RISK_LEVELS.contains(&risk.as_str()) {
        findings.warning(
            ContractCode::ApprovalRequestInvalidRiskLevel,
            &risk,
            format!(
                "set \"approval_request.risk_level\" to one of {} (found {})",
                RISK_LEVELS.join(", "),
                string_repr(&risk)
            ),
        );
    }
}

fn approval_field_meaning(field: &str) -> String {
    match field {
        "operation" => "what the command does".into(),
        "exact_content" => "the command, verbatim, that the user approves".into(),
        "scope" => "what the operation touches".into(),
        _ => format!("one of {}", RISK_LEVELS.join(", ")),
    }
}

/// Rule 7: a COMPLETE needs a verification object whose result is "pass".
fn check_verification(contract: &Map<String, Value>, findings: &mut Findings) {
    let nested = non_empty_object(contract.get("evidence_report"))
        .and_then(|evidence| non_empty_object(evidence.get("verification")));
    let Some(verification) = nested.or_else(|| non_empty_object(contract.get("verification")))
    else {
        findings.missing(
            ContractCode::VerificationResultRequiredForComplete,
            "add \"evidence_report.verification\": an object with \"result\": \"pass\" and \"details\" \
             (COMPLETE requires proof the work landed)"
                .into(),
        );
        return;
    };
    let result = verification.get("result").map(to_str).unwrap_or_default();
    if result.to_lowercase().trim() != "pass" {
        findings.missing(
            ContractCode::VerificationResultMustBePass,
            format!(
                "set \"evidence_report.verification.result\" to \"pass\" (found {}), \
                 or report IN_PROGRESS or BLOCKED while verification fails",
                string_repr(&result)
            ),
        );
    }
}

/// Rule 8: a COMPLETE that its own `loop_state` says is unfinished.
fn check_loop_state(contract: &Map<String, Value>, findings: &mut Findings) {
    let Some(loop_state) = LoopState::parse(contract.get("loop_state")) else {
        return;
    };
    let (Some(iteration), Some(max), Some(metric), Some(threshold)) = (
        loop_state.iteration,
        loop_state.max_iterations,
        loop_state.metric,
        loop_state.threshold,
    ) else {
        return;
    };
    if iteration < max && metric < threshold {
        let metric = super::python::float_repr(metric);
        let threshold = super::python::float_repr(threshold);
        findings.push(
            Listed::Missing,
            ContractCode::LoopStateIncomplete,
            Some(format!("iteration={iteration}<max={max},metric={metric}<threshold={threshold}")),
            format!(
                "the loop is unfinished (iteration {iteration} of {max}, metric {metric} below threshold {threshold}): \
                 keep iterating and report IN_PROGRESS, or reach the threshold before reporting COMPLETE"
            ),
        );
    }
}

/// `loop_state` after the reference's `int()` / `float()` coercions.
struct LoopState {
    iteration: Option<i128>,
    max_iterations: Option<i128>,
    metric: Option<f64>,
    threshold: Option<f64>,
}

impl LoopState {
    /// `None` when absent, not an object, without `iteration`, or when `iteration` or
    /// `max_iterations` cannot be read as integers (the reference gives up then).
    fn parse(value: Option<&Value>) -> Option<LoopState> {
        let map = match value? {
            Value::Object(map) => map,
            _ => return None,
        };
        let iteration = optional(map.get("iteration")?, to_int)?;
        let max_iterations = optional(map.get("max_iterations").unwrap_or(&Value::Null), to_int)?;
        let metric = optional(map.get("metric").unwrap_or(&Value::Null), to_float);
        let threshold = optional(map.get("threshold").unwrap_or(&Value::Null), to_float);
        // One unreadable float clears both, as in the reference.
        let (metric, threshold) = match (metric, threshold) {
            (Some(metric), Some(threshold)) => (metric, threshold),
            _ => (None, None),
        };
        Some(LoopState {
            iteration,
            max_iterations,
            metric,
            threshold,
        })
    }
}

/// `null` reads as `Some(None)`; an unconvertible value as `None`.
fn optional<T>(value: &Value, convert: fn(&Value) -> Option<T>) -> Option<Option<T>> {
    match value {
        Value::Null => Some(None),
        other => convert(other).map(Some),
    }
}
