//! Tests of the line diff: edit scripts checked for validity and, where no line repeats
//! much, minimality (properties); git's choices among rewritten lines; regions past the
//! cost limit.

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

#[test]
fn a_region_past_the_cost_limit_is_split_where_the_search_got_furthest() {
    // Every line matched once, in the opposite order: the edit path costs 4,000 steps,
    // far past the limit of 256, and the split regions must still make a valid diff.
    let old: String = (0..2000).map(|i| format!("line {i}\n")).collect();
    let new: String = (0..2000).rev().map(|i| format!("line {i}\n")).collect();
    let edits = check(old.as_bytes(), new.as_bytes());
    assert!(edits >= 3998, "{edits}");
}

fn render(lines: &[u8]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_line_repeated_among_rewritten_lines_is_left_out_as_git_does() {
    // 100 lines a side, so a line the other side holds 16 times or more is "many times
    // over"; the 20 blank lines sit among lines the other side lacks (four to one) and
    // are reported as changed, where a minimal diff would keep them (the first one is
    // common to both and kept).
    let side = |name: &str| -> String {
        (0..100)
            .map(|i| {
                if i % 5 == 0 {
                    "\n".to_string()
                } else {
                    format!("{name} {i}\n")
                }
            })
            .collect()
    };
    let (old, new) = (side("old"), side("new"));
    let edits = check(old.as_bytes(), new.as_bytes());
    assert_eq!(edits, 198);
    assert!(edits > minimal_edits(old.as_bytes(), new.as_bytes()));
}

/// Cases of the costly property below (each diffs two files of up to 1,500 lines past
/// the cost limit): 256 by default, 32 under CI (`CI` set), where the suite's time
/// is what grows and the small properties above keep their 256.
fn costly_cases() -> u32 {
    match std::env::var_os("CI") {
        Some(_) => 32,
        None => 256,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(costly_cases()))]

    #[test]
    fn the_edit_script_is_valid_past_the_cost_limit(
        old in proptest::collection::vec(0u16..700, 300..1500),
        new in proptest::collection::vec(0u16..700, 300..1500),
    ) {
        let render = |lines: &[u16]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
        check(render(&old).as_bytes(), render(&new).as_bytes());
    }
}

proptest! {
    #[test]
    fn the_edit_script_is_valid(
        old in proptest::collection::vec(0u8..4, 0..400),
        new in proptest::collection::vec(0u8..4, 0..400),
    ) {
        check(render(&old).as_bytes(), render(&new).as_bytes());
    }

    #[test]
    fn the_edit_script_is_minimal_when_no_line_repeats_much(
        old in proptest::collection::vec(0u8..40, 0..40),
        new in proptest::collection::vec(0u8..40, 0..40),
    ) {
        // No side holds a line √(the other side's lines) times: nothing is left out.
        let most = |lines: &[u8]| (0..40).map(|v| lines.iter().filter(|&&l| l == v).count()).max().unwrap_or(0);
        prop_assume!(most(&new) < approximate_sqrt(old.len()) && most(&old) < approximate_sqrt(new.len()));
        let (old, new) = (render(&old), render(&new));
        let edits = check(old.as_bytes(), new.as_bytes());
        prop_assert_eq!(edits, minimal_edits(old.as_bytes(), new.as_bytes()));
    }

    #[test]
    fn empty_lines_and_missing_final_newlines_diff_correctly(
        old in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'\n')], 0..30),
        new in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'\n')], 0..30),
    ) {
        check(&old, &new);
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
