//! What every match of a pattern requires, read from the pattern's own text without
//! compiling it: the literals of which every match of a line regex or a path glob holds
//! one (compared in ASCII lower case, which is sound whatever the pattern's case flags),
//! and a rule glob as the full-path glob it means ([`rule_glob`]).
//!
//! Compiling the rules is most of what a small change costs: the default line regexes
//! alone take about 9 M instructions to parse and 13 M to compile, against 3.5 M for git's
//! whole diff of a one-commit change. Most lines could never match most rules, and a
//! rule's text says why: `\bos\.(environ|getenv)\b` cannot match a line without `os.`. So
//! each rule gets a prefilter ([`super::literals`]), and the rule is compiled only when a
//! line or path holds one of its literals.
//!
//! The reading is conservative: what it does not understand gives no prefilter (the rule
//! is then tested on every line), never a wrong one. A concatenation requires each of its
//! literal runs and each of its groups that is not optional; an alternation requires one
//! of its branches ([`Requirement`]). The prefilter is one set of literals: the most
//! selective requirement of a concatenation (the longest shortest literal), the union of
//! an alternation's branches' prefilters (so it has one only when every branch has). The
//! whole [`Requirement`] is checked on a line before its rule is compiled: a line that
//! holds `private` but not `key` does not compile the rule of `private[_-]?key`.
//!
//! These are functions of text alone, written with `std` only: `build.rs` reads this file
//! too, and reads the built-in rules' literals at build time.

use std::borrow::Cow;

/// A rule glob as the full-path glob it means: a leading `/` anchors it at the root; a
/// glob with no other `/` matches at any depth (`*.pem` means `**/*.pem`); a trailing `/`
/// means everything below a directory (`vendor/` means `**/vendor/**`).
pub(crate) fn rule_glob(glob: &str) -> String {
    let anchored = glob.starts_with('/');
    let body = glob.trim_start_matches('/');
    let (body, directory) = match body.strip_suffix('/') {
        Some(dir) => (dir, true),
        None => (body, false),
    };
    let prefix = if anchored || body.contains('/') || body.starts_with("**") {
        ""
    } else {
        "**/"
    };
    let suffix = if directory { "/**" } else { "" };
    format!("{prefix}{body}{suffix}")
}

/// Literals of which every match of `regex` holds one (ASCII lower case), or `None` when
/// the regex's text does not say.
pub(crate) fn regex_literals(regex: &str) -> Option<Vec<String>> {
    regex_requirement(regex)
        .literals()
        .filter(|literals| literals.iter().all(|literal| !literal.is_empty()))
}

/// What every match of `regex` requires, whole (nothing when its text does not say).
pub(crate) fn regex_requirement(regex: &str) -> Requirement {
    let mut parser = Parser {
        bytes: regex.as_bytes(),
        at: 0,
    };
    match parser.alternation() {
        Ok(requirement) if parser.at == parser.bytes.len() => requirement,
        _ => Requirement::NOTHING,
    }
}

/// What every match of a piece of regex requires, as literals (ASCII lower case) it
/// holds: a literal run, each of a concatenation's requirements, one of an alternation's.
/// Nothing known is `All` of nothing, which every text meets.
#[derive(Debug, Clone, PartialEq, Eq)]
///
/// A built-in regex's requirement is read at build time and kept as code (`build.rs`,
/// `requirement_code`; [`super::literals::RegexRequirement`]); one read at run time owns
/// its parts.
pub(crate) enum Requirement {
    /// The literal occurs in the text.
    Literal(Cow<'static, str>),
    /// Every one of these holds.
    All(Cow<'static, [Requirement]>),
    /// One of these holds (two or more, none of them nothing).
    Any(Cow<'static, [Requirement]>),
}

impl Requirement {
    /// Nothing is known: every text meets it.
    const NOTHING: Requirement = Requirement::All(Cow::Borrowed(&[]));

    /// Each of `items` (requirements of nothing left out), as one requirement.
    fn all(mut items: Vec<Requirement>) -> Requirement {
        items.retain(|item| *item != Requirement::NOTHING);
        match items.len() {
            1 => items.remove(0),
            _ => Requirement::All(Cow::Owned(items)),
        }
    }

    /// One of `branches`: nothing when a branch requires nothing.
    fn any(mut branches: Vec<Requirement>) -> Requirement {
        if branches.contains(&Requirement::NOTHING) {
            return Requirement::NOTHING;
        }
        match branches.len() {
            1 => branches.remove(0),
            _ => Requirement::Any(Cow::Owned(branches)),
        }
    }

    /// Whether a text meets the requirement, `contains` telling whether the text (in
    /// ASCII lower case) holds a literal.
    pub(crate) fn holds(&self, contains: &mut impl FnMut(&str) -> bool) -> bool {
        match self {
            Requirement::Literal(literal) => contains(literal),
            Requirement::All(items) => items.iter().all(|item| item.holds(contains)),
            Requirement::Any(branches) => branches.iter().any(|branch| branch.holds(contains)),
        }
    }

    /// Literals of which every match holds one: a concatenation's most selective
    /// requirement, the union of an alternation's branches'.
    fn literals(&self) -> Need {
        match self {
            Requirement::Literal(literal) => Some(vec![literal.to_string()]),
            Requirement::All(items) => items
                .iter()
                .fold(None, |best, item| better(best, item.literals())),
            Requirement::Any(branches) => {
                let mut union = Vec::new();
                for branch in branches.iter() {
                    union.extend(branch.literals()?);
                }
                union.sort();
                union.dedup();
                Some(union)
            }
        }
    }
}

/// Literals of which every path `glob` (a rule glob made a full-path glob, as
/// [`super::compile`] makes it) matches holds one (ASCII lower case); `None`
/// when it has none (`**/*`) or uses escapes.
///
/// A glob is literal text, wildcards (`*`, `?`, `**/`, classes) and brace lists. Each
/// stretch of text and lists of plain words between two wildcards is required whole, one
/// spelling of it: `*.{test,spec}.{js,ts}` needs one of `.test.js`, `.test.ts`, `.spec.js`,
/// `.spec.ts`. The most selective stretch is the prefilter.
pub(crate) fn glob_literals(glob: &str) -> Option<Vec<String>> {
    if glob.contains('\\') {
        return None;
    }
    let pieces = glob_pieces(glob);
    // How many spellings each piece has, and the shortest.
    let sizes: Vec<Option<(usize, usize)>> = pieces
        .iter()
        .map(|piece| match piece {
            Piece::Text(text) => Some((1, text.len())),
            Piece::List(list) => Some(
                list.split(',')
                    .fold((0, usize::MAX), |(n, least), w| (n + 1, least.min(w.len()))),
            ),
            Piece::Wild => None,
        })
        .collect();
    // Every stretch of pieces between two wildcards is required, one spelling of it.
    let mut best: Option<(Rank, &[Piece<'_>])> = None;
    for start in 0..pieces.len() {
        let (mut count, mut shortest) = (1usize, 0usize);
        for end in start..pieces.len() {
            let Some((words, least)) = sizes[end] else {
                break;
            };
            count *= words;
            shortest += least;
            if count > MAX_SPELLINGS {
                break;
            }
            let rank = rank(shortest, count);
            if best.is_none_or(|(best, _)| rank > best) {
                best = Some((rank, &pieces[start..=end]));
            }
        }
    }
    let (_, stretch) = best?;
    let mut spellings = vec![String::new()];
    for piece in stretch {
        let words: Vec<&str> = match piece {
            Piece::Text(text) => vec![text],
            Piece::List(list) => list.split(',').collect(),
            Piece::Wild => Vec::new(),
        };
        spellings = spellings
            .iter()
            .flat_map(|s| {
                words
                    .iter()
                    .map(move |w| format!("{s}{}", w.to_ascii_lowercase()))
            })
            .collect();
    }
    spellings.sort();
    spellings.dedup();
    Some(spellings)
}

/// A piece of a glob.
#[derive(Clone, Copy)]
enum Piece<'a> {
    /// Literal text.
    Text(&'a str),
    /// A brace list of plain words (`py,rb,js`).
    List(&'a str),
    /// Anything that matches more than one spelling: `*`, `?`, `**/`, a class, a list
    /// with wildcards.
    Wild,
}

/// The pieces of a glob without backslash escapes. Every character with a meaning is
/// ASCII, so the glob is read byte by byte and cut only next to those.
fn glob_pieces(glob: &str) -> Vec<Piece<'_>> {
    let bytes = glob.as_bytes();
    let mut pieces = Vec::new();
    let mut text_start = None;
    let mut at = 0;
    while at < bytes.len() {
        let special = match bytes[at] {
            b'*' | b'?' | b'[' | b'{' => true,
            // `/**` may match nothing, its slash included.
            b'/' => bytes.get(at + 1) == Some(&b'*'),
            _ => false,
        };
        if !special {
            text_start.get_or_insert(at);
            at += 1;
            continue;
        }
        if let Some(start) = text_start.take() {
            pieces.push(Piece::Text(&glob[start..at]));
        }
        let rest = &bytes[at + 1..];
        let (piece, length) = match bytes[at] {
            // So may `**/`.
            b'*' if rest.starts_with(b"*/") => (Piece::Wild, 3),
            b'*' if rest.starts_with(b"*") => (Piece::Wild, 2),
            b'[' => {
                // `]` right after `[` or `[!` is a member, not the end.
                let skip = usize::from(matches!(rest.first(), Some(b'!' | b'^'))) + 1;
                let close = rest
                    .get(skip..)
                    .and_then(|after| after.iter().position(|&b| b == b']'));
                (
                    Piece::Wild,
                    close.map_or(bytes.len() - at, |close| skip + close + 2),
                )
            }
            b'{' => match rest.iter().position(|&b| b == b'}') {
                Some(close) => {
                    let list = &glob[at + 1..at + 1 + close];
                    let plain = !list.is_empty()
                        && !list.starts_with(',')
                        && !list.ends_with(',')
                        && !list.contains(",,")
                        && !list
                            .bytes()
                            .any(|b| matches!(b, b'*' | b'?' | b'[' | b'{' | b'/'));
                    let piece = if plain {
                        Piece::List(list)
                    } else {
                        Piece::Wild
                    };
                    (piece, close + 2)
                }
                None => (Piece::Wild, bytes.len() - at),
            },
            _ => (Piece::Wild, 1),
        };
        pieces.push(piece);
        at += length;
    }
    if let Some(start) = text_start {
        pieces.push(Piece::Text(&glob[start..]));
    }
    pieces
}

/// The most spellings one stretch of a glob is expanded to.
const MAX_SPELLINGS: usize = 256;

/// The requirement of a piece of regex: one of these literals occurs in every match, or
/// `None`: nothing known.
type Need = Option<Vec<String>>;

/// The regex uses syntax this reading does not follow (the whole regex gets no
/// prefilter).
struct Unsupported;

/// Reads a regex byte by byte: every character with a meaning is ASCII, and any other
/// character is literal text, kept whole.
struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// One item of a concatenation.
enum Atom<'a> {
    /// A literal character (its UTF-8 bytes).
    Char(&'a [u8]),
    /// A group and what it requires.
    Group(Requirement),
    /// Anything else: a class, `.`, an assertion.
    Other,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    /// `branch | branch | …`, up to a `)` or the end.
    fn alternation(&mut self) -> Result<Requirement, Unsupported> {
        let mut branches = Vec::new();
        loop {
            branches.push(self.concatenation()?);
            if self.peek() == Some(b'|') {
                self.at += 1;
            } else {
                break;
            }
        }
        Ok(Requirement::any(branches))
    }

    /// Items up to a `|`, a `)` or the end: every literal run and every group that is not
    /// optional.
    fn concatenation(&mut self) -> Result<Requirement, Unsupported> {
        let mut items = Vec::new();
        let mut run = Vec::new();
        while let Some(c) = self.peek() {
            if c == b'|' || c == b')' {
                break;
            }
            let atom = self.atom()?;
            let least = self.quantifier()?;
            match (atom, least) {
                (Atom::Char(c), None) => run.extend(c.iter().map(u8::to_ascii_lowercase)),
                (Atom::Char(c), Some(least)) => {
                    if least > 0 {
                        run.extend(c.iter().map(u8::to_ascii_lowercase));
                    }
                    items.extend(take(&mut run));
                }
                (Atom::Group(requirement), least) => {
                    items.extend(take(&mut run));
                    if least != Some(0) {
                        items.push(requirement);
                    }
                }
                (Atom::Other, _) => items.extend(take(&mut run)),
            }
        }
        items.extend(take(&mut run));
        Ok(Requirement::all(items))
    }

    fn atom(&mut self) -> Result<Atom<'a>, Unsupported> {
        let start = self.at;
        let c = self.next().ok_or(Unsupported)?;
        Ok(match c {
            b'\\' => self.escape()?,
            b'[' => {
                self.skip_class()?;
                Atom::Other
            }
            b'(' => self.group()?,
            b'.' | b'^' | b'$' => Atom::Other,
            b'*' | b'+' | b'?' | b'{' | b'}' | b']' => return Err(Unsupported),
            c => {
                // A character beyond ASCII: its lead byte and continuation bytes.
                if c >= 0x80 {
                    while self.peek().is_some_and(|b| b & 0xC0 == 0x80) {
                        self.at += 1;
                    }
                }
                Atom::Char(&self.bytes[start..self.at])
            }
        })
    }

    fn escape(&mut self) -> Result<Atom<'a>, Unsupported> {
        let start = self.at;
        let c = self.next().ok_or(Unsupported)?;
        match c {
            b'd' | b'D' | b'w' | b'W' | b's' | b'S' | b'b' | b'B' | b'A' | b'z' | b'n' | b't'
            | b'r' | b'f' | b'v' | b'a' | b'e' | b'0' => Ok(Atom::Other),
            b'p' | b'P' | b'x' | b'u' | b'U' => {
                if self.peek() == Some(b'{') {
                    while self.next().ok_or(Unsupported)? != b'}' {}
                } else if c == b'x' {
                    self.at += 2;
                } else if matches!(c, b'p' | b'P') {
                    self.at += 1;
                } else {
                    return Err(Unsupported);
                }
                Ok(Atom::Other)
            }
            c if c.is_ascii_punctuation() || c == b' ' => {
                Ok(Atom::Char(&self.bytes[start..=start]))
            }
            _ => Err(Unsupported),
        }
    }

    /// After `(`: flags, a name, then an alternation, then `)`.
    fn group(&mut self) -> Result<Atom<'a>, Unsupported> {
        if self.peek() == Some(b'?') {
            self.at += 1;
            match self.peek() {
                Some(b'P') | Some(b'<') => while self.next().ok_or(Unsupported)? != b'>' {},
                _ => loop {
                    // Flags; `x` would make white space mean nothing.
                    match self.next().ok_or(Unsupported)? {
                        b')' => return Ok(Atom::Other),
                        b':' => break,
                        b'i' | b'm' | b's' | b'U' | b'u' | b'R' | b'-' => {}
                        _ => return Err(Unsupported),
                    }
                },
            }
        }
        let need = self.alternation()?;
        if self.next() != Some(b')') {
            return Err(Unsupported);
        }
        Ok(Atom::Group(need))
    }

    /// Skips a character class after its `[`.
    fn skip_class(&mut self) -> Result<(), Unsupported> {
        if self.peek() == Some(b'^') {
            self.at += 1;
        }
        if self.peek() == Some(b']') {
            self.at += 1;
        }
        loop {
            match self.next().ok_or(Unsupported)? {
                b'\\' => {
                    self.next().ok_or(Unsupported)?;
                }
                b'[' if self.peek() == Some(b':') => {
                    while !(self.next().ok_or(Unsupported)? == b':' && self.peek() == Some(b']')) {}
                    self.at += 1;
                }
                b'[' => self.skip_class()?,
                b']' => return Ok(()),
                _ => {}
            }
        }
    }

    /// A quantifier after an atom: the least number of repetitions it allows, `None`
    /// when there is none.
    fn quantifier(&mut self) -> Result<Option<u32>, Unsupported> {
        let least = match self.peek() {
            Some(b'*') | Some(b'?') => {
                self.at += 1;
                0
            }
            Some(b'+') => {
                self.at += 1;
                1
            }
            Some(b'{') => {
                self.at += 1;
                let mut digits = String::new();
                loop {
                    match self.next().ok_or(Unsupported)? {
                        c if c.is_ascii_digit() => digits.push(char::from(c)),
                        b',' => {
                            while self.next().ok_or(Unsupported)? != b'}' {}
                            break;
                        }
                        b'}' => break,
                        _ => return Err(Unsupported),
                    }
                }
                digits.parse().map_err(|_| Unsupported)?
            }
            _ => return Ok(None),
        };
        if self.peek() == Some(b'?') {
            self.at += 1;
        }
        Ok(Some(least))
    }
}

/// A literal run as a requirement, leaving the run empty.
fn take(run: &mut Vec<u8>) -> Option<Requirement> {
    (!run.is_empty()).then(|| {
        let literal = String::from_utf8_lossy(&std::mem::take(run)).into_owned();
        Requirement::Literal(Cow::Owned(literal))
    })
}

/// Literals this long are selective enough: among requirements whose literals all are,
/// the one with fewer literals is better (a smaller automaton, fewer candidates).
const SELECTIVE_LENGTH: usize = 4;

/// The more selective of two requirements: the longer shortest literal (up to
/// [`SELECTIVE_LENGTH`]), then fewer literals, then the longer shortest literal.
fn better(a: Need, b: Need) -> Need {
    let rank_of = |need: &Need| {
        need.as_ref().map(|literals| {
            let shortest = literals.iter().map(String::len).min().unwrap_or(0);
            rank(shortest, literals.len())
        })
    };
    if rank_of(&b) > rank_of(&a) {
        b
    } else {
        a
    }
}

/// How selective a set of literals is (higher is better).
type Rank = (usize, usize, usize);

/// How selective `count` literals of at least `shortest` bytes are.
fn rank(shortest: usize, count: usize) -> Rank {
    (shortest.min(SELECTIVE_LENGTH), usize::MAX - count, shortest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rule_globs_follow_gitignore_conventions() {
        assert_eq!(rule_glob("*.pem"), "**/*.pem");
        assert_eq!(rule_glob("vendor/"), "**/vendor/**");
        assert_eq!(rule_glob("/.handoff.yaml"), ".handoff.yaml");
        assert_eq!(rule_glob("db/migrate/"), "db/migrate/**");
        assert_eq!(rule_glob("**/x"), "**/x");
    }

    fn literals(regex: &str) -> Vec<&'static str> {
        regex_literals(regex)
            .unwrap_or_default()
            .into_iter()
            .map(|literal| &*literal.leak())
            .collect()
    }

    #[test]
    fn a_concatenation_needs_its_most_selective_run_or_group() {
        assert_eq!(literals(r"\bos\.(environ|getenv)\b"), ["environ", "getenv"]);
        assert_eq!(literals(r"\bprocess\.env\b"), ["process.env"]);
        assert_eq!(literals(r"(^|[^.\w])getenv\("), ["getenv("]);
        assert_eq!(
            literals(r"(?i)\b(create|alter)\s+policy\b|\bforce\s+row\s+level"),
            ["force", "policy"]
        );
        assert_eq!(
            literals(r"-----BEGIN ((RSA|DSA) )?PRIVATE KEY"),
            ["-----begin "]
        );
        assert_eq!(
            literals(r"\b(?P<value>(AKIA|ASIA)[0-9A-Z]{16})\b"),
            ["akia", "asia"]
        );
    }

    #[test]
    fn a_branch_requires_every_literal_run_and_group_of_it() {
        let holds = |regex: &str, line: &str| {
            regex_requirement(regex).holds(&mut |literal| line.contains(literal))
        };
        let key = r"(?i)\b\w*(api[_-]?key|private[_-]?key|auth[_-]?token)\w*\b";
        assert_eq!(literals(key), ["api", "private", "token"]);
        assert!(!holds(key, "--document-private-items"));
        assert!(holds(key, "private_key = x"));
        assert!(holds(key, "let api-key"));
        assert!(!holds(key, "api tokens"));
        assert!(holds(r"a(b|c)?d", "ad"));
        assert!(!holds(r"a(b|c)d", "ad"));
        assert!(holds(r"[a-z]+|xy", "q"), "a branch of nothing known holds");
        assert!(holds(r"(unclosed", ""), "nothing understood holds");
        assert_eq!(
            regex_requirement(r"x(yz){2}|w"),
            Requirement::Any(Cow::Owned(vec![
                Requirement::All(Cow::Owned(vec![
                    Requirement::Literal(Cow::Borrowed("x")),
                    Requirement::Literal(Cow::Borrowed("yz")),
                ])),
                Requirement::Literal(Cow::Borrowed("w")),
            ]))
        );
    }

    #[test]
    fn characters_beyond_ascii_are_kept_whole() {
        assert_eq!(literals("Café(s)?"), ["café"]);
        assert_eq!(literals("naïve?x"), ["naïv"]);
        assert_eq!(literals("naï?ve"), ["na"]);
    }

    #[test]
    fn optional_pieces_are_not_required() {
        assert_eq!(literals(r"ab?c"), ["a"]);
        assert_eq!(literals(r"abc+d"), ["abc"]);
        assert_eq!(literals(r"x(yz)?w"), ["x"]);
        assert_eq!(literals(r"(yz)*w"), ["w"]);
        assert_eq!(literals(r"(yz){0,2}"), Vec::<&str>::new());
        assert_eq!(literals(r"(yz){2}"), ["yz"]);
    }

    #[test]
    fn what_is_not_understood_gives_no_prefilter() {
        for regex in [
            r"(?x) a b c",
            r"\Qa\E",
            r"[a-z]+",
            r"a|[b]",
            r"(unclosed",
            r"\k<x>",
        ] {
            assert_eq!(regex_literals(regex), None, "{regex}");
        }
    }

    #[test]
    fn glob_literals_are_stretches_between_wildcards_with_their_lists_spelled_out() {
        let literals = |glob: &str| glob_literals(glob).unwrap_or_default();
        assert_eq!(literals("**/*password*"), ["password"]);
        assert_eq!(literals("**/test/**"), ["test"]);
        assert_eq!(literals("**/db/migrate/**"), ["db/migrate"]);
        assert_eq!(literals("**/*.{py,RB}"), [".py", ".rb"]);
        assert_eq!(literals("**/*.{test,spec}.{js,ts}"), [".spec.", ".test."]);
        assert_eq!(literals("**/*auth.{py,rb,js}"), ["auth."]);
        assert_eq!(literals("**/V[0-9]*__*.sql"), [".sql"]);
        assert_eq!(literals("**/*auth{a,b*}.rb"), ["auth"]);
        assert_eq!(glob_literals("**/*"), None);
        assert_eq!(glob_literals("a\\*b"), None);
    }

    /// A regex from a small grammar, with a string it matches.
    fn regex_and_match() -> impl Strategy<Value = (String, String)> {
        let leaf = prop_oneof![
            "[a-cA-C.()|?*+ -]".prop_map(|c| {
                let escaped = if c.chars().all(char::is_alphanumeric) || c == " " {
                    c.clone()
                } else {
                    format!("\\{c}")
                };
                (escaped, c)
            }),
            Just((r"\d".to_string(), "7".to_string())),
            Just((r"[a-z]".to_string(), "q".to_string())),
            Just((r"\b".to_string(), String::new())),
            Just(("(?i)".to_string(), String::new())),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..4).prop_map(|parts| {
                    let regex = parts.iter().map(|(r, _)| r.as_str()).collect();
                    let text = parts.iter().map(|(_, t)| t.as_str()).collect();
                    (regex, text)
                }),
                (inner.clone(), inner.clone(), any::<bool>()).prop_map(|(a, b, first)| {
                    let text = if first { a.1.clone() } else { b.1.clone() };
                    (format!("(?:{}|{})", a.0, b.0), text)
                }),
                (inner.clone(), 0u32..3).prop_map(|((regex, text), times)| {
                    (
                        format!("({regex}){{{times},3}}"),
                        text.repeat(times as usize),
                    )
                }),
                (inner, any::<bool>()).prop_map(|((regex, text), taken)| {
                    (
                        format!("({regex})?"),
                        if taken { text } else { String::new() },
                    )
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn a_line_a_regex_matches_holds_one_of_its_literals(
            (regex, text) in regex_and_match(),
            before in "[a-z ]{0,3}",
            after in "[a-z ]{0,3}",
            upper in any::<bool>(),
        ) {
            let line = format!("{before}{text}{after}");
            let line = if upper { line.to_ascii_uppercase() } else { line };
            let compiled = regex::RegexBuilder::new(&format!("(?i){regex}")).build();
            prop_assume!(compiled.is_ok());
            prop_assume!(compiled.unwrap().is_match(&line));
            let lower = line.to_ascii_lowercase();
            prop_assert!(
                regex_requirement(&regex).holds(&mut |literal| lower.contains(literal)),
                "{regex:?} matches {line:?} but its requirement {:?} says no",
                regex_requirement(&regex)
            );
            if let Some(literals) = regex_literals(&regex) {
                prop_assert!(
                    literals.iter().any(|literal| lower.contains(literal.as_str())),
                    "{regex:?} matches {line:?} but the prefilter {literals:?} says no"
                );
            }
        }
    }
}
