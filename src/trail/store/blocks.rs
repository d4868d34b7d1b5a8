//! The segments read a block of whole lines at a time on a thread of their own, for a
//! pass that spends as long on each line as `verify` does.
//!
//! The reading thread reads a block (1 MiB, more for a longer line), cuts it into lines
//! and derives what it can from each line on its own (for `verify`: the canonical check
//! and the SHA-256), then hands the block over; the caller's thread does what must go in
//! order (the chain, the lifecycle) and hands the block back to be filled again. Blocks
//! are reused, never freed on the other thread, and at most [`IN_FLIGHT`] wait at once,
//! so memory stays flat whatever the trail's size.

use super::{Resume, Segment};
use crate::trail::error::TrailError;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::mpsc::{self, Receiver, SyncSender};

/// How much a block holds (a longer line grows its block): the size every reader of a
/// trail reads at a time.
pub(crate) const BLOCK: usize = 1 << 20;
/// How many full blocks may wait for the caller.
const IN_FLIGHT: usize = 2;

/// Whole lines of one segment, and what the reading thread derived from each.
pub struct Block<T> {
    /// Index of the segment in the list given to [`each_block`].
    pub segment: usize,
    /// 1-based number of the first line in the segment.
    pub first_line: usize,
    /// Whether the block ends its segment.
    pub at_end: bool,
    /// The bytes read; the lines lie in `bytes[..filled]`.
    bytes: Vec<u8>,
    filled: usize,
    /// Each line's range in `bytes` (without its newline), whether a newline ended it,
    /// and what was derived from it.
    lines: Vec<(Range<usize>, bool, T)>,
}

impl<T> Block<T> {
    fn new(size: usize) -> Block<T> {
        Block {
            segment: 0,
            first_line: 1,
            at_end: false,
            bytes: vec![0; size],
            filled: 0,
            lines: Vec::new(),
        }
    }

    /// The lines: text, whether a newline ended it, what was derived from it.
    pub fn lines(&self) -> impl ExactSizeIterator<Item = (&[u8], bool, &T)> {
        self.lines
            .iter()
            .map(|(range, terminated, derived)| (&self.bytes[range.clone()], *terminated, derived))
    }
}

/// Reads `segments` on a second thread, `derive` applied to each line there (with
/// whether a newline ended it), and hands each block to `visit` on this thread, in
/// order. An error reading a segment ends the pass with that error.
pub fn each_block<T, D, E>(
    segments: &[Segment],
    derive: D,
    visit: impl FnMut(&Block<T>) -> Result<(), E>,
) -> Result<Result<(), E>, TrailError>
where
    T: Send,
    D: Fn(&[u8], bool) -> T + Sync,
{
    each_block_of(BLOCK, segments, derive, visit)
}

/// [`each_block`] with blocks of `size` bytes.
fn each_block_of<T, D, E>(
    size: usize,
    segments: &[Segment],
    derive: D,
    mut visit: impl FnMut(&Block<T>) -> Result<(), E>,
) -> Result<Result<(), E>, TrailError>
where
    T: Send,
    D: Fn(&[u8], bool) -> T + Sync,
{
    let (full_tx, full_rx) = mpsc::sync_channel(IN_FLIGHT);
    let (spare_tx, spare_rx) = mpsc::channel();
    let derive = &derive;
    std::thread::scope(move |scope| {
        // The reader owns its sender, so the loop ends when it is done; the loop owns
        // the receiver, so an early return lets a reader waiting to send finish.
        scope.spawn(move || read(size, segments, derive, &full_tx, &spare_rx));
        for block in full_rx {
            let block: Block<T> = block?;
            if let Err(error) = visit(&block) {
                return Ok(Err(error));
            }
            // The reader is gone only when it has finished: the block is not needed.
            let _ = spare_tx.send(block);
        }
        Ok(Ok(()))
    })
}

type Full<T> = SyncSender<Result<Block<T>, TrailError>>;

/// The reading thread: every segment, block by block, until done or the caller stops.
fn read<T>(
    size: usize,
    segments: &[Segment],
    derive: &(impl Fn(&[u8], bool) -> T + Sync),
    full: &Full<T>,
    spare: &Receiver<Block<T>>,
) {
    let take = || spare.try_recv().unwrap_or_else(|_| Block::new(size));
    let mut send = |block| full.send(Ok(block)).ok().map(|()| take());
    if let Err(error) = cut(segments, Resume::default(), take(), derive, &mut send) {
        let _ = full.send(Err(error));
    }
}

/// Reads `segments` from `from` on, on this thread, a block (1 MiB) of whole lines at a
/// time, and hands each to `visit`, in order; stops early when `visit` returns an
/// error. The one block is reused, so memory stays flat.
pub fn each_block_here<E>(
    segments: &[Segment],
    from: Resume,
    visit: impl FnMut(&Block<()>) -> Result<(), E>,
) -> Result<Result<(), E>, TrailError> {
    each_block_here_of(BLOCK, segments, from, visit)
}

/// [`each_block_here`] with blocks of `size` bytes.
fn each_block_here_of<E>(
    size: usize,
    segments: &[Segment],
    from: Resume,
    mut visit: impl FnMut(&Block<()>) -> Result<(), E>,
) -> Result<Result<(), E>, TrailError> {
    let mut stopped = None;
    let mut send = |block: Block<()>| match visit(&block) {
        Ok(()) => Some(block),
        Err(error) => {
            stopped = Some(error);
            None
        }
    };
    cut(segments, from, Block::new(size), &|_, _| (), &mut send)?;
    Ok(stopped.map_or(Ok(()), Err))
}

/// The one cutter of a trail into lines: `segments` from `from` on, each read into
/// blocks of whole lines (`derive` applied to each), each full block given to `send`,
/// which gives back the block to fill next (the same or another), or `None` to stop.
fn cut<T>(
    segments: &[Segment],
    from: Resume,
    mut block: Block<T>,
    derive: &impl Fn(&[u8], bool) -> T,
    send: &mut impl FnMut(Block<T>) -> Option<Block<T>>,
) -> Result<(), TrailError> {
    // The bytes of a line a block ends in the middle of, carried to the next block.
    let mut carry = Vec::new();
    for (index, segment) in segments.iter().enumerate().skip(from.segment) {
        let fail = |e: std::io::Error| TrailError::io(&segment.path, "read the segment", &e);
        let mut file = File::open(&segment.path).map_err(fail)?;
        let mut next_line = 1;
        // The segment as long as it is now: its end is known with its last line.
        let mut left = file.metadata().map_err(fail)?.len();
        if index == from.segment && from.offset > 0 {
            file.seek(SeekFrom::Start(from.offset)).map_err(fail)?;
            next_line = from.number + 1;
            left = left.saturating_sub(from.offset);
        }
        let mut kept = 0;
        loop {
            block.segment = index;
            block.first_line = next_line;
            block.lines.clear();
            let room = block.bytes.len() - kept;
            let want = usize::try_from(left).map_or(room, |left| left.min(room));
            let read = read_full(&mut file, &mut block.bytes[kept..kept + want]).map_err(fail)?;
            left -= read as u64;
            block.filled = kept + read;
            block.at_end = left == 0 || read < want;
            let start = cut_lines(&mut block, derive);
            next_line += block.lines.len();
            if block.at_end {
                block = match send(block) {
                    Some(next) => next,
                    None => return Ok(()),
                };
                break;
            }
            if start == 0 {
                // One line longer than the block: read on into a larger one.
                kept = block.filled;
                block.bytes.resize(block.bytes.len() * 2, 0);
                continue;
            }
            carry.clear();
            carry.extend_from_slice(&block.bytes[start..block.filled]);
            block = match send(block) {
                Some(next) => next,
                None => return Ok(()),
            };
            if block.bytes.len() < carry.len() * 2 {
                block.bytes.resize(carry.len() * 2, 0);
            }
            block.bytes[..carry.len()].copy_from_slice(&carry);
            kept = carry.len();
        }
    }
    Ok(())
}

/// Cuts the block's bytes into whole lines (and, at the segment's end, a torn one);
/// where the part of a line not yet read starts.
fn cut_lines<T>(block: &mut Block<T>, derive: &impl Fn(&[u8], bool) -> T) -> usize {
    let mut start = 0;
    while let Some(found) = memchr::memchr(b'\n', &block.bytes[start..block.filled]) {
        let line = start..start + found;
        let derived = derive(&block.bytes[line.clone()], true);
        block.lines.push((line, true, derived));
        start += found + 1;
    }
    if block.at_end && start < block.filled {
        let line = start..block.filled;
        let derived = derive(&block.bytes[line.clone()], false);
        block.lines.push((line, false, derived));
        start = block.filled;
    }
    start
}

/// Reads until `buffer` is full or the file ends; how much was read.
fn read_full(file: &mut File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut read = 0;
    while read < buffer.len() {
        match file.read(&mut buffer[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(read)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::Path;

    /// Texts whose lines every reader of a trail must cut alike whatever its block size:
    /// empty, newline only, no final newline, empty lines, a line longer than a block.
    pub(crate) const LINE_SHAPES: [&str; 7] = [
        "",
        "\n",
        "a",
        "a\n",
        "a\n\nbc\n",
        "abc\ndefgh\ni",
        "\n\nlonger than a block\nx\n",
    ];

    fn segment(dir: &Path, text: &[u8]) -> Segment {
        let path = dir.join("2026-01-01.jsonl");
        std::fs::write(&path, text).expect("written");
        Segment {
            path,
            day: "2026-01-01".to_string(),
        }
    }

    /// Line number, text, whether a newline ended it, whether its block ends the
    /// segment and it is the block's last line.
    type Found = (usize, Vec<u8>, bool, bool);

    fn found<T>(block: &Block<T>, into: &mut Vec<Found>) {
        let count = block.lines().len();
        for (n, (line, terminated, _)) in block.lines().enumerate() {
            let last = block.at_end && n + 1 == count;
            into.push((block.first_line + n, line.to_vec(), terminated, last));
        }
    }

    #[test]
    fn lines_keep_their_numbers_across_blocks_of_any_size() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for text in LINE_SHAPES {
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let expected: Vec<Found> = (lines.iter().enumerate())
                .map(|(n, line)| {
                    let bare = line.strip_suffix('\n');
                    let bytes = bare.unwrap_or(line).as_bytes().to_vec();
                    (n + 1, bytes, bare.is_some(), n + 1 == lines.len())
                })
                .collect();
            let segments = [segment(dir.path(), text.as_bytes())];
            for size in 1..=8 {
                let mut threaded = Vec::new();
                let derive = |text: &[u8], _| text.len();
                let visited = each_block_of(size, &segments, derive, |block| {
                    assert!(block.lines().all(|(line, _, len)| *len == line.len()));
                    found(block, &mut threaded);
                    Ok::<(), ()>(())
                });
                assert!(matches!(visited, Ok(Ok(()))));
                assert_eq!(threaded, expected, "{text:?} in blocks of {size}");
                // The same lines on this thread, from the start and from each line on.
                for skip in 0..=lines.len() {
                    let offset = lines[..skip].iter().map(|l| l.len() as u64).sum();
                    let from = Resume {
                        segment: 0,
                        offset,
                        number: skip,
                    };
                    let mut here = Vec::new();
                    let visited = each_block_here_of(size, &segments, from, |block| {
                        found(block, &mut here);
                        Ok::<(), ()>(())
                    });
                    assert!(matches!(visited, Ok(Ok(()))));
                    assert_eq!(
                        here,
                        expected[skip..],
                        "{text:?} from {skip}, blocks of {size}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_visit_that_stops_early_stops_the_reader() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let segments = [segment(dir.path(), "line\n".repeat(10_000).as_bytes())];
        let mut blocks = 0;
        let stopped = each_block_of(
            16,
            &segments,
            |_, _| (),
            |_| {
                blocks += 1;
                Err(())
            },
        );
        assert!(matches!(stopped, Ok(Err(()))));
        assert_eq!(blocks, 1);
        let mut blocks = 0;
        let stopped = each_block_here_of(16, &segments, Resume::default(), |_| {
            blocks += 1;
            Err(())
        });
        assert!(matches!(stopped, Ok(Err(()))));
        assert_eq!(blocks, 1);
        let gone = [Segment {
            path: dir.path().join("2026-01-02.jsonl"),
            day: "2026-01-02".to_string(),
        }];
        let failed = each_block_of(16, &gone, |_, _| (), |_| Ok::<(), ()>(()));
        assert!(failed.is_err());
    }
}
