//! The segments read a block of whole lines at a time on a thread of their own, for a
//! pass that spends as long on each line as `verify` does.
//!
//! The reading thread reads a block (1 MiB, more for a longer line), cuts it into lines
//! and derives what it can from each line on its own (for `verify`: the canonical check
//! and the SHA-256), then hands the block over; the caller's thread does what must go in
//! order (the chain, the lifecycle) and hands the block back to be filled again. Blocks
//! are reused, never freed on the other thread, and at most [`IN_FLIGHT`] wait at once,
//! so memory stays flat whatever the trail's size.

use super::error::TrailError;
use super::store::Segment;
use std::fs::File;
use std::io::Read;
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
            bytes: vec![0; size],
            filled: 0,
            lines: Vec::new(),
        }
    }

    /// The lines: text, whether a newline ended it, what was derived from it.
    pub fn lines(&self) -> impl Iterator<Item = (&[u8], bool, &T)> {
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
    for (index, segment) in segments.iter().enumerate() {
        let fail = |e: std::io::Error| TrailError::io(&segment.path, "read the segment", &e);
        let outcome = File::open(&segment.path)
            .map_err(fail)
            .and_then(|file| read_segment(index, file, derive, full, &take).map_err(fail));
        match outcome {
            Ok(true) => {}
            Ok(false) => return,
            Err(error) => {
                let _ = full.send(Err(error));
                return;
            }
        }
    }
}

/// One segment; false when the caller has stopped listening.
fn read_segment<T>(
    segment: usize,
    mut file: File,
    derive: &impl Fn(&[u8], bool) -> T,
    full: &Full<T>,
    take: &impl Fn() -> Block<T>,
) -> std::io::Result<bool> {
    let mut block = take();
    let (mut kept, mut next_line) = (0, 1);
    loop {
        block.segment = segment;
        block.first_line = next_line;
        block.lines.clear();
        let read = read_full(&mut file, &mut block.bytes[kept..])?;
        block.filled = kept + read;
        let at_end = block.filled < block.bytes.len();
        let mut start = 0;
        while let Some(found) = memchr::memchr(b'\n', &block.bytes[start..block.filled]) {
            let line = start..start + found;
            let derived = derive(&block.bytes[line.clone()], true);
            block.lines.push((line, true, derived));
            start += found + 1;
        }
        if at_end && start < block.filled {
            let line = start..block.filled;
            let derived = derive(&block.bytes[line.clone()], false);
            block.lines.push((line, false, derived));
            start = block.filled;
        }
        next_line += block.lines.len();
        if at_end {
            return Ok(full.send(Ok(block)).is_ok());
        }
        if start == 0 {
            // One line longer than the block: read on into a larger one.
            kept = block.filled;
            block.bytes.resize(block.bytes.len() * 2, 0);
            continue;
        }
        let mut next = take();
        let rest = block.filled - start;
        if next.bytes.len() < rest * 2 {
            next.bytes.resize(rest * 2, 0);
        }
        next.bytes[..rest].copy_from_slice(&block.bytes[start..block.filled]);
        kept = rest;
        if full.send(Ok(block)).is_err() {
            return Ok(false);
        }
        block = next;
    }
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

    #[test]
    fn lines_keep_their_numbers_across_blocks_of_any_size() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for text in LINE_SHAPES {
            // Line number, text, whether a newline ended it.
            let expected: Vec<(usize, Vec<u8>, bool)> = text
                .split_inclusive('\n')
                .enumerate()
                .map(|(n, line)| {
                    let bare = line.strip_suffix('\n');
                    let bytes = bare.unwrap_or(line).as_bytes().to_vec();
                    (n + 1, bytes, bare.is_some())
                })
                .collect();
            let segments = [segment(dir.path(), text.as_bytes())];
            for size in 1..=8 {
                let mut found = Vec::new();
                let derive = |text: &[u8], _| text.len();
                let visited = each_block_of(size, &segments, derive, |block| {
                    for (n, (line, terminated, len)) in block.lines().enumerate() {
                        assert_eq!(*len, line.len());
                        found.push((block.first_line + n, line.to_vec(), terminated));
                    }
                    Ok::<(), ()>(())
                });
                assert!(matches!(visited, Ok(Ok(()))));
                assert_eq!(found, expected, "{text:?} in blocks of {size}");
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
        let gone = [Segment {
            path: dir.path().join("2026-01-02.jsonl"),
            day: "2026-01-02".to_string(),
        }];
        let failed = each_block_of(16, &gone, |_, _| (), |_| Ok::<(), ()>(()));
        assert!(failed.is_err());
    }
}
