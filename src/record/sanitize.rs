//! Making a section body (or a preamble) safe to place under a `###` heading.
//!
//! A body is Markdown and stays Markdown, but in canonical form it must not be able to
//! break out of its section: a top-level heading of level 1–3 (ATX or setext) would start
//! a new section or record, so it is escaped (`\#`, `\---`); an unclosed code fence would
//! swallow every section after it, so it is closed; an HTML block of types 1–5 that is
//! never terminated would do the same, so its `<` is escaped.

use crate::markdown::{events, CodeBlockKind, Event, Tag};

/// How many rounds of escaping are tried before giving up. One round escapes every
/// top-level heading at once; only a block that swallows the rest of the body (an
/// unclosed fence or HTML block) needs a round of its own.
const MAX_ROUNDS: usize = 256;

/// The deepest heading a section body must not hold: `###` would start a section.
pub(crate) const SECTION_BODY: u8 = 3;

/// The deepest heading the preamble must not hold: any heading would start a section.
pub(crate) const PREAMBLE: u8 = 6;

/// The body with every escape hatch closed, headings of level `max_level` or less
/// escaped. A body without one is returned unchanged.
pub(crate) fn sanitize_body(body: &str, max_level: u8) -> String {
    let mut body = body.to_string();
    for _ in 0..MAX_ROUNDS {
        let found = hazards(&body, max_level);
        if found.is_empty() {
            break;
        }
        // Later positions first, so earlier offsets stay valid.
        for hazard in found.into_iter().rev() {
            match hazard {
                Hazard::Insert { at, text } => body.insert_str(at, text),
                Hazard::CloseFence(fence) => {
                    body.push('\n');
                    body.push_str(&fence);
                }
            }
        }
    }
    body
}

enum Hazard {
    /// Insert `text` (a backslash) at byte `at`.
    Insert { at: usize, text: &'static str },
    /// Append a closing fence.
    CloseFence(String),
}

/// Every top-level hazard of the body, in document order. Blocks that swallow the rest
/// of the body come last by nature, so the hazards are independent of each other.
fn hazards(body: &str, max_level: u8) -> Vec<Hazard> {
    let mut found = Vec::new();
    let mut depth = 0usize;
    for (event, range) in events(body) {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    found.extend(block_hazard(body, &tag, range, max_level));
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    found
}

fn block_hazard(
    body: &str,
    tag: &Tag<'_>,
    range: std::ops::Range<usize>,
    max_level: u8,
) -> Option<Hazard> {
    match tag {
        Tag::Heading { level, .. } if (*level as u8) <= max_level => {
            Some(heading_escape(body, range))
        }
        Tag::CodeBlock(CodeBlockKind::Fenced(_)) => unclosed_fence(&body[range]),
        Tag::HtmlBlock => unterminated_html(body, range.start),
        _ => None,
    }
}

/// Escapes an ATX heading's first `#`, or a setext heading's underline.
fn heading_escape(body: &str, range: std::ops::Range<usize>) -> Hazard {
    let line_start = body[..range.start].rfind('\n').map_or(0, |at| at + 1);
    let first_line = &body[line_start..];
    let indent = first_line.len() - first_line.trim_start_matches(' ').len();
    if first_line[indent..].starts_with('#') {
        return Hazard::Insert {
            at: line_start + indent,
            text: "\\",
        };
    }
    let heading = body[..range.end].trim_end();
    let underline_start = heading.rfind('\n').map_or(0, |at| at + 1);
    let underline = &heading[underline_start..];
    let indent = underline.len() - underline.trim_start().len();
    Hazard::Insert {
        at: underline_start + indent,
        text: "\\",
    }
}

/// A closing fence for a fenced code block that never closes.
fn unclosed_fence(block: &str) -> Option<Hazard> {
    let opening = block.lines().next()?.trim_start();
    let fence_char = opening.chars().next()?;
    let fence_len = opening.chars().take_while(|ch| *ch == fence_char).count();
    let lines: Vec<&str> = block.trim_end().lines().skip(1).collect();
    // CommonMark: at most three spaces before a closing fence, only spaces and tabs
    // after it; any other white space (a U+2028, a tab before) leaves the block open.
    let closed = lines.last().is_some_and(|last| {
        let last = last.trim_end_matches([' ', '\t']);
        let fence = last.trim_start_matches(' ');
        last.len() - fence.len() <= 3
            && fence.len() >= fence_len
            && fence.chars().all(|ch| ch == fence_char)
    });
    (!closed).then(|| Hazard::CloseFence(fence_char.to_string().repeat(fence_len)))
}

/// The start and end markers of HTML blocks of types 1–5 (CommonMark 4.6).
const HTML_BLOCKS: [(&str, &str); 8] = [
    ("<script", "</script>"),
    ("<pre", "</pre>"),
    ("<style", "</style>"),
    ("<textarea", "</textarea>"),
    ("<!--", "-->"),
    ("<?", "?>"),
    ("<![CDATA[", "]]>"),
    ("<!", ">"),
];

/// Escapes the `<` of an HTML block of types 1–5 whose end marker never comes.
fn unterminated_html(body: &str, start: usize) -> Option<Hazard> {
    let line_start = body[..start].rfind('\n').map_or(0, |at| at + 1);
    let line = &body[line_start..];
    let indent = line.len() - line.trim_start_matches(' ').len();
    let block = &body[line_start + indent..];
    let lower = block.to_lowercase();
    let (open, close) = HTML_BLOCKS
        .iter()
        .find(|(open, _)| lower.starts_with(open))?;
    let terminated = lower
        .get(open.len()..)
        .is_some_and(|rest| rest.contains(close));
    (!terminated).then_some(Hazard::Insert {
        at: line_start + indent,
        text: "\\",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_fences_and_html_cannot_escape() {
        assert_eq!(
            sanitize_body("text\n### Decision\nApproved", SECTION_BODY),
            "text\n\\### Decision\nApproved"
        );
        assert_eq!(
            sanitize_body("Title\n---\nmore", SECTION_BODY),
            "Title\n\\---\nmore"
        );
        assert_eq!(
            sanitize_body("```rust\nfn x() {}", SECTION_BODY),
            "```rust\nfn x() {}\n```"
        );
        assert_eq!(
            sanitize_body("~~~\n\u{2028}~~~", SECTION_BODY),
            "~~~\n\u{2028}~~~\n~~~"
        );
        assert_eq!(
            sanitize_body("<!-- never closed\n\n## x", SECTION_BODY),
            "\\<!-- never closed\n\n\\## x"
        );
        let many = "### a\n".repeat(300);
        assert_eq!(sanitize_body(&many, SECTION_BODY), "\\### a\n".repeat(300));
        let safe = "#### Deep\n- ## in a list\n```\n## in code\n```\n<!-- ok -->";
        assert_eq!(sanitize_body(safe, SECTION_BODY), safe);
    }
}
