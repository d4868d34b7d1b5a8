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

use super::checkpoint::{self, Checkpoint, Contents, Entry, Index, OpenHandoff, Place};
use super::event::{EventType, HandoffType};
use super::lifecycle::{id_key, Ledger};
use super::store::{parse_line, Segment, Trail};
use super::TrailError;
use std::collections::{HashMap, HashSet};

/// What the first step keeps of a handoff: what [`Ledger::apply`] would make of its
/// lines so far, and the three lines that rebuild its ledger entry.
struct Head {
    /// Whether an `initiated` was seen (other events before it are ignored, as
    /// [`Ledger::apply`] ignores them).
    opened: bool,
    state: EventType,
    reroutes: u32,
    /// Its first `initiated`, its latest `initiated`, its last line.
    lines: [Place; 3],
}

impl Head {
    fn new() -> Head {
        Head {
            opened: false,
            state: EventType::Initiated,
            reroutes: 0,
            lines: [[0; 4]; 3],
        }
    }

    /// As the checkpoint's index left it.
    fn from_entry(entry: &Entry) -> Head {
        Head {
            opened: true,
            state: entry.state,
            reroutes: entry.reroutes,
            lines: entry.lines,
        }
    }

    /// Takes the event of the line at `place` into account, as [`Ledger::apply`] does.
    fn follow(&mut self, place: Place, event_type: EventType) {
        self.lines[2] = place;
        if event_type == EventType::Initiated {
            if !self.opened {
                self.lines[0] = place;
            }
            self.lines[1] = place;
            self.opened = true;
        }
        if self.opened {
            self.state = event_type;
        }
    }

    fn is_open(&self) -> bool {
        self.opened && !is_final(self.state)
    }

    fn places(&self) -> Vec<Place> {
        let mut places = self.lines.to_vec();
        places.dedup();
        places
    }
}

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
    /// The checkpoint's index does not hold: read from the start.
    MovedOn,
    Failed(TrailError),
}

/// What the first step reads of a line.
struct Fields<'a> {
    id: &'a [u8],
    event_type: EventType,
    /// For an `initiated`: the parent it re-routes (not an escalation's).
    reroutes: Option<&'a [u8]>,
}

/// The handoffs seen, and what the checkpoint's index said of those it knew.
struct Heads<'i> {
    heads: HashMap<Box<[u8]>, Head>,
    index: Option<&'i mut Index>,
    /// Ids looked up in the index (found or not).
    looked_up: HashSet<Box<[u8]>>,
    /// The index entries that a head replaces, by their [`checkpoint::order`].
    replaced: HashSet<(u64, u64)>,
}

impl Heads<'_> {
    /// The head of `id`, from the index when the checkpoint knew it, else a new one.
    fn get(&mut self, segments: &[Segment], id: &[u8]) -> Result<&mut Head, Stop> {
        if !self.heads.contains_key(id) {
            let mut head = Head::new();
            if let Some(index) = self.index.as_deref_mut() {
                if self.looked_up.insert(id.into()) {
                    let text = std::str::from_utf8(id).map_err(|_| Stop::MovedOn)?;
                    if let Some((entry, _)) =
                        index.handoff(segments, text).map_err(|()| Stop::MovedOn)?
                    {
                        let first = checkpoint::first_line(entry.lines[0]);
                        self.replaced.insert((entry.key, first));
                        head = Head::from_entry(&entry);
                    }
                }
            }
            self.heads.insert(id.into(), head);
        }
        self.heads.get_mut(id).ok_or(Stop::MovedOn)
    }
}

/// The two steps, from `saved` on when given; `None` when the checkpoint's index does
/// not hold.
fn read_open(
    trail: &Trail,
    segments: &[Segment],
    saved: Option<&Checkpoint>,
) -> Result<Option<Ledger>, TrailError> {
    let mut index = match saved {
        Some(saved) => match saved.index() {
            Some(index) => Some(index),
            None => return Ok(None),
        },
        None => None,
    };
    let open_there = match index.as_mut() {
        Some(index) => match index.open() {
            Some(open) => open,
            None => return Ok(None),
        },
        None => Vec::new(),
    };
    let mut heads = Heads {
        heads: HashMap::new(),
        index: index.as_mut(),
        looked_up: HashSet::new(),
        replaced: HashSet::new(),
    };
    for handoff in open_there {
        let key = id_key(handoff.id.as_bytes());
        let first = checkpoint::first_line(handoff.lines[0]);
        heads.replaced.insert((key, first));
        heads.looked_up.insert(handoff.id.as_bytes().into());
        let head = Head {
            opened: true,
            state: handoff.state,
            reroutes: handoff.reroutes,
            lines: handoff.lines,
        };
        heads.heads.insert(handoff.id.into_bytes().into(), head);
    }
    let from = saved.map(Checkpoint::resume).unwrap_or_default();
    let (mut segment, mut read) = (from.segment, 0u64);
    let mut last = None;
    let scanned = trail.for_each_line_from(segments, from, |line| {
        while segments
            .get(segment)
            .is_some_and(|s| s.path != line.segment)
        {
            segment += 1;
        }
        read += line.text.len() as u64 + 1;
        let parsed;
        let fields = match line.terminated.then(|| fields(line.text)).flatten() {
            Some(found) => found,
            None => {
                parsed = parse_line(line).map_err(Stop::Failed)?;
                let reroutes = (parsed.handoff_type != HandoffType::Escalation)
                    .then_some(parsed.parent_handoff.as_deref())
                    .flatten();
                Fields {
                    id: parsed.handoff_id.as_bytes(),
                    event_type: parsed.event_type,
                    reroutes: reroutes.map(str::as_bytes),
                }
            }
        };
        let place = [
            segment as u64,
            line.number as u64,
            line.offset,
            line.text.len() as u64,
        ];
        last = Some(place);
        let head = heads.get(segments, fields.id)?;
        let opens = fields.event_type == EventType::Initiated && !head.opened;
        head.follow(place, fields.event_type);
        // A new handoff whose parent was rejected is one of its re-routes.
        if let Some(parent) = fields.reroutes.filter(|_| opens) {
            if fields.id != parent {
                let parent = heads.get(segments, parent)?;
                if parent.opened && parent.state == EventType::Rejected {
                    parent.reroutes += 1;
                }
            }
        }
        Ok(())
    })?;
    match scanned {
        Err(Stop::MovedOn) => return Ok(None),
        Err(Stop::Failed(error)) => return Err(error),
        Ok(()) => {}
    }
    let mut wanted: Vec<Place> = Vec::new();
    for head in heads.heads.values().filter(|head| head.is_open()) {
        wanted.extend(head.places());
    }
    wanted.sort_unstable_by_key(|&[segment, _, offset, _]| (segment, offset));
    wanted.dedup();
    let mut ledger = Ledger::new();
    checkpoint::fold(segments, wanted, &mut ledger)?;
    if let Some(last) = last.filter(|_| read >= checkpoint::WORTH_KEEPING) {
        let Heads {
            heads, replaced, ..
        } = heads;
        keep(
            trail,
            segments,
            index.as_mut(),
            last,
            &ledger,
            heads,
            &replaced,
        );
    }
    Ok(Some(ledger))
}

/// Leaves a checkpoint at the last line read: the index's entries that no head
/// replaces, and an entry per head.
fn keep(
    trail: &Trail,
    segments: &[Segment],
    index: Option<&mut Index>,
    last: Place,
    ledger: &Ledger,
    heads: HashMap<Box<[u8]>, Head>,
    replaced: &HashSet<(u64, u64)>,
) {
    let mut entries = match index {
        Some(index) => match index.all() {
            Some(entries) => entries,
            None => return,
        },
        None => Vec::new(),
    };
    entries.retain(|raw| !replaced.contains(&checkpoint::order(raw)));
    let mut open = Vec::new();
    for (id, head) in heads.into_iter().filter(|(_, head)| head.opened) {
        let entry = Entry {
            key: id_key(&id),
            state: head.state,
            reroutes: head.reroutes,
            lines: head.lines,
        };
        // A place that does not fit the index: no checkpoint.
        let Some(raw) = entry.encode() else {
            return;
        };
        entries.push(raw);
        if head.is_open() {
            open.push(OpenHandoff {
                id: String::from_utf8_lossy(&id).into_owned(),
                state: head.state,
                reroutes: head.reroutes,
                lines: head.lines,
            });
        }
    }
    entries.sort_unstable_by_key(checkpoint::order);
    open.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    let mut receivers: HashMap<&str, u64> = HashMap::new();
    for handoff in ledger.handoffs().filter(|handoff| !handoff.is_closed()) {
        *receivers.entry(handoff.to_agent.as_str()).or_default() += 1;
    }
    let mut receivers: Vec<(String, u64)> = receivers
        .into_iter()
        .map(|(agent, count)| (agent.to_string(), count))
        .collect();
    receivers.sort_unstable();
    let contents = Contents {
        entries,
        open,
        receivers,
    };
    checkpoint::save(trail, segments, last, &contents);
}

fn is_final(state: EventType) -> bool {
    matches!(
        state,
        EventType::Rejected | EventType::Completed | EventType::Failed | EventType::Escalated
    )
}

/// The event's `handoff_id` and `event_type` (and for an `initiated`, the parent it
/// re-routes), read from a line's text when that is certain: the top-level members
/// are walked in order (a string skipped to its closing quote, an object or array to
/// its matching bracket). `None` when a value read holds an escape, or the line is
/// not an object this walk reads.
fn fields(text: &[u8]) -> Option<Fields<'_>> {
    if text.first() != Some(&b'{') {
        return None;
    }
    let (mut id, mut event_type, mut handoff_type, mut parent) = (None, None, None, None);
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
            b"\"handoff_type\"" => handoff_type = Some(plain_string(value)?),
            b"\"parent_handoff\"" if value != b"null" => parent = Some(plain_string(value)?),
            _ => {}
        }
        let end = match text.get(value_end) {
            Some(b',') => false,
            Some(b'}') if value_end + 1 == text.len() => true,
            _ => return None,
        };
        match (id, event_type) {
            (Some(id), Some(event_type)) if event_type != EventType::Initiated => {
                return Some(Fields {
                    id,
                    event_type,
                    reroutes: None,
                })
            }
            (Some(id), Some(event_type)) if end => {
                let escalation = handoff_type? == b"escalation";
                return Some(Fields {
                    id,
                    event_type,
                    reroutes: parent.filter(|_| !escalation),
                });
            }
            _ if end => return None,
            _ => at = value_end + 1,
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
        let read = |text: &str| fields(text.as_bytes()).map(|f| (f.id.to_vec(), f.event_type));
        let sealed = r#"{"attempt":1,"context_snapshot":{"task_id":"T-{1}","x":[1,{"a":"]"}]},"event_type":"accepted","from_agent":"a","handoff_id":"ho_1","message":{"event_type":"failed"}}"#;
        assert_eq!(read(sealed), Some((b"ho_1".to_vec(), EventType::Accepted)));
        // A nested key of the same name is skipped with its object.
        let nested = r#"{"a":{"handoff_id":"ho_9","event_type":"failed"},"event_type":"completed","handoff_id":"ho_1"}"#;
        assert_eq!(read(nested), Some((b"ho_1".to_vec(), EventType::Completed)));
        let escaped = r#"{"event_type":"accepted","handoff_id":"ho_\u0031"}"#;
        assert_eq!(read(escaped), None);
        let quoted = r#"{"reason":"say \"handoff_id\":\"x\"","event_type":"initiated","handoff_id":"h","handoff_type":"sequential"}"#;
        assert_eq!(read(quoted), Some((b"h".to_vec(), EventType::Initiated)));
        // An `initiated` is read to its end for the parent it re-routes; a nested
        // `parent_handoff` is not it, nor an escalation's parent.
        let parent = |text: &str| fields(text.as_bytes()).map(|f| f.reroutes.map(<[u8]>::to_vec));
        let reroute = r#"{"event_type":"initiated","handoff_id":"h2","handoff_type":"delegation","message":{"parent_handoff":"x"},"parent_handoff":"h1","seq":3}"#;
        assert_eq!(parent(reroute), Some(Some(b"h1".to_vec())));
        let nested = r#"{"event_type":"initiated","handoff_id":"h2","handoff_type":"delegation","message":{"parent_handoff":"x"},"seq":3}"#;
        assert_eq!(parent(nested), Some(None));
        let escalation = reroute.replace("delegation", "escalation");
        assert_eq!(parent(&escalation), Some(None));
        let no_type = r#"{"event_type":"initiated","handoff_id":"h2","parent_handoff":"h1"}"#;
        assert_eq!(parent(no_type), None);
        let trailing =
            r#"{"event_type":"initiated","handoff_id":"h","handoff_type":"sequential"}x"#;
        assert_eq!(parent(trailing), None);
        assert_eq!(read(r#"{"event_type":"paused","handoff_id":"h"}"#), None);
        assert_eq!(read(r#"{"event_type":"accepted""#), None);
        assert_eq!(
            read(r#"{"seq":1,"event_type":"accepted","handoff_id":12}"#),
            None
        );
        assert_eq!(read("[]"), None);
    }
}
