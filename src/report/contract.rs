//! `handoff contract check` and `next`: the verdict on an agent's contract block, and
//! the orchestrator's next action, as lines a person or an agent can act on.

use super::{Format, Report};
use crate::contract::next::Decision;
use crate::contract::CheckResult;
use serde::Serialize;

/// A contract check of the agent output named `name`.
pub struct ContractCheckReport<'a> {
    /// The input's name (`-` for standard input).
    pub name: &'a str,
    /// The verdict (the JSON contract).
    pub result: &'a CheckResult,
}

/// The next action decided from the agent output named `name`.
pub struct ContractNextReport<'a> {
    /// The input's name (`-` for standard input).
    pub name: &'a str,
    /// The decision (the JSON contract).
    pub decision: &'a Decision,
}

#[derive(Serialize)]
struct CheckContext<'a> {
    name: &'a str,
    result: &'a CheckResult,
    /// How many findings invalidate the contract.
    count: usize,
    /// Why there is no usable block, when there is none.
    no_block: Option<String>,
    /// One repair line per finding.
    repairs: Vec<String>,
}

impl Report for ContractCheckReport<'_> {
    const NAME: &'static str = "contract-check";
    const FORMATS: &'static [Format] = &[Format::Human, Format::Json, Format::Yaml];
    type Contract = CheckResult;

    fn contract(&self) -> &CheckResult {
        self.result
    }

    fn context(&self, _format: Format) -> serde_json::Value {
        let result = self.result;
        let context = CheckContext {
            name: self.name,
            result,
            count: result.missing().len() + result.invalid().len(),
            no_block: result.no_block.as_ref().map(ToString::to_string),
            repairs: result.repair_lines(),
        };
        serde_json::to_value(context).unwrap_or_default()
    }
}

impl Report for ContractNextReport<'_> {
    const NAME: &'static str = "contract-next";
    const FORMATS: &'static [Format] = &[Format::Human, Format::Json, Format::Yaml];
    type Contract = Decision;

    fn contract(&self) -> &Decision {
        self.decision
    }

    fn context(&self, _format: Format) -> serde_json::Value {
        let decision = self.decision;
        serde_json::json!({
            "name": self.name,
            "decision": decision,
            "lists": [
                ["cross_layer_impacts", decision.cross_layer_impacts],
                ["open_gaps", decision.open_gaps],
                ["options", decision.options],
                ["memory suggestions", decision.memory_suggestions],
            ],
        })
    }
}
