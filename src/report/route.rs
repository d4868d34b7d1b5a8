//! `handoff route`: the decision as a `## Routing Decision` record (or, without one, what
//! to do instead), and as the JSON contract.

use super::{Format, Report};
use crate::record::{render, Record, RecordKind, RenderError};
use crate::record::{Capability, TieBreak};
use crate::routing::artifact::{matched_agents, record_fields};
use crate::routing::{Candidate, Decision, Rejection, RoutingOutcome};
use crate::template::Templates;
use serde::Serialize;

/// The JSON contract of `handoff route --format json`: every key always present.
#[derive(Debug, Serialize)]
pub struct RouteContract<'a> {
    /// `selected`, `no-candidates` or `tied`.
    pub outcome: &'static str,
    /// The task routed, when given.
    pub task_id: Option<&'a str>,
    /// The capability asked for, normalised.
    pub requested_capability: &'a Capability,
    /// The requester, when given.
    pub requester: Option<&'a str>,
    /// Every agent that declares the domain.
    pub candidates: &'a [Candidate],
    /// The agent chosen.
    pub selected: Option<&'a str>,
    /// Why.
    pub reason: Option<&'a str>,
    /// The candidates not chosen, and why.
    pub rejected: &'a [Rejection],
    /// The rule that decided (`none` for a single candidate).
    pub tie_break: Option<&'static str>,
    /// The agents still tied.
    pub tied: &'a [String],
}

/// A routing outcome, as `route` reports it.
pub struct RouteReport<'a> {
    contract: RouteContract<'a>,
    /// The canonical record of a selection, for the Markdown layout.
    record: Option<String>,
    /// The tied agents with their qualifiers, one line each.
    tied_lines: Vec<String>,
}

impl<'a> RouteReport<'a> {
    /// The report of `outcome` for `task_id` and `requester`; for Markdown, a selection
    /// is rendered as its record through `templates`.
    pub fn new(
        outcome: &'a RoutingOutcome,
        task_id: Option<&'a str>,
        requester: Option<&'a str>,
        format: Format,
        templates: &Templates,
    ) -> Result<RouteReport<'a>, RenderError> {
        let contract = contract(outcome, task_id, requester);
        let record = match outcome {
            RoutingOutcome::Selected(decision) if format == Format::Markdown => {
                Some(decision_record(decision, task_id, templates)?)
            }
            _ => None,
        };
        let tied_lines = match outcome {
            RoutingOutcome::Tied {
                capability,
                candidates,
                tied,
                ..
            } => candidates
                .iter()
                .filter(|c| tied.contains(&c.agent))
                .map(|c| matched_agents(std::slice::from_ref(c), &capability.domain))
                .collect(),
            _ => Vec::new(),
        };
        Ok(RouteReport {
            contract,
            record,
            tied_lines,
        })
    }
}

fn contract<'a>(
    outcome: &'a RoutingOutcome,
    task_id: Option<&'a str>,
    requester: Option<&'a str>,
) -> RouteContract<'a> {
    match outcome {
        RoutingOutcome::Selected(d) => RouteContract {
            outcome: "selected",
            task_id,
            requested_capability: &d.capability,
            requester,
            candidates: &d.candidates,
            selected: Some(&d.selected),
            reason: Some(&d.reason),
            rejected: &d.rejected,
            tie_break: Some(TieBreak::label(d.tie_break)),
            tied: &[],
        },
        RoutingOutcome::NoCandidates { capability } => RouteContract {
            outcome: "no-candidates",
            task_id,
            requested_capability: capability,
            requester,
            candidates: &[],
            selected: None,
            reason: None,
            rejected: &[],
            tie_break: None,
            tied: &[],
        },
        RoutingOutcome::Tied {
            capability,
            candidates,
            tied,
            rejected,
        } => RouteContract {
            outcome: "tied",
            task_id,
            requested_capability: capability,
            requester,
            candidates,
            selected: None,
            reason: None,
            rejected,
            tie_break: None,
            tied,
        },
    }
}

/// The decision as a canonical `## Routing Decision` record, through the record
/// templates.
fn decision_record(
    decision: &Decision,
    task_id: Option<&str>,
    templates: &Templates,
) -> Result<String, RenderError> {
    let mut record = Record::new(RecordKind::RoutingDecision);
    for (key, value) in record_fields(decision, task_id) {
        record.set_field(key, &value);
    }
    render(&record, templates)
}

impl<'a> Report for RouteReport<'a> {
    const NAME: &'static str = "route";
    const FORMATS: &'static [Format] = &[Format::Markdown, Format::Json, Format::Yaml];
    type Contract = RouteContract<'a>;

    fn contract(&self) -> &RouteContract<'a> {
        &self.contract
    }

    fn context(&self, _format: Format) -> serde_json::Value {
        serde_json::json!({
            "route": self.contract,
            "asked": self.contract.requested_capability.to_string(),
            "record": self.record,
            "tied_lines": self.tied_lines,
        })
    }
}
