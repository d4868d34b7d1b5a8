//! Writing results and mapping outcomes to exit codes.
//!
//! Results are written to standard output through [`write_stdout`], which treats a
//! closed pipe (`handoff parse … | head`) as success instead of panicking the way
//! `println!` does.

use std::fmt::Display;
use std::io::{self, Write};
use std::process::ExitCode;

/// What a command that ran to the end found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report: exit 0.
    Ok,
    /// Findings or a rejection: exit 1.
    Findings,
}

/// Why a command could not run: exit 2, with the message on standard error.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: Display> From<E> for Failure {
    fn from(error: E) -> Self {
        Failure(error.to_string())
    }
}

/// Writes `text` to standard output; a closed pipe is not an error.
pub fn write_stdout(text: &str) -> Result<(), Failure> {
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(error) => Err(Failure(format!("cannot write to standard output: {error}"))),
    }
}

/// Maps a command's result to its exit code, printing a failure on standard error.
pub fn finish(result: Result<Outcome, Failure>) -> ExitCode {
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Err(Failure(message)) => {
            let _ = writeln!(io::stderr(), "error: {message}");
            ExitCode::from(2)
        }
    }
}
