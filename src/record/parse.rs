//! The parser: a Markdown document in, records and diagnostics out. It never fails.
//!
//! pulldown-cmark (tables enabled) finds the top-level blocks and their byte offsets;
//! only top-level headings (not in lists, block quotes, code or HTML blocks) can start a
//! record, so examples shown in code blocks are never records. A record heading has level
//! 1–3 and, inline markup stripped, the text of a record kind. A record ends at the next
//! heading of the same or a higher level, at any other record heading, or at the end.
//!
//! The header table is the first block after the heading when it is a paragraph or a
//! table whose first line starts with `|`. Its source lines are split by hand, which
//! reads the seed's pipe rows, a `| Field | Value |` table, and a table whose header row
//! is the first pair alike. Prose on the line right after the table joins its block in
//! Markdown; the table ends at the first line that is neither a `|` row nor a `key | value`
//! row, and the rest of the block starts the preamble (a `prose-joins-table` warning).
//! The first heading deeper than the record heading sets the
//! section level; deeper headings stay in the section bodies.

use super::fields::keys_match;
use super::{normalize_body, normalize_title, FieldKey, Record, RecordKind, Section};
use crate::diagnostic::{Diagnostic, RecordCode};
use crate::markdown::cell::{decode_cell, is_delimiter_row, split_row_into};
use crate::markdown::{events, Event, LineIndex, Tag, TagEnd};
use std::collections::HashMap;
use std::ops::Range;

/// What a document holds: its records, and the problems met while reading them.
#[derive(Debug, Clone, Default)]
pub struct ParsedDocument {
    /// The records, in document order.
    pub records: Vec<Record>,
    /// Structural problems (missing or malformed header tables, duplicate keys).
    pub diagnostics: Vec<Diagnostic>,
}

/// The kinds of top-level block the parser distinguishes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BlockKind {
    /// `record`: the kind this heading starts, when it is a record heading (level 1–3).
    Heading {
        level: u8,
        text: String,
        record: Option<RecordKind>,
    },
    Paragraph,
    Table,
    Other,
}

/// One top-level block and its byte range.
#[derive(Debug, Clone)]
struct Block {
    kind: BlockKind,
    range: Range<usize>,
}

/// Parses every record of a document. `source` names the document in diagnostics.
pub fn parse_document(source: &str, text: &str) -> ParsedDocument {
    let lines = LineIndex::new(text);
    let blocks = top_level_blocks(text);
    let mut document = ParsedDocument::default();
    let mut index = 0;
    while index < blocks.len() {
        let Some((kind, level)) = record_heading(&blocks[index]) else {
            index += 1;
            continue;
        };
        let end = record_end(&blocks, index, level);
        let reader = RecordReader {
            source,
            text,
            lines: &lines,
            blocks: &blocks[index..end],
            level,
            limit: blocks
                .get(end)
                .map_or(text.len(), |block| lines.start_of(block.range.start)),
        };
        let record = reader.read(kind, &mut document.diagnostics);
        document.records.push(record);
        index = end;
    }
    document
}

/// The top-level blocks of a document, a leading byte-order mark skipped.
fn top_level_blocks(text: &str) -> Vec<Block> {
    let skip = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    let mut heading_text: Option<String> = None;
    let parser = events(&text[skip..]);
    for (event, range) in parser {
        let range = range.start + skip..range.end + skip;
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match tag {
                        Tag::Heading { level, .. } => {
                            heading_text = Some(String::new());
                            BlockKind::Heading {
                                level: level as u8,
                                text: String::new(),
                                record: None,
                            }
                        }
                        Tag::Paragraph => BlockKind::Paragraph,
                        Tag::Table(_) => BlockKind::Table,
                        _ => BlockKind::Other,
                    };
                    blocks.push(Block { kind, range });
                }
                depth += 1;
            }
            Event::End(tag) => {
                depth = depth.saturating_sub(1);
                if depth == 0 && matches!(tag, TagEnd::Heading(_)) {
                    finish_heading(&mut blocks, heading_text.take());
                }
            }
            Event::Text(piece) | Event::Code(piece) => {
                if let Some(text) = heading_text.as_mut() {
                    text.push_str(&piece);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(text) = heading_text.as_mut() {
                    text.push(' ');
                }
            }
            _ if depth == 0 => blocks.push(Block {
                kind: BlockKind::Other,
                range,
            }),
            _ => {}
        }
    }
    blocks
}

fn finish_heading(blocks: &mut [Block], text: Option<String>) {
    if let (
        Some(Block {
            kind:
                BlockKind::Heading {
                    level,
                    text: slot,
                    record,
                },
            ..
        }),
        Some(text),
    ) = (blocks.last_mut(), text)
    {
        // Most titles are one trimmed line already: keep the text without copying it.
        *slot = if text.contains(['\r', '\n']) || text.trim().len() != text.len() {
            normalize_title(&text)
        } else {
            text
        };
        if *level <= 3 {
            // An invisible character must not unmake a record heading.
            let seen = crate::identity::visible(slot);
            *record = RecordKind::ALL
                .into_iter()
                .find(|kind| keys_match(kind.heading(), &seen));
        }
    }
}

/// The kind and level of a record heading.
fn record_heading(block: &Block) -> Option<(RecordKind, u8)> {
    match &block.kind {
        BlockKind::Heading {
            level,
            record: Some(kind),
            ..
        } => Some((*kind, *level)),
        _ => None,
    }
}

/// The index of the block that ends the record starting at `start`.
fn record_end(blocks: &[Block], start: usize, level: u8) -> usize {
    blocks[start + 1..]
        .iter()
        .position(|block| match &block.kind {
            BlockKind::Heading { level: next, .. } => {
                *next <= level || record_heading(block).is_some()
            }
            _ => false,
        })
        .map_or(blocks.len(), |offset| start + 1 + offset)
}

/// Reads one record from its blocks.
struct RecordReader<'a> {
    source: &'a str,
    text: &'a str,
    lines: &'a LineIndex,
    /// The heading block, then the record's blocks.
    blocks: &'a [Block],
    level: u8,
    /// Where the next record or heading begins (or the end of the text).
    limit: usize,
}

impl RecordReader<'_> {
    fn read(&self, kind: RecordKind, diagnostics: &mut Vec<Diagnostic>) -> Record {
        let heading = &self.blocks[0];
        let mut record = Record::new(kind);
        record.source = self.source.to_string();
        record.line = self.lines.line(heading.range.start);
        record.set_span(self.lines.start_of(heading.range.start)..self.content_end(self.limit));
        let mut rest = &self.blocks[1..];
        let mut body_start = self.lines.next_start(heading.range.end.saturating_sub(1));
        match rest.first().filter(|block| self.is_header_table(block)) {
            Some(table) => {
                body_start = match self.read_header(&mut record, table, diagnostics) {
                    Some(prose) => prose,
                    None => self.lines.next_start(table.range.end.saturating_sub(1)),
                };
                rest = &rest[1..];
            }
            None => diagnostics.push(self.missing_table(&record)),
        }
        self.read_sections(&mut record, rest, body_start);
        diagnostics.extend(self.duplicate_sections(&record));
        record
    }

    /// A section whose title an earlier section of the record already has: which of the
    /// two counts would be a guess (two Decisions, one approving, one refusing).
    fn duplicate_sections(&self, record: &Record) -> Vec<Diagnostic> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut found = Vec::new();
        for section in record.sections() {
            let key = super::fields::fold_key(&crate::identity::visible(&section.title));
            if let Some(first) = seen.insert(key, section.line) {
                let message = format!(
                    "`### {}` appears twice in this record (first on line {first}); which one counts would be a guess",
                    section.title
                );
                found.push(
                    Diagnostic::new(RecordCode::DuplicateSection, message)
                        .at(self.source, section.line, 1)
                        .with_hint("keep one section of each title; write a later decision as a new record with its own Timestamp"),
                );
                seen.insert(
                    super::fields::fold_key(&crate::identity::visible(&section.title)),
                    first,
                );
            }
        }
        found
    }

    /// The end of the last non-blank line before `limit`, line terminator excluded.
    fn content_end(&self, limit: usize) -> usize {
        let trimmed = self.text[..limit].trim_end_matches([' ', '\t', '\r', '\n']);
        let end = trimmed.len();
        // Trailing spaces of the last line belong to it (a hard break, say).
        self.text[end..limit]
            .find(['\r', '\n'])
            .map_or(limit, |at| end + at)
    }

    fn is_header_table(&self, block: &Block) -> bool {
        matches!(block.kind, BlockKind::Paragraph | BlockKind::Table)
            && self.text[self.lines.start_of(block.range.start)..]
                .trim_start_matches([' ', '\t'])
                .starts_with('|')
    }

    fn missing_table(&self, record: &Record) -> Diagnostic {
        let message = format!(
            "`{}` is not followed by its header table",
            record.kind.heading()
        );
        Diagnostic::new(RecordCode::MissingHeaderTable, message)
            .at(self.source, record.line, 1)
            .with_hint("put `| Task ID | ENG-042 |` rows directly under the heading")
    }

    /// Reads the rows of the header table into `record`. Returns where the prose that
    /// joins the table's paragraph starts, when a line of it is not a row.
    fn read_header(
        &self,
        record: &mut Record,
        table: &Block,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<usize> {
        let start = self.lines.start_of(table.range.start);
        let end = self.content_end(table.range.end.max(start));
        let mut seen: HashMap<SeenKey, usize> = HashMap::new();
        let mut cells: Vec<&str> = Vec::new();
        let mut offset = start;
        for (index, raw) in self.text[start..end].split('\n').enumerate() {
            let line_start = offset;
            offset += raw.len() + 1;
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            split_row_into(raw, &mut cells);
            if (index == 1 && is_delimiter_row(&cells))
                || (index == 0 && is_field_value_header(&cells))
            {
                continue;
            }
            let line = self.lines.line(line_start);
            if is_prose(raw, &cells) {
                diagnostics.push(self.prose_joins_table(line));
                return Some(line_start);
            }
            if cells.len() != 2 || raw.trim().is_empty() {
                diagnostics.push(self.malformed_row(line, raw, cells.len()));
                continue;
            }
            let key = decode_cell(cells[0]);
            let value = decode_cell(cells[1]);
            let column = value_column(raw, cells[1]);
            self.store_row(
                record,
                &mut seen,
                (&key, &value),
                (line, column),
                diagnostics,
            );
        }
        None
    }

    fn prose_joins_table(&self, line: usize) -> Diagnostic {
        let message = "prose right under the header table joins its paragraph; the table ends \
                       here and the rest is read as the text under it";
        Diagnostic::new(RecordCode::ProseJoinsTable, message)
            .at(self.source, line, 1)
            .with_hint("put a blank line after the table (`handoff fmt` does it)")
    }

    fn store_row(
        &self,
        record: &mut Record,
        seen: &mut HashMap<SeenKey, usize>,
        (key, value): (&str, &str),
        (line, column): (usize, usize),
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let known = record.kind.key_named(key);
        let id = SeenKey {
            known,
            extra: known.map_or_else(|| key_identity(key), |_| String::new()),
        };
        let Some(&first_line) = seen.get(&id) else {
            seen.insert(id, line);
            record.set_field_at(known, key, value, (line, column));
            return;
        };
        if known == Some(super::FieldKey::Rejected) {
            let joined = format!(
                "{}; {value}",
                record.value(super::FieldKey::Rejected).unwrap_or_default()
            );
            let first = record
                .field(super::FieldKey::Rejected)
                .map_or((line, column), |f| (f.line, f.column));
            record.set_field_at(known, key, &joined, first);
            return;
        }
        diagnostics.push(
            Diagnostic::new(
                RecordCode::DuplicateField,
                format!(
                    "`{}` appears twice; the value on line {first_line} is used",
                    key.trim()
                ),
            )
            .at(self.source, line, 1)
            .with_hint("keep one row per key (only `Rejected` may repeat)"),
        );
    }

    fn malformed_row(&self, line: usize, raw: &str, cells: usize) -> Diagnostic {
        let message = if raw.trim().is_empty() {
            "an empty line inside the header table".to_string()
        } else {
            format!("a header row needs exactly two cells (key and value), this one has {cells}")
        };
        Diagnostic::new(RecordCode::MalformedRow, message)
            .at(self.source, line, 1)
            .with_hint("write `| Key | Value |`, escaping a literal pipe in a value as `\\|`")
    }

    fn read_sections(&self, record: &mut Record, blocks: &[Block], body_start: usize) {
        let section_level = blocks.iter().find_map(|block| match block.kind {
            BlockKind::Heading { level, .. } if level > self.level => Some(level),
            _ => None,
        });
        let headings: Vec<&Block> = blocks
            .iter()
            .filter(|block| match block.kind {
                BlockKind::Heading { level, .. } => {
                    section_level.is_some_and(|section| level <= section)
                }
                _ => false,
            })
            .collect();
        let end = record.span().end;
        let preamble_end = headings
            .first()
            .map_or(end, |h| self.lines.start_of(h.range.start));
        let preamble = normalize_body(
            self.text
                .get(body_start.min(preamble_end)..preamble_end)
                .unwrap_or(""),
        );
        record.set_preamble(Some(&preamble));
        for (index, heading) in headings.iter().enumerate() {
            let body_start = self
                .lines
                .next_start(heading.range.end.saturating_sub(1))
                .min(end);
            let body_end = headings
                .get(index + 1)
                .map_or(end, |next| self.lines.start_of(next.range.start))
                .max(body_start);
            record.push_parsed_section(self.section(heading, body_start..body_end));
        }
    }

    fn section(&self, heading: &Block, body: Range<usize>) -> Section {
        let title = match &heading.kind {
            BlockKind::Heading { text, .. } => text.clone(),
            _ => String::new(),
        };
        let raw = &self.text[body.clone()];
        let leading_blank: usize = raw
            .split_inclusive('\n')
            .take_while(|line| line.trim().is_empty())
            .map(str::len)
            .sum();
        Section {
            title,
            line: self.lines.line(heading.range.start),
            body: normalize_body(raw),
            body_line: self.lines.line((body.start + leading_blank).min(body.end)),
        }
    }
}

/// A header key already read, for finding duplicates in one lookup: known keys compare
/// by [`FieldKey`] (resolved once per row), extra keys by [`key_identity`].
#[derive(PartialEq, Eq, Hash)]
struct SeenKey {
    known: Option<FieldKey>,
    extra: String,
}

/// The form two keys share exactly when [`keys_match`] says they match: words split on
/// white space, ASCII-lower-cased, joined by one space.
fn key_identity(key: &str) -> String {
    let mut identity = String::with_capacity(key.len());
    for word in key.split_whitespace() {
        if !identity.is_empty() {
            identity.push(' ');
        }
        identity.extend(word.chars().map(|c| c.to_ascii_lowercase()));
    }
    identity
}

/// Whether a line of the header table's block is prose that joined it: not blank, not
/// starting with `|`, and not a `key | value` row either.
fn is_prose(raw: &str, cells: &[&str]) -> bool {
    let trimmed = raw.trim();
    !trimmed.is_empty() && !trimmed.starts_with('|') && cells.len() != 2
}

fn is_field_value_header(cells: &[&str]) -> bool {
    cells.len() == 2 && keys_match(cells[0], "field") && keys_match(cells[1], "value")
}

/// The 1-based character column of `cell` (a sub-slice of `raw`).
fn value_column(raw: &str, cell: &str) -> usize {
    let offset = (cell.as_ptr() as usize).saturating_sub(raw.as_ptr() as usize);
    raw.get(..offset)
        .map_or(1, |prefix| prefix.chars().count() + 1)
}

#[cfg(test)]
mod tests;
