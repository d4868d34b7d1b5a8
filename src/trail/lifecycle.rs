//! The lifecycle of a handoff (002 §2, §4.2, §6, §7.2, §8) and the [`Ledger`] that
//! follows every handoff of a trail in one pass.
//!
//! Per `handoff_id`: `initiated` first; then `accepted` or `rejected` by the receiver,
//! or `timeout` when no acknowledgement came; after `accepted`: `completed`, `failed`,
//! `timeout` or `escalated`. `rejected`, `completed`, `failed` and `escalated` end the
//! handoff (an escalation carries on as a child handoff one level up). After a
//! `timeout` the handoff's `on_timeout` decides: `retry` re-initiates it (`attempt` + 1,
//! at most 3 attempts, then `failed`), `escalate` records `escalated` (at most depth 3,
//! then `failed`), `fail` records `failed`; with no `on_timeout`, any of the three.
//! A rejected handoff may be re-routed to another agent as a new handoff whose
//! `parent_handoff` is the rejected one, at most 3 times.
//!
//! The same [`Ledger::check`] guards `append` and re-checks every event in `verify`,
//! so a hand-edited trail is held to the rules the tool follows.

mod ended;

use super::event::{ContextSnapshot, Event, EventType, HandoffType, OnTimeout};
use super::time;
use crate::diagnostic::TrailCode;
use crate::policy::RiskClass;
// hashbrown's default hasher (foldhash, seeded per process): the ledger looks up every
// event's handoff, and SipHash was a measurable share of `verify`.
use ended::{Closed, Ended};
use hashbrown::{HashMap, HashSet};
use std::fmt;

/// At most this many attempts of one handoff (002 §4.2 `max_attempts`).
pub const MAX_ATTEMPTS: u32 = 3;
/// At most this many escalation levels (002 §2.4).
pub const MAX_DEPTH: u32 = 3;
/// At most this many re-routes of a rejected handoff (002 §6.1).
pub const MAX_REROUTES: u32 = 3;

/// What the trail knows of one handoff after the events read so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Handoff {
    /// The handoff's id.
    pub id: String,
    /// Its sender.
    pub from_agent: String,
    /// Its receiver.
    pub to_agent: String,
    /// Its type.
    pub handoff_type: HandoffType,
    /// The last event: the handoff's state.
    pub state: EventType,
    /// The current attempt, 1-based.
    pub attempt: u32,
    /// Escalation depth.
    pub depth: u32,
    /// The task, from the first event's snapshot.
    pub snapshot: Option<ContextSnapshot>,
    /// The workflow.
    pub workflow_id: Option<String>,
    /// The handoff this one escalates or re-routes.
    pub parent_handoff: Option<String>,
    /// When it was first initiated (the event's `timestamp`).
    pub initiated_at: String,
    /// Milliseconds since the epoch of the latest `initiated` (the current attempt).
    pub attempt_started_ms: Option<i64>,
    /// Milliseconds since the epoch of the first `initiated`.
    pub initiated_ms: Option<i64>,
    /// The return timeout.
    pub timeout_ms: Option<u64>,
    /// The timeout as written.
    pub timeout: Option<String>,
    /// What a timeout does.
    pub on_timeout: Option<OnTimeout>,
    /// Who a timeout escalates to.
    pub escalate_to: Option<String>,
    /// Who to return to on failure.
    pub rollback_to: Option<String>,
    /// Risk of the handoff.
    pub risk_level: Option<RiskClass>,
    /// Broadcast group.
    pub broadcast_group_id: Option<String>,
    /// The handoff's reason.
    pub reason: Option<String>,
    /// Re-routes opened from this handoff after it was rejected.
    pub reroutes: u32,
    /// `seq` of the handoff's last event.
    pub last_seq: u64,
    /// `timestamp` of the handoff's last event.
    pub last_timestamp: String,
}

impl Handoff {
    /// Whether the handoff has ended (`rejected`, `completed`, `failed`, `escalated`).
    pub fn is_closed(&self) -> bool {
        matches!(
            self.state,
            EventType::Rejected | EventType::Completed | EventType::Failed | EventType::Escalated
        )
    }

    /// When the current attempt times out, in milliseconds since the epoch.
    pub fn deadline_ms(&self) -> Option<i64> {
        let started = self.attempt_started_ms?;
        let timeout = i64::try_from(self.timeout_ms?).ok()?;
        Some(started.saturating_add(timeout))
    }

    /// The task the handoff serves.
    pub fn task_id(&self) -> Option<&str> {
        self.snapshot.as_ref().map(|s| s.task_id.as_str())
    }

    /// The events that may legally follow now.
    pub fn legal_next(&self) -> Vec<EventType> {
        use EventType::*;
        match self.state {
            Initiated => vec![Accepted, Rejected, Timeout],
            Accepted => vec![Completed, Failed, Timeout, Escalated],
            Timeout => match self.on_timeout {
                Some(OnTimeout::Retry) if self.attempt < MAX_ATTEMPTS => vec![Initiated],
                Some(OnTimeout::Escalate) if self.depth < MAX_DEPTH => vec![Escalated],
                Some(_) => vec![Failed],
                None if self.attempt < MAX_ATTEMPTS => vec![Initiated, Escalated, Failed],
                None => vec![Escalated, Failed],
            },
            Rejected | Completed | Failed | Escalated => Vec::new(),
        }
    }
}

/// Which rule an event breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViolationKind {
    /// The event is not a legal next step of its handoff.
    IllegalTransition,
    /// An event for a handoff that was never initiated.
    UnknownHandoff,
    /// The event's agents, type or attempt differ from its handoff's.
    Mismatch,
    /// A fourth attempt.
    RetryLimit,
    /// An escalation deeper than 3.
    EscalationDepth,
    /// A fourth re-route of a rejected handoff, or a re-route to the same agent.
    RerouteLimit,
}

impl ViolationKind {
    /// Its code in the one diagnostic vocabulary (`handoff explain CODE`).
    pub fn code(self) -> TrailCode {
        match self {
            ViolationKind::IllegalTransition => TrailCode::IllegalTransition,
            ViolationKind::UnknownHandoff => TrailCode::UnknownHandoff,
            ViolationKind::Mismatch => TrailCode::HandoffMismatch,
            ViolationKind::RetryLimit => TrailCode::RetryLimit,
            ViolationKind::EscalationDepth => TrailCode::EscalationDepth,
            ViolationKind::RerouteLimit => TrailCode::RerouteLimit,
        }
    }
}

/// Why an event may not be appended (or should not have been).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Which rule.
    pub kind: ViolationKind,
    /// What is wrong, in words.
    pub message: String,
    /// The events that would have been legal.
    pub legal: Vec<EventType>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if !self.legal.is_empty() {
            let names: Vec<&str> = self.legal.iter().map(|t| t.name()).collect();
            write!(f, " (legal next: {})", names.join(", "))?;
        } else if self.kind == ViolationKind::IllegalTransition {
            f.write_str(" (the handoff has ended: nothing may follow)")?;
        }
        Ok(())
    }
}

fn violation(kind: ViolationKind, message: String, legal: Vec<EventType>) -> Violation {
    Violation {
        kind,
        message,
        legal,
    }
}

/// Every handoff of a trail, as the events read so far left it.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    handoffs: HashMap<String, Handoff>,
    /// In a compact ledger, handoffs that have ended, with only what later checks need.
    closed: Ended,
    compact: bool,
    /// Handoffs a compact ledger has seen initiated (ids initiated again after they
    /// ended not counted).
    seen: usize,
    /// Open handoffs whose id the bounded ledger's filter says may have ended before
    /// (an id used again, or the filter's rare false alarm).
    shadowed: HashSet<String>,
    /// Handoffs open to an agent that the ledger does not hold (a checkpoint counted
    /// them): part of [`Ledger::open_for`].
    elsewhere: HashMap<String, usize>,
}

/// The 64-bit FNV-1a key of a handoff id.
pub fn id_key(id: &[u8]) -> u64 {
    id.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What [`Ledger::judge`] makes of an event.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// A legal next step.
    Legal,
    /// Not one.
    Illegal(Violation),
    /// It names a handoff that may have ended beyond the bounded ledger's window:
    /// only a re-read of that handoff's lines can tell.
    Unsure,
}

/// What a new handoff's checks need of its parent, from either kind of entry.
struct Parent<'a> {
    id: &'a str,
    state: EventType,
    depth: u32,
    to_agent: &'a str,
    reroutes: u32,
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// An empty ledger that keeps only what the lifecycle checks need of a handoff
    /// once it has ended (`verify`: memory grows with open handoffs, not with events).
    /// [`Ledger::get`] and [`Ledger::handoffs`] do not see ended handoffs.
    ///
    /// Memory is bounded: of the handoffs that have ended it keeps the latest
    /// [`RECENT`](ended::RECENT) and a filter of every id; [`Ledger::judge`] says which
    /// events need a re-read of their handoff's lines ([`Ledger::compact_exact`] over
    /// those lines).
    pub fn compact() -> Ledger {
        Ledger {
            compact: true,
            closed: Ended::bounded(),
            ..Ledger::default()
        }
    }

    /// A compact ledger that keeps every ended handoff (for a re-read of a few).
    pub(crate) fn compact_exact() -> Ledger {
        Ledger {
            compact: true,
            ..Ledger::default()
        }
    }

    /// [`Ledger::check`], or [`Verdict::Unsure`] when the event's handoff (or a new
    /// handoff's parent) may have ended beyond a bounded ledger's window.
    pub(crate) fn judge(&self, event: &Event) -> Verdict {
        let id = event.handoff_id.as_str();
        let unsure = self.shadowed.contains(id)
            || (!self.handoffs.contains_key(id) && self.closed.maybe(id))
            || (event.event_type == EventType::Initiated
                && !self.handoffs.contains_key(id)
                && event
                    .parent_handoff
                    .as_deref()
                    .is_some_and(|p| !self.handoffs.contains_key(p) && self.closed.maybe(p)));
        if unsure {
            return Verdict::Unsure;
        }
        match self.check(event) {
            Ok(()) => Verdict::Legal,
            Err(violation) => Verdict::Illegal(violation),
        }
    }

    /// Whether `id` has ended and its handoff is not open again (exact in an exact
    /// compact ledger).
    pub(crate) fn has_ended(&self, id: &str) -> bool {
        !self.handoffs.contains_key(id) && self.closed.get(id).is_some()
    }

    /// One fewer handoff seen (a re-read found an id initiated again).
    pub(crate) fn unsee(&mut self) {
        self.seen = self.seen.saturating_sub(1);
    }

    fn parent(&self, id: &str) -> Option<Parent<'_>> {
        if let Some((id, h)) = self.handoffs.get_key_value(id) {
            return Some(Parent {
                id,
                state: h.state,
                depth: h.depth,
                to_agent: &h.to_agent,
                reroutes: h.reroutes,
            });
        }
        self.closed.map.get_key_value(id).map(|(id, c)| Parent {
            id,
            state: c.state,
            depth: c.depth,
            to_agent: &c.to_agent,
            reroutes: c.reroutes,
        })
    }

    /// The handoff called `id`.
    pub fn get(&self, id: &str) -> Option<&Handoff> {
        self.handoffs.get(id)
    }

    /// Every handoff, in no particular order.
    pub fn handoffs(&self) -> impl Iterator<Item = &Handoff> {
        self.handoffs.values()
    }

    /// How many handoffs the ledger holds.
    pub fn len(&self) -> usize {
        match self.compact {
            true => self.seen,
            false => self.handoffs.len(),
        }
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Handoffs to `agent` that have not ended: its current load (002 §5.2).
    pub fn open_for(&self, agent: &str) -> usize {
        let held = self
            .handoffs
            .values()
            .filter(|h| h.to_agent == agent && !h.is_closed())
            .count();
        held + self.elsewhere.get(agent).copied().unwrap_or(0)
    }

    /// Counts `open` handoffs to `agent` that the ledger does not hold (a checkpoint
    /// counted them); [`Ledger::insert`] takes one of them in.
    pub(crate) fn open_elsewhere(&mut self, agent: &str, open: usize) {
        self.elsewhere.insert(agent.to_string(), open);
    }

    /// Takes in a handoff as a checkpoint recorded it (when it is open there, it is no
    /// longer counted elsewhere).
    pub(crate) fn insert(&mut self, handoff: Handoff) {
        if !handoff.is_closed() {
            if let Some(open) = self.elsewhere.get_mut(&handoff.to_agent) {
                *open = open.saturating_sub(1);
            }
        }
        self.handoffs.insert(handoff.id.clone(), handoff);
    }

    /// Whether the ledger holds a handoff `id`.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.handoffs.contains_key(id) || self.closed.get(id).is_some()
    }

    /// Re-routes of `id` so far.
    pub fn reroutes_of(&self, id: &str) -> u32 {
        self.handoffs.get(id).map_or(0, |h| h.reroutes)
    }

    /// Checks that `event` is a legal next step.
    pub fn check(&self, event: &Event) -> Result<(), Violation> {
        if let Some(closed) = self.closed.get(&event.handoff_id) {
            return Err(violation(
                ViolationKind::IllegalTransition,
                format!(
                    "{} may not follow {} for handoff `{}`",
                    event.event_type, closed.state, event.handoff_id
                ),
                Vec::new(),
            ));
        }
        match (self.handoffs.get(&event.handoff_id), event.event_type) {
            (None, EventType::Initiated) => self.check_new(event),
            (None, _) => Err(violation(
                ViolationKind::UnknownHandoff,
                format!(
                    "{} for handoff `{}`, which was never initiated",
                    event.event_type, event.handoff_id
                ),
                vec![EventType::Initiated],
            )),
            (Some(handoff), _) => check_next(handoff, event),
        }
    }

    fn check_new(&self, event: &Event) -> Result<(), Violation> {
        if event.attempt != 1 {
            return Err(violation(
                ViolationKind::Mismatch,
                format!(
                    "handoff `{}` starts at attempt {}; a new handoff is attempt 1",
                    event.handoff_id, event.attempt
                ),
                Vec::new(),
            ));
        }
        let parent = event
            .parent_handoff
            .as_deref()
            .and_then(|id| self.parent(id));
        let expected_depth = match (event.handoff_type, &parent) {
            (HandoffType::Escalation, Some(parent)) => Some(parent.depth + 1),
            (HandoffType::Escalation, None) => None,
            (_, _) => Some(0),
        };
        let depth = expected_depth.unwrap_or(event.depth.max(1));
        if depth > MAX_DEPTH || event.depth > MAX_DEPTH {
            return Err(violation(
                ViolationKind::EscalationDepth,
                format!(
                    "escalation `{}` would be level {}; escalations stop at depth {MAX_DEPTH} (worker -> reviewer -> architect -> human)",
                    event.handoff_id,
                    depth.max(event.depth)
                ),
                Vec::new(),
            ));
        }
        if expected_depth.is_some_and(|d| d != event.depth) {
            return Err(violation(
                ViolationKind::Mismatch,
                format!(
                    "handoff `{}` records depth {} but its parent chain gives {depth}",
                    event.handoff_id, event.depth
                ),
                Vec::new(),
            ));
        }
        if let Some(parent) = parent.filter(|p| p.state == EventType::Rejected) {
            if event.handoff_type != HandoffType::Escalation {
                return check_reroute(&parent, event);
            }
        }
        Ok(())
    }

    /// Records `event` (checked or not: `verify` goes on after a violation).
    pub fn apply(&mut self, event: &Event) {
        // A compact ledger keeps no times: nothing it is asked needs them.
        let compact = self.compact;
        let at_ms = || {
            let parsed = (!compact).then(|| time::parse_utc(&event.timestamp).ok())??;
            Some(time::millis(parsed))
        };
        if event.event_type == EventType::Initiated {
            if let Some(handoff) = self.handoffs.get_mut(&event.handoff_id) {
                handoff.attempt = event.attempt;
                handoff.attempt_started_ms = at_ms();
                handoff.state = EventType::Initiated;
                handoff.last_seq = event.seq;
                if !compact {
                    handoff.last_timestamp.clone_from(&event.timestamp);
                }
                return;
            }
            if let Some(parent) = event.parent_handoff.as_deref() {
                if event.handoff_type != HandoffType::Escalation {
                    if let Some(p) = self.handoffs.get_mut(parent) {
                        p.reroutes += u32::from(p.state == EventType::Rejected);
                    } else if let Some(p) = self.closed.map.get_mut(parent) {
                        p.reroutes += u32::from(p.state == EventType::Rejected);
                    }
                }
            }
            if compact {
                let id = &event.handoff_id;
                let again = self.closed.get(id).is_some();
                self.seen += usize::from(!again);
                if again || self.closed.maybe(id) {
                    self.shadowed.insert(id.clone());
                }
            }
            let started = at_ms();
            let handoff = new_handoff(event, started, compact);
            self.handoffs.insert(event.handoff_id.clone(), handoff);
            return;
        }
        if let Some(handoff) = self.handoffs.get_mut(&event.handoff_id) {
            handoff.state = event.event_type;
            handoff.last_seq = event.seq;
            if !compact {
                handoff.last_timestamp.clone_from(&event.timestamp);
            }
            if compact && handoff.is_closed() {
                if let Some((id, handoff)) = self.handoffs.remove_entry(&event.handoff_id) {
                    let closed = Closed {
                        state: handoff.state,
                        depth: handoff.depth,
                        to_agent: handoff.to_agent,
                        reroutes: handoff.reroutes,
                        generation: 0,
                    };
                    if !self.shadowed.is_empty() {
                        self.shadowed.remove(&id);
                    }
                    self.closed.insert(id, closed);
                }
            }
        }
    }

    /// Forgets a handoff (after its segments were pruned).
    pub fn forget(&mut self, id: &str) {
        self.handoffs.remove(id);
    }
}

/// A new handoff's entry; a compact ledger's keeps no times (its checks never read
/// them, and `verify` reads its events without the texts they do not read either).
fn new_handoff(event: &Event, started: Option<i64>, compact: bool) -> Handoff {
    let time = || match compact {
        true => String::new(),
        false => event.timestamp.clone(),
    };
    Handoff {
        id: event.handoff_id.clone(),
        from_agent: event.from_agent.clone(),
        to_agent: event.to_agent.clone(),
        handoff_type: event.handoff_type,
        state: EventType::Initiated,
        attempt: event.attempt,
        depth: event.depth,
        snapshot: event.context_snapshot.clone(),
        workflow_id: event.workflow_id.clone(),
        parent_handoff: event.parent_handoff.clone(),
        initiated_at: time(),
        attempt_started_ms: started,
        initiated_ms: started,
        timeout_ms: event.timeout_ms,
        timeout: event.timeout.clone(),
        on_timeout: event.on_timeout,
        escalate_to: event.escalate_to.clone(),
        rollback_to: event.rollback_to.clone(),
        risk_level: event.risk_level,
        broadcast_group_id: event.broadcast_group_id.clone(),
        reason: event.reason.clone(),
        reroutes: 0,
        last_seq: event.seq,
        last_timestamp: time(),
    }
}

fn check_reroute(parent: &Parent<'_>, event: &Event) -> Result<(), Violation> {
    if parent.reroutes >= MAX_REROUTES {
        return Err(violation(
            ViolationKind::RerouteLimit,
            format!(
                "rejected handoff `{}` was already re-routed {MAX_REROUTES} times; escalate to a human instead",
                parent.id
            ),
            Vec::new(),
        ));
    }
    if parent.to_agent == event.to_agent {
        return Err(violation(
            ViolationKind::RerouteLimit,
            format!(
                "`{}` rejected handoff `{}`; a re-route goes to another agent",
                parent.to_agent, parent.id
            ),
            Vec::new(),
        ));
    }
    Ok(())
}

fn check_next(handoff: &Handoff, event: &Event) -> Result<(), Violation> {
    if event.from_agent != handoff.from_agent
        || event.to_agent != handoff.to_agent
        || event.handoff_type != handoff.handoff_type
    {
        return Err(violation(
            ViolationKind::Mismatch,
            format!(
                "{} for handoff `{}` names {} -> {} ({}), but the handoff is {} -> {} ({})",
                event.event_type,
                handoff.id,
                event.from_agent,
                event.to_agent,
                event.handoff_type.name(),
                handoff.from_agent,
                handoff.to_agent,
                handoff.handoff_type.name()
            ),
            Vec::new(),
        ));
    }
    let legal = handoff.legal_next();
    let retry = event.event_type == EventType::Initiated;
    if retry && handoff.state == EventType::Timeout && handoff.attempt >= MAX_ATTEMPTS {
        return Err(violation(
            ViolationKind::RetryLimit,
            format!(
                "handoff `{}` has used its {MAX_ATTEMPTS} attempts; record it failed",
                handoff.id
            ),
            legal,
        ));
    }
    if !legal.contains(&event.event_type) {
        let state = handoff.state;
        let kind = match (event.event_type, state) {
            (EventType::Escalated, EventType::Timeout) if handoff.depth >= MAX_DEPTH => {
                ViolationKind::EscalationDepth
            }
            _ => ViolationKind::IllegalTransition,
        };
        return Err(violation(
            kind,
            format!(
                "{} may not follow {state} for handoff `{}`",
                event.event_type, handoff.id
            ),
            legal,
        ));
    }
    let expected_attempt = if retry {
        handoff.attempt + 1
    } else {
        handoff.attempt
    };
    if event.attempt != expected_attempt {
        return Err(violation(
            ViolationKind::Mismatch,
            format!(
                "{} for handoff `{}` records attempt {}, expected {expected_attempt}",
                event.event_type, handoff.id, event.attempt
            ),
            Vec::new(),
        ));
    }
    Ok(())
}
