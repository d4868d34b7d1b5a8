//! Auditing recorded routing decisions against the registry.
//!
//! A `## Routing Decision` record states what was asked, who matched, who was selected,
//! why, and which rule decided. [`check_decision`] re-derives the decision with the same
//! [`candidates`] and [`derive`] that `handoff route` uses and reports five findings,
//! each a [`Diagnostic`] with its [`RoutingCode`]:
//!
//! - [`RoutingCode::SelectedLacksDomain`] (error): the selected agent does not declare
//!   the requested domain;
//! - [`RoutingCode::BetterCandidate`] (error): another candidate covers more requested
//!   qualifiers than the selected one;
//! - [`RoutingCode::WrongTieBreak`] (error): the recorded rule is not the rule that
//!   actually decided;
//! - [`RoutingCode::LoadBalancingReason`] (error): the reason or rule relies on
//!   assignments, load, availability or round-robin, which the protocol excludes;
//! - [`RoutingCode::CandidatesDiffer`] (warning): the matched or rejected agents in the
//!   record are not the registry's candidates (the registry changed since, or the record
//!   is incomplete).
//!
//! Only the load-balancing check needs no registry. A record rarely names its requester,
//! so department affinity is re-derived with the requester's department when the record
//! names one (a `Requester` row, as `handoff route` writes it), and otherwise both ways
//! the rules allow: with the selected agent's own department, and with none. The
//! recorded rule passes when either reading selects the recorded agent by that rule.

use super::aliases::Aliases;
use super::normalise::normalise_term;
use super::registry::Registry;
use super::route::{candidates, derive, load_balancing_term, Candidate, Derivation, Stage};
use crate::diagnostic::{Diagnostic, RoutingCode};
use crate::record::Capability;
use crate::record::TieBreak;
use std::collections::{BTreeMap, BTreeSet};

/// An agent a record lists as matched, with the qualifiers it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedMatch {
    /// The agent's name as written.
    pub agent: String,
    /// The qualifiers shown for it, as written.
    pub qualifiers: Vec<String>,
}

/// What a `## Routing Decision` record states, as the audit needs it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecordedDecision {
    /// The requested capability, when it could be read.
    pub capability: Option<Capability>,
    /// The requester, when the record names one.
    pub requester: Option<String>,
    /// The matched agents.
    pub matched: Vec<RecordedMatch>,
    /// The selected agent.
    pub selected: Option<String>,
    /// The Reason field.
    pub reason: Option<String>,
    /// The rejected agents with their reasons.
    pub rejected: Vec<(String, String)>,
    /// The `Tie-break rule applied` field, verbatim.
    pub tie_break_text: Option<String>,
    /// That field normalised.
    pub tie_break: RecordedRule,
}

/// The `Tie-break rule applied` field, as the audit reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordedRule {
    /// One of the three rules.
    Applied(TieBreak),
    /// `none`: a single candidate, no rule needed.
    NoneNeeded,
    /// Missing, or text that names no rule.
    #[default]
    Unreadable,
}

impl RecordedRule {
    /// Whether the record names `actual`, the rule that decided (`None`: no rule needed).
    pub fn names(self, actual: Option<TieBreak>) -> bool {
        match (self, actual) {
            (RecordedRule::Applied(recorded), Some(rule)) => recorded == rule,
            (RecordedRule::NoneNeeded, None) => true,
            _ => false,
        }
    }
}

/// The registry (with its aliases) a decision is re-derived against.
#[derive(Debug, Clone, Copy)]
pub struct Reference<'a> {
    /// The agents.
    pub registry: &'a Registry,
    /// The vocabulary and aliases.
    pub aliases: &'a Aliases,
}

/// Checks one recorded decision; without a reference only load-balancing is checked.
/// Findings come in [`RoutingCode`] order.
pub fn check_decision(
    decision: &RecordedDecision,
    reference: Option<Reference<'_>>,
) -> Vec<Diagnostic> {
    let mut findings = Vec::new();
    if let (Some(reference), Some(capability), Some(selected)) = (
        reference,
        decision.capability.as_ref(),
        decision.selected.as_deref(),
    ) {
        findings.extend(rederive(
            decision,
            reference,
            capability,
            &normalise_term(selected),
        ));
    }
    findings.extend(load_balancing(decision));
    findings.sort_by_key(|finding| finding.code);
    findings
}

fn rederive(
    decision: &RecordedDecision,
    reference: Reference<'_>,
    asked: &Capability,
    selected: &str,
) -> Vec<Diagnostic> {
    let capability = reference.aliases.canonical(asked);
    let all = candidates(reference.registry, reference.aliases, &capability);
    let mut findings = Vec::new();
    match all.iter().find(|c| c.agent == selected) {
        None => findings.push(Diagnostic::new(
            RoutingCode::SelectedLacksDomain,
            format!(
                "`{selected}` is selected but does not declare the domain `{}`{}",
                capability.domain,
                match reference.aliases.knows_domain(&capability.domain) {
                    true => "",
                    false => " (which is not in the controlled vocabulary)",
                }
            ),
        )),
        Some(chosen) => {
            findings.extend(better_candidate(chosen, &all, &capability));
            findings.extend(wrong_tie_break(
                decision,
                reference,
                chosen,
                &all,
                &capability,
            ));
        }
    }
    findings.extend(candidates_differ(
        decision,
        reference.aliases,
        &all,
        selected,
    ));
    findings
}

fn better_candidate(
    chosen: &Candidate,
    all: &[Candidate],
    capability: &Capability,
) -> Option<Diagnostic> {
    let best = all
        .iter()
        .filter(|c| c.covered.len() > chosen.covered.len())
        .max_by(|a, b| {
            a.covered
                .len()
                .cmp(&b.covered.len())
                .then_with(|| b.agent.cmp(&a.agent))
        })?;
    Some(Diagnostic::new(
        RoutingCode::BetterCandidate,
        format!(
            "`{}` covers {} ({} of {} requested qualifiers), more than the selected `{}` ({})",
            best.agent,
            best.covered.join(", "),
            best.covered.len(),
            capability.qualifiers.len(),
            chosen.agent,
            chosen.covered.len()
        ),
    ))
}

fn wrong_tie_break(
    decision: &RecordedDecision,
    reference: Reference<'_>,
    chosen: &Candidate,
    all: &[Candidate],
    capability: &Capability,
) -> Option<Diagnostic> {
    if all.iter().any(|c| c.covered.len() > chosen.covered.len()) {
        return None; // qualifier match already rejects it: that is `better-candidate`
    }
    let readings: Vec<Derivation> = requester_departments(decision, reference, chosen)
        .iter()
        .map(|department| derive(all.to_vec(), capability, department.as_deref()))
        .collect();
    let consistent = |d: &Derivation| {
        decision.tie_break.names(deciding_rule(d))
            && d.remaining.iter().any(|c| c.agent == chosen.agent)
    };
    if readings.iter().any(consistent) {
        return None;
    }
    let derivation = readings.first()?;
    let actual = deciding_rule(derivation);
    let winner = derivation
        .remaining
        .first()
        .map_or("", |c| c.agent.as_str());
    let message = if decision.tie_break.names(actual) {
        format!(
            "`{}` selects `{winner}`, not `{}`",
            TieBreak::label(actual),
            chosen.agent
        )
    } else {
        let detail = match derivation.stage {
            Stage::Tied => {
                "the first two rules leave a tie, so only a documented choice decides".to_string()
            }
            _ => format!("it selects `{winner}`"),
        };
        let written = decision.tie_break_text.as_deref().map_or("none", str::trim);
        format!(
            "the record says `{written}` but `{}` decides: {detail}",
            TieBreak::label(actual)
        )
    };
    Some(Diagnostic::new(RoutingCode::WrongTieBreak, message))
}

/// The rule a derivation says decided; a tie left after two rules needs a documented choice.
fn deciding_rule(derivation: &Derivation) -> Option<TieBreak> {
    match derivation.stage {
        Stage::SingleCandidate => None,
        Stage::DecidedBy(rule) => Some(rule),
        Stage::Tied => Some(TieBreak::DocumentedChoice),
    }
}

/// The requester departments the decision may have been made with: the requester's,
/// when the record names one; otherwise the selected agent's own (department affinity
/// could have chosen it) or none at all (then only a documented choice could have).
fn requester_departments(
    decision: &RecordedDecision,
    reference: Reference<'_>,
    chosen: &Candidate,
) -> Vec<Option<String>> {
    match decision.requester.as_deref().map(normalise_term) {
        Some(name) => vec![reference
            .registry
            .agent(&name)
            .and_then(|a| a.department.clone())],
        None => vec![chosen.department.clone(), None],
    }
}

fn load_balancing(decision: &RecordedDecision) -> Option<Diagnostic> {
    let texts = [
        decision.reason.as_deref(),
        decision.tie_break_text.as_deref(),
    ];
    let rejected = decision
        .rejected
        .iter()
        .map(|(_, reason)| Some(reason.as_str()));
    let term = texts
        .into_iter()
        .chain(rejected)
        .flatten()
        .find_map(load_balancing_term)?;
    Some(Diagnostic::new(
        RoutingCode::LoadBalancingReason,
        format!("the decision relies on load-balancing (`{term}`), which the protocol excludes: no durable assignment ledger can confirm it"),
    ))
}

fn candidates_differ(
    decision: &RecordedDecision,
    aliases: &Aliases,
    all: &[Candidate],
    selected: &str,
) -> Option<Diagnostic> {
    let registry_matched: BTreeMap<String, Vec<String>> = all
        .iter()
        .map(|c| (c.agent.clone(), c.qualifiers.clone()))
        .collect();
    let recorded_matched: BTreeMap<String, Vec<String>> = decision
        .matched
        .iter()
        .map(|m| {
            let qualifiers = m.qualifiers.iter().map(|q| aliases.canonical_qualifier(q));
            (
                normalise_term(&m.agent),
                Capability::new("", qualifiers).qualifiers,
            )
        })
        .collect();
    let registry_rejected: BTreeSet<String> = all
        .iter()
        .map(|c| c.agent.clone())
        .filter(|a| a != selected)
        .collect();
    let recorded_rejected: BTreeSet<String> = decision
        .rejected
        .iter()
        .map(|(agent, _)| normalise_term(agent))
        .collect();
    let differences: Vec<String> = [
        set_difference(
            "matched agents",
            &only_in(&registry_matched, &recorded_matched),
            &only_in(&recorded_matched, &registry_matched),
        ),
        qualifier_difference(&registry_matched, &recorded_matched),
        set_difference("rejected agents", &registry_rejected, &recorded_rejected),
    ]
    .into_iter()
    .flatten()
    .collect();
    if differences.is_empty() {
        return None;
    }
    let message = format!(
        "{} (the registry changed since, or the record is incomplete)",
        differences.join("; ")
    );
    Some(Diagnostic::new(RoutingCode::CandidatesDiffer, message))
}

/// `agent [q1, q2]` for each agent of `list` that `other` does not name.
fn only_in(
    list: &BTreeMap<String, Vec<String>>,
    other: &BTreeMap<String, Vec<String>>,
) -> BTreeSet<String> {
    list.iter()
        .filter(|(agent, _)| !other.contains_key(*agent))
        .map(|(agent, qualifiers)| format!("{agent} [{}]", qualifiers.join(", ")))
        .collect()
}

/// "qualifiers: backend-engineer shows [jwt] where the registry has [jwt, session]" for
/// agents in both lists, or `None` when they agree.
fn qualifier_difference(
    registry: &BTreeMap<String, Vec<String>>,
    recorded: &BTreeMap<String, Vec<String>>,
) -> Option<String> {
    let differing: Vec<String> = recorded
        .iter()
        .filter_map(|(agent, shown)| {
            let declared = registry.get(agent).filter(|declared| *declared != shown)?;
            Some(format!(
                "{agent} shows [{}] where the registry has [{}]",
                shown.join(", "),
                declared.join(", ")
            ))
        })
        .collect();
    (!differing.is_empty()).then(|| format!("qualifiers: {}", differing.join(", ")))
}

/// "matched agents: the record lacks a, b; the registry has no c", or `None` when equal.
fn set_difference(
    label: &str,
    registry: &BTreeSet<String>,
    recorded: &BTreeSet<String>,
) -> Option<String> {
    let lacks: Vec<&str> = registry.difference(recorded).map(String::as_str).collect();
    let unknown: Vec<&str> = recorded.difference(registry).map(String::as_str).collect();
    let parts: Vec<String> = [
        (!lacks.is_empty()).then(|| format!("the record lacks {}", lacks.join(", "))),
        (!unknown.is_empty()).then(|| format!("the registry has no {}", unknown.join(", "))),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| format!("{label}: {}", parts.join(" and ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Code, Severity};
    use std::path::Path;

    const REGISTRY: &str = "agents:\n  - name: security-engineer\n    department: engineering\n    capabilities: {auth: [oauth2, jwt, saml]}\n  - name: backend-engineer\n    department: engineering\n    capabilities: {auth: [jwt, session], backend: [nodejs]}\n  - name: fullstack-engineer\n    department: product\n    capabilities: {backend: [nodejs], frontend: [react]}\n";

    fn registry() -> Registry {
        match Registry::from_yaml(Path::new("registry.yaml"), REGISTRY) {
            Ok(registry) => registry,
            Err(error) => panic!("{error}"),
        }
    }

    fn matched(agent: &str, qualifiers: &[&str]) -> RecordedMatch {
        RecordedMatch {
            agent: agent.into(),
            qualifiers: qualifiers.iter().map(|q| q.to_string()).collect(),
        }
    }

    /// The seed's own example: compliant.
    fn seed_decision() -> RecordedDecision {
        RecordedDecision {
            capability: Some(Capability::new("auth", ["oauth2".into(), "pkce".into()])),
            requester: None,
            matched: vec![
                matched("security-engineer", &["oauth2", "jwt", "saml"]),
                matched("backend-engineer", &["jwt", "session"]),
            ],
            selected: Some("security-engineer".into()),
            reason: Some("Qualifier match: oauth2 is in security-engineer's qualifiers".into()),
            rejected: vec![("backend-engineer".into(), "qualifier mismatch".into())],
            tie_break_text: Some("qualifier-match (highest priority)".into()),
            tie_break: RecordedRule::Applied(TieBreak::QualifierMatch),
        }
    }

    fn kinds(decision: &RecordedDecision) -> Vec<Code> {
        let registry = registry();
        let aliases = Aliases::default();
        let reference = Reference {
            registry: &registry,
            aliases: &aliases,
        };
        check_decision(decision, Some(reference))
            .into_iter()
            .map(|f| f.code)
            .collect()
    }

    #[test]
    fn the_seed_example_is_compliant() {
        assert_eq!(kinds(&seed_decision()), []);
    }

    #[test]
    fn a_selected_agent_without_the_domain_is_an_error() {
        let decision = RecordedDecision {
            selected: Some("fullstack-engineer".into()),
            ..seed_decision()
        };
        assert!(kinds(&decision).starts_with(&[Code::Routing(RoutingCode::SelectedLacksDomain)]));
    }

    #[test]
    fn a_candidate_covering_more_qualifiers_is_an_error() {
        let decision = RecordedDecision {
            selected: Some("backend-engineer".into()),
            rejected: vec![("security-engineer".into(), "qualifier mismatch".into())],
            ..seed_decision()
        };
        assert_eq!(
            kinds(&decision),
            [Code::Routing(RoutingCode::BetterCandidate)]
        );
    }

    #[test]
    fn a_rule_that_did_not_decide_is_an_error() {
        let decision = RecordedDecision {
            tie_break_text: Some("department-affinity".into()),
            tie_break: RecordedRule::Applied(TieBreak::DepartmentAffinity),
            ..seed_decision()
        };
        assert_eq!(
            kinds(&decision),
            [Code::Routing(RoutingCode::WrongTieBreak)]
        );
        let unreadable = RecordedDecision {
            tie_break_text: Some("coin flip".into()),
            tie_break: RecordedRule::Unreadable,
            ..seed_decision()
        };
        assert_eq!(
            kinds(&unreadable),
            [Code::Routing(RoutingCode::WrongTieBreak)]
        );
        let backend = RecordedDecision {
            capability: Some(Capability::new("backend", ["nodejs".into()])),
            matched: vec![
                matched("backend-engineer", &["nodejs"]),
                matched("fullstack-engineer", &["nodejs"]),
            ],
            selected: Some("fullstack-engineer".into()),
            rejected: vec![("backend-engineer".into(), "not picked".into())],
            tie_break: RecordedRule::Applied(TieBreak::QualifierMatch),
            requester: Some("backend-engineer".into()),
            ..seed_decision()
        };
        assert_eq!(kinds(&backend), [Code::Routing(RoutingCode::WrongTieBreak)]);
        let documented = RecordedDecision {
            requester: None,
            tie_break: RecordedRule::Applied(TieBreak::DepartmentAffinity),
            ..backend
        };
        assert_eq!(
            kinds(&documented),
            [],
            "the selected agent's department decides"
        );
        let picked = RecordedDecision {
            tie_break: RecordedRule::Applied(TieBreak::DocumentedChoice),
            ..documented
        };
        assert_eq!(
            kinds(&picked),
            [],
            "a requester without a department leaves a tie"
        );
    }

    #[test]
    fn a_load_balancing_reason_is_an_error_even_without_a_registry() {
        let decision = RecordedDecision {
            reason: Some("backend-engineer has fewer current assignments".into()),
            ..seed_decision()
        };
        assert_eq!(
            kinds(&decision),
            [Code::Routing(RoutingCode::LoadBalancingReason)]
        );
        let findings = check_decision(&decision, None);
        assert_eq!(findings.len(), 1);
        assert!(findings[0].message.contains("`assignments`"));
    }

    #[test]
    fn differing_candidates_are_a_warning() {
        let decision = RecordedDecision {
            matched: vec![matched("security-engineer", &["oauth2", "jwt", "saml"])],
            rejected: Vec::new(),
            ..seed_decision()
        };
        let registry = registry();
        let aliases = Aliases::default();
        let reference = Reference {
            registry: &registry,
            aliases: &aliases,
        };
        let findings = check_decision(&decision, Some(reference));
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].code, RoutingCode::CandidatesDiffer.into());
        assert_eq!(findings[0].severity, Severity::Warning);
        assert!(
            findings[0]
                .message
                .contains("backend-engineer [jwt, session]"),
            "{}",
            findings[0].message
        );
        let other_qualifiers = RecordedDecision {
            matched: vec![
                matched("security-engineer", &["OAuth2", "saml"]),
                matched("backend-engineer", &["jwt", "session"]),
            ],
            ..seed_decision()
        };
        let findings = check_decision(&other_qualifiers, Some(reference));
        let expected = "qualifiers: security-engineer shows [oauth2, saml] where the registry has [jwt, oauth2, saml]";
        assert!(
            findings[0].message.starts_with(expected),
            "{}",
            findings[0].message
        );
    }
}
