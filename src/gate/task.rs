//! The records of one task: which task a check is about, its Task Assignment, and its
//! Interaction Records, each with the authority of where it came from.
//!
//! Authority (GATE.md, "Trust: who may grant what"):
//!
//! | origin | evidence | assign (scope, class) | grant |
//! |---|---|---|---|
//! | [`Origin::Base`]: the records directory at the base revision | yes | yes | yes |
//! | [`Origin::Head`]: record files the change adds or edits | yes | only a task the base does not assign | yes |
//! | [`Origin::Trusted`]: `--trusted-records` | yes | as the head | yes |
//! | [`Origin::Input`]: `--records` (a pull request's description) | yes | no | no |
//!
//! With no `--task`, the single task that has an assignment with the authority to
//! assign decides; of several, the one the change itself assigns (or re-assigns), unless
//! the base already assigns one of its authors a task that is still open (no evidence of
//! it on the base); else an error lists them, so that CI never guesses. Task IDs compare as [`task_key`] does
//! (`eng-1 ` is ENG-1). Records are ordered by `Timestamp` (records without one first,
//! in the order read); grants are ordered by timestamp only ([`super::reviewer`]).

use crate::diagnostic::{Diagnostic, GateCode};
use crate::identity::{task_key, AgentName};
use crate::record::placeholder::is_placeholder;
use crate::record::{InteractionType, Record, RecordKind};
use std::collections::{BTreeMap, HashSet};

/// Where a record came from, which says what it may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The records directory at the base revision.
    Base,
    /// A record file the change adds or edits.
    Head,
    /// `--trusted-records`: a source CI vouches for.
    Trusted,
    /// `--records`: evidence only (a pull request's description is written by its author).
    Input,
}

impl Origin {
    /// Whether a record of this origin may grant (sign off, approve an expansion, waive).
    pub fn may_grant(self) -> bool {
        self != Origin::Input
    }
}

/// A record and where it came from.
#[derive(Debug, Clone)]
pub struct Sourced {
    /// The record.
    pub record: Record,
    /// Its origin.
    pub origin: Origin,
}

/// Why the task of a check cannot be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    /// No Task Assignment in the records and no `--task`.
    #[error(
        "no Task Assignment found in the records; file the orchestrator's assignment \
         (`handoff new task-assignment --task ID --to AGENT --scope 'PATTERN,...' -o \
         .handoff/ID.md`) on the target branch, or pass --task ID"
    )]
    NoTask,
    /// Several Task Assignments and no `--task`.
    #[error("several Task Assignments found; pass --task with one of: {}", list_places(.0))]
    Ambiguous(Vec<(String, String, usize)>),
    /// The change assigns a task to an author whom the base already assigns an open
    /// task, and no `--task`: the change may be moving its work to a task it assigned
    /// itself.
    #[error(
        "this change assigns {} to {}, whom the base already assigns the open task {}; \
         the gate cannot tell which task the change is for (a change never moves its work \
         to a task it assigns itself): pass --task with one of: {}",
        .fresh.0,
        .authors.join(", "),
        .open.iter().map(|(task, ..)| task.as_str()).collect::<Vec<_>>().join(", "),
        list_places(&[.open.as_slice(), std::slice::from_ref(.fresh)].concat())
    )]
    SecondTask {
        /// The task the change assigns, with its place.
        fresh: (String, String, usize),
        /// Its authors the base assigns an open task.
        authors: Vec<String>,
        /// The base's open tasks of those authors, with their places.
        open: Vec<(String, String, usize)>,
    },
}

fn list_places(places: &[(String, String, usize)]) -> String {
    places
        .iter()
        .map(|(task, source, line)| format!("{task} ({source}:{line})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Chooses the task: `wanted` when given, else the one task that has an assignment with
/// the authority to assign. When several do (a records directory accumulates the tasks
/// of earlier changes), the tasks this change assigns or re-assigns decide, if there is
/// exactly one and none of its authors has an open task on the base
/// ([`SelectionError::SecondTask`]).
pub fn select_task(records: &[Sourced], wanted: Option<&str>) -> Result<String, SelectionError> {
    if let Some(task) = wanted {
        return Ok(task.trim().to_string());
    }
    let all = assignment_tasks(records, &|_| true);
    if all.len() == 1 {
        return Ok(all
            .into_values()
            .next()
            .map(|(task, _, _)| task)
            .unwrap_or_default());
    }
    if all.is_empty() {
        return Err(SelectionError::NoTask);
    }
    let fresh = assignment_tasks(records, &|origin| origin != Origin::Base);
    if fresh.len() == 1 {
        let Some((key, place)) = fresh.into_iter().next() else {
            return Err(SelectionError::NoTask);
        };
        return match open_base_tasks_of_authors(records, &key, &place.0) {
            (_, open) if open.is_empty() => Ok(place.0),
            (authors, open) => Err(SelectionError::SecondTask {
                fresh: place,
                authors,
                open,
            }),
        };
    }
    let listed = if fresh.is_empty() { all } else { fresh };
    Err(SelectionError::Ambiguous(listed.into_values().collect()))
}

/// The authors of `task` (the change's assignment and evidence) whom the base assigns
/// another task that is still open, and those tasks with their places. A base task is
/// open until the base holds an Interaction Record of it with an Evidence Bundle (its
/// work was handed over and merged).
fn open_base_tasks_of_authors(
    records: &[Sourced],
    key: &str,
    task: &str,
) -> (Vec<String>, Vec<(String, String, usize)>) {
    let authors = TaskRecords::gather(records, task).authors();
    let settled: HashSet<String> = records
        .iter()
        .filter(|s| s.origin == Origin::Base && s.record.kind == RecordKind::InteractionRecord)
        .filter(|s| s.record.section("Evidence Bundle").is_some())
        .filter_map(|s| s.record.task_id().map(task_key))
        .collect();
    let mut open = BTreeMap::new();
    let mut rivals = Vec::new();
    for record in records
        .iter()
        .filter(|s| s.origin == Origin::Base && s.record.kind == RecordKind::TaskAssignment)
        .map(|s| &s.record)
    {
        let (Some(id), Some(assignee)) = (record.task_id(), filled(record.assigned_to())) else {
            continue;
        };
        let Ok(assignee) = AgentName::parse(assignee) else {
            continue;
        };
        let other = task_key(id);
        if other == key
            || settled.contains(&other)
            || !authors.iter().any(|a| a == assignee.as_str())
        {
            continue;
        }
        rivals.push(assignee.as_str().to_string());
        open.entry(other)
            .or_insert((id.trim().to_string(), record.source.clone(), record.line));
    }
    rivals.sort();
    rivals.dedup();
    (rivals, open.into_values().collect())
}

/// The tasks assigned with authority by records whose origin `keep` accepts, keyed by
/// [`task_key`], each with its ID as written and the place of its first assignment.
fn assignment_tasks(
    records: &[Sourced],
    keep: &dyn Fn(Origin) -> bool,
) -> BTreeMap<String, (String, String, usize)> {
    let mut tasks = BTreeMap::new();
    for sourced in records
        .iter()
        .filter(|s| s.record.kind == RecordKind::TaskAssignment)
    {
        let (record, origin) = (&sourced.record, sourced.origin);
        if origin == Origin::Input || !keep(origin) {
            continue;
        }
        if let Some(task) = record.task_id() {
            tasks.entry(task_key(task)).or_insert((
                task.trim().to_string(),
                record.source.clone(),
                record.line,
            ));
        }
    }
    tasks
}

/// The records of one task.
#[derive(Debug, Clone)]
pub struct TaskRecords<'a> {
    /// The task's ID.
    pub task_id: String,
    /// Its Task Assignment: the base's, else (for a task the base does not assign) the
    /// change's or a trusted input's.
    pub assignment: Option<&'a Record>,
    /// Whether the assignment is the change's own (the base does not assign the task).
    pub assigned_by_change: bool,
    /// Its Interaction Records from every origin, oldest first (evidence may come from
    /// anywhere).
    pub interactions: Vec<&'a Record>,
    /// Those of them that may grant (not from `--records`), oldest first.
    pub granting: Vec<&'a Record>,
    /// Those of them with the authority of the assignment, oldest first: the base's
    /// records when the base assigns the task, else those that may grant. What the task
    /// asks for (its acceptance criteria) comes from these alone.
    pub assigning: Vec<&'a Record>,
    /// What is wrong with where the task's records came from: re-assignments, conflicts,
    /// ignored grants.
    pub problems: Vec<Diagnostic>,
}

impl<'a> TaskRecords<'a> {
    /// Gathers the records of `task_id` (compared by [`task_key`]).
    pub fn gather(records: &'a [Sourced], task_id: &str) -> TaskRecords<'a> {
        let key = task_key(task_id);
        let of_task: Vec<&Sourced> = records
            .iter()
            .filter(|s| s.record.task_id().is_some_and(|t| task_key(t) == key))
            .collect();
        let mut problems = Vec::new();
        let (assignment, assigned_by_change) = choose_assignment(&of_task, &mut problems);
        let interactions: Vec<&Sourced> = of_task
            .into_iter()
            .filter(|s| s.record.kind == RecordKind::InteractionRecord)
            .collect();
        problems.extend(ignored_grants(&interactions));
        let all: Vec<&Record> = interactions.iter().map(|s| &s.record).collect();
        let granting: Vec<&Record> = interactions
            .iter()
            .filter(|s| s.origin.may_grant())
            .map(|s| &s.record)
            .collect();
        let assigning: Vec<&Record> = interactions
            .iter()
            .filter(|s| match assigned_by_change {
                true => s.origin.may_grant(),
                false => s.origin == Origin::Base,
            })
            .map(|s| &s.record)
            .collect();
        TaskRecords {
            task_id: task_id.trim().to_string(),
            assignment,
            assigned_by_change,
            interactions: chronological(all),
            granting: chronological(granting),
            assigning: chronological(assigning),
            problems,
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

    /// The records that may grant of one type, oldest first.
    pub fn granting_of_type(&self, kind: InteractionType) -> Vec<&'a Record> {
        self.granting
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

    /// The author as reports name it: the Task Assignment's `Assigned to`, else the
    /// evidence record's `From`.
    pub fn author(&self) -> Option<&'a str> {
        filled(self.assignment.and_then(|a| a.assigned_to()))
            .or_else(|| filled(self.evidence_record().and_then(|r| r.from())))
    }

    /// Everyone who wrote the work, normalised: the Task Assignment's `Assigned to` and
    /// the `From` of every record of the task that carries an Evidence Bundle. None of
    /// them may grant anything for it. Names that are not names are left out here (the
    /// gate reports them as errors).
    pub fn authors(&self) -> Vec<String> {
        let assignee = self.assignment.and_then(|a| filled(a.assigned_to()));
        let senders = self
            .interactions
            .iter()
            .filter(|r| r.section("Evidence Bundle").is_some())
            .filter_map(|r| filled(r.from()));
        let mut authors: Vec<String> = assignee
            .into_iter()
            .chain(senders)
            .filter_map(|name| AgentName::parse(name).ok())
            .map(|name| name.as_str().to_string())
            .collect();
        authors.sort();
        authors.dedup();
        authors
    }

    /// The Task Assignment's `Baseline SHA`, when filled in and the assignment is the
    /// base's (a change must not choose the base it is compared with).
    pub fn baseline_sha(&self) -> Option<&'a str> {
        if self.assigned_by_change {
            return None;
        }
        filled(self.assignment.and_then(|a| a.baseline_sha()))
    }
}

/// The task's assignment, by authority: the base's, else the change's (or a trusted
/// input's) for a task the base does not assign. Every other assignment is reported.
fn choose_assignment<'a>(
    of_task: &[&'a Sourced],
    problems: &mut Vec<Diagnostic>,
) -> (Option<&'a Record>, bool) {
    let assignments: Vec<&Sourced> = of_task
        .iter()
        .copied()
        .filter(|s| s.record.kind == RecordKind::TaskAssignment)
        .collect();
    let base: Vec<&Record> = assignments
        .iter()
        .filter(|s| s.origin == Origin::Base)
        .map(|s| &s.record)
        .collect();
    let others: Vec<&Sourced> = assignments
        .iter()
        .copied()
        .filter(|s| s.origin != Origin::Base)
        .collect();
    if let Some(first) = base.first().copied() {
        problems.extend(conflicts(&base));
        for other in others.iter().filter(|s| s.record != *first) {
            problems.push(reassigned(&other.record, first));
        }
        return (Some(first), false);
    }
    for input in others.iter().filter(|s| s.origin == Origin::Input) {
        problems.push(untrusted(&input.record, "a Task Assignment"));
    }
    let change: Vec<&Record> = others
        .iter()
        .filter(|s| s.origin != Origin::Input)
        .map(|s| &s.record)
        .collect();
    problems.extend(conflicts(&change));
    (change.first().copied(), !change.is_empty())
}

/// Assignments of equal authority that disagree: each one after the first that differs.
fn conflicts(assignments: &[&Record]) -> Vec<Diagnostic> {
    let Some(first) = assignments.first() else {
        return Vec::new();
    };
    assignments[1..]
        .iter()
        .filter(|record| **record != *first)
        .map(|record| {
            Diagnostic::new(
                GateCode::ConflictingAssignments,
                format!(
                    "this Task Assignment for {} differs from the one at {}:{}; \
                     keep one assignment per task",
                    record.task_id().unwrap_or_default(),
                    first.source,
                    first.line
                ),
            )
            .at_line(&record.source, record.line)
        })
        .collect()
}

fn reassigned(record: &Record, base: &Record) -> Diagnostic {
    Diagnostic::new(
        GateCode::ReassignedTask,
        format!(
            "this Task Assignment re-assigns {}, which the base already assigns ({}:{}); \
             the base's assignment stands: a change never widens its own scope or lowers \
             its own class",
            record.task_id().unwrap_or_default(),
            base.source,
            base.line
        ),
    )
    .at_line(&record.source, record.line)
}

fn untrusted(record: &Record, what: &str) -> Diagnostic {
    Diagnostic::new(
        GateCode::UntrustedGrant,
        format!(
            "{what} came with --records, which may supply evidence but never assign or \
             grant, so it was ignored; commit it to the records directory, or pass a \
             source CI trusts with --trusted-records"
        ),
    )
    .at_line(&record.source, record.line)
}

/// A warning for each record from `--records` that would grant something.
fn ignored_grants(interactions: &[&Sourced]) -> Vec<Diagnostic> {
    interactions
        .iter()
        .filter(|s| s.origin == Origin::Input)
        .filter_map(|s| {
            let record = &s.record;
            let what = if record.decision().status == crate::record::DecisionStatus::Approved {
                "an approving Decision"
            } else if record.waiver_line().is_some() {
                "an instruction to ship without review"
            } else {
                return None;
            };
            Some(untrusted(record, what))
        })
        .collect()
}

/// A header value that is filled in: trimmed, not empty, not a template placeholder
/// (`[sender agent name]`, `<git rev-parse HEAD at dispatch>`).
pub fn filled(value: Option<&str>) -> Option<&str> {
    value
        .map(str::trim)
        .filter(|value| !value.is_empty() && !is_placeholder(value))
}

/// Sorts records oldest first by `Timestamp`; records without a valid one come first, in
/// the order read (a stable sort). Evidence is chosen this way; grants are ordered by
/// timestamps alone (see [`super::reviewer`]).
fn chronological(mut records: Vec<&Record>) -> Vec<&Record> {
    records.sort_by_key(|record| record.timestamp().and_then(timestamp_key));
    records
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

    fn sourced(text: &str, origin: Origin) -> Vec<Sourced> {
        parse_document("t.md", text)
            .records
            .into_iter()
            .map(|record| Sourced { record, origin })
            .collect()
    }

    const TWO_TASKS: &str = "## Task Assignment\n\n| Task ID | ENG-1 |\n| Assigned to | a |\n\n\
        ## Task Assignment\n\n| Task ID | ENG-2 |\n| Assigned to | b |\n";

    #[test]
    fn one_assignment_decides_and_several_are_listed() {
        let records = sourced(TWO_TASKS, Origin::Base);
        assert_eq!(select_task(&records[..1], None), Ok("ENG-1".to_string()));
        let error = select_task(&records, None).unwrap_err().to_string();
        assert!(
            error.contains("ENG-1 (t.md:1)") && error.contains("ENG-2"),
            "{error}"
        );
        assert_eq!(
            select_task(&records, Some("ENG-2")),
            Ok("ENG-2".to_string())
        );
        assert_eq!(select_task(&[], None), Err(SelectionError::NoTask));
        // Of several, the one this change assigns decides; an input assigns nothing.
        let mut mixed = sourced(TWO_TASKS, Origin::Base);
        mixed[1].origin = Origin::Head;
        assert_eq!(select_task(&mixed, None), Ok("ENG-2".to_string()));
        mixed[1].origin = Origin::Input;
        assert_eq!(select_task(&mixed, None), Ok("ENG-1".to_string()));
    }

    #[test]
    fn a_second_task_of_an_author_with_an_open_one_is_not_chosen() {
        let mut records = sourced(TWO_TASKS.replace("| b |", "| `A` |").as_str(), Origin::Base);
        records[1].origin = Origin::Head;
        let error = select_task(&records, None).unwrap_err();
        assert!(
            matches!(&error, SelectionError::SecondTask { authors, open, .. }
                if authors == &["a"] && open.len() == 1 && open[0].0 == "ENG-1"),
            "{error:?}"
        );
        // Once the base holds ENG-1's evidence, the change's task decides.
        let evidence = "## Interaction Record\n\n| Task ID | ENG-1 |\n| From | a |\n\n\
            ### Evidence Bundle\n\n- x: y\n";
        records.extend(sourced(evidence, Origin::Base));
        assert_eq!(select_task(&records, None), Ok("ENG-2".to_string()));
    }

    #[test]
    fn the_base_assignment_stands_against_the_change_and_inputs() {
        let base = "## Task Assignment\n\n| Task ID | ENG-1 |\n| Expected file scope | docs/ |\n";
        let head = "## Task Assignment\n\n| Task ID | eng-1  |\n| Expected file scope | ** |\n";
        let mut records = sourced(base, Origin::Base);
        records.extend(sourced(head, Origin::Head));
        records.extend(sourced(head, Origin::Input));
        let task = TaskRecords::gather(&records, "ENG-1");
        assert_eq!(
            task.assignment.and_then(|a| a.expected_file_scope()),
            Some(vec!["docs/".to_string()])
        );
        let codes: Vec<String> = task.problems.iter().map(|p| p.code.to_string()).collect();
        assert_eq!(codes, ["reassigned-task", "reassigned-task"]);
        let only_head = sourced(head, Origin::Head);
        let task = TaskRecords::gather(&only_head, "ENG-1");
        assert!(task.assigned_by_change && task.assignment.is_some());
        let only_input = sourced(head, Origin::Input);
        let task = TaskRecords::gather(&only_input, "ENG-1");
        assert!(task.assignment.is_none());
        assert_eq!(task.problems[0].code.to_string(), "untrusted-grant");
    }

    #[test]
    fn the_latest_review_by_timestamp_holds_the_evidence_and_every_sender_is_an_author() {
        let text =
            "## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | review |\n| From | a |\n\
            | To | b |\n| Timestamp | 2026-01-02T00:00:00Z |\n\n### Evidence Bundle\n\n- x: y\n\n\
            ## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | review |\n| From | `C` |\n\
            | To | b |\n| Timestamp | 2026-01-01T00:00:00Z |\n\n### Evidence Bundle\n\n- x: y\n";
        let records = sourced(text, Origin::Head);
        let task = TaskRecords::gather(&records, "eng-1");
        assert_eq!(task.evidence_record().and_then(|r| r.from()), Some("a"));
        assert_eq!(task.author(), Some("a"));
        assert_eq!(task.authors(), ["a", "c"]);
    }

    #[test]
    fn placeholders_are_not_values() {
        assert_eq!(filled(Some(" <git rev-parse HEAD at dispatch> ")), None);
        assert_eq!(filled(Some("[agent name]")), None);
        assert_eq!(filled(Some("")), None);
        assert_eq!(filled(Some(" abc123 ")), Some("abc123"));
    }
}
