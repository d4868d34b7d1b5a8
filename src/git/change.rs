//! The owned description of a change: which files it touched and how.
//!
//! These types are what the rest of the crate sees of git. They own their data, carry no
//! git2 lifetimes, and keep paths as bytes so that a non-UTF-8 file name is reported
//! instead of dropped.

use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// The marker [`ChangeSet::head`] holds when the head is the working tree.
pub const WORKTREE: &str = "WORKTREE";

/// A path inside a repository, relative to its root, `/`-separated, as raw bytes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RepoPath(Vec<u8>);

impl RepoPath {
    /// Wraps the raw bytes of a repository path.
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> RepoPath {
        RepoPath(bytes.into())
    }

    /// The raw bytes of the path.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The path as text, when it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// The path as text, with invalid UTF-8 replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }

    /// Whether the path is `dir` itself or lies below it (`dir` without a trailing `/`).
    pub fn is_under(&self, dir: &str) -> bool {
        let dir = dir.trim_end_matches('/').as_bytes();
        !dir.is_empty()
            && self.0.starts_with(dir)
            && (self.0.len() == dir.len() || self.0[dir.len()] == b'/')
    }
}

impl From<&str> for RepoPath {
    fn from(text: &str) -> RepoPath {
        RepoPath(text.as_bytes().to_vec())
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

impl Serialize for RepoPath {
    /// Serialized as text; invalid UTF-8 becomes U+FFFD.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string_lossy())
    }
}

/// How a file changed between base and head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeStatus {
    /// The file exists only in the head (untracked files included).
    Added,
    /// The file's content or mode changed.
    Modified,
    /// The file exists only in the base.
    Deleted,
    /// The file moved from `old_path`, perhaps with edits.
    Renamed,
    /// The file was copied from `old_path`, perhaps with edits.
    Copied,
    /// The entry changed kind (file, symlink, submodule).
    TypeChange,
}

impl ChangeStatus {
    /// The lower-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeStatus::Added => "added",
            ChangeStatus::Modified => "modified",
            ChangeStatus::Deleted => "deleted",
            ChangeStatus::Renamed => "renamed",
            ChangeStatus::Copied => "copied",
            ChangeStatus::TypeChange => "type-change",
        }
    }
}

impl fmt::Display for ChangeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedFile {
    /// The path in the head (for a deletion: the path that was deleted).
    pub path: RepoPath,
    /// The source path of a rename or copy.
    pub old_path: Option<RepoPath>,
    /// How the file changed.
    pub status: ChangeStatus,
    /// Whether git considers either side binary (no line diff is produced).
    pub binary: bool,
    /// Whether the entry is a submodule pointer (a gitlink).
    pub submodule: bool,
}

impl ChangedFile {
    /// Every path the change touches: the path, and the source of a rename.
    ///
    /// The source of a copy is only read, so it is not touched.
    pub fn touched_paths(&self) -> impl Iterator<Item = &RepoPath> {
        let old = match self.status {
            ChangeStatus::Renamed => self.old_path.as_ref(),
            _ => None,
        };
        std::iter::once(&self.path).chain(old)
    }
}

/// The files a change touched between two revisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeSet {
    /// The resolved object id of the base commit.
    pub base: String,
    /// The resolved object id of the head commit, or [`WORKTREE`].
    pub head: String,
    /// The changed files, in git's diff order (by path; a rename at its new path).
    pub files: Vec<ChangedFile>,
    /// Set when the similarity search for renames was skipped (too many candidates);
    /// exact renames were still found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename_search_skipped: Option<super::RenameLimitExceeded>,
}

/// Which side of the diff a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineSide {
    /// The line exists only in the head.
    Added,
    /// The line exists only in the base.
    Removed,
}

/// One added or removed line, borrowed from the diff while it streams past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffLine<'a> {
    /// Added or removed.
    pub side: LineSide,
    /// The 1-based line number in the head (added) or in the base (removed).
    pub number: usize,
    /// The line's bytes, without its line terminator.
    pub content: &'a [u8],
}

impl DiffLine<'_> {
    /// The line as text, with invalid UTF-8 replaced by U+FFFD.
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_path_is_under_a_directory_only_at_a_separator() {
        let path = RepoPath::from(".handoff/tasks/a.md");
        assert!(path.is_under(".handoff"));
        assert!(path.is_under(".handoff/"));
        assert!(!RepoPath::from(".handoffs/a.md").is_under(".handoff"));
        assert!(!path.is_under(""));
    }

    #[test]
    fn non_utf8_paths_keep_their_bytes() {
        let path = RepoPath::from_bytes(b"caf\xe9.txt".to_vec());
        assert_eq!(path.as_str(), None);
        assert_eq!(path.to_string_lossy(), "caf\u{fffd}.txt");
        assert_eq!(path.as_bytes(), b"caf\xe9.txt");
    }

    #[test]
    fn a_rename_touches_both_paths_and_a_copy_only_its_target() {
        let mut file = ChangedFile {
            path: RepoPath::from("new.rs"),
            old_path: Some(RepoPath::from("old.rs")),
            status: ChangeStatus::Renamed,
            binary: false,
            submodule: false,
        };
        assert_eq!(file.touched_paths().count(), 2);
        file.status = ChangeStatus::Copied;
        assert_eq!(file.touched_paths().count(), 1);
    }
}
