//! The placeholder grammar: when a value, a section or an evidence item is still the
//! template's text rather than a real answer. `new` writes placeholders, `lint` reports
//! them (`unfilled-placeholder`), and the gate counts an evidence item that holds one as
//! missing; all three read this one grammar.
//!
//! A text (trimmed, a trailing `.` or `!` removed) is an unfilled placeholder when it is:
//!
//! 1. a marker word, alone or first: `TBD`, `TODO` (`TBD later`, `todo: fill in`);
//! 2. only dots, ellipses, dashes or underscores: `...`, `…`, `---`, `___`;
//! 3. wholly in square brackets: it starts with `[` and ends with `]`, and either the
//!    first `[` closes at the very end (`[sender agent name]`, `[domain + [qualifier,
//!    ...]]`) or there is no other `[` (`[]`, `[fill me in]`); `[a] beats [b]` and
//!    `[RFC 7636] says so` are text;
//! 4. wholly in angle brackets: `<sha>`, `<git rev-parse HEAD at dispatch>`.
//!
//! A header value whose key holds a list (`Expected file scope`, `Matched agents`,
//! `Rejected`) is written in square brackets when filled, so there rule 3 needs the
//! template's tell: `...`, `…` or `e.g.` inside. Empty text is not a placeholder here:
//! whether nothing counts as missing is the reader's call.
//!
//! (Before this grammar, `lint` and the gate each had one: the gate also read `<sha>` and
//! `TBD later` as placeholders and `lint` did not, so `check` rejected what `lint` passed.
//! Both now read the union, the stricter of the two.) A dummy *secret* (`changeme`,
//! `${TOKEN}`) is another idea: [`crate::risk`]'s credential rules judge those.

use super::FieldKey;

/// Whether free text (a section body, a labelled line, an evidence item) is an unfilled
/// placeholder.
pub fn is_placeholder(text: &str) -> bool {
    let text = text.trim();
    let core = text.trim_end_matches(['.', '!']).trim_end();
    if text.is_empty() {
        return false;
    }
    core.is_empty()
        || starts_with_marker(core)
        || core.chars().all(|c| matches!(c, '.' | '…' | '-' | '_'))
        || is_bracketed(core)
        || (core.starts_with('<') && core.ends_with('>'))
}

/// Whether a header value of `key` is an unfilled placeholder: [`is_placeholder`], except
/// that a list key's brackets count only with the template's `...`, `…` or `e.g.` inside.
pub fn is_placeholder_value(key: FieldKey, value: &str) -> bool {
    let value = value.trim();
    if !key.is_list() || !is_bracketed(value.trim_end_matches(['.', '!'])) {
        return is_placeholder(value);
    }
    value.contains("...") || value.contains('…') || value.contains("e.g.")
}

/// Whether a value says nothing: empty, or only white space, invisible characters (a
/// zero-width space, a word joiner, a byte order mark, a soft hyphen) and empty quotes or
/// backticks. A required header field holding such a value is as missing as one without
/// a row: `lint` reports it (`missing-field`) and `new --set` refuses to write it.
pub fn is_blank(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_whitespace() || is_invisible(c) || matches!(c, '"' | '\'' | '`'))
}

/// A character that renders as nothing: zero-width spaces and joiners, directional
/// marks, word joiners and invisible operators, the byte order mark, the soft hyphen,
/// the combining grapheme joiner, the Mongolian vowel separator, the Hangul fillers.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{034f}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{3164}'
            | '\u{feff}'
            | '\u{ffa0}'
    )
}

/// `TBD` or `TODO`, as the whole text or its first word.
fn starts_with_marker(text: &str) -> bool {
    ["tbd", "todo"].iter().any(|marker| {
        text.get(..marker.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(marker))
            && !text[marker.len()..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric)
    })
}

/// Rule 3: `[…]` whose first `[` closes at the end, or with no other `[` inside.
fn is_bracketed(text: &str) -> bool {
    let Some(inner) = text
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    else {
        return false;
    };
    !inner.contains('[') || closes_at_the_end(inner)
}

/// Whether every `]` in `inner` closes a `[` opened inside it.
fn closes_at_the_end(inner: &str) -> bool {
    let mut depth = 0usize;
    for ch in inner.chars() {
        match ch {
            '[' => depth += 1,
            ']' if depth == 0 => return false,
            ']' => depth -= 1,
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_texts_are_placeholders() {
        for text in [
            "TBD",
            "todo: later",
            "TBD later.",
            "…",
            "...",
            "---",
            "[Rollback plan]",
            "[]",
            "[domain + [qualifier, ...]]",
            "<cmd>",
            "<sha>",
            "<git rev-parse HEAD at dispatch>",
            "[What's been done, relevant files, current state.]",
        ] {
            assert!(is_placeholder(text), "{text:?}");
        }
        for text in [
            "",
            "none",
            "n/a",
            "`git revert abc`",
            "[a](b) link then text",
            "[RFC 7636] says so, see [1]",
            "[a] beats [b]",
            "Todos are tracked in the issue",
            "Tbdx",
        ] {
            assert!(!is_placeholder(text), "{text:?}");
        }
    }

    #[test]
    fn list_values_are_placeholders_only_with_the_template_tell() {
        assert!(is_placeholder_value(
            FieldKey::TaskId,
            "[DEPT-NNN, e.g., ENG-042]"
        ));
        assert!(is_placeholder_value(
            FieldKey::BaselineSha,
            "<git rev-parse HEAD at dispatch>"
        ));
        assert!(is_placeholder_value(FieldKey::From, "TBD"));
        assert!(is_placeholder_value(FieldKey::From, "<b>"));
        assert!(!is_placeholder_value(
            FieldKey::ExpectedFileScope,
            "[src/a.ts, src/b.ts]"
        ));
        assert!(is_placeholder_value(
            FieldKey::ExpectedFileScope,
            "[src/..., e.g. x]"
        ));
        assert!(is_placeholder_value(FieldKey::ExpectedFileScope, "TBD"));
        assert!(!is_placeholder_value(FieldKey::Reason, "[a] beats [b]"));
        // Each tell alone marks a list value as the template's.
        for tell in ["[src/...]", "[src/…]", "[e.g. src/a.ts]"] {
            assert!(
                is_placeholder_value(FieldKey::ExpectedFileScope, tell),
                "{tell}"
            );
        }
    }

    #[test]
    fn brackets_count_only_when_they_hold_the_whole_text() {
        // Starting with `<` or ending with `>` is not being wholly in angle brackets.
        assert!(!is_placeholder("<br> breaks the line"));
        assert!(!is_placeholder("returns Option<Vec<u8>>"));
        // The first `[` closes before the end, twice over: text, not a placeholder.
        assert!(!is_placeholder("[[1]] cites [2]"));
        assert!(is_placeholder("[[1] and [2]]"));
    }
}
