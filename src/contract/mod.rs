//! The `agent_contract_handoff` block: the JSON envelope a subagent emits at the end of
//! its turn, and what an orchestrator does with it.
//!
//! Seed 000 is the field dictionary, seed 001 the orchestrator's decision table; both
//! come from gaia-ops, whose Python hooks (`response_contract.py`,
//! `contract_validator.py`, `state_tracker.py`) are the reference implementation.
//! `../shared/spec/CONTRACT.md` pins the behaviour this module ships; where the seeds'
//! prose and the reference code differ it follows the code, and where CONTRACT.md and
//! the code differ it follows CONTRACT.md (docs/contract.md lists each difference).
//!
//! The pieces, in the order a runtime uses them:
//! - [`block`] finds the first fenced block and parses its JSON body, string-aware;
//! - [`check`] applies the validation rules and builds the [`CheckResult`];
//! - [`advisory`] reports malformed optional fields without affecting validity;
//! - [`next`] turns a verdict into the orchestrator's next action;
//! - [`state`] tracks each agent's status across turns (legal transitions and the
//!   retry cap) in a JSON file written atomically.
//!
//! [`python`] holds the few Python semantics the verdicts depend on.

pub mod advisory;
pub mod block;
pub mod check;
pub mod next;
pub mod python;
pub mod state;

pub use check::{check_output, CheckOptions, CheckResult, ContractFinding, Listed};

use crate::diagnostic::ContractCode;

/// The seven evidence keys, as codes (the JSON keys are their lower-case forms).
pub const EVIDENCE_FIELDS: [ContractCode; 7] = [
    ContractCode::PatternsChecked,
    ContractCode::FilesChecked,
    ContractCode::CommandsRun,
    ContractCode::KeyOutputs,
    ContractCode::VerbatimOutputs,
    ContractCode::CrossLayerImpacts,
    ContractCode::OpenGaps,
];

/// The five canonical values of `agent_status.plan_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanStatus {
    /// Mid-loop; the default during a retry or a failed verification.
    InProgress,
    /// A command needs the user's approval.
    ApprovalRequest,
    /// The increment is finished and verified.
    Complete,
    /// The agent cannot continue alone.
    Blocked,
    /// A user decision is required.
    NeedsInput,
}

impl PlanStatus {
    /// Every status, in the order the seed lists them.
    pub const ALL: [PlanStatus; 5] = [
        PlanStatus::InProgress,
        PlanStatus::ApprovalRequest,
        PlanStatus::Complete,
        PlanStatus::Blocked,
        PlanStatus::NeedsInput,
    ];

    /// The wire names, in the order of [`PlanStatus::ALL`].
    pub const NAMES: [&'static str; 5] = [
        "IN_PROGRESS",
        "APPROVAL_REQUEST",
        "COMPLETE",
        "BLOCKED",
        "NEEDS_INPUT",
    ];

    /// The status named exactly `name` (already normalised), if it is canonical.
    pub fn parse(name: &str) -> Option<PlanStatus> {
        let index = PlanStatus::NAMES
            .iter()
            .position(|candidate| *candidate == name)?;
        Some(PlanStatus::ALL[index])
    }

    /// The wire name, e.g. `IN_PROGRESS`.
    pub fn name(self) -> &'static str {
        PlanStatus::NAMES[self as usize]
    }
}
