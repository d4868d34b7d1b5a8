//! The line index: byte offsets to 1-based lines, for every diagnostic that names a line.
//!
//! Lines end as CommonMark ends them: at `\n`, `\r\n` or a lone `\r`. The Markdown
//! parser splits blocks at a lone carriage return, so a record heading after one starts
//! a line of its own, and `fmt` must not take the line before it for part of the record.

/// The 1-based line of byte `offset` in `text`, for a single lookup (a [`LineIndex`] pays
/// off from the second).
pub fn line_at(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    line_starts(&text.as_bytes()[..end], text.as_bytes()).count() + 1
}

/// The offsets where a line starts after a line ending in `scanned`, a prefix of `text`
/// (a `\r` at its end is judged by the byte after it).
fn line_starts<'a>(scanned: &'a [u8], text: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    memchr::memchr2_iter(b'\n', b'\r', scanned)
        .filter(move |&at| text[at] == b'\n' || text.get(at + 1) != Some(&b'\n'))
        .map(|at| at + 1)
}

/// The byte offset where each line of a text starts.
#[derive(Debug, Clone)]
pub struct LineIndex {
    len: usize,
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`'s lines (each `\n`, `\r\n` or lone `\r` ends one).
    pub fn new(text: &str) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(line_starts(text.as_bytes(), text.as_bytes()));
        LineIndex {
            len: text.len(),
            starts,
        }
    }

    /// The 0-based line index of a byte offset.
    fn index(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|start| *start <= offset)
            .saturating_sub(1)
    }

    /// The 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.index(offset) + 1
    }

    /// The byte offset where the line holding `offset` starts.
    pub fn start_of(&self, offset: usize) -> usize {
        self.starts[self.index(offset)]
    }

    /// The byte offset where the line after the one holding `offset` starts (the end of
    /// the text after its last line).
    pub fn next_start(&self, offset: usize) -> usize {
        self.starts
            .get(self.index(offset) + 1)
            .copied()
            .unwrap_or(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_lines_and_line_starts() {
        let lines = LineIndex::new("ab\ncd\n\nef");
        assert_eq!(
            [0, 2, 3, 6, 7, 9].map(|at| lines.line(at)),
            [1, 1, 2, 3, 4, 4]
        );
        assert_eq!(lines.start_of(4), 3);
        assert_eq!(lines.next_start(4), 6);
        assert_eq!(lines.next_start(8), 9);
        assert_eq!(line_at("ab\ncd\n\nef", 7), 4);
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line_and_crlf_ends_one() {
        let text = "ab\rcd\r\nef\n\rg";
        let lines = LineIndex::new(text);
        assert_eq!(lines.starts, vec![0, 3, 7, 10, 11]);
        for offset in 0..=text.len() {
            assert_eq!(line_at(text, offset), lines.line(offset), "at {offset}");
        }
        assert_eq!(
            line_at(text, 5),
            2,
            "the CR of a CRLF does not end the line"
        );
        assert_eq!(lines.start_of(4), 3);
    }
}
