//! What a section says, read as Markdown: the visible text of its paragraphs, headings
//! and list items, and the code spans among them.
//!
//! Grants (a Decision's status and decider, the user's waiver, a scope expansion's
//! paths) are read from here, never from raw lines, because what decides must be what a
//! reviewer sees rendered: struck-through text (`~~…~~`, `~…~`), HTML (comments
//! included), code blocks, block quotes, image alt text, link reference definitions and
//! footnote definitions say nothing here. Code spans are kept apart ([`Piece::Code`]):
//! they name paths in a scope expansion, and decide nothing in a Decision.
//!
//! One pass over the events, so the cost is linear in the section.

use crate::markdown::{events, Event, LineIndex, Tag, TagEnd};

/// One piece of visible text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Text (emphasis and link markup removed; a soft or hard break is `\n`).
    Text(String),
    /// The content of a code span.
    Code(String),
}

/// A paragraph, heading or list item's own text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    /// The pieces in order.
    pub pieces: Vec<Piece>,
    /// Whether the block is (inside) a list item.
    pub in_list: bool,
    /// The 1-based line where it starts, counted from the section body's first line.
    pub line: usize,
}

impl Block {
    /// The block's text with code spans left out (they decide nothing).
    pub fn prose(&self) -> String {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.as_str(),
                Piece::Code(_) => "",
            })
            .collect()
    }

    /// The block's text as written inline: code spans in backticks.
    pub fn written(&self) -> String {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.clone(),
                Piece::Code(code) => format!("`{code}`"),
            })
            .collect()
    }

    /// The block's text with code spans in (their content, without backticks).
    pub fn text(&self) -> String {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) | Piece::Code(text) => text.as_str(),
            })
            .collect()
    }
}

/// The visible blocks of a section body whose first line is `first_line`.
pub(crate) fn visible_blocks(body: &str, first_line: usize) -> Vec<Block> {
    each_visible_block(body, first_line).collect()
}

/// The visible blocks of a section body, one at a time: a reader that needs only the
/// first ones (a scope expansion past its cap) stops reading there.
pub(crate) fn each_visible_block(
    body: &str,
    first_line: usize,
) -> impl Iterator<Item = Block> + '_ {
    VisibleBlocks {
        events: events(body),
        lines: LineIndex::new(body),
        first_line,
        open: None,
        hidden: 0,
        list_depth: 0,
    }
}

/// The state of reading blocks from a section's events.
struct VisibleBlocks<I> {
    events: I,
    lines: LineIndex,
    first_line: usize,
    open: Option<Block>,
    hidden: usize,
    list_depth: usize,
}

impl<'a, I: Iterator<Item = (Event<'a>, std::ops::Range<usize>)>> Iterator for VisibleBlocks<I> {
    type Item = Block;

    fn next(&mut self) -> Option<Block> {
        while let Some((event, range)) = self.events.next() {
            let piece = match event {
                Event::Start(tag) if hides(&tag) => {
                    self.hidden += 1;
                    continue;
                }
                Event::End(tag) if hides_end(tag) => {
                    self.hidden = self.hidden.saturating_sub(1);
                    continue;
                }
                _ if self.hidden > 0 => continue,
                Event::Start(Tag::List(_)) => {
                    self.list_depth += 1;
                    None
                }
                Event::End(TagEnd::List(_)) => {
                    self.list_depth = self.list_depth.saturating_sub(1);
                    continue;
                }
                Event::Start(Tag::Paragraph | Tag::Heading { .. } | Tag::Item)
                | Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item) => None,
                Event::Text(text) => Some(Piece::Text(text.into_string())),
                Event::Code(code) => Some(Piece::Code(code.into_string())),
                Event::SoftBreak | Event::HardBreak => {
                    if let Some(block) = self.open.as_mut() {
                        block.pieces.push(Piece::Text("\n".to_string()));
                    }
                    continue;
                }
                _ => continue,
            };
            match piece {
                Some(piece) => self.push(piece, &range),
                // A block boundary: the open block, if any, is done.
                None => {
                    if let Some(block) = self.open.take() {
                        return Some(block);
                    }
                }
            }
        }
        self.open.take()
    }
}

impl<I> VisibleBlocks<I> {
    fn push(&mut self, piece: Piece, range: &std::ops::Range<usize>) {
        let (lines, first_line, list_depth) = (&self.lines, self.first_line, self.list_depth);
        let block = self.open.get_or_insert_with(|| Block {
            pieces: Vec::new(),
            in_list: list_depth > 0,
            line: first_line + lines.line(range.start) - 1,
        });
        match (block.pieces.last_mut(), piece) {
            (Some(Piece::Text(last)), Piece::Text(text)) => last.push_str(&text),
            (_, piece) => block.pieces.push(piece),
        }
    }
}

/// Containers whose content is not what a reader of the rendered section takes as said.
fn hides(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Strikethrough
            | Tag::BlockQuote(_)
            | Tag::CodeBlock(_)
            | Tag::HtmlBlock
            | Tag::Image { .. }
            | Tag::FootnoteDefinition(_)
            | Tag::MetadataBlock(_)
    )
}

fn hides_end(tag: TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Strikethrough
            | TagEnd::BlockQuote(_)
            | TagEnd::CodeBlock
            | TagEnd::HtmlBlock
            | TagEnd::Image
            | TagEnd::FootnoteDefinition
            | TagEnd::MetadataBlock(_)
    )
}

/// The sentences of a text: split after `.`, `!`, `?` or `;` followed by white space or
/// the end, and at line breaks; each trimmed, empty ones dropped.
pub(crate) fn sentences(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|(_, next)| next.is_whitespace());
        let ends = c == '\n' || (matches!(c, '.' | '!' | '?' | ';') && next_is_space);
        if ends {
            let end = at + c.len_utf8();
            found.push(text[start..end].trim());
            start = end;
        }
    }
    found.push(text[start..].trim());
    found.retain(|sentence| !sentence.is_empty());
    found
}

/// The words of a text, lower case, apostrophes kept (`don't`), other punctuation
/// dropped.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['’', '‘'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|word| word.trim_matches('\''))
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose(body: &str) -> Vec<String> {
        visible_blocks(body, 1).iter().map(Block::prose).collect()
    }

    #[test]
    fn only_what_renders_as_said_is_read() {
        assert_eq!(prose("~~Approved~~ Rejected"), [" Rejected"]);
        assert_eq!(prose("~Approved~ Rejected"), [" Rejected"]);
        assert_eq!(prose("<!-- Approved -->\nRejected"), ["Rejected"]);
        assert_eq!(prose("[approved]: #\n\nRejected."), ["Rejected."]);
        assert_eq!(prose("```approved\nnotes\n```\nRejected."), ["Rejected."]);
        assert_eq!(prose("> Approved?\n\nNo — rejected."), ["No — rejected."]);
        assert_eq!(prose("![approved](badge.svg) Rejected"), [" Rejected"]);
        assert_eq!(prose("**Approved** — `x`"), ["Approved — "]);
        assert_eq!(prose("Approved\nReviewer: a"), ["Approved\nReviewer: a"]);
        let blocks = visible_blocks("Intro\n\n- one\n- two `p`\n", 10);
        assert_eq!(blocks.len(), 3);
        assert!(!blocks[0].in_list && blocks[1].in_list);
        assert_eq!((blocks[0].line, blocks[2].line), (10, 13));
        assert_eq!(blocks[2].pieces[1], Piece::Code("p".to_string()));
    }

    #[test]
    fn sentences_end_at_punctuation_before_space_and_at_line_breaks() {
        assert_eq!(
            sentences("Can we? No. Ship it\nwithout a.b review!"),
            ["Can we?", "No.", "Ship it", "without a.b review!"]
        );
        assert_eq!(
            words("Don’t SHIP it, please."),
            ["don't", "ship", "it", "please"]
        );
    }

    #[test]
    fn a_block_reads_as_written_as_text_and_as_prose() {
        let blocks = visible_blocks("Approve `src/a.rs` now\n", 1);
        let [block] = &blocks[..] else {
            panic!("one block: {blocks:?}")
        };
        assert_eq!(block.written(), "Approve `src/a.rs` now");
        assert_eq!(block.text(), "Approve src/a.rs now");
        assert_eq!(block.prose(), "Approve  now");
    }

    #[test]
    fn a_list_ends_and_each_block_starts_its_own() {
        let blocks = visible_blocks("- a\n  # h\n\nAfter\n", 1);
        let texts: Vec<String> = blocks.iter().map(Block::text).collect();
        assert_eq!(texts, ["a", "h", "After"]);
        assert!(blocks[0].in_list && blocks[1].in_list && !blocks[2].in_list);
        // A table starts no paragraph: the paragraph before it ends at its own end.
        let blocks = visible_blocks("Approved\n\n| a |\n|---|\n| b |\n", 1);
        assert_eq!(blocks[0].text(), "Approved");
    }
}
