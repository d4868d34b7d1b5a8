//! Validation of a new handoff against the agent registry (002 §5), for
//! `handoff trail open --registry`.
//!
//! Capabilities (§5.1): the receiver's declared capabilities (any registry layout of
//! ROUTING.md, or 004's `capabilities.yaml`) cover all the required ones → accepted;
//! some → accepted, the gap kept as a warning in the `initiated` event; none → refused,
//! naming the agents that have them. Capacity (§5.2): an agent's
//! `max_concurrent_tasks` against its handoffs on the trail that have not ended →
//! `at_capacity` refusal.

use super::error::TrailError;
use super::lifecycle::Ledger;
use crate::record::Capability;
use crate::routing::{parse_capability, Registry};

/// Checks that `to` may take a handoff requiring `required`; returns the warnings to
/// keep in the event (the capability gap), or the refusal.
pub fn against_registry(
    registry: &Registry,
    ledger: &Ledger,
    to: &str,
    required: &[String],
) -> Result<Vec<String>, TrailError> {
    let required: Vec<Capability> = required
        .iter()
        .map(|text| parse_capability(text).map_err(|e| TrailError::plain(e.to_string())))
        .collect::<Result<_, _>>()?;
    let Some(agent) = registry.agent(&crate::routing::normalise::normalise_term(to)) else {
        let mut names: Vec<&str> = registry.agents().map(|a| a.name.as_str()).collect();
        names.truncate(20);
        return Err(TrailError::refused(format!(
            "refused: `{to}` is not in the registry {} (agents: {})",
            registry.path().display(),
            names.join(", ")
        )));
    };
    let (covered, missing): (Vec<&Capability>, Vec<&Capability>) = required
        .iter()
        .partition(|c| covers(agent.qualifiers_for(&c.domain), c));
    if !required.is_empty() && covered.is_empty() {
        let holders: Vec<String> = missing
            .iter()
            .map(|capability| {
                let agents: Vec<&str> = registry
                    .agents()
                    .filter(|a| covers(a.qualifiers_for(&capability.domain), capability))
                    .map(|a| a.name.as_str())
                    .collect();
                match agents.is_empty() {
                    true => format!("{capability}: no agent (escalate)"),
                    false => format!("{capability}: {}", agents.join(", ")),
                }
            })
            .collect();
        return Err(TrailError::refused(format!(
            "refused: `{}` has none of the required capabilities; agents that have them: {}",
            agent.name,
            holders.join("; ")
        )));
    }
    if let Some(max) = agent.max_concurrent_tasks {
        let load = ledger.open_for(to);
        if load >= max as usize {
            return Err(TrailError::refused(format!(
                "refused: at_capacity: `{}` has {load} open handoff(s) and max_concurrent_tasks {max}; wait, or route to another agent",
                agent.name
            )));
        }
    }
    Ok(missing
        .iter()
        .map(|c| format!("capability gap: `{}` does not declare {c}", agent.name))
        .collect())
}

fn covers(declared: Option<&[String]>, wanted: &Capability) -> bool {
    declared.is_some_and(|qualifiers| wanted.qualifiers.iter().all(|q| qualifiers.contains(q)))
}
