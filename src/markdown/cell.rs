//! The GFM table-cell codec.
//!
//! A record's header values go through [`encode_cell`] into a table and come back
//! through [`split_row`] and [`decode_cell`] unchanged, whatever they hold: `\` → `\\`,
//! `|` → `\|`, `<br` → `\<br`, a line break → `<br>`, so no value can end its cell, add a
//! row, or pass for a line break it did not hold. Report text goes one way only, through
//! the reports' Markdown escaper (`escape`).

use std::borrow::Cow;

/// Encodes a value for a table cell: `\` → `\\`, `|` → `\|`, `<br` → `\<br`, new lines → `<br>`.
pub fn encode_cell(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 8);
    let mut chars = value.char_indices().peekable();
    while let Some((at, ch)) = chars.next() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '<' if starts_with_ignore_case(&value[at + 1..], "br") => out.push_str("\\<"),
            '\r' => {
                if chars.peek().map(|(_, next)| *next) == Some('\n') {
                    chars.next();
                }
                out.push_str("<br>");
            }
            '\n' => out.push_str("<br>"),
            _ => out.push(ch),
        }
    }
    out
}

/// Decodes a table cell: backslash + ASCII punctuation → that character, `<br>` → new line.
/// A cell with nothing to decode is returned as it is, without copying.
pub fn decode_cell(cell: &str) -> Cow<'_, str> {
    if !cell.bytes().any(|byte| byte == b'\\' || byte == b'<') {
        return Cow::Borrowed(cell);
    }
    let mut out = String::with_capacity(cell.len());
    let mut rest = cell;
    while let Some(ch) = rest.chars().next() {
        if ch == '\\' {
            if let Some(next) = rest[1..].chars().next().filter(char::is_ascii_punctuation) {
                out.push(next);
                rest = &rest[1 + next.len_utf8()..];
                continue;
            }
        } else if ch == '<' {
            if let Some(len) = line_break_tag_len(rest) {
                out.push('\n');
                rest = &rest[len..];
                continue;
            }
        }
        out.push(ch);
        rest = &rest[ch.len_utf8()..];
    }
    Cow::Owned(out)
}

/// The length of a `<br>`, `<br/>` or `<br />` tag at the start of `text`.
fn line_break_tag_len(text: &str) -> Option<usize> {
    ["<br>", "<br/>", "<br />"]
        .iter()
        .find(|tag| starts_with_ignore_case(text, tag))
        .map(|tag| tag.len())
}

fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.len() >= prefix.len()
        && text.is_char_boundary(prefix.len())
        && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Splits a table row into cells on unescaped `|`, dropping the outer pipes.
pub fn split_row(line: &str) -> Vec<&str> {
    let mut cells = Vec::new();
    split_row_into(line, &mut cells);
    cells
}

/// [`split_row`] into a buffer the caller reuses from row to row (the parser's hot loop).
pub fn split_row_into<'a>(line: &'a str, cells: &mut Vec<&'a str>) {
    cells.clear();
    let line = line.trim();
    let mut start = 0;
    let mut escaped = false;
    // Byte by byte: `|` and `\` are ASCII and never part of a multi-byte character, and
    // an escaped multi-byte character only needs its first byte skipped.
    for (at, byte) in line.bytes().enumerate() {
        match byte {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'|' => {
                cells.push(&line[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    cells.push(&line[start..]);
    if line.starts_with('|') {
        cells.remove(0);
    }
    if cells.len() > 1
        && cells.last().is_some_and(|last| last.trim().is_empty())
        && line.ends_with('|')
    {
        cells.pop();
    }
    for cell in cells.iter_mut() {
        *cell = cell.trim();
    }
}

/// Whether a row is a GFM delimiter row (`|---|:---:|`).
pub fn is_delimiter_row(cells: &[&str]) -> bool {
    !cells.is_empty()
        && cells.iter().all(|cell| {
            let inner = cell.trim().trim_start_matches(':').trim_end_matches(':');
            !inner.is_empty() && inner.chars().all(|ch| ch == '-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_trip_hostile_values() {
        for value in [
            "a|b",
            "a\\|b",
            "x<br>y",
            "line\nnext",
            "\\",
            "<BR/>",
            "`|`",
            "é|\\\\",
        ] {
            assert_eq!(decode_cell(&encode_cell(value)), value, "{value:?}");
            let row = format!("| Key | {} |", encode_cell(value));
            let cells = split_row(&row);
            assert_eq!(cells.len(), 2, "{row}");
            assert_eq!(decode_cell(cells[1]), value);
        }
        assert_eq!(decode_cell("a<br />b<Br/>c"), "a\nb\nc");
    }
}
