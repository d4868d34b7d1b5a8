//! Every default rule against a real positive and a near miss.
//!
//! A case is a path and, for line rules, an added line. `yes` cases must fire the rule;
//! `no` cases are near misses that must not (other rules may). A final test checks that
//! every default rule has at least one of each, so a new rule cannot ship untested. The
//! cases live in one file per trigger, one case per line.

use super::matcher::Matcher;
use crate::git::LineSide;
use crate::policy::Policy;
use std::collections::BTreeSet;
use std::sync::LazyLock;

mod api_route;
mod auth;
mod credential;
mod env_var;
mod migration;
mod payment;
mod policy;
mod test_file;

/// (rule id, path, added line or "" for a path-only case)
type Case = (&'static str, &'static str, &'static str);

/// Each trigger's positives and near misses.
const TRIGGERS: [(&[Case], &[Case]); 8] = [
    (test_file::YES, test_file::NO),
    (api_route::YES, api_route::NO),
    (auth::YES, auth::NO),
    (migration::YES, migration::NO),
    (payment::YES, payment::NO),
    (env_var::YES, env_var::NO),
    (credential::YES, credential::NO),
    (policy::YES, policy::NO),
];

/// The cases that must fire their rule.
fn positives() -> impl Iterator<Item = &'static Case> {
    TRIGGERS.iter().flat_map(|(yes, _)| yes.iter())
}

/// The near misses: cases that must not fire their rule.
fn near_misses() -> impl Iterator<Item = &'static Case> {
    TRIGGERS.iter().flat_map(|(_, no)| no.iter())
}

/// The rule ids that fire for a path and, when given, an added line.
fn fired(matcher: &Matcher, path: &str, line: &str) -> BTreeSet<String> {
    let mut ids: BTreeSet<String> = matcher
        .path_rules_for(path)
        .into_iter()
        .map(|index| matcher.path_rules[index].id.to_string())
        .collect();
    if !line.is_empty() {
        let mut open = vec![false; matcher.line_rules.len()];
        matcher.line_rules_for(path, &mut open);
        matcher.open_matches(LineSide::Added, line.as_bytes(), &open, |index| {
            if matcher.confirms(index, line.as_bytes()) {
                ids.insert(matcher.line_rules[index].id.to_string());
            }
        });
    }
    ids
}

fn matcher() -> Matcher {
    Matcher::new(&Policy::default()).expect("the default rules compile")
}

#[test]
fn every_default_rule_fires_on_its_positives() {
    let matcher = matcher();
    let missed: Vec<String> = positives()
        .filter(|(rule, path, line)| !fired(&matcher, path, line).contains(*rule))
        .map(|(rule, path, line)| format!("{rule} should fire on {path} {line:?}"))
        .collect();
    assert!(missed.is_empty(), "{missed:#?}");
}

#[test]
fn no_default_rule_fires_on_its_near_misses() {
    let matcher = matcher();
    let false_alarms: Vec<String> = near_misses()
        .filter(|(rule, path, line)| fired(&matcher, path, line).contains(*rule))
        .map(|(rule, path, line)| format!("{rule} should not fire on {path} {line:?}"))
        .collect();
    assert!(false_alarms.is_empty(), "{false_alarms:#?}");
}

#[test]
fn every_default_rule_has_a_positive_and_a_near_miss() {
    for trigger in &crate::policy::defaults().triggers {
        for rule in &trigger.rules {
            assert!(
                positives().any(|case| case.0 == rule.id),
                "{} has no positive",
                rule.id
            );
            assert!(
                near_misses().any(|case| case.0 == rule.id),
                "{} has no near miss",
                rule.id
            );
        }
    }
}

#[test]
fn removed_lines_count_for_every_trigger_but_credential() {
    let matcher = matcher();
    let mut removed = BTreeSet::new();
    let lines = [
        "port = os.getenv('PORT')",
        "@login_required",
        "key = 'AKIAIOSFODNN7REALKEY'",
    ];
    let open = vec![true; matcher.line_rules.len()];
    for line in lines {
        matcher.open_matches(LineSide::Removed, line.as_bytes(), &open, |index| {
            removed.insert(matcher.line_rules[index].id.to_string());
        });
    }
    let expected: BTreeSet<String> = [
        "auth.line.python".to_string(),
        "env-var.line.python".to_string(),
        // PHP's `getenv(` is spelled as Python's.
        "env-var.line.php".to_string(),
        // A config module's auth items (`login…`).
        "auth.line.config-item".to_string(),
        // Any changed code naming an auth concept (`login…`).
        "auth.line.identifier".to_string(),
    ]
    .into();
    assert_eq!(removed, expected);
}

#[test]
fn excerpts_never_hold_a_whole_secret() {
    let matcher = matcher();
    let excerpt =
        matcher.excerpt(b"  AWS = 'AKIAIOSFODNN7REALKEY'; db = 'postgres://a:s3cr3tPass@h/db'");
    assert!(
        !excerpt.contains("AKIAIOSFODNN7REALKEY") && !excerpt.contains("s3cr3tPass"),
        "{excerpt}"
    );
    assert_eq!(excerpt, "AWS = '[redacted]'; db = '[redacted]'");
}

/// [`Matcher::open_matches_one_by_one`]: the line rules that match a line, one by one.
type OneByOne = dyn Fn(LineSide, &[u8], &[bool]) -> Vec<usize> + Send + Sync;

/// The default rules, compiled once for every test case, and the same rules one by one.
fn shared() -> (&'static Matcher, &'static OneByOne) {
    static MATCHER: LazyLock<Matcher> = LazyLock::new(matcher);
    static ONE_BY_ONE: LazyLock<Box<OneByOne>> =
        LazyLock::new(|| Box::new(MATCHER.open_matches_one_by_one()));
    (&MATCHER, &**ONE_BY_ONE)
}

/// The paths and lines of the corpus above, positives and near misses alike.
fn corpus() -> impl Iterator<Item = &'static Case> {
    positives().chain(near_misses())
}

/// Whether the set-based [`Matcher::open_matches`] reports exactly the rules that their
/// own regexes, tried one by one, match, on `line` in the file at `path`, on both sides and
/// with every rule open or only those that read the file.
fn agrees_with_one_by_one(
    matcher: &Matcher,
    one_by_one: &OneByOne,
    path: &str,
    line: &[u8],
) -> Result<(), String> {
    let every = vec![true; matcher.line_rules.len()];
    for open in [&rules_reading(matcher, path), &every] {
        agrees_with_rules_open(matcher, one_by_one, open, path, line)?;
    }
    Ok(())
}

/// The line rules that read the file at `path` (`open` for [`Matcher::open_matches`]).
fn rules_reading(matcher: &Matcher, path: &str) -> Vec<bool> {
    let mut open = vec![false; matcher.line_rules.len()];
    matcher.line_rules_for(path, &mut open);
    open
}

/// Whether the set-based [`Matcher::open_matches`] and the rules' own regexes one by one
/// report the same rules on `line`, on both sides, with the rules `open` open (`path`
/// names the file in the message only).
fn agrees_with_rules_open(
    matcher: &Matcher,
    one_by_one: &OneByOne,
    open: &[bool],
    path: &str,
    line: &[u8],
) -> Result<(), String> {
    for side in [LineSide::Added, LineSide::Removed] {
        let mut fast = Vec::new();
        matcher.open_matches(side, line, open, |index| fast.push(index));
        let slow = one_by_one(side, line, open);
        if fast != slow {
            return Err(format!(
                "{path} {:?} ({side:?}): set {fast:?}, one by one {slow:?}",
                String::from_utf8_lossy(line)
            ));
        }
    }
    Ok(())
}

#[test]
fn the_rule_set_agrees_with_each_rule_alone_on_the_corpus() {
    let (matcher, one_by_one) = shared();
    let mut disagreements = Vec::new();
    // Each line with every rule open (which rules are open does not depend on the path,
    // so once a line), then with the rules that read its own file and those that read
    // every seventh file of the corpus.
    let paths: Vec<&str> = corpus().step_by(7).map(|case| case.1).collect();
    let every = vec![true; matcher.line_rules.len()];
    for (_, own_path, line) in corpus() {
        let line = line.as_bytes();
        let mut agree = |open: &[bool], path: &str| {
            if let Err(message) = agrees_with_rules_open(matcher, one_by_one, open, path, line) {
                disagreements.push(message);
            }
        };
        agree(&every, own_path);
        for path in std::iter::once(*own_path).chain(paths.iter().copied()) {
            agree(&rules_reading(matcher, path), path);
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

proptest::proptest! {
    /// Lines spliced from pieces of the corpus (so that rules come close to firing, fire,
    /// or fire several at once) and of arbitrary bytes.
    #[test]
    fn the_rule_set_agrees_with_each_rule_alone_on_spliced_lines(
        pieces in proptest::collection::vec(
            (0..corpus().count(), 0usize..200, 0usize..200, proptest::collection::vec(proptest::num::u8::ANY, 0..3)),
            1..4,
        ),
        path_index in 0..corpus().count(),
    ) {
        let (matcher, one_by_one) = shared();
        let cases: Vec<_> = corpus().collect();
        let mut line = Vec::new();
        for (case, start, len, noise) in pieces {
            let text = cases[case].2.as_bytes();
            let start = start.min(text.len());
            let end = (start + len).min(text.len());
            line.extend_from_slice(&text[start..end]);
            line.extend_from_slice(&noise);
        }
        let path = cases[path_index].1;
        let agreed = agrees_with_one_by_one(matcher, one_by_one, path, &line);
        proptest::prop_assert!(agreed.is_ok(), "{}", agreed.unwrap_err());
    }
}
