//! A unified diff, for `fmt --check`, over the one line diff `handoff` has (the one the
//! classifier streams a change with).

use crate::git::{diff_lines, LineSide};

/// Lines of context around each change.
const CONTEXT: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Equal,
    Delete,
    Insert,
}

/// A unified diff of `old` against `new` with `--- a/NAME` / `+++ b/NAME` headers; empty
/// when they are equal.
pub fn unified_diff(old: &str, new: &str, name: &str) -> String {
    if old == new {
        return String::new();
    }
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = diff_ops(&old_lines, &new_lines);
    let shown = name.trim_start_matches('/');
    let mut out = format!("--- a/{shown}\n+++ b/{shown}\n");
    for hunk in hunks(&ops) {
        write_hunk(
            &mut out,
            &ops[hunk.clone()],
            position(&ops, hunk.start),
            &old_lines,
            &new_lines,
        );
    }
    out
}

/// The edit script from `old` to `new` (their lines, terminators kept), from the line
/// diff the classifier streams changes with ([`crate::git::diff_lines`], which compares
/// lines without their `\n`): two lines it pairs that differ in their terminator, the
/// last line with and without a final new line, are a change.
fn diff_ops(old: &[&str], new: &[&str]) -> Vec<Op> {
    let mut removed = vec![false; old.len()];
    let mut added = vec![false; new.len()];
    let (old_text, new_text) = (old.concat(), new.concat());
    diff_lines(
        old_text.as_bytes(),
        new_text.as_bytes(),
        |side, index, _| {
            let marks = match side {
                LineSide::Removed => &mut removed,
                LineSide::Added => &mut added,
            };
            if let Some(mark) = marks.get_mut(index) {
                *mark = true;
            }
        },
    );
    let (mut i, mut j, mut ops) = (0, 0, Vec::with_capacity(old.len() + new.len()));
    while i < old.len() || j < new.len() {
        let paired = i < old.len() && j < new.len() && !removed[i] && !added[j];
        if paired && old[i] == new[j] {
            ops.push(Op::Equal);
            (i, j) = (i + 1, j + 1);
        } else if i < old.len() && (removed[i] || paired) {
            ops.push(Op::Delete);
            i += 1;
        } else {
            ops.push(Op::Insert);
            j += 1;
        }
    }
    ops
}

/// Ranges of `ops` that form hunks: changes with their context, nearby changes merged.
fn hunks(ops: &[Op]) -> Vec<std::ops::Range<usize>> {
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
    for (index, op) in ops.iter().enumerate() {
        if *op == Op::Equal {
            continue;
        }
        let start = index.saturating_sub(CONTEXT);
        let end = (index + 1 + CONTEXT).min(ops.len());
        match ranges.last_mut() {
            Some(last) if start <= last.end => last.end = end,
            _ => ranges.push(start..end),
        }
    }
    ranges
}

/// The (old, new) line indexes where op `index` starts.
fn position(ops: &[Op], index: usize) -> (usize, usize) {
    ops[..index].iter().fold((0, 0), |(old, new), op| match op {
        Op::Equal => (old + 1, new + 1),
        Op::Delete => (old + 1, new),
        Op::Insert => (old, new + 1),
    })
}

fn write_hunk(
    out: &mut String,
    ops: &[Op],
    (old_start, new_start): (usize, usize),
    old: &[&str],
    new: &[&str],
) {
    let old_count = ops.iter().filter(|op| **op != Op::Insert).count();
    let new_count = ops.iter().filter(|op| **op != Op::Delete).count();
    let shown = |start: usize, count: usize| if count == 0 { start } else { start + 1 };
    out.push_str(&format!(
        "@@ -{},{old_count} +{},{new_count} @@\n",
        shown(old_start, old_count),
        shown(new_start, new_count)
    ));
    let (mut i, mut j) = (old_start, new_start);
    for op in ops {
        let (marker, line) = match op {
            Op::Equal => {
                (i, j) = (i + 1, j + 1);
                (' ', old[i - 1])
            }
            Op::Delete => {
                i += 1;
                ('-', old[i - 1])
            }
            Op::Insert => {
                j += 1;
                ('+', new[j - 1])
            }
        };
        out.push(marker);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_are_unified_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nD\ne\nf\ng\nh\n";
        assert_eq!(
            unified_diff(old, new, "x.md"),
            "--- a/x.md\n+++ b/x.md\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n"
        );
        assert_eq!(unified_diff(old, old, "x.md"), "");
        assert_eq!(
            unified_diff("x", "y\n", "n"),
            "--- a/n\n+++ b/n\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+y\n"
        );
        assert_eq!(
            unified_diff("a\nb", "a\nb\n", "n"),
            "--- a/n\n+++ b/n\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
        );
        assert_eq!(
            unified_diff("", "new\n", "n"),
            "--- a/n\n+++ b/n\n@@ -0,0 +1,1 @@\n+new\n"
        );
    }
}
