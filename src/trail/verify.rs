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
//! Every break names the `seq`, the segment file and the line. Memory is bounded: the
//! trail is streamed, and the ledger keeps the open handoffs, the latest ended ones and
//! a filter of fixed size of the others ([`Ledger::compact`]). An event the ledger
//! cannot judge (its handoff, or a new handoff's parent, may have ended beyond that
//! window: an id used again, a late re-route, or the filter's rare false alarm) is
//! judged after the pass by a second read of the lines of just those handoffs (and of
//! their children, for re-routes), and its break, if any, put in its place.

use super::chain::{self, GENESIS};
use super::error::TrailError;
use super::event::{Event, EventType};
use super::fast::{self, Canonical, Keep};
use super::lifecycle::{Ledger, Verdict};
use super::store::blocks;
use super::store::{ChainPoint, Resume, Segment, Trail};
use crate::diagnostic::{shape, Diagnostic, TrailCode};
use serde::Serialize;
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
    /// The day `last_segment`'s name gives.
    day: Option<String>,
    last_line: usize,
    anchor_seq: Option<u64>,
    noted_leftover: bool,
    /// Events the ledger could not judge, in trail order.
    unsure: Vec<Unsure>,
}

/// An event [`Ledger::judge`] could not judge in the pass.
struct Unsure {
    segment: PathBuf,
    line: usize,
    /// Where its break goes among the breaks.
    at: usize,
    handoff_id: String,
    parent: Option<String>,
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
    read(text, terminated, Keep::EventAndMessage)
}

fn read(text: &[u8], terminated: bool, keep: Keep) -> Parsed {
    if !terminated {
        let message = "the line is torn (no newline): a write was interrupted; `handoff trail repair` removes it";
        return Parsed::Broken(TrailCode::Torn, message.to_string());
    }
    // The fast path: a canonical line in UTF-8 is hashed as it stands, and its event
    // read from the scan's members.
    if let Some(fast) = Canonical::of(text) {
        if let Some(event) = fast.event(text, keep) {
            if let Some(stored) = fast.stored(text) {
                let computed = chain::hex(&fast.computed);
                return Parsed::Event(stored.to_string(), computed, Box::new(event));
            }
        }
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
        day: None,
        last_line: 0,
        anchor_seq: None,
        noted_leftover: false,
        unsure: Vec::new(),
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
    let mut event = fast::blank_event();
    let mut computed = String::new();
    let _ = blocks::each_block(&segments, derive, |block| {
        let segment = &segments[block.segment].path;
        for (n, (text, terminated, canonical)) in block.lines().enumerate() {
            let number = block.first_line + n;
            let fast = canonical.as_ref().and_then(|fast| {
                fast.fill(&mut event, text, Keep::Lifecycle)?;
                Some((fast.stored(text)?, &fast.computed))
            });
            if let Some((stored, digest)) = fast {
                computed.clear();
                chain::hex_into(digest, &mut computed);
                pass.line(segment, number, Checked::Event(stored, &computed, &event));
                continue;
            }
            match read(text, terminated, Keep::Event) {
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
    pass.judge_unsure(trail, &segments)?;
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
        // The same segment as the line before, told apart without parsing the path.
        if self.last_segment.as_deref().map(Path::as_os_str) != Some(segment.as_os_str()) {
            self.last_segment = Some(segment.to_path_buf());
            self.day = segment
                .file_name()
                .and_then(|name| name.to_str())
                .and_then(super::store::segment_day)
                .map(str::to_string);
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
        let day_matches =
            (self.day.as_deref()).is_some_and(|day| event.recorded_at.starts_with(day));
        if !day_matches {
            let message = format!(
                "seq {} was recorded at {} but stands in another day's segment: it was moved",
                event.seq, event.recorded_at
            );
            self.push(TrailCode::WrongSegment, seq, here.0, here.1, message);
        }
        match self.ledger.judge(event) {
            Verdict::Legal => {}
            Verdict::Illegal(violation) => {
                let message = format!("seq {}: {violation}", event.seq);
                self.push(violation.kind.code(), seq, here.0, here.1, message);
            }
            Verdict::Unsure => self.unsure.push(Unsure {
                segment: segment.to_path_buf(),
                line: number,
                at: self.report.breaks.len(),
                handoff_id: event.handoff_id.clone(),
                parent: event.parent_handoff.clone(),
            }),
        }
        self.ledger.apply(event);
        if self.head_seq == Some(event.seq) {
            self.head_hash_seen = Some(stored.to_string());
        }
        self.prev_hash.clear();
        self.prev_hash.push_str(stored);
        self.last_seq = Some(event.seq);
    }

    /// Judges the events the pass could not: the lines of their handoffs (and their
    /// parents, and those handoffs' children) read again in trail order into an exact
    /// compact ledger, each event checked where it stands, its break put where the
    /// pass would have put it.
    fn judge_unsure(&mut self, trail: &Trail, segments: &[Segment]) -> Result<(), TrailError> {
        if self.unsure.is_empty() {
            return Ok(());
        }
        let unsure = std::mem::take(&mut self.unsure);
        let mut ids: Vec<&str> = Vec::new();
        for event in &unsure {
            ids.push(&event.handoff_id);
            ids.extend(event.parent.as_deref());
        }
        ids.sort_unstable();
        ids.dedup();
        // Only lines that name one of them (as the event's or its parent's id) are
        // parsed; one multi-pattern search per line finds them.
        let patterns = ids.iter().flat_map(|id| {
            let quoted = serde_json::to_string(id).unwrap_or_default();
            ["handoff_id", "parent_handoff"].map(|key| format!("\"{key}\":{quoted}"))
        });
        let finder = aho_corasick::AhoCorasick::new(patterns).ok();
        let mut ledger = Ledger::compact_exact();
        let mut next = unsure.iter().peekable();
        let mut judged_breaks: Vec<(usize, Diagnostic)> = Vec::new();
        let mut started = false;
        let _ = trail.for_each_line_from(segments, Resume::default(), |line| {
            let named = finder.as_ref().is_none_or(|f| f.is_match(line.text));
            let here = next
                .peek()
                .is_some_and(|u| u.line == line.number && u.segment == line.segment);
            if !named && !here {
                return Ok::<(), ()>(());
            }
            let Parsed::Event(_, _, event) = read(line.text, line.terminated, Keep::Event) else {
                return Ok(());
            };
            // As the pass: a prune's leftovers before the first event are not read.
            if !started && self.anchor_seq.is_some_and(|last| event.seq <= last) {
                return Ok(());
            }
            started = true;
            if let Some(judged) = next.next_if(|_| here) {
                if event.event_type == EventType::Initiated && ledger.has_ended(&event.handoff_id) {
                    self.ledger.unsee();
                }
                if let Err(violation) = ledger.check(&event) {
                    let message = format!("seq {}: {violation}", event.seq);
                    let code = violation.kind.code();
                    let at = found(
                        code,
                        Some(event.seq),
                        line.segment,
                        Some(line.number),
                        message,
                    );
                    judged_breaks.push((judged.at, at));
                }
            }
            ledger.apply(&event);
            Ok(())
        })?;
        for (at, diagnostic) in judged_breaks.into_iter().rev() {
            self.report.breaks.insert(at, diagnostic);
        }
        self.report.handoffs = self.ledger.len();
        Ok(())
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
    use crate::trail::canonical;

    fn sealed(message: &str) -> Vec<u8> {
        let draft = format!(
            r#"{{"attempt":1,"event_type":"initiated","from_agent":"a","handoff_id":"h","handoff_type":"sequential","message":{message},"prev":"{GENESIS}","recorded_at":"2026-01-11T20:30:00.000Z","seq":0,"timestamp":"2026-01-11T20:30:00.000Z","to_agent":"b"}}"#
        );
        let mut event: Event = serde_json::from_str(&draft).expect("an event");
        super::super::append::seal(&mut event)
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
            let (_, skipped_hash, mut skipped) = event_of(read(&line, true, Keep::Event));
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
        let edits = [
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
            (
                r#""attempt":1,"#,
                r#""attempt":1,"context_snapshot":{"task_id":7},"#,
            ),
            (r#""recorded_at""#, r#""reason":5,"recorded_at""#),
            (r#""to_agent":"b""#, r#""to_agent":"b","workflow_id":["w"]"#),
            (r#""prev""#, r#""outcome":"won","prev""#),
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
            // What `verify` reads: never an event that serde refuses.
            let lean = Canonical::of(line.as_bytes())
                .and_then(|fast| fast.event(line.as_bytes(), Keep::Lifecycle));
            assert!(
                lean.is_none() || by_serde.is_some(),
                "{to}: read, serde refuses"
            );
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
        let (_, computed, _) = event_of(read(&line, true, Keep::Event));
        assert_eq!(Some(computed), definition_hash(&line));
        let text = String::from_utf8(line).expect("UTF-8");
        let edited = text.replace(&deep(90), &deep(100_000));
        match read(edited.as_bytes(), true, Keep::Event) {
            Parsed::Broken(kind, _) => assert_eq!(kind, TrailCode::Malformed),
            Parsed::Event(..) => panic!("read as an event"),
        }
    }
}
