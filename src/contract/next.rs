//! `contract next`: seed 001's decision table, from a verdict to the orchestrator's action.
//!
//! A valid contract selects its branch by `plan_status`; an invalid one yields the
//! repair instruction (or, when the only problem is an unfinished `loop_state`, the
//! instruction to resume the loop). With a state file the reported status also goes
//! through the per-agent state machine ([`super::state`]); an illegal transition or a
//! third consecutive `IN_PROGRESS` overrides the table's action.

use serde::Serialize;
use serde_json::{Map, Value};

use super::check::{CheckResult, Listed, ACTION_RESUME_REPAIR};
use super::python::{is_truthy, to_str};
use super::state::{transition, StateError, StateFile, Transition};
use super::PlanStatus;
use crate::diagnostic::ContractCode;
use std::path::Path;

/// Tracks a checked contract in the state file at `path`: a valid contract's plan
/// status goes through its agent's state machine under the file's lock, and the
/// agent's record is stored when the transition is accepted. `None`, with nothing read
/// or written, for an invalid contract or one without a plan status.
pub fn track(path: &Path, result: &CheckResult) -> Result<Option<Transition>, StateError> {
    let Some(status) = PlanStatus::parse(&result.plan_status).filter(|_| result.valid) else {
        return Ok(None);
    };
    let _lock = StateFile::lock(path)?;
    let mut file = StateFile::load(path)?;
    let record = file.record(&result.agent_id)?;
    let (verdict, updated) = transition(record.as_ref(), status);
    if let Some(updated) = updated {
        file.set(&result.agent_id, &updated);
        file.save()?;
    }
    Ok(Some(verdict))
}

/// Most `key_outputs` relayed as bullets when summarising a COMPLETE.
const MAX_BULLETS: usize = 5;

/// What the orchestrator should do after one agent turn. Serializes in field order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// The action: see [`Action`] for the values.
    pub action: Action,
    /// Whether the contract passed `contract check`.
    pub valid: bool,
    /// The normalised status ("" when absent).
    pub plan_status: String,
    /// The agent to resume or report on ("" when absent).
    pub agent_id: String,
    /// The steps for the orchestrator, in order; the text output prints these.
    pub instructions: Vec<String>,
    /// COMPLETE: what to tell the user (the agent's summary, or key outputs as bullets).
    pub summary: Option<Summary>,
    /// COMPLETE: the verification to surface.
    pub verification: Option<Verification>,
    /// Non-empty `cross_layer_impacts`, to mention.
    pub cross_layer_impacts: Vec<String>,
    /// Non-empty `open_gaps`, to mention (BLOCKED: to present).
    pub open_gaps: Vec<String>,
    /// APPROVAL_REQUEST: the hook-issued approval id, when there is one.
    pub approval_id: Option<String>,
    /// Choices to put to the user (NEEDS_INPUT: from `next_action`; a plan: execute,
    /// modify, cancel).
    pub options: Vec<String>,
    /// Memory candidates to present before closing; persist only on consent.
    pub memory_suggestions: Vec<String>,
    /// The state machine's verdict, with `--state`.
    pub transition: Option<Transition>,
    /// The verdict of `contract check` the decision rests on.
    pub check: CheckResult,
}

/// The orchestrator's next action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// COMPLETE: report to the user and close.
    Close,
    /// APPROVAL_REQUEST with an `approval_id`: run the structured consent flow.
    PresentApproval,
    /// APPROVAL_REQUEST without one: present the plan with execute / modify / cancel.
    PresentPlanOptions,
    /// NEEDS_INPUT: ask the user, then send the answer back.
    AskUser,
    /// BLOCKED: present the open gaps; new dispatch or accept the limitation.
    PresentBlockers,
    /// IN_PROGRESS: resume the agent.
    Resume,
    /// A COMPLETE held by its own unfinished `loop_state`: resume for another iteration.
    ResumeLoop,
    /// Invalid contract, agent id known: resume the same agent with repair instructions.
    ResumeContractRepair,
    /// Invalid contract, no agent id to route to: escalate.
    EscalateContractRepair,
    /// A third consecutive IN_PROGRESS: treat as a stall and escalate.
    EscalateStall,
    /// The status is not a legal move from the agent's previous one.
    RejectTransition,
}

impl Action {
    /// Whether the orchestrator can follow the decision table as usual (exit 0).
    pub fn is_normal(self) -> bool {
        matches!(
            self,
            Action::Close
                | Action::PresentApproval
                | Action::PresentPlanOptions
                | Action::AskUser
                | Action::PresentBlockers
                | Action::Resume
        )
    }
}

/// The COMPLETE summary and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// `user_facing_summary` (relay near-verbatim) or `key_outputs` (bullets).
    pub source: &'static str,
    /// The summary text, or one line per bullet.
    pub lines: Vec<String>,
}

/// `verification.result` and `verification.details`, as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// The result, e.g. `pass`.
    pub result: String,
    /// The details ("" when absent).
    pub details: String,
}

/// Decides the next action from a verdict, the parsed block (when there was one), the
/// number of agents in flight, and the state machine's verdict (with `--state`).
pub fn decide(
    check: CheckResult,
    contract: Option<&Map<String, Value>>,
    agents: usize,
    transition: Option<Transition>,
) -> Decision {
    let empty = Map::new();
    let contract = contract.unwrap_or(&empty);
    let mut decision = Decision {
        action: Action::Resume,
        valid: check.valid,
        plan_status: check.plan_status.clone(),
        agent_id: check.agent_id.clone(),
        instructions: Vec::new(),
        summary: None,
        verification: None,
        cross_layer_impacts: Vec::new(),
        open_gaps: Vec::new(),
        approval_id: None,
        options: Vec::new(),
        memory_suggestions: Vec::new(),
        transition,
        check,
    };
    let status = PlanStatus::parse(&decision.plan_status);
    match status {
        Some(status) if decision.valid => decide_valid(&mut decision, status, contract, agents),
        _ => decide_invalid(&mut decision),
    }
    apply_transition(&mut decision);
    decision
}

fn agent_label(decision: &Decision) -> String {
    let id = if decision.agent_id.is_empty() {
        &decision.check.repair_agent_id
    } else {
        &decision.agent_id
    };
    if id.is_empty() {
        "the agent".to_string()
    } else {
        format!("agent {id}")
    }
}

fn decide_invalid(decision: &mut Decision) {
    let agent = agent_label(decision);
    let check = &decision.check;
    let loop_only = check.listed(Listed::Missing).next().is_some()
        && check.listed(Listed::Invalid).next().is_none()
        && check
            .listed(Listed::Missing)
            .all(|finding| finding.code == ContractCode::LoopStateIncomplete);
    if loop_only {
        decision.action = Action::ResumeLoop;
        decision.instructions.push(format!(
            "Hold the COMPLETE: its loop_state is unfinished ({}). SendMessage to resume {agent} for another iteration; do not report success.",
            decision.check.missing().join(", ")
        ));
        return;
    }
    if decision.check.recommended_action == ACTION_RESUME_REPAIR {
        decision.action = Action::ResumeContractRepair;
        decision.instructions.push(format!(
            "Resume {agent} with these repair instructions (the runtime caps repair at 2 retries); do not fabricate a status:"
        ));
    } else {
        decision.action = Action::EscalateContractRepair;
        decision.instructions.push(
            "No agent id can route the repair: escalate, or dispatch the task again asking for a valid contract:".to_string(),
        );
    }
    if let Some(reason) = &decision.check.no_block {
        decision.instructions.push(format!("{reason}; end the response with a ```agent_contract_handoff block holding a JSON object"));
    }
    let repairs = decision.check.repair_lines();
    decision.instructions.extend(repairs);
}

fn decide_valid(
    decision: &mut Decision,
    status: PlanStatus,
    contract: &Map<String, Value>,
    agents: usize,
) {
    let evidence = object(contract.get("evidence_report"));
    decision.cross_layer_impacts = list(evidence.and_then(|e| field(e, "cross_layer_impacts")));
    decision.open_gaps = list(evidence.and_then(|e| field(e, "open_gaps")));
    decision.memory_suggestions = memory_suggestions(contract);
    let agent = agent_label(decision);
    match status {
        PlanStatus::Complete => decide_complete(decision, contract, evidence, agents),
        PlanStatus::ApprovalRequest => decide_approval(decision, contract, &agent),
        PlanStatus::NeedsInput => {
            decision.action = Action::AskUser;
            decision.options =
                list(object(contract.get("agent_status")).and_then(|s| field(s, "next_action")));
            decision.instructions.push(format!(
                "AskUserQuestion with the options in next_action, then SendMessage the answer to resume {agent}."
            ));
        }
        PlanStatus::Blocked => {
            decision.action = Action::PresentBlockers;
            decision.instructions.push(
                "Present open_gaps to the user. If they give direction, dispatch a NEW agent addressing the blocker; \
                 if they accept the limitation, close the task as incomplete."
                    .to_string(),
            );
        }
        PlanStatus::InProgress => {
            decision.action = Action::Resume;
            decision.instructions.push(format!(
                "SendMessage to resume {agent} (consecutive IN_PROGRESS turns are capped at 2; treat a third as a stall)."
            ));
        }
    }
    push_mentions(decision, status);
}

fn decide_complete(
    decision: &mut Decision,
    contract: &Map<String, Value>,
    evidence: Option<&Map<String, Value>>,
    agents: usize,
) {
    decision.action = Action::Close;
    let summary = contract
        .get("user_facing_summary")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    decision.summary = Some(match summary {
        Some(text) if agents == 1 => {
            decision.instructions.push(
                "Relay user_facing_summary near-verbatim (adapt only to the user's language)."
                    .to_string(),
            );
            Summary {
                source: "user_facing_summary",
                lines: vec![text.to_string()],
            }
        }
        _ => {
            decision.instructions.push(format!(
                "Summarize key_outputs in 3-5 bullets{}.",
                if agents > 1 {
                    format!(", consolidated across the {agents} agents")
                } else {
                    String::new()
                }
            ));
            let bullets = list(evidence.and_then(|e| field(e, "key_outputs")));
            Summary {
                source: "key_outputs",
                lines: bullets.into_iter().take(MAX_BULLETS).collect(),
            }
        }
    });
    let verification = evidence
        .and_then(|e| object(e.get("verification")))
        .or_else(|| object(contract.get("verification")));
    if let Some(verification) = verification {
        decision.verification = Some(Verification {
            result: verification.get("result").map(to_str).unwrap_or_default(),
            details: verification
                .get("details")
                .filter(|v| !v.is_null())
                .map(to_str)
                .unwrap_or_default(),
        });
    }
    decision
        .instructions
        .push("Surface verification.result and verification.details, then close.".to_string());
}

fn decide_approval(decision: &mut Decision, contract: &Map<String, Value>, agent: &str) {
    let request = object(contract.get("approval_request"));
    decision.approval_id = request
        .and_then(|r| r.get("approval_id"))
        .filter(|id| is_truthy(id))
        .map(to_str);
    if let Some(id) = &decision.approval_id {
        decision.action = Action::PresentApproval;
        decision.instructions.push(format!(
            "Load Skill('orchestrator-present-approval') for approval_id {id}: the hook-issued grant needs the structured consent flow."
        ));
    } else {
        decision.action = Action::PresentPlanOptions;
        decision.options = ["execute", "modify", "cancel"].map(String::from).to_vec();
        decision.instructions.push(format!(
            "Present the plan (operation, exact_content, scope, risk_level, rollback, verification) with the options execute / modify / cancel; \
             on execute or modify, SendMessage to resume the SAME {agent}."
        ));
    }
}

fn push_mentions(decision: &mut Decision, status: PlanStatus) {
    if !decision.cross_layer_impacts.is_empty() && status == PlanStatus::Complete {
        decision
            .instructions
            .push("Mention cross_layer_impacts.".to_string());
    }
    if !decision.open_gaps.is_empty() && status == PlanStatus::Complete {
        decision.instructions.push("Mention open_gaps.".to_string());
    }
    if !decision.memory_suggestions.is_empty() {
        decision.instructions.push(format!(
            "Present the {} memory suggestion(s) to the user before closing the turn; persist only on consent.",
            decision.memory_suggestions.len()
        ));
    }
}

/// An illegal transition or a stall overrides the table's action.
fn apply_transition(decision: &mut Decision) {
    let Some(transition) = &decision.transition else {
        return;
    };
    let message = transition.message.clone();
    match transition.outcome {
        "illegal" => {
            decision.action = Action::RejectTransition;
            decision.instructions.insert(
                0,
                format!("{message} Resume the agent asking for a legal status, or escalate."),
            );
        }
        "stalled" => {
            decision.action = Action::EscalateStall;
            decision.instructions = vec![format!(
                "{message} Treat this as a stall and escalate; do not resume again."
            )];
        }
        _ if !message.is_empty() => decision.instructions.push(message),
        _ => {}
    }
}

fn object(value: Option<&Value>) -> Option<&Map<String, Value>> {
    match value {
        Some(Value::Object(map)) if !map.is_empty() => Some(map),
        _ => None,
    }
}

/// The lower-case key, else the upper-case one.
fn field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key)
        .filter(|v| is_truthy(v))
        .or_else(|| map.get(&key.to_uppercase()))
}

/// A list field as lines: strings as they are, `{command, result}` entries as
/// "`command` -> result", a lone scalar as one line.
fn list(value: Option<&Value>) -> Vec<String> {
    match value {
        None => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(line).collect(),
        Some(other) if is_truthy(other) => vec![to_str(other)],
        Some(_) => Vec::new(),
    }
}

fn line(item: &Value) -> String {
    if let Value::Object(map) = item {
        let command = map
            .get("command")
            .or_else(|| map.get("cmd"))
            .map(to_str)
            .unwrap_or_default();
        if !command.is_empty() {
            let result = map
                .get("result")
                .or_else(|| map.get("output"))
                .map(to_str)
                .unwrap_or_default();
            return format!("`{command}` -> {result}");
        }
    }
    to_str(item)
}

/// `memorialize_suggestions` descriptions and `memory_suggestions` notes, well-formed ones only.
fn memory_suggestions(contract: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(Value::Array(entries)) = contract.get("memorialize_suggestions") {
        for entry in entries.iter().filter_map(|e| object(Some(e))) {
            let description = entry.get("description").filter(|v| is_truthy(v));
            if let (Some(description), Some(_)) =
                (description, entry.get("body").filter(|v| is_truthy(v)))
            {
                out.push(to_str(description));
            }
        }
    }
    if let Some(Value::Array(notes)) = contract.get("memory_suggestions") {
        out.extend(notes.iter().filter(|n| !n.is_null()).map(to_str));
    }
    out
}
