//! The `## Routing Decision` record a [`Decision`] becomes.
//!
//! The record states, in the seed's field order: the task, the requested capability,
//! every candidate with its qualifiers for the domain, the selected agent, a Reason that
//! names the covered qualifiers, every rejected agent with its reason, and the rule
//! applied. The field values are built here once; rendering them to Markdown is the
//! record templates' job.

use super::route::{Candidate, Decision};
use crate::record::Capability;
use crate::record::TieBreak;

/// The placeholder written for a task ID that was not given; lint reports it unfilled.
pub const TASK_ID_PLACEHOLDER: &str = "[task ID]";

/// The record's fields, in order, as `(key, value)` pairs.
pub fn record_fields(decision: &Decision, task_id: Option<&str>) -> Vec<(&'static str, String)> {
    let mut fields = vec![
        (
            "Task ID",
            task_id.unwrap_or(TASK_ID_PLACEHOLDER).to_string(),
        ),
        ("Requested capability", decision.capability.to_string()),
    ];
    if let Some(requester) = &decision.requester {
        fields.push(("Requester", requester.clone()));
    }
    fields.extend([
        (
            "Matched agents",
            matched_agents(&decision.candidates, &decision.capability.domain),
        ),
        ("Selected", decision.selected.clone()),
        ("Reason", decision.reason.clone()),
        ("Rejected", rejected(decision)),
        (
            "Tie-break rule applied",
            TieBreak::label(decision.tie_break).to_string(),
        ),
    ]);
    fields
}

/// `security-engineer (auth: [oauth2, saml]), backend-engineer (auth)`.
pub fn matched_agents(candidates: &[Candidate], domain: &str) -> String {
    let items: Vec<String> = candidates
        .iter()
        .map(|c| {
            format!(
                "{} ({})",
                c.agent,
                Capability::new(domain, c.qualifiers.clone())
            )
        })
        .collect();
    items.join(", ")
}

/// `backend-engineer — qualifier-match: …; qa-engineer — …`, or `none`.
fn rejected(decision: &Decision) -> String {
    if decision.rejected.is_empty() {
        return "none".to_string();
    }
    let items: Vec<String> = decision
        .rejected
        .iter()
        .map(|r| format!("{} — {}", r.agent, r.reason))
        .collect();
    items.join("; ")
}
