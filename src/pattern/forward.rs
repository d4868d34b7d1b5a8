//! Regexes that only answer whether they match: a forward lazy DFA, nothing else.
//!
//! A `meta::Regex` builds, for every pattern, an NFA with capture states, a second NFA
//! in reverse (for the start of a match), and the PikeVM, backtracker and one-pass
//! engines around them. Most rule regexes and every rule glob are only ever asked
//! whether a line or a path matches, which the forward lazy DFA answers alone (it is
//! what `meta::Regex::is_match` runs): building only that costs a quarter less than the
//! whole `meta::Regex` (the 109 built-in line regexes: 144 M instructions against 107 M).
//!
//! The answer is the same: the pattern is parsed with the caller's syntax settings
//! and compiled with the settings `meta` gives its own forward lazy DFA (the same
//! match kind, look-around, NFA size limit, cache capacity, and the same rule for
//! giving up when the cache thrashes). When the lazy DFA cannot be built, or gives up
//! on a haystack, [`Forward::is_match`] answers `None` and the caller asks the whole
//! `meta::Regex`, as `meta` itself falls back to its PikeVM.

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::iter::Searcher;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, Match, MatchError, PatternID};
use regex_syntax::hir::Hir;
use std::sync::Mutex;

/// The bytes the anchored searches that find where matches start may read in one
/// haystack, beyond [`START_SEARCH_BYTES_PER_BYTE`] per byte of it: no short line
/// reaches it, and past it the whole regex answers.
const START_SEARCH_BUDGET: usize = 256 * 1024;

/// The bytes those searches may read per byte of the haystack, beyond
/// [`START_SEARCH_BUDGET`]: what keeps them linear in the haystack.
const START_SEARCH_BYTES_PER_BYTE: usize = 16;

/// The forward lazy DFA of one pattern and its cache.
#[derive(Debug)]
pub(crate) struct Forward {
    dfa: DFA,
    /// The longest a match can be, in bytes, when the pattern says (a match's start is
    /// searched for no further back from its end).
    maximum_len: Option<usize>,
    /// Created on the first search; a search that finds it taken (another thread
    /// searching with it) uses a cache of its own.
    cache: Mutex<Option<Cache>>,
}

/// The settings `meta` compiles with that [`Forward`] must share.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// `meta::Config::nfa_size_limit` (`meta`'s default: 10 MiB).
    pub nfa_size_limit: Option<usize>,
    /// `meta::Config::hybrid_cache_capacity` (`meta`'s default: 2 MiB).
    pub cache_capacity: usize,
    /// `meta::Config::utf8_empty`.
    pub utf8_empty: bool,
}

impl Forward {
    /// The forward lazy DFA of `pattern`, parsed with `syntax`; `None` when it cannot
    /// be built (the caller builds the `meta::Regex`, which reports why, or runs
    /// without a lazy DFA).
    pub(crate) fn new(
        pattern: &str,
        syntax: &syntax::Config,
        settings: Settings,
    ) -> Option<Forward> {
        let hir = syntax::parse_with(pattern, syntax).ok()?;
        Forward::from_hir(&hir, settings)
    }

    /// [`Forward::new`] from the pattern's syntax tree, parsed already.
    pub(crate) fn from_hir(hir: &Hir, settings: Settings) -> Option<Forward> {
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .utf8(settings.utf8_empty)
                    .nfa_size_limit(settings.nfa_size_limit)
                    .shrink(false)
                    .which_captures(WhichCaptures::None),
            )
            .build_from_hir(hir)
            .ok()?;
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .unicode_word_boundary(true)
                    .cache_capacity(settings.cache_capacity)
                    .skip_cache_capacity_check(false)
                    .minimum_cache_clear_count(Some(3))
                    .minimum_bytes_per_state(Some(10)),
            )
            .build_from_nfa(nfa)
            .ok()?;
        Some(Forward {
            dfa,
            maximum_len: hir.properties().maximum_len(),
            cache: Mutex::new(None),
        })
    }

    /// Whether the pattern matches anywhere in `haystack`; `None` when the lazy DFA
    /// gave up (or quit on a byte it cannot decide on), and only a full regex can say.
    pub(crate) fn is_match(&self, haystack: &[u8]) -> Option<bool> {
        let input = Input::new(haystack).earliest(true);
        let found = self.with_cache(|cache| self.dfa.try_search_fwd(cache, &input).ok())?;
        Some(found.is_some())
    }

    /// Where each match of the pattern in `haystack` starts: the matches
    /// `meta::Regex::find_iter` reports (leftmost-first, none overlapping, an empty
    /// match not where the last one ended), by the same iteration; `None` when the lazy
    /// DFA gave up, and only a full regex can say.
    ///
    /// `meta` finds a match's end with this DFA and its start with a second, reverse
    /// DFA, whose NFA costs as much to build again (with the capture states, half of
    /// what compiling a rule cost). A leftmost-first match starts where the first match
    /// of all starts, so its start is the first position from which an anchored search
    /// of this same DFA finds any match: the reverse DFA's answer, found forward.
    pub(crate) fn match_starts(&self, haystack: &[u8]) -> Option<Vec<usize>> {
        self.with_cache(|cache| {
            let mut searcher = Searcher::new(Input::new(haystack));
            let mut starts = Vec::new();
            let mut budget = START_SEARCH_BUDGET + START_SEARCH_BYTES_PER_BYTE * haystack.len();
            let mut find = |input: &Input<'_>| self.find(cache, input, &mut budget);
            while let Some(found) = searcher.try_advance(&mut find).ok()? {
                starts.push(found.start());
            }
            Some(starts)
        })
    }

    /// The leftmost-first match in `input`'s span: its end by an unanchored search, its
    /// start the first position of the span from which an anchored search matches (no
    /// further back from the end than the longest match). Each anchored search reads
    /// no further than the match's end (a match from an earlier position would be one
    /// in the whole span; look-around still sees the bytes after it), and the bytes
    /// they could read are charged to `budget`: a line where finding starts forward
    /// would cost more than linear work (every position of a long run starting a
    /// search that reads to the match's end: `get(get(get(…` before an ownership
    /// check) gives up, and the whole regex, linear by its reverse DFA, answers.
    fn find(
        &self,
        cache: &mut Cache,
        input: &Input<'_>,
        budget: &mut usize,
    ) -> Result<Option<Match>, MatchError> {
        let Some(end) = self.dfa.try_search_fwd(cache, input)? else {
            return Ok(None);
        };
        let end = end.offset();
        let earliest = match self.maximum_len {
            Some(length) => end.saturating_sub(length).max(input.start()),
            None => input.start(),
        };
        for start in earliest..=end {
            *budget = budget
                .checked_sub(end - start + 1)
                .ok_or_else(|| MatchError::gave_up(start))?;
            let anchored = input
                .clone()
                .span(start..end)
                .anchored(Anchored::Yes)
                .earliest(true);
            if self.dfa.try_search_fwd(cache, &anchored)?.is_some() {
                return Ok(Some(Match::new(PatternID::ZERO, start..end)));
            }
        }
        // A match ends at `end`, so one starts in the span: not reached. Fail closed
        // all the same (the whole regex answers).
        Err(MatchError::gave_up(end))
    }

    /// Runs `search` with this DFA's cache (created on the first search), or with a
    /// cache of its own when another thread is searching with it.
    fn with_cache<T>(&self, search: impl FnOnce(&mut Cache) -> T) -> T {
        match self.cache.try_lock() {
            Ok(mut guard) => search(guard.get_or_insert_with(|| self.dfa.create_cache())),
            Err(_) => search(&mut self.dfa.create_cache()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_settings() -> Settings {
        Settings {
            nfa_size_limit: Some(10 * (1 << 20)),
            cache_capacity: 2 * (1 << 20),
            utf8_empty: false,
        }
    }

    #[test]
    fn answers_what_the_meta_regex_answers() {
        let syntax = syntax::Config::new().unicode(false).utf8(false);
        let pattern = r"(?i)\bsessions?_?(?:id|token)\b|^\s*passw(?:or)?d\s*[:=]";
        let forward = Forward::new(pattern, &syntax, line_settings()).expect("builds");
        let meta = regex_automata::meta::Builder::new()
            .syntax(syntax)
            .build(pattern)
            .expect("builds");
        for line in [
            "session_id = 1",
            "x.SESSIONTOKEN",
            "sessions_token",
            "subsession_id",
            "  password: x",
            "  passwd=",
            "a password: x",
            "\u{17f}ession_id",
            "",
        ] {
            assert_eq!(
                forward.is_match(line.as_bytes()),
                Some(meta.is_match(line.as_bytes())),
                "{line}"
            );
        }
    }

    #[test]
    fn a_lazy_dfa_that_gives_up_says_so_and_never_misses() {
        // A pattern whose DFA has 2^14 states and a cache far too small for the states a
        // long line of `a`s and `b`s visits: the search gives up (`None`) rather than
        // answer, and a match it does report is real.
        let syntax = syntax::Config::new().unicode(false).utf8(false);
        let pattern = r"a[ab]{14}token";
        let meta = regex_automata::meta::Builder::new()
            .syntax(syntax)
            .build(pattern)
            .expect("builds");
        let mut line = Vec::new();
        let mut state = 1u32;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            line.push(if state & 1 == 0 { b'a' } else { b'b' });
        }
        let mut gave_up = 0;
        for capacity in [1 << 14, 1 << 16, 1 << 18] {
            let settings = Settings {
                cache_capacity: capacity,
                ..line_settings()
            };
            let Some(forward) = Forward::new(pattern, &syntax, settings) else {
                continue;
            };
            for tail in [&b""[..], b"abababababababatoken"] {
                let haystack = [&line[..], tail].concat();
                let answer = forward.is_match(&haystack);
                gave_up += usize::from(answer.is_none());
                assert!(
                    answer.is_none_or(|found| found == meta.is_match(&haystack)),
                    "{capacity}: {answer:?}"
                );
                let starts = forward.match_starts(&haystack);
                gave_up += usize::from(starts.is_none());
                let expected: Vec<usize> = meta.find_iter(&haystack).map(|m| m.start()).collect();
                assert!(starts.is_none_or(|starts| starts == expected), "{capacity}");
            }
        }
        assert!(gave_up > 0, "no search gave up: the test proves nothing");
    }

    #[test]
    fn match_starts_are_where_the_meta_regex_finds_its_matches() {
        // Leftmost-first alternations that prefer a shorter or a later-written branch,
        // overlapping candidates, empty matches (after a match and on their own), word
        // boundaries and anchors read in a span that starts after the haystack's start.
        let syntax = syntax::Config::new().unicode(false).utf8(false);
        let patterns = [
            r"(?i)\bsessions?_?(?:id|token)\b|^\s*passw(?:or)?d\s*[:=]",
            r"ab|abcd|bcd|c",
            r"a*",
            r"x*|b",
            r"\b",
            r"^|$|,",
            r"(?m)^\w+$",
            r"aaa|aa",
            r"[a-z0-9](?:token|tok)(?:\b|_)|_",
            r"\bfoo",
            r"[a-z]{2,4}d|z",
            r"\w+x",
            r"a\b|b",
            r"x$|xy",
            r"(?m)a$|ab|\n",
            r"a(?:b|bc)\B|\bc",
        ];
        let haystacks = [
            "",
            "a",
            "abcd",
            "abcdbcdc",
            "aaaaaaa",
            "xxbxxb",
            "session_id sessionstoken",
            "  password: x, passwd=",
            "foo foofoo xfoo",
            "a_tokenb_tok_",
            "one\ntwo words\n",
            "aa aaa aaaa",
            "\u{17f}ession_id \u{ff} foo\r",
            "ab a xy x",
            "a\nab\r\nabcd abc abcc",
        ];
        let mut matched = 0;
        for pattern in patterns {
            let forward = Forward::new(pattern, &syntax, line_settings()).expect("builds");
            let meta = regex_automata::meta::Builder::new()
                .syntax(syntax)
                .configure(regex_automata::meta::Config::new().utf8_empty(false))
                .build(pattern)
                .expect("builds");
            for haystack in haystacks {
                let expected: Vec<usize> = meta
                    .find_iter(haystack.as_bytes())
                    .map(|m| m.start())
                    .collect();
                matched += expected.len();
                assert_eq!(
                    forward.match_starts(haystack.as_bytes()),
                    Some(expected),
                    "{pattern} on {haystack:?}"
                );
            }
        }
        assert!(matched > 50, "{matched}");
    }

    #[test]
    fn match_starts_give_up_where_finding_them_forward_would_not_be_linear() {
        // Every `get(` of a long run starts an anchored search that reads on to the
        // one match's end, far past it: forward, that is quadratic in the line (a
        // line of 320 KB took 33 s). Past the budget the DFA gives up and the whole
        // regex answers; a short line of the same shape is still answered here.
        let syntax = syntax::Config::new().unicode(false).utf8(false);
        let pattern = r"\bget\([^)]*\buser=|current_user\.\w+\.find\b";
        let forward = Forward::new(pattern, &syntax, line_settings()).expect("builds");
        let meta = regex_automata::meta::Builder::new()
            .syntax(syntax)
            .configure(regex_automata::meta::Config::new().utf8_empty(false))
            .build(pattern)
            .expect("builds");
        for (count, answers) in [(20, true), (20_000, false)] {
            let line = format!("q = {} current_user.posts.find", "get(".repeat(count));
            let expected: Vec<usize> = meta.find_iter(line.as_bytes()).map(|m| m.start()).collect();
            assert_eq!(expected.len(), 1, "{count}");
            let starts = forward.match_starts(line.as_bytes());
            assert_eq!(starts.is_some(), answers, "{count}");
            assert!(starts.is_none_or(|starts| starts == expected), "{count}");
        }
    }

    proptest::proptest! {
        /// Where matches start, on patterns made of pieces a policy's own rules use
        /// (alternations whose earlier branch is shorter, unbounded and empty
        /// repetitions, word boundaries, anchors, multi-line anchors, case-insensitive
        /// letters, a Unicode word boundary the DFA quits on) and haystacks of those
        /// letters, spaces, CRLF and a multi-byte character: meta's starts, or `None`.
        #[test]
        fn match_starts_on_composed_patterns_are_meta_s(
            branches in proptest::collection::vec(proptest::collection::vec(0usize..18, 1..4), 1..4),
            text in proptest::collection::vec(0usize..9, 0..24),
        ) {
            const PIECES: [&str; 18] = [
                "a", "b", "ab", "a*", "b+", r"\b", r"\B", "^", "$", "(?m:^)", "(?m:$)",
                "[ab]{1,3}", "(?i:A)", "x?", r"\s*", ".", r"(?u:\b)", r"[^\n]*",
            ];
            const LETTERS: [&str; 9] = ["a", "b", " ", "x", "A", "\n", "\r\n", "\u{e9}", "ab"];
            let pattern = branches
                .iter()
                .map(|pieces| pieces.iter().map(|&p| PIECES[p]).collect::<String>())
                .collect::<Vec<_>>()
                .join("|");
            let haystack: String = text.iter().map(|&l| LETTERS[l]).collect();
            let syntax = syntax::Config::new().unicode(false).utf8(false);
            let forward = Forward::new(&pattern, &syntax, line_settings()).expect("builds");
            let meta = regex_automata::meta::Builder::new()
                .syntax(syntax)
                .configure(regex_automata::meta::Config::new().utf8_empty(false))
                .build(&pattern)
                .expect("builds");
            let expected: Vec<usize> =
                meta.find_iter(haystack.as_bytes()).map(|m| m.start()).collect();
            let starts = forward.match_starts(haystack.as_bytes());
            proptest::prop_assert!(
                starts.as_ref().is_none_or(|starts| *starts == expected),
                "{} on {:?}: {:?} against {:?}", pattern, haystack, starts, expected
            );
        }
    }

    #[test]
    fn a_pattern_that_does_not_parse_builds_nothing() {
        let syntax = syntax::Config::new();
        assert!(Forward::new("(unclosed", &syntax, line_settings()).is_none());
    }
}
