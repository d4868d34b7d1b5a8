//! What can go wrong with a trail command, and the exit code it means.

use super::lifecycle::Violation;
use std::fmt;
use std::path::{Path, PathBuf};

/// Whether an error refuses the request (exit 1) or stops the command (exit 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request breaks a rule of the trail: nothing was written (exit 1).
    Refused,
    /// The command cannot run: bad input, an unreadable or damaged trail (exit 2).
    CannotRun,
}

/// A trail error: where (file and line, when there is one), what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrailError {
    /// Refused or cannot run.
    pub kind: ErrorKind,
    /// The file at fault, when there is one.
    pub path: Option<PathBuf>,
    /// The 1-based line, when there is one.
    pub line: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
    /// The lifecycle rule broken, for refusals.
    pub violation: Option<Box<Violation>>,
}

impl TrailError {
    /// The command cannot run, for a reason about `path`.
    pub fn at(path: &Path, line: Option<usize>, message: impl Into<String>) -> TrailError {
        TrailError {
            kind: ErrorKind::CannotRun,
            path: Some(path.to_path_buf()),
            line,
            message: message.into(),
            violation: None,
        }
    }

    /// The command cannot run, for a reason that has no file.
    pub fn plain(message: impl Into<String>) -> TrailError {
        TrailError {
            kind: ErrorKind::CannotRun,
            path: None,
            line: None,
            message: message.into(),
            violation: None,
        }
    }

    /// The request is refused: it breaks a rule.
    pub fn refused(message: impl Into<String>) -> TrailError {
        TrailError {
            kind: ErrorKind::Refused,
            ..TrailError::plain(message)
        }
    }

    /// The request is refused because an event is not a legal next step.
    pub fn illegal(violation: Violation) -> TrailError {
        TrailError {
            kind: ErrorKind::Refused,
            message: format!("refused: {violation}"),
            violation: Some(Box::new(violation)),
            ..TrailError::plain("")
        }
    }

    /// The same error, pointing at `path` and `line` when it has no place yet.
    pub fn located(mut self, path: &Path, line: Option<usize>) -> TrailError {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
            self.line = line;
        }
        self
    }

    /// An I/O failure on `path`.
    pub fn io(path: &Path, what: &str, error: &std::io::Error) -> TrailError {
        TrailError::at(path, None, format!("cannot {what}: {error}"))
    }
}

impl fmt::Display for TrailError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.path, self.line) {
            (Some(path), Some(line)) => write!(f, "{}:{line}: ", path.display())?,
            (Some(path), None) => write!(f, "{}: ", path.display())?,
            _ => {}
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for TrailError {}
