//! A line diff: Myers' O(ND) algorithm in linear space, for streaming changed lines.
//!
//! libgit2 can diff two blobs, but only after hashing both contents (when given buffers)
//! or looking up `.gitattributes` without a cache (when given blobs), and it stores every
//! line of the patch; on a large change that costs more than the diff. This module diffs
//! two contents directly and reports each removed and added line by its index, in order
//! (within a hunk, removed lines first, as in a patch).
//!
//! It makes the choices git's xdiff makes (without `--minimal`), so that its cost grows
//! like git's and the lines it reports are the ones `git diff` shows: lines found on one
//! side only, and lines the other side holds many times over that sit among those, are
//! changes without any search; the search runs on the lines left, and a region that costs
//! more than about the square root of its lines in edit steps (at least 256) is split
//! where the search got furthest rather than searched to the end. The result is always a
//! correct diff, and a minimal one wherever those shortcuts do not apply.

use super::LineSide;
use hashbrown::HashMap;
use std::ops::Range;

/// Diffs `old` and `new` line by line and calls `emit` with each removed line (by its
/// 0-based index in `old`) and each added line (by its index in `new`), in order.
pub(crate) fn diff_lines(old: &[u8], new: &[u8], mut emit: impl FnMut(LineSide, usize, &[u8])) {
    // Only the lines between the common first and last ones need numbering, storing and
    // searching; line `i` of a middle is line `skip + i` of its content.
    let (skip, old_rest, new_rest) = strip_common_first_lines(old, new);
    let (old_middle, new_middle, skip_end) = strip_common_last_lines(old_rest, new_rest);
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
    let common = skip + skip_end;
    let (old_changed, new_changed) = changed_lines(&a, &b, (common + a.len(), common + b.len()));
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
/// As in git's xdiff, a line found on one side only can only be a change, and so can a
/// line the other side holds many times over when it sits among such lines (a blank line
/// or a lone `end` in a rewritten block): those are marked first, and the search runs on
/// the lines left. On a file edited throughout, that is a much smaller problem, and the
/// lines it leaves out would only have paired with themselves by chance.
/// `lines` is how many lines each whole content has (git sizes "many times over" by it).
fn changed_lines(a: &[u32], b: &[u32], lines: (usize, usize)) -> (Vec<bool>, Vec<bool>) {
    let ids = a.iter().chain(b).max().map_or(0, |&max| max as usize + 1);
    let (mut in_a, mut in_b) = (vec![0u32; ids], vec![0u32; ids]);
    a.iter().for_each(|&id| in_a[id as usize] += 1);
    b.iter().for_each(|&id| in_b[id as usize] += 1);
    let mut old_changed = discarded(a, lines.0, &in_b);
    let mut new_changed = discarded(b, lines.1, &in_a);
    // The lines the search runs on, by their index on their side.
    let old_kept: Vec<usize> = (0..a.len()).filter(|&i| !old_changed[i]).collect();
    let new_kept: Vec<usize> = (0..b.len()).filter(|&j| !new_changed[j]).collect();
    let a: Vec<u32> = old_kept.iter().map(|&i| a[i]).collect();
    let b: Vec<u32> = new_kept.iter().map(|&j| b[j]).collect();
    let mut search = Search::new(a.len(), b.len());
    let mut pending = vec![Region {
        old: 0..a.len(),
        new: 0..b.len(),
        minimal: false,
    }];
    while let Some(region) = pending.pop() {
        let (old_range, new_range) = trim_common(&a, &b, region.old, region.new);
        let split = match (old_range.is_empty(), new_range.is_empty()) {
            (true, true) => continue,
            (false, false) => {
                search.split(&a, &b, old_range.clone(), new_range.clone(), region.minimal)
            }
            _ => None,
        };
        match split {
            Some(split) => {
                pending.push(Region {
                    old: split.x..old_range.end,
                    new: split.y..new_range.end,
                    minimal: split.minimal_after,
                });
                pending.push(Region {
                    old: old_range.start..split.x,
                    new: new_range.start..split.y,
                    minimal: split.minimal_before,
                });
            }
            None => {
                old_range.for_each(|i| old_changed[old_kept[i]] = true);
                new_range.for_each(|j| new_changed[new_kept[j]] = true);
            }
        }
    }
    (old_changed, new_changed)
}

/// The lines of one side left out of the search (true), as git's xdiff leaves them out:
/// a line the other side lacks, and a line the other side holds at least `√lines` times
/// (at most 1,024; `lines` counts this side's whole content) that sits in a run of such
/// lines mostly made of lines the other side lacks. `other_count` counts each line id on
/// the other side.
fn discarded(side: &[u32], lines: usize, other_count: &[u32]) -> Vec<bool> {
    let limit = approximate_sqrt(lines).min(MANY_MATCHES_MAX);
    let kinds: Vec<Matches> = side
        .iter()
        .map(|&id| match other_count[id as usize] {
            0 => Matches::None,
            count if count as usize >= limit => Matches::Many,
            _ => Matches::Some,
        })
        .collect();
    (0..side.len())
        .map(|i| match kinds[i] {
            Matches::None => true,
            Matches::Some => false,
            Matches::Many => among_unmatched_lines(&kinds, i),
        })
        .collect()
}

/// How many times over the other side may hold a line before it can be left out.
const MANY_MATCHES_MAX: usize = 1024;
/// How far [`among_unmatched_lines`] looks on each side of a line.
const RUN_WINDOW: usize = 100;

/// How often the other side holds a line.
#[derive(Clone, Copy, PartialEq)]
enum Matches {
    None,
    Some,
    Many,
}

/// Whether the line at `i` (matched many times over) sits in a run, reaching both ways
/// to a line matched few times, that holds unmatched lines on both sides of it and more
/// than three of them for each line matched many times (xdiff's `xdl_clean_mmatch`).
fn among_unmatched_lines(kinds: &[Matches], i: usize) -> bool {
    let start = i.saturating_sub(RUN_WINDOW);
    let end = (i + RUN_WINDOW).min(kinds.len() - 1);
    let run = |indices: &mut dyn Iterator<Item = usize>| {
        let (mut unmatched, mut many) = (0, 0);
        for j in indices {
            match kinds[j] {
                Matches::None => unmatched += 1,
                Matches::Many => many += 1,
                Matches::Some => break,
            }
        }
        (unmatched, many)
    };
    let (unmatched_before, many_before) = run(&mut (start..i).rev());
    if unmatched_before == 0 {
        return false;
    }
    let (unmatched_after, many_after) = run(&mut (i + 1..=end));
    if unmatched_after == 0 {
        return false;
    }
    let many = many_before + many_after + 2;
    let unmatched = unmatched_before + unmatched_after;
    many * 4 < many + unmatched
}

/// git's `xdl_bogosqrt`: a power of two near the square root of `n`.
fn approximate_sqrt(mut n: usize) -> usize {
    let mut root = 1;
    while n > 0 {
        n >>= 2;
        root <<= 1;
    }
    root
}

/// A part of the search still to do; `minimal` when it must be searched without a cost
/// limit (the side of a cut-off search the forward or backward frontier already crossed).
struct Region {
    old: Range<usize>,
    new: Range<usize>,
    minimal: bool,
}

/// Where a region is split in two, and which halves must be searched without a limit.
struct Split {
    x: usize,
    y: usize,
    minimal_before: bool,
    minimal_after: bool,
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

/// Drops the lines `old` and `new` end with in common: what is left of each, and how
/// many.
fn strip_common_last_lines<'a>(old: &'a [u8], new: &'a [u8]) -> (&'a [u8], &'a [u8], usize) {
    let (mut old, mut new, mut count) = (old, new, 0);
    while let (Some((old_rest, a)), Some((new_rest, b))) = (last_line(old), last_line(new)) {
        if a != b {
            break;
        }
        (old, new, count) = (old_rest, new_rest, count + 1);
    }
    (old, new, count)
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
    // The numbers follow the order lines are first seen in, whatever the hasher.
    let mut ids: HashMap<&'a [u8], u32> = HashMap::with_capacity(capacity);
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
    /// The most edit steps spent on a region before it is split where the search got
    /// furthest (git's `mxcost`: about the square root of the lines searched, at least
    /// [`MIN_COST`]).
    max_cost: usize,
}

impl Search {
    fn new(n: usize, m: usize) -> Search {
        let size = 2 * max_d(n, m) + 3;
        Search {
            forward: vec![0; size],
            backward: vec![0; size],
            offset: (size / 2) as isize,
            max_cost: approximate_sqrt(n + m + 3).max(MIN_COST),
        }
    }

    fn at(&self, k: isize) -> usize {
        (k + self.offset) as usize
    }

    /// Where an optimal edit path through the region crosses its middle; when that would
    /// cost more than `max_cost` edit steps (and `minimal` is false), where the forward
    /// or the backward search got furthest, as git's xdiff splits. `None` when no split
    /// inside the region is found, and then the region is reported as replaced.
    fn split(
        &mut self,
        a: &[u32],
        b: &[u32],
        old: Range<usize>,
        new: Range<usize>,
        minimal: bool,
    ) -> Option<Split> {
        let (n, m) = (old.len(), new.len());
        let delta = n as isize - m as isize;
        let odd = delta & 1 == 1;
        let (f1, b1) = (self.at(1), self.at(1));
        self.forward[f1] = 0;
        self.backward[b1] = 0;
        let (a_region, b_region) = (&a[old.clone()], &b[new.clone()]);
        // Past the middle, both halves cost less than the region: git searches them to
        // the end.
        let middle = |x: usize, y: usize| Split {
            x: old.start + x,
            y: new.start + y,
            minimal_before: true,
            minimal_after: true,
        };
        let max_cost = if minimal { usize::MAX } else { self.max_cost };
        for d in 0..max_d(n, m) as isize {
            if d as usize >= max_cost {
                return self.furthest(d - 1, n, m).map(|(x, y, forward)| Split {
                    x: old.start + x,
                    y: new.start + y,
                    minimal_before: forward,
                    minimal_after: !forward,
                });
            }
            if let Some((x, y)) = self.forward_round(a_region, b_region, d, delta, odd) {
                return Some(middle(x, y));
            }
            if let Some((x, y)) = self.backward_round(a_region, b_region, d, delta, odd) {
                return Some(middle(x, y));
            }
        }
        None
    }

    /// Round `d` of the forward search over the region `a`×`b`: each diagonal `k` from
    /// `d` down to `-d` (every other one) extended from its neighbours and along its
    /// snake. Where it overlaps the backward search of round `d - 1` (`odd` regions
    /// only), the start of that snake.
    fn forward_round(
        &mut self,
        a: &[u32],
        b: &[u32],
        d: isize,
        delta: isize,
        odd: bool,
    ) -> Option<(usize, usize)> {
        let (n, m) = (a.len(), b.len());
        let (offset, backward) = (self.offset, &self.backward);
        rounds(&mut self.forward, offset, d, |k, x_start| {
            // Below the region (`x < k`) `y` wraps past `m`, and the snake is empty.
            let y_start = x_start.wrapping_sub(k as usize);
            let (mut x, mut y) = (x_start, y_start);
            while x < n && y < m && a[x] == b[y] {
                x += 1;
                y += 1;
            }
            let overlaps =
                odd && (k - delta).abs() < d && x + backward[(offset + delta - k) as usize] >= n;
            (x, overlaps.then_some((x_start, y_start)))
        })
    }

    /// Round `d` of the backward search, as [`Self::forward_round`] from the region's
    /// far corner (`x` counts lines from the end); where it overlaps the forward search
    /// of round `d` (even regions only), the end of its snake, from the region's start.
    fn backward_round(
        &mut self,
        a: &[u32],
        b: &[u32],
        d: isize,
        delta: isize,
        odd: bool,
    ) -> Option<(usize, usize)> {
        let (n, m) = (a.len(), b.len());
        let (offset, forward) = (self.offset, &self.forward);
        rounds(&mut self.backward, offset, d, |k, x_start| {
            let (mut x, mut y) = (x_start, x_start.wrapping_sub(k as usize));
            if x < n && y < m {
                // The lines left before the snake's end, on each side.
                let (mut i, mut j) = (n - x, m - y);
                while i > 0 && j > 0 && a[i - 1] == b[j - 1] {
                    i -= 1;
                    j -= 1;
                }
                (x, y) = (n - i, m - j);
            }
            let overlaps =
                !odd && (k - delta).abs() <= d && x + forward[(offset + delta - k) as usize] >= n;
            // Off the region `x` may pass `n`: the point is asked for only on an overlap.
            (x, overlaps.then(|| (n - x, m - y)))
        })
    }

    /// After `d` rounds of both searches, the point inside an `n`×`m` region that the
    /// forward or the backward search reached furthest from its corner (in lines of both
    /// sides together), and whether it was the forward one; `None` when that point is a
    /// corner (no progress).
    fn furthest(&self, d: isize, n: usize, m: usize) -> Option<(usize, usize, bool)> {
        let reach = |frontier: &[usize], k: isize| {
            let x = frontier[self.at(k)].min(n);
            let y = x as isize - k;
            match y {
                y if y < 0 => None,
                y if y as usize > m => Some(((m as isize + k) as usize, m)),
                y => Some((x, y as usize)),
            }
        };
        // Only the diagonals that cross the region.
        let diagonals = (-d..=d)
            .step_by(2)
            .filter(|&k| -(m as isize) <= k && k <= n as isize);
        let best = |frontier: &[usize]| {
            diagonals
                .clone()
                .filter_map(|k| reach(frontier, k))
                .max_by_key(|&(x, y)| x + y)
        };
        let forward = best(&self.forward)?;
        let backward = best(&self.backward)?;
        let (x, y, is_forward) = if backward.0 + backward.1 < forward.0 + forward.1 {
            (forward.0, forward.1, true)
        } else {
            (n - backward.0, m - backward.1, false)
        };
        let corner = (x == 0 && y == 0) || (x == n && y == m);
        (!corner).then_some((x, y, is_forward))
    }
}

/// Runs round `d` over the diagonals `d`, `d - 2`, … `-d` of `frontier` (diagonal `k`
/// at `offset + k`), each continued from the neighbour of the round before that reached
/// further (the one above on the lowest diagonal, the one below on the highest): `step`
/// gets the diagonal and where it starts, and gives where it ends, with what was found
/// there, which ends the round.
fn rounds<T>(
    frontier: &mut [usize],
    offset: isize,
    d: isize,
    mut step: impl FnMut(isize, usize) -> (usize, Option<T>),
) -> Option<T> {
    let (lowest, highest) = ((offset - d) as usize, (offset + d) as usize);
    // Pairs of slots: the diagonal below (read), the diagonal (written); the last slot
    // is the diagonal above the highest.
    let window = &mut frontier[lowest - 1..=highest + 1];
    let (pairs, top) = window.split_at_mut(window.len() - 1);
    let mut above = top[0];
    let mut k = d;
    for pair in pairs.chunks_exact_mut(2).rev() {
        let below = pair[0];
        let start = if k == -d || (k != d && below < above) {
            above
        } else {
            below + 1
        };
        let (end, found) = step(k, start);
        pair[1] = end;
        if found.is_some() {
            return found;
        }
        above = below;
        k -= 2;
    }
    None
}

/// The least edit steps spent on a region before it may be split where the search got
/// furthest (git's `XDL_MAX_COST_MIN`).
const MIN_COST: usize = 256;

fn max_d(n: usize, m: usize) -> usize {
    (n + m).div_ceil(2) + 1
}

#[cfg(test)]
mod tests;
