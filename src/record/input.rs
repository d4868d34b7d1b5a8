//! Reading a document: a file or standard input, checked before it reaches the parser.
//!
//! The parser works on `&str`, so bytes are checked here: a NUL byte means a binary
//! file, invalid UTF-8 is reported at the line and column of the first bad byte, and
//! anything larger than [`MAX_INPUT_BYTES`] is refused before it is read in full.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest document `handoff` reads: 32 MiB.
pub const MAX_INPUT_BYTES: u64 = 32 * 1024 * 1024;

/// Why a document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read: {source}")]
    Unreadable {
        /// The file (`-` for standard input).
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The bytes are not UTF-8.
    #[error("{path}:{line}:{column}: not UTF-8 (the first invalid byte is here); save the file as UTF-8")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the first invalid byte.
        line: usize,
        /// The 1-based column (in characters) of the first invalid byte.
        column: usize,
    },
    /// The file holds a NUL byte: it is binary, not Markdown.
    #[error("{path}:{line}: binary file (a NUL byte on this line); records are Markdown text")]
    Binary {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the first NUL byte.
        line: usize,
    },
    /// The file is larger than the limit.
    #[error("{path}: too large ({size} bytes); the limit is {limit} bytes (32 MiB)")]
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

/// Reads a Markdown document from a file.
pub fn read_input(path: &Path) -> Result<String, InputError> {
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
    if metadata.len() > MAX_INPUT_BYTES {
        return Err(too_large(path, metadata.len()));
    }
    let file = std::fs::File::open(path).map_err(unreadable)?;
    read_limited(file, path)
}

/// Reads a Markdown document from standard input (named `-`).
pub fn read_stdin() -> Result<String, InputError> {
    read_limited(std::io::stdin().lock(), Path::new("-"))
}

fn read_limited(reader: impl Read, path: &Path) -> Result<String, InputError> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
    read_bytes(bytes, path)
}

fn too_large(path: &Path, size: u64) -> InputError {
    InputError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit: MAX_INPUT_BYTES,
    }
}

/// Checks bytes already in memory: size, NUL bytes, UTF-8.
pub fn read_bytes(bytes: Vec<u8>, path: &Path) -> Result<String, InputError> {
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large(path, bytes.len() as u64));
    }
    if let Some(at) = bytes.iter().position(|byte| *byte == 0) {
        let line = bytes[..at].iter().filter(|byte| **byte == b'\n').count() + 1;
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
        let error = read_bytes(b"ok\nab\xffc".to_vec(), path).err();
        assert!(matches!(
            error,
            Some(InputError::NotUtf8 {
                line: 2,
                column: 3,
                ..
            })
        ));
        let error = read_bytes(b"a\n\nb\0".to_vec(), path).err();
        assert!(matches!(error, Some(InputError::Binary { line: 3, .. })));
        assert_eq!(
            read_bytes(b"fine".to_vec(), path).ok().as_deref(),
            Some("fine")
        );
        let message = read_input(Path::new("/nonexistent/x.md"))
            .err()
            .map(|e| e.to_string());
        assert!(message.is_some_and(|m| m.starts_with("/nonexistent/x.md: cannot read")));
    }
}
