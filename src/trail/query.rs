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
    let mut matched = 0;
    trail.for_each_line(|line| {
        if !finders
            .iter()
            .all(|finder| finder.find(line.text).is_some())
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
