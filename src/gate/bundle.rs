//! The substance of Evidence Bundle items: checks beyond "the label is there".
//!
//! An item counts only if it has real content, and each item has its own test of
//! substance (GATE.md, "Evidence bundle"): the file list covers the diff, the description
//! is at most three sentences, the test mapping maps every acceptance criterion, the
//! before/after says both, migration notes name every migration file, and the rollback
//! plan holds exact commands or numbered steps. Each check is a pure function of the
//! item's text and the facts of the change, so it is tested without git or records.

use crate::pattern::PatternSet;
use regex::Regex;
use std::sync::LazyLock;

/// How a `files-changed` item covers the files of the change.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileCoverage {
    /// Changed files the item does not cover.
    pub omitted: Vec<String>,
    /// Paths the item lists that match no changed file.
    pub unchanged: Vec<String>,
    /// Entries that would cover any diff (`**`, `/`): they list no file and cover none.
    pub unbounded: Vec<String>,
}

/// Checks a `files-changed` item against the changed files. Each changed file is
/// `(path, old_path)`; either side of a rename covers it. A `listed` entry (from
/// [`listed_paths`]) covers a file as an exact path, a directory prefix (`src/auth` or
/// `src/auth/`) or a glob.
pub fn file_coverage(
    mut listed: Vec<String>,
    changed: &[(String, Option<String>)],
) -> FileCoverage {
    let unbounded = crate::scope::unbounded_patterns(&listed);
    let bounds_nothing: std::collections::HashSet<&String> = unbounded.iter().collect();
    listed.retain(|entry| !bounds_nothing.contains(entry));
    // One set for every entry (as written, and as a directory prefix), so a large diff
    // against a long list is one pass over the files.
    let (set, _) = PatternSet::with_directories(&listed);
    let mut used = vec![false; listed.len()];
    let mut omitted = Vec::new();
    for (path, old) in changed {
        let sides = std::iter::once(path.as_str()).chain(old.as_deref());
        let mut covered = false;
        for side in sides {
            for index in set.matching_indices(side) {
                covered = true;
                used[index] = true;
            }
        }
        if !covered {
            omitted.push(path.clone());
        }
    }
    FileCoverage {
        omitted,
        unbounded,
        unchanged: listed
            .into_iter()
            .zip(used)
            .filter(|(_, used)| !used)
            .map(|(entry, _)| entry)
            .collect(),
    }
}

static CODE_SPAN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`\n]+)`").unwrap());
static PATH_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[\w.*?{}\[\]/@+~-]*(/|\.[A-Za-z0-9]+$|\*)[\w.*?{}\[\]/@+~-]*$").unwrap()
});
/// A name that can only be a path when it stands alone (`Makefile`, `Dockerfile`): path
/// characters, at least one letter or digit.
static NAME_TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[\w.*?{}\[\]/@+~-]*\w[\w.*?{}\[\]/@+~-]*$").unwrap());

/// The path-like entries of a file list, in the order written, at most `cap + 1` (the
/// reading stops there, so a list past a cap costs no more than the cap): bare tokens
/// that hold a `/`, a `*`, or end in a file extension; a code span, a list item or a
/// whole list that is exactly one name (`` `Makefile` ``, `- Dockerfile`). A word of a
/// sentence is never a path unless it looks like one.
pub fn listed_paths(text: &str, cap: usize) -> Vec<String> {
    let mut listed = Listed {
        paths: Vec::new(),
        seen: std::collections::HashSet::new(),
        cap,
    };
    let whole_is_one_token = !text.trim().contains(char::is_whitespace);
    for line in text.lines() {
        let (is_item, content) = strip_list_marker(line);
        let alone =
            whole_is_one_token || (is_item && !content.trim().contains(char::is_whitespace));
        let mut after_span = 0;
        for span in CODE_SPAN.captures_iter(content) {
            let (Some(whole), Some(inner)) = (span.get(0), span.get(1)) else {
                continue;
            };
            listed.bare_tokens(&content[after_span..whole.start()], alone);
            let inner = inner.as_str();
            listed.push(inner, !inner.trim().contains(char::is_whitespace));
            after_span = whole.end();
            if listed.full() {
                break;
            }
        }
        listed.bare_tokens(&content[after_span..], alone);
        if listed.full() {
            break;
        }
    }
    listed.paths
}

/// The entries of a file list read so far.
struct Listed<'t> {
    paths: Vec<String>,
    seen: std::collections::HashSet<&'t str>,
    cap: usize,
}

impl<'t> Listed<'t> {
    /// Whether more than `cap` entries were read: reading stops.
    fn full(&self) -> bool {
        self.paths.len() > self.cap
    }

    /// Adds a candidate when it is path-like (or a name standing `alone`) and new.
    fn push(&mut self, candidate: &'t str, alone: bool) {
        let token = candidate
            .trim()
            .trim_start_matches(['(', '[', '"', '\''])
            .trim_end_matches([',', ';', ':', ')', ']', '"', '\'', '.']);
        let path_like = PATH_TOKEN.is_match(token) || (alone && NAME_TOKEN.is_match(token));
        if !self.full() && path_like && self.seen.insert(token) {
            self.paths.push(token.to_string());
        }
    }

    /// Adds the tokens of text outside code spans, split at white space, `,`, `;`, `|`.
    fn bare_tokens(&mut self, text: &'t str, alone: bool) {
        let tokens = text.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '|'));
        for token in tokens.filter(|token| !token.is_empty()) {
            if self.full() {
                return;
            }
            self.push(token, alone);
        }
    }
}

static SENTENCE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[.!?…]+[)\]\x22']*(\s+|$)").unwrap());
static ABBREVIATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(e\.g|i\.e|etc|vs|cf|approx|incl)\.").unwrap());

/// The number of sentences in a description. Code spans and abbreviations (`e.g.`,
/// `etc.`) do not end sentences; every list item is at least one.
pub fn sentence_count(text: &str) -> usize {
    let text = CODE_SPAN.replace_all(text, "code");
    let text = ABBREVIATION.replace_all(&text, "abbr");
    text.lines()
        .map(strip_list_marker)
        .collect::<Vec<_>>()
        .split(|line| line.1.trim().is_empty())
        .flat_map(list_items)
        .map(|chunk| {
            SENTENCE_END
                .split(&chunk)
                .filter(|s| s.chars().any(char::is_alphanumeric))
                .count()
        })
        .sum()
}

/// Splits a paragraph's lines into chunks: each list item starts a new chunk.
fn list_items(paragraph: &[(bool, &str)]) -> Vec<String> {
    let mut chunks: Vec<String> = Vec::new();
    for (is_item, line) in paragraph {
        match chunks.last_mut() {
            Some(chunk) if !is_item => {
                chunk.push(' ');
                chunk.push_str(line);
            }
            _ => chunks.push(line.to_string()),
        }
    }
    chunks
}

static LIST_MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*([-*+]|\d+[.)])\s+").unwrap());

/// `(is a list item, text without the marker)`.
fn strip_list_marker(line: &str) -> (bool, &str) {
    match LIST_MARKER.find(line) {
        Some(marker) => (true, &line[marker.end()..]),
        None => (false, line),
    }
}

/// What is wrong with a test mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MappingProblem {
    /// No line maps anything to a test.
    NoMapping,
    /// These declared acceptance criteria are not mapped.
    Unmapped(Vec<String>),
}

static CRITERION_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\**([A-Za-z]{1,4}-?\d+)\b").unwrap());
static MAPPING_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b((verified|covered|tested) by|verifies|covers)\b").unwrap()
});

/// Checks that a `test-mapping` item maps tests to criteria: lines with an arrow
/// (`→`, `->`, `=>`), table rows, `criterion: test` bullets, or "verified by", whose
/// test side names a test ([`names_a_test`]). Each declared criterion must appear on a
/// mapping line, by its ID (`AC1`, `AC-2`) when it starts with one, else by its text.
pub fn test_mapping(text: &str, criteria: &[String]) -> Result<(), MappingProblem> {
    let mapping: Vec<String> = text
        .lines()
        .filter(|line| test_sides(line).iter().any(|side| names_a_test(side)))
        .map(fold)
        .collect();
    if mapping.is_empty() {
        return Err(MappingProblem::NoMapping);
    }
    let keys: Vec<String> = criteria.iter().map(|c| criterion_key(c)).collect();
    let found = mapped_keys(&mapping.join("\n"), &keys);
    let unmapped: Vec<String> = criteria
        .iter()
        .zip(found)
        .filter(|(_, found)| !found)
        .map(|(criterion, _)| criterion.clone())
        .collect();
    if unmapped.is_empty() {
        Ok(())
    } else {
        Err(MappingProblem::Unmapped(unmapped))
    }
}

/// The parts of a line that may name the test it maps a criterion to: the right of an
/// arrow, the cells after a table row's first, the right of a bullet's `:`, the side of
/// "verified by" (after) or "verifies" (before). None: the line maps nothing.
fn test_sides(line: &str) -> Vec<&str> {
    let trimmed = line.trim();
    let said = |text: &str| text.chars().any(char::is_alphanumeric);
    let mut sides = Vec::new();
    // An arrow maps something to something: `- → -` maps nothing.
    for arrow in ["→", "->", "=>", "⇒"] {
        if let Some((from, to)) = trimmed.split_once(arrow) {
            if said(from) && said(to) {
                sides.push(to);
            }
        }
    }
    if let Some(row) = trimmed.strip_prefix('|') {
        let cells: Vec<&str> = row.trim_end_matches('|').split('|').collect();
        if cells.len() >= 2 && cells.iter().filter(|cell| said(cell)).count() >= 2 {
            sides.extend(&cells[1..]);
        }
    }
    if LIST_MARKER.is_match(line) {
        if let Some((criterion, test)) = strip_list_marker(line).1.split_once(':') {
            if said(criterion) && said(test) {
                sides.push(test);
            }
        }
    }
    if let Some(word) = MAPPING_WORD.captures(trimmed) {
        let whole = word.get(0).map_or(0..0, |m| m.range());
        sides.push(match word.get(2) {
            Some(_) => &trimmed[whole.end..],
            None => &trimmed[..whole.start],
        });
    }
    sides
}

static TEST_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(test|spec|passe[sd]|\bpass\b|fail|assert|check|verif)").unwrap()
});
/// A name only code has: `snake_case`, `Type::method`, `Class#method`, `call()`, a path.
static CODE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z]\w*(_[A-Za-z0-9]|::[A-Za-z_]|#[A-Za-z_]|\(\))|\w/\w").unwrap()
});
static NOT_RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(not (yet )?(run|tested|written)|untested|no tests?|todo|tbd|pending)\b")
        .unwrap()
});

/// Whether the test side of a mapping line names a test (a code span, a test word, a
/// name only code has) and does not say that none was run: `AC1 → not run yet`,
/// `AC2 → works` and `| AC3 | - |` map nothing. Code spans are names, not prose:
/// `` `test_pending_orders` `` says nothing about being pending.
fn names_a_test(side: &str) -> bool {
    let code = CODE_SPAN
        .captures_iter(side)
        .any(|span| span[1].chars().any(char::is_alphanumeric));
    let prose = CODE_SPAN.replace_all(side, " ");
    (code || TEST_WORD.is_match(&prose) || CODE_NAME.is_match(&prose)) && !NOT_RUN.is_match(&prose)
}

/// What identifies a criterion on a mapping line: its ID, else its folded text.
fn criterion_key(criterion: &str) -> String {
    match CRITERION_ID.captures(criterion) {
        Some(id) => fold(&id[1]),
        None => fold(criterion.trim().trim_end_matches(['.', ';'])),
    }
}

/// Which of `keys` occur in `text` as whole words, in one pass over the text for all of
/// them (an Aho-Corasick automaton), so thousands of criteria against a long mapping
/// cost about as much as one.
fn mapped_keys(text: &str, keys: &[String]) -> Vec<bool> {
    let mut found: Vec<bool> = keys
        .iter()
        .map(|key| key.is_empty() && contains_word(text, key))
        .collect();
    let Ok(automaton) = aho_corasick::AhoCorasick::new(keys.iter().filter(|k| !k.is_empty()))
    else {
        // Too large an automaton: one key at a time.
        return keys.iter().map(|key| contains_word(text, key)).collect();
    };
    let indices: Vec<usize> = (0..keys.len()).filter(|&i| !keys[i].is_empty()).collect();
    let boundary = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
    for hit in automaton.find_overlapping_iter(text) {
        let index = indices[hit.pattern().as_usize()];
        if found[index] {
            continue;
        }
        let before = text[..hit.start()].chars().next_back();
        let after = text[hit.end()..].chars().next();
        if boundary(before) && boundary(after) {
            found[index] = true;
        }
    }
    found
}

/// Whether `needle` occurs in `haystack` not as part of a longer word
/// (so `ac1` does not match `ac10`).
fn contains_word(haystack: &str, needle: &str) -> bool {
    haystack.match_indices(needle).any(|(start, _)| {
        let before = haystack[..start].chars().next_back();
        let after = haystack[start + needle.len()..].chars().next();
        let boundary = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
        boundary(before) && boundary(after)
    })
}

static DASHED_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([a-z]{1,4})-(\d+)\b").unwrap());

/// Lower case with runs of white space (and `*`, `` ` ``, `-` between ID parts) folded.
fn fold(text: &str) -> String {
    let lower = text.to_lowercase().replace(['*', '`'], "");
    let lower = DASHED_ID.replace_all(&lower, "$1$2");
    lower.split_whitespace().collect::<Vec<_>>().join(" ")
}

static BEFORE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(before|previously|used to|was)\b").unwrap());
static AFTER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\b(after|now|will)\b").unwrap());

/// Whether a `before-after` item says both what was before and what is after.
pub fn says_before_and_after(text: &str) -> bool {
    // Besides the marker words, it must say something (`was; now.` says nothing).
    let said = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.len() > 1)
        .filter(|word| !BEFORE.is_match(word) && !AFTER.is_match(word))
        .count();
    BEFORE.is_match(text) && AFTER.is_match(text) && said >= 2
}

/// What is wrong with migration notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MigrationProblem {
    /// The notes say "none" but the change holds these migrations.
    SaysNone(Vec<String>),
    /// The notes do not name these migration files.
    Unnamed(Vec<String>),
}

/// Checks `migration-notes` against the migration files of the change: `none` only
/// without migrations; otherwise every migration file named by path or file name.
pub fn migration_notes(text: &str, migrations: &[String]) -> Result<(), MigrationProblem> {
    let unnamed: Vec<String> = migrations
        .iter()
        .filter(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            !text.contains(path.as_str()) && !text.contains(name)
        })
        .cloned()
        .collect();
    if unnamed.is_empty() {
        Ok(())
    } else if says_none(text) {
        Err(MigrationProblem::SaysNone(unnamed))
    } else {
        Err(MigrationProblem::Unnamed(unnamed))
    }
}

/// Whether migration notes say there is nothing to note.
fn says_none(text: &str) -> bool {
    let folded = fold(text.trim().trim_end_matches('.'));
    [
        "none",
        "n/a",
        "no migration",
        "no migrations",
        "no breaking",
        "nothing",
    ]
    .iter()
    .any(|word| folded == *word || folded.starts_with(&format!("{word} ")))
        || folded.starts_with("none")
}

static NUMBERED_STEP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*\d+[.)]\s+[^\n]*\w").unwrap());

/// Whether a rollback plan holds exact commands (a code span or block) or numbered
/// steps.
pub fn has_exact_rollback(text: &str) -> bool {
    // A code span or block that holds no command (`` `-` ``) is not one.
    let command = |code: &str| code.chars().any(char::is_alphanumeric);
    let block = text
        .split("```")
        .skip(1)
        .step_by(2)
        .any(|block| block.lines().skip(1).any(command));
    block
        || CODE_SPAN.captures_iter(text).any(|span| command(&span[1]))
        || NUMBERED_STEP.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The coverage of a file list as written, read whole.
    fn file_coverage(text: &str, changed: &[(String, Option<String>)]) -> FileCoverage {
        super::file_coverage(listed_paths(text, usize::MAX), changed)
    }

    fn changed(paths: &[&str]) -> Vec<(String, Option<String>)> {
        paths.iter().map(|p| (p.to_string(), None)).collect()
    }

    #[test]
    fn the_file_list_must_cover_the_diff() {
        let text = "- `src/auth/login.ts`\n- docs/ (guides)\n- tests/*.rs, README.md";
        let files = changed(&[
            "src/auth/login.ts",
            "docs/a/b.md",
            "tests/x.rs",
            "src/cors.ts",
        ]);
        let coverage = file_coverage(text, &files);
        assert_eq!(coverage.omitted, ["src/cors.ts"]);
        assert_eq!(coverage.unchanged, ["README.md"]);
    }

    #[test]
    fn a_root_file_counts_alone_in_a_code_span_or_a_list_item_never_in_prose() {
        let files = changed(&["Makefile", "Dockerfile", "src/a.rs"]);
        for text in [
            "`Makefile`, `Dockerfile` and `src/a.rs`",
            "\n- Makefile\n- Dockerfile,\n1. src/a.rs",
        ] {
            let coverage = file_coverage(text, &files);
            assert!(coverage.omitted.is_empty(), "{text}: {coverage:?}");
            assert!(coverage.unchanged.is_empty(), "{text}: {coverage:?}");
        }
        assert_eq!(listed_paths(" Makefile ", usize::MAX), ["Makefile"]);
        // A word of a sentence, in a list item or not, names no file.
        for text in [
            "Updated the Makefile and the Dockerfile, plus src/a.rs.",
            "\n- tidied the Makefile\n- Dockerfile too\n- src/a.rs",
            "`make build` in the Makefile; src/a.rs",
        ] {
            let coverage = file_coverage(text, &files);
            assert_eq!(coverage.omitted, ["Makefile", "Dockerfile"], "{text}");
        }
        // A span or an item of markup alone is no name.
        assert!(listed_paths("`-`\n- -\n- `.`", usize::MAX).is_empty());
    }

    #[test]
    fn a_file_list_is_read_no_further_than_one_past_the_cap() {
        let text = "`a/1`, a/2, `a/3`\n- a/4\n- a/5";
        assert_eq!(listed_paths(text, 1), ["a/1", "a/2"]);
        assert_eq!(listed_paths(text, 2), ["a/1", "a/2", "a/3"]);
        assert_eq!(listed_paths(text, 3).len(), 4);
        assert_eq!(listed_paths(text, 5).len(), 5);
    }

    #[test]
    fn either_side_of_a_rename_covers_it() {
        let files = vec![("src/new.rs".to_string(), Some("src/old.rs".to_string()))];
        assert!(file_coverage("src/old.rs", &files).omitted.is_empty());
    }

    #[test]
    fn sentences_are_counted_past_abbreviations_and_file_names() {
        assert_eq!(
            sentence_count("Fix the typo in `a.rs`. Update docs, e.g. the README."),
            2
        );
        assert_eq!(sentence_count("One. Two! Three? Four."), 4);
        assert_eq!(sentence_count("- first item\n- second item\n- third"), 3);
        assert_eq!(sentence_count("Renamed main.rs to lib.rs"), 1);
    }

    #[test]
    fn tests_must_map_every_declared_criterion() {
        let text = "- AC1 → `login_works` passes\n| AC-2 | test_logout |";
        let criteria = [
            "AC1: login works".to_string(),
            "AC2: logout works".to_string(),
        ];
        assert_eq!(test_mapping(text, &criteria), Ok(()));
        let ac10 = ["AC10: other".to_string()];
        assert_eq!(
            test_mapping(text, &ac10),
            Err(MappingProblem::Unmapped(ac10.to_vec()))
        );
        assert_eq!(
            test_mapping("all tests pass", &[]),
            Err(MappingProblem::NoMapping)
        );
        let by_text = ["Users can log in".to_string()];
        assert_eq!(
            test_mapping("users can log in -> test_login", &by_text),
            Ok(())
        );
    }

    #[test]
    fn a_mapping_line_must_name_a_test() {
        let criteria = ["AC1: login".to_string(), "AC2: logout".to_string()];
        for nothing in [
            "AC1, AC2 → not run yet",
            "AC1, AC2 → works",
            "- → -",
            "| AC1 | - |\n| AC2 | |",
            "- AC1: TBD\n- AC2: pending",
            "AC1 and AC2 verified by `-`",
        ] {
            assert_eq!(
                test_mapping(nothing, &criteria),
                Err(MappingProblem::NoMapping),
                "{nothing}"
            );
        }
        for named in [
            "AC1, AC2 → `test_pending_orders`",
            "- AC1: should_lock_out\n- AC2: Session::end",
            "| AC1 | LoginSpec |\n| AC2 pending sessions end | `logout()` |",
            "`test_auth` verifies AC1 and AC2",
            "AC1 and AC2 are covered by tests/auth.py",
        ] {
            assert_eq!(test_mapping(named, &criteria), Ok(()), "{named}");
        }
    }

    #[test]
    fn a_bare_glob_of_everything_lists_no_file() {
        let coverage = file_coverage("everything: `**`, src/", &changed(&["src/a.rs", "b.md"]));
        assert_eq!(coverage.unbounded, ["**"]);
        assert_eq!(coverage.omitted, ["b.md"]);
    }

    #[test]
    fn before_and_after_are_both_needed() {
        assert!(says_before_and_after("Before: 500 on expiry. After: 401."));
        assert!(!says_before_and_after("Login returns 401 on expiry."));
        assert!(!says_before_and_after("was; now."));
        assert!(!says_before_and_after("Before: -. After: -."));
    }

    #[test]
    fn migration_notes_name_every_migration() {
        let migrations = ["db/migrate/001_add_users.rb".to_string()];
        assert_eq!(migration_notes("none", &[]), Ok(()));
        assert!(matches!(
            migration_notes("None.", &migrations),
            Err(MigrationProblem::SaysNone(_))
        ));
        assert!(matches!(
            migration_notes("adds a table", &migrations),
            Err(MigrationProblem::Unnamed(_))
        ));
        assert_eq!(
            migration_notes("`001_add_users.rb` adds users", &migrations),
            Ok(())
        );
    }

    proptest::proptest! {
        #[test]
        fn no_text_panics_a_check(text in "\\PC{0,80}", path in "[a-z/.*{}\\[\\]é]{0,12}") {
            let changed = vec![(path.clone(), Some(text.clone()))];
            let _ = crate::record::placeholder::is_placeholder(&text);
            let _ = file_coverage(&text, &changed);
            let _ = sentence_count(&text);
            let _ = test_mapping(&text, std::slice::from_ref(&text));
            let _ = says_before_and_after(&text);
            let _ = migration_notes(&text, &[path]);
            let _ = has_exact_rollback(&text);
            let _ = crate::gate::task::timestamp_key(&text);
        }

        #[test]
        fn no_timestamp_like_text_panics(text in "[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9:.é]{0,30}[Zz+-]?[0-9:]{0,24}") {
            let _ = crate::gate::task::timestamp_key(&text);
        }
    }

    #[test]
    fn rollback_needs_commands_or_steps() {
        assert!(has_exact_rollback("`git revert abc123`"));
        assert!(has_exact_rollback("```sh\nmake down\n```"));
        assert!(has_exact_rollback("1. Revert the PR\n2. Redeploy"));
        assert!(!has_exact_rollback("Just revert it."));
        assert!(!has_exact_rollback("`-`"));
        assert!(!has_exact_rollback("```sh\n-\n```"));
        assert!(!has_exact_rollback("1. -\n2. ..."));
    }
}
