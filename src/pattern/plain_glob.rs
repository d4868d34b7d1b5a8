//! A glob's regex of plain pieces matched without compiling it.
//!
//! A rule glob is matched through the regex `globset` writes for it (see
//! [`super::glob_matcher`]). Compiling that regex cost about 23,000 instructions a glob,
//! and a one-commit change compiled dozens: a fifth of what `classify` cost on such a
//! change, for globs such as `**/*auth*` or `**/vendor/**` that a few comparisons decide.
//! So the regex is read first: when it is made only of the pieces `globset` writes for
//! literal text, `?`, `*`, `**/`, `/**/` and `/**`, it is matched here, piece by piece,
//! by what each piece means as a regex; anything else (a class, an alternative, case
//! folding) is compiled as before.
//!
//! Matching backtracks over `*` and `**`. A glob with many of them on a long path could
//! take long that way, so the search has a budget of steps; past it, the regex is
//! compiled after all and answers.

use regex_automata::meta;
use std::sync::OnceLock;

/// One piece of a plain glob regex.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// These bytes (a run of literal characters).
    Literal(Vec<u8>),
    /// `[^/]`: one byte that is not `/`.
    NotSlash,
    /// `[^/]*`: any run of bytes without `/`.
    Star,
    /// `.*`: any run of bytes.
    Any,
    /// `(?:/?|.*/)`: nothing, or any run of bytes that ends in `/`.
    Directories,
}

/// A glob regex of plain pieces, anchored at both ends, with the regex itself compiled
/// only if a search runs out of its budget.
#[derive(Debug)]
pub(crate) struct PlainGlob {
    pieces: Vec<Piece>,
    regex: String,
    fallback: OnceLock<Option<meta::Regex>>,
}

/// How many steps a search may take before the regex is compiled and asked instead.
const BUDGET: usize = 10_000;

impl PlainGlob {
    /// The plain pieces of `regex` (as `globset` writes a glob's regex with
    /// `literal_separator`, without case folding), or `None` when it holds anything
    /// else.
    pub(crate) fn new(regex: &str) -> Option<PlainGlob> {
        let body = regex.strip_prefix("(?-u)^")?.strip_suffix('$')?;
        let pieces = pieces(body)?;
        Some(PlainGlob {
            pieces,
            regex: regex.to_string(),
            fallback: OnceLock::new(),
        })
    }

    /// Whether the whole of `path` matches, `compile` building the regex should the
    /// search run out of budget (`None`: it does not compile, and the glob matches:
    /// a rule that cannot say no fires).
    pub(crate) fn is_match(
        &self,
        path: &[u8],
        compile: impl FnOnce(&str) -> Option<meta::Regex>,
    ) -> bool {
        self.is_match_within(path, BUDGET, compile)
    }

    fn is_match_within(
        &self,
        path: &[u8],
        budget: usize,
        compile: impl FnOnce(&str) -> Option<meta::Regex>,
    ) -> bool {
        let mut left = budget;
        match search(&self.pieces, path, &mut left) {
            Some(answer) => answer,
            None => self
                .fallback
                .get_or_init(|| compile(&self.regex))
                .as_ref()
                .is_none_or(|regex| regex.is_match(path)),
        }
    }
}

/// The pieces of a glob regex's body, or `None` when it holds anything but plain ones.
fn pieces(body: &str) -> Option<Vec<Piece>> {
    let mut pieces: Vec<Piece> = Vec::new();
    let mut rest = body.as_bytes();
    while let Some(&first) = rest.first() {
        let (piece, length) = if rest.starts_with(b"(?:/?|.*/)") {
            (Piece::Directories, 10)
        } else if rest.starts_with(b"(?:/|/.*/)") {
            push_byte(&mut pieces, b'/');
            (Piece::Directories, 10)
        } else if rest.starts_with(b"[^/]*") {
            (Piece::Star, 5)
        } else if rest.starts_with(b"[^/]") {
            (Piece::NotSlash, 4)
        } else if rest.starts_with(b".*") {
            (Piece::Any, 2)
        } else if first == b'\\' {
            let (byte, length) = escaped(&rest[1..])?;
            push_byte(&mut pieces, byte);
            rest = &rest[1 + length..];
            continue;
        } else if (first.is_ascii_graphic() || first == b' ')
            && !regex_syntax::is_meta_character(char::from(first))
        {
            push_byte(&mut pieces, first);
            rest = &rest[1..];
            continue;
        } else {
            return None;
        };
        pieces.push(piece);
        rest = &rest[length..];
    }
    Some(pieces)
}

/// The byte an escape (after its backslash) stands for, and the escape's length: `\xHH`
/// or an escaped ASCII punctuation character.
fn escaped(rest: &[u8]) -> Option<(u8, usize)> {
    match rest {
        [b'x', high, low, ..] if high.is_ascii_hexdigit() && low.is_ascii_hexdigit() => {
            let digit = |b: u8| {
                char::from(b)
                    .to_digit(16)
                    .and_then(|d| u8::try_from(d).ok())
            };
            Some((digit(*high)? << 4 | digit(*low)?, 3))
        }
        [byte, ..] if byte.is_ascii_punctuation() => Some((*byte, 1)),
        _ => None,
    }
}

/// Adds a literal byte, to the run before it if there is one.
fn push_byte(pieces: &mut Vec<Piece>, byte: u8) {
    match pieces.last_mut() {
        Some(Piece::Literal(run)) => run.push(byte),
        _ => pieces.push(Piece::Literal(vec![byte])),
    }
}

/// Whether `pieces` match the whole of `text`, or `None` when the search took more steps
/// than `left`.
fn search(pieces: &[Piece], text: &[u8], left: &mut usize) -> Option<bool> {
    *left = left.checked_sub(1)?;
    let Some((piece, rest)) = pieces.split_first() else {
        return Some(text.is_empty());
    };
    match piece {
        Piece::Literal(run) => match text.strip_prefix(run.as_slice()) {
            Some(after) => search(rest, after, left),
            None => Some(false),
        },
        Piece::NotSlash => match text.split_first() {
            Some((&byte, after)) if byte != b'/' => search(rest, after, left),
            _ => Some(false),
        },
        // A last `*` or `.*` takes the rest whole.
        Piece::Star if rest.is_empty() => Some(memchr::memchr(b'/', text).is_none()),
        Piece::Any if rest.is_empty() => Some(true),
        Piece::Star => {
            let end = memchr::memchr(b'/', text).unwrap_or(text.len());
            first_match((0..=end).map(|at| &text[at..]), rest, left)
        }
        Piece::Any => first_match((0..=text.len()).map(|at| &text[at..]), rest, left),
        Piece::Directories if crosses_no_slash(rest) => {
            // What follows cannot hold a `/`: it starts after the last one.
            let start = memchr::memrchr(b'/', text).map_or(0, |at| at + 1);
            search(rest, &text[start..], left)
        }
        Piece::Directories => {
            let after_slashes = memchr::memchr_iter(b'/', text).map(|at| at + 1);
            let starts = std::iter::once(0).chain(after_slashes);
            first_match(starts.map(|at| &text[at..]), rest, left)
        }
    }
}

/// The first of `texts` that `pieces` match whole: `Some(true)`; `Some(false)` when
/// none; `None` when the budget ran out.
fn first_match<'t>(
    texts: impl Iterator<Item = &'t [u8]>,
    pieces: &[Piece],
    left: &mut usize,
) -> Option<bool> {
    for text in texts {
        if search(pieces, text, left)? {
            return Some(true);
        }
    }
    Some(false)
}

/// Whether no text `pieces` match can hold a `/`.
fn crosses_no_slash(pieces: &[Piece]) -> bool {
    pieces.iter().all(|piece| match piece {
        Piece::Literal(run) => !run.contains(&b'/'),
        Piece::NotSlash | Piece::Star => true,
        Piece::Any | Piece::Directories => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn regex_of(glob: &str) -> String {
        globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .expect("a glob")
            .regex()
            .to_string()
    }

    fn compiled(regex: &str) -> Option<meta::Regex> {
        super::super::regex_matcher(regex).ok()
    }

    #[test]
    fn plain_pieces_are_read_and_anything_else_is_left_to_the_regex() {
        let plain = |glob: &str| PlainGlob::new(&regex_of(glob)).map(|p| p.pieces);
        assert_eq!(
            plain("**/*auth*"),
            Some(vec![
                Piece::Directories,
                Piece::Star,
                Piece::Literal(b"auth".to_vec()),
                Piece::Star
            ])
        );
        assert_eq!(
            plain("**/vendor/**"),
            Some(vec![
                Piece::Directories,
                Piece::Literal(b"vendor/".to_vec()),
                Piece::Any
            ])
        );
        assert_eq!(plain("a/**/b?.{x}"), None, "an alternative is compiled");
        assert_eq!(plain("a/**/b?"), {
            let mut pieces = vec![Piece::Literal(b"a/".to_vec()), Piece::Directories];
            pieces.extend([Piece::Literal(b"b".to_vec()), Piece::NotSlash]);
            Some(pieces)
        });
        assert_eq!(plain("x[ab]"), None);
        assert_eq!(plain("é.#-~&"), Some(vec![Piece::Literal("é.#-~&".into())]));
        let folded = globset::GlobBuilder::new("*.rs")
            .case_insensitive(true)
            .build()
            .expect("a glob");
        assert!(
            PlainGlob::new(folded.regex()).is_none(),
            "case folding is compiled"
        );
    }

    #[test]
    fn edges_are_matched_as_the_regex_matches_them() {
        // `?` is one byte of a character of several (as in the regex, which runs without
        // `u`); a newline is a byte like any other; nothing is case-folded; an empty
        // segment is text like any other.
        let cases = [
            ("?", "é", false),
            ("??", "é", true),
            ("?", "😀", false),
            ("????", "😀", true),
            ("ß", "ss", false),
            ("\u{212a}", "k", false),
            ("i\u{307}", "i\u{307}", true),
            ("*", "a\nb", true),
            ("**/x", "a\n/x", true),
            ("a/**", "a/\n", true),
            ("\\*", "*", true),
            ("\\*", "a", false),
            ("a**b", "axyb", true),
            ("a**b", "ax/yb", false),
            ("**/**/a", "a", true),
            ("a/**/b", "a//b", true),
            ("a/**/b", "ab", false),
            ("/**", "/", true),
            ("*/", "a/", true),
            (".*", ".a", true),
        ];
        for (glob, path, matches) in cases {
            let regex = regex_of(glob);
            let plain = PlainGlob::new(&regex).expect("plain");
            let compiled = compiled(&regex).expect("compiles");
            assert_eq!(
                compiled.is_match(path.as_bytes()),
                matches,
                "{glob} on {path:?}"
            );
            assert_eq!(
                plain.is_match(path.as_bytes(), |_| None),
                matches,
                "{glob:?} ({regex}) on {path:?}"
            );
        }
    }

    #[test]
    fn a_search_out_of_budget_asks_the_regex() {
        let glob = PlainGlob::new(&regex_of("**/*a*a*a*a*b")).expect("plain");
        let path = b"x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac";
        let mut left = 100;
        assert_eq!(search(&glob.pieces, path, &mut left), None);
        assert!(!glob.is_match(path, compiled));
        assert!(glob.fallback.get().is_some(), "the regex was compiled");
        assert!(glob.is_match(b"x/aaaab", |_| unreachable!("compiled once")));
        let broken = PlainGlob::new(&regex_of("*a*a*b")).expect("plain");
        assert!(
            broken.is_match_within(b"aaaaaaaaac", 3, |_| None),
            "fail closed"
        );
    }

    proptest! {
        #[test]
        fn a_plain_glob_matches_what_its_regex_matches(
            glob in "(/|\\*\\*/|/\\*\\*|\\*|\\?|[ab./_#-]){1,8}",
            path in "[ab./_#-]{0,12}",
            budget in prop_oneof![Just(BUDGET), 1usize..40],
        ) {
            let Ok(built) = globset::GlobBuilder::new(&glob)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
            else {
                return Ok(());
            };
            let regex = built.regex();
            let Some(plain) = PlainGlob::new(regex) else {
                return Ok(());
            };
            let expected = compiled(regex).expect("compiles").is_match(path.as_bytes());
            let found = plain.is_match_within(path.as_bytes(), budget, compiled);
            prop_assert_eq!(found, expected, "{} ({}) on {}", glob, regex, path);
        }

        // Pieces of what a policy's glob and a repository's path hold beyond the ASCII
        // above: escapes, characters of several bytes (some whose case folding changes
        // their length, some that combine), a newline in a path, stars in a row, and
        // runs long enough to spend a small budget.
        #[test]
        fn a_plain_glob_matches_what_its_regex_matches_on_any_text(
            glob in prop::collection::vec(prop::sample::select(vec![
                "**/", "/**", "/**/", "**", "***", "*", "?", "/", "a", ".", "é", "ß", "\u{212a}",
                "i\u{307}", "\u{301}", "😀", "\\*", "\\?", "\\\\", "\\a", "\\{", "#", " ",
            ]), 1..10).prop_map(|pieces| pieces.concat()),
            path in prop::collection::vec(prop::sample::select(vec![
                "a", "/", ".", "é", "ß", "\u{212a}", "i\u{307}", "\u{301}", "😀", "*", "?", "\\",
                "{", "#", " ", "\n", "aaaaaaaa",
            ]), 0..24).prop_map(|pieces| pieces.concat()),
            budget in prop_oneof![Just(BUDGET), 1usize..40],
        ) {
            let regex = regex_of(&glob);
            let Some(plain) = PlainGlob::new(&regex) else {
                let unread = format!("{glob:?} ({regex}) is not read as plain");
                return Err(TestCaseError::fail(unread));
            };
            let expected = compiled(&regex).expect("compiles").is_match(path.as_bytes());
            let found = plain.is_match_within(path.as_bytes(), budget, compiled);
            prop_assert_eq!(found, expected, "{:?} ({}) on {:?}", glob, regex, path);
        }
    }
}
