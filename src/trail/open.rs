//! The handoffs still open, without parsing the whole trail: what `list` needs.
//!
//! A handoff's state depends on its own events only, in trail order ([`Ledger::apply`]:
//! an `initiated` opens or re-opens it, any other event of an open one sets its state).
//! So the trail is read in two steps. First every line's `handoff_id` and `event_type`
//! are read from its text (the top-level members before them walked, strings and nested
//! values skipped; a line whose values hold an escape, or that this walk cannot read, is
//! parsed instead), giving each handoff's state and where its lines are. Then only the
//! lines of the handoffs left open are read again, by offset, parsed and folded into a
//! [`Ledger`]: the same entries a fold of the whole trail gives them, at a fraction of
//! the parsing (3,000 open handoffs of 1M events parse 6,000 lines, not 1M).
//!
//! Like every view, this reads the trail as it stands; `verify` is what checks it.

use super::checkpoint::{self, Checkpoint, OpenHandoff};
use super::event::EventType;
use super::lifecycle::Ledger;
use super::store::{parse_line, Line, Segment, Trail};
use super::TrailError;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

/// Where a line is, and the line of the same handoff before it.
struct Place {
    segment: u32,
    number: u32,
    offset: u64,
    length: u32,
    /// Index of the handoff's previous line in the places, or `u32::MAX`.
    previous: u32,
}

impl Place {
    fn saved(&self) -> checkpoint::Place {
        let (segment, number) = (u64::from(self.segment), u64::from(self.number));
        [segment, number, self.offset, u64::from(self.length)]
    }
}

/// What the first step keeps of a handoff.
struct Head {
    /// Whether an `initiated` was seen (other events before it are ignored, as
    /// [`Ledger::apply`] ignores them).
    opened: bool,
    state: EventType,
    /// Index of its last line in the places.
    last: u32,
}

impl Head {
    /// Takes the event of the line at `index` into account, as [`Ledger::apply`] does.
    fn follow(&mut self, index: u32, event_type: EventType) {
        self.last = index;
        self.opened |= event_type == EventType::Initiated;
        if self.opened {
            self.state = event_type;
        }
    }

    fn is_open(&self) -> bool {
        self.opened && !is_final(self.state)
    }
}

const NONE: u32 = u32::MAX;

/// The ledger of the handoffs open at the end of the trail (and of no other): from the
/// trail's checkpoint on when one holds, and leaving one when much was read.
pub fn open_ledger(trail: &Trail) -> Result<Ledger, TrailError> {
    let segments = trail.segments()?;
    if let Some(saved) = checkpoint::load(trail, &segments) {
        if let Some(ledger) = read_open(trail, &segments, Some(&saved))? {
            return Ok(ledger);
        }
    }
    Ok(read_open(trail, &segments, None)?.unwrap_or_default())
}

/// Why the first step stopped.
enum Stop {
    /// A handoff closed at the checkpoint has events after it: read from the start.
    MovedOn,
    Failed(TrailError),
}

/// The two steps, from `saved` on when given; `None` when a handoff closed at the
/// checkpoint has events after it.
fn read_open(
    trail: &Trail,
    segments: &[Segment],
    saved: Option<&Checkpoint>,
) -> Result<Option<Ledger>, TrailError> {
    let mut places: Vec<Place> = Vec::new();
    let mut heads: HashMap<Box<[u8]>, Head> = HashMap::new();
    for handoff in saved.map(|saved| saved.open.as_slice()).unwrap_or_default() {
        let mut head = Head {
            opened: true,
            state: handoff.state,
            last: NONE,
        };
        for &[segment, number, offset, length] in &handoff.lines {
            let place = Place {
                segment: u32::try_from(segment).unwrap_or(NONE),
                number: u32::try_from(number).unwrap_or(NONE),
                offset,
                length: u32::try_from(length).unwrap_or(NONE),
                previous: head.last,
            };
            head.last = places.len() as u32;
            places.push(place);
        }
        heads.insert(handoff.id.as_bytes().into(), head);
    }
    let from = saved.map(Checkpoint::resume).unwrap_or_default();
    let (mut segment, mut read) = (from.segment, 0u64);
    let scanned = trail.for_each_line_from(segments, from, |line| {
        while segments
            .get(segment)
            .is_some_and(|s| s.path != line.segment)
        {
            segment += 1;
        }
        read += line.text.len() as u64 + 1;
        let parsed;
        let (id, event_type) = match line.terminated.then(|| id_and_type(line.text)).flatten() {
            Some(found) => found,
            None => {
                parsed = parse_line(line).map_err(Stop::Failed)?;
                (parsed.handoff_id.as_bytes(), parsed.event_type)
            }
        };
        let index = u32::try_from(places.len()).map_err(|_| too_many(line))?;
        let mut place = Place {
            segment: segment as u32,
            number: u32::try_from(line.number).map_err(|_| too_many(line))?,
            offset: line.offset,
            length: u32::try_from(line.text.len()).map_err(|_| too_many(line))?,
            previous: NONE,
        };
        match heads.get_mut(id) {
            Some(head) => {
                place.previous = head.last;
                head.follow(index, event_type);
            }
            None if saved.is_some_and(|saved| saved.knew(id)) => return Err(Stop::MovedOn),
            None => {
                let mut head = Head {
                    opened: false,
                    state: event_type,
                    last: NONE,
                };
                head.follow(index, event_type);
                heads.insert(id.into(), head);
            }
        }
        places.push(place);
        Ok(())
    })?;
    match scanned {
        Err(Stop::MovedOn) => return Ok(None),
        Err(Stop::Failed(error)) => return Err(error),
        Ok(()) => {}
    }
    let mut wanted: Vec<u32> = Vec::new();
    for head in heads.values().filter(|head| head.is_open()) {
        let mut at = head.last;
        while at != NONE {
            wanted.push(at);
            at = places[at as usize].previous;
        }
    }
    if read >= checkpoint::WORTH_KEEPING {
        keep(trail, segments, saved, &places, &heads);
    }
    drop(heads);
    wanted.sort_unstable();
    let mut ledger = Ledger::new();
    let wanted = wanted.iter().map(|&at| places[at as usize].saved());
    fold(segments, wanted, &mut ledger)?;
    Ok(Some(ledger))
}

/// Leaves a checkpoint at the last line read (when a newline ended it).
fn keep(
    trail: &Trail,
    segments: &[Segment],
    saved: Option<&Checkpoint>,
    places: &[Place],
    heads: &HashMap<Box<[u8]>, Head>,
) {
    let Some(last) = places
        .iter()
        .max_by_key(|place| (place.segment, place.offset))
    else {
        return;
    };
    let mut open = Vec::new();
    for (id, head) in heads.iter().filter(|(_, head)| head.is_open()) {
        let mut lines = Vec::new();
        let mut at = head.last;
        while at != NONE {
            lines.push(places[at as usize].saved());
            at = places[at as usize].previous;
        }
        lines.reverse();
        let id = String::from_utf8_lossy(id).into_owned();
        open.push(OpenHandoff {
            id,
            state: head.state,
            lines,
        });
    }
    let mut ids: Vec<u64> = saved.map(|saved| saved.ids().to_vec()).unwrap_or_default();
    ids.extend(heads.keys().map(|id| checkpoint::id_key(id)));
    ids.sort_unstable();
    ids.dedup();
    checkpoint::save(trail, segments, last.saved(), open, &ids);
}

/// Reads the lines at `places` (in trail order), parses them and folds them into
/// `ledger`.
pub(super) fn fold(
    segments: &[Segment],
    places: impl IntoIterator<Item = checkpoint::Place>,
    ledger: &mut Ledger,
) -> Result<(), TrailError> {
    let mut open: Option<(u64, File)> = None;
    let mut text = Vec::new();
    for [segment_index, number, offset, length] in places {
        let Some(segment) = usize::try_from(segment_index)
            .ok()
            .and_then(|index| segments.get(index))
        else {
            continue;
        };
        let path = &segment.path;
        if open
            .as_ref()
            .is_none_or(|(segment, _)| *segment != segment_index)
        {
            let file =
                File::open(path).map_err(|e| TrailError::io(path, "read the segment", &e))?;
            open = Some((segment_index, file));
        }
        let Some((_, file)) = open.as_mut() else {
            continue;
        };
        // A place from a checkpoint file is believed, but never for more than a line
        // may be (4 GiB), nor past the segment's end (`read_exact` fails).
        let too_long = || {
            TrailError::at(
                path,
                None,
                "a checkpoint names a line over 4 GiB; delete CHECKPOINT",
            )
        };
        text.resize(u32::try_from(length).map_err(|_| too_long())? as usize, 0);
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(&mut text))
            .map_err(|e| TrailError::io(path, "read the segment", &e))?;
        let line = Line {
            segment: path,
            number: usize::try_from(number).unwrap_or(usize::MAX),
            offset,
            text: &text,
            terminated: true,
            last: false,
        };
        ledger.apply(&parse_line(&line)?);
    }
    Ok(())
}

fn is_final(state: EventType) -> bool {
    matches!(
        state,
        EventType::Rejected | EventType::Completed | EventType::Failed | EventType::Escalated
    )
}

fn too_many(line: &Line<'_>) -> Stop {
    Stop::Failed(TrailError::at(
        line.segment,
        Some(line.number),
        "the trail is too large to list (over 4 billion lines or a line over 4 GiB)",
    ))
}

/// The event's `handoff_id` and `event_type`, read from a line's text when that is
/// certain: the top-level members are walked in order (a string skipped to its closing
/// quote, an object or array to its matching bracket) until both are found. `None`
/// when either value holds an escape, or the line is not an object this walk reads.
fn id_and_type(text: &[u8]) -> Option<(&[u8], EventType)> {
    if text.first() != Some(&b'{') {
        return None;
    }
    let (mut id, mut event_type) = (None, None);
    let mut at = 1;
    loop {
        let key_end = skip_string(text, at)?;
        if text.get(key_end) != Some(&b':') {
            return None;
        }
        let value_end = skip_value(text, key_end + 1)?;
        let value = &text[key_end + 1..value_end];
        match &text[at..key_end] {
            b"\"handoff_id\"" => id = Some(plain_string(value)?),
            b"\"event_type\"" => {
                let name = std::str::from_utf8(plain_string(value)?).ok()?;
                event_type = Some(EventType::from_name(name)?);
            }
            _ => {}
        }
        if let (Some(id), Some(event_type)) = (id, event_type) {
            return Some((id, event_type));
        }
        match text.get(value_end) {
            Some(b',') => at = value_end + 1,
            _ => return None,
        }
    }
}

/// The bytes of a JSON string value without escapes, between its quotes.
fn plain_string(value: &[u8]) -> Option<&[u8]> {
    let inner = value.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    (memchr::memchr(b'\\', inner).is_none()).then_some(inner)
}

/// Where the string starting at `at` ends (just after its closing quote).
fn skip_string(text: &[u8], at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'"') {
        return None;
    }
    let mut from = at + 1;
    loop {
        let found = from + memchr::memchr2(b'"', b'\\', text.get(from..)?)?;
        match text[found] {
            b'"' => return Some(found + 1),
            _ => from = found + 2,
        }
    }
}

/// Where the value starting at `at` ends.
fn skip_value(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at)? {
        b'"' => skip_string(text, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut from = at;
            loop {
                match text.get(from)? {
                    b'"' => {
                        from = skip_string(text, from)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(from + 1);
                        }
                    }
                    _ => {}
                }
                from += 1;
            }
        }
        _ => Some(at + memchr::memchr3(b',', b'}', b']', &text[at..])?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_and_type_are_read_only_when_certain() {
        let read = |text: &str| id_and_type(text.as_bytes()).map(|(id, t)| (id.to_vec(), t));
        let sealed = r#"{"attempt":1,"context_snapshot":{"task_id":"T-{1}","x":[1,{"a":"]"}]},"event_type":"accepted","from_agent":"a","handoff_id":"ho_1","message":{"event_type":"failed"}}"#;
        assert_eq!(read(sealed), Some((b"ho_1".to_vec(), EventType::Accepted)));
        // A nested key of the same name is skipped with its object.
        let nested = r#"{"a":{"handoff_id":"ho_9","event_type":"failed"},"event_type":"completed","handoff_id":"ho_1"}"#;
        assert_eq!(read(nested), Some((b"ho_1".to_vec(), EventType::Completed)));
        let escaped = r#"{"event_type":"accepted","handoff_id":"ho_\u0031"}"#;
        assert_eq!(read(escaped), None);
        let quoted =
            r#"{"reason":"say \"handoff_id\":\"x\"","event_type":"initiated","handoff_id":"h"}"#;
        assert_eq!(read(quoted), Some((b"h".to_vec(), EventType::Initiated)));
        assert_eq!(read(r#"{"event_type":"paused","handoff_id":"h"}"#), None);
        assert_eq!(read(r#"{"event_type":"accepted""#), None);
        assert_eq!(
            read(r#"{"seq":1,"event_type":"accepted","handoff_id":12}"#),
            None
        );
        assert_eq!(read("[]"), None);
    }
}
