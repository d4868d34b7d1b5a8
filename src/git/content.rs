//! Reading the contents of a change and streaming its lines.
//!
//! An added or deleted file needs no diff (every line is on one side), and a modified
//! file is diffed from its two contents directly ([`super::linediff`]). Reading contents
//! ourselves, instead of letting libgit2 build the patch, skips its per-path attribute
//! lookups and content hashing, which cost more than the diff itself on large changes.
//! It also means a `.gitattributes` entry such as `*.txt -diff` cannot hide content from
//! the content rules: a file is binary only when its bytes say so (a NUL in the first
//! 8000, as git decides). A symbolic link's content is its target, as in git's patches.
//! An object missing from the database (a partial or damaged clone) is an error that
//! says so, never an empty file.

use super::linediff::{diff_lines, lines};
use super::listing::{Entry, Side};
use super::{
    is_missing, ChangeVisitor, ChangedFile, DiffLine, GitError, LineSide, Repo, BINARY_SNIFF_LEN,
};
use git2::{Blob, Oid};
use std::collections::HashMap;
use std::ops::Deref;
use std::path::PathBuf;

/// One side's content: an object from the database, or a working-tree file.
pub(super) enum Content<'r> {
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

/// Contents read while pairing renames, kept for streaming so that no object is inflated
/// twice, up to [`KEPT_BYTES`] in all. Owned bytes, so that they can be handed to the
/// thread that streams a large change ([`super::pipeline`]).
#[derive(Default)]
pub(super) struct Kept {
    contents: HashMap<Oid, Vec<u8>>,
    bytes: usize,
}

/// The most content [`Kept`] holds: beyond it, an object is read again when streamed.
const KEPT_BYTES: usize = 32 << 20;

impl Kept {
    /// Keeps `content` if it is an object and the budget allows.
    pub(super) fn keep(&mut self, id: Oid, content: Content<'_>) {
        if let Content::Blob(blob) = content {
            let size = blob.content().len();
            if self.bytes + size <= KEPT_BYTES {
                self.bytes += size;
                self.contents.insert(id, blob.content().to_vec());
            }
        }
    }

    /// Which of `sides`, offered in this order with their sizes, [`Self::keep`] would
    /// keep: objects, while the budget allows.
    pub(super) fn plan<'s>(&self, sides: impl Iterator<Item = (&'s Side, u64)>) -> Vec<bool> {
        let mut bytes = self.bytes;
        sides
            .map(|(side, size)| {
                let size = usize::try_from(size).unwrap_or(usize::MAX);
                let fits = !side.in_worktree && bytes.saturating_add(size) <= KEPT_BYTES;
                if fits {
                    bytes += size;
                }
                fits
            })
            .collect()
    }

    /// Keeps object `id`'s content, read elsewhere, as [`Self::plan`] decided.
    pub(super) fn keep_read(&mut self, id: Oid, content: Vec<u8>) {
        self.bytes += content.len();
        self.contents.insert(id, content);
    }

    /// Moves out what is kept of `entry`'s two sides, for the thread that streams it.
    pub(super) fn take_entry(&mut self, entry: &Entry) -> Kept {
        let mut own = Kept::default();
        for side in [&entry.old, &entry.new].into_iter().flatten() {
            if let Some(Content::File(bytes)) = self.take(side) {
                own.bytes += bytes.len();
                own.contents.insert(side.id, bytes);
            }
        }
        own
    }

    /// Hands out a kept object once.
    fn take(&mut self, side: &Side) -> Option<Content<'static>> {
        if side.in_worktree {
            return None;
        }
        self.contents.remove(&side.id).map(Content::File)
    }
}

/// Contents the one-thread stream read of the files its visitor reads again by path
/// ([`ChangeVisitor::reads_again`]), up to [`READ_AGAIN_BYTES`] in all: each object's
/// content by its id, and the object each path of the change's two commits holds, as the
/// stream listed them. Only objects: a working-tree file is read from the disk again.
#[derive(Default)]
pub(super) struct ReadAgain {
    contents: HashMap<Oid, Vec<u8>>,
    paths: HashMap<(Oid, Vec<u8>), Oid>,
    bytes: usize,
    /// The base commit and the head commit (none for the working tree) of the change
    /// being streamed.
    commits: Option<(Oid, Option<Oid>)>,
}

/// The most content [`ReadAgain`] holds: beyond it, a file is inflated again when read.
const READ_AGAIN_BYTES: usize = 8 << 20;

impl ReadAgain {
    /// The change from `base` to `head` (`None`: the working tree) is about to be streamed.
    pub(super) fn streaming(&mut self, base: Oid, head: Option<Oid>) {
        self.commits = Some((base, head));
    }

    /// Keeps the content of `side`, the old side (`old`) or the new one of an entry of the
    /// change being streamed, when it is an object of a commit and the budget allows.
    fn keep(&mut self, side: &Side, old: bool, content: &[u8]) {
        let Some((base, head)) = self.commits else {
            return;
        };
        let commit = if old { Some(base) } else { head };
        let Some(commit) = commit.filter(|_| !side.in_worktree && !side.id.is_zero()) else {
            return;
        };
        if !self.contents.contains_key(&side.id) {
            if self.bytes + content.len() > READ_AGAIN_BYTES {
                return;
            }
            self.bytes += content.len();
            self.contents.insert(side.id, content.to_vec());
        }
        self.paths.insert((commit, side.path.clone()), side.id);
    }

    /// The content kept of `path` at `commit`, if the stream kept it.
    pub(super) fn content_at(&self, commit: Oid, path: &[u8]) -> Option<&[u8]> {
        let id = self.paths.get(&(commit, path.to_vec()))?;
        self.contents.get(id).map(Vec::as_slice)
    }
}

impl Repo {
    /// Describes one entry and streams its lines to `visitor` if it asks for them.
    pub(super) fn stream_entry(
        &self,
        entry: &Entry,
        kept: &mut Kept,
        visitor: &mut dyn ChangeVisitor,
    ) -> Result<Option<ChangedFile>, GitError> {
        let submodule = [&entry.old, &entry.new]
            .into_iter()
            .flatten()
            .any(Side::is_gitlink);
        if submodule {
            let file = changed_file(entry, false, true);
            if let Some(file) = &file {
                visitor.file(file);
            }
            return Ok(file);
        }
        let mut read = |side: &Side| match kept.take(side) {
            Some(content) => Ok(content),
            None => self.read_side(side),
        };
        let old = entry.old.as_ref().map(&mut read).transpose()?;
        let new = entry.new.as_ref().map(&mut read).transpose()?;
        let binary = old.as_deref().is_some_and(is_binary) || new.as_deref().is_some_and(is_binary);
        let Some(file) = changed_file(entry, binary, false) else {
            return Ok(None);
        };
        let accepted = visitor.file(&file);
        if let (Some(needle), Some(old)) = (visitor.old_side_needle(), old.as_deref()) {
            visitor.old_side_holds(&file, memchr::memmem::find(old, needle).is_some());
        }
        if !accepted {
            return Ok(Some(file));
        }
        if binary {
            // What a binary file holds as text (a UTF-16 file, a key after a NUL byte) is
            // still read: its new side, whole, as added lines.
            if let Some(new) = new {
                stream_whole(&file, &binary_text(&new), LineSide::Added, visitor);
            }
            return Ok(Some(file));
        }
        let old = old.filter(|_| !visitor.whole(&file));
        match (&old, &new) {
            (None, Some(new)) => stream_whole(&file, new, LineSide::Added, visitor),
            (Some(old), None) => stream_whole(&file, old, LineSide::Removed, visitor),
            (Some(old), Some(new)) => diff_lines(old, new, |side, index, line| {
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
        if visitor.reads_again(&file) {
            let mut read_again = self.read_again.borrow_mut();
            let sides = [(&entry.old, old, true), (&entry.new, new, false)];
            for (side, content, is_old) in sides {
                if let (Some(side), Some(content)) = (side, content) {
                    read_again.keep(side, is_old, &content);
                }
            }
        }
        Ok(Some(file))
    }

    /// The content of one side: the working tree's file (a link's target), or the object.
    pub(super) fn read_side(&self, side: &Side) -> Result<Content<'_>, GitError> {
        if side.in_worktree {
            let full = self.worktree_path(side)?;
            let read = if side.is_link() {
                std::fs::read_link(&full).map(|target| link_bytes(&target))
            } else {
                std::fs::read(&full)
            };
            return read
                .map(Content::File)
                .map_err(|error| super::read_error(&full, &error));
        }
        self.inner
            .find_blob(side.id)
            .map(Content::Blob)
            .map_err(|error| missing_or(error, side, "reading"))
    }

    /// The size of one side's content, without reading it when git knows it.
    pub(super) fn side_size(&self, side: &Side) -> Result<u64, GitError> {
        if side.in_worktree {
            let full = self.worktree_path(side)?;
            return std::fs::symlink_metadata(&full)
                .map(|metadata| metadata.len())
                .map_err(|error| super::read_error(&full, &error));
        }
        let odb = self
            .inner
            .odb()
            .map_err(GitError::git("opening the object database"))?;
        odb.read_header(side.id)
            .map(|(size, _)| size as u64)
            .map_err(|error| missing_or(error, side, "sizing"))
    }

    fn worktree_path(&self, side: &Side) -> Result<PathBuf, GitError> {
        let Some(root) = self.inner.workdir() else {
            return Err(GitError::BareWorkTree {
                path: self.inner.path().to_path_buf(),
            });
        };
        Ok(root.join(super::path_of(&side.path)))
    }
}

/// The owned description of an entry.
fn changed_file(entry: &Entry, binary: bool, submodule: bool) -> Option<ChangedFile> {
    let path = |side: &Side| super::RepoPath::from_bytes(side.path.clone());
    let (path, old_path) = match (entry.status, &entry.old, &entry.new) {
        (super::ChangeStatus::Deleted, Some(old), _) => (path(old), None),
        (super::ChangeStatus::Renamed | super::ChangeStatus::Copied, Some(old), Some(new)) => {
            (path(new), Some(path(old)))
        }
        (_, _, Some(new)) => (path(new), None),
        (_, Some(old), None) => (path(old), None),
        (_, None, None) => return None,
    };
    Some(ChangedFile {
        path,
        old_path,
        status: entry.status,
        binary,
        submodule,
    })
}

fn missing_or(error: git2::Error, side: &Side, doing: &str) -> GitError {
    if is_missing(&error) {
        GitError::MissingObject {
            id: side.id.to_string(),
            path: side.display_path(),
        }
    } else {
        GitError::git(format!("{doing} {}", side.display_path()))(error)
    }
}

#[cfg(unix)]
pub(super) fn link_bytes(target: &std::path::Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    target.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
pub(super) fn link_bytes(target: &std::path::Path) -> Vec<u8> {
    target.to_string_lossy().replace('\\', "/").into_bytes()
}

/// Git's test for binary content: a NUL byte among the first 8000.
pub(super) fn is_binary(content: &[u8]) -> bool {
    let end = content.len().min(BINARY_SNIFF_LEN as usize);
    memchr::memchr(0, &content[..end]).is_some()
}

/// The text a binary file holds: UTF-16 (by its byte-order mark, or by a NUL beside
/// every other byte) decoded to UTF-8; otherwise the bytes with every control byte but
/// the tab a line break, so each run of text between NULs is a line of its own.
pub(super) fn binary_text(content: &[u8]) -> Vec<u8> {
    let utf16 = |little: bool, body: &[u8]| {
        let units = body.chunks_exact(2).map(|pair| match little {
            true => u16::from_le_bytes([pair[0], pair[1]]),
            false => u16::from_be_bytes([pair[0], pair[1]]),
        });
        char::decode_utf16(units)
            .map(|unit| unit.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect::<String>()
            .into_bytes()
    };
    let sniff = &content[..content.len().min(BINARY_SNIFF_LEN as usize)];
    let zeros_at = |parity: usize| {
        sniff
            .iter()
            .skip(parity)
            .step_by(2)
            .filter(|byte| **byte == 0)
            .count()
    };
    let half = sniff.len() / 2;
    match content {
        [0xFF, 0xFE, body @ ..] => utf16(true, body),
        [0xFE, 0xFF, body @ ..] => utf16(false, body),
        _ if half > 0 && zeros_at(1) * 10 >= half * 9 => utf16(true, content),
        _ if half > 0 && zeros_at(0) * 10 >= half * 9 => utf16(false, content),
        _ => content
            .iter()
            .map(|&byte| match byte {
                b'\t' => byte,
                0..=0x1F | 0x7F => b'\n',
                _ => byte,
            })
            .collect(),
    }
}

/// Streams every line of a file that exists on one side only.
pub(super) fn stream_whole(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_again_keeps_only_objects_of_the_streamed_commits_within_its_budget() {
        let id = |byte: u8| Oid::from_bytes(&[byte; 20]).expect("an object id");
        let side = |path: &str, byte: u8, in_worktree: bool| Side {
            path: path.as_bytes().to_vec(),
            id: id(byte),
            mode: 0o100644,
            in_worktree,
        };
        let (base, head) = (id(1), id(2));
        let mut kept = ReadAgain::default();
        // Before a change is streamed, no side has a commit.
        kept.keep(&side("a", 3, false), false, b"new a");
        assert_eq!(kept.content_at(head, b"a"), None);
        kept.streaming(base, Some(head));
        kept.keep(&side("a", 3, false), false, b"new a");
        kept.keep(&side("a", 4, false), true, b"old a");
        assert_eq!(kept.content_at(head, b"a"), Some(&b"new a"[..]));
        assert_eq!(kept.content_at(base, b"a"), Some(&b"old a"[..]));
        // A working-tree file, and whatever is over the budget, are read again.
        kept.keep(&side("w", 5, true), false, b"w");
        assert_eq!(kept.content_at(head, b"w"), None);
        kept.keep(&side("big", 6, false), true, &vec![b'x'; READ_AGAIN_BYTES]);
        assert_eq!(kept.content_at(base, b"big"), None);
        // The working tree as head: its new sides have no commit.
        kept.streaming(base, None);
        kept.keep(&side("n", 7, false), false, b"n");
        assert!(kept.paths.keys().all(|(_, path)| path != b"n"));
    }

    #[test]
    fn binary_text_decodes_utf16_and_splits_at_control_bytes() {
        let utf16le: Vec<u8> = "\u{FEFF}key = AKIA1234\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(binary_text(&utf16le), "key = AKIA1234\n".as_bytes());
        let bare: Vec<u8> = "AKIA".encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(binary_text(&bare), b"AKIA");
        assert_eq!(
            binary_text(b"\x00\x01sk_live_x\x00tail"),
            b"\n\nsk_live_x\ntail"
        );
    }
}
