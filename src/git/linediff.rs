//! A line diff: Myers' O(ND) algorithm in linear space, for streaming changed lines.
//!
//! libgit2 can diff two blobs, but only after hashing both contents (when given buffers)
//! or looking up `.gitattributes` without a cache (when given blobs), and it stores every
//! line of the patch; on a large change that costs more than the diff. This module diffs
//! two contents directly and reports each removed and added line by its index, in order
//! (within a hunk, removed lines first, as in a patch).
//!
//! Lines found on one side only are changes without any search, as in git's xdiff; the
//! search runs on the lines both sides hold. The result is a minimal edit script, except
//! where a region would cost more than [`MAX_COST`] edit steps to resolve: like git's
//! xdiff heuristics, such a region is reported as entirely removed and re-added, which is
//! still a correct (if longer) diff.

use super::LineSide;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;

/// The most edit steps spent searching one region before it is reported as replaced.
const MAX_COST: usize = 4096;

/// Diffs `old` and `new` line by line and calls `emit` with each removed line (by its
/// 0-based index in `old`) and each added line (by its index in `new`), in order.
pub(crate) fn diff_lines(old: &[u8], new: &[u8], mut emit: impl FnMut(LineSide, usize, &[u8])) {
    // Only the lines between the common first and last ones need numbering, storing and
    // searching; line `i` of a middle is line `skip + i` of its content.
    let (skip, old_rest, new_rest) = strip_common_first_lines(old, new);
    let (old_middle, new_middle) = strip_common_last_lines(old_rest, new_rest);
    if old_middle.is_empty() || new_middle.is_empty() {
        // A pure insertion or deletion: nothing to search, nothing to store.
        for (index, line) in lines(old_middle).enumerate() {
            emit(LineSide::Removed, skip + index, line);
        }
        for (index, line) in lines(new_middle).enumerate() {
            emit(LineSide::Added, skip + index, line);
        }
        return;
    }
    let old_lines: Vec<&[u8]> = lines(old_middle).collect();
    let new_lines: Vec<&[u8]> = lines(new_middle).collect();
    let (a, b) = intern(&old_lines, &new_lines);
    let (old_changed, new_changed) = changed_lines(&a, &b);
    // Unchanged lines pair up in order; between two pairs, the changed lines of each side
    // form one hunk, removed lines first.
    let (mut i, mut j) = (0, 0);
    loop {
        while i < a.len() && j < b.len() && !old_changed[i] && !new_changed[j] {
            i += 1;
            j += 1;
        }
        let (old_start, new_start) = (i, j);
        while i < a.len() && old_changed[i] {
            i += 1;
        }
        while j < b.len() && new_changed[j] {
            j += 1;
        }
        if i == old_start && j == new_start {
            break;
        }
        for (index, line) in old_lines.iter().enumerate().take(i).skip(old_start) {
            emit(LineSide::Removed, skip + index, line);
        }
        for (index, line) in new_lines.iter().enumerate().take(j).skip(new_start) {
            emit(LineSide::Added, skip + index, line);
        }
    }
}

/// Which lines of `a` were removed and which of `b` were added, by line id.
///
/// A line found on one side only can only be a change, so, as git's xdiff does, those
/// lines are marked first and the search runs on the lines both sides hold: on a file
/// edited throughout, that is a much smaller problem, and the edit script stays minimal
/// (no common subsequence holds a line one side lacks).
fn changed_lines(a: &[u32], b: &[u32]) -> (Vec<bool>, Vec<bool>) {
    let ids = a.iter().chain(b).max().map_or(0, |&max| max as usize + 1);
    let (mut in_a, mut in_b) = (vec![false; ids], vec![false; ids]);
    a.iter().for_each(|&id| in_a[id as usize] = true);
    b.iter().for_each(|&id| in_b[id as usize] = true);
    let mut old_changed: Vec<bool> = a.iter().map(|&id| !in_b[id as usize]).collect();
    let mut new_changed: Vec<bool> = b.iter().map(|&id| !in_a[id as usize]).collect();
    // The lines both sides hold, by their index on their side.
    let old_kept: Vec<usize> = (0..a.len()).filter(|&i| !old_changed[i]).collect();
    let new_kept: Vec<usize> = (0..b.len()).filter(|&j| !new_changed[j]).collect();
    let a: Vec<u32> = old_kept.iter().map(|&i| a[i]).collect();
    let b: Vec<u32> = new_kept.iter().map(|&j| b[j]).collect();
    let mut search = Search::new(a.len(), b.len());
    let mut pending = vec![(0..a.len(), 0..b.len())];
    while let Some((old_range, new_range)) = pending.pop() {
        let (old_range, new_range) = trim_common(&a, &b, old_range, new_range);
        let snake = match (old_range.is_empty(), new_range.is_empty()) {
            (true, true) => continue,
            (false, false) => search.middle_snake(&a, &b, old_range.clone(), new_range.clone()),
            _ => None,
        };
        match snake {
            Some((x, y)) => {
                pending.push((x..old_range.end, y..new_range.end));
                pending.push((old_range.start..x, new_range.start..y));
            }
            None => {
                old_range.for_each(|i| old_changed[old_kept[i]] = true);
                new_range.for_each(|j| new_changed[new_kept[j]] = true);
            }
        }
    }
    (old_changed, new_changed)
}

/// Drops the lines `old` and `new` start with in common: how many, and what is left of
/// each.
fn strip_common_first_lines<'a>(old: &'a [u8], new: &'a [u8]) -> (usize, &'a [u8], &'a [u8]) {
    let (mut old, mut new, mut count) = (old, new, 0);
    while let (Some((a, old_rest)), Some((b, new_rest))) = (first_line(old), first_line(new)) {
        if a != b {
            break;
        }
        (old, new, count) = (old_rest, new_rest, count + 1);
    }
    (count, old, new)
}

/// Drops the lines `old` and `new` end with in common.
fn strip_common_last_lines<'a>(old: &'a [u8], new: &'a [u8]) -> (&'a [u8], &'a [u8]) {
    let (mut old, mut new) = (old, new);
    while let (Some((old_rest, a)), Some((new_rest, b))) = (last_line(old), last_line(new)) {
        if a != b {
            break;
        }
        (old, new) = (old_rest, new_rest);
    }
    (old, new)
}

/// The first of the [`lines`] of `content` and the content after it, if it has one.
fn first_line(content: &[u8]) -> Option<(&[u8], &[u8])> {
    if content.is_empty() {
        return None;
    }
    Some(match memchr::memchr(b'\n', content) {
        Some(end) => (&content[..end], &content[end + 1..]),
        None => (content, &[]),
    })
}

/// The content before the last of the [`lines`] of `content` (ending with its `\n`), and
/// that line, if it has one.
fn last_line(content: &[u8]) -> Option<(&[u8], &[u8])> {
    if content.is_empty() {
        return None;
    }
    let body = content.strip_suffix(b"\n").unwrap_or(content);
    Some(match memchr::memrchr(b'\n', body) {
        Some(end) => (&content[..end + 1], &body[end + 1..]),
        None => (&[], body),
    })
}

/// The lines of a content, without their `\n` terminators: `content.split(|b| b == b'\n')`
/// without the final empty piece, but found with `memchr`, which reads a word (or a
/// vector) at a time instead of a byte at a time.
pub(super) fn lines(content: &[u8]) -> impl Iterator<Item = &[u8]> {
    // An empty content has no line; "\n" has one, empty.
    let mut rest = (!content.is_empty()).then(|| content.strip_suffix(b"\n").unwrap_or(content));
    std::iter::from_fn(move || {
        let text = rest?;
        match memchr::memchr(b'\n', text) {
            Some(end) => {
                rest = Some(&text[end + 1..]);
                Some(&text[..end])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

fn common_prefix<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Replaces each distinct line by a small number, so lines compare in one instruction.
fn intern<'a>(old: &[&'a [u8]], new: &[&'a [u8]]) -> (Vec<u32>, Vec<u32>) {
    let capacity = old.len() + new.len();
    let mut ids: HashMap<&'a [u8], u32, BuildHasherDefault<FxHasher>> =
        HashMap::with_capacity_and_hasher(capacity, BuildHasherDefault::default());
    let mut id_of = |line: &&'a [u8]| {
        let next = ids.len() as u32;
        *ids.entry(*line).or_insert(next)
    };
    let a = old.iter().map(&mut id_of).collect();
    let b = new.iter().map(&mut id_of).collect();
    (a, b)
}

/// Shrinks both ranges by their common first and last lines.
fn trim_common(
    a: &[u32],
    b: &[u32],
    old: Range<usize>,
    new: Range<usize>,
) -> (Range<usize>, Range<usize>) {
    let prefix = common_prefix(&a[old.clone()], &b[new.clone()]);
    let (old, new) = (old.start + prefix..old.end, new.start + prefix..new.end);
    let suffix = common_suffix(&a[old.clone()], &b[new.clone()]);
    (old.start..old.end - suffix, new.start..new.end - suffix)
}

/// The forward and backward frontiers of the middle-snake search, reused across regions.
struct Search {
    forward: Vec<usize>,
    backward: Vec<usize>,
    offset: isize,
}

impl Search {
    fn new(n: usize, m: usize) -> Search {
        let size = 2 * max_d(n, m).min(MAX_COST + 1) + 3;
        Search {
            forward: vec![0; size],
            backward: vec![0; size],
            offset: (size / 2) as isize,
        }
    }

    fn at(&self, k: isize) -> usize {
        (k + self.offset) as usize
    }

    /// Where an optimal edit path through the region crosses its middle, as a split
    /// point `(x, y)`; `None` when the region costs more than [`MAX_COST`] to search.
    fn middle_snake(
        &mut self,
        a: &[u32],
        b: &[u32],
        old: Range<usize>,
        new: Range<usize>,
    ) -> Option<(usize, usize)> {
        let (n, m) = (old.len(), new.len());
        let delta = n as isize - m as isize;
        let odd = delta & 1 == 1;
        let (f1, b1) = (self.at(1), self.at(1));
        self.forward[f1] = 0;
        self.backward[b1] = 0;
        let same = |x: usize, y: usize| a[old.start + x] == b[new.start + y];
        let same_back = |x: usize, y: usize| a[old.start + n - x - 1] == b[new.start + m - y - 1];
        for d in 0..max_d(n, m).min(MAX_COST) as isize {
            for k in (-d..=d).rev().step_by(2) {
                let (below, above) = (self.forward[self.at(k - 1)], self.forward[self.at(k + 1)]);
                let mut x = if k == -d || (k != d && below < above) {
                    above
                } else {
                    below + 1
                };
                let (x0, y0) = (x, (x as isize - k) as usize);
                let mut y = y0;
                while x < n && y < m && same(x, y) {
                    x += 1;
                    y += 1;
                }
                let slot = self.at(k);
                self.forward[slot] = x;
                if odd && (k - delta).abs() < d && x + self.backward[self.at(delta - k)] >= n {
                    return Some((old.start + x0, new.start + y0));
                }
            }
            for k in (-d..=d).rev().step_by(2) {
                let (below, above) = (self.backward[self.at(k - 1)], self.backward[self.at(k + 1)]);
                let mut x = if k == -d || (k != d && below < above) {
                    above
                } else {
                    below + 1
                };
                let mut y = (x as isize - k) as usize;
                while x < n && y < m && same_back(x, y) {
                    x += 1;
                    y += 1;
                }
                let slot = self.at(k);
                self.backward[slot] = x;
                if !odd && (k - delta).abs() <= d && x + self.forward[self.at(delta - k)] >= n {
                    return Some((old.start + n - x, new.start + m - y));
                }
            }
        }
        None
    }
}

fn max_d(n: usize, m: usize) -> usize {
    (n + m).div_ceil(2) + 1
}

/// The Fx hash (as in rustc): fast for short keys, and collisions only cost time.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(SEED);
        }
        for &byte in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(byte)).wrapping_mul(SEED);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn split_lines(content: &[u8]) -> Vec<&[u8]> {
        lines(content).collect()
    }

    /// Applies the reported edits to `old` and checks the result is `new`; returns the
    /// number of edits.
    fn check(old: &[u8], new: &[u8]) -> usize {
        let (old_lines, new_lines) = (split_lines(old), split_lines(new));
        let mut removed = Vec::new();
        let mut added = Vec::new();
        diff_lines(old, new, |side, index, line| match side {
            LineSide::Removed => removed.push((index, line.to_vec())),
            LineSide::Added => added.push((index, line.to_vec())),
        });
        let increasing = |edits: &[(usize, Vec<u8>)]| edits.windows(2).all(|w| w[0].0 < w[1].0);
        assert!(
            increasing(&removed) && increasing(&added),
            "edits come in order"
        );
        let kept: Vec<&[u8]> = (0..old_lines.len())
            .filter(|i| !removed.iter().any(|(r, _)| r == i))
            .map(|i| old_lines[i])
            .collect();
        let unchanged: Vec<&[u8]> = (0..new_lines.len())
            .filter(|i| !added.iter().any(|(a, _)| a == i))
            .map(|i| new_lines[i])
            .collect();
        assert_eq!(
            kept, unchanged,
            "the lines left alone must be the same on both sides"
        );
        for (index, line) in &added {
            assert_eq!(new_lines[*index], line.as_slice());
        }
        for (index, line) in &removed {
            assert_eq!(old_lines[*index], line.as_slice());
        }
        removed.len() + added.len()
    }

    /// The size of a minimal edit script, by dynamic programming over the LCS.
    fn minimal_edits(old: &[u8], new: &[u8]) -> usize {
        let (a, b) = (split_lines(old), split_lines(new));
        let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i][j] = if a[i] == b[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        a.len() + b.len() - 2 * lcs[0][0]
    }

    #[test]
    fn reports_insertions_deletions_and_replacements_in_order() {
        let mut edits = Vec::new();
        diff_lines(b"a\nb\nc\nd\n", b"a\nB\nc\nd\ne\n", |side, index, line| {
            edits.push((side, index, String::from_utf8_lossy(line).into_owned()));
        });
        assert_eq!(
            edits,
            [
                (LineSide::Removed, 1, "b".to_string()),
                (LineSide::Added, 1, "B".to_string()),
                (LineSide::Added, 4, "e".to_string()),
            ]
        );
    }

    #[test]
    fn handles_empty_sides_and_missing_final_newlines() {
        assert_eq!(check(b"", b"x\ny"), 2);
        assert_eq!(check(b"x\ny\n", b""), 2);
        assert_eq!(check(b"x\ny", b"x\ny\n"), 0);
        assert_eq!(check(b"", b""), 0);
    }

    #[test]
    fn a_region_too_costly_to_search_is_still_a_valid_diff() {
        let old: String = (0..6000).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..6000)
            .map(|i| {
                if i % 2 == 0 {
                    format!("line {i}\n")
                } else {
                    format!("changed {i}\n")
                }
            })
            .collect();
        let edits = check(old.as_bytes(), new.as_bytes());
        assert!(edits >= 6000, "{edits}");
    }

    proptest! {
        #[test]
        fn the_edit_script_is_valid_and_minimal(
            old in proptest::collection::vec(0u8..4, 0..40),
            new in proptest::collection::vec(0u8..4, 0..40),
        ) {
            let render = |lines: &[u8]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
            let (old, new) = (render(&old), render(&new));
            let edits = check(old.as_bytes(), new.as_bytes());
            prop_assert_eq!(edits, minimal_edits(old.as_bytes(), new.as_bytes()));
        }

        #[test]
        fn empty_lines_and_missing_final_newlines_diff_minimally(
            old in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'\n')], 0..30),
            new in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'\n')], 0..30),
        ) {
            let edits = check(&old, &new);
            prop_assert_eq!(edits, minimal_edits(&old, &new));
        }

        #[test]
        fn lines_split_like_the_standard_library(
            content in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'\r'), Just(b'\n')], 0..30),
        ) {
            let expected: Vec<&[u8]> = if content.is_empty() {
                Vec::new()
            } else {
                let body = content.strip_suffix(b"\n").unwrap_or(&content);
                body.split(|&byte| byte == b'\n').collect()
            };
            prop_assert_eq!(split_lines(&content), expected);
        }
    }
}
