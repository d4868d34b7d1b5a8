//! Why reading a change from git failed, in words that say what to do next.

use std::path::PathBuf;

/// An error reading a repository, a revision or a diff.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The directory is not inside a git repository.
    #[error(
        "{path}: not a git repository (nor any parent directory): {message}; run it inside \
         a repository, or pass --repo DIR"
    )]
    NotARepository {
        /// The directory that was searched.
        path: PathBuf,
        /// libgit2's explanation.
        message: String,
    },
    /// A revision does not name a commit in this repository.
    #[error("unknown revision `{rev}`: {message}; check the name, or `git fetch` it first")]
    UnknownRevision {
        /// The revision as the user gave it.
        rev: String,
        /// libgit2's explanation.
        message: String,
    },
    /// The base is not in a shallow clone, typically a CI checkout with depth 1.
    #[error(
        "base `{rev}` is not available: this is a shallow clone that lacks the history; \
         fetch more history (`git fetch --unshallow`, or `fetch-depth: 0` in \
         actions/checkout) and run again"
    )]
    ShallowMissingBase {
        /// The base as the user gave it.
        rev: String,
    },
    /// Base and head share no history.
    #[error("`{base}` and `{head}` have no common ancestor; pass an explicit --base REV")]
    NoMergeBase {
        /// The branch given as base.
        base: String,
        /// The head it was compared with.
        head: String,
    },
    /// The head is the working tree but the repository has none.
    #[error("{path} is a bare repository with no working tree; pass --head REV")]
    BareWorkTree {
        /// The repository's git directory.
        path: PathBuf,
    },
    /// No default branch could be found to compute a merge base with.
    #[error(
        "cannot find the default branch (looked for origin/HEAD, init.defaultBranch, main, \
         master); pass --base REV"
    )]
    NoDefaultBranch,
    /// The repository's index (git's staging area) could not be read.
    #[error(
        "cannot read {path}: {message}; `git status` shows whether git can read it, and \
         `git reset` after removing the file rebuilds it from HEAD (working files are kept; \
         staged changes become unstaged)"
    )]
    IndexUnreadable {
        /// The index file.
        path: PathBuf,
        /// libgit2's explanation.
        message: String,
    },
    /// A file in the working tree could not be read.
    #[error("cannot read {path}: {message}")]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// The operating system's explanation.
        message: String,
    },
    /// A path that should hold a file holds a directory or a submodule at that revision.
    #[error("{path} at {rev} is a {found}, not a file; a file was expected there")]
    NotAFile {
        /// The path inside the repository.
        path: String,
        /// The revision it was read at.
        rev: String,
        /// What is there instead (`directory`, `submodule`).
        found: &'static str,
    },
    /// An object the change needs is not in the repository: a partial clone (a blob
    /// filter), a shallow clone cut above it, or a damaged repository.
    #[error(
        "object {id} ({path}) is missing from the repository: it is a partial or shallow \
         clone, or a damaged one; fetch the objects (`git fetch --unshallow`, or \
         `fetch-depth: 0` and no `filter` in actions/checkout) and run again"
    )]
    MissingObject {
        /// The object's id.
        id: String,
        /// What it is: the path it holds, or which tree.
        path: String,
    },
    /// A path of the change lies deeper than [`MAX_DIRECTORY_DEPTH`](super::MAX_DIRECTORY_DEPTH)
    /// directories: refused before the tree below it is read, since each level costs
    /// stack.
    #[error(
        "{path}: a path of the change lies more than {limit} directories deep (shown \
         shortened); handoff does not read trees that deep; move its files to a shallower \
         path, or leave them out of the change, and run again"
    )]
    PathTooDeep {
        /// The directory past the limit, shortened to its first and last components.
        path: String,
        /// The limit, [`MAX_DIRECTORY_DEPTH`](super::MAX_DIRECTORY_DEPTH).
        limit: usize,
    },
    /// Any other failure inside git, with what was being done.
    #[error("git failed while {doing}: {message}")]
    Git {
        /// What was being done, e.g. "computing the diff".
        doing: String,
        /// libgit2's explanation.
        message: String,
    },
}

impl GitError {
    /// Wraps a libgit2 error with what was being done when it happened.
    pub(crate) fn git(doing: impl Into<String>) -> impl FnOnce(git2::Error) -> GitError {
        let doing = doing.into();
        move |error| GitError::Git {
            doing,
            message: error.message().to_string(),
        }
    }
}
