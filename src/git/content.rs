//! Streaming one delta's lines: from whole contents where possible, else from libgit2.
//!
//! An added or deleted file needs no diff (every line is on one side), and a modified
//! file is diffed from its two contents directly ([`super::linediff`]). Reading contents
//! ourselves, instead of letting libgit2 build the patch from the delta, skips its
//! per-path attribute lookups and content hashing, which cost more than the diff itself
//! on large changes. It also means a `.gitattributes` entry such as `*.txt -diff` cannot
//! hide content from the content rules: a file is binary only when its bytes say so (a
//! NUL in the first 8000, as git decides). Symlinks and objects missing from the database
//! fall back to libgit2's patch, which reports a missing object as an error.

use super::linediff::{diff_lines, lines};
use super::{ChangeVisitor, ChangedFile, DiffLine, GitError, LineSide, Repo, BINARY_SNIFF_LEN};
use git2::{Blob, DiffDelta, DiffFile, FileMode};
use std::ops::Deref;

/// One side of a delta.
enum Side<'r> {
    /// The file does not exist on this side (an addition's old side).
    Absent,
    /// The file's content.
    Present(Content<'r>),
    /// Not readable directly (a symlink, a missing object): libgit2 must diff it.
    Indirect,
}

/// One side's content: an object from the database, or a working-tree file.
enum Content<'r> {
    Blob(Blob<'r>),
    File(Vec<u8>),
}

impl Deref for Content<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Content::Blob(blob) => blob.content(),
            Content::File(bytes) => bytes,
        }
    }
}

impl Repo {
    /// Describes one delta and streams its lines to `visitor` if it asks for them.
    pub(super) fn stream_delta(
        &self,
        diff: &git2::Diff<'_>,
        index: usize,
        delta: &DiffDelta<'_>,
        visitor: &mut dyn ChangeVisitor,
    ) -> Result<Option<ChangedFile>, GitError> {
        if super::is_submodule(delta) {
            let file = self.changed_file(delta, Some(false))?;
            if let Some(file) = &file {
                visitor.file(file);
            }
            return Ok(file);
        }
        let (old, new) = match (self.side(&delta.old_file())?, self.side(&delta.new_file())?) {
            (Side::Indirect, _) | (_, Side::Indirect) => {
                return self.stream_libgit2_patch(diff, index, delta, visitor);
            }
            (Side::Present(old), Side::Present(new)) => (Some(old), Some(new)),
            (Side::Present(old), Side::Absent) => (Some(old), None),
            (Side::Absent, Side::Present(new)) => (None, Some(new)),
            (Side::Absent, Side::Absent) => (None, None),
        };
        let binary = old.as_deref().is_some_and(is_binary) || new.as_deref().is_some_and(is_binary);
        let Some(file) = self.changed_file(delta, Some(binary))? else {
            return Ok(None);
        };
        if !visitor.file(&file) || binary {
            return Ok(Some(file));
        }
        match (old, new) {
            (None, Some(new)) => stream_whole(&file, &new, LineSide::Added, visitor),
            (Some(old), None) => stream_whole(&file, &old, LineSide::Removed, visitor),
            (Some(old), Some(new)) => diff_lines(&old, &new, |side, index, line| {
                let content = line.strip_suffix(b"\r").unwrap_or(line);
                let number = index + 1;
                visitor.line(
                    &file,
                    DiffLine {
                        side,
                        number,
                        content,
                    },
                );
            }),
            (None, None) => {}
        }
        Ok(Some(file))
    }

    /// Reads one side of a delta: from the object database when git knows its id, else
    /// from the working tree.
    fn side(&self, file: &DiffFile<'_>) -> Result<Side<'_>, GitError> {
        if !file.exists() {
            return Ok(Side::Absent);
        }
        if file.mode() == FileMode::Link {
            return Ok(Side::Indirect);
        }
        if !file.id().is_zero() {
            return Ok(match self.inner.find_blob(file.id()) {
                Ok(blob) => Side::Present(Content::Blob(blob)),
                Err(_) => Side::Indirect,
            });
        }
        let (Some(root), Some(path)) = (self.inner.workdir(), file.path()) else {
            return Ok(Side::Indirect);
        };
        let full = root.join(path);
        match std::fs::read(&full) {
            Ok(bytes) => Ok(Side::Present(Content::File(bytes))),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Side::Indirect),
            Err(error) => Err(super::read_error(&full, &error)),
        }
    }

    /// Lets libgit2 build the patch from the delta, for what [`Self::side`] cannot read.
    fn stream_libgit2_patch(
        &self,
        diff: &git2::Diff<'_>,
        index: usize,
        delta: &DiffDelta<'_>,
        visitor: &mut dyn ChangeVisitor,
    ) -> Result<Option<ChangedFile>, GitError> {
        let patch = git2::Patch::from_diff(diff, index).map_err(|error| {
            let path = delta
                .new_file()
                .path_bytes()
                .or(delta.old_file().path_bytes());
            let path = String::from_utf8_lossy(path.unwrap_or_default()).into_owned();
            GitError::git(format!("diffing {path}"))(error)
        })?;
        let binary = patch
            .as_ref()
            .map(|patch| patch.delta().flags().contains(git2::DiffFlags::BINARY));
        let Some(file) = self.changed_file(delta, binary)? else {
            return Ok(None);
        };
        if let Some(patch) = patch.filter(|_| visitor.file(&file) && !file.binary) {
            stream_patch(&patch, &file, visitor)?;
        }
        Ok(Some(file))
    }
}

/// Git's test for binary content: a NUL byte among the first 8000.
pub(super) fn is_binary(content: &[u8]) -> bool {
    let end = content.len().min(BINARY_SNIFF_LEN as usize);
    memchr::memchr(0, &content[..end]).is_some()
}

/// Streams every line of a file that exists on one side only.
fn stream_whole(
    file: &ChangedFile,
    content: &[u8],
    side: LineSide,
    visitor: &mut dyn ChangeVisitor,
) {
    for (index, line) in lines(content).enumerate() {
        let content = line.strip_suffix(b"\r").unwrap_or(line);
        visitor.line(
            file,
            DiffLine {
                side,
                number: index + 1,
                content,
            },
        );
    }
}

/// Hands the added and removed lines of one file's patch to the visitor.
fn stream_patch(
    patch: &git2::Patch<'_>,
    file: &ChangedFile,
    visitor: &mut dyn ChangeVisitor,
) -> Result<(), GitError> {
    let doing = || format!("diffing {}", file.path);
    for hunk in 0..patch.num_hunks() {
        let count = patch
            .num_lines_in_hunk(hunk)
            .map_err(|error| GitError::git(doing())(error))?;
        for line_index in 0..count {
            let line = patch
                .line_in_hunk(hunk, line_index)
                .map_err(|error| GitError::git(doing())(error))?;
            let (side, number) = match line.origin() {
                '+' => (LineSide::Added, line.new_lineno()),
                '-' => (LineSide::Removed, line.old_lineno()),
                _ => continue,
            };
            let Some(number) = number else { continue };
            let content = strip_line_end(line.content());
            visitor.line(
                file,
                DiffLine {
                    side,
                    number: number as usize,
                    content,
                },
            );
        }
    }
    Ok(())
}

fn strip_line_end(content: &[u8]) -> &[u8] {
    let content = content.strip_suffix(b"\n").unwrap_or(content);
    content.strip_suffix(b"\r").unwrap_or(content)
}
