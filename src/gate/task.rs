//! The records of one task: which task a check is about, its Task Assignment, and its
//! Interaction Records in the order they happened.
//!
//! With no `--task`, the single Task Assignment found decides the task; several are an
//! error that lists them, so that CI never guesses. "Latest" means the latest by
//! `Timestamp` when every candidate has one that parses, else the last in document order
//! (files in the order they were read, records in the order they appear).

use crate::record::placeholder::is_placeholder;
use crate::record::{InteractionType, Record, RecordKind};
use std::collections::BTreeMap;

/// Why the task of a check cannot be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    /// No Task Assignment in the records and no `--task`.
    #[error(
        "no Task Assignment found in the records; file the orchestrator's assignment \
         (`handoff new task-assignment --task ID --to AGENT --scope 'PATTERN,...' -o \
         .handoff/ID.md`), or pass --task ID and --records with the records that hold it"
    )]
    NoTask,
    /// Several Task Assignments and no `--task`.
    #[error("several Task Assignments found; pass --task with one of: {}", list_places(.0))]
    Ambiguous(Vec<(String, String, usize)>),
}

fn list_places(places: &[(String, String, usize)]) -> String {
    places
        .iter()
        .map(|(task, source, line)| format!("{task} ({source}:{line})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Chooses the task: `wanted` when given, else the one task that has a Task Assignment.
/// When several tasks have one (a records directory accumulates the tasks of earlier
/// changes), only the assignments `is_fresh` accepts count — those this change added or
/// edited, or that came with `--records` — and exactly one of those decides.
pub fn select_task(
    records: &[Record],
    wanted: Option<&str>,
    is_fresh: &dyn Fn(&Record) -> bool,
) -> Result<String, SelectionError> {
    if let Some(task) = wanted {
        return Ok(task.trim().to_string());
    }
    let all = assignment_tasks(records, &|_| true);
    if all.len() == 1 {
        return Ok(all.into_keys().next().unwrap_or_default());
    }
    if all.is_empty() {
        return Err(SelectionError::NoTask);
    }
    let fresh = assignment_tasks(records, is_fresh);
    if fresh.len() == 1 {
        return Ok(fresh.into_keys().next().unwrap_or_default());
    }
    let listed = if fresh.is_empty() { all } else { fresh };
    Err(SelectionError::Ambiguous(
        listed
            .into_iter()
            .map(|(task, (source, line))| (task, source, line))
            .collect(),
    ))
}

/// The tasks that have a Task Assignment among the records `keep` accepts, each with
/// the place of its first assignment.
fn assignment_tasks(
    records: &[Record],
    keep: &dyn Fn(&Record) -> bool,
) -> BTreeMap<String, (String, usize)> {
    let mut tasks = BTreeMap::new();
    let assignments = records
        .iter()
        .filter(|r| r.kind == RecordKind::TaskAssignment && keep(r));
    for record in assignments {
        if let Some(task) = record.task_id() {
            tasks
                .entry(task.trim().to_string())
                .or_insert((record.source.clone(), record.line));
        }
    }
    tasks
}

/// The records of one task.
#[derive(Debug, Clone)]
pub struct TaskRecords<'a> {
    /// The task's ID.
    pub task_id: String,
    /// Its latest Task Assignment.
    pub assignment: Option<&'a Record>,
    /// Its Interaction Records, oldest first.
    pub interactions: Vec<&'a Record>,
}

impl<'a> TaskRecords<'a> {
    /// Gathers the records of `task_id` (compared case-insensitively).
    pub fn gather(records: &'a [Record], task_id: &str) -> TaskRecords<'a> {
        let of_task: Vec<&Record> = records
            .iter()
            .filter(|r| {
                r.task_id()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case(task_id))
            })
            .collect();
        let assignments: Vec<&Record> = of_task
            .iter()
            .copied()
            .filter(|r| r.kind == RecordKind::TaskAssignment)
            .collect();
        let interactions = of_task
            .into_iter()
            .filter(|r| r.kind == RecordKind::InteractionRecord)
            .collect();
        TaskRecords {
            task_id: task_id.to_string(),
            assignment: latest(&assignments),
            interactions: chronological(interactions),
        }
    }

    /// The task's Interaction Records of one type, oldest first.
    pub fn of_type(&self, kind: InteractionType) -> Vec<&'a Record> {
        self.interactions
            .iter()
            .copied()
            .filter(|r| r.interaction_type() == Some(kind))
            .collect()
    }

    /// The record whose Evidence Bundle counts: the latest `review`, else the latest
    /// `handoff`. A later record of the same type without an `Evidence Bundle` section
    /// (a reviewer's reply that only fills the Decision) does not hide the bundle of an
    /// earlier one.
    pub fn evidence_record(&self) -> Option<&'a Record> {
        [InteractionType::Review, InteractionType::Handoff]
            .into_iter()
            .find_map(|kind| {
                let records = self.of_type(kind);
                let with_bundle = records
                    .iter()
                    .rev()
                    .find(|r| r.section("Evidence Bundle").is_some());
                with_bundle.or(records.last()).copied()
            })
    }

    /// The author of the work: the Task Assignment's `Assigned to`, else the evidence
    /// record's `From`.
    pub fn author(&self) -> Option<&'a str> {
        filled(self.assignment.and_then(|a| a.assigned_to()))
            .or_else(|| filled(self.evidence_record().and_then(|r| r.from())))
    }

    /// The Task Assignment's `Baseline SHA`, when filled in.
    pub fn baseline_sha(&self) -> Option<&'a str> {
        filled(self.assignment.and_then(|a| a.baseline_sha()))
    }
}

/// A header value that is filled in: trimmed, not empty, not a template placeholder
/// (`[sender agent name]`, `<git rev-parse HEAD at dispatch>`).
pub fn filled(value: Option<&str>) -> Option<&str> {
    value
        .map(str::trim)
        .filter(|value| !value.is_empty() && !is_placeholder(value))
}

/// The latest of `records` (see the module documentation).
fn latest<'a>(records: &[&'a Record]) -> Option<&'a Record> {
    chronological(records.to_vec()).last().copied()
}

/// Sorts records oldest first: by timestamp when every one has one, else as given.
fn chronological(records: Vec<&Record>) -> Vec<&Record> {
    let keys: Option<Vec<i128>> = records
        .iter()
        .map(|r| r.timestamp().and_then(timestamp_key))
        .collect();
    let Some(keys) = keys else {
        return records;
    };
    let mut keyed: Vec<(i128, usize, &Record)> = records
        .into_iter()
        .enumerate()
        .map(|(index, record)| (keys[index], index, record))
        .collect();
    keyed.sort_by_key(|(key, index, _)| (*key, *index));
    keyed.into_iter().map(|(_, _, record)| record).collect()
}

/// An RFC 3339 timestamp (`2026-01-11T20:30:00Z`, `…+02:00`, fractions allowed) as
/// nanoseconds since the epoch, for ordering; `None` when it does not parse.
pub fn timestamp_key(text: &str) -> Option<i128> {
    let text = text.trim();
    let (date, rest) = text.split_at_checked(10)?;
    let mut parts = date.split('-');
    let (year, month, day): (i64, i64, i64) = (
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
    );
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let zone_at = rest.find(['Z', 'z', '+', '-'])?;
    let (clock, zone) = rest.split_at(zone_at);
    let (hms, fraction) = clock.split_once('.').unwrap_or((clock, ""));
    let mut hms = hms.split(':');
    let (h, m, s): (i64, i64, i64) = (
        hms.next()?.parse().ok()?,
        hms.next()?.parse().ok()?,
        hms.next()?.parse().ok()?,
    );
    let valid = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (0..24).contains(&h)
        && (0..60).contains(&m)
        && (0..=60).contains(&s);
    if !valid {
        return None;
    }
    let nanos = fraction_nanos(fraction)?;
    let offset = zone_offset_seconds(zone)?;
    let seconds = days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s - offset;
    Some(i128::from(seconds) * 1_000_000_000 + i128::from(nanos))
}

fn fraction_nanos(fraction: &str) -> Option<i64> {
    if fraction.is_empty() {
        return Some(0);
    }
    let digits: String = fraction.chars().take(9).collect();
    let value: i64 = digits.parse().ok()?;
    Some(value * 10_i64.pow(9 - digits.len() as u32))
}

fn zone_offset_seconds(zone: &str) -> Option<i64> {
    if zone.eq_ignore_ascii_case("z") {
        return Some(0);
    }
    let sign = if zone.starts_with('-') { -1 } else { 1 };
    let (hours, minutes) = zone.get(1..)?.split_once(':')?;
    let (hours, minutes): (i64, i64) = (hours.parse().ok()?, minutes.parse().ok()?);
    if !(0..24).contains(&hours) || !(0..60).contains(&minutes) {
        return None;
    }
    Some(sign * (hours * 3600 + minutes * 60))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_document;

    #[test]
    fn timestamps_order_across_zones() {
        let utc = timestamp_key("2026-01-11T20:30:00Z");
        let plus_two = timestamp_key("2026-01-11T21:30:00+02:00");
        assert!(plus_two < utc);
        assert_eq!(timestamp_key("1970-01-01T00:00:01.5Z"), Some(1_500_000_000));
        assert_eq!(timestamp_key("yesterday"), None);
        assert_eq!(timestamp_key("2026-01-11T20:30:00"), None);
        assert_eq!(timestamp_key("2026-01-11T999999999999999999:30:00Z"), None);
        assert_eq!(timestamp_key("2026-13-11T20:30:00Z"), None);
    }

    const TWO_TASKS: &str = "## Task Assignment\n\n| Task ID | ENG-1 |\n| Assigned to | a |\n\n\
        ## Task Assignment\n\n| Task ID | ENG-2 |\n| Assigned to | b |\n";

    #[test]
    fn one_assignment_decides_and_several_are_listed() {
        let records = parse_document("t.md", TWO_TASKS).records;
        let none = |_: &Record| false;
        assert_eq!(
            select_task(&records[..1], None, &none),
            Ok("ENG-1".to_string())
        );
        let error = select_task(&records, None, &none).unwrap_err().to_string();
        assert!(
            error.contains("ENG-1 (t.md:1)") && error.contains("ENG-2"),
            "{error}"
        );
        let wanted = select_task(&records, Some("ENG-2"), &none);
        assert_eq!(wanted, Ok("ENG-2".to_string()));
        assert_eq!(select_task(&[], None, &none), Err(SelectionError::NoTask));
        // Of several, the one this change brought decides.
        let second = |r: &Record| r.task_id() == Some("ENG-2");
        assert_eq!(
            select_task(&records, None, &second),
            Ok("ENG-2".to_string())
        );
    }

    #[test]
    fn the_latest_review_by_timestamp_holds_the_evidence() {
        let text =
            "## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | review |\n| From | a |\n\
            | To | b |\n| Timestamp | 2026-01-02T00:00:00Z |\n\n\
            ## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | review |\n| From | c |\n\
            | To | b |\n| Timestamp | 2026-01-01T00:00:00Z |\n";
        let records = parse_document("t.md", text).records;
        let task = TaskRecords::gather(&records, "eng-1");
        assert_eq!(task.evidence_record().and_then(|r| r.from()), Some("a"));
        assert_eq!(task.author(), Some("a"));
    }

    #[test]
    fn placeholders_are_not_values() {
        assert_eq!(filled(Some(" <git rev-parse HEAD at dispatch> ")), None);
        assert_eq!(filled(Some("[agent name]")), None);
        assert_eq!(filled(Some("")), None);
        assert_eq!(filled(Some(" abc123 ")), Some("abc123"));
    }
}
