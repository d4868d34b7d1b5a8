//! The routing rules: candidates, the three tie-breaks, and the decision.
//!
//! [`route`] normalises the requested capability, refuses a domain outside the
//! controlled vocabulary, collects the candidates (the agents that declare the domain)
//! and narrows them with [`derive`]: qualifier match, then department affinity. The rule
//! recorded is the first that left exactly one agent; a single candidate needs no rule.
//! A tie that survives both rules is only broken by the orchestrator's documented
//! [`Pick`]; without one the outcome is [`RoutingOutcome::Tied`] and nothing is chosen.
//! Nothing here counts assignments or load: a reason that does is refused, because no
//! ledger could ever confirm it.
//!
//! The audit re-derives recorded decisions with the same [`candidates`] and [`derive`],
//! so routing and auditing cannot disagree about the rules.

use super::aliases::Aliases;
use super::normalise::normalise_term;
use super::registry::Registry;
use crate::record::{Capability, TieBreak};
use regex::Regex;
use serde::{Serialize, Serializer};
use std::sync::OnceLock;

/// An agent that declares the requested domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// The agent's name.
    pub agent: String,
    /// Its department, when known.
    pub department: Option<String>,
    /// The canonical qualifiers it declares for the domain, sorted.
    pub qualifiers: Vec<String>,
    /// The requested qualifiers it covers, sorted.
    pub covered: Vec<String>,
}

/// A candidate that was not selected, with the rule that set it aside and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// The agent's name.
    pub agent: String,
    /// The rule that rejected it.
    pub rule: TieBreak,
    /// Why, in words, starting with the rule's name.
    pub reason: String,
}

/// The orchestrator's choice among agents still tied after the first two rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// The chosen agent.
    pub agent: String,
    /// Why it was chosen; written into the decision's Reason.
    pub reason: String,
}

/// What to route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteRequest {
    /// The capability the task needs, as written (normalised by [`route`]).
    pub capability: Capability,
    /// The agent asking, whose department the department-affinity rule uses.
    pub requester: Option<String>,
    /// The documented choice for a tie that survives the first two rules.
    pub pick: Option<Pick>,
}

/// A routing decision: everything a `## Routing Decision` record states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// The requested capability, canonical.
    pub capability: Capability,
    /// The requester, when given.
    pub requester: Option<String>,
    /// Every candidate, sorted by agent.
    pub candidates: Vec<Candidate>,
    /// The selected agent.
    pub selected: String,
    /// Why it was selected; names the covered qualifiers.
    pub reason: String,
    /// Every other candidate with the reason it was rejected, sorted by agent.
    pub rejected: Vec<Rejection>,
    /// The rule that decided; `None` when there was a single candidate.
    #[serde(serialize_with = "serialize_rule_label")]
    pub tie_break: Option<TieBreak>,
}

fn serialize_rule_label<S: Serializer>(
    rule: &Option<TieBreak>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(TieBreak::label(*rule))
}

/// The result of routing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoutingOutcome {
    /// An agent was selected.
    Selected(Decision),
    /// No agent declares the domain: the task must be escalated.
    NoCandidates {
        /// The requested capability, canonical.
        capability: Capability,
    },
    /// Several agents are still tied and no documented pick was given.
    Tied {
        /// The requested capability, canonical.
        capability: Capability,
        /// Every candidate, sorted by agent.
        candidates: Vec<Candidate>,
        /// The agents still tied, sorted.
        tied: Vec<String>,
        /// The candidates the first two rules set aside.
        rejected: Vec<Rejection>,
    },
}

/// Why a request cannot be routed as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    /// The domain is not in the controlled vocabulary.
    #[error("unknown capability domain `{domain}`; valid domains: {}", .valid.join(", "))]
    UnknownDomain {
        /// The domain asked for, normalised.
        domain: String,
        /// The vocabulary, sorted.
        valid: Vec<String>,
    },
    /// `--pick` names an agent that is not among the tied ones.
    #[error("`{pick}` is not one of the tied agents ({}); pick one of them", .tied.join(", "))]
    PickNotTied {
        /// The agent picked.
        pick: String,
        /// The agents still tied.
        tied: Vec<String>,
    },
    /// `--pick` was given but the rules left no tie.
    #[error("there is no tie to break: {rule} selects `{selected}`; leave out the pick")]
    NothingToPick {
        /// The agent the rules selected.
        selected: String,
        /// The rule that decided (`none` for a single candidate).
        rule: &'static str,
    },
    /// The documented reason is empty.
    #[error("a documented choice needs a reason that says why this agent fits the task")]
    EmptyReason,
    /// The documented reason relies on load or availability.
    #[error("the reason relies on load-balancing (`{term}`), which the protocol excludes: no durable assignment ledger exists, so it could never be audited; give a reason from the task itself")]
    LoadBalancingReason {
        /// The word that gave it away.
        term: String,
    },
}

/// What may make a routing request mean less than it says, as warnings (none stops
/// it): a qualifier that is an alias of several qualifiers (it is matched as written), a
/// requester that is not in the registry or has no department (department affinity
/// cannot apply).
pub fn request_warnings(
    registry: &Registry,
    aliases: &Aliases,
    capability: &Capability,
    requester: Option<&str>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for qualifier in &capability.qualifiers {
        if let Some(forms) = aliases.ambiguous_variants().get(qualifier) {
            let forms = forms.join(", ");
            warnings.push(format!("qualifier `{qualifier}` is an alias of several qualifiers ({forms}); it is matched as written"));
        }
    }
    if let Some(name) = requester.map(normalise_term) {
        match registry.agent(&name) {
            None => warnings.push(format!(
                "requester `{name}` is not in the registry; department affinity cannot apply"
            )),
            Some(agent) if agent.department.is_none() => warnings.push(format!(
                "requester `{name}` has no department; department affinity cannot apply"
            )),
            Some(_) => {}
        }
    }
    warnings
}

/// Routes a request against a registry by the protocol's rules.
pub fn route(
    registry: &Registry,
    aliases: &Aliases,
    request: &RouteRequest,
) -> Result<RoutingOutcome, RouteError> {
    let capability = aliases.canonical(&request.capability);
    if !aliases.knows_domain(&capability.domain) {
        return Err(RouteError::UnknownDomain {
            domain: capability.domain,
            valid: aliases.domains().map(str::to_string).collect(),
        });
    }
    let all = candidates(registry, aliases, &capability);
    if all.is_empty() {
        return Ok(RoutingOutcome::NoCandidates { capability });
    }
    let requester = request.requester.as_deref().map(normalise_term);
    let requester_department = requester
        .as_deref()
        .and_then(|name| registry.agent(name))
        .and_then(|agent| agent.department.as_deref());
    let derivation = derive(all.clone(), &capability, requester_department);
    let context = Context {
        capability,
        requester,
        candidates: all,
    };
    match derivation.stage {
        Stage::SingleCandidate => selected(context, derivation, None, request.pick.as_ref()),
        Stage::DecidedBy(rule) => selected(context, derivation, Some(rule), request.pick.as_ref()),
        Stage::Tied => match &request.pick {
            Some(pick) => documented_choice(context, derivation, pick),
            None => Ok(tied(context, derivation)),
        },
    }
}

/// What every outcome repeats.
struct Context {
    capability: Capability,
    requester: Option<String>,
    candidates: Vec<Candidate>,
}

fn selected(
    context: Context,
    derivation: Derivation,
    rule: Option<TieBreak>,
    pick: Option<&Pick>,
) -> Result<RoutingOutcome, RouteError> {
    let Some(winner) = derivation.remaining.into_iter().next() else {
        return Ok(RoutingOutcome::NoCandidates {
            capability: context.capability,
        });
    };
    if pick.is_some() {
        return Err(RouteError::NothingToPick {
            selected: winner.agent,
            rule: TieBreak::label(rule),
        });
    }
    let reason = rule_reason(rule, &winner, &context);
    Ok(decision(context, winner, reason, derivation.rejected, rule))
}

fn documented_choice(
    context: Context,
    derivation: Derivation,
    pick: &Pick,
) -> Result<RoutingOutcome, RouteError> {
    let why = pick.reason.trim();
    if why.is_empty() {
        return Err(RouteError::EmptyReason);
    }
    if let Some(term) = load_balancing_term(why) {
        return Err(RouteError::LoadBalancingReason { term });
    }
    let picked = normalise_term(&pick.agent);
    let tied: Vec<String> = derivation
        .remaining
        .iter()
        .map(|c| c.agent.clone())
        .collect();
    let (chosen, others): (Vec<Candidate>, Vec<Candidate>) = derivation
        .remaining
        .into_iter()
        .partition(|c| c.agent == picked);
    let Some(winner) = chosen.into_iter().next() else {
        return Err(RouteError::PickNotTied { pick: picked, tied });
    };
    let mut rejected = derivation.rejected;
    rejected.extend(others.into_iter().map(|c| Rejection {
        agent: c.agent,
        rule: TieBreak::DocumentedChoice,
        reason: "documented-choice: not picked".to_string(),
    }));
    let reason = format!(
        "Documented choice among {}: {why}. Tied on qualifiers: {}",
        tied.join(", "),
        coverage(&winner, &context.capability)
    );
    Ok(decision(
        context,
        winner,
        reason,
        rejected,
        Some(TieBreak::DocumentedChoice),
    ))
}

fn tied(context: Context, derivation: Derivation) -> RoutingOutcome {
    RoutingOutcome::Tied {
        capability: context.capability,
        candidates: context.candidates,
        tied: derivation.remaining.into_iter().map(|c| c.agent).collect(),
        rejected: derivation.rejected,
    }
}

fn decision(
    context: Context,
    winner: Candidate,
    reason: String,
    mut rejected: Vec<Rejection>,
    tie_break: Option<TieBreak>,
) -> RoutingOutcome {
    rejected.sort_by(|a, b| a.agent.cmp(&b.agent));
    RoutingOutcome::Selected(Decision {
        capability: context.capability,
        requester: context.requester,
        candidates: context.candidates,
        selected: winner.agent,
        reason,
        rejected,
        tie_break,
    })
}

/// Why the rules selected `winner` (a documented choice writes its own reason).
fn rule_reason(rule: Option<TieBreak>, winner: &Candidate, context: &Context) -> String {
    let covers = coverage(winner, &context.capability);
    match rule {
        None => format!(
            "Only candidate declaring `{}`: {covers}",
            context.capability.domain
        ),
        Some(TieBreak::QualifierMatch) => {
            format!("Qualifier match: {covers}, more than any other candidate")
        }
        Some(TieBreak::DepartmentAffinity | TieBreak::DocumentedChoice) => format!(
            "Department affinity: in `{}`, the department of the requester `{}`: {covers}",
            winner.department.as_deref().unwrap_or_default(),
            context.requester.as_deref().unwrap_or_default()
        ),
    }
}

/// "covers oauth2, pkce (2 of 2 requested qualifiers)", in words.
fn coverage(candidate: &Candidate, capability: &Capability) -> String {
    let requested = capability.qualifiers.len();
    match (candidate.covered.len(), requested) {
        (_, 0) => "no qualifiers were requested".to_string(),
        (0, _) => format!("covers none of the {requested} requested qualifiers"),
        (covered, _) => format!(
            "covers {} ({covered} of {requested} requested qualifiers)",
            candidate.covered.join(", ")
        ),
    }
}

/// The agents of `registry` that declare the capability's domain, with their canonical
/// qualifiers for it and the requested ones they cover; sorted by agent.
/// `capability` must already be canonical.
pub fn candidates(
    registry: &Registry,
    aliases: &Aliases,
    capability: &Capability,
) -> Vec<Candidate> {
    registry
        .agents()
        .filter_map(|agent| {
            let declared = agent.qualifiers_for(&capability.domain)?;
            let qualifiers =
                Capability::new("", declared.iter().map(|q| aliases.canonical_qualifier(q)))
                    .qualifiers;
            let covered = capability
                .qualifiers
                .iter()
                .filter(|q| qualifiers.contains(q))
                .cloned()
                .collect();
            Some(Candidate {
                agent: agent.name.clone(),
                department: agent.department.clone(),
                qualifiers,
                covered,
            })
        })
        .collect()
}

/// How far the rules got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// One candidate: no rule was needed.
    SingleCandidate,
    /// This rule left exactly one agent.
    DecidedBy(TieBreak),
    /// Several agents are tied after qualifier match and department affinity.
    Tied,
}

/// The result of applying the first two rules to the candidates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derivation {
    /// How far the rules got.
    pub stage: Stage,
    /// The agents left (one unless [`Stage::Tied`]), sorted.
    pub remaining: Vec<Candidate>,
    /// The agents set aside, with the rule and reason.
    pub rejected: Vec<Rejection>,
}

/// Applies qualifier match, then department affinity (with the requester's department,
/// when known), stopping at the first rule that leaves exactly one agent.
pub fn derive(
    candidates: Vec<Candidate>,
    capability: &Capability,
    requester_department: Option<&str>,
) -> Derivation {
    if candidates.len() == 1 {
        return Derivation {
            stage: Stage::SingleCandidate,
            remaining: candidates,
            rejected: Vec::new(),
        };
    }
    let (remaining, mut rejected) = by_qualifier_match(candidates, capability.qualifiers.len());
    if remaining.len() == 1 {
        return Derivation {
            stage: Stage::DecidedBy(TieBreak::QualifierMatch),
            remaining,
            rejected,
        };
    }
    let (remaining, by_department) = by_department_affinity(remaining, requester_department);
    rejected.extend(by_department);
    let stage = match remaining.len() {
        1 => Stage::DecidedBy(TieBreak::DepartmentAffinity),
        _ => Stage::Tied,
    };
    Derivation {
        stage,
        remaining,
        rejected,
    }
}

fn by_qualifier_match(
    candidates: Vec<Candidate>,
    requested: usize,
) -> (Vec<Candidate>, Vec<Rejection>) {
    let best = candidates
        .iter()
        .map(|c| c.covered.len())
        .max()
        .unwrap_or(0);
    let (winners, losers): (Vec<Candidate>, Vec<Candidate>) = candidates
        .into_iter()
        .partition(|c| c.covered.len() == best);
    let rejected = losers
        .into_iter()
        .map(|c| Rejection {
            reason: format!(
                "qualifier-match: covers {} of {requested} requested qualifiers, the best cover {best}",
                c.covered.len()
            ),
            agent: c.agent,
            rule: TieBreak::QualifierMatch,
        })
        .collect();
    (winners, rejected)
}

fn by_department_affinity(
    candidates: Vec<Candidate>,
    department: Option<&str>,
) -> (Vec<Candidate>, Vec<Rejection>) {
    let Some(department) = department else {
        return (candidates, Vec::new());
    };
    let in_department = |c: &Candidate| c.department.as_deref() == Some(department);
    if !candidates.iter().any(in_department) {
        return (candidates, Vec::new());
    }
    let (winners, losers): (Vec<Candidate>, Vec<Candidate>) =
        candidates.into_iter().partition(in_department);
    let rejected = losers
        .into_iter()
        .map(|c| Rejection {
            reason: format!(
                "department-affinity: {} while the requester is in `{department}`",
                c.department
                    .map_or("no department".to_string(), |d| format!("in `{d}`"))
            ),
            agent: c.agent,
            rule: TieBreak::DepartmentAffinity,
        })
        .collect();
    (winners, rejected)
}

/// The first load-balancing word in `text` (assignments, load, availability,
/// round-robin, …), if any: such reasons are excluded by the protocol.
pub fn load_balancing_term(text: &str) -> Option<String> {
    static PATTERN: OnceLock<Option<Regex>> = OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(
            r"(?i)\b(assignments?|assigned tasks|(?:work)?loads?|loaded|load[- ]balanc\w*|(?:un)?availab(?:le|ility)|round[- ]robin|busy|capacity|idle|queue length)\b",
        )
        .ok()
    });
    pattern
        .as_ref()?
        .find(text)
        .map(|found| found.as_str().to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(agent: &str, department: Option<&str>, covered: &[&str]) -> Candidate {
        Candidate {
            agent: agent.into(),
            department: department.map(str::to_string),
            qualifiers: covered.iter().map(|q| q.to_string()).collect(),
            covered: covered.iter().map(|q| q.to_string()).collect(),
        }
    }

    fn auth(qualifiers: &[&str]) -> Capability {
        Capability::new("auth", qualifiers.iter().map(|q| q.to_string()))
    }

    #[test]
    fn the_first_rule_that_leaves_one_agent_decides() {
        let both = auth(&["oauth2", "pkce"]);
        let single = derive(vec![candidate("a", None, &[])], &both, None);
        assert_eq!(single.stage, Stage::SingleCandidate);
        let by_qualifiers = derive(
            vec![candidate("a", None, &["oauth2"]), candidate("b", None, &[])],
            &both,
            None,
        );
        assert_eq!(
            by_qualifiers.stage,
            Stage::DecidedBy(TieBreak::QualifierMatch)
        );
        assert_eq!(by_qualifiers.rejected[0].agent, "b");
        let tied = vec![
            candidate("a", Some("eng"), &["oauth2"]),
            candidate("b", Some("ops"), &["oauth2"]),
        ];
        let by_department = derive(tied.clone(), &both, Some("ops"));
        assert_eq!(
            by_department.stage,
            Stage::DecidedBy(TieBreak::DepartmentAffinity)
        );
        assert_eq!(by_department.remaining[0].agent, "b");
        assert_eq!(
            derive(tied.clone(), &both, Some("sales")).stage,
            Stage::Tied
        );
        assert_eq!(derive(tied, &both, None).stage, Stage::Tied);
    }

    #[test]
    fn department_affinity_narrows_a_tie_without_ending_it() {
        let tied = vec![
            candidate("a", Some("eng"), &[]),
            candidate("b", Some("eng"), &[]),
            candidate("c", None, &[]),
        ];
        let derivation = derive(tied, &auth(&[]), Some("eng"));
        assert_eq!(derivation.stage, Stage::Tied);
        assert_eq!(derivation.remaining.len(), 2);
        assert!(derivation.rejected[0].reason.contains("no department"));
    }

    #[test]
    fn load_balancing_words_are_found() {
        for text in [
            "fewer current assignments",
            "lowest workload",
            "Round-Robin",
            "she is available",
            "load balancing",
        ] {
            assert!(load_balancing_term(text).is_some(), "{text}");
        }
        for text in [
            "covers oauth2 (2 of 2)",
            "payload signing experience",
            "upload flow owner",
        ] {
            assert_eq!(load_balancing_term(text), None, "{text}");
        }
    }
}
