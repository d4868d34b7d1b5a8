//! Literal prefilters: [`Prefilter`] finds in a text the rules (or globs) that could
//! match it, from the literals every match of each holds ([`super::required`]).
//!
//! The built-in rules' literals are read at build time (`build.rs` runs the same
//! functions on `defaults.yaml`): reading them from the rules' text cost every run about
//! 4.5 M instructions, twice git's whole diff of a one-line commit. A pattern that is not
//! a built-in one (a policy file's) is read when the prefilter is built.

use super::required;
use aho_corasick::AhoCorasick;
use hashbrown::HashMap;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

// `BUILT_REGEX_LITERALS` and `BUILT_GLOB_LITERALS`: the built-in line regexes, and the
// built-in rule globs as written, each with its literals, sorted by pattern.
include!(concat!(env!("OUT_DIR"), "/literals.rs"));

/// A pattern's literals: borrowed from the tables built at build time, or read from its
/// text at run time (copying a thousand literals out of the tables cost every run a
/// quarter of a million instructions).
pub(crate) type Literals = Vec<Cow<'static, str>>;

/// The literals of a pattern in a table built at build time, if it is there.
fn built(
    table: &'static [(&'static str, Option<&'static [&'static str]>)],
    pattern: &str,
) -> Option<Option<Literals>> {
    let at = table
        .binary_search_by(|(key, _)| (*key).cmp(pattern))
        .ok()?;
    let literals = table[at].1;
    Some(literals.map(|literals| literals.iter().map(|l| Cow::Borrowed(*l)).collect()))
}

/// Literals read at run time.
fn read(literals: Option<Vec<String>>) -> Option<Literals> {
    literals.map(|literals| literals.into_iter().map(Cow::Owned).collect())
}

/// Literals of which every match of the line regex `regex` holds one (ASCII lower case),
/// or `None` when its text does not say ([`required::regex_literals`]).
pub(crate) fn regex_literals(regex: &str) -> Option<Literals> {
    built(BUILT_REGEX_LITERALS, regex).unwrap_or_else(|| read(required::regex_literals(regex)))
}

/// What every match of a line regex requires, whole ([`required::regex_requirement`]):
/// every literal run of a branch (`private` and `key`), where its prefilter holds one.
/// Checked on a line before the regex is compiled for it, it spares compiling a rule for
/// a line that holds only one of its words.
#[derive(Debug)]
pub(crate) struct RegexRequirement(required::Requirement);

impl RegexRequirement {
    /// Reads the requirement of `regex` from its text.
    pub(crate) fn new(regex: &str) -> RegexRequirement {
        RegexRequirement(required::regex_requirement(regex))
    }

    /// Whether `text` meets it (compared in ASCII lower case).
    pub(crate) fn holds(&self, text: &[u8]) -> bool {
        let lower = text.to_ascii_lowercase();
        self.0
            .holds(&mut |literal| memchr::memmem::find(&lower, literal.as_bytes()).is_some())
    }
}

/// Literals of which every path the rule glob `glob` (as written in a policy) matches
/// holds one, or `None` ([`required::glob_literals`] of [`required::rule_glob`]).
pub(crate) fn rule_glob_literals(glob: &str) -> Option<Literals> {
    built(BUILT_GLOB_LITERALS, glob)
        .unwrap_or_else(|| read(required::glob_literals(&required::rule_glob(glob))))
}

/// Finds which rules could match a text, from their literals, at a cost that suits the
/// size of the change.
///
/// The first [`BY_LITERAL`] texts are searched for each literal in turn (building an
/// automaton would cost more than a few searches). Up to [`BY_NFA`] texts, an
/// Aho-Corasick NFA finds every literal in one pass (cheap to build, about forty
/// instructions a byte); beyond, a DFA does (a few instructions a byte, but about ten
/// million instructions to build, which only a large change pays back).
#[derive(Debug)]
pub(crate) struct Prefilter {
    /// Every distinct literal of every rule that has some, in lower case.
    literals: Literals,
    /// The rules (or globs) holding each literal.
    owners: Vec<Vec<usize>>,
    /// The rules (or globs) with no literal: candidates for every text.
    always: Vec<usize>,
    /// How many texts were searched.
    searched: AtomicUsize,
    /// One searcher per literal.
    finders: OnceLock<Vec<memchr::memmem::Finder<'static>>>,
    /// The literals as one NFA, then as one DFA.
    nfa: OnceLock<AhoCorasick>,
    dfa: OnceLock<AhoCorasick>,
}

/// How many texts a prefilter searches literal by literal before it builds an automaton.
const BY_LITERAL: usize = 32;

/// How many texts a prefilter searches with its NFA before it builds a DFA.
const BY_NFA: usize = 4096;

impl Prefilter {
    /// Gathers each item's literals (`None`: no prefilter).
    pub(crate) fn new(items: impl Iterator<Item = Option<Literals>>) -> Prefilter {
        // hashbrown's hasher, not std's SipHash, and room for a few literals an item: the
        // built-in rules give about 1,500, hashed at every start (0.4 M instructions with
        // SipHash and the table's growth).
        let mut slots: HashMap<Cow<'static, str>, usize> =
            HashMap::with_capacity(items.size_hint().0 * 4);
        let (mut literals, mut owners, mut always) =
            (Vec::new(), Vec::<Vec<usize>>::new(), Vec::new());
        for (index, item) in items.enumerate() {
            let Some(item) = item else {
                always.push(index);
                continue;
            };
            for literal in item {
                let slot = *slots.entry(literal).or_insert_with_key(|literal| {
                    literals.push(literal.clone());
                    owners.push(Vec::new());
                    owners.len() - 1
                });
                owners[slot].push(index);
            }
        }
        Prefilter {
            literals,
            owners,
            always,
            searched: AtomicUsize::new(0),
            finders: OnceLock::new(),
            nfa: OnceLock::new(),
            dfa: OnceLock::new(),
        }
    }

    /// The items that could match `text`, in order, each once.
    pub(crate) fn candidates(&self, text: &[u8]) -> Vec<usize> {
        let mut found: Vec<usize> = Vec::new();
        let searched = self.searched.fetch_add(1, Ordering::Relaxed);
        if searched < BY_LITERAL {
            let finders = self.finders.get_or_init(|| {
                let finder = |literal: &Cow<'static, str>| {
                    memchr::memmem::Finder::new(literal.as_bytes()).into_owned()
                };
                self.literals.iter().map(finder).collect()
            });
            let lower = text.to_ascii_lowercase();
            for (finder, owners) in finders.iter().zip(&self.owners) {
                if finder.find(&lower).is_some() {
                    found.extend(owners);
                }
            }
        } else {
            let (automaton, kind) = match searched < BY_NFA {
                true => (&self.nfa, aho_corasick::AhoCorasickKind::NoncontiguousNFA),
                false => (&self.dfa, aho_corasick::AhoCorasickKind::DFA),
            };
            let automaton = automaton.get_or_init(|| {
                AhoCorasick::builder()
                    .kind(Some(kind))
                    .ascii_case_insensitive(true)
                    .prefilter(false)
                    .build(self.literals.iter().map(|literal| literal.as_bytes()))
                    .expect("literal patterns always build an automaton")
            });
            for hit in automaton.find_overlapping_iter(text) {
                found.extend(&self.owners[hit.pattern().as_usize()]);
            }
        }
        if found.is_empty() {
            return self.always.clone();
        }
        found.extend(&self.always);
        found.sort_unstable();
        found.dedup();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_built_in_pattern_has_its_literals_from_the_build_and_they_are_its_own() {
        use crate::policy::{defaults, RuleMatch};
        let mut patterns = 0;
        for rule in defaults()
            .triggers
            .iter()
            .flat_map(|trigger| &trigger.rules)
        {
            let (globs, regex) = match &rule.matches {
                RuleMatch::Paths { globs } => (globs, None),
                RuleMatch::Line { regex, files } => (files, Some(regex)),
            };
            if let Some(regex) = regex {
                let read = read(required::regex_literals(regex));
                assert_eq!(
                    built(BUILT_REGEX_LITERALS, regex),
                    Some(read),
                    "{}",
                    rule.id
                );
                patterns += 1;
            }
            for glob in globs {
                let read = read(required::glob_literals(&required::rule_glob(glob)));
                assert_eq!(built(BUILT_GLOB_LITERALS, glob), Some(read), "{}", rule.id);
                patterns += 1;
            }
        }
        assert!(patterns > 100, "{patterns} built-in patterns");
        assert_eq!(built(BUILT_REGEX_LITERALS, r"not\.a\.rule"), None);
        assert_eq!(
            regex_literals(r"not\.a\.rule"),
            Some(vec![Cow::Borrowed("not.a.rule")])
        );
    }

    /// The owners whose literals `text` holds (case-insensitively), the slow way.
    fn owners_holding(sets: &[Option<Vec<String>>], text: &str) -> Vec<usize> {
        let lower = text.to_ascii_lowercase();
        (0..sets.len())
            .filter(|&index| match &sets[index] {
                Some(literals) => literals.iter().any(|l| lower.contains(l.as_str())),
                None => true,
            })
            .collect()
    }

    proptest! {
        #[test]
        fn every_tier_of_a_prefilter_finds_the_same_candidates(
            sets in prop::collection::vec(
                prop::option::weighted(0.9, prop::collection::vec("[a-c.]{1,3}", 1..4)),
                1..12,
            ),
            texts in prop::collection::vec("[a-cA-C. ]{0,12}", 1..6),
        ) {
            let prefilter = Prefilter::new(sets.iter().cloned().map(read));
            for (tier, searched) in [(0, 0), (1, BY_LITERAL), (2, BY_NFA)] {
                prefilter.searched.store(searched, Ordering::Relaxed);
                for text in &texts {
                    let expected = owners_holding(&sets, text);
                    prop_assert_eq!(
                        prefilter.candidates(text.as_bytes()),
                        expected,
                        "tier {} on {:?}", tier, text
                    );
                }
            }
            prop_assert!(prefilter.nfa.get().is_some() && prefilter.dfa.get().is_some());
        }
    }
}
