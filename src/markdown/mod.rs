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
/// (CommonMark with GFM tables).
pub fn events(text: &str) -> impl Iterator<Item = (Event<'_>, Range<usize>)> {
    pulldown_cmark::Parser::new_ext(text, pulldown_cmark::Options::ENABLE_TABLES).into_offset_iter()
}
