//! The trail on disk: a directory of daily JSON-lines segments, `HEAD`, `LOCK` and
//! `ANCHOR`.
//!
//! - `YYYY-MM-DD.jsonl`: one segment per UTC day of the events' append time, one
//!   canonical (RFC 8785) JSON event per line; the chain runs on across segments.
//! - `HEAD`: `{"hash":…,"seq":…}` of the last event, replaced atomically after each
//!   append, so a truncated tail is detected.
//! - `LOCK`: locked exclusively (an OS file lock, `fs4`) for the whole of an append:
//!   read the tail, check, write, fsync, replace `HEAD`. Concurrent writers queue.
//! - `ANCHOR`: the `seq` and `hash` of the last pruned event; the chain starts there.
//!
//! Lines are read through the one reader of a trail's lines ([`blocks`]);
//! appending (the lock, the write-ahead write, `HEAD`) is [`super::append`].

pub(super) mod blocks;

use super::chain;
use super::error::TrailError;
use super::event::Event;
use crate::policy::{Policy, POLICY_FILE};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::path::{Path, PathBuf};

/// The name of the head file.
pub const HEAD: &str = "HEAD";
/// The name of the lock file.
pub const LOCK: &str = "LOCK";
/// The name of the anchor file.
pub const ANCHOR: &str = "ANCHOR";

/// A position in the chain: an event's `seq` and `hash`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainPoint {
    /// The event's `seq`.
    pub seq: u64,
    /// The event's `hash`.
    pub hash: String,
}

/// One segment file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Its path.
    pub path: PathBuf,
    /// Its day, `YYYY-MM-DD`.
    pub day: String,
}

/// One line of a segment, as read.
#[derive(Debug)]
pub struct Line<'a> {
    /// The segment it is in.
    pub segment: &'a Path,
    /// 1-based line number in the segment.
    pub number: usize,
    /// Where the line starts in the segment, in bytes.
    pub offset: u64,
    /// The bytes, without the newline.
    pub text: &'a [u8],
    /// Whether a newline ended it (a torn line has none).
    pub terminated: bool,
    /// Whether it is the last line of the trail.
    pub last: bool,
}

/// Where a read of the trail starts: a segment (index), a byte offset in it and the
/// number of the lines before that offset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Resume {
    pub segment: usize,
    pub offset: u64,
    pub number: usize,
}

/// A trail directory.
#[derive(Debug, Clone)]
pub struct Trail {
    pub(super) dir: PathBuf,
    pub(super) clock: Option<Timestamp>,
}

impl Trail {
    /// The trail in `dir` (nothing is read yet).
    pub fn at(dir: impl Into<PathBuf>) -> Trail {
        Trail {
            dir: dir.into(),
            clock: None,
        }
    }

    /// The same trail with a fixed append clock (`recorded_at`), for tests and
    /// benchmarks that need segments of past days; the system clock otherwise.
    pub fn with_clock(mut self, clock: Timestamp) -> Trail {
        self.clock = Some(clock);
        self
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Checks that the trail directory exists and is a directory.
    pub fn require(&self) -> Result<(), TrailError> {
        match fs::metadata(&self.dir) {
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(_) => Err(TrailError::at(
                &self.dir,
                None,
                "is a file, not a trail directory; pass --trail DIR with a directory (it is created on the first append)",
            )),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(TrailError::at(
                &self.dir,
                None,
                "no trail here yet; append an event first (`handoff trail open …`) or pass --trail DIR",
            )),
            Err(error) => Err(TrailError::io(&self.dir, "read the trail directory", &error)),
        }
    }

    /// The segments, oldest first. Files that are not `YYYY-MM-DD.jsonl` are not
    /// segments and are left alone.
    pub fn segments(&self) -> Result<Vec<Segment>, TrailError> {
        self.require()?;
        let entries = fs::read_dir(&self.dir)
            .map_err(|e| TrailError::io(&self.dir, "read the trail directory", &e))?;
        let mut segments = Vec::new();
        for entry in entries {
            let entry =
                entry.map_err(|e| TrailError::io(&self.dir, "read the trail directory", &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(day) = segment_day(&name) {
                segments.push(Segment {
                    path: entry.path(),
                    day: day.to_string(),
                });
            }
        }
        segments.sort_by(|a, b| a.day.cmp(&b.day));
        Ok(segments)
    }

    /// `HEAD`, when there is one.
    pub fn head(&self) -> Result<Option<ChainPoint>, TrailError> {
        self.read_point(HEAD)
    }

    /// `ANCHOR`, when the trail was pruned.
    pub fn anchor(&self) -> Result<Option<ChainPoint>, TrailError> {
        self.read_point(ANCHOR)
    }

    fn read_point(&self, name: &str) -> Result<Option<ChainPoint>, TrailError> {
        let path = self.dir.join(name);
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(TrailError::io(&path, "read", &error)),
        };
        let point: ChainPoint = serde_json::from_str(&text).map_err(|error| {
            TrailError::at(
                &path,
                Some(error.line()),
                format!("is not {{\"hash\":…,\"seq\":…}} ({error}); `handoff trail repair` rewrites it from the chain"),
            )
        })?;
        if !chain::is_hash(&point.hash) {
            return Err(TrailError::at(&path, Some(1), "its hash is not 64 lower-case hex digits; `handoff trail repair` rewrites it from the chain"));
        }
        Ok(Some(point))
    }

    /// Replaces `HEAD` (or `ANCHOR`) atomically and durably.
    pub(crate) fn write_point(&self, name: &str, point: &ChainPoint) -> Result<(), TrailError> {
        let mut text = serde_json::to_string(point).unwrap_or_default();
        text.push('\n');
        replace_durably(&self.dir.join(name), text.as_bytes())
    }

    /// Reads every line of every segment, oldest first, and hands each to `visit`;
    /// stops early when `visit` returns an error.
    pub fn for_each_line<E>(
        &self,
        visit: impl FnMut(&Line<'_>) -> Result<(), E>,
    ) -> Result<Result<(), E>, TrailError> {
        let segments = self.segments()?;
        self.for_each_line_from(&segments, Resume::default(), visit)
    }

    /// [`Trail::for_each_line`] over `segments` from `from` on.
    pub(crate) fn for_each_line_from<E>(
        &self,
        segments: &[Segment],
        from: Resume,
        mut visit: impl FnMut(&Line<'_>) -> Result<(), E>,
    ) -> Result<Result<(), E>, TrailError> {
        let mut offset = from.offset;
        let mut segment = from.segment;
        blocks::each_block_here(segments, from, |block| {
            if block.segment != segment {
                (segment, offset) = (block.segment, 0);
            }
            let path = &segments[block.segment].path;
            let last_segment = block.segment + 1 == segments.len();
            let count = block.lines().len();
            for (n, (text, terminated, ())) in block.lines().enumerate() {
                let line = Line {
                    segment: path,
                    number: block.first_line + n,
                    offset,
                    text,
                    terminated,
                    last: last_segment && block.at_end && n + 1 == count,
                };
                offset += (text.len() + usize::from(terminated)) as u64;
                visit(&line)?;
            }
            Ok(())
        })
    }

    /// Reads every event, oldest first, for `visit`; a line that is not an event is an
    /// error naming its segment and line (run `verify`, then `repair`).
    pub fn for_each_event(
        &self,
        mut visit: impl FnMut(Event, &Line<'_>) -> Result<(), TrailError>,
    ) -> Result<(), TrailError> {
        self.for_each_line(|line| {
            let event = parse_line(line)?;
            visit(event, line)
        })?
    }

    /// `transact`'s `now` is the time of the events (their default `timestamp`, the
    /// time `tick` applies); `recorded_at` is the append clock.
    pub fn clock(&self) -> Option<Timestamp> {
        self.clock
    }
}

/// Parses one line into an event, or says which line is not one.
pub fn parse_line(line: &Line<'_>) -> Result<Event, TrailError> {
    if !line.terminated {
        return Err(TrailError::at(
            line.segment,
            Some(line.number),
            "the last line is torn (no newline: a write was interrupted); `handoff trail repair` removes it",
        ));
    }
    serde_json::from_slice(line.text).map_err(|error| {
        TrailError::at(
            line.segment,
            Some(line.number),
            format!("is not an audit event ({error}); run `handoff trail verify`"),
        )
    })
}

/// The day of a segment file name, `YYYY-MM-DD.jsonl`.
pub fn segment_day(name: &str) -> Option<&str> {
    let day = name.strip_suffix(".jsonl")?;
    let bytes = day.as_bytes();
    let shape = bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
    shape.then_some(day)
}

/// Replaces `path` with `bytes` through the one atomic writer ([`crate::io`]), then
/// syncs the directory so the rename itself survives a crash.
pub(crate) fn replace_durably(path: &Path, bytes: &[u8]) -> Result<(), TrailError> {
    crate::io::replace_atomically(path, bytes).map_err(|e| TrailError::io(path, "write", &e))?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

pub(super) fn sync_dir(dir: &Path) -> Result<(), TrailError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| TrailError::io(dir, "sync the trail directory", &e))
}

/// The trail directory when no `--trail` is given, in the git repository that holds
/// `start` (else in `start` itself): the `trail_dir` of its `.handoff.yaml` (as checked
/// out), `.handoff/trail/` by default. A policy file that cannot be read or whose keys
/// are wrong is an error naming its line.
pub fn default_dir(start: &Path) -> Result<PathBuf, TrailError> {
    let root = start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(start);
    let policy = root.join(POLICY_FILE);
    let configured = match policy.is_file() {
        true => Policy::read_trail_dir(&policy).map_err(|e| TrailError::plain(e.to_string()))?,
        false => None,
    };
    Ok(match configured {
        Some(dir) => root.join(dir),
        None => root.join(".handoff").join("trail"),
    })
}
