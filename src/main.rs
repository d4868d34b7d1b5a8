//! The `handoff` command-line tool: a thin layer over the `handoff` library.
//!
//! Exit codes: 0 ok / pass, 1 findings / reject, 2 cannot run. Results go to standard
//! output; logs and errors go to standard error.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::run()
}
