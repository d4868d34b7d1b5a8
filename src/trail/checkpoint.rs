//! `CHECKPOINT`: what `list` and a single append need of the trail up to one event,
//! so that the next reads only the lines after it.
//!
//! It holds the `seq` and `hash` of that event and where its line is, the handoffs open
//! there with their state and where each of their lines is, and a 64-bit key of every
//! handoff id seen (FNV-1a), so that a later event of a handoff that was already closed
//! is noticed (the trail is then read from the start). It is derived data: `verify`,
//! the batch appends and every other view never read it, and deleting it loses nothing.
//!
//! It is trusted only while the trail stands as it stood: its digest (SHA-256 of the
//! rest of the file) must hold, every segment it covers must still have the length,
//! modification and change times and inode it had (an edit, a truncation or a file put
//! in its place changes them; an append under the lock moves the stamp of the segment
//! it wrote on, [`after_append`]), and the line it names must still be that event.
//! Otherwise it is ignored and the next `list` that reads more than [`WORTH_KEEPING`]
//! bytes writes a new one. Like the segments themselves it carries no key: someone who
//! can rewrite the trail can rewrite it too, and the views believe both; `verify`,
//! which never reads it, is what catches an edit.
//!
//! A single-handoff append reads it too ([`super::append`]): the tail is its event
//! and the lines after it, the handoff's state its lines (when it is open there) and
//! those after it, so an append on a large trail reads a handful of lines. An append
//! that had to read much leaves a new one, as `list` does.

use super::chain;
use super::event::EventType;
use super::store::{ChainPoint, Resume, Segment, Trail};
use super::verify::{parse, Parsed};
use serde::{Deserialize, Serialize};
use std::fs::{self, File, Metadata};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The name of the checkpoint file.
pub const CHECKPOINT: &str = "CHECKPOINT";
/// A `list` that reads this many bytes or more leaves a checkpoint where it stopped.
pub const WORTH_KEEPING: u64 = 1 << 20;
const VERSION: u32 = 1;

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

/// A handoff open at the checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpenHandoff {
    /// Its id.
    pub id: String,
    /// Its state there.
    pub state: EventType,
    /// Where its lines are, in trail order.
    pub lines: Vec<Place>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    version: u32,
    seq: u64,
    hash: String,
    segments: Vec<Stamp>,
    last: Place,
    open: Vec<OpenHandoff>,
    ids: usize,
}

/// A checkpoint that holds.
#[derive(Debug)]
pub struct Checkpoint {
    /// Its event's place in the chain.
    pub point: ChainPoint,
    /// When its event was appended.
    pub recorded_at: String,
    /// The handoffs open at it.
    pub open: Vec<OpenHandoff>,
    /// Where its event's line is.
    pub last: Place,
    ids: Vec<u64>,
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

    /// Whether a handoff of this id was seen before the checkpoint (rarely, another id
    /// with the same key: reading from the start is then merely slower).
    pub fn knew(&self, id: &[u8]) -> bool {
        self.ids.binary_search(&id_key(id)).is_ok()
    }

    /// The keys of every id seen.
    pub fn ids(&self) -> &[u64] {
        &self.ids
    }
}

/// The 64-bit FNV-1a key of a handoff id.
pub fn id_key(id: &[u8]) -> u64 {
    id.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The trail's checkpoint when there is one and it holds (see the module's text).
pub fn load(trail: &Trail, segments: &[Segment]) -> Option<Checkpoint> {
    let bytes = fs::read(trail.dir().join(CHECKPOINT)).ok()?;
    let (header, ids) = decode(&bytes)?;
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
                open: header.open,
                last: header.last,
                ids,
            })
        }
        _ => None,
    }
}

/// Writes a checkpoint at the event whose line is at `last` (its `seq` and `hash` read
/// from it), with the handoffs open there and the keys of every id seen (sorted),
/// unless another process holds the trail's lock (an append is under way: the next
/// `list` writes it). Derived data: a failure to write it is not an error.
pub fn save(trail: &Trail, segments: &[Segment], last: Place, open: Vec<OpenHandoff>, ids: &[u64]) {
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
        let header = Header {
            version: VERSION,
            seq: event.seq,
            hash,
            segments: stamps,
            last,
            open,
            ids: ids.len(),
        };
        write(trail.dir(), &header, ids)
    });
}

/// After an append under the lock wrote to the segment `name` (standing as `before`
/// until then, as `after` now): a checkpoint that covers that segment and held before
/// the append moves its stamp on; one that did not hold is removed.
pub fn after_append(dir: &Path, name: &str, before: &Metadata, after: &Metadata) {
    let path = dir.join(CHECKPOINT);
    let Ok(bytes) = fs::read(&path) else {
        return;
    };
    let Some((mut header, ids)) = decode(&bytes) else {
        let _ = fs::remove_file(&path);
        return;
    };
    let Some(stamp) = header.segments.iter_mut().find(|stamp| stamp.name == name) else {
        return;
    };
    let held = *stamp == Stamp::of(name, before);
    *stamp = Stamp::of(name, after);
    if !held || write(dir, &header, &ids).is_none() {
        let _ = fs::remove_file(&path);
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The digest line, the header line, the keys (8 bytes each, little-endian).
fn write(dir: &Path, header: &Header, ids: &[u64]) -> Option<()> {
    let mut body = serde_json::to_vec(header).ok()?;
    body.push(b'\n');
    for id in ids {
        body.extend_from_slice(&id.to_le_bytes());
    }
    let mut file = chain::sha256_hex(&body).into_bytes();
    file.push(b'\n');
    file.extend_from_slice(&body);
    crate::io::replace_atomically_unsynced(&dir.join(CHECKPOINT), &file).ok()
}

fn decode(bytes: &[u8]) -> Option<(Header, Vec<u64>)> {
    let (digest, body) = (bytes.get(..64)?, bytes.get(65..)?);
    if bytes.get(64) != Some(&b'\n') || digest != chain::sha256_hex(body).as_bytes() {
        return None;
    }
    let end = memchr::memchr(b'\n', body)?;
    let header: Header = serde_json::from_slice(&body[..end]).ok()?;
    let keys = &body[end + 1..];
    if header.version != VERSION || keys.len() != header.ids.checked_mul(8)? {
        return None;
    }
    let ids = keys
        .chunks_exact(8)
        .map(|key| u64::from_le_bytes(key.try_into().unwrap_or_default()))
        .collect();
    Some((header, ids))
}
