//! Listing a change: the paths that differ between the base tree and the head, before
//! renames are paired.
//!
//! Between two commits the trees are walked side by side, the way `git diff-tree` walks
//! them: a subtree whose object id is the same on both sides is skipped without being
//! read, so a change of three files in a repository of fifty thousand reads the trees
//! along three paths, not every tree of both commits (libgit2's tree-to-tree diff reads
//! them all). Against the working tree, libgit2 compares the base tree, the index and the
//! files on disk, as `git status` does.

use super::{is_missing, ChangeStatus, GitError, Repo};
use git2::{Oid, Tree};
use std::cmp::Ordering;

/// The deepest directory a change's walk descends into: a path of the change with more
/// directories above its file than this is refused ([`GitError::PathTooDeep`]) before the
/// tree below it is read.
///
/// The walks recurse once per directory level (about 2.4 KB of stack a level in a debug
/// build, less in a release one), on whichever thread asks for the change. 512 levels take
/// about 1.2 MB there, within the 2 MiB stack Rust gives a spawned thread, the smallest a
/// caller is likely to run on (the main thread has 8 MiB); git's own `core.maxTreeDepth`
/// (4,096) would not fit. No real repository comes near: a path that deep is at least
/// 1,024 bytes long.
pub const MAX_DIRECTORY_DEPTH: usize = 512;

/// Refuses to descend into `directory` (a path without its trailing `/`) when it lies
/// deeper than [`MAX_DIRECTORY_DEPTH`].
pub(super) fn check_depth(directory: &[u8]) -> Result<(), GitError> {
    let depth = directory.iter().filter(|&&byte| byte == b'/').count() + 1;
    if depth <= MAX_DIRECTORY_DEPTH {
        return Ok(());
    }
    Err(GitError::PathTooDeep {
        path: shortened(directory),
        limit: MAX_DIRECTORY_DEPTH,
    })
}

/// Refuses the change when a path of it, whichever walk listed it, has more directories
/// than [`MAX_DIRECTORY_DEPTH`].
pub(super) fn check_depths(entries: &[Entry]) -> Result<(), GitError> {
    let sides = entries
        .iter()
        .flat_map(|entry| entry.old.iter().chain(entry.new.iter()));
    for side in sides {
        if let Some(end) = side.path.iter().rposition(|&byte| byte == b'/') {
            check_depth(&side.path[..end])?;
        }
    }
    Ok(())
}

/// A long path as a message shows it: its first three and last two components (each cut
/// to 40 characters) around an ellipsis, so that thousands of components never fill a
/// terminal or a log.
fn shortened(path: &[u8]) -> String {
    let cut = |component: &[u8]| -> String {
        let text = String::from_utf8_lossy(component);
        match text.char_indices().nth(40) {
            Some((end, _)) => format!("{}…", &text[..end]),
            None => text.into_owned(),
        }
    };
    let components: Vec<&[u8]> = path.split(|&byte| byte == b'/').collect();
    if components.len() <= 5 {
        return components
            .iter()
            .map(|c| cut(c))
            .collect::<Vec<_>>()
            .join("/");
    }
    let head: Vec<String> = components[..3].iter().map(|c| cut(c)).collect();
    let tail: Vec<String> = components[components.len() - 2..]
        .iter()
        .map(|c| cut(c))
        .collect();
    format!("{}/…/{}", head.join("/"), tail.join("/"))
}

/// Git's file modes, as trees store them.
pub(super) mod mode {
    /// The mask of the kind of entry.
    pub const KIND: u32 = 0o170_000;
    /// A directory.
    pub const TREE: u32 = 0o040_000;
    /// A regular file (`0o100644` or `0o100755`).
    pub const REGULAR: u32 = 0o100_000;
    /// A symbolic link.
    pub const LINK: u32 = 0o120_000;
    /// A submodule pointer.
    pub const GITLINK: u32 = 0o160_000;
}

/// One side of a changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Side {
    /// The path, relative to the root, `/`-separated.
    pub path: Vec<u8>,
    /// The object id; zero when git has not hashed the working-tree file.
    pub id: Oid,
    /// The file mode.
    pub mode: u32,
    /// Whether the content is the working tree's file rather than an object.
    pub in_worktree: bool,
}

impl Side {
    /// Whether this is a regular file (not a link or a submodule).
    pub fn is_regular(&self) -> bool {
        self.mode & mode::KIND == mode::REGULAR
    }

    /// Whether this is a submodule pointer.
    pub fn is_gitlink(&self) -> bool {
        self.mode & mode::KIND == mode::GITLINK
    }

    /// Whether this is a symbolic link.
    pub fn is_link(&self) -> bool {
        self.mode & mode::KIND == mode::LINK
    }

    /// The path as text, for messages.
    pub fn display_path(&self) -> String {
        String::from_utf8_lossy(&self.path).into_owned()
    }
}

/// One changed path: its status and the sides that exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    /// How it changed.
    pub status: ChangeStatus,
    /// The base side (none for an addition).
    pub old: Option<Side>,
    /// The head side (none for a deletion).
    pub new: Option<Side>,
}

impl Repo {
    /// The paths that differ between two trees, in git's order.
    pub(super) fn tree_changes(
        &self,
        old: &Tree<'_>,
        new: &Tree<'_>,
    ) -> Result<Vec<Entry>, GitError> {
        let mut changes = Vec::new();
        let mut prefix = Vec::new();
        self.compare_trees(Some(old), Some(new), &mut prefix, &mut changes)?;
        Ok(changes)
    }

    /// Walks two trees (either may be absent) side by side below `prefix`.
    fn compare_trees(
        &self,
        old: Option<&Tree<'_>>,
        new: Option<&Tree<'_>>,
        prefix: &mut Vec<u8>,
        changes: &mut Vec<Entry>,
    ) -> Result<(), GitError> {
        let old_len = old.map_or(0, Tree::len);
        let new_len = new.map_or(0, Tree::len);
        let (mut i, mut j) = (0, 0);
        while i < old_len || j < new_len {
            let a = old.and_then(|tree| tree.get(i));
            let b = new.and_then(|tree| tree.get(j));
            let order = match (&a, &b) {
                (Some(a), Some(b)) => tree_order(a, b),
                (Some(_), None) => Ordering::Less,
                _ => Ordering::Greater,
            };
            match (order, a, b) {
                (Ordering::Less, Some(a), _) => {
                    i += 1;
                    self.one_sided(&a, prefix, ChangeStatus::Deleted, changes)?;
                }
                (Ordering::Greater, _, Some(b)) => {
                    j += 1;
                    self.one_sided(&b, prefix, ChangeStatus::Added, changes)?;
                }
                (Ordering::Equal, Some(a), Some(b)) => {
                    i += 1;
                    j += 1;
                    self.both_sides(&a, &b, prefix, changes)?;
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// An entry present on one side only: a file added or deleted, or a whole directory.
    pub(super) fn one_sided(
        &self,
        entry: &git2::TreeEntry<'_>,
        prefix: &mut Vec<u8>,
        status: ChangeStatus,
        changes: &mut Vec<Entry>,
    ) -> Result<(), GitError> {
        let length = prefix.len();
        prefix.extend_from_slice(entry.name_bytes());
        let mode = entry_mode(entry);
        if mode & mode::KIND == mode::TREE {
            check_depth(prefix)?;
            let tree = self.subtree(entry.id(), prefix)?;
            prefix.push(b'/');
            let (old, new) = match status {
                ChangeStatus::Deleted => (Some(&tree), None),
                _ => (None, Some(&tree)),
            };
            self.compare_trees(old, new, prefix, changes)?;
        } else {
            let side = tree_side(prefix, entry.id(), mode);
            changes.push(match status {
                ChangeStatus::Deleted => Entry {
                    status,
                    old: Some(side),
                    new: None,
                },
                _ => Entry {
                    status,
                    old: None,
                    new: Some(side),
                },
            });
        }
        prefix.truncate(length);
        Ok(())
    }

    /// An entry of the same name on both sides (both directories, or neither).
    fn both_sides(
        &self,
        a: &git2::TreeEntry<'_>,
        b: &git2::TreeEntry<'_>,
        prefix: &mut Vec<u8>,
        changes: &mut Vec<Entry>,
    ) -> Result<(), GitError> {
        let (old_mode, new_mode) = (entry_mode(a), entry_mode(b));
        if a.id() == b.id() && old_mode == new_mode {
            return Ok(());
        }
        let length = prefix.len();
        prefix.extend_from_slice(b.name_bytes());
        if new_mode & mode::KIND == mode::TREE {
            check_depth(prefix)?;
            let old_tree = self.subtree(a.id(), prefix)?;
            let new_tree = self.subtree(b.id(), prefix)?;
            prefix.push(b'/');
            self.compare_trees(Some(&old_tree), Some(&new_tree), prefix, changes)?;
        } else {
            let status = if old_mode & mode::KIND == new_mode & mode::KIND {
                ChangeStatus::Modified
            } else {
                ChangeStatus::TypeChange
            };
            changes.push(Entry {
                status,
                old: Some(tree_side(prefix, a.id(), old_mode)),
                new: Some(tree_side(prefix, b.id(), new_mode)),
            });
        }
        prefix.truncate(length);
        Ok(())
    }

    pub(super) fn subtree(&self, id: Oid, path: &[u8]) -> Result<Tree<'_>, GitError> {
        self.inner.find_tree(id).map_err(|error| {
            let path = String::from_utf8_lossy(path).into_owned();
            if is_missing(&error) {
                GitError::MissingObject {
                    id: id.to_string(),
                    path,
                }
            } else {
                GitError::git(format!("reading the tree of {path}"))(error)
            }
        })
    }
}

/// The changes libgit2 found between the base tree and the working tree.
pub(super) fn worktree_changes(diff: &git2::Diff<'_>) -> Vec<Entry> {
    diff.deltas()
        .filter_map(|delta| {
            let status = super::change_status(delta.status())?;
            let side = |file: git2::DiffFile<'_>, in_worktree: bool| {
                let path = file.path_bytes()?.to_vec();
                file.exists().then(|| Side {
                    path,
                    id: file.id(),
                    mode: u32::from(file.mode()),
                    in_worktree,
                })
            };
            let old = side(delta.old_file(), false);
            let new = side(delta.new_file(), true);
            (old.is_some() || new.is_some()).then_some(Entry { status, old, new })
        })
        .collect()
}

pub(super) fn tree_side(path: &[u8], id: Oid, mode: u32) -> Side {
    Side {
        path: path.to_vec(),
        id,
        mode,
        in_worktree: false,
    }
}

fn entry_mode(entry: &git2::TreeEntry<'_>) -> u32 {
    entry.filemode_raw() as u32
}

/// Git's order of tree entries: by name, a directory sorting as if its name ended in `/`.
/// A file and a directory of the same name are two different entries.
fn tree_order(a: &git2::TreeEntry<'_>, b: &git2::TreeEntry<'_>) -> Ordering {
    let key = |entry: &git2::TreeEntry<'_>, index: usize| -> Option<u8> {
        let name = entry.name_bytes();
        match name.get(index) {
            Some(&byte) => Some(byte),
            None if entry_mode(entry) & mode::KIND == mode::TREE && index == name.len() => {
                Some(b'/')
            }
            None => None,
        }
    };
    let (x, y) = (a.name_bytes(), b.name_bytes());
    let common = x.len().min(y.len());
    x[..common]
        .cmp(&y[..common])
        .then_with(|| key(a, common).cmp(&key(b, common)))
}
