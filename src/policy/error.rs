//! Errors in a policy file, located at the line and column of the value at fault.

use super::{PolicySource, MAX_POLICY_BYTES, POLICY_FILE};
use crate::git::GitError;
use crate::io::utf8_error_position;
use std::path::PathBuf;

/// The longest parser message quoted in an error; the rest is elided.
const MAX_MESSAGE_CHARS: usize = 300;

/// Why a policy could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// The file is wrong at a known place.
    #[error("{file}:{line}:{column}: {message}{}", at_base(at))]
    Invalid {
        /// The policy file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// The 1-based column.
        column: usize,
        /// What is wrong and how to fix it.
        message: String,
        /// The base revision it was read from, when it was.
        at: Option<String>,
    },
    /// The file is wrong as a whole.
    #[error("{file}: {message}{}", at_base(at))]
    InvalidFile {
        /// The policy file.
        file: String,
        /// What is wrong.
        message: String,
        /// The base revision it was read from, when it was.
        at: Option<String>,
    },
    /// The `--policy` file cannot be read.
    #[error("{}: cannot read the policy file: {message}; pass --policy the path of a YAML policy file, or leave it out to read `.handoff.yaml` from the base revision", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The operating system's explanation.
        message: String,
    },
    /// The base revision cannot be read.
    #[error(transparent)]
    Git(#[from] GitError),
}

pub(super) fn at_base(at: &Option<String>) -> String {
    match at {
        Some(rev) => format!(" (policy as committed in the base revision {})", short(rev)),
        None => String::new(),
    }
}

pub(super) fn short(rev: &str) -> &str {
    rev.get(..12).unwrap_or(rev)
}

pub(super) fn too_large(source: &PolicySource, size: u64) -> PolicyError {
    ErrorContext::of(source).whole(format!(
        "too large ({size} bytes); a policy file is at most {MAX_POLICY_BYTES} bytes (1 MiB)"
    ))
}

/// `message` cut to about [`MAX_MESSAGE_CHARS`] characters, keeping its start and its
/// end (where the parser says what it expected): a parser may quote a whole value.
fn elide(message: String) -> String {
    let chars: Vec<char> = message.chars().collect();
    if chars.len() <= MAX_MESSAGE_CHARS {
        return message;
    }
    let head: String = chars[..MAX_MESSAGE_CHARS / 2].iter().collect();
    let tail: String = chars[chars.len() - MAX_MESSAGE_CHARS / 4..]
        .iter()
        .collect();
    format!("{head}…{tail}")
}

/// The deepest nesting of flow collections (`[…]`, `{…}`) a policy file may have. The
/// YAML parser's cost grows with the square of that depth (100,000 levels, 200 KB, took
/// minutes), and no policy needs more than three or four.
pub const MAX_FLOW_DEPTH: usize = 64;

/// Where the text first opens a flow collection deeper than [`MAX_FLOW_DEPTH`]:
/// `(line, column)`, 1-based. One pass. Brackets in a quoted scalar or a comment do not
/// count; a quote opens one only where a scalar starts (after `[`, `{`, `,`, `:`, `-`,
/// `?` or at the start of a line), as in YAML, so a quote inside a word hides nothing.
/// A plain scalar's brackets (a glob's `[abc]`) close again and never add up.
fn too_deep(text: &str) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    for (index, line) in text.lines().enumerate() {
        let mut quote: Option<char> = None;
        let mut escaped = false;
        let mut previous = ' ';
        let mut significant: Option<char> = None;
        for (column, c) in line.chars().enumerate() {
            match (quote, c) {
                (Some('"'), '\\') if !escaped => {
                    escaped = true;
                    continue;
                }
                (Some(open), _) if c == open && !escaped => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') if significant.is_none_or(|s| "[{,:-?".contains(s)) => {
                    quote = Some(c)
                }
                (None, '#') if previous.is_whitespace() => break,
                (None, '[' | '{') => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Some((index + 1, column + 1));
                    }
                }
                (None, ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            escaped = false;
            previous = c;
            if !c.is_whitespace() {
                significant = Some(c);
            }
        }
    }
    None
}

/// Names the policy file in errors.
pub(super) struct ErrorContext {
    file: String,
    at: Option<String>,
}

impl ErrorContext {
    /// Reads YAML text into `T`, errors located at the value's line and column: the one
    /// loader of `.handoff.yaml` and of the built-in defaults. An empty file is `None`.
    pub(super) fn read_yaml<T: serde::de::DeserializeOwned>(
        &self,
        text: &str,
    ) -> Result<Option<T>, PolicyError> {
        if let Some((line, column)) = too_deep(text) {
            return Err(PolicyError::Invalid {
                file: self.file.clone(),
                line,
                column,
                message: format!(
                    "nested deeper than {MAX_FLOW_DEPTH} brackets (`[` or `{{`); a policy \
                     needs a few: write each list as `[a, b]` or as `- a` lines"
                ),
                at: self.at.clone(),
            });
        }
        yaml_serde::from_str(text).map_err(|error| self.yaml(&error))
    }

    /// Errors naming `file` (not read from a revision).
    pub(super) fn named(file: &str) -> ErrorContext {
        ErrorContext {
            file: file.to_string(),
            at: None,
        }
    }

    pub(super) fn of(source: &PolicySource) -> ErrorContext {
        let (file, at) = match source {
            PolicySource::File { path } => (path.display().to_string(), None),
            PolicySource::Base { rev } => (POLICY_FILE.to_string(), Some(rev.clone())),
            PolicySource::Defaults => (POLICY_FILE.to_string(), None),
        };
        ErrorContext { file, at }
    }

    /// Invalid UTF-8, located at the line and column of the first bad byte.
    pub(super) fn not_utf8(&self, bytes: &[u8], error: &std::str::Utf8Error) -> PolicyError {
        let (line, column) = utf8_error_position(bytes, *error);
        PolicyError::Invalid {
            file: self.file.clone(),
            line,
            column,
            message: "not UTF-8 (the first invalid byte is here); save the file as UTF-8"
                .to_string(),
            at: self.at.clone(),
        }
    }

    pub(super) fn whole(&self, message: String) -> PolicyError {
        PolicyError::InvalidFile {
            file: self.file.clone(),
            message,
            at: self.at.clone(),
        }
    }

    fn yaml(&self, error: &yaml_serde::Error) -> PolicyError {
        // serde names the Rust type; a user needs the shape of the file.
        let message = elide(error.to_string()).replace(
            "struct PolicyFile",
            "a mapping of policy keys (records_dir:, exclude:, triggers:, …)",
        );
        let Some(location) = error.location() else {
            return self.whole(message);
        };
        // The parser appends "at line L column C"; the location is reported up front.
        let message = match message.rfind(" at line ") {
            Some(index) => message[..index].to_string(),
            None => message,
        };
        PolicyError::Invalid {
            file: self.file.clone(),
            line: location.line(),
            column: location.column(),
            message,
            at: self.at.clone(),
        }
    }

    /// An error located at the first line of `text` that mentions `needle`.
    pub(super) fn at_text(&self, text: &str, needle: &str, message: String) -> PolicyError {
        let found = text
            .lines()
            .enumerate()
            .find_map(|(index, line)| line.find(needle).map(|column| (index + 1, column + 1)));
        match found {
            Some((line, column)) => PolicyError::Invalid {
                file: self.file.clone(),
                line,
                column,
                message,
                at: self.at.clone(),
            },
            None => self.whole(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_flow_nesting_is_refused_at_its_place() {
        let deep = format!("exclude: {}x{}\n", "[".repeat(65), "]".repeat(65));
        assert_eq!(too_deep(&deep), Some((1, 10 + 64)));
        let fine = format!("exclude: {}x{}\n", "[".repeat(64), "]".repeat(64));
        assert_eq!(too_deep(&fine), None);
        // Quoted, commented, or a glob's class: none of it nests.
        let quoted = format!(
            "a: '{0}'\nb: \"\\\"{0}\"\nc: x # {0}\nd: [\"src/[ab]*.rs\", it's]\n",
            "[".repeat(100)
        );
        assert_eq!(too_deep(&quoted), None);
        // A quote inside a word opens nothing, so it hides no bracket.
        let hidden = format!("exclude: [x', {}\n", "[".repeat(100));
        assert!(too_deep(&hidden).is_some());
    }
}
