//! Markdown: what `handoff` needs of CommonMark and GFM, in one place.
//!
//! - [`events`]: the one way into pulldown-cmark, with the options every reader of
//!   records uses (GFM tables) and the byte range of each event;
//! - [`LineIndex`]: byte offsets to lines, for diagnostics;
//! - [`cell`]: the GFM table-cell codec (a record's values through its header table, and
//!   report text made inert in a table or a list).

pub mod cell;
mod lines;

pub use lines::{line_at, LineIndex};
pub use pulldown_cmark::{CodeBlockKind, Event, Tag, TagEnd};

use std::ops::Range;

/// The events of `text` with their byte ranges, as every reader of records sees them
/// (CommonMark with GFM tables and strikethrough, as GitHub renders them: `~~x~~` and
/// `~x~` are struck through, so what they say decides nothing).
pub fn events(text: &str) -> impl Iterator<Item = (Event<'_>, Range<usize>)> {
    let options =
        pulldown_cmark::Options::ENABLE_TABLES | pulldown_cmark::Options::ENABLE_STRIKETHROUGH;
    pulldown_cmark::Parser::new_ext(text, options).into_offset_iter()
}
