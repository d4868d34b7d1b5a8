//! `CHECKPOINT` and `CHECKPOINT.index`: what `list` and a single append need of the
//! trail up to one event, so that the next reads the lines after it and a few lines
//! the index names, not the trail.
//!
//! `CHECKPOINT` is small and is the only one of the two an append rewrites
//! ([`after_append`]): the `seq` and `hash` of that event and where its line is, the
//! stamp of every segment up to it, and the sizes and SHA-256 digests of the index's
//! parts. `CHECKPOINT.index` is written once per checkpoint, then only read, a block
//! at a time:
//!
//! - a table of every block's first key and SHA-256 (its own SHA-256 is in
//!   `CHECKPOINT`);
//! - an entry per handoff initiated up to the event (64 bytes), sorted by a 64-bit key
//!   of its id (FNV-1a), in blocks of [`BLOCK`] entries: its state there, its
//!   re-routes, and where its first `initiated`, its latest `initiated` and its last
//!   line are. Folding those three lines gives the ledger entry a fold of all its
//!   lines gives (re-routes aside, which are counted from other handoffs' lines), so a
//!   step on a handoff closed long ago, or a child of one, reads three lines;
//! - the handoffs open there with their ids (for `list`), and how many are open to
//!   each receiver (for a registry's capacity check), each a JSON part.
//!
//! A lookup reads the table and one block and checks both digests. A key names an id
//! only once the lines it points to were read and are that id's, so two ids with one
//! key cost a read, never a wrong answer; an id with no entry was not initiated up to
//! the checkpoint.
//!
//! It is derived data: `verify`, the batch appends and the views other than `list`
//! never read it, and deleting it loses nothing. It is trusted only while the trail
//! stands as it stood: `CHECKPOINT`'s digest must hold, every segment it covers must
//! still have the length, modification and change times and inode it had (an edit, a
//! truncation or a file put in its place changes them; an append under the lock moves
//! the stamp of the segment it wrote on), the line it names must still be that event,
//! and every part of the index read must have the digest `CHECKPOINT` gives it (an
//! index edited, cut short, left from another checkpoint or from another trail does
//! not). Otherwise the trail is read from the start, and the next `list` or step that
//! reads more than [`WORTH_KEEPING`] bytes writes a new one. Like the segments
//! themselves it carries no key: someone who can rewrite the trail can rewrite it
//! too, and the views believe both; `verify`, which never reads it, catches an edit.

use super::chain;
use super::error::TrailError;
use super::event::EventType;
use super::lifecycle::{id_key, Handoff, Ledger};
use super::store::{parse_line, ChainPoint, Line, Resume, Segment, Trail};
use super::verify::{parse, Parsed};
use serde::{Deserialize, Serialize};
use std::fs::{self, File, Metadata};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The name of the checkpoint file.
pub const CHECKPOINT: &str = "CHECKPOINT";
/// The name of its index.
pub const INDEX: &str = "CHECKPOINT.index";
/// A `list` that reads this many bytes or more leaves a checkpoint where it stopped.
pub const WORTH_KEEPING: u64 = 1 << 20;
/// Entries per block of the index.
pub const BLOCK: usize = 256;
const VERSION: u32 = 2;
const ENTRY: usize = 64;
const TABLE_ROW: usize = 40;

/// One line: the segment's index, the line's number, its offset and its length.
pub type Place = [u64; 4];

/// How a segment stood: any change to its content changes one of these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    name: String,
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
    inode: u64,
}

impl Stamp {
    fn of(name: &str, meta: &Metadata) -> Stamp {
        #[cfg(unix)]
        let (modified, changed, inode) = {
            use std::os::unix::fs::MetadataExt;
            let modified = (meta.mtime(), meta.mtime_nsec());
            (modified, (meta.ctime(), meta.ctime_nsec()), meta.ino())
        };
        #[cfg(not(unix))]
        let (modified, changed, inode) = {
            let since = meta
                .modified()
                .ok()
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            let modified = (since.as_secs() as i64, i64::from(since.subsec_nanos()));
            (modified, (0, 0), 0)
        };
        Stamp {
            name: name.to_string(),
            len: meta.len(),
            modified,
            changed,
            inode,
        }
    }
}

/// What the index holds of a handoff initiated up to the checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// [`id_key`] of its id.
    pub key: u64,
    /// Its state there.
    pub state: EventType,
    /// Its re-routes there.
    pub reroutes: u32,
    /// Its first `initiated`, its latest `initiated` and its last line.
    pub lines: [Place; 3],
}

impl Entry {
    /// The lines to fold, in trail order, each once.
    pub fn places(&self) -> Vec<Place> {
        let mut places = self.lines.to_vec();
        places.dedup();
        places
    }

    /// Its 64 bytes in the index; `None` when a place does not fit (a segment index
    /// over 65,535, an offset over 2^48, a line number or length over 2^32).
    pub fn encode(&self) -> Option<Raw> {
        let mut raw = [0; ENTRY];
        raw[..8].copy_from_slice(&self.key.to_le_bytes());
        raw[8] = u8::try_from(EventType::ALL.iter().position(|t| *t == self.state)?).ok()?;
        raw[12..16].copy_from_slice(&self.reroutes.to_le_bytes());
        for (n, [segment, number, offset, length]) in self.lines.into_iter().enumerate() {
            if segment > 0xffff || offset >= 1 << 48 {
                return None;
            }
            let at = 16 + n * 16;
            raw[at..at + 8].copy_from_slice(&(segment << 48 | offset).to_le_bytes());
            raw[at + 8..at + 12].copy_from_slice(&u32::try_from(length).ok()?.to_le_bytes());
            raw[at + 12..at + 16].copy_from_slice(&u32::try_from(number).ok()?.to_le_bytes());
        }
        Some(raw)
    }

    fn decode(bytes: &[u8]) -> Option<Entry> {
        let word = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
        let half = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
        let state = *EventType::ALL.get(usize::from(*bytes.get(8)?))?;
        let mut lines = [[0; 4]; 3];
        for (n, line) in lines.iter_mut().enumerate() {
            let at = 16 + n * 16;
            let packed = word(at)?;
            let (length, number) = (half(at + 8)?, half(at + 12)?);
            *line = [
                packed >> 48,
                u64::from(number),
                packed & ((1 << 48) - 1),
                u64::from(length),
            ];
        }
        Some(Entry {
            key: word(0)?,
            state,
            reroutes: half(12)?,
            lines,
        })
    }
}

/// An entry as the index holds it.
pub type Raw = [u8; ENTRY];

/// The order of entries in the index: by key, then by where the first line is.
pub fn order(raw: &Raw) -> (u64, u64) {
    let word = |at: usize| u64::from_le_bytes(raw[at..at + 8].try_into().unwrap_or_default());
    (word(0), word(16))
}

/// [`order`]'s second half for a handoff whose first line is at `place`.
pub fn first_line(place: Place) -> u64 {
    place[0] << 48 | place[2]
}

/// A handoff open at the checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpenHandoff {
    /// Its id.
    pub id: String,
    /// Its state there.
    pub state: EventType,
    /// Its re-routes there.
    pub reroutes: u32,
    /// Its first `initiated`, its latest `initiated` and its last line.
    pub lines: [Place; 3],
}

/// The size and SHA-256 of a part of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Part {
    len: u64,
    sha256: String,
}

/// The index as `CHECKPOINT` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Layout {
    entries: u64,
    table: String,
    open: Part,
    receivers: Part,
}

impl Layout {
    fn blocks(&self) -> u64 {
        self.entries.div_ceil(BLOCK as u64)
    }

    fn entries_at(&self) -> u64 {
        self.blocks() * TABLE_ROW as u64
    }

    fn open_at(&self) -> u64 {
        self.entries_at() + self.entries * ENTRY as u64
    }

    fn receivers_at(&self) -> u64 {
        self.open_at() + self.open.len
    }

    fn len(&self) -> u64 {
        self.receivers_at() + self.receivers.len
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    version: u32,
    seq: u64,
    hash: String,
    segments: Vec<Stamp>,
    last: Place,
    index: Layout,
}

/// A checkpoint whose `CHECKPOINT` holds (its index is checked as it is read).
#[derive(Debug)]
pub struct Checkpoint {
    /// Its event's place in the chain.
    pub point: ChainPoint,
    /// When its event was appended.
    pub recorded_at: String,
    /// Where its event's line is.
    pub last: Place,
    layout: Layout,
    dir: std::path::PathBuf,
}

impl Checkpoint {
    /// Where reading goes on: just after its event's line.
    pub fn resume(&self) -> Resume {
        let [segment, number, offset, length] = self.last;
        Resume {
            segment: segment as usize,
            offset: offset + length + 1,
            number: number as usize,
        }
    }

    /// Its index, when the file is the one `CHECKPOINT` describes (its length, and
    /// the digest of its table).
    pub fn index(&self) -> Option<Index> {
        let mut file = File::open(self.dir.join(INDEX)).ok()?;
        if file.metadata().ok()?.len() != self.layout.len() {
            return None;
        }
        let mut table = vec![0; usize::try_from(self.layout.entries_at()).ok()?];
        file.read_exact(&mut table).ok()?;
        if chain::sha256_hex(&table) != self.layout.table {
            return None;
        }
        let rows = table
            .chunks_exact(TABLE_ROW)
            .map(|row| {
                let key = u64::from_le_bytes(row[..8].try_into().unwrap_or_default());
                (key, row[8..].try_into().unwrap_or([0; 32]))
            })
            .collect();
        Some(Index {
            file,
            table: rows,
            layout: self.layout.clone(),
        })
    }
}

/// A checkpoint's index, open for lookups; every read is checked against its digest.
#[derive(Debug)]
pub struct Index {
    file: File,
    table: Vec<(u64, [u8; 32])>,
    layout: Layout,
}

impl Index {
    /// The entries whose key is `key`; `None` when a block read does not hold.
    pub fn find(&mut self, key: u64) -> Option<Vec<Entry>> {
        let from = self
            .table
            .partition_point(|row| row.0 < key)
            .saturating_sub(1);
        let to = self.table.partition_point(|row| row.0 <= key).max(from + 1);
        let mut found = Vec::new();
        for block in from..to.min(self.table.len()) {
            found.extend(self.block(block)?.into_iter().filter(|e| e.key == key));
        }
        Some(found)
    }

    /// Every entry as the index holds it, in [`order`]; `None` when a block does not
    /// hold.
    pub fn all(&mut self) -> Option<Vec<Raw>> {
        let mut all = Vec::with_capacity(usize::try_from(self.layout.entries).ok()?);
        for block in 0..self.table.len() {
            let bytes = self.block_bytes(block)?;
            all.extend(bytes.chunks_exact(ENTRY).map(|raw| {
                let mut entry = [0; ENTRY];
                entry.copy_from_slice(raw);
                entry
            }));
        }
        Some(all)
    }

    /// The handoffs open at the checkpoint.
    pub fn open(&mut self) -> Option<Vec<OpenHandoff>> {
        let bytes = self.part(self.layout.open_at(), &self.layout.open.clone())?;
        serde_json::from_slice(&bytes).ok()
    }

    /// How many handoffs were open to each receiver at the checkpoint.
    pub fn receivers(&mut self) -> Option<Vec<(String, u64)>> {
        let bytes = self.part(self.layout.receivers_at(), &self.layout.receivers.clone())?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The handoff `id` as it stood at the checkpoint, with its entry, or `Ok(None)`
    /// when it was not initiated up to it; `Err(())` when the index or the lines it
    /// names do not hold (read the trail instead).
    pub fn handoff(
        &mut self,
        segments: &[Segment],
        id: &str,
    ) -> Result<Option<(Entry, Handoff)>, ()> {
        for entry in self.find(id_key(id.as_bytes())).ok_or(())? {
            let mut ledger = Ledger::new();
            fold(segments, entry.places(), &mut ledger).map_err(|_| ())?;
            if let Some(handoff) = ledger.get(id) {
                if handoff.state != entry.state {
                    return Err(());
                }
                let mut handoff = handoff.clone();
                handoff.reroutes = entry.reroutes;
                return Ok(Some((entry, handoff)));
            }
        }
        Ok(None)
    }

    fn block(&mut self, block: usize) -> Option<Vec<Entry>> {
        let bytes = self.block_bytes(block)?;
        bytes.chunks_exact(ENTRY).map(Entry::decode).collect()
    }

    /// A block's bytes, when they have the digest and first key the table gives.
    fn block_bytes(&mut self, block: usize) -> Option<Vec<u8>> {
        let first = block as u64 * BLOCK as u64;
        let count = (self.layout.entries - first).min(BLOCK as u64);
        let at = self.layout.entries_at() + first * ENTRY as u64;
        let mut bytes = vec![0; usize::try_from(count).ok()? * ENTRY];
        self.file.seek(SeekFrom::Start(at)).ok()?;
        self.file.read_exact(&mut bytes).ok()?;
        let (first_key, digest) = self.table.get(block)?;
        let key = bytes.get(..8)?;
        let holds = chain::sha256_parts(&[&bytes]) == *digest && key == first_key.to_le_bytes();
        holds.then_some(bytes)
    }

    fn part(&mut self, at: u64, part: &Part) -> Option<Vec<u8>> {
        let mut bytes = vec![0; usize::try_from(part.len).ok()?];
        self.file.seek(SeekFrom::Start(at)).ok()?;
        self.file.read_exact(&mut bytes).ok()?;
        (chain::sha256_hex(&bytes) == part.sha256).then_some(bytes)
    }
}

/// Reads the lines at `places` (in trail order), parses them and folds them into
/// `ledger`.
pub(super) fn fold(
    segments: &[Segment],
    places: impl IntoIterator<Item = Place>,
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

/// The trail's checkpoint when `CHECKPOINT` holds (see the module's text).
pub fn load(trail: &Trail, segments: &[Segment]) -> Option<Checkpoint> {
    let bytes = fs::read(trail.dir().join(CHECKPOINT)).ok()?;
    let header = decode(&bytes)?;
    let covered = header.segments.len();
    let last_segment = segments.get(usize::try_from(header.last[0]).ok()?)?;
    if covered != usize::try_from(header.last[0]).ok()? + 1 || segments.len() < covered {
        return None;
    }
    for (stamp, segment) in header.segments.iter().zip(segments) {
        let meta = fs::metadata(&segment.path).ok()?;
        if *stamp != Stamp::of(&file_name(&segment.path), &meta) {
            return None;
        }
    }
    let [_, _, offset, length] = header.last;
    let mut line = vec![0; usize::try_from(length).ok()? + 1];
    let mut file = File::open(&last_segment.path).ok()?;
    file.seek(SeekFrom::Start(offset)).ok()?;
    file.read_exact(&mut line).ok()?;
    if line.pop() != Some(b'\n') {
        return None;
    }
    match parse(&line, true) {
        Parsed::Event(stored, _, event) if event.seq == header.seq && stored == header.hash => {
            Some(Checkpoint {
                point: ChainPoint {
                    seq: event.seq,
                    hash: stored,
                },
                recorded_at: event.recorded_at,
                last: header.last,
                layout: header.index,
                dir: trail.dir().to_path_buf(),
            })
        }
        _ => None,
    }
}

/// What a new checkpoint records, besides where its event is.
pub struct Contents {
    /// Every handoff initiated up to it, in [`order`].
    pub entries: Vec<Raw>,
    /// The handoffs open there.
    pub open: Vec<OpenHandoff>,
    /// Open handoffs per receiver.
    pub receivers: Vec<(String, u64)>,
}

/// Writes a checkpoint at the event whose line is at `last` (its `seq` and `hash` read
/// from it): the index first, then `CHECKPOINT`, unless another process holds the
/// trail's lock (an append is under way: the next `list` writes it). Derived data: a
/// failure to write it is not an error.
pub fn save(trail: &Trail, segments: &[Segment], last: Place, contents: &Contents) {
    let _ = trail.try_with_lock(|| {
        let covered = segments.get(..=usize::try_from(last[0]).ok()?)?;
        let mut stamps = Vec::with_capacity(covered.len());
        for segment in covered {
            let meta = fs::metadata(&segment.path).ok()?;
            stamps.push(Stamp::of(&file_name(&segment.path), &meta));
        }
        let mut line = vec![0; usize::try_from(last[3]).ok()?];
        let mut file = File::open(&covered.last()?.path).ok()?;
        file.seek(SeekFrom::Start(last[2])).ok()?;
        file.read_exact(&mut line).ok()?;
        let Parsed::Event(hash, _, event) = parse(&line, true) else {
            return None;
        };
        let (index, layout) = build_index(contents)?;
        crate::io::replace_atomically_unsynced(&trail.dir().join(INDEX), &index).ok()?;
        let header = Header {
            version: VERSION,
            seq: event.seq,
            hash,
            segments: stamps,
            last,
            index: layout,
        };
        write(trail.dir(), &header)
    });
}

/// The index file's bytes and their layout.
fn build_index(contents: &Contents) -> Option<(Vec<u8>, Layout)> {
    let entries = contents.entries.as_flattened();
    let mut table = Vec::new();
    for bytes in entries.chunks(BLOCK * ENTRY) {
        table.extend_from_slice(&bytes[..8]);
        table.extend_from_slice(&chain::sha256_parts(&[bytes]));
    }
    let open = serde_json::to_vec(&contents.open).ok()?;
    let receivers = serde_json::to_vec(&contents.receivers).ok()?;
    let part = |bytes: &[u8]| Part {
        len: bytes.len() as u64,
        sha256: chain::sha256_hex(bytes),
    };
    let layout = Layout {
        entries: contents.entries.len() as u64,
        table: chain::sha256_hex(&table),
        open: part(&open),
        receivers: part(&receivers),
    };
    let mut file = table;
    file.reserve(entries.len() + open.len() + receivers.len());
    file.extend_from_slice(entries);
    file.extend_from_slice(&open);
    file.extend_from_slice(&receivers);
    Some((file, layout))
}

/// After an append under the lock wrote to the segment `name` (standing as `before`
/// until then, as `after` now): a checkpoint that covers that segment and held before
/// the append moves its stamp on (`CHECKPOINT` alone is rewritten, a few hundred
/// bytes); one that did not hold is removed.
pub fn after_append(dir: &Path, name: &str, before: &Metadata, after: &Metadata) {
    let path = dir.join(CHECKPOINT);
    let Ok(bytes) = fs::read(&path) else {
        return;
    };
    let Some(mut header) = decode(&bytes) else {
        let _ = fs::remove_file(&path);
        return;
    };
    let Some(stamp) = header.segments.iter_mut().find(|stamp| stamp.name == name) else {
        return;
    };
    let held = *stamp == Stamp::of(name, before);
    *stamp = Stamp::of(name, after);
    if !held || write(dir, &header).is_none() {
        let _ = fs::remove_file(&path);
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The digest line, then the header line.
fn write(dir: &Path, header: &Header) -> Option<()> {
    let mut body = serde_json::to_vec(header).ok()?;
    body.push(b'\n');
    let mut file = chain::sha256_hex(&body).into_bytes();
    file.push(b'\n');
    file.extend_from_slice(&body);
    crate::io::replace_atomically_unsynced(&dir.join(CHECKPOINT), &file).ok()
}

fn decode(bytes: &[u8]) -> Option<Header> {
    let (digest, body) = (bytes.get(..64)?, bytes.get(65..)?);
    if bytes.get(64) != Some(&b'\n') || digest != chain::sha256_hex(body).as_bytes() {
        return None;
    }
    let header: Header = serde_json::from_slice(body.strip_suffix(b"\n")?).ok()?;
    (header.version == VERSION).then_some(header)
}

#[cfg(test)]
mod tests;
