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
use std::collections::HashMap;
use std::sync::LazyLock;

/// How a `files-changed` item covers the files of the change.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileCoverage {
    /// Changed files the item does not cover.
    pub omitted: Vec<String>,
    /// Paths the item lists that match no changed file.
    pub unchanged: Vec<String>,
}

/// Checks a `files-changed` item against the changed files. Each changed file is
/// `(path, old_path)`; either side of a rename covers it. A listed entry covers a file
/// as an exact path, a directory prefix (`src/auth` or `src/auth/`) or a glob.
pub fn file_coverage(text: &str, changed: &[(String, Option<String>)]) -> FileCoverage {
    let listed = listed_paths(text);
    // One set for every entry (as written, and as a directory prefix), so a large diff
    // against a long list is one pass over the files.
    let mut owner: HashMap<String, usize> = HashMap::new();
    for (index, entry) in listed.iter().enumerate() {
        owner.entry(entry.clone()).or_insert(index);
        owner
            .entry(format!("{}/", entry.trim_end_matches('/')))
            .or_insert(index);
    }
    let patterns: Vec<&String> = owner.keys().collect();
    let (set, _) = PatternSet::new(&patterns);
    let mut used = vec![false; listed.len()];
    let mut omitted = Vec::new();
    for (path, old) in changed {
        let sides = std::iter::once(path.as_str()).chain(old.as_deref());
        let mut covered = false;
        for side in sides {
            for pattern in set.matching(side) {
                covered = true;
                if let Some(index) = owner.get(pattern) {
                    used[*index] = true;
                }
            }
        }
        if !covered {
            omitted.push(path.clone());
        }
    }
    FileCoverage {
        omitted,
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

/// The path-like entries of a file list: code spans, and bare tokens that hold a `/`,
/// a `*`, or end in a file extension.
pub fn listed_paths(text: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let mut push = |candidate: &str| {
        let token = candidate
            .trim()
            .trim_start_matches(['(', '[', '"', '\''])
            .trim_end_matches([',', ';', ':', ')', ']', '"', '\'', '.']);
        if PATH_TOKEN.is_match(token) && !paths.iter().any(|p| p == token) {
            paths.push(token.to_string());
        }
    };
    for span in CODE_SPAN.captures_iter(text) {
        push(&span[1]);
    }
    let rest = CODE_SPAN.replace_all(text, " ");
    for token in rest.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '|')) {
        push(token);
    }
    paths
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
    Regex::new(r"(?i)\b(verifies|verified by|covered by|covers|tested by)\b").unwrap()
});

/// Checks that a `test-mapping` item maps tests to criteria: lines with an arrow
/// (`→`, `->`, `=>`), table rows, `criterion: test` bullets, or "verified by". Each
/// declared criterion must appear on a mapping line, by its ID (`AC1`, `AC-2`) when it
/// starts with one, else by its text.
pub fn test_mapping(text: &str, criteria: &[String]) -> Result<(), MappingProblem> {
    let mapping: Vec<String> = text
        .lines()
        .filter(|line| is_mapping_line(line))
        .map(fold)
        .collect();
    if mapping.is_empty() {
        return Err(MappingProblem::NoMapping);
    }
    let unmapped: Vec<String> = criteria
        .iter()
        .filter(|criterion| {
            let key = criterion_key(criterion);
            !mapping.iter().any(|line| contains_word(line, &key))
        })
        .cloned()
        .collect();
    if unmapped.is_empty() {
        Ok(())
    } else {
        Err(MappingProblem::Unmapped(unmapped))
    }
}

fn is_mapping_line(line: &str) -> bool {
    let trimmed = line.trim();
    let arrow = ["→", "->", "=>", "⇒"].iter().any(|a| trimmed.contains(a));
    let row = trimmed.starts_with('|')
        && trimmed.matches('|').count() >= 3
        && !trimmed.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
    let bullet = LIST_MARKER.is_match(line)
        && strip_list_marker(line)
            .1
            .split_once(':')
            .is_some_and(|(a, b)| !a.trim().is_empty() && !b.trim().is_empty());
    arrow || row || bullet || MAPPING_WORD.is_match(trimmed)
}

/// What identifies a criterion on a mapping line: its ID, else its folded text.
fn criterion_key(criterion: &str) -> String {
    match CRITERION_ID.captures(criterion) {
        Some(id) => fold(&id[1]),
        None => fold(criterion.trim().trim_end_matches(['.', ';'])),
    }
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
    BEFORE.is_match(text) && AFTER.is_match(text)
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
    LazyLock::new(|| Regex::new(r"(?m)^\s*\d+[.)]\s+\S").unwrap());

/// Whether a rollback plan holds exact commands (a code span or block) or numbered
/// steps.
pub fn has_exact_rollback(text: &str) -> bool {
    text.contains("```") || CODE_SPAN.is_match(text) || NUMBERED_STEP.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn before_and_after_are_both_needed() {
        assert!(says_before_and_after("Before: 500 on expiry. After: 401."));
        assert!(!says_before_and_after("Login returns 401 on expiry."));
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
    }
}
