//! Writing results and mapping outcomes to exit codes.
//!
//! Results are written to standard output through [`write_stdout`], which treats a
//! closed pipe (`handoff parse … | head`) as success instead of panicking the way
//! `println!` does.

use std::fmt::Display;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What a command that ran to the end found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report: exit 0.
    Ok,
    /// Findings or a rejection: exit 1.
    // Constructed by the commands that report findings (lint, check), not by classify.
    #[allow(dead_code)]
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

/// Replaces `path` with `text` atomically: a temporary file in the same directory,
/// flushed, given the original's permissions, then renamed over it. A symbolic link is
/// followed, so the file it points at is the one replaced.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), Failure> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let failure = |error: io::Error| Failure(format!("{}: cannot write: {error}", path.display()));
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let permissions = std::fs::metadata(&target)
        .ok()
        .map(|meta| meta.permissions());
    let (temporary, mut file) = create_temporary(&directory, &name).map_err(failure)?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .and_then(|()| match permissions {
            Some(permissions) => std::fs::set_permissions(&temporary, permissions),
            None => Ok(()),
        })
        .and_then(|()| std::fs::rename(&temporary, &target));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(failure(error));
    }
    Ok(())
}

fn create_temporary(directory: &Path, name: &str) -> io::Result<(PathBuf, std::fs::File)> {
    let mut attempt = 0u32;
    loop {
        let path = directory.join(format!(
            ".{name}.handoff-{}-{attempt}.tmp",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1
            }
            Err(error) => return Err(error),
        }
    }
}
