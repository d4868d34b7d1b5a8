//! Appending to the trail: under `LOCK`, the state the append needs is read (the
//! [`Ledger`] of the handoffs it touches, the tail checked against `HEAD` and
//! `ANCHOR`), the events are checked against the lifecycle and sealed into the chain as
//! they are pushed into a [`Batch`], then written, synced, and `HEAD` replaced
//! (write-ahead: on disk before [`Trail::transact`] returns). An append that fails
//! writes nothing; a failed first append takes the directory it created away again.

use super::chain::{self, GENESIS};
use super::checkpoint::{self, Checkpoint, Index};
use super::error::TrailError;
use super::event::Event;
use super::lifecycle::Ledger;
use super::store::{parse_line, sync_dir, ChainPoint, Resume, Segment, Trail, HEAD, LOCK};
use super::time;
use jiff::Timestamp;
use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

impl Trail {
    /// Creates the directory when it is missing; the directories created, outermost
    /// first, so that a failed first append can take them away again.
    fn create(&self) -> Result<Vec<PathBuf>, TrailError> {
        if self.dir.exists() {
            return self.require().map(|()| Vec::new());
        }
        let mut created: Vec<PathBuf> = self
            .dir
            .ancestors()
            .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
            .map(Path::to_path_buf)
            .collect();
        created.reverse();
        fs::create_dir_all(&self.dir)
            .map_err(|e| TrailError::io(&self.dir, "create the trail directory", &e))?;
        Ok(created)
    }

    /// After a failed append that created the trail directory, under its lock: takes
    /// the directories away again when nothing but `LOCK` is in them (a writer that
    /// came in between has written something, or holds a `LOCK` that [`Trail::lock`]
    /// sees unlinked and opens again).
    fn remove_created(&self, created: &[PathBuf]) {
        let only_lock = fs::read_dir(&self.dir).is_ok_and(|entries| {
            entries
                .map(|entry| entry.map(|entry| entry.file_name() == LOCK))
                .all(|is_lock| is_lock.unwrap_or(false))
        });
        if !only_lock || !cfg!(unix) || fs::remove_file(self.dir.join(LOCK)).is_err() {
            return;
        }
        // Deepest first; a directory something else went into stays.
        for dir in created.iter().rev() {
            if fs::remove_dir(dir).is_err() {
                break;
            }
        }
    }

    /// Appends what `build` decides, under the lock: the trail is read once (the
    /// [`Ledger`] of every handoff, the tail checked against `HEAD`), `build` pushes
    /// events into a [`Batch`] that checks each against the lifecycle, then the events
    /// are chained, written, synced, and `HEAD` replaced. Nothing is written when
    /// `build` or a check fails.
    pub fn transact<T>(
        &self,
        now: Timestamp,
        build: impl FnOnce(&mut Batch) -> Result<T, TrailError>,
    ) -> Result<(T, Vec<Event>), TrailError> {
        self.transact_in(&Scope::All, now, build)
    }

    /// [`Trail::transact`] reading only the handoffs `scope` names into the ledger
    /// (every line is still checked for its place in the chain): a single step on a
    /// large trail parses a handful of lines instead of all of them.
    pub fn transact_in<T>(
        &self,
        scope: &Scope,
        now: Timestamp,
        build: impl FnOnce(&mut Batch) -> Result<T, TrailError>,
    ) -> Result<(T, Vec<Event>), TrailError> {
        let (lock, created) = self.lock(true)?;
        let appended = self.append_locked(scope, now, build);
        if appended.is_err() && !created.is_empty() {
            self.remove_created(&created);
        }
        drop(lock);
        let (value, events, read) = appended?;
        // A single append that had to read much of the trail leaves a checkpoint (as
        // `list` does, once the lock is free), so the next one reads a few lines.
        if matches!(scope, Scope::Only { .. }) && read >= checkpoint::WORTH_KEEPING {
            let _ = super::open::open_ledger(self);
        }
        Ok((value, events))
    }

    fn append_locked<T>(
        &self,
        scope: &Scope,
        now: Timestamp,
        build: impl FnOnce(&mut Batch) -> Result<T, TrailError>,
    ) -> Result<(T, Vec<Event>, u64), TrailError> {
        let state = self.read_state(scope)?;
        // Appends go to the segment of the append day, never to one before the last:
        // a clock that steps back must not put the chain out of file order.
        let clock = self.clock.unwrap_or_else(time::now);
        let recorded = state.last_recorded.map_or(clock, |last| last.max(clock));
        let mut batch = Batch::new(state.ledger, now, state.tail, recorded);
        let value = build(&mut batch)?;
        self.write(&batch, recorded)?;
        Ok((value, batch.events, state.read))
    }

    /// The ledger of every handoff, read without the lock (for reports and `open`
    /// validation before appending).
    pub fn ledger(&self) -> Result<Ledger, TrailError> {
        Ok(self.read_state(&Scope::All)?.ledger)
    }

    /// Runs `work` holding the trail's lock (for `repair` and `prune`).
    pub(crate) fn with_lock<T>(
        &self,
        work: impl FnOnce() -> Result<T, TrailError>,
    ) -> Result<T, TrailError> {
        self.require()?;
        let _lock = self.lock(false)?;
        work()
    }

    /// Runs `work` holding the trail's lock when it is free at once; `None` when it is
    /// not (for derived data a reader may write, [`super::checkpoint`]).
    pub(crate) fn try_with_lock<T>(&self, work: impl FnOnce() -> Option<T>) -> Option<T> {
        let path = self.dir.join(LOCK);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .ok()?;
        fs4::FileExt::try_lock(&file).ok()?;
        still_linked(&file, &path).then(work)?
    }

    /// Takes the trail's lock (creating the directory first when `create` says so),
    /// with the directories created. A `LOCK` that a failed first append unlinked
    /// while this one waited for it locks nothing: it is opened again.
    fn lock(&self, create: bool) -> Result<(File, Vec<PathBuf>), TrailError> {
        let path = self.dir.join(LOCK);
        let mut created = Vec::new();
        loop {
            if create {
                created.extend(self.create()?);
            }
            let opened = OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .open(&path);
            let file = match opened {
                Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => continue,
                opened => opened.map_err(|e| TrailError::io(&path, "open the lock file", &e))?,
            };
            fs4::FileExt::lock(&file).map_err(|e| TrailError::io(&path, "lock the trail", &e))?;
            if still_linked(&file, &path) {
                return Ok((file, created));
            }
        }
    }

    /// Reads the ledger of the handoffs in `scope` and the chain's tail, checked
    /// against `HEAD` and `ANCHOR`: from the checkpoint on when one holds (the scope's
    /// handoffs as its index recorded them, then the lines after it), else from the
    /// start.
    fn read_state(&self, scope: &Scope) -> Result<State, TrailError> {
        let head = self.head()?;
        let anchor = self.anchor()?;
        if !self.dir.exists() {
            return Ok(State::new(anchor.as_ref(), head.as_ref()));
        }
        let segments = self.segments()?;
        let saved = match scope {
            Scope::Only { .. } => checkpoint::load(self, &segments),
            Scope::All => None,
        };
        let points = (head.as_ref(), anchor.as_ref());
        if let Some(saved) = saved {
            if let Some(state) = self.read_lines(scope, &segments, points, Some(&saved))? {
                return Ok(state);
            }
        }
        self.read_lines(scope, &segments, points, None)?
            .ok_or_else(|| TrailError::plain("the trail could not be read from its start"))
    }

    /// [`Trail::read_state`] from `saved` on, or from the start; `None` when the
    /// checkpoint does not hold.
    fn read_lines(
        &self,
        scope: &Scope,
        segments: &[Segment],
        (head, anchor): (Option<&ChainPoint>, Option<&ChainPoint>),
        saved: Option<&Checkpoint>,
    ) -> Result<Option<State>, TrailError> {
        let mut state = State::new(anchor, head);
        let (from, mut index) = match saved {
            Some(saved) => match state.start_at(segments, saved, scope, head)? {
                Some((from, index)) => (from, Some(index)),
                None => return Ok(None),
            },
            None => (Resume::default(), None),
        };
        // Handoffs the lines after the checkpoint touch are taken from its index once.
        let mut looked_up: HashSet<String> = match scope {
            Scope::Only { handoffs, .. } => handoffs.iter().cloned().collect(),
            Scope::All => HashSet::new(),
        };
        let mut index_failed = false;
        let pruned_up_to = anchor.map(|a| a.seq);
        let seq_key = memchr::memmem::FinderRev::new(b"\"seq\":");
        let finders = scope.finders();
        let read = self.for_each_line_from(segments, from, |line| {
            let broken = |what: String| TrailError::at(line.segment, Some(line.number), what);
            state.read += line.text.len() as u64 + 1;
            if !line.terminated {
                return Err(broken("the last line is torn (no newline: a write was interrupted); `handoff trail repair` removes it".into()));
            }
            let Some(seq) = line_seq(&seq_key, line.text) else {
                return Err(broken("is not an audit event (no `seq`); run `handoff trail verify`".into()));
            };
            // Left behind by a prune interrupted between ANCHOR and the deletions.
            if pruned_up_to.is_some_and(|last| seq <= last) {
                return Ok(());
            }
            if seq != state.expected {
                return Err(broken(format!(
                    "the chain is broken here (seq {seq} where {} was due); run `handoff trail verify`",
                    state.expected
                )));
            }
            state.expected += 1;
            let matched =
                finders.as_ref().is_none_or(|f| f.iter().any(|f| f.find(line.text).is_some()));
            if !(matched || line.last || head.is_some_and(|h| h.seq == seq)) {
                return Ok(());
            }
            let event = parse_line(line)?;
            if head.is_some_and(|h| h.seq == event.seq && h.hash == event.hash) {
                state.head_matched = true;
            }
            let id = &event.handoff_id;
            if let Some(index) = index.as_mut().filter(|_| matched) {
                if !state.ledger.contains(id) && looked_up.insert(id.clone()) {
                    match index.handoff(segments, id) {
                        Ok(Some((_, handoff))) => state.ledger.insert(handoff),
                        Ok(None) => {}
                        Err(()) => {
                            index_failed = true;
                            return Err(broken("the checkpoint's index does not hold".into()));
                        }
                    }
                }
            }
            state.ledger.apply(&event);
            if line.last {
                state.last_recorded = time::parse_utc(&event.recorded_at).ok();
                state.tail = Some(ChainPoint {
                    seq: event.seq,
                    hash: event.hash,
                });
            }
            Ok(())
        })?;
        if index_failed {
            return Ok(None);
        }
        read?;
        check_head(&self.dir, head, state.tail.as_ref(), state.head_matched)?;
        Ok(Some(state))
    }

    /// Writes the batch's sealed lines to the segment of `recorded`'s day, syncs it,
    /// and replaces `HEAD`.
    fn write(&self, batch: &Batch, recorded: Timestamp) -> Result<(), TrailError> {
        let Some(last) = batch.last.as_ref().filter(|_| !batch.text.is_empty()) else {
            return Ok(());
        };
        let path = self.dir.join(format!("{}.jsonl", time::day(recorded)));
        let is_new = !path.exists();
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| TrailError::io(&path, "open the segment", &e))?;
        let before = file
            .metadata()
            .map_err(|e| TrailError::io(&path, "open the segment", &e))?;
        if let Err(error) = file.write_all(&batch.text).and_then(|()| file.sync_data()) {
            // A part written (a full disk) would be a torn line the next append trips
            // on: the segment is cut back to what it held, which is never less.
            let _ = file.set_len(before.len()).and_then(|()| file.sync_data());
            if is_new && before.len() == 0 {
                let _ = fs::remove_file(&path);
            }
            return Err(TrailError::io(&path, "write the segment", &error));
        }
        if let Ok(after) = file.metadata() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            checkpoint::after_append(&self.dir, &name.unwrap_or_default(), &before, &after);
        }
        if is_new {
            sync_dir(&self.dir)?;
        }
        self.write_point(HEAD, last)
    }
}

/// What an append reads of the trail before it writes.
struct State {
    /// The handoffs in its scope.
    ledger: Ledger,
    /// The chain's last event.
    tail: Option<ChainPoint>,
    /// When the last event was appended.
    last_recorded: Option<Timestamp>,
    /// The `seq` the next line must have.
    expected: u64,
    /// Whether `HEAD`'s event was met (or `HEAD` is the anchor or the checkpoint).
    head_matched: bool,
    /// Bytes read line by line.
    read: u64,
}

impl State {
    /// Before the first line after `anchor`.
    fn new(anchor: Option<&ChainPoint>, head: Option<&ChainPoint>) -> State {
        State {
            ledger: Ledger::new(),
            tail: anchor.cloned(),
            last_recorded: None,
            expected: anchor.map_or(0, |a| a.seq + 1),
            head_matched: head.is_some() && head == anchor,
            read: 0,
        }
    }

    /// At the checkpoint `saved`: the scope's handoffs as its index recorded them
    /// (three lines each), its receivers' open handoffs counted; where reading goes on,
    /// with the index. `None` when the checkpoint cannot stand for the lines before
    /// it: its index does not hold, or an anchor or a `HEAD` is not after it. The
    /// trail is then read from the start.
    fn start_at(
        &mut self,
        segments: &[Segment],
        saved: &Checkpoint,
        scope: &Scope,
        head: Option<&ChainPoint>,
    ) -> Result<Option<(Resume, Index)>, TrailError> {
        let Scope::Only {
            handoffs,
            receivers,
        } = scope
        else {
            return Ok(None);
        };
        if self
            .tail
            .as_ref()
            .is_some_and(|anchor| anchor.seq >= saved.point.seq)
            || head.is_some_and(|head| head.seq < saved.point.seq)
        {
            return Ok(None);
        }
        let Some(mut index) = saved.index() else {
            return Ok(None);
        };
        if !receivers.is_empty() {
            let Some(counts) = index.receivers() else {
                return Ok(None);
            };
            for agent in receivers {
                let open = counts.iter().find(|(name, _)| name == agent);
                let open = open.map_or(0, |(_, open)| usize::try_from(*open).unwrap_or(0));
                self.ledger.open_elsewhere(agent, open);
            }
        }
        for id in handoffs {
            if self.ledger.contains(id) {
                continue;
            }
            match index.handoff(segments, id) {
                Ok(Some((_, handoff))) => self.ledger.insert(handoff),
                Ok(None) => {}
                Err(()) => return Ok(None),
            }
        }
        self.expected = saved.point.seq + 1;
        self.head_matched = head == Some(&saved.point);
        self.last_recorded = time::parse_utc(&saved.recorded_at).ok();
        self.tail = Some(saved.point.clone());
        Ok(Some((saved.resume(), index)))
    }
}

fn check_head(
    dir: &Path,
    head: Option<&ChainPoint>,
    last: Option<&ChainPoint>,
    head_matched: bool,
) -> Result<(), TrailError> {
    let path = dir.join(HEAD);
    match (head, last) {
        (None, None) => Ok(()),
        (None, Some(_)) => Err(TrailError::at(
            &path,
            None,
            "is missing although the trail holds events; run `handoff trail verify`, then `handoff trail repair` to rewrite it from the chain",
        )),
        (Some(head), None) => Err(TrailError::at(
            &path,
            None,
            format!(
                "records seq {} but the trail holds no events: it was truncated; restore the segments from a backup",
                head.seq
            ),
        )),
        (Some(head), Some(last)) if head.seq > last.seq => Err(TrailError::at(
            &path,
            None,
            format!(
                "records seq {} but the trail ends at seq {}: events were removed from its end; restore them from a backup (`handoff trail verify` names the segment)",
                head.seq, last.seq
            ),
        )),
        // A HEAD behind the chain is an append that crashed after its fsync and
        // before replacing HEAD: the events are there, HEAD rolls forward.
        (Some(_), Some(_)) if head_matched => Ok(()),
        (Some(head), Some(_)) => Err(TrailError::at(
            &path,
            None,
            format!(
                "records hash {} for seq {}, which is not the chain's: an event was edited; run `handoff trail verify`",
                head.hash, head.seq
            ),
        )),
    }
}

/// Which handoffs an append needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every handoff (batch appends, `tick`).
    All,
    /// The events of these handoffs and of their children, and of handoffs to these
    /// receivers (a single step; `open` with its parent and, for the capacity check,
    /// its receiver).
    Only {
        /// Handoff ids: events with `"handoff_id":"<id>"`.
        handoffs: Vec<String>,
        /// Agents: events with `"to_agent":"<agent>"`.
        receivers: Vec<String>,
    },
}

impl Scope {
    /// The scope of the handoffs `ids`.
    pub fn handoffs<I: IntoIterator<Item = S>, S: Into<String>>(ids: I) -> Scope {
        Scope::Only {
            handoffs: ids.into_iter().map(Into::into).collect(),
            receivers: Vec::new(),
        }
    }

    fn finders(&self) -> Option<Vec<memchr::memmem::Finder<'static>>> {
        let Scope::Only {
            handoffs,
            receivers,
        } = self
        else {
            return None;
        };
        let quoted = |key: &str, value: &str| {
            let value = serde_json::to_string(value).unwrap_or_default();
            memchr::memmem::Finder::new(format!("\"{key}\":{value}").as_bytes()).into_owned()
        };
        // A handoff's children count too: its re-routes are limited.
        let ids = handoffs
            .iter()
            .flat_map(|id| [quoted("handoff_id", id), quoted("parent_handoff", id)]);
        let agents = receivers.iter().map(|agent| quoted("to_agent", agent));
        Some(ids.chain(agents).collect())
    }
}

/// The `seq` of a line, read without parsing it: the last `"seq":` key, since in the
/// canonical order nothing after the top-level `seq` can hold an object (a `seq` key
/// inside `message` comes before it), and inside a string the quotes are escaped.
fn line_seq(finder: &memchr::memmem::FinderRev<'_>, text: &[u8]) -> Option<u64> {
    let at = finder.rfind(text)? + b"\"seq\":".len();
    let digits = text[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&text[at..at + digits])
        .ok()?
        .parse()
        .ok()
}

/// Sets the event's hash and returns its canonical line (without the newline).
///
/// [`Event`]'s fields are declared in key order and its `message` is stored in
/// canonical form, so `serde_json` writes the RFC 8785 form directly, once, without
/// `hash` (what is hashed); the line is that text with the `hash` member put in its
/// place in key order, right after `handoff_type` (the member before it, always
/// present; its pattern cannot occur earlier, inside a string, where `"` is escaped).
pub fn seal(event: &mut Event) -> Vec<u8> {
    let mut line = Vec::new();
    seal_into(event, &mut Vec::new(), &mut line);
    line
}

/// [`seal`], the line appended to `out`; `scratch` holds the unsealed form, so a batch
/// allocates neither per event.
fn seal_into(event: &mut Event, scratch: &mut Vec<u8>, out: &mut Vec<u8>) {
    const MEMBER: &[u8] = b"\"handoff_type\":\"";
    event.hash = String::new();
    scratch.clear();
    // Writing to a `Vec` cannot fail, and an event's keys are strings.
    let _ = serde_json::to_writer(&mut *scratch, &*event);
    event.hash = chain::sha256_hex(scratch);
    let after_member = memchr::memmem::find(scratch, MEMBER)
        .map(|at| at + MEMBER.len())
        .and_then(|value| memchr::memchr(b'"', &scratch[value..]).map(|end| value + end + 1));
    let Some(at) = after_member else {
        let _ = serde_json::to_writer(out, &*event);
        return;
    };
    out.extend_from_slice(&scratch[..at]);
    out.extend_from_slice(b",\"hash\":\"");
    out.extend_from_slice(event.hash.as_bytes());
    out.push(b'"');
    out.extend_from_slice(&scratch[at..]);
}

/// Whether `path` is still the file `file` opened (not unlinked or replaced since).
#[cfg(unix)]
fn still_linked(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

/// Elsewhere `LOCK` is never unlinked ([`Trail::remove_created`]).
#[cfg(not(unix))]
fn still_linked(_file: &File, _path: &Path) -> bool {
    true
}

/// Events being appended in one transaction, checked one by one against the
/// lifecycle as they are pushed, and sealed into the chain at once (`seq`, `prev`,
/// `recorded_at`, `hash`) as the lines the transaction writes.
#[derive(Debug)]
pub struct Batch {
    ledger: Ledger,
    now: Timestamp,
    /// The sealed events, unless [`Batch::keep_last_only`] was called.
    events: Vec<Event>,
    keep_all: bool,
    /// The lines to write, one sealed event each.
    text: Vec<u8>,
    scratch: Vec<u8>,
    recorded_at: String,
    /// The last event of the chain (the trail's tail, then the last one pushed).
    last: Option<ChainPoint>,
}

impl Batch {
    fn new(ledger: Ledger, now: Timestamp, tail: Option<ChainPoint>, recorded: Timestamp) -> Batch {
        Batch {
            ledger,
            now,
            events: Vec::new(),
            keep_all: true,
            text: Vec::new(),
            scratch: Vec::new(),
            recorded_at: time::format(recorded),
            last: tail,
        }
    }

    /// Every handoff, including those this batch opened.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The time of the transaction.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// Keeps only the last event pushed rather than every one, so a large batch holds
    /// its lines and ledger but not its events ([`Trail::transact`] then returns the
    /// last one alone).
    pub fn keep_last_only(&mut self) {
        self.keep_all = false;
        let last = self.events.pop();
        self.events.clear();
        self.events.extend(last);
    }

    /// Checks `event` against its handoff's state, seals it into the chain and queues
    /// its line; refused when it is not a legal next step. Returns the sealed event.
    pub fn push(&mut self, mut event: Event) -> Result<&Event, TrailError> {
        self.ledger.check(&event).map_err(TrailError::illegal)?;
        let (seq, prev) = match self.last.take() {
            Some(point) => (point.seq + 1, point.hash),
            None => (0, GENESIS.to_string()),
        };
        event.seq = seq;
        event.prev = prev;
        event.recorded_at.clone_from(&self.recorded_at);
        seal_into(&mut event, &mut self.scratch, &mut self.text);
        self.text.push(b'\n');
        self.last = Some(ChainPoint {
            seq,
            hash: event.hash.clone(),
        });
        self.ledger.apply(&event);
        if !self.keep_all {
            self.events.clear();
        }
        self.events.push(event);
        Ok(&self.events[self.events.len() - 1])
    }

    /// The events pushed so far (the last one only after [`Batch::keep_last_only`]).
    pub fn events(&self) -> &[Event] {
        &self.events
    }
}

#[cfg(test)]
mod tests;
