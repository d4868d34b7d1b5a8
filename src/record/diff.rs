//! A small line diff (longest common subsequence) in unified format, for `fmt --check`.
//!
//! Common leading and trailing lines are set aside first, so the quadratic table only
//! covers the changed middle; a middle too large for it is shown as one replacement.

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The largest LCS table (cells) the diff builds before falling back to a replacement.
const MAX_TABLE: usize = 16_000_000;

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

fn diff_ops(old: &[&str], new: &[&str]) -> Vec<Op> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let mut ops = vec![Op::Equal; prefix];
    if a.len().saturating_mul(b.len()) > MAX_TABLE {
        ops.extend(std::iter::repeat_n(Op::Delete, a.len()));
        ops.extend(std::iter::repeat_n(Op::Insert, b.len()));
    } else {
        ops.extend(lcs_ops(a, b));
    }
    ops.extend(std::iter::repeat_n(Op::Equal, suffix));
    ops
}

fn lcs_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let width = b.len() + 1;
    let mut table = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            table[i * width + j] = if a[i] == b[j] {
                table[(i + 1) * width + j + 1] + 1
            } else {
                table[(i + 1) * width + j].max(table[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j, mut ops) = (0, 0, Vec::with_capacity(a.len() + b.len()));
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push(Op::Equal);
            (i, j) = (i + 1, j + 1);
        } else if i < a.len()
            && (j == b.len() || table[(i + 1) * width + j] >= table[i * width + j + 1])
        {
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
            unified_diff("", "new\n", "n"),
            "--- a/n\n+++ b/n\n@@ -0,0 +1,1 @@\n+new\n"
        );
    }
}
