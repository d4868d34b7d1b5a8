//! `query`: the events that match a filter, streamed (002 §7.2: queryable by
//! `handoff_id`, `task_id`, `from_agent` and `to_agent`).
//!
//! A line is tested for the filter's literal values before it is parsed, so a query for
//! one handoff or task over a million events parses only the lines that may match.

use super::error::TrailError;
use super::event::{Event, EventType};
use super::store::{Line, Trail};
use super::time;
use memchr::memmem;

/// Which events to keep; every field given must match.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// `handoff_id` equals.
    pub handoff: Option<String>,
    /// `context_snapshot.task_id` equals.
    pub task: Option<String>,
    /// `from_agent` equals.
    pub from: Option<String>,
    /// `to_agent` equals.
    pub to: Option<String>,
    /// `from_agent` or `to_agent` equals.
    pub agent: Option<String>,
    /// `event_type` is one of these (any when empty).
    pub events: Vec<EventType>,
    /// `workflow_id` equals.
    pub workflow: Option<String>,
    /// `timestamp` at or after (UTC, the trail's spelling).
    pub since: Option<String>,
    /// `timestamp` before.
    pub until: Option<String>,
}

impl Filter {
    /// Whether `event` matches.
    pub fn matches(&self, event: &Event) -> bool {
        let equals = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        equals(&self.handoff, &event.handoff_id)
            && self
                .task
                .as_deref()
                .is_none_or(|t| event.task_id() == Some(t))
            && equals(&self.from, &event.from_agent)
            && equals(&self.to, &event.to_agent)
            && self
                .agent
                .as_deref()
                .is_none_or(|a| event.from_agent == a || event.to_agent == a)
            && (self.events.is_empty() || self.events.contains(&event.event_type))
            && self
                .workflow
                .as_deref()
                .is_none_or(|w| event.workflow_id.as_deref() == Some(w))
            && self
                .since
                .as_deref()
                .is_none_or(|s| event.timestamp.as_str() >= s)
            && self
                .until
                .as_deref()
                .is_none_or(|u| event.timestamp.as_str() < u)
    }

    /// Whether a `timestamp` is inside `--since` / `--until` (compared as text, as
    /// [`Filter::matches`] compares it).
    fn in_window(&self, timestamp: &[u8]) -> bool {
        self.since
            .as_deref()
            .is_none_or(|s| timestamp >= s.as_bytes())
            && self
                .until
                .as_deref()
                .is_none_or(|u| timestamp < u.as_bytes())
    }

    /// Reads `--event` names into event types.
    pub fn event_types(names: &[String]) -> Result<Vec<EventType>, TrailError> {
        names
            .iter()
            .map(|name| {
                EventType::from_name(name).ok_or_else(|| {
                    TrailError::plain(format!(
                        "--event {name}: not an event type; one of initiated, accepted, rejected, completed, failed, timeout, escalated"
                    ))
                })
            })
            .collect()
    }

    /// Reads `--since` / `--until` text (any UTC ISO 8601) into the trail's spelling.
    pub fn time_bound(text: &str) -> Result<String, TrailError> {
        time::parse_utc(text)
            .map(time::format)
            .map_err(TrailError::plain)
    }

    /// The literal values a matching line must contain, JSON-quoted.
    fn needles(&self) -> Vec<Vec<u8>> {
        [
            &self.handoff,
            &self.task,
            &self.from,
            &self.to,
            &self.agent,
            &self.workflow,
        ]
        .into_iter()
        .flatten()
        .map(|value| serde_json::to_vec(value).unwrap_or_default())
        .collect()
    }
}

/// Streams the events matching `filter` to `visit`, oldest first; returns how many
/// matched.
pub fn query(
    trail: &Trail,
    filter: &Filter,
    mut visit: impl FnMut(&Event, &Line<'_>) -> Result<(), TrailError>,
) -> Result<u64, TrailError> {
    trail.require()?;
    let needles = filter.needles();
    let finders: Vec<memmem::Finder<'_>> = needles.iter().map(memmem::Finder::new).collect();
    // A line of one of the event types holds its quoted name.
    let names: Vec<String> = (filter.events.iter())
        .map(|event_type| format!("\"{}\"", event_type.name()))
        .collect();
    let types: Vec<memmem::Finder<'_>> = names.iter().map(memmem::Finder::new).collect();
    let timestamp_key = memmem::FinderRev::new(TIMESTAMP_KEY);
    let mut matched = 0;
    trail.for_each_line(|line| {
        if !finders
            .iter()
            .all(|finder| finder.find(line.text).is_some())
            || !(types.is_empty() || types.iter().any(|name| name.find(line.text).is_some()))
        {
            return Ok(());
        }
        if line.terminated
            && top_level_timestamp(&timestamp_key, line.text)
                .is_some_and(|stamp| !filter.in_window(stamp))
        {
            return Ok(());
        }
        let event = super::store::parse_line(line)?;
        if filter.matches(&event) {
            matched += 1;
            visit(&event, line)?;
        }
        Ok(())
    })??;
    Ok(matched)
}

/// The key of an event's own time, as a sealed line spells it.
const TIMESTAMP_KEY: &[u8] = b"\"timestamp\":\"";

/// The event's own `timestamp`, read from the line without parsing it, when that is
/// certain: the last `"timestamp":"` of the line (a message stored in the event may
/// hold the key too, but sorts before it), with no escape in its value and nothing
/// after it but flat members and the one closing brace, so the key is the event's, not
/// a nested object's. `None` (parse the line) otherwise, e.g. on a hand-edited line.
fn top_level_timestamp<'a>(key: &memmem::FinderRev<'_>, text: &'a [u8]) -> Option<&'a [u8]> {
    let start = key.rfind(text)? + TIMESTAMP_KEY.len();
    let length = memchr::memchr2(b'"', b'\\', &text[start..])?;
    let (value, rest) = (&text[start..start + length], &text[start + length..]);
    if rest[0] != b'"' {
        return None;
    }
    let members = rest[1..].strip_suffix(b"}")?;
    match memchr::memchr2(b'{', b'}', members) {
        Some(_) => None,
        None => Some(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timestamp_is_read_from_the_line_only_when_it_is_certainly_the_events() {
        let key = memmem::FinderRev::new(TIMESTAMP_KEY);
        let read = |text: &str| top_level_timestamp(&key, text.as_bytes()).map(<[u8]>::to_vec);
        let sealed = r#"{"attempt":1,"message":{"timestamp":"2030-01-01T00:00:00Z"},"seq":3,"timestamp":"2026-01-11T10:00:00Z","to_agent":"b","warnings":["x}"]}"#;
        // A brace inside a later string: not certain, so the line is parsed.
        assert_eq!(read(sealed), None);
        let sealed = r#"{"attempt":1,"message":{"timestamp":"2030-01-01T00:00:00Z"},"seq":3,"timestamp":"2026-01-11T10:00:00Z","to_agent":"b"}"#;
        assert_eq!(read(sealed), Some(b"2026-01-11T10:00:00Z".to_vec()));
        // Keys out of order (a hand edit): the last key is the message's.
        let edited =
            r#"{"timestamp":"2026-01-11T10:00:00Z","z":{"timestamp":"2030-01-01T00:00:00Z"}}"#;
        assert_eq!(read(edited), None);
        let escaped = r#"{"timestamp":"2026-01-11T10:00:00\u005a","to_agent":"b"}"#;
        assert_eq!(read(escaped), None);
        assert_eq!(read(r#"{"timestamp":12}"#), None);
        assert_eq!(read(r#"{"timestamp":"2026"#), None);
    }
}
