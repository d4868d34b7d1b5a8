//! The integration tests: one test binary (one link, one run), one module per area.
//!
//! Shared fixtures (git repositories in temporary directories, the real binary) are in
//! [`common`]; a new area adds its module here.

mod common;
#[path = "../support/generate.rs"]
mod generate;

mod allow;
mod architecture;
mod audit;
mod check;
mod ci_formats;
mod classify;
mod cli;
mod cli_classify;
mod cmd;
mod contract;
mod contracts;
mod dependencies;
mod fifteenth_set;
mod forged_output;
mod formats;
mod fuzz_regressions;
mod git_change_set;
mod git_read_again;
mod git_renames;
mod grammars;
mod init;
mod leaks;
mod policy_schema;
mod quickstart;
mod rollout;
mod roundtrip;
mod route;
mod routing_properties;
mod seed;
mod suppress;
mod terminal;
mod trail;
mod trust;
