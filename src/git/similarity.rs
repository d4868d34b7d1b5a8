//! How similar two files are, measured the way git measures it for `-M` and `-C`.
//!
//! Git cuts a file into chunks that end at a newline or after 64 bytes, whichever comes
//! first, hashes each chunk into one of about 2^17 buckets and counts the bytes per bucket
//! (a `\r` before a `\n` is left out of text files). The bytes of the destination that the
//! source also holds, bucket by bucket, divided by the larger of the two sizes, is the
//! similarity: [`MAX_SCORE`] is 100%. Before any content is read, a pair whose sizes are
//! too far apart to reach the minimum score is rejected on the sizes alone.
//!
//! The arithmetic follows git's `diffcore-delta.c` and `estimate_similarity` to the bit,
//! so that a pair git calls a rename is one here too: the differential script
//! (`scripts/renames-vs-git.sh`) holds the two to the same answers on real histories.

/// 100% similar, git's `MAX_SCORE`.
pub(super) const MAX_SCORE: u64 = 60_000;

/// The least similarity of a rename or copy: git's default, 50% (`-M50%`).
pub(super) const MIN_SCORE: u64 = MAX_SCORE / 2;

/// The least similarity of a rename between two files with the same name in different
/// directories, found before the exhaustive search: git's, halfway from [`MIN_SCORE`] to
/// 100% (75%).
pub(super) const MIN_BASENAME_SCORE: u64 = MIN_SCORE + (MAX_SCORE - MIN_SCORE) / 2;

/// Git's hash modulus: a prime between 2^16 and 2^17.
const HASH_BASE: u32 = 107_927;

/// The longest chunk: a line longer than this is cut.
const MAX_CHUNK: u32 = 64;

/// A file's chunks: `(hash, bytes)`, sorted by hash, one entry per hash.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Chunks(Vec<(u32, u32)>);

impl Chunks {
    /// Cuts `content` into chunks; `text` leaves out the `\r` of each `\r\n`.
    pub(super) fn of(content: &[u8], text: bool) -> Chunks {
        let mut chunks = Vec::with_capacity(content.len() / 32 + 1);
        let (mut accum1, mut accum2, mut length) = (0u32, 0u32, 0u32);
        for (index, &byte) in content.iter().enumerate() {
            if text && byte == b'\r' && content.get(index + 1) == Some(&b'\n') {
                continue;
            }
            let old1 = accum1;
            accum1 = (accum1 << 7) ^ (accum2 >> 25);
            accum2 = (accum2 << 7) ^ (old1 >> 25);
            accum1 = accum1.wrapping_add(u32::from(byte));
            length += 1;
            if length < MAX_CHUNK && byte != b'\n' {
                continue;
            }
            chunks.push((chunk_hash(accum1, accum2), length));
            (accum1, accum2, length) = (0, 0, 0);
        }
        if length > 0 {
            chunks.push((chunk_hash(accum1, accum2), length));
        }
        chunks.sort_unstable_by_key(|&(hash, _)| hash);
        chunks.dedup_by(|next, kept| {
            let same = next.0 == kept.0;
            if same {
                kept.1 += next.1;
            }
            same
        });
        Chunks(chunks)
    }

    /// The bytes of `destination` that this source holds too, bucket by bucket.
    pub(super) fn copied_to(&self, destination: &Chunks) -> u64 {
        let theirs = &destination.0;
        let (mut copied, mut next) = (0u64, 0);
        for &(hash, count) in &self.0 {
            while next < theirs.len() && theirs[next].0 < hash {
                next += 1;
            }
            if next < theirs.len() && theirs[next].0 == hash {
                copied += u64::from(count.min(theirs[next].1));
                next += 1;
            }
        }
        copied
    }
}

fn chunk_hash(accum1: u32, accum2: u32) -> u32 {
    accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASH_BASE
}

/// Whether files of these sizes can be `minimum` similar at all: git rejects a pair whose
/// size difference is more than `(100% - minimum)` of the larger size.
pub(super) fn sizes_allow(source: u64, destination: u64, minimum: u64) -> bool {
    let larger = u128::from(source.max(destination));
    let difference = u128::from(source.abs_diff(destination));
    larger * u128::from(MAX_SCORE - minimum) >= difference * u128::from(MAX_SCORE)
}

/// The similarity score of a pair, from the bytes copied and the two sizes.
pub(super) fn score(source_size: u64, destination_size: u64, copied: u64) -> u64 {
    let larger = source_size.max(destination_size);
    if destination_size == 0 || larger == 0 {
        return 0;
    }
    (u128::from(copied) * u128::from(MAX_SCORE) / u128::from(larger)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn similarity(old: &[u8], new: &[u8]) -> u64 {
        let copied = Chunks::of(old, true).copied_to(&Chunks::of(new, true));
        score(old.len() as u64, new.len() as u64, copied)
    }

    #[test]
    fn identical_contents_are_fully_similar_and_disjoint_ones_not_at_all() {
        let text: String = (0..50).map(|i| format!("line {i}\n")).collect();
        assert_eq!(similarity(text.as_bytes(), text.as_bytes()), MAX_SCORE);
        let other: String = (0..50).map(|i| format!("other {i}\n")).collect();
        assert_eq!(similarity(text.as_bytes(), other.as_bytes()), 0);
    }

    #[test]
    fn half_the_lines_kept_is_about_half_similar() {
        let old: String = (0..100).map(|i| format!("line number {i:03}\n")).collect();
        let new: String = (0..100)
            .map(|i| {
                if i < 50 {
                    format!("line number {i:03}\n")
                } else {
                    format!("edit number {i:03}\n")
                }
            })
            .collect();
        assert_eq!(similarity(old.as_bytes(), new.as_bytes()), MAX_SCORE / 2);
    }

    #[test]
    fn a_crlf_text_matches_its_lf_twin_but_binary_content_keeps_its_cr() {
        let lf = "a\nbb\nccc\n";
        let crlf = "a\r\nbb\r\nccc\r\n";
        assert_eq!(
            Chunks::of(lf.as_bytes(), true),
            Chunks::of(crlf.as_bytes(), true)
        );
        assert_ne!(
            Chunks::of(lf.as_bytes(), false),
            Chunks::of(crlf.as_bytes(), false)
        );
    }

    #[test]
    fn long_lines_are_cut_every_64_bytes_and_a_last_line_without_newline_counts() {
        let long = vec![b'x'; 200];
        let chunks = Chunks::of(&long, false);
        let total: u32 = chunks.0.iter().map(|&(_, count)| count).sum();
        assert_eq!(total, 200);
        // Three full chunks of the same bytes share a bucket; the 8-byte rest has its own.
        assert_eq!(chunks.0.len(), 2);
        let counts: Vec<u32> = chunks.0.iter().map(|&(_, count)| count).collect();
        assert!(counts.contains(&192) && counts.contains(&8), "{counts:?}");
    }

    #[test]
    fn repeated_lines_count_once_per_copy_held_by_both() {
        let old = "x\nx\nx\ny\n";
        let new = "x\ny\ny\ny\n";
        // Both hold one "x\n" and one "y\n": 4 of the new file's 8 bytes.
        let copied = Chunks::of(old.as_bytes(), true).copied_to(&Chunks::of(new.as_bytes(), true));
        assert_eq!(copied, 4);
    }

    #[test]
    fn the_size_filter_is_gits() {
        // 50%: the smaller must be at least half the larger.
        assert!(sizes_allow(100, 200, MIN_SCORE));
        assert!(!sizes_allow(99, 200, MIN_SCORE));
        assert!(sizes_allow(0, 0, MIN_SCORE));
        assert!(!sizes_allow(0, 1, MIN_SCORE));
        // 75%: at least three quarters.
        assert!(sizes_allow(150, 200, MIN_BASENAME_SCORE));
        assert!(!sizes_allow(149, 200, MIN_BASENAME_SCORE));
        assert_eq!(MIN_BASENAME_SCORE, 45_000);
    }

    #[test]
    fn an_empty_destination_scores_nothing() {
        assert_eq!(score(0, 0, 0), 0);
        assert_eq!(score(10, 0, 0), 0);
    }
}
