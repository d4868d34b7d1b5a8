//! Per-agent status tracking across turns: the reference's `state_tracker.py`.
//!
//! Each agent's last status and its count of consecutive `IN_PROGRESS` turns live in a
//! JSON file, one record per agent id, in the reference's own layout
//! (`{"a1b2c3": {"state": "IN_PROGRESS", "in_progress_count": 1, "last_updated": …}}`).
//! The rules:
//! - an agent's first status is always accepted;
//! - `IN_PROGRESS` may move to any status; every other status only to `IN_PROGRESS`;
//! - consecutive `IN_PROGRESS` turns are capped at [`MAX_IN_PROGRESS_RETRIES`]: the
//!   third in a row is rejected as a stall, and at the cap the result warns;
//! - a rejected status leaves the record unchanged.
//!
//! Writing replaces the file atomically ([`crate::io::replace_atomically`]: a symbolic link
//! is followed and the file's permissions are kept) and keeps every other agent's record
//! and every unknown key exactly as written: values are kept as their JSON text, so a
//! big integer is not rounded and keys keep their order. A run holds [`StateFile::lock`]
//! from reading to writing, so concurrent runs queue and lose no update. A file that
//! cannot be read as this layout is an error naming the path, never silently reset the
//! way the reference does.

use crate::io::{
    read_capped, replace_atomically, utf8_error_position, InputError, MAX_INPUT_BYTES,
};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Number, Value};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::PlanStatus;

/// Consecutive `IN_PROGRESS` turns allowed before the next one is a stall.
pub const MAX_IN_PROGRESS_RETRIES: u64 = 2;

/// What the state machine made of one reported status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transition {
    /// `accepted`, `illegal` or `stalled`.
    pub outcome: &'static str,
    /// The agent's recorded status before this turn ("" for its first turn).
    pub previous: String,
    /// The status reported this turn.
    pub current: String,
    /// Consecutive `IN_PROGRESS` turns, counting this one when accepted.
    pub in_progress_count: u64,
    /// The statuses the previous one may move to (empty for a first turn).
    pub allowed: Vec<String>,
    /// A note for the orchestrator, e.g. that the retry cap is reached.
    pub message: String,
}

impl Transition {
    /// Whether the status was recorded.
    pub fn is_accepted(&self) -> bool {
        self.outcome == "accepted"
    }
}

/// The statuses `previous` may move to; none for an unknown recorded status.
pub fn allowed_after(previous: &str) -> Vec<PlanStatus> {
    match PlanStatus::parse(previous) {
        Some(PlanStatus::InProgress) => PlanStatus::ALL.to_vec(),
        Some(_) => vec![PlanStatus::InProgress],
        None => Vec::new(),
    }
}

/// Applies one status to an agent's record (`None` for an agent never seen) and
/// returns the verdict with the record to store when accepted.
pub fn transition(
    record: Option<&AgentRecord>,
    new: PlanStatus,
) -> (Transition, Option<AgentRecord>) {
    let Some(record) = record else {
        let count = u64::from(new == PlanStatus::InProgress);
        let verdict = accepted(String::new(), new, count, Vec::new());
        return (
            verdict,
            Some(AgentRecord {
                state: new.name().to_string(),
                in_progress_count: count,
            }),
        );
    };
    let allowed = allowed_after(&record.state);
    let allowed_names: Vec<String> = allowed
        .iter()
        .map(|status| status.name().to_string())
        .collect();
    if !allowed.contains(&new) {
        let verdict = rejected(
            "illegal",
            record,
            new,
            record.in_progress_count,
            allowed_names,
        );
        return (verdict, None);
    }
    let repeated = new == PlanStatus::InProgress && record.state == PlanStatus::InProgress.name();
    let count = match new {
        PlanStatus::InProgress if repeated => record.in_progress_count.saturating_add(1),
        PlanStatus::InProgress => 1,
        _ => 0,
    };
    if count > MAX_IN_PROGRESS_RETRIES {
        return (rejected("stalled", record, new, count, allowed_names), None);
    }
    let verdict = accepted(record.state.clone(), new, count, allowed_names);
    (
        verdict,
        Some(AgentRecord {
            state: new.name().to_string(),
            in_progress_count: count,
        }),
    )
}

fn accepted(previous: String, new: PlanStatus, count: u64, allowed: Vec<String>) -> Transition {
    let message = if new == PlanStatus::InProgress && count == MAX_IN_PROGRESS_RETRIES {
        format!(
            "IN_PROGRESS retry count at {count}/{MAX_IN_PROGRESS_RETRIES}. Next IN_PROGRESS will be rejected."
        )
    } else {
        String::new()
    };
    Transition {
        outcome: "accepted",
        previous,
        current: new.name().to_string(),
        in_progress_count: count,
        allowed,
        message,
    }
}

fn rejected(
    outcome: &'static str,
    record: &AgentRecord,
    new: PlanStatus,
    count: u64,
    allowed: Vec<String>,
) -> Transition {
    let message = if outcome == "stalled" {
        format!(
            "IN_PROGRESS retry limit exceeded: {count} consecutive IN_PROGRESS states \
             (max {MAX_IN_PROGRESS_RETRIES}). Agent should transition to APPROVAL_REQUEST, \
             COMPLETE, BLOCKED, or NEEDS_INPUT."
        )
    } else {
        let listed = if allowed.is_empty() {
            "none".to_string()
        } else {
            allowed.join(", ")
        };
        format!(
            "Illegal state transition: {} -> {}. Allowed from {}: {listed}.",
            record.state,
            new.name(),
            record.state
        )
    };
    Transition {
        outcome,
        previous: record.state.clone(),
        current: new.name().to_string(),
        in_progress_count: count,
        allowed,
        message,
    }
}

/// One agent's tracked status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRecord {
    /// The last accepted status.
    pub state: String,
    /// Consecutive `IN_PROGRESS` turns up to and including that status.
    pub in_progress_count: u64,
}

/// Why the state file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The file exists but cannot be read.
    #[error("cannot read the state file {path}: {source}")]
    Read {
        /// The state file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file is not the JSON layout this command writes.
    #[error(
        "the state file {path} is corrupt: {reason}; fix it, or delete it to start tracking afresh"
    )]
    Corrupt {
        /// The state file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The state file could not be locked.
    #[error("cannot lock the state file with {path}: {source}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The new state could not be written.
    #[error("cannot write the state file {path}: {source}")]
    Write {
        /// The state file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

/// The state file: every agent's record, plus whatever else the file holds, each as
/// the JSON text it was written with.
#[derive(Debug, Clone)]
pub struct StateFile {
    path: PathBuf,
    entries: Vec<(String, Box<RawValue>)>,
}

/// An exclusive lock on a state file ([`StateFile::lock`]), released when dropped.
#[derive(Debug)]
pub struct StateLock {
    _file: File,
}

impl StateFile {
    /// Locks the state file at `path` for one read-change-write: an OS file lock (`fs4`)
    /// on `NAME.lock` next to the file (a symbolic link followed), waited for when
    /// another run holds it. The lock file is created once and left in place: removing
    /// it would let two runs lock two different files.
    pub fn lock(path: &Path) -> Result<StateLock, StateError> {
        let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let mut name = target.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        let lock_path = target.with_file_name(name);
        let failed = |source: io::Error| StateError::Lock {
            path: lock_path.clone(),
            source,
        };
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock_path)
            .map_err(failed)?;
        fs4::FileExt::lock(&file).map_err(failed)?;
        Ok(StateLock { _file: file })
    }

    /// Reads `path`; a missing or blank file is an empty state.
    pub fn load(path: &Path) -> Result<StateFile, StateError> {
        let corrupt = |reason: String| StateError::Corrupt {
            path: path.to_path_buf(),
            reason,
        };
        let text = match read_capped(path, MAX_INPUT_BYTES) {
            Ok(bytes) => bytes,
            Err(InputError::Unreadable { source, .. })
                if source.kind() == io::ErrorKind::NotFound =>
            {
                Vec::new()
            }
            Err(InputError::Unreadable { source, .. }) => {
                return Err(StateError::Read {
                    path: path.to_path_buf(),
                    source,
                })
            }
            Err(error) => return Err(corrupt(error.to_string())),
        };
        let text = String::from_utf8(text).map_err(|error| {
            let (line, column) = utf8_error_position(error.as_bytes(), error.utf8_error());
            corrupt(format!(
                "not UTF-8 (the first invalid byte is at line {line}, column {column})"
            ))
        })?;
        if text.trim().is_empty() {
            return Ok(StateFile {
                path: path.to_path_buf(),
                entries: Vec::new(),
            });
        }
        let entries = object_entries(&text).map_err(corrupt)?;
        Ok(StateFile {
            path: path.to_path_buf(),
            entries,
        })
    }

    /// The record of `agent_id`, if it is tracked (the last one, as JSON readers take
    /// the last of a repeated key).
    pub fn record(&self, agent_id: &str) -> Result<Option<AgentRecord>, StateError> {
        let Some((_, raw)) = self.entries.iter().rev().find(|(key, _)| key == agent_id) else {
            return Ok(None);
        };
        let corrupt = |what: &str| StateError::Corrupt {
            path: self.path.clone(),
            reason: format!("the record of agent {agent_id:?} {what}"),
        };
        let Ok(members) = object_entries(raw.get()) else {
            return Err(corrupt("is not an object"));
        };
        // Only the two members read here are parsed: the others may hold numbers no
        // machine type holds, and are written back as they are.
        let member = |name: &str| {
            members
                .iter()
                .rev()
                .find(|(key, _)| key == name)
                .map(|(_, value)| serde_json::from_str::<Value>(value.get()).ok())
        };
        let state = match member("state") {
            Some(Some(Value::String(state))) => state,
            _ => return Err(corrupt("has no string \"state\"")),
        };
        let in_progress_count = match member("in_progress_count") {
            None => 0,
            Some(count) => count
                .and_then(|count| count.as_u64())
                .ok_or_else(|| corrupt("has a \"in_progress_count\" that is not a whole number"))?,
        };
        Ok(Some(AgentRecord {
            state,
            in_progress_count,
        }))
    }

    /// Stores `record` for `agent_id`: its `state`, `in_progress_count` and
    /// `last_updated` set in place, every other key of its old record kept as written.
    pub fn set(&mut self, agent_id: &str, record: &AgentRecord) {
        let mut fields = self
            .entries
            .iter()
            .rev()
            .find(|(key, _)| key == agent_id)
            .and_then(|(_, raw)| object_entries(raw.get()).ok())
            .unwrap_or_default();
        let updates = [
            ("state", Value::String(record.state.clone())),
            ("in_progress_count", Value::from(record.in_progress_count)),
            ("last_updated", now_epoch_seconds()),
        ];
        for (key, value) in updates {
            let raw = to_raw(&value.to_string());
            match fields.iter_mut().find(|(name, _)| name == key) {
                Some(field) => field.1 = raw,
                None => fields.push((key.to_string(), raw)),
            }
        }
        let raw = to_raw(&write_object(&fields, 1));
        match self
            .entries
            .iter_mut()
            .rev()
            .find(|(key, _)| key == agent_id)
        {
            Some(entry) => entry.1 = raw,
            None => self.entries.push((agent_id.to_string(), raw)),
        }
    }

    /// Writes the whole state atomically ([`replace_atomically`]: a symbolic link is
    /// followed, the file's permissions are kept). Every value the file held is written
    /// back as its own text: numbers of any size, key order and layout inside it.
    pub fn save(&self) -> Result<(), StateError> {
        let mut text = write_object(&self.entries, 0);
        text.push('\n');
        replace_atomically(&self.path, text.as_bytes()).map_err(|source| StateError::Write {
            path: self.path.clone(),
            source,
        })
    }
}

/// The members of the JSON object `text`, in order, each value as written.
fn object_entries(text: &str) -> Result<Vec<(String, Box<RawValue>)>, String> {
    if let Err(error) = serde_json::from_str::<&RawValue>(text) {
        return Err(format!("not JSON ({error})"));
    }
    serde_json::from_str::<Members>(text)
        .map(|members| members.0)
        .map_err(|_| "expected a JSON object keyed by agent id".to_string())
}

/// A JSON object's members in the order written, each value kept as its text.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Members, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Members;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// `members` as a JSON object laid out like `serde_json`'s pretty printer at `depth`
/// (two spaces a level), each value as its own text.
fn write_object(members: &[(String, Box<RawValue>)], depth: usize) -> String {
    if members.is_empty() {
        return "{}".to_string();
    }
    let indent = "  ".repeat(depth + 1);
    let lines: Vec<String> = members
        .iter()
        .map(|(key, value)| format!("{indent}{}: {}", Value::from(key.as_str()), value.get()))
        .collect();
    format!("{{\n{}\n{}}}", lines.join(",\n"), "  ".repeat(depth))
}

/// JSON text this module wrote, as a raw value.
fn to_raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_string()).unwrap_or_default()
}

fn now_epoch_seconds() -> Value {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    Number::from_f64(seconds).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_recorded_status_allows_nothing() {
        let record = AgentRecord {
            state: "REVIEW".into(),
            in_progress_count: 0,
        };
        let (verdict, stored) = transition(Some(&record), PlanStatus::InProgress);
        assert_eq!(verdict.outcome, "illegal");
        assert!(verdict.message.contains("Allowed from REVIEW: none."));
        assert!(stored.is_none());
    }
}
