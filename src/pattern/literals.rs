//! Literal prefilters: [`Prefilter`] finds in a text the rules (or globs) that could
//! match it, from the literals every match of each holds ([`super::required`]).
//!
//! The built-in rules' literals are read at build time (`build.rs` runs the same
//! functions on `defaults.yaml`): reading them from the rules' text cost every run about
//! 4.5 M instructions, twice git's whole diff of a one-line commit. A pattern that is not
//! a built-in one (a policy file's) is read when the prefilter is built.

use super::required::{self, Requirement};
use super::slots;
use super::start_index::{head_word, Start, StartIndex, FEW_PAIRS, START_BITS, START_HASH};
use aho_corasick::automaton::Automaton;
use aho_corasick::{dfa, Anchored};
use hashbrown::HashMap;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

// Written by `build.rs`, without a pointer (spans of `BUILT_TEXT` and of arrays): every
// literal of a built-in pattern once, sorted (literal `i` ends where `i + 1` starts,
// `BUILT_LITERAL_ENDS`); `BUILT_REGEX_LITERALS` and `BUILT_GLOB_LITERALS`, the built-in
// line regexes and rule globs as written, sorted, each with its literals' indices (a span
// of `BUILT_LITERAL_IDS`); `BUILT_REGEX_REQUIREMENTS`: each built-in line regex's
// requirement, sorted by regex (a span of `BUILT_REQUIREMENT_CODE`).
include!(concat!(env!("OUT_DIR"), "/literals.rs"));

// `BUILT_PREFILTERS`: the prefilters of the built-in policy's three lists of patterns (its
// line regexes, its path rules' globs, its line rules' file globs, each in the order the
// matcher holds them), built by `build.rs` as [`Prefilter::new`] builds them (a test holds
// them equal).
include!(concat!(env!("OUT_DIR"), "/prefilters.rs"));

/// A prefilter built ahead by `build.rs`: its list's patterns (spans of `BUILT_TEXT`),
/// each slot's built-in literal, and the rest as [`Prefilter`] and [`StartIndex`] hold
/// them.
struct BuiltPrefilter {
    patterns: &'static [[u32; 2]],
    literals: &'static [u16],
    starts: &'static [usize],
    owners: &'static [usize],
    always: &'static [usize],
    index_starts: [u64; 64],
    index_first: &'static [u32],
    index_entries: &'static [Start],
    index_pairs: &'static [u64],
    index_by_pair: &'static [(u16, usize)],
    index_short: &'static [usize],
}

/// A span of `BUILT_TEXT`.
fn built_text(start: u32, end: u32) -> &'static str {
    &BUILT_TEXT[start as usize..end as usize]
}

/// How many built-in literals there are.
const BUILT_LITERAL_COUNT: usize = BUILT_LITERAL_ENDS.len() - 1;

/// Built-in literal `id`.
fn built_literal(id: usize) -> &'static str {
    built_text(BUILT_LITERAL_ENDS[id], BUILT_LITERAL_ENDS[id + 1])
}

/// A pattern's literals: a built-in pattern's, as indices in the table built at build
/// time (nothing copied, nothing hashed when a prefilter gathers them), or read from its
/// text at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Literals {
    /// Indices of built-in literals.
    Built(&'static [u16]),
    /// Read at run time.
    Read(Vec<String>),
}

impl Literals {
    /// The literals themselves.
    #[cfg(test)]
    fn texts(&self) -> Vec<&str> {
        match self {
            Literals::Built(ids) => ids.iter().map(|&id| built_literal(id.into())).collect(),
            Literals::Read(texts) => texts.iter().map(String::as_str).collect(),
        }
    }
}

/// The row of `pattern` in a table built at build time, found through its slots
/// ([`slots`]), if it is there.
fn built_lookup(table: &'static [[u32; 4]], slots: &[u16], pattern: &str) -> Option<[u32; 4]> {
    let pattern = pattern.as_bytes();
    for slot in slots::probe(pattern, slots.len()) {
        let row = table[usize::from(slots[slot]).checked_sub(1)?];
        let [start, end, _, _] = row;
        if BUILT_TEXT.as_bytes().get(start as usize..end as usize) == Some(pattern) {
            return Some(row);
        }
    }
    None
}

/// The syntax tree of the built-in line regex `regex`, parsed at build time with the
/// classifier's settings (see [`super::hir_code`]); `None` for any other regex.
pub(crate) fn built_hir(regex: &str) -> Option<regex_syntax::hir::Hir> {
    let [_, _, start, end] = built_lookup(&BUILT_REGEX_HIRS, &BUILT_REGEX_HIRS_SLOTS, regex)?;
    let mut code = BUILT_HIR_CODE.get(start as usize..end as usize)?;
    let hir = super::hir_code::decode(&mut code, BUILT_TEXT)?;
    code.is_empty().then_some(hir)
}

/// The literals of a pattern in a table built at build time, if it is there.
fn built((table, slots): (&'static [[u32; 4]], &[u16]), pattern: &str) -> Option<Option<Literals>> {
    built_lookup(table, slots, pattern).map(built_row)
}

/// The built-in line regexes' literals, with their slots.
const REGEXES: (&[[u32; 4]], &[u16]) = (&BUILT_REGEX_LITERALS, &BUILT_REGEX_LITERALS_SLOTS);
/// The built-in rule globs' literals, with their slots.
const GLOBS: (&[[u32; 4]], &[u16]) = (&BUILT_GLOB_LITERALS, &BUILT_GLOB_LITERALS_SLOTS);

/// The literals of a row of a table built at build time.
fn built_row([_, _, start, end]: [u32; 4]) -> Option<Literals> {
    // `u32::MAX` twice: the pattern's text does not say.
    (start != u32::MAX).then(|| Literals::Built(&BUILT_LITERAL_IDS[start as usize..end as usize]))
}

/// Literals of which every match of the line regex `regex` holds one (ASCII lower case),
/// or `None` when its text does not say ([`required::regex_literals`]).
pub(crate) fn regex_literals(regex: &str) -> Option<Literals> {
    built(REGEXES, regex).unwrap_or_else(|| required::regex_literals(regex).map(Literals::Read))
}

/// What every match of a line regex requires, whole ([`required::regex_requirement`]):
/// every literal run of a branch (`private` and `key`), where its prefilter holds one.
/// Checked on a line before the regex is compiled for it, it spares compiling a rule for
/// a line that holds only one of its words.
#[derive(Debug)]
pub(crate) enum RegexRequirement {
    /// A built-in regex's, read at build time: its code in `BUILT_REQUIREMENT_CODE`
    /// (reading it from the text cost a one-line commit 0.35 M instructions).
    Built(&'static [u32]),
    /// Any other regex's, read from its text.
    Read(Requirement),
}

/// The kinds of node in `BUILT_REQUIREMENT_CODE` (`build.rs`, `requirement_code`): a
/// literal `[LITERAL, start, end]` (its span in `BUILT_TEXT`), or `[ALL, n,
/// length]` / `[ANY, n, length]` followed by the code of its `n` parts, `length` words.
const LITERAL: u32 = 0;
const ALL: u32 = 1;

impl RegexRequirement {
    /// The requirement of `regex`: a built-in regex's from the tables built at build
    /// time, any other's read from its text.
    pub(crate) fn new(regex: &str) -> RegexRequirement {
        let table = &BUILT_REGEX_REQUIREMENTS;
        match built_lookup(table, &BUILT_REGEX_REQUIREMENTS_SLOTS, regex) {
            Some([_, _, start, end]) => {
                RegexRequirement::Built(&BUILT_REQUIREMENT_CODE[start as usize..end as usize])
            }
            None => RegexRequirement::Read(required::regex_requirement(regex)),
        }
    }

    /// Whether `text` meets it (compared in ASCII lower case). A literal is searched for
    /// only when the text holds each of its pairs of adjacent bytes: a requirement of many
    /// branches (one of fifty words) built a searcher for each word of each line, a
    /// fifth of a two-file commit of spring-framework.
    pub(crate) fn holds(&self, text: &[u8]) -> bool {
        let mut buffer = [0; SHORT_LINE];
        let lower: Cow<'_, [u8]> = match buffer.get_mut(..text.len()) {
            Some(lower) => {
                lower.copy_from_slice(text);
                lower.make_ascii_lowercase();
                Cow::Borrowed(lower)
            }
            None => Cow::Owned(text.to_ascii_lowercase()),
        };
        let pairs = BytePairs::of(&lower);
        let mut contains = |literal: &str| {
            let literal = literal.as_bytes();
            pairs.may_hold(literal) && holds_literal(&lower, literal)
        };
        match self {
            RegexRequirement::Built(code) => code_holds(code, &mut contains),
            RegexRequirement::Read(requirement) => requirement.holds(&mut contains),
        }
    }
}

/// The longest text a requirement is checked on without allocating, and searched for a
/// literal byte by byte (beyond, `memmem`, whose searcher costs more to build than a
/// short line costs to scan).
const SHORT_LINE: usize = 256;

/// Whether `text` holds `literal`.
fn holds_literal(text: &[u8], literal: &[u8]) -> bool {
    match literal.split_first() {
        None => true,
        Some(_) if text.len() > SHORT_LINE => memchr::memmem::find(text, literal).is_some(),
        Some((&first, rest)) => {
            memchr::memchr_iter(first, text).any(|at| text[at + 1..].starts_with(rest))
        }
    }
}

/// Whether the node of built requirement code that starts `code` holds, `contains`
/// telling whether the text holds a literal (as [`Requirement::holds`]).
fn code_holds(code: &[u32], contains: &mut impl FnMut(&str) -> bool) -> bool {
    let [kind, first, second] = [code[0], code[1], code[2]];
    if kind == LITERAL {
        return contains(built_text(first, second));
    }
    let mut parts = &code[3..3 + second as usize];
    for _ in 0..first {
        let length = code_length(parts);
        if code_holds(&parts[..length], contains) != (kind == ALL) {
            return kind != ALL;
        }
        parts = &parts[length..];
    }
    kind == ALL
}

/// How many words the node that starts `code` takes.
fn code_length(code: &[u32]) -> usize {
    match code[0] {
        LITERAL => 3,
        _ => 3 + code[2] as usize,
    }
}

/// Literals of which every path the rule glob `glob` (as written in a policy) matches
/// holds one, or `None` ([`required::glob_literals`] of [`required::rule_glob`]).
pub(crate) fn rule_glob_literals(glob: &str) -> Option<Literals> {
    built(GLOBS, glob)
        .unwrap_or_else(|| required::glob_literals(&required::rule_glob(glob)).map(Literals::Read))
}

/// Finds which rules could match a text, from their literals, at a cost that suits the
/// size of the change.
///
/// The first [`BY_PAIRS`] texts are searched position by position: a table of the
/// (hashed) three bytes some literal starts with says where one could start, and only
/// there are the literals that start there compared ([`StartIndex`]: a few instructions
/// a byte; the table is built from the literals, not compiled). Beyond, an Aho-Corasick DFA finds every literal
/// in one pass (a few instructions a byte too, but about ten million instructions to
/// build, which only a large change pays back). An Aho-Corasick NFA from the 33rd text
/// on, as before, cost 7 M instructions to build for the built-in line rules: a third of
/// a two-file commit of spring-framework.
#[derive(Debug)]
pub(crate) struct Prefilter {
    /// Every distinct literal of every rule that has some, in lower case (a literal read
    /// at run time may repeat a built-in one: it is searched twice, for the same rules).
    literals: Vec<Cow<'static, str>>,
    /// The rules (or globs) holding literal `i`: `owners[starts[i]..starts[i + 1]]`.
    starts: Cow<'static, [usize]>,
    owners: Cow<'static, [usize]>,
    /// The rules (or globs) with no literal: candidates for every text.
    always: Cow<'static, [usize]>,
    /// How many texts were searched.
    searched: AtomicUsize,
    /// The literals by the pair of bytes they start with, then as one DFA.
    pairs: OnceLock<StartIndex>,
    dfa: OnceLock<dfa::DFA>,
}

/// How many texts a prefilter searches position by position before it builds a DFA.
const BY_PAIRS: usize = 4096;

impl Prefilter {
    /// Gathers each item's literals (`None`: no prefilter).
    pub(crate) fn new(items: impl Iterator<Item = Option<Literals>>) -> Prefilter {
        // A built-in literal's slot is found by its index, a literal read at run time's
        // by hashing it (hashbrown's hasher, not std's SipHash).
        let mut built_slots = vec![usize::MAX; BUILT_LITERAL_COUNT];
        let mut read_slots: HashMap<String, usize> = HashMap::new();
        let mut literals: Vec<Cow<'static, str>> = Vec::new();
        // Each item's literals' slots, in order, and how many items hold each.
        let (mut slots, mut counts, mut always) = (Vec::new(), Vec::<usize>::new(), Vec::new());
        let mut new_slot = |literal: Cow<'static, str>| {
            literals.push(literal);
            literals.len() - 1
        };
        let items: Vec<Option<Literals>> = items.collect();
        // The built-in literals take the first slots, in the table's (sorted) order, so
        // that the pair index finds them already sorted.
        for item in &items {
            if let Some(Literals::Built(ids)) = item {
                for &id in *ids {
                    built_slots[usize::from(id)] = 0;
                }
            }
        }
        for (id, slot) in built_slots.iter_mut().enumerate() {
            if *slot == 0 {
                *slot = new_slot(Cow::Borrowed(built_literal(id)));
            }
        }
        for (index, item) in items.iter().enumerate() {
            let start = slots.len();
            match item {
                None => always.push(index),
                Some(Literals::Built(ids)) => {
                    slots.extend(ids.iter().map(|&id| built_slots[usize::from(id)]))
                }
                Some(Literals::Read(texts)) => slots.extend(texts.iter().map(|text| {
                    *read_slots
                        .entry_ref(text.as_str())
                        .or_insert_with(|| new_slot(Cow::Owned(text.clone())))
                })),
            }
            for &slot in &slots[start..] {
                if slot >= counts.len() {
                    counts.resize(slot + 1, 0);
                }
                counts[slot] += 1;
            }
        }
        // The owners grouped by literal, each group in item order.
        let mut starts = Vec::with_capacity(counts.len() + 1);
        starts.push(0);
        for count in &counts {
            starts.push(starts[starts.len() - 1] + count);
        }
        let mut next = starts.clone();
        let mut owners = vec![0; slots.len()];
        let mut slot_of = slots.iter();
        for (index, item) in items.iter().enumerate() {
            let held = match item {
                None => 0,
                Some(Literals::Built(ids)) => ids.len(),
                Some(Literals::Read(texts)) => texts.len(),
            };
            for &slot in slot_of.by_ref().take(held) {
                owners[next[slot]] = index;
                next[slot] += 1;
            }
        }
        Prefilter {
            literals,
            starts: Cow::Owned(starts),
            owners: Cow::Owned(owners),
            always: Cow::Owned(always),
            searched: AtomicUsize::new(0),
            pairs: OnceLock::new(),
            dfa: OnceLock::new(),
        }
    }

    /// The prefilter of `patterns`, found with `literals` ([`regex_literals`] or
    /// [`rule_glob_literals`]): the one `build.rs` built when they are one of the built-in
    /// policy's lists as it is (gathering and indexing their literals cost every run about
    /// 0.6 M instructions), else built here.
    pub(crate) fn of_patterns<'p>(
        patterns: impl Iterator<Item = &'p str> + Clone,
        literals: impl Fn(&str) -> Option<Literals>,
    ) -> Prefilter {
        match Self::built_for(patterns.clone()) {
            Some(built) => Self::from_built(built),
            None => Prefilter::new(patterns.map(literals)),
        }
    }

    /// The prefilter `build.rs` built for exactly `patterns`, in this order, if any.
    fn built_for<'p>(
        patterns: impl Iterator<Item = &'p str> + Clone,
    ) -> Option<&'static BuiltPrefilter> {
        BUILT_PREFILTERS.iter().find(|built| {
            let texts = built
                .patterns
                .iter()
                .map(|&[start, end]| built_text(start, end));
            patterns.clone().eq(texts)
        })
    }

    fn from_built(built: &'static BuiltPrefilter) -> Prefilter {
        let index = StartIndex {
            starts: built.index_starts,
            first: Cow::Borrowed(built.index_first),
            entries: Cow::Borrowed(built.index_entries),
            pairs: Cow::Borrowed(built.index_pairs),
            by_pair: Cow::Borrowed(built.index_by_pair),
            short: Cow::Borrowed(built.index_short),
        };
        let literals = built.literals.iter();
        Prefilter {
            literals: literals
                .map(|&id| Cow::Borrowed(built_literal(id.into())))
                .collect(),
            starts: Cow::Borrowed(built.starts),
            owners: Cow::Borrowed(built.owners),
            always: Cow::Borrowed(built.always),
            searched: AtomicUsize::new(0),
            pairs: OnceLock::from(index),
            dfa: OnceLock::new(),
        }
    }

    /// Checks that the prefilter of `patterns` is one `build.rs` built ahead, equal to
    /// the one [`Prefilter::new`] builds from `literals` (index included).
    #[cfg(test)]
    pub(crate) fn assert_built_ahead<'p>(
        patterns: impl Iterator<Item = &'p str> + Clone,
        literals: impl Fn(&str) -> Option<Literals>,
    ) {
        let built = Self::built_for(patterns.clone()).expect("a list build.rs built ahead");
        let ahead = Self::from_built(built);
        let now = Prefilter::new(patterns.map(literals));
        assert_eq!(ahead.literals, now.literals);
        assert_eq!(
            (&ahead.starts, &ahead.owners, &ahead.always),
            (&now.starts, &now.owners, &now.always)
        );
        let index = StartIndex::new(now.literals.iter().map(|literal| literal.as_bytes()));
        assert_eq!(ahead.pairs.get(), Some(&index));
    }

    /// Whether `build.rs` built the prefilter of `patterns` ahead.
    #[cfg(test)]
    pub(crate) fn is_built_ahead<'p>(patterns: impl Iterator<Item = &'p str> + Clone) -> bool {
        Self::built_for(patterns).is_some()
    }

    /// The items that hold literal `slot`.
    fn owners_of(&self, slot: usize) -> &[usize] {
        &self.owners[self.starts[slot]..self.starts[slot + 1]]
    }

    /// Adds to `found` the items holding each literal `text` holds, found by one DFA of
    /// them all; false, with `found` unchanged, when the DFA could not search (an
    /// unanchored search of an unanchored DFA always can).
    fn search_dfa(&self, text: &[u8], found: &mut Vec<usize>) -> bool {
        let automaton = self.dfa.get_or_init(|| {
            dfa::DFA::builder()
                .ascii_case_insensitive(true)
                .prefilter(false)
                .build(self.literals.iter().map(|literal| literal.as_bytes()))
                .expect("literal patterns always build an automaton")
        });
        // Every literal ending at each byte, as `find_overlapping_iter` reports them, but
        // read in one loop over the text with the state in a register: the iterator
        // returns at each match and keeps its position in memory, five times the
        // instructions a byte (a tenth of classifying a release range of Rails).
        let Ok(mut state) = automaton.start_state(Anchored::No) else {
            return false;
        };
        let mut hold = |state| {
            for index in 0..automaton.match_len(state) {
                let literal = automaton.match_pattern(state, index);
                found.extend(self.owners_of(literal.as_usize()));
            }
        };
        if automaton.is_match(state) {
            hold(state);
        }
        for &byte in text {
            state = automaton.next_state(Anchored::No, state, byte);
            if automaton.is_special(state) {
                if automaton.is_dead(state) {
                    break;
                }
                if automaton.is_match(state) {
                    hold(state);
                }
            }
        }
        true
    }

    /// The items that could match `text`, in order, each once.
    pub(crate) fn candidates(&self, text: &[u8]) -> Vec<usize> {
        let mut found: Vec<usize> = Vec::new();
        let searched = self.searched.fetch_add(1, Ordering::Relaxed);
        if searched < BY_PAIRS || !self.search_dfa(text, &mut found) {
            let index = self.pairs.get_or_init(|| {
                StartIndex::new(self.literals.iter().map(|literal| literal.as_bytes()))
            });
            index.search(&self.literals, &text.to_ascii_lowercase(), |slot| {
                found.extend(self.owners_of(slot));
            });
        }
        if found.is_empty() {
            return self.always.to_vec();
        }
        found.extend(self.always.iter());
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// The bytes, and the pairs of adjacent bytes, a text holds: a literal that holds one
/// the text does not cannot be in it. The pairs are kept in 4,096 bits (two pairs may
/// share one, which only lets a literal through to the search): a table of every pair,
/// 8 KiB zeroed for each line a requirement was checked on, cost more than it saved.
struct BytePairs {
    bytes: [u64; 4],
    pairs: [u64; 64],
}

impl BytePairs {
    fn of(text: &[u8]) -> BytePairs {
        let mut found = BytePairs {
            bytes: [0; 4],
            pairs: [0; 64],
        };
        for &byte in text {
            found.bytes[usize::from(byte >> 6)] |= 1 << (byte & 63);
        }
        for pair in text.windows(2) {
            let bit = Self::bit(pair[0], pair[1]);
            found.pairs[bit >> 6] |= 1 << (bit & 63);
        }
        found
    }

    /// The bit of a pair.
    fn bit(first: u8, second: u8) -> usize {
        (usize::from(first) << 5 ^ usize::from(second)) & 4095
    }

    /// Whether `literal` could be in the text.
    fn may_hold(&self, literal: &[u8]) -> bool {
        match literal {
            [] => true,
            [byte] => self.bytes[usize::from(byte >> 6)] & 1 << (byte & 63) != 0,
            _ => literal.windows(2).all(|pair| {
                let bit = Self::bit(pair[0], pair[1]);
                self.pairs[bit >> 6] & 1 << (bit & 63) != 0
            }),
        }
    }
}

impl StartIndex {
    /// Calls `found` with the slot of each literal `text` (in lower case) holds, at least
    /// once.
    fn search(&self, literals: &[Cow<'static, str>], text: &[u8], mut found: impl FnMut(usize)) {
        for &slot in self.short.iter() {
            match literals[slot].as_bytes() {
                [byte] if memchr::memchr(*byte, text).is_none() => {}
                _ => found(slot),
            }
        }
        if self.by_pair.len() <= FEW_PAIRS {
            for &(pair, slot) in self.by_pair.iter() {
                let [first, second] = pair.to_be_bytes();
                let mut starts = memchr::memchr_iter(first, text);
                if starts.any(|at| text.get(at + 1) == Some(&second)) {
                    found(slot);
                }
            }
        } else {
            for pair in text.windows(2) {
                let pair = u16::from_be_bytes([pair[0], pair[1]]);
                if self.pairs[usize::from(pair >> 6)] & 1 << (pair & 63) == 0 {
                    continue;
                }
                let first = self.by_pair.partition_point(|&(key, _)| key < pair);
                for &(_, slot) in self.by_pair[first..]
                    .iter()
                    .take_while(|(key, _)| *key == pair)
                {
                    found(slot);
                }
            }
        }
        // The last three bytes as `start_bucket` reads them, the newest highest.
        let mut word: u32 = 0;
        for (end, &byte) in text.iter().enumerate() {
            word = word >> 8 | u32::from(byte) << 16;
            let bucket = (word.wrapping_mul(START_HASH) >> (32 - START_BITS)) as usize;
            if end < 2 || self.starts[bucket >> 6] & 1 << (bucket & 63) == 0 {
                continue;
            }
            let rest = &text[end - 2..];
            let head = head_word(rest);
            let mut entry = self.first[bucket];
            while let Some(start) = (entry as usize).checked_sub(1).map(|at| &self.entries[at]) {
                entry = start.next;
                if head & start.mask == start.head
                    && start.length <= rest.len()
                    && (start.length <= 4
                        || rest[4..start.length] == literals[start.slot].as_bytes()[4..])
                {
                    found(start.slot);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
