//! Reading a document: a file or standard input, checked before it reaches a parser.
//!
//! Parsers work on `&str`, so bytes are checked here: a NUL byte means a binary file,
//! invalid UTF-8 is reported at the line and column of the first bad byte, and anything
//! larger than the limit is refused before it is read in full.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest document `handoff` reads (a record file, a pull-request body, an agent's
/// output): 32 MiB.
pub const MAX_INPUT_BYTES: u64 = 32 * 1024 * 1024;

/// The name standard input goes by, on the command line and in every message and report.
pub const STDIN_NAME: &str = "-";

/// Why a document could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The file could not be opened or read.
    #[error("{}: cannot read: {source}", path.display())]
    Unreadable {
        /// The file (`-` for standard input).
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The bytes are not UTF-8.
    #[error("{}:{line}:{column}: not UTF-8 (the first invalid byte is here); save the file as UTF-8", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the first invalid byte.
        line: usize,
        /// The 1-based column (in characters) of the first invalid byte.
        column: usize,
    },
    /// The file holds a NUL byte: it is binary, not text.
    #[error("{}:{line}: binary file (a NUL byte on this line); records are Markdown text", path.display())]
    Binary {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the first NUL byte.
        line: usize,
    },
    /// The file is larger than the limit.
    #[error("{}: too large ({size} bytes); the limit is {limit} bytes ({} MiB)", path.display(), limit / (1024 * 1024))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes (at least this many).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
}

impl InputError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            InputError::Unreadable { path, .. }
            | InputError::NotUtf8 { path, .. }
            | InputError::Binary { path, .. }
            | InputError::TooLarge { path, .. } => path,
        }
    }
}

/// Where a document comes from: a file, or standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input, named [`STDIN_NAME`].
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// The source a command-line argument names: `-` is standard input.
    pub fn from_argument(argument: &Path) -> Source {
        if argument.as_os_str() == STDIN_NAME {
            Source::Stdin
        } else {
            Source::File(argument.to_path_buf())
        }
    }

    /// The name diagnostics and reports use.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => STDIN_NAME.to_string(),
            Source::File(path) => path.display().to_string(),
        }
    }

    /// The document's text, checked by [`decode_text`].
    pub fn read(&self) -> Result<String, InputError> {
        match self {
            Source::Stdin => read_stdin(),
            Source::File(path) => read_text(path),
        }
    }
}

/// Reads a text document from a file, at most [`MAX_INPUT_BYTES`].
pub fn read_text(path: &Path) -> Result<String, InputError> {
    decode_text(read_capped(path, MAX_INPUT_BYTES)?, path)
}

/// Reads a text document from standard input (named `-`), at most [`MAX_INPUT_BYTES`].
pub fn read_stdin() -> Result<String, InputError> {
    let path = Path::new(STDIN_NAME);
    decode_text(
        take_capped(std::io::stdin().lock(), path, MAX_INPUT_BYTES)?,
        path,
    )
}

/// Reads at most `limit` bytes of a file: a directory, a missing file or one over the
/// limit is refused before it is read.
pub fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let unreadable = |source| InputError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(unreadable)?;
    if metadata.is_dir() {
        return Err(unreadable(std::io::Error::other(
            "it is a directory; pass a file, or `-` for standard input",
        )));
    }
    if metadata.len() > limit {
        return Err(too_large(path, metadata.len(), limit));
    }
    let file = std::fs::File::open(path).map_err(unreadable)?;
    take_capped(file, path, limit)
}

fn take_capped(reader: impl Read, path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(too_large(path, bytes.len() as u64, limit));
    }
    Ok(bytes)
}

fn too_large(path: &Path, size: u64, limit: u64) -> InputError {
    InputError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    }
}

/// Checks bytes already in memory: size ([`MAX_INPUT_BYTES`]), NUL bytes, UTF-8.
pub fn decode_text(bytes: Vec<u8>, path: &Path) -> Result<String, InputError> {
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large(path, bytes.len() as u64, MAX_INPUT_BYTES));
    }
    if let Some(at) = memchr::memchr(0, &bytes) {
        let line = memchr::memchr_iter(b'\n', &bytes[..at]).count() + 1;
        return Err(InputError::Binary {
            path: path.to_path_buf(),
            line,
        });
    }
    String::from_utf8(bytes).map_err(|error| {
        let (line, column) = utf8_error_position(error.as_bytes(), error.utf8_error());
        InputError::NotUtf8 {
            path: path.to_path_buf(),
            line,
            column,
        }
    })
}

/// The 1-based line and column (in characters) of the first invalid byte of `bytes`.
pub fn utf8_error_position(bytes: &[u8], error: std::str::Utf8Error) -> (usize, usize) {
    let valid = bytes.get(..error.valid_up_to()).unwrap_or(bytes);
    // The prefix is valid UTF-8 by construction.
    let prefix = String::from_utf8_lossy(valid);
    let line_start = prefix.rfind('\n').map_or(0, |at| at + 1);
    (
        prefix.matches('\n').count() + 1,
        prefix[line_start..].chars().count() + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_bytes_are_reported_with_their_position() {
        let path = Path::new("doc.md");
        let error = decode_text(b"ok\nab\xffc".to_vec(), path).err();
        assert!(matches!(
            error,
            Some(InputError::NotUtf8 {
                line: 2,
                column: 3,
                ..
            })
        ));
        let error = decode_text(b"a\n\nb\0".to_vec(), path).err();
        assert!(matches!(error, Some(InputError::Binary { line: 3, .. })));
        assert_eq!(
            decode_text(b"fine".to_vec(), path).ok().as_deref(),
            Some("fine")
        );
        let message = read_text(Path::new("/nonexistent/x.md"))
            .err()
            .map(|e| e.to_string());
        assert!(message.is_some_and(|m| m.starts_with("/nonexistent/x.md: cannot read")));
    }

    #[test]
    fn a_file_over_the_limit_is_refused_with_both_sizes() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("big.txt");
        std::fs::write(&path, vec![b'x'; 2 * 1024 * 1024 + 1]).expect("write");
        let message = read_capped(&path, 2 * 1024 * 1024)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            message.ends_with("too large (2097153 bytes); the limit is 2097152 bytes (2 MiB)"),
            "{message}"
        );
        assert!(read_capped(dir.path(), 10)
            .err()
            .is_some_and(|e| e.to_string().contains("it is a directory")));
    }
}
