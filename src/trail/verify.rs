//! `verify`: the whole trail re-checked, in one streaming pass.
//!
//! For every line of every segment: it is a whole line (a torn last line is a crash
//! mid-write), a JSON object, an audit event; its `hash` is the SHA-256 of its RFC 8785
//! form without `hash` (else it was edited); its `seq` follows the one before (else an
//! event was deleted, or events reordered or duplicated); its `prev` is the hash of
//! the event before (else the one before was replaced, hash and all); it is in the
//! segment of its `recorded_at` day; and it is a legal next step of its handoff, by
//! the same [`Ledger`] that guards appends (illegal transitions, a fourth attempt, an
//! escalation deeper than 3, a fourth re-route). At the end, `HEAD` must name the last
//! event (a shorter chain was truncated), and the chain must start at `ANCHOR`.
//!
//! Every break names the `seq`, the segment file and the line. Memory is the ledger
//! (one entry per handoff), not the events: the trail is streamed.

use super::blocks;
use super::canonical;
use super::chain::{self, GENESIS};
use super::error::TrailError;
use super::event::{Event, EventType, HandoffType};
use super::lifecycle::Ledger;
use super::store::{ChainPoint, Trail};
use crate::diagnostic::{shape, Diagnostic, TrailCode};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `verify` found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Verification {
    /// Events read.
    pub events: u64,
    /// Segments read.
    pub segments: usize,
    /// Handoffs seen.
    pub handoffs: usize,
    /// The last event of the chain.
    pub last: Option<ChainPoint>,
    /// `HEAD` as found.
    pub head: Option<ChainPoint>,
    /// `ANCHOR` as found.
    pub anchor: Option<ChainPoint>,
    /// Every break, in trail order (deletions last): a diagnostic with its code, `seq`,
    /// segment file and line.
    #[serde(serialize_with = "shape::trail_break")]
    pub breaks: Vec<Diagnostic>,
    /// Things worth knowing that are not breaks (a `HEAD` behind after a crash).
    pub notes: Vec<String>,
}

impl Verification {
    /// Whether the trail is intact.
    pub fn is_intact(&self) -> bool {
        self.breaks.is_empty()
    }
}

/// The state of the pass between lines.
struct Pass {
    report: Verification,
    ledger: Ledger,
    expected: u64,
    prev_hash: String,
    /// The `seq` of the last event read.
    last_seq: Option<u64>,
    /// Seqs skipped over, with where the gap was seen: deleted unless they turn up.
    missing: BTreeMap<u64, (PathBuf, usize)>,
    head_hash_seen: Option<String>,
    head_seq: Option<u64>,
    last_segment: Option<PathBuf>,
    last_line: usize,
    anchor_seq: Option<u64>,
    noted_leftover: bool,
}

/// One line as the pass checks it: the stored hash, the computed one, the event.
enum Checked<'a> {
    Event(&'a str, &'a str, &'a Event),
    Broken(TrailCode, String),
}

/// One line, hashed and parsed.
#[derive(Debug)]
pub enum Parsed {
    /// The stored hash, the computed one, and the event.
    Event(String, String, Box<Event>),
    /// Not an event: the break to report.
    Broken(TrailCode, String),
}

/// A break: `code` at `seq`, in `file` at `line`.
pub fn found(
    code: TrailCode,
    seq: Option<u64>,
    file: &Path,
    line: Option<usize>,
    message: String,
) -> Diagnostic {
    let found = Diagnostic::new(code, message).at_seq(seq);
    match line {
        Some(line) => found.at_line(file.display().to_string(), line),
        None => found.in_file(file.display().to_string()),
    }
}

/// The hash of a line by the definition alone (parse, canonicalise, SHA-256 without
/// `hash`), for tests and fuzzing against [`parse`]'s fast path.
pub fn definition_hash(text: &[u8]) -> Option<String> {
    let mut map = match serde_json::from_slice::<Value>(text) {
        Ok(Value::Object(map)) => map,
        _ => return None,
    };
    Some(chain::split_hash(&mut map).1)
}

/// Hashes and parses one line of a segment (without its newline; `terminated` says
/// whether one ended it): the fast path for a line already canonical, else the
/// definition (parse, canonicalise, hash).
pub fn parse(text: &[u8], terminated: bool) -> Parsed {
    read(text, terminated, Message::Keep)
}

/// Whether the event read keeps its stored message (`verify` has no use for it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Message {
    Keep,
    Skip,
}

fn read(text: &[u8], terminated: bool, message: Message) -> Parsed {
    if !terminated {
        let message = "the line is torn (no newline): a write was interrupted; `handoff trail repair` removes it";
        return Parsed::Broken(TrailCode::Torn, message.to_string());
    }
    if let Some(parsed) = read_canonical(text, message) {
        return parsed;
    }
    let mut map = match serde_json::from_slice::<Value>(text) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            let message = "is not a JSON object: every line of a segment is one audit event";
            return Parsed::Broken(TrailCode::Malformed, message.to_string());
        }
        Err(error) => {
            let message = format!("is not JSON ({error}): the line was damaged or edited");
            return Parsed::Broken(TrailCode::Malformed, message);
        }
    };
    let (stored, computed) = chain::split_hash(&mut map);
    let stored = match stored {
        Some(Value::String(hash)) => hash,
        _ => String::new(),
    };
    match serde_json::from_value(Value::Object(map)) {
        Ok(event) => Parsed::Event(stored, computed, Box::new(event)),
        Err(error) => Parsed::Broken(
            TrailCode::Malformed,
            format!("is not an audit event ({error})"),
        ),
    }
}

/// The fast path: a canonical line in UTF-8 is hashed as it stands, without its hash
/// member. The event is read from the scan's top-level members, without its message:
/// the scan has already checked that the message is JSON that the definition reads
/// (UTF-8, nesting bounded), so the answer is the definition's.
fn read_canonical(text: &[u8], keep: Message) -> Option<Parsed> {
    Canonical::of(text)?.read(text, keep)
}

/// What can be learnt of a canonical line by itself (on `verify`'s reading thread):
/// where its members lie and the hash of its content.
struct Canonical {
    members: canonical::Members,
    computed: [u8; 32],
}

impl Canonical {
    /// `None` when the line is not confirmed canonical (and so UTF-8): the definition
    /// decides.
    fn of(text: &[u8]) -> Option<Canonical> {
        let members = canonical::members(text)?;
        let (before, after) = canonical::without_hash(text, members.hash.clone());
        let computed = chain::sha256_parts(&[before, after]);
        Some(Canonical { members, computed })
    }

    /// The event of `text` (the line [`Canonical::of`] read), without its message
    /// unless `keep` says so.
    fn read(&self, text: &[u8], keep: Message) -> Option<Parsed> {
        let mut event = blank_event();
        fill(&mut event, text, &self.members.top)?;
        if let Some((_, value)) = self
            .members
            .message
            .as_ref()
            .filter(|_| keep == Message::Keep)
        {
            let stored = text.get(value.clone())?;
            // `null` is an absent message to serde, as on the slow path.
            if stored != b"null" {
                let stored = String::from_utf8(stored.to_vec()).ok()?;
                event.message = Some(RawValue::from_string(stored).ok()?);
            }
        }
        Some(Parsed::Event(
            self.stored(text)?.to_string(),
            chain::hex(&self.computed),
            Box::new(event),
        ))
    }

    /// The hash the line stores.
    fn stored<'t>(&self, text: &'t [u8]) -> Option<&'t str> {
        std::str::from_utf8(text.get(self.members.stored.clone())?).ok()
    }
}

/// An event with nothing in it, for [`fill`].
fn blank_event() -> Event {
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

/// Reads a canonical line's event, but for its message, from its top-level members
/// (`top`, as the canonical scan found them) into `event`, reusing its strings: what
/// the definition's `serde` read would give, without reading the line again. `None`
/// when a member is not what that read takes in its plainest form (it then decides).
fn fill(event: &mut Event, line: &[u8], top: &canonical::Top) -> Option<()> {
    const REQUIRED: [&[u8]; 10] = [
        b"attempt",
        b"event_type",
        b"from_agent",
        b"handoff_id",
        b"handoff_type",
        b"prev",
        b"recorded_at",
        b"seq",
        b"timestamp",
        b"to_agent",
    ];
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
        let key = &line[key];
        let value = &line[value];
        required += usize::from(REQUIRED.contains(&key));
        match key {
            b"attempt" => event.attempt = integer(value)?,
            b"broadcast_group_id" => event.broadcast_group_id = optional_text(value)?,
            b"context_snapshot" => event.context_snapshot = serde_json::from_slice(value).ok()?,
            b"decision_rationale" => event.decision_rationale = optional_text(value)?,
            b"depth" => event.depth = integer(value)?,
            b"duration_ms" => event.duration_ms = optional_integer(value)?,
            b"escalate_to" => event.escalate_to = optional_text(value)?,
            b"event_type" => event.event_type = serde_json::from_slice(value).ok()?,
            b"from_agent" => set_text(&mut event.from_agent, value)?,
            b"handoff_id" => set_text(&mut event.handoff_id, value)?,
            b"handoff_type" => event.handoff_type = serde_json::from_slice(value).ok()?,
            b"hash" => set_text(&mut event.hash, value)?,
            b"on_timeout" => event.on_timeout = serde_json::from_slice(value).ok()?,
            b"outcome" => event.outcome = serde_json::from_slice(value).ok()?,
            b"parent_handoff" => event.parent_handoff = optional_text(value)?,
            b"prev" => set_text(&mut event.prev, value)?,
            b"reason" => event.reason = optional_text(value)?,
            b"recorded_at" => set_text(&mut event.recorded_at, value)?,
            b"required_capabilities" => {
                event.required_capabilities = serde_json::from_slice(value).ok()?;
            }
            b"risk_level" => event.risk_level = serde_json::from_slice(value).ok()?,
            b"rollback_to" => event.rollback_to = optional_text(value)?,
            b"seq" => event.seq = integer(value)?,
            b"timeout" => event.timeout = optional_text(value)?,
            b"timeout_ms" => event.timeout_ms = optional_integer(value)?,
            b"timestamp" => set_text(&mut event.timestamp, value)?,
            b"to_agent" => set_text(&mut event.to_agent, value)?,
            b"tokens_consumed" => event.tokens_consumed = optional_integer(value)?,
            b"warnings" => event.warnings = serde_json::from_slice(value).ok()?,
            b"workflow_id" => event.workflow_id = optional_text(value)?,
            // The message is cut out; serde passes over keys it does not know.
            _ => {}
        }
    }
    (required == REQUIRED.len()).then_some(())
}

/// A JSON string's text: as it stands when it has no escape, else decoded.
fn text(value: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let inner = value.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    match memchr::memchr(b'\\', inner) {
        None => std::str::from_utf8(inner).ok().map(Into::into),
        Some(_) => serde_json::from_slice::<String>(value).ok().map(Into::into),
    }
}

fn set_text(field: &mut String, value: &[u8]) -> Option<()> {
    let text = text(value)?;
    field.clear();
    field.push_str(&text);
    Some(())
}

/// `null` is `None` to serde.
fn optional_text(value: &[u8]) -> Option<Option<String>> {
    match value {
        b"null" => Some(None),
        _ => Some(Some(text(value)?.into_owned())),
    }
}

/// An integer as the canonical scan let it through (shortest form, no sign for an
/// unsigned field, which serde would refuse).
fn integer<N: std::str::FromStr>(value: &[u8]) -> Option<N> {
    std::str::from_utf8(value).ok()?.parse().ok()
}

fn optional_integer(value: &[u8]) -> Option<Option<u64>> {
    match value {
        b"null" => Some(None),
        _ => Some(Some(integer(value)?)),
    }
}

/// Verifies the trail in `trail`.
pub fn verify(trail: &Trail) -> Result<Verification, TrailError> {
    trail.require()?;
    let head = trail.head();
    let anchor = trail.anchor();
    let mut pass = Pass {
        report: Verification::default(),
        ledger: Ledger::compact(),
        expected: 0,
        prev_hash: GENESIS.to_string(),
        last_seq: None,
        missing: BTreeMap::new(),
        head_hash_seen: None,
        head_seq: None,
        last_segment: None,
        last_line: 0,
        anchor_seq: None,
        noted_leftover: false,
    };
    let head = pass.point_or_break(head, trail, super::store::HEAD);
    let anchor = pass.point_or_break(anchor, trail, super::store::ANCHOR);
    if let Some(anchor) = &anchor {
        pass.expected = anchor.seq + 1;
        pass.anchor_seq = Some(anchor.seq);
        pass.prev_hash.clone_from(&anchor.hash);
    }
    pass.head_seq = head.as_ref().map(|h| h.seq);
    let segments = trail.segments()?;
    pass.report.segments = segments.len();
    // Two threads: the reading one checks and hashes each line by itself, this one
    // follows the chain and the lifecycle, which must go in order.
    let derive = |text: &[u8], terminated: bool| terminated.then(|| Canonical::of(text))?;
    let mut event = blank_event();
    let mut computed = String::new();
    let _ = blocks::each_block(&segments, derive, |block| {
        let segment = &segments[block.segment].path;
        for (n, (text, terminated, canonical)) in block.lines().enumerate() {
            let number = block.first_line + n;
            let fast = canonical.as_ref().and_then(|fast| {
                fill(&mut event, text, &fast.members.top)?;
                Some((fast.stored(text)?, &fast.computed))
            });
            if let Some((stored, digest)) = fast {
                computed.clear();
                chain::hex_into(digest, &mut computed);
                pass.line(segment, number, Checked::Event(stored, &computed, &event));
                continue;
            }
            match read(text, terminated, Message::Skip) {
                Parsed::Event(stored, computed, event) => {
                    pass.line(segment, number, Checked::Event(&stored, &computed, &event));
                }
                Parsed::Broken(kind, message) => {
                    pass.line(segment, number, Checked::Broken(kind, message));
                }
            }
        }
        Ok::<(), ()>(())
    })?;
    pass.finish(trail, head, anchor);
    Ok(pass.report)
}

impl Pass {
    fn point_or_break(
        &mut self,
        point: Result<Option<ChainPoint>, TrailError>,
        trail: &Trail,
        name: &str,
    ) -> Option<ChainPoint> {
        match point {
            Ok(point) => point,
            Err(error) => {
                let kind = match name {
                    super::store::ANCHOR => TrailCode::Anchor,
                    _ => TrailCode::Head,
                };
                self.push(
                    kind,
                    None,
                    &trail.dir().join(name),
                    error.line,
                    error.message,
                );
                None
            }
        }
    }

    fn push(
        &mut self,
        kind: TrailCode,
        seq: Option<u64>,
        file: &Path,
        line: Option<usize>,
        message: String,
    ) {
        self.report
            .breaks
            .push(found(kind, seq, file, line, message));
    }

    fn line(&mut self, segment: &Path, number: usize, checked: Checked<'_>) {
        if self.last_segment.as_deref() != Some(segment) {
            self.last_segment = Some(segment.to_path_buf());
        }
        self.last_line = number;
        let here = (segment, Some(number));
        let (stored, computed, event) = match checked {
            Checked::Event(stored, computed, event) => (stored, computed, event),
            Checked::Broken(kind, message) => {
                self.push(kind, None, here.0, here.1, message);
                return;
            }
        };
        if self.anchor_seq.is_some_and(|last| event.seq <= last) && self.last_seq.is_none() {
            if !self.noted_leftover {
                self.noted_leftover = true;
                self.report.notes.push(format!(
                    "{} holds events up to the anchor: a prune was interrupted; `handoff trail prune` finishes it",
                    segment.display()
                ));
            }
            return;
        }
        self.report.events += 1;
        let seq = Some(event.seq);
        self.check_order(event, here.0, here.1);
        if stored != computed {
            let message = format!(
                "seq {}: the event does not match its hash (content hashes to {computed}, the line says {}): it was edited after it was written",
                event.seq,
                if stored.is_empty() { "nothing" } else { stored }
            );
            self.push(TrailCode::Edited, seq, here.0, here.1, message);
        }
        let day_matches = segment
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(super::store::segment_day)
            .is_some_and(|day| event.recorded_at.starts_with(day));
        if !day_matches {
            let message = format!(
                "seq {} was recorded at {} but stands in another day's segment: it was moved",
                event.seq, event.recorded_at
            );
            self.push(TrailCode::WrongSegment, seq, here.0, here.1, message);
        }
        if let Err(violation) = self.ledger.check(event) {
            let message = format!("seq {}: {violation}", event.seq);
            self.push(violation.kind.code(), seq, here.0, here.1, message);
        }
        self.ledger.apply(event);
        if self.head_seq == Some(event.seq) {
            self.head_hash_seen = Some(stored.to_string());
        }
        self.prev_hash.clear();
        self.prev_hash.push_str(stored);
        self.last_seq = Some(event.seq);
    }

    fn check_order(&mut self, event: &Event, segment: &Path, line: Option<usize>) {
        let seq = Some(event.seq);
        if event.seq == self.expected {
            if event.prev != self.prev_hash {
                let message = format!(
                    "seq {}: `prev` is not the hash of the event before it: the event before was replaced or edited (hash and all), or this one was",
                    event.seq
                );
                self.push(TrailCode::ChainBroken, seq, segment, line, message);
            }
            self.expected += 1;
        } else if event.seq > self.expected {
            for missing in self.expected..event.seq.min(self.expected + 10_000) {
                self.missing
                    .insert(missing, (segment.to_path_buf(), line.unwrap_or(0)));
            }
            self.expected = event.seq + 1;
        } else if self.missing.remove(&event.seq).is_some() {
            let message = format!(
                "seq {} stands after seq {}: events were reordered",
                event.seq,
                self.expected - 1
            );
            self.push(TrailCode::Reordered, seq, segment, line, message);
        } else {
            let message = format!(
                "seq {} appears again after seq {}: an event was duplicated or moved",
                event.seq,
                self.expected - 1
            );
            self.push(TrailCode::Reordered, seq, segment, line, message);
        }
    }

    fn finish(&mut self, trail: &Trail, head: Option<ChainPoint>, anchor: Option<ChainPoint>) {
        self.report.last = self.last_seq.map(|seq| ChainPoint {
            seq,
            hash: self.prev_hash.clone(),
        });
        let missing = std::mem::take(&mut self.missing);
        let mut runs: Vec<(u64, u64, PathBuf, usize)> = Vec::new();
        for (seq, (file, line)) in missing {
            match runs.last_mut() {
                Some(run) if run.1 + 1 == seq && run.2 == file && run.3 == line => run.1 = seq,
                _ => runs.push((seq, seq, file, line)),
            }
        }
        for (first, last, file, line) in runs {
            let what = match first == last {
                true => format!("seq {first} is missing"),
                false => format!("seqs {first}..={last} are missing"),
            };
            let message = format!("{what} before this line: events were deleted");
            self.push(TrailCode::Deleted, Some(first), &file, Some(line), message);
        }
        self.report.handoffs = self.ledger.len();
        self.check_head(trail, head.as_ref());
        self.report.anchor = anchor;
        self.report.head = head;
    }

    fn check_head(&mut self, trail: &Trail, head: Option<&ChainPoint>) {
        let file = trail.dir().join(super::store::HEAD);
        let last = self.report.last.clone();
        let at_end = self.last_segment.clone().unwrap_or_else(|| file.clone());
        let end_line = Some(self.last_line).filter(|l| *l > 0);
        match (head, last) {
            (None, None) => {}
            (None, Some(_)) => {
                let message = "HEAD is missing although the trail holds events; `handoff trail repair` rewrites it from the chain".to_string();
                self.push(TrailCode::Head, None, &file, None, message);
            }
            (Some(head), None) => {
                let message = format!(
                    "HEAD records seq {} but the trail holds no events after the anchor: it was truncated",
                    head.seq
                );
                self.push(
                    TrailCode::Truncated,
                    Some(head.seq),
                    &at_end,
                    end_line,
                    message,
                );
            }
            (Some(head), Some(last)) if head.seq > last.seq => {
                let message = format!(
                    "seq {}..={} were removed from the end: the trail ends at seq {} but HEAD records seq {}",
                    last.seq + 1,
                    head.seq,
                    last.seq,
                    head.seq
                );
                self.push(
                    TrailCode::Truncated,
                    Some(last.seq + 1),
                    &at_end,
                    end_line,
                    message,
                );
            }
            (Some(head), Some(last)) => {
                if self.head_hash_seen.as_deref() != Some(head.hash.as_str()) {
                    let message = format!(
                        "HEAD records hash {} for seq {}, which is not the chain's: the event or HEAD was edited",
                        head.hash, head.seq
                    );
                    self.push(TrailCode::Head, Some(head.seq), &file, None, message);
                } else if head.seq < last.seq {
                    self.report.notes.push(format!(
                        "HEAD names seq {} but the chain runs on to seq {}: an append was interrupted after its write; the next append moves HEAD forward",
                        head.seq, last.seq
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealed(message: &str) -> Vec<u8> {
        let draft = format!(
            r#"{{"attempt":1,"event_type":"initiated","from_agent":"a","handoff_id":"h","handoff_type":"sequential","message":{message},"prev":"{GENESIS}","recorded_at":"2026-01-11T20:30:00.000Z","seq":0,"timestamp":"2026-01-11T20:30:00.000Z","to_agent":"b"}}"#
        );
        let mut event: Event = serde_json::from_str(&draft).expect("an event");
        super::super::store::seal(&mut event)
    }

    fn event_of(parsed: Parsed) -> (String, String, Event) {
        match parsed {
            Parsed::Event(stored, computed, event) => (stored, computed, *event),
            Parsed::Broken(kind, message) => panic!("{kind:?}: {message}"),
        }
    }

    #[test]
    fn the_fast_path_reads_the_event_the_definition_reads() {
        for message in [
            r#"{"a":[1,{"b":"\u001f\"é"}],"z":null}"#,
            "null",
            "[]",
            "\"m\"",
        ] {
            let line = sealed(message);
            assert!(canonical::members(&line).is_some(), "{message}: canonical");
            let (stored, computed, event) = event_of(parse(&line, true));
            assert_eq!(Some(&computed), definition_hash(&line).as_ref());
            assert_eq!(stored, computed);
            let definition: Event = serde_json::from_slice(&line).expect("an event");
            let as_value = |e: &Event| serde_json::to_value(e).expect("JSON");
            assert_eq!(as_value(&event), as_value(&definition), "{message}");
            let (_, skipped_hash, mut skipped) = event_of(read(&line, true, Message::Skip));
            assert_eq!(skipped_hash, computed);
            assert!(skipped.message.is_none());
            skipped.message = definition.message.clone();
            assert_eq!(as_value(&skipped), as_value(&definition));
        }
    }

    /// Members in forms `append` never writes: the fast read takes what serde takes,
    /// the same way, or declines to the definition, which reads it as serde does.
    #[test]
    fn the_fast_read_agrees_with_serde_on_members_append_never_writes() {
        let text = String::from_utf8(sealed("[]")).expect("UTF-8");
        let edits: [(&str, &str); 10] = [
            (r#""attempt":1,"#, r#""attempt":1,"depth":null,"#),
            (r#""attempt":1,"#, r#""attempt":1,"depth":4294967296,"#),
            (r#""attempt":1,"#, r#""attempt":-1,"#),
            (
                r#""attempt":1,"#,
                r#""attempt":1,"decision_rationale":null,"#,
            ),
            (
                r#""recorded_at""#,
                r#""reason":"a\"b\u001f\n","recorded_at""#,
            ),
            (
                r#""attempt":1,"#,
                r#""attempt":1,"context_snapshot":{"task_id":"T"},"#,
            ),
            (r#""to_agent":"b""#, r#""to_agent":"b","unknown":{"x":[1]}"#),
            (r#""event_type":"initiated","#, r#""event_type":"opened","#),
            (r#""from_agent":"a","#, r#""from_agent":7,"#),
            (r#""from_agent":"a","#, ""),
        ];
        for (from, to) in edits {
            assert!(text.contains(from), "{from}");
            let line = text.replacen(from, to, 1);
            let by_serde = serde_json::from_str::<Event>(&line).ok();
            // The definition's path takes `hash` out of the event it hashes.
            let as_value = |e: &Event| {
                let mut value = serde_json::to_value(e).expect("JSON");
                value.as_object_mut().map(|event| event.remove("hash"));
                value
            };
            // Canonical, so the fast read is asked first.
            assert!(canonical::members(line.as_bytes()).is_some(), "{to}");
            match parse(line.as_bytes(), true) {
                Parsed::Event(_, computed, event) => {
                    let by_serde = by_serde.unwrap_or_else(|| panic!("{to}: serde refuses"));
                    assert_eq!(as_value(&event), as_value(&by_serde), "{to}");
                    assert_eq!(Some(computed), definition_hash(line.as_bytes()), "{to}");
                }
                Parsed::Broken(..) => assert!(by_serde.is_none(), "{to}: serde reads it"),
            }
        }
    }

    #[test]
    fn a_null_message_is_no_message_on_both_paths() {
        let text = String::from_utf8(sealed("[]")).expect("UTF-8");
        let line = text.replace(r#""message":[]"#, r#""message":null"#);
        let (_, computed, event) = event_of(parse(line.as_bytes(), true));
        assert_eq!(Some(computed), definition_hash(line.as_bytes()));
        assert!(event.message.is_none());
    }

    #[test]
    fn a_message_nested_past_the_parsers_limit_is_malformed_not_a_crash() {
        let deep = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        let line = sealed(&deep(90));
        let (_, computed, _) = event_of(read(&line, true, Message::Skip));
        assert_eq!(Some(computed), definition_hash(&line));
        let text = String::from_utf8(line).expect("UTF-8");
        let edited = text.replace(&deep(90), &deep(100_000));
        match read(edited.as_bytes(), true, Message::Skip) {
            Parsed::Broken(kind, _) => assert_eq!(kind, TrailCode::Malformed),
            Parsed::Event(..) => panic!("read as an event"),
        }
    }
}
