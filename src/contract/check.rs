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

/// The consolidation list fields, in rule order.
const CONSOLIDATION_FIELDS: [&str; 5] = [
    "CONFIRMED_FINDINGS",
    "SUSPECTED_FINDINGS",
    "CONFLICTS",
    "OPEN_GAPS",
    "NEXT_BEST_AGENT",
];

/// Allowed values of `consolidation_report.ownership_assessment`.
const OWNERSHIP_ASSESSMENTS: [&str; 3] =
    ["owned_here", "cross_surface_dependency", "not_my_surface"];

/// Approval fields whose absence is only a warning.
const APPROVAL_ADVISORY_FIELDS: [&str; 4] = ["operation", "exact_content", "scope", "risk_level"];

/// Allowed values of `approval_request.risk_level`.
const RISK_LEVELS: [&str; 4] = ["LOW", "MEDIUM", "HIGH", "CRITICAL"];

/// The codes reported when there is no usable block.
const NO_BLOCK_MISSING: [&str; 5] = [
    "AGENT_STATUS",
    "PLAN_STATUS",
    "PENDING_STEPS",
    "NEXT_ACTION",
    "AGENT_ID",
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

/// The verdict on one agent output. Serializes to the JSON contract, fields in the
/// order CONTRACT.md lists them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    /// Nothing missing and nothing invalid.
    pub valid: bool,
    /// `"none"` when valid, `"hard"` otherwise.
    pub severity: &'static str,
    /// Codes of absent or empty required fields, in rule order (duplicates kept).
    pub missing: Vec<String>,
    /// `CODE:value` for fields present with a value outside their enum.
    pub invalid: Vec<String>,
    /// The non-blocking `APPROVAL_REQUEST_*` codes.
    pub warnings: Vec<String>,
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
    /// One repair line per code in `missing`, `invalid` and `warnings`, in that order.
    #[serde(skip)]
    pub repairs: Vec<String>,
    /// Why there is no usable block, when there is none.
    #[serde(skip)]
    pub no_block: Option<NoBlock>,
    /// The id a repair routes to: the block's `agent_id`, else `--task-agent-id`, when
    /// it matches `^a[0-9a-f]{5,}$`; "" when neither does.
    #[serde(skip)]
    pub repair_agent_id: String,
}

impl CheckResult {
    /// One line per code, `missing`, then `invalid`, then `warnings`:
    /// `missing AGENT_ID: add "agent_status.agent_id": …`.
    pub fn repair_lines(&self) -> Vec<String> {
        let kinds = self.missing.iter().map(|code| ("missing", code));
        let kinds = kinds.chain(self.invalid.iter().map(|code| ("invalid", code)));
        let kinds = kinds.chain(self.warnings.iter().map(|code| ("warning", code)));
        kinds
            .zip(&self.repairs)
            .map(|((kind, code), repair)| format!("{kind} {code}: {repair}"))
            .collect()
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
        findings.missing(code.to_string(), missing_status_hint(code));
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

/// Codes and repair lines, collected in rule order.
#[derive(Default)]
struct Findings {
    missing: Vec<String>,
    missing_repairs: Vec<String>,
    invalid: Vec<String>,
    invalid_repairs: Vec<String>,
    warnings: Vec<String>,
    warning_repairs: Vec<String>,
}

impl Findings {
    fn missing(&mut self, code: String, repair: String) {
        self.missing.push(code);
        self.missing_repairs.push(repair);
    }

    fn invalid(&mut self, code: String, repair: String) {
        self.invalid.push(code);
        self.invalid_repairs.push(repair);
    }

    fn warning(&mut self, code: String, repair: String) {
        self.warnings.push(code);
        self.warning_repairs.push(repair);
    }

    fn into_result(
        self,
        options: &CheckOptions,
        plan_status: &str,
        agent_id: &str,
        evidence_required: bool,
    ) -> CheckResult {
        let valid = self.missing.is_empty() && self.invalid.is_empty();
        let repair_agent_id = repair_agent_id(agent_id, &options.task_agent_id);
        let mut repairs = self.missing_repairs;
        repairs.extend(self.invalid_repairs);
        repairs.extend(self.warning_repairs);
        CheckResult {
            valid,
            severity: if valid { "none" } else { "hard" },
            missing: self.missing,
            invalid: self.invalid,
            warnings: self.warnings,
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
            repairs,
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
        findings.missing("AGENT_STATUS".into(), missing_status_hint("AGENT_STATUS"));
    }
    if status.plan_status.is_empty() {
        findings.missing("PLAN_STATUS".into(), missing_status_hint("PLAN_STATUS"));
    } else if PlanStatus::parse(&status.plan_status).is_none() {
        findings.invalid(
            format!("PLAN_STATUS:{}", status.plan_status),
            format!(
                "set \"agent_status.plan_status\" to one of {} (found {})",
                PlanStatus::NAMES.join(", "),
                string_repr(&status.plan_status)
            ),
        );
    }
    for (code, value) in [
        ("PENDING_STEPS", &status.pending_steps),
        ("NEXT_ACTION", &status.next_action),
        ("AGENT_ID", &status.agent_id),
    ] {
        if value.is_empty() {
            findings.missing(code.into(), missing_status_hint(code));
        }
    }
}

fn missing_status_hint(code: &str) -> String {
    match code {
        "AGENT_STATUS" => "add \"agent_status\": an object with plan_status, agent_id, pending_steps and next_action".into(),
        "PLAN_STATUS" => format!("add \"agent_status.plan_status\": one of {}", PlanStatus::NAMES.join(", ")),
        "PENDING_STEPS" => "add \"agent_status.pending_steps\": the steps still to do, a list ([] when none)".into(),
        "NEXT_ACTION" => "add \"agent_status.next_action\": a non-empty string saying what happens next".into(),
        _ => "add \"agent_status.agent_id\": your agent id (like a1b2c3d4e5, matching ^a[0-9a-f]{5,}$)".into(),
    }
}

/// Rule 4: the evidence report and its seven keys (`[]` is present).
fn check_evidence(contract: &Map<String, Value>, findings: &mut Findings) {
    let Some(evidence) = non_empty_object(contract.get("evidence_report")) else {
        findings.missing(
            "EVIDENCE_REPORT".into(),
            "add \"evidence_report\": an object with the seven evidence keys below".into(),
        );
        for field in EVIDENCE_FIELDS {
            findings.missing(field.into(), evidence_hint(field));
        }
        return;
    };
    for field in EVIDENCE_FIELDS {
        if !has_key(evidence, &field.to_lowercase()) && !has_key(evidence, field) {
            findings.missing(field.into(), evidence_hint(field));
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

fn evidence_hint(field: &str) -> String {
    format!(
        "add \"evidence_report.{}\": a list ([] when there is nothing to report)",
        field.to_lowercase()
    )
}

/// Rule 5: the consolidation report, when the task requires one.
fn check_consolidation(contract: &Map<String, Value>, findings: &mut Findings) {
    let report = non_empty_object(contract.get("consolidation_report"));
    if report.is_none() {
        findings.missing(
            "CONSOLIDATION_REPORT".into(),
            "add \"consolidation_report\": an object with ownership_assessment and the five finding lists below".into(),
        );
    }
    let empty = Map::new();
    let report = report.unwrap_or(&empty);
    let ownership = scalar(report, "ownership_assessment");
    let allowed = OWNERSHIP_ASSESSMENTS.join(", ");
    if ownership.is_empty() {
        findings.missing(
            "OWNERSHIP_ASSESSMENT".into(),
            format!("add \"consolidation_report.ownership_assessment\": one of {allowed}"),
        );
    } else if !OWNERSHIP_ASSESSMENTS.contains(&ownership.as_str()) {
        findings.invalid(
            format!("OWNERSHIP_ASSESSMENT:{ownership}"),
            format!(
                "set \"consolidation_report.ownership_assessment\" to one of {allowed} (found {})",
                string_repr(&ownership)
            ),
        );
    }
    for field in CONSOLIDATION_FIELDS {
        let lower = field.to_lowercase();
        let filled =
            report.get(&lower).is_some_and(is_truthy) || report.get(field).is_some_and(is_truthy);
        if !filled {
            findings.missing(
                field.into(),
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
            "APPROVAL_REQUEST_ROLLBACK".into(),
            "add \"approval_request.rollback\": how to undo the operation (non-empty)".into(),
        );
    }
    if !filled("verification") {
        findings.missing(
            "APPROVAL_REQUEST_VERIFICATION".into(),
            "add \"approval_request.verification\": how success will be confirmed (non-empty)"
                .into(),
        );
    }
    for field in APPROVAL_ADVISORY_FIELDS {
        if !filled(field) {
            findings.warning(
                format!("APPROVAL_REQUEST_FIELD_MISSING:{field}"),
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
            format!("APPROVAL_REQUEST_INVALID_RISK_LEVEL:{risk}"),
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
            "VERIFICATION_RESULT_REQUIRED_FOR_COMPLETE".into(),
            "add \"evidence_report.verification\": an object with \"result\": \"pass\" and \"details\" \
             (COMPLETE requires proof the work landed)"
                .into(),
        );
        return;
    };
    let result = verification.get("result").map(to_str).unwrap_or_default();
    if result.to_lowercase().trim() != "pass" {
        findings.missing(
            "VERIFICATION_RESULT_MUST_BE_PASS".into(),
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
        findings.missing(
            format!("LOOP_STATE_INCOMPLETE:iteration={iteration}<max={max},metric={metric}<threshold={threshold}"),
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
