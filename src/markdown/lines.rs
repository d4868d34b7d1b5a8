//! The line index: byte offsets to 1-based lines, for every diagnostic that names a line.

/// The 1-based line of byte `offset` in `text`, for a single lookup (a [`LineIndex`] pays
/// off from the second).
pub fn line_at(text: &str, offset: usize) -> usize {
    let before = text.as_bytes().get(..offset).unwrap_or(text.as_bytes());
    memchr::memchr_iter(b'\n', before).count() + 1
}

/// The byte offset where each line of a text starts.
#[derive(Debug, Clone)]
pub struct LineIndex {
    len: usize,
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`'s lines (each `\n` ends one).
    pub fn new(text: &str) -> LineIndex {
        // A byte loop: `match_indices` pays a searcher call per line.
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, byte)| *byte == b'\n')
                .map(|(at, _)| at + 1),
        );
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
}
