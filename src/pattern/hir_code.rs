//! The built-in line regexes parsed at build time: each one's syntax tree (`Hir`) as a
//! code of `u32`s, which `build.rs` writes ([`encode`]) and the classifier reads back
//! ([`decode`]) instead of parsing the regex's text.
//!
//! Parsing was most of what compiling a rule cost: of the 144 M instructions that
//! compiling the 109 built-in line regexes takes, 73 M are reading their text into a
//! syntax tree and translating it (`regex-syntax`'s parser and translator, a third of
//! that spent allocating and freeing the intermediate tree). Rebuilding the final tree
//! from its code skips both. `build.rs` includes this file, so both ends are one
//! definition; a test holds every built-in regex's decoded tree equal to the one its
//! text parses to at run time, with the classifier's syntax settings.
//!
//! The code, in prefix order: `[EMPTY]`; `[LITERAL, n, b…]` (its `n` bytes, one a word);
//! `[BYTES, n, lo, hi, …]` and `[UNICODE, n, lo, hi, …]` (a class's `n` ranges);
//! `[LOOK, repr]`; `[REPEAT, min, max, greedy]` then the repeated tree (`max` `u32::MAX`
//! when unbounded); `[CAPTURE, index, start, end]` then the captured tree (`start` and
//! `end` the span of its name in the table's text, `u32::MAX` twice when unnamed);
//! `[CONCAT, n]` and `[ALTERNATION, n]` then the `n` trees. The trees are rebuilt with
//! `regex-syntax`'s own constructors, which leave a tree it built unchanged.

use regex_syntax::hir::{
    Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
    Literal, Look, Repetition,
};

const EMPTY: u32 = 0;
const LITERAL: u32 = 1;
const BYTES: u32 = 2;
const UNICODE: u32 = 3;
const LOOK: u32 = 4;
const REPEAT: u32 = 5;
const CAPTURE: u32 = 6;
const CONCAT: u32 = 7;
const ALTERNATION: u32 = 8;
/// No value: an unbounded repetition, an unnamed group.
const NONE: u32 = u32::MAX;

/// Appends the code of `hir` to `code`, a capture's name to `text` (build time).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn encode(hir: &Hir, code: &mut Vec<u32>, text: &mut String) {
    let count = |n: usize| u32::try_from(n).expect("a regex of fewer than 2^32 parts");
    match hir.kind() {
        HirKind::Empty => code.push(EMPTY),
        HirKind::Literal(Literal(bytes)) => {
            code.extend([LITERAL, count(bytes.len())]);
            code.extend(bytes.iter().map(|&b| u32::from(b)));
        }
        HirKind::Class(Class::Bytes(class)) => {
            code.extend([BYTES, count(class.ranges().len())]);
            for range in class.ranges() {
                code.extend([u32::from(range.start()), u32::from(range.end())]);
            }
        }
        HirKind::Class(Class::Unicode(class)) => {
            code.extend([UNICODE, count(class.ranges().len())]);
            for range in class.ranges() {
                code.extend([u32::from(range.start()), u32::from(range.end())]);
            }
        }
        HirKind::Look(look) => code.extend([LOOK, look.as_repr()]),
        HirKind::Repetition(repetition) => {
            let max = repetition.max.unwrap_or(NONE);
            code.extend([REPEAT, repetition.min, max, u32::from(repetition.greedy)]);
            encode(&repetition.sub, code, text);
        }
        HirKind::Capture(capture) => {
            let [start, end] = match &capture.name {
                Some(name) => {
                    let start = count(text.len());
                    text.push_str(name);
                    [start, count(text.len())]
                }
                None => [NONE, NONE],
            };
            code.extend([CAPTURE, capture.index, start, end]);
            encode(&capture.sub, code, text);
        }
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            let kind = match hir.kind() {
                HirKind::Concat(_) => CONCAT,
                _ => ALTERNATION,
            };
            code.extend([kind, count(subs.len())]);
            for sub in subs {
                encode(sub, code, text);
            }
        }
    }
}

/// The tree whose code starts `code` (advanced past it), capture names read from
/// `text`; `None` when the code is not one [`encode`] writes.
pub(crate) fn decode(code: &mut &[u32], text: &str) -> Option<Hir> {
    let kind = take(code)?;
    let hir = match kind {
        EMPTY => Hir::empty(),
        LITERAL => {
            let n = take(code)? as usize;
            let bytes: Option<Vec<u8>> = (0..n).map(|_| u8::try_from(take(code)?).ok()).collect();
            Hir::literal(bytes?)
        }
        BYTES => {
            let n = take(code)? as usize;
            let mut ranges = Vec::with_capacity(n);
            for _ in 0..n {
                let (lo, hi) = (
                    u8::try_from(take(code)?).ok()?,
                    u8::try_from(take(code)?).ok()?,
                );
                ranges.push(ClassBytesRange::new(lo, hi));
            }
            Hir::class(Class::Bytes(ClassBytes::new(ranges)))
        }
        UNICODE => {
            let n = take(code)? as usize;
            let mut ranges = Vec::with_capacity(n);
            for _ in 0..n {
                let (lo, hi) = (char::from_u32(take(code)?)?, char::from_u32(take(code)?)?);
                ranges.push(ClassUnicodeRange::new(lo, hi));
            }
            Hir::class(Class::Unicode(ClassUnicode::new(ranges)))
        }
        LOOK => Hir::look(Look::from_repr(take(code)?)?),
        REPEAT => {
            let (min, max, greedy) = (take(code)?, take(code)?, take(code)?);
            let sub = Box::new(decode(code, text)?);
            Hir::repetition(Repetition {
                min,
                max: (max != NONE).then_some(max),
                greedy: greedy == 1,
                sub,
            })
        }
        CAPTURE => {
            let (index, start, end) = (take(code)?, take(code)?, take(code)?);
            let name = match start {
                NONE => None,
                _ => Some(text.get(start as usize..end as usize)?.into()),
            };
            let sub = Box::new(decode(code, text)?);
            Hir::capture(Capture { index, name, sub })
        }
        CONCAT | ALTERNATION => {
            let n = take(code)? as usize;
            let mut subs = Vec::with_capacity(n);
            for _ in 0..n {
                subs.push(decode(code, text)?);
            }
            match kind {
                CONCAT => Hir::concat(subs),
                _ => Hir::alternation(subs),
            }
        }
        _ => return None,
    };
    Some(hir)
}

/// The first word of `code`, which it is advanced past.
fn take(code: &mut &[u32]) -> Option<u32> {
    let (&word, rest) = code.split_first()?;
    *code = rest;
    Some(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Policy, RuleMatch};
    use regex_automata::util::syntax;

    /// The classifier's syntax settings for a line regex (`compile_line_regex`).
    fn line_syntax() -> syntax::Config {
        syntax::Config::new().unicode(false).utf8(false)
    }

    #[test]
    fn every_built_in_line_regex_decodes_to_the_tree_its_text_parses_to() {
        let policy = Policy::default();
        let mut checked = 0;
        for rule in policy.triggers.iter().flat_map(|trigger| &trigger.rules) {
            let RuleMatch::Line { regex, .. } = &rule.matches else {
                continue;
            };
            let parsed = syntax::parse_with(regex, &line_syntax()).expect("parses");
            let built = crate::pattern::built_hir(regex);
            assert_eq!(built.as_ref(), Some(&parsed), "{}", rule.id);
            checked += 1;
        }
        assert!(checked > 100, "{checked}");
        assert!(crate::pattern::built_hir(r"(?i)\bnot_a_built_in_rule\b").is_none());
    }

    #[test]
    fn any_tree_comes_back_as_it_was_encoded() {
        let unicode = syntax::Config::new();
        for (pattern, config) in [
            (r"(?P<value>[A-Za-z0-9]{20,40}?)\b|^x$", line_syntax()),
            (
                r"(?i)\bsession(?:_?id)*+?|(a)(?<b>b)+|\B\s{2}",
                line_syntax(),
            ),
            (r"(?m)^\w+(?:\d|\p{Greek})*\b$|é|[^a-z]|", unicode),
            (r"(?s).{0,3}|(?i)ſ|K|(?-u:\xff)", line_syntax()),
            (r"(?i)ſ|K|\W", unicode),
            (r"[a&&b]|(?:)", line_syntax()),
        ] {
            let parsed = syntax::parse_with(pattern, &config).expect("parses");
            let (mut code, mut text) = (Vec::new(), String::new());
            encode(&parsed, &mut code, &mut text);
            let mut rest = code.as_slice();
            assert_eq!(
                decode(&mut rest, &text).as_ref(),
                Some(&parsed),
                "{pattern}"
            );
            assert!(rest.is_empty(), "{pattern}");
            // Cut short, or with a kind no encoder writes, it is no tree (and no panic).
            assert!(
                decode(&mut &code[..code.len() - 1], &text).is_none(),
                "{pattern}"
            );
            assert!(decode(&mut &[99][..], &text).is_none());
        }
    }
}
