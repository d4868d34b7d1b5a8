//! The integration tests: one test binary, one module per area.

#[path = "../common/mod.rs"]
mod common;

mod contracts;
