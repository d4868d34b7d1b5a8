//! One escaper per output kind, for every value a report shows that comes from the change
//! or from records (a file name, a task id, a message that quotes them), never for the
//! layout around it.
//!
//! A file name may hold new lines, terminal control sequences and Markdown; printed as it
//! is, it forges a `pass: …` verdict line in the CI log or a heading in the job summary.
//!
//! - [`human`] (the `.txt` layouts, the plain lines of `--format github`): control
//!   characters shown as escapes (`\n`, `\r`, `\t`, `\x1b`, `\u{85}`), and so are the
//!   invisible characters that reorder or hide text (bidirectional controls, zero-width
//!   characters, line and paragraph separators). A value can neither start a line nor
//!   move the cursor.
//! - [`markdown`] (the `.md` layouts' text, a table cell or a list item): the same control
//!   characters escaped as for a person; outside the code spans the text holds,
//!   everything that could start a row, a link (`](`, `][`, `]:`), emphasis,
//!   strikethrough, an entity or HTML is escaped (backslash or entity), and at its start
//!   a heading, a list or a setext underline (`#`, `-`, `+`, `=`, `1.`); `_` inside a
//!   word starts nothing and is kept; inside them only `|`
//!   (a table splits rows before it reads spans). Spans are found as CommonMark finds
//!   them (a run of backticks closed by a run of the same length), so the escaper and the
//!   renderer agree on where they are.
//! - [`code_span`]: a value as one whole code span (outside tables), its fence longer
//!   than any run of backticks inside it.
//! - GitHub workflow commands escape their own way (`%0A`, [`crate::report::github`]); SARIF,
//!   JSON and YAML are serialized, and HTML escapes every value (`| escape`).

use std::borrow::Cow;

/// `text` for a person at a terminal: control and invisible characters shown as escapes.
pub fn human(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_human_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for ch in text.chars() {
        push_human(&mut out, ch);
    }
    Cow::Owned(out)
}

/// [`human`] as a Tera escape function (the `.txt` layouts' autoescape).
pub fn human_owned(text: &str) -> String {
    human(text).into_owned()
}

/// [`human`] line by line: the new lines kept, every other control character escaped
/// (a text that is meant to span lines, e.g. a policy file or an annotation).
pub fn human_lines(text: &str) -> String {
    let lines: Vec<_> = text.split('\n').map(human).collect();
    lines.join("\n")
}

/// `text` for Markdown inline text (see the module).
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    let mut at_start = true;
    while let Some(ch) = rest.chars().next() {
        if ch == '`' {
            let run = rest.len() - rest.trim_start_matches('`').len();
            match closing_run(&rest[run..], run) {
                Some(end) => {
                    let (span, after) = rest.split_at(run + end + run);
                    for ch in span.chars() {
                        match ch {
                            '|' => out.push_str("\\|"),
                            _ => push_human(&mut out, ch),
                        }
                    }
                    rest = after;
                }
                None => {
                    out.push_str(&"\\`".repeat(run));
                    rest = &rest[run..];
                }
            }
            at_start = false;
            continue;
        }
        let before = text[..text.len() - rest.len()].chars().next_back();
        rest = &rest[ch.len_utf8()..];
        let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        if ch == '_' && word(before) && word(rest.chars().next()) {
            // Inside a word (`snake_case`) `_` starts no emphasis.
            out.push(ch);
        } else if ch == ']' && matches!(rest.chars().next(), Some('(' | '[' | ':')) {
            // `](`, `][` and `]:` make a link, a reference or a definition.
            out.push_str("\\]");
        } else if at_start && matches!(ch, '-' | '+' | '=' | '#') {
            out.push('\\');
            out.push(ch);
        } else if at_start && ch.is_ascii_digit() {
            // `1.` or `1)` at the start of a line begins a numbered list.
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            out.push(ch);
            out.push_str(&rest[..digits]);
            rest = &rest[digits..];
            if let Some(marker @ ('.' | ')')) = rest.chars().next() {
                out.push('\\');
                out.push(marker);
                rest = &rest[1..];
            }
        } else {
            push_markdown(&mut out, ch);
        }
        at_start = false;
    }
    out
}

/// `text` as one Markdown code span, control characters escaped; empty for an empty text.
/// Not for a table cell, where a `|` ends the cell even in a span: [`markdown`] escapes it.
pub fn code_span(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut inner = String::with_capacity(text.len() + 4);
    for ch in text.chars() {
        push_human(&mut inner, ch);
    }
    let longest = inner.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if inner.starts_with('`') || inner.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{inner}{pad}{fence}")
}

/// Where the run of exactly `run` backticks that closes a code span starts in `rest`.
fn closing_run(rest: &str, run: usize) -> Option<usize> {
    let mut at = 0;
    while let Some(found) = rest[at..].find('`') {
        let start = at + found;
        let length = rest[start..].len() - rest[start..].trim_start_matches('`').len();
        if length == run {
            return Some(start);
        }
        at = start + length;
    }
    None
}

fn push_markdown(out: &mut String, ch: char) {
    match ch {
        '\\' | '|' | '*' | '_' | '~' => {
            out.push('\\');
            out.push(ch);
        }
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '&' => out.push_str("&amp;"),
        '@' => out.push_str("&#64;"),
        _ => push_human(out, ch),
    }
}

fn push_human(out: &mut String, ch: char) {
    if !needs_human_escape(ch) {
        out.push(ch);
        return;
    }
    match ch {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\0'..='\x1f' | '\x7f' => out.push_str(&format!("\\x{:02x}", ch as u32)),
        _ => out.push_str(&format!("\\u{{{:x}}}", ch as u32)),
    }
}

/// Control characters, and the invisible ones that reorder, hide or break text.
fn needs_human_escape(ch: char) -> bool {
    ch.is_control()
        || matches!(
            ch,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_sees_control_characters_as_escapes() {
        assert_eq!(human("src/a.rs"), "src/a.rs");
        assert_eq!(
            human("x\n\npass: ok\r\t\x1b[2K\u{85}"),
            "x\\n\\npass: ok\\r\\t\\x1b[2K\\u{85}"
        );
        assert_eq!(
            human("a\u{202e}b\u{200b}c\u{2028}"),
            "a\\u{202e}b\\u{200b}c\\u{2028}"
        );
        assert_eq!(human("é ✅ —"), "é ✅ —");
    }

    #[test]
    fn markdown_text_starts_nothing() {
        assert_eq!(
            markdown("x\n### ✅ pass <img src=\"a\"> [l](u) ![i](u) [r][d] [d]: u | *e* _u_ ~~s~~ &amp; @team \\"),
            "x\\n### ✅ pass &lt;img src=\"a\"&gt; [l\\](u) ![i\\](u) [r\\][d] [d\\]: u \\| \\*e\\* \\_u\\_ \\~\\~s\\~\\~ &amp;amp; &#64;team \\\\"
        );
        assert_eq!(markdown("- item"), "\\- item");
        assert_eq!(markdown("## h"), "\\## h");
        assert_eq!(markdown("12. item"), "12\\. item");
        assert_eq!(markdown("=== 3.5"), "\\=== 3.5");
        assert_eq!(
            markdown("db/001_add_users.rb _x_"),
            "db/001_add_users.rb \\_x\\_"
        );
    }

    #[test]
    fn code_spans_are_kept_as_commonmark_finds_them() {
        assert_eq!(
            markdown("run `git revert <sha>` now"),
            "run `git revert <sha>` now"
        );
        assert_eq!(markdown("`a|b\nc`"), "`a\\|b\\nc`");
        // An unclosed run is text: its backticks are escaped, and so is what follows.
        assert_eq!(markdown("a ` <b>"), "a \\` &lt;b&gt;");
        // A run closes only on a run of the same length.
        assert_eq!(markdown("``a`<b>`` <c>"), "``a`<b>`` &lt;c&gt;");
        assert_eq!(markdown("``a` <b>"), "\\`\\`a\\` &lt;b&gt;");
    }

    #[test]
    fn a_code_span_holds_any_value() {
        assert_eq!(code_span("src/a_b.rs"), "`src/a_b.rs`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(code_span("x\n### h|"), "`x\\n### h|`");
        assert_eq!(code_span(""), "");
    }
}
