//! Markdown: what `handoff` needs of CommonMark and GFM, in one place.
//!
//! - [`cell`]: text placed in a GFM table cell or a list item of a report, made inert:
//!   it cannot end its cell, open HTML, or mention anyone.

pub mod cell;
