//! The trail's reports. `verify`, `repair` and `prune` are whole reports, laid out by
//! templates (`trail-verify`, `trail-repair`, `trail-prune`); the outputs that grow with
//! the number of events (what `append`, `open`, `tick` … appended, and `query --format
//! human`) are written a line per event, streamed, by [`appended_line`],
//! [`deferred_line`] and [`event_line`]; `query` in each of its formats by
//! [`write_query`].

use super::{Format, Report};
use crate::trail::Verification;
use crate::trail::{query, Deferred, Event, Filter, Imported, Prune, Repair, Trail, TrailError};

/// What `verify` found: the JSON contract of docs/trail.md, and for a person each break
/// as `segment:line: error[code]: message`, the notes, and a summary line.
#[derive(Debug, Clone)]
pub struct VerifyReport(pub Verification);

impl Report for VerifyReport {
    const NAME: &'static str = "trail-verify";
    const FORMATS: &'static [Format] = &[Format::Human, Format::Json];
    type Contract = Verification;

    fn contract(&self) -> &Verification {
        &self.0
    }
}

/// What `repair` did: the torn line removed and where its bytes went, `HEAD` rewritten,
/// and the breaks it may not fix.
#[derive(Debug, Clone)]
pub struct RepairReport(pub Repair);

impl Report for RepairReport {
    const NAME: &'static str = "trail-repair";
    const FORMATS: &'static [Format] = &[Format::Human];
    type Contract = Repair;

    fn contract(&self) -> &Repair {
        &self.0
    }
}

/// What `prune` removed (or would remove), the new `ANCHOR`, or the breaks that
/// stopped it.
#[derive(Debug, Clone)]
pub struct PruneReport(pub Prune);

impl Report for PruneReport {
    const NAME: &'static str = "trail-prune";
    const FORMATS: &'static [Format] = &[Format::Human];
    type Contract = Prune;

    fn contract(&self) -> &Prune {
        &self.0
    }
}

/// One appended event: `seq 12 accepted <id> (from -> to, attempt 1)`, then its
/// warnings indented.
pub fn appended_line(event: &Event) -> String {
    let mut text = format!(
        "seq {} {} {} ({} -> {}, attempt {})\n",
        event.seq,
        event.event_type,
        event.handoff_id,
        event.from_agent,
        event.to_agent,
        event.attempt
    );
    for warning in &event.warnings {
        text.push_str(&format!("  warning: {warning}\n"));
    }
    text
}

/// One deferral `append` read: `file:line: deferred <id> (no event): reason`.
pub fn deferred_line(deferral: &Deferred) -> String {
    format!(
        "{}:{}: deferred {} (no event): {}\n",
        deferral.file, deferral.line, deferral.handoff_id, deferral.reason
    )
}

/// The events matching `filter` (`query`), streamed to `write` oldest first: `jsonl`
/// each line as stored, `json` one array of them (a line each), any other format an
/// [`event_line`] each. Returns how many matched. A trail that is not there is an error
/// before anything is written; an error later (a line that is not an event) leaves what
/// was written cut short, so a caller that needs the whole array or nothing writes to a
/// [`crate::io::Spool`] first.
pub fn write_query(
    trail: &Trail,
    filter: &Filter,
    format: Format,
    mut write: impl FnMut(&[u8]) -> Result<(), TrailError>,
) -> Result<u64, TrailError> {
    trail.require()?;
    if format == Format::Json {
        write(b"[")?;
    }
    let mut first = true;
    let matched = query(trail, filter, |event, line| match format {
        Format::Jsonl => {
            write(line.text)?;
            write(b"\n")
        }
        Format::Json => {
            if !first {
                write(b",")?;
            }
            first = false;
            write(b"\n")?;
            write(line.text)
        }
        _ => write(event_line(event).as_bytes()),
    })?;
    if format == Format::Json {
        write(b"\n]\n")?;
    }
    Ok(matched)
}

/// What `import` did, for a person: `file:line: skipped: reason` for each record
/// skipped, then a line of counts.
pub fn imported_text(imported: &Imported) -> String {
    let mut text = String::new();
    for skipped in &imported.skipped {
        text.push_str(&format!(
            "{}:{}: skipped: {}\n",
            skipped.file, skipped.line, skipped.reason
        ));
    }
    text.push_str(&format!(
        "{} record(s) read: {} event(s) appended, {} already on the trail, {} skipped\n",
        imported.records,
        imported.appended,
        imported.unchanged,
        imported.skipped.len()
    ));
    text
}

/// One event for a person (`query --format human`): `seq  timestamp  event  handoff
/// from -> to  task  reason`.
pub fn event_line(event: &Event) -> String {
    format!(
        "{:>6}  {}  {:<10} {}  {} -> {}  {}{}\n",
        event.seq,
        event.timestamp,
        event.event_type.name(),
        event.handoff_id,
        event.from_agent,
        event.to_agent,
        event.task_id().unwrap_or("-"),
        event
            .reason
            .as_deref()
            .map(|r| format!("  {r}"))
            .unwrap_or_default()
    )
}
