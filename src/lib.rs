//! `handoff`: Interaction Records for agent-to-agent work.
//!
//! Interaction Records are the Markdown artifacts that AI agents (and people) exchange
//! when they hand work over, consult, escalate, review or ask for a capability. This
//! crate is the domain: it parses and renders records, lints them, classifies the risk
//! of a git change, checks evidence, file scope and sign-off, and routes tasks.
//!
//! The library prints nothing and never exits the process; `src/main.rs` and
//! `src/cli/` are a thin command-line layer over it. Parsing is total: it returns what
//! it understood together with [`diagnostic::Diagnostic`]s that carry line numbers.

#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod contract;
pub mod diagnostic;
pub mod evidence;
pub mod gate;
pub mod git;
pub mod io;
pub mod markdown;
pub mod message;
pub mod pattern;
pub mod policy;
pub mod record;
pub mod report;
pub mod risk;
pub mod routing;
pub mod scope;
mod spelled;
pub mod template;
pub mod trail;
