//! The fast read of a canonical line: hashed as it stands (without its hash member)
//! and its event read from the canonical scan's top-level members, without parsing
//! the line again.
//!
//! The scan ([`super::canonical`]) has confirmed the line canonical and so UTF-8, with
//! JCS's escapes only and nesting bounded, so a member's value is one of a few plain
//! forms. [`fill`] takes a member only in the form the definition's `serde` read takes
//! it, the same way; anything else declines, and the caller falls back on the
//! definition (parse, canonicalise, hash), so the answer is always the definition's.
//! `verify` asks for [`Keep::Lifecycle`]: the members the chain and the lifecycle do not
//! read are checked for the type `serde` would take, not copied.

use super::canonical;
use super::chain;
use super::event::{Event, EventType, HandoffType};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// What can be learnt of a canonical line by itself (on `verify`'s reading thread):
/// where its members lie and the hash of its content.
pub(crate) struct Canonical {
    pub members: canonical::Members,
    pub computed: [u8; 32],
}

/// How much of an event a fast read keeps.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Keep {
    /// Every member but the message, as `serde` reads it.
    Event,
    /// Every member and the message.
    EventAndMessage,
    /// What the chain and the lifecycle read (the ids, agents, type, state, attempt,
    /// depth, timeout rule, parent, `seq`, `prev`, `recorded_at`, `timestamp`); the rest
    /// is checked, not kept.
    Lifecycle,
}

impl Canonical {
    /// `None` when the line is not confirmed canonical (and so UTF-8): the definition
    /// decides.
    pub fn of(text: &[u8]) -> Option<Canonical> {
        let members = canonical::members(text)?;
        let (before, after) = canonical::without_hash(text, members.hash.clone());
        let computed = chain::sha256_parts(&[before, after]);
        Some(Canonical { members, computed })
    }

    /// The event of `text` (the line [`Canonical::of`] read), in a new event.
    pub fn event(&self, text: &[u8], keep: Keep) -> Option<Event> {
        let mut event = blank_event();
        self.fill(&mut event, text, keep)?;
        Some(event)
    }

    /// The event of `text` read into `event`, reusing its strings.
    pub fn fill(&self, event: &mut Event, text: &[u8], keep: Keep) -> Option<()> {
        fill(event, text, &self.members.top, keep)?;
        let message = self.members.message.as_ref();
        if let Some((_, value)) = message.filter(|_| keep == Keep::EventAndMessage) {
            let stored = text.get(value.clone())?;
            // `null` is an absent message to serde, as on the slow path.
            if stored != b"null" {
                let stored = String::from_utf8(stored.to_vec()).ok()?;
                event.message = Some(RawValue::from_string(stored).ok()?);
            }
        }
        Some(())
    }

    /// The hash the line stores.
    pub fn stored<'t>(&self, text: &'t [u8]) -> Option<&'t str> {
        std::str::from_utf8(text.get(self.members.stored.clone())?).ok()
    }
}

/// An event with nothing in it, for [`Canonical::fill`].
pub(crate) fn blank_event() -> Event {
    Event {
        attempt: 0,
        broadcast_group_id: None,
        context_snapshot: None,
        decision_rationale: None,
        depth: 0,
        duration_ms: None,
        escalate_to: None,
        event_type: EventType::Initiated,
        from_agent: String::new(),
        handoff_id: String::new(),
        handoff_type: HandoffType::Sequential,
        hash: String::new(),
        message: None,
        on_timeout: None,
        outcome: None,
        parent_handoff: None,
        prev: String::new(),
        reason: None,
        recorded_at: String::new(),
        required_capabilities: Vec::new(),
        risk_level: None,
        rollback_to: None,
        seq: 0,
        timeout: None,
        timeout_ms: None,
        timestamp: String::new(),
        to_agent: String::new(),
        tokens_consumed: None,
        warnings: Vec::new(),
        workflow_id: None,
    }
}

/// How many members an event must have (`attempt`, `event_type`, `from_agent`,
/// `handoff_id`, `handoff_type`, `prev`, `recorded_at`, `seq`, `timestamp`,
/// `to_agent`); the others default.
const REQUIRED: usize = 10;

/// Reads a canonical line's event, but for its message, from its top-level members
/// (`top`, as the canonical scan found them) into `event`, reusing its strings: what
/// the definition's `serde` read would give (less what `keep` leaves out), without
/// reading the line again. `None` when a member is not what that read takes in its
/// plainest form (it then decides).
fn fill(event: &mut Event, line: &[u8], top: &canonical::Top, keep: Keep) -> Option<()> {
    // The scan confirmed the line UTF-8; one check here, none per member.
    let line = std::str::from_utf8(line).ok()?;
    let all = keep != Keep::Lifecycle;
    let mut required = 0;
    // Every member that may be absent is reset: the event is reused line after line.
    event.broadcast_group_id = None;
    event.context_snapshot = None;
    event.decision_rationale = None;
    event.depth = 0;
    event.duration_ms = None;
    event.escalate_to = None;
    event.hash.clear();
    event.message = None;
    event.on_timeout = None;
    event.outcome = None;
    event.parent_handoff = None;
    event.reason = None;
    event.required_capabilities.clear();
    event.risk_level = None;
    event.rollback_to = None;
    event.timeout = None;
    event.timeout_ms = None;
    event.tokens_consumed = None;
    event.warnings.clear();
    event.workflow_id = None;
    for (key, value) in top.iter() {
        let key = line.get(key)?;
        let value = line.get(value)?;
        // Keys are distinct (the scan holds them in strictly ascending order), so each
        // required one counts once.
        match key {
            "attempt" | "event_type" | "from_agent" | "handoff_id" | "handoff_type" | "prev"
            | "recorded_at" | "seq" | "timestamp" | "to_agent" => {
                required += 1;
                fill_required(event, key, value)?;
            }
            "broadcast_group_id" => optional_text(&mut event.broadcast_group_id, value, all)?,
            "context_snapshot" if all => {
                event.context_snapshot = serde_json::from_str(value).ok()?;
            }
            "context_snapshot" => snapshot_shape(value)?,
            "decision_rationale" => optional_text(&mut event.decision_rationale, value, all)?,
            "depth" => event.depth = integer(value)?,
            "duration_ms" => event.duration_ms = optional_integer(value)?,
            "escalate_to" => optional_text(&mut event.escalate_to, value, all)?,
            "hash" if all => set_text(&mut event.hash, value)?,
            "hash" => is_text(value)?,
            "on_timeout" => event.on_timeout = serde_json::from_str(value).ok()?,
            "outcome" => event.outcome = serde_json::from_str(value).ok()?,
            "parent_handoff" => optional_text(&mut event.parent_handoff, value, true)?,
            "reason" => optional_text(&mut event.reason, value, all)?,
            "required_capabilities" => {
                event.required_capabilities = serde_json::from_str(value).ok()?;
            }
            "risk_level" => event.risk_level = serde_json::from_str(value).ok()?,
            "rollback_to" => optional_text(&mut event.rollback_to, value, all)?,
            "timeout" => optional_text(&mut event.timeout, value, all)?,
            "timeout_ms" => event.timeout_ms = optional_integer(value)?,
            "tokens_consumed" => event.tokens_consumed = optional_integer(value)?,
            "warnings" => event.warnings = serde_json::from_str(value).ok()?,
            "workflow_id" => optional_text(&mut event.workflow_id, value, all)?,
            // The message is cut out; serde passes over keys it does not know.
            _ => {}
        }
    }
    (required == REQUIRED).then_some(())
}

/// One of the [`REQUIRED`] members.
fn fill_required(event: &mut Event, key: &str, value: &str) -> Option<()> {
    match key {
        "attempt" => event.attempt = integer(value)?,
        "event_type" => event.event_type = EventType::from_name(&text(value)?)?,
        "from_agent" => set_text(&mut event.from_agent, value)?,
        "handoff_id" => set_text(&mut event.handoff_id, value)?,
        "handoff_type" => event.handoff_type = HandoffType::from_name(&text(value)?)?,
        "prev" => set_text(&mut event.prev, value)?,
        "recorded_at" => set_text(&mut event.recorded_at, value)?,
        "seq" => event.seq = integer(value)?,
        "timestamp" => set_text(&mut event.timestamp, value)?,
        _ => set_text(&mut event.to_agent, value)?,
    }
    Some(())
}

/// Checks that a `context_snapshot` is what `serde` reads into a [`ContextSnapshot`],
/// in its plainest form (an object of plain members), without building it.
fn snapshot_shape(value: &str) -> Option<()> {
    if value == "null" {
        return Some(());
    }
    let top = canonical::object_members(value.as_bytes())?;
    let mut task_id = false;
    for (key, member) in top.iter() {
        let member = value.get(member)?;
        match value.get(key)? {
            "artifact_count" => drop(optional_integer(member)?),
            "context_variables_hash" | "task_status" => optional_text(&mut None, member, false)?,
            "task_id" => {
                is_text(member)?;
                task_id = true;
            }
            _ => {}
        }
    }
    task_id.then_some(())
}

/// A JSON string's text: as it stands when it has no escape, else decoded.
fn text(value: &str) -> Option<Cow<'_, str>> {
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    match memchr::memchr(b'\\', inner.as_bytes()) {
        None => Some(inner.into()),
        Some(_) => serde_json::from_str::<String>(value).ok().map(Into::into),
    }
}

/// Whether `value` is a string (the scan has checked it is a whole, valid one, which
/// `serde` always reads into a `String`).
fn is_text(value: &str) -> Option<()> {
    value.starts_with('"').then_some(())
}

fn set_text(field: &mut String, value: &str) -> Option<()> {
    let text = text(value)?;
    field.clear();
    field.push_str(&text);
    Some(())
}

/// An optional text member (`null` is `None` to serde), kept when `keep` says so,
/// else only checked.
fn optional_text(field: &mut Option<String>, value: &str, keep: bool) -> Option<()> {
    *field = match value {
        "null" => None,
        _ if !keep => is_text(value).map(|()| None)?,
        _ => Some(text(value)?.into_owned()),
    };
    Some(())
}

/// An integer as the canonical scan let it through (shortest form; a sign fails for
/// an unsigned field, as serde refuses it).
fn integer<N: TryFrom<u64>>(value: &str) -> Option<N> {
    N::try_from(value.parse::<u64>().ok()?).ok()
}

fn optional_integer(value: &str) -> Option<Option<u64>> {
    match value {
        "null" => Some(None),
        _ => Some(Some(integer(value)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trail::event::ContextSnapshot;

    /// Context snapshots in forms the fast read checks without building: it takes
    /// exactly those serde takes.
    #[test]
    fn a_snapshot_passes_the_shape_check_when_serde_reads_it() {
        let snapshots = [
            r#"{"task_id":"T"}"#,
            r#"{"artifact_count":3,"context_variables_hash":null,"task_id":"T\n","task_status":"x"}"#,
            r#"{"artifact_count":-3,"task_id":"T"}"#,
            r#"{"artifact_count":"3","task_id":"T"}"#,
            r#"{"task_id":null}"#,
            r#"{"task_id":7}"#,
            r#"{"task_status":"x"}"#,
            r#"{"other":[1,{"a":2}],"task_id":"T"}"#,
            r#"{"task_id":"T","task_status":5}"#,
            r#"{}"#,
        ];
        for snapshot in snapshots {
            let by_serde = serde_json::from_str::<ContextSnapshot>(snapshot).is_ok();
            assert_eq!(snapshot_shape(snapshot).is_some(), by_serde, "{snapshot}");
        }
    }
}
