//! `handoff contract`: the reference implementation's test cases as data, the edge cases
//! CONTRACT.md names, and the real binary.
//!
//! `cases/check.json`, `cases/state.json` and `cases/next.json` hold the ported cases;
//! each names its source (a gaia test, or the CONTRACT.md rule it pins).

mod cli;
mod data;
mod edge;
