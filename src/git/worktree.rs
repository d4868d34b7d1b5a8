//! The change from the base commit to the working tree, read the way `git status` reads
//! it: through the index, trusting its stat data.
//!
//! Three comparisons, as git makes them, then merged the way `git diff BASE` merges them:
//!
//! 1. Base tree to index: the two walked side by side, and a directory skipped whole when
//!    the index's cache-tree says its staged content is the base's tree, over exactly the
//!    entries the index holds there, as far as git trusts it (after a checkout with
//!    unstaged edits only, nothing is read at all).
//! 2. Index to files: every tracked file `lstat`ed (on a second thread) and compared with
//!    the stat data the index recorded; only a file whose stat data changed, or that was
//!    written in the same second as the index (git's "racy" rule), is read and hashed.
//! 3. Untracked files: the directories walked, a name the index does not hold checked
//!    against the ignore rules (libgit2's, so `.gitignore`, `info/exclude` and
//!    `core.excludesFile` mean what they mean to git). An untracked directory that holds
//!    a repository of its own is one entry, a submodule added, as `git status` shows it
//!    (`dir/`) and `git add` would stage it; a `.git` anywhere else is passed over.
//!
//! Where any of this could differ from git's answer — an index this reader does not
//! handle ([`super::index`]), content filters that could make a changed file clean (a file
//! holding a carriage return or `$Id`, a filter driver, `working-tree-encoding`), settings
//! such as `core.ignorecase`, a nested repository behind a `.git` file, a symbolic link
//! where the index has a directory — the caller falls back to libgit2's comparison, which
//! re-reads everything: slower, and not always git's answer (it calls modified a filtered
//! file whose size changed and a staged change reverted on disk, which git calls clean).

use super::index::{self, CacheTree, Index, IndexEntry, StatData};
use super::listing::{mode, Entry, Side};
use super::{ChangeStatus, GitError, Repo};
use git2::{Oid, Tree};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the working tree holds for a tracked path that differs from the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileState {
    /// The same content and mode as the index.
    Same,
    /// No file there any more.
    Missing,
    /// Another content or mode; the id when the file was hashed.
    Changed { mode: u32, id: Oid },
    /// Another kind of entry (a file became a link or the other way round).
    Retyped { mode: u32 },
}

/// Why the index cannot be trusted for this working tree: the caller asks libgit2.
struct Unsupported;

impl Repo {
    /// The change from `base` to the working tree through the index, or `None` when this
    /// repository needs libgit2's slower comparison (see the module documentation).
    pub(super) fn worktree_entries_from_index(
        &self,
        base: &Tree<'_>,
    ) -> Result<Option<Vec<Entry>>, GitError> {
        let Some(root) = self.inner.workdir() else {
            return Ok(None);
        };
        if !self.settings_allow_index_reading() {
            return Ok(None);
        }
        let Some((index, index_mtime)) = read_index(&self.inner.path().join("index")) else {
            return Ok(None);
        };
        if attributes_may_reencode(root, self.inner.path(), &index) {
            return Ok(None);
        }
        let root = root.to_path_buf();
        let (staged, states, untracked) = std::thread::scope(|scope| {
            let stats = scope.spawn(|| file_states(&root, &index.entries, index_mtime));
            let staged = self.tree_to_index(base, &index);
            let untracked = self.untracked_files(&root, &index.entries);
            (staged, stats.join(), untracked)
        });
        // A path too deep for the walks is refused here too: libgit2 would refuse it as
        // well, naming neither the path nor the limit.
        if let Err(error @ GitError::PathTooDeep { .. }) = staged {
            return Err(error);
        }
        let (Ok(Ok(states)), Ok(untracked)) = (states, untracked) else {
            return Ok(None);
        };
        Ok(Some(merge(staged?, &index.entries, &states, untracked)))
    }

    /// Whether git's settings leave the index's stat data and raw file contents decisive.
    fn settings_allow_index_reading(&self) -> bool {
        if std::env::var_os("GIT_INDEX_FILE").is_some() {
            return false;
        }
        let Ok(config) = self.inner.config() else {
            return false;
        };
        let is = |key: &str, value: bool| config.get_bool(key).is_ok_and(|set| set == value);
        let sha1 = config
            .get_string("extensions.objectformat")
            .map_or(true, |format| format.eq_ignore_ascii_case("sha1"));
        let filter_driver = config
            .entries(Some("filter\\..*"))
            .is_ok_and(|mut entries| {
                let mut found = false;
                while let Some(Ok(entry)) = entries.next() {
                    let name = entry.name().unwrap_or_default().to_ascii_lowercase();
                    found |= name.ends_with(".clean") || name.ends_with(".process");
                }
                found
            });
        // An attributes file of the user's own choosing is not searched for
        // `working-tree-encoding` here.
        let own_attributes = config.get_path("core.attributesFile").is_ok();
        sha1 && !filter_driver
            && !own_attributes
            && !is("core.filemode", false)
            && !is("core.symlinks", false)
            && !is("core.ignorecase", true)
    }

    /// Base tree to index: the staged changes, each with the base side as `old` and the
    /// index side as `new`.
    fn tree_to_index(&self, base: &Tree<'_>, index: &Index) -> Result<Vec<Entry>, GitError> {
        let mut changes = Vec::new();
        let mut prefix = Vec::new();
        self.compare_with_index(
            Some(base),
            &index.entries,
            index.cache_tree.as_ref(),
            &mut prefix,
            &mut changes,
        )?;
        Ok(changes)
    }

    /// Compares the tree below `prefix` with the index entries below it.
    fn compare_with_index(
        &self,
        tree: Option<&Tree<'_>>,
        entries: &[IndexEntry],
        cache: Option<&CacheTree>,
        prefix: &mut Vec<u8>,
        changes: &mut Vec<Entry>,
    ) -> Result<(), GitError> {
        // Git walks as many entries as the cache-tree says as the tree's: one whose count
        // is not the entries' is not trusted here either.
        if let (Some(tree), Some(cache)) = (tree, cache) {
            if cache.id == Some(tree.id()) && cache.entry_count == entries.len() {
                return Ok(());
            }
        }
        let groups = index_groups(entries, prefix.len());
        let tree_len = tree.map_or(0, Tree::len);
        let (mut i, mut j) = (0, 0);
        while i < tree_len || j < groups.len() {
            let item = tree.and_then(|tree| tree.get(i));
            let group = groups.get(j);
            let order = match (&item, group) {
                (Some(item), Some(group)) => tree_key(item).cmp(&group.key()),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let length = prefix.len();
            match (order, item, group) {
                (std::cmp::Ordering::Less, Some(item), _) => {
                    i += 1;
                    self.one_sided(&item, prefix, ChangeStatus::Deleted, changes)?;
                }
                (std::cmp::Ordering::Greater, _, Some(group)) => {
                    j += 1;
                    self.index_side(None, group, cache, prefix, changes)?;
                }
                (std::cmp::Ordering::Equal, Some(item), Some(group)) => {
                    i += 1;
                    j += 1;
                    self.index_side(Some(&item), group, cache, prefix, changes)?;
                }
                _ => break,
            }
            prefix.truncate(length);
        }
        Ok(())
    }

    /// One name of the index, with the tree entry of the same name and kind if any.
    fn index_side(
        &self,
        item: Option<&git2::TreeEntry<'_>>,
        group: &Group<'_>,
        cache: Option<&CacheTree>,
        prefix: &mut Vec<u8>,
        changes: &mut Vec<Entry>,
    ) -> Result<(), GitError> {
        prefix.extend_from_slice(group.name);
        if group.is_dir {
            super::listing::check_depth(prefix)?;
            let subtree = item
                .map(|item| self.subtree(item.id(), prefix))
                .transpose()?;
            let child = cache.and_then(|cache| cache.child(group.name));
            prefix.push(b'/');
            return self.compare_with_index(
                subtree.as_ref(),
                group.entries,
                child,
                prefix,
                changes,
            );
        }
        let entry = &group.entries[0];
        let new = Some(index_side(entry));
        let change = match item {
            None => Some((ChangeStatus::Added, None)),
            Some(item) => {
                let item_mode = item.filemode_raw() as u32;
                let old = Some(super::listing::tree_side(prefix, item.id(), item_mode));
                if item.id() == entry.id && item_mode == entry.mode {
                    None
                } else if item_mode & mode::KIND == entry.mode & mode::KIND {
                    Some((ChangeStatus::Modified, old))
                } else {
                    Some((ChangeStatus::TypeChange, old))
                }
            }
        };
        if let Some((status, old)) = change {
            changes.push(Entry { status, old, new });
        }
        Ok(())
    }

    /// The files not in the index and not ignored, sorted, with their modes.
    fn untracked_files(
        &self,
        root: &Path,
        entries: &[IndexEntry],
    ) -> Result<Vec<(Vec<u8>, u32)>, Unsupported> {
        let mut found = Vec::new();
        let mut prefix = Vec::new();
        self.walk(root, &mut prefix, Some(entries), &mut found)?;
        found.sort();
        Ok(found)
    }

    /// Reads directory `prefix`; `tracked` is the index entries below it, `None` inside a
    /// directory the index does not know.
    fn walk(
        &self,
        root: &Path,
        prefix: &mut Vec<u8>,
        tracked: Option<&[IndexEntry]>,
        found: &mut Vec<(Vec<u8>, u32)>,
    ) -> Result<(), Unsupported> {
        // Each level costs stack: past the limit, libgit2 (whose walk does not recurse)
        // lists the change, and `entries` refuses the deep path.
        if prefix.iter().filter(|&&byte| byte == b'/').count() > super::MAX_DIRECTORY_DEPTH {
            return Err(Unsupported);
        }
        let dir = root.join(super::path_of(prefix));
        let listing = std::fs::read_dir(&dir).map_err(|_| Unsupported)?;
        for item in listing {
            let item = item.map_err(|_| Unsupported)?;
            let kind = item.file_type().map_err(|_| Unsupported)?;
            let name = os_bytes(&item.file_name());
            if name == b".git" {
                // Never listed by git: the repository's own, one made inside a tracked
                // directory, or one that is no repository (an untracked directory that
                // holds a repository was taken whole before it was walked).
                continue;
            }
            let length = prefix.len();
            prefix.extend_from_slice(&name);
            let below = tracked.map(|entries| entries_below(entries, prefix));
            match below {
                Some(Ok(_)) => {} // a tracked file: compared through its stat data
                // A link where the index has a directory: git does not follow it.
                Some(Err(entries)) if !entries.is_empty() && kind.is_symlink() => {
                    return Err(Unsupported);
                }
                Some(Err(entries)) if !entries.is_empty() && kind.is_dir() => {
                    prefix.push(b'/');
                    self.walk(root, prefix, Some(entries), found)?;
                }
                _ => self.untracked_path(root, prefix, kind, found)?,
            }
            prefix.truncate(length);
        }
        Ok(())
    }

    /// A path the index does not hold: a file or link kept unless ignored, a directory
    /// read unless ignored.
    fn untracked_path(
        &self,
        root: &Path,
        prefix: &mut Vec<u8>,
        kind: std::fs::FileType,
        found: &mut Vec<(Vec<u8>, u32)>,
    ) -> Result<(), Unsupported> {
        let file_mode = if kind.is_symlink() {
            mode::LINK
        } else if kind.is_file() {
            mode::REGULAR
        } else if kind.is_dir() {
            prefix.push(b'/');
            if self.is_ignored(prefix)? {
                return Ok(());
            }
            if holds_repository(&root.join(super::path_of(prefix)))? {
                // A repository of its own: one untracked entry to git (`dir/`), what
                // `git add` would stage as a submodule.
                prefix.pop();
                found.push((prefix.clone(), mode::GITLINK));
                return Ok(());
            }
            return self.walk(root, prefix, None, found);
        } else {
            return Err(Unsupported);
        };
        if self.is_ignored(prefix)? {
            return Ok(());
        }
        let file_mode = if file_mode == mode::REGULAR {
            let metadata = std::fs::symlink_metadata(root.join(super::path_of(prefix)))
                .map_err(|_| Unsupported)?;
            regular_mode(&metadata)
        } else {
            file_mode
        };
        found.push((prefix.clone(), file_mode));
        Ok(())
    }

    fn is_ignored(&self, path: &[u8]) -> Result<bool, Unsupported> {
        self.inner
            .is_path_ignored(super::path_of(path))
            .map_err(|_| Unsupported)
    }
}

/// Whether `dir` holds a repository of its own, by git's test (`is_git_directory`): a
/// `.git` directory with `objects` and `refs` directories and a `HEAD` that names a ref
/// or holds an object id. A `.git` that is a file or a link (a pointer git would follow)
/// is left to libgit2.
fn holds_repository(dir: &Path) -> Result<bool, Unsupported> {
    let git = dir.join(".git");
    let Ok(metadata) = std::fs::symlink_metadata(&git) else {
        return Ok(false);
    };
    if !metadata.is_dir() {
        return Err(Unsupported);
    }
    let readable_dir = |name: &str| std::fs::read_dir(git.join(name)).is_ok();
    if !readable_dir("objects") || !readable_dir("refs") {
        return Ok(false);
    }
    let head = git.join("HEAD");
    if let Ok(target) = std::fs::read_link(&head) {
        return Ok(target.starts_with("refs/"));
    }
    let Ok(content) = std::fs::read(&head) else {
        return Ok(false);
    };
    Ok(match content.strip_prefix(b"ref:") {
        Some(rest) => rest.trim_ascii_start().starts_with(b"refs/"),
        None => {
            let hex = content.trim_ascii_end();
            hex.len() == 40 && hex.iter().all(u8::is_ascii_hexdigit)
        }
    })
}

/// Reads the index file and its modification time; `None` when there is none or this
/// reader does not handle it.
fn read_index(path: &Path) -> Option<(Index, (i64, i64))> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).ok()?;
    let metadata = file.metadata().ok()?;
    let mut data = Vec::with_capacity(usize::try_from(metadata.len()).ok()?);
    file.read_to_end(&mut data).ok()?;
    let index = index::parse(&data)?;
    Some((index, mtime(&metadata)))
}

/// Whether an attributes file may give some file a `working-tree-encoding`, which makes a
/// file whose bytes differ from its object clean.
fn attributes_may_reencode(root: &Path, git_dir: &Path, index: &Index) -> bool {
    let mut files: Vec<PathBuf> = index
        .entries
        .iter()
        .filter(|entry| entry.path.rsplit(|byte| *byte == b'/').next() == Some(b".gitattributes"))
        .map(|entry| root.join(super::path_of(&entry.path)))
        .collect();
    files.push(git_dir.join("info").join("attributes"));
    let config_home = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")));
    if let Some(home) = config_home {
        files.push(home.join("git").join("attributes"));
    }
    files.iter().any(|file| {
        std::fs::read(file)
            .is_ok_and(|text| memchr::memmem::find(&text, b"working-tree-encoding").is_some())
    })
}

/// The index entries directly at or below a directory, grouped by their next name.
struct Group<'i> {
    name: &'i [u8],
    is_dir: bool,
    entries: &'i [IndexEntry],
}

impl Group<'_> {
    /// The group's place in git's tree order: a directory sorts as its name and `/`.
    fn key(&self) -> Vec<u8> {
        let mut key = self.name.to_vec();
        if self.is_dir {
            key.push(b'/');
        }
        key
    }
}

/// Splits the entries below a directory (their paths start after `skip` bytes) by name.
fn index_groups(entries: &[IndexEntry], skip: usize) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut start = 0;
    while start < entries.len() {
        let rest = &entries[start].path[skip..];
        let (name, is_dir) = match memchr::memchr(b'/', rest) {
            Some(slash) => (&rest[..slash], true),
            None => (rest, false),
        };
        let end = if is_dir {
            start
                + entries[start..].partition_point(|entry| {
                    let rest = &entry.path[skip..];
                    rest.starts_with(name) && rest.get(name.len()) == Some(&b'/')
                })
        } else {
            start + 1
        };
        groups.push(Group {
            name,
            is_dir,
            entries: &entries[start..end],
        });
        start = end;
    }
    groups
}

/// A tree entry's place in git's tree order.
fn tree_key(entry: &git2::TreeEntry<'_>) -> Vec<u8> {
    let mut key = entry.name_bytes().to_vec();
    if entry.filemode_raw() as u32 & mode::KIND == mode::TREE {
        key.push(b'/');
    }
    key
}

/// Looks `path` up among sorted entries: `Ok` when it is a tracked file, otherwise the
/// entries below it as a directory (empty when none).
fn entries_below<'i>(entries: &'i [IndexEntry], path: &[u8]) -> Result<usize, &'i [IndexEntry]> {
    let at = entries.partition_point(|entry| entry.path.as_slice() < path);
    if entries.get(at).is_some_and(|entry| entry.path == path) {
        return Ok(at);
    }
    let below = |entry: &IndexEntry| {
        entry.path.starts_with(path) && entry.path.get(path.len()) == Some(&b'/')
    };
    // Paths below `path/` sort after `path` and any `path` + a byte before `/`.
    let first = at
        + entries[at..].partition_point(|entry| {
            entry.path.starts_with(path)
                && entry.path.get(path.len()).is_some_and(|byte| *byte < b'/')
        });
    let end = first + entries[first..].partition_point(below);
    Err(&entries[first..end])
}

/// Compares each tracked file with its stat data, hashing those that may have changed.
fn file_states(
    root: &Path,
    entries: &[IndexEntry],
    index_mtime: (i64, i64),
) -> Result<Vec<FileState>, Unsupported> {
    entries
        .iter()
        .map(|entry| file_state(root, entry, index_mtime))
        .collect()
}

fn file_state(
    root: &Path,
    entry: &IndexEntry,
    index_mtime: (i64, i64),
) -> Result<FileState, Unsupported> {
    let full = root.join(super::path_of(&entry.path));
    let metadata = match std::fs::symlink_metadata(&full) {
        // A file git takes to be the staged one: whether git looks at it when it is
        // there depends on the sparse-checkout settings, so libgit2 is asked then.
        Ok(_) if entry.skip_worktree => return Err(Unsupported),
        Ok(metadata) => metadata,
        Err(_) if entry.skip_worktree => return Ok(FileState::Same),
        Err(error)
            if error.kind() == std::io::ErrorKind::NotFound
                || error.kind() == std::io::ErrorKind::NotADirectory =>
        {
            // Gone, or a file where a directory of its path was (ENOTDIR).
            return Ok(FileState::Missing);
        }
        Err(_) => return Err(Unsupported),
    };
    let kind = metadata.file_type();
    let file_mode = if kind.is_symlink() {
        mode::LINK
    } else if kind.is_file() {
        regular_mode(&metadata)
    } else {
        return Err(Unsupported);
    };
    if file_mode & mode::KIND != entry.mode & mode::KIND {
        return Ok(FileState::Retyped { mode: file_mode });
    }
    // Git's racy rule: a file written in the same second as the index may have changed
    // after git recorded it without its stat data showing it.
    let racy = i64::from(entry.stat.mtime.0) >= index_mtime.0;
    if !racy && stat_matches(&entry.stat, &metadata) {
        return Ok(if file_mode == entry.mode {
            FileState::Same
        } else {
            FileState::Changed {
                mode: file_mode,
                id: entry.id,
            }
        });
    }
    let content = if kind.is_symlink() {
        let target = std::fs::read_link(&full).map_err(|_| Unsupported)?;
        super::content::link_bytes(&target)
    } else {
        let content = std::fs::read(&full).map_err(|_| Unsupported)?;
        // A carriage return or an `$Id` may be filtered away before git hashes the file.
        if memchr::memchr(b'\r', &content).is_some()
            || memchr::memmem::find(&content, b"$Id").is_some()
        {
            return Err(Unsupported);
        }
        content
    };
    let id = Oid::hash_object(git2::ObjectType::Blob, &content).map_err(|_| Unsupported)?;
    Ok(if id == entry.id && file_mode == entry.mode {
        FileState::Same
    } else {
        FileState::Changed {
            mode: file_mode,
            id,
        }
    })
}

/// Whether a file's stat data is what the index recorded (nanoseconds only when recorded).
fn stat_matches(recorded: &StatData, metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    let time = |recorded: (u32, u32), seconds: i64, nanoseconds: i64| {
        recorded.0 == seconds as u32 && (recorded.1 == 0 || recorded.1 == nanoseconds as u32)
    };
    time(recorded.mtime, metadata.mtime(), metadata.mtime_nsec())
        && time(recorded.ctime, metadata.ctime(), metadata.ctime_nsec())
        && recorded.ino == metadata.ino() as u32
        && recorded.uid == metadata.uid()
        && recorded.gid == metadata.gid()
        && recorded.size == metadata.size() as u32
}

/// A regular file's mode as git records it: executable or not, by the owner's bit.
fn regular_mode(metadata: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    if metadata.permissions().mode() & 0o100 != 0 {
        mode::REGULAR | 0o755
    } else {
        mode::REGULAR | 0o644
    }
}

fn mtime(metadata: &std::fs::Metadata) -> (i64, i64) {
    use std::os::unix::fs::MetadataExt;
    (metadata.mtime(), metadata.mtime_nsec())
}

fn os_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    name.as_bytes().to_vec()
}

/// The index's side of an entry.
fn index_side(entry: &IndexEntry) -> Side {
    Side {
        path: entry.path.clone(),
        id: entry.id,
        mode: entry.mode,
        in_worktree: false,
    }
}

/// A staged change whose file was edited again: what the base and the file on disk differ
/// by, nothing when the file went back to the base's content and mode.
fn staged_then_edited(staged: Entry, new: Option<Side>) -> Option<Entry> {
    match (&staged.old, &new) {
        (Some(old), Some(side)) if old.id == side.id && old.mode == side.mode => None,
        (Some(old), Some(side)) => Some(Entry {
            status: if old.mode & mode::KIND == side.mode & mode::KIND {
                ChangeStatus::Modified
            } else {
                ChangeStatus::TypeChange
            },
            old: staged.old,
            new,
        }),
        _ => Some(Entry {
            status: staged.status,
            old: staged.old,
            new,
        }),
    }
}

/// Merges the staged changes, the files' states and the untracked files the way
/// `git diff BASE` (and libgit2's tree-to-working-tree diff) merges them: the working
/// tree's content on the new side, the base's on the old.
fn merge(
    staged: Vec<Entry>,
    entries: &[IndexEntry],
    states: &[FileState],
    untracked: Vec<(Vec<u8>, u32)>,
) -> Vec<Entry> {
    let mut changes: BTreeMap<Vec<u8>, Entry> = staged
        .into_iter()
        .map(|mut entry| {
            if let Some(new) = &mut entry.new {
                new.in_worktree = true;
            }
            let path = entry.new.as_ref().or(entry.old.as_ref());
            (
                path.map(|side| side.path.clone()).unwrap_or_default(),
                entry,
            )
        })
        .collect();
    for (entry, state) in entries.iter().zip(states) {
        let (status, new) = match *state {
            FileState::Same => continue,
            FileState::Missing => (ChangeStatus::Deleted, None),
            FileState::Changed { mode, id } => (ChangeStatus::Modified, Some((mode, id))),
            FileState::Retyped { mode } => (ChangeStatus::TypeChange, Some((mode, Oid::ZERO_SHA1))),
        };
        let new = new.map(|(mode, id)| Side {
            path: entry.path.clone(),
            id,
            mode,
            in_worktree: true,
        });
        let merged = match changes.remove(&entry.path) {
            // Staged, and deleted from the working tree: gone from the base's view, or
            // never there.
            Some(staged) if new.is_none() => {
                (staged.status != ChangeStatus::Added).then_some(Entry {
                    status: ChangeStatus::Deleted,
                    old: staged.old,
                    new: None,
                })
            }
            Some(staged) => staged_then_edited(staged, new),
            None => Some(Entry {
                status,
                old: Some(index_side(entry)),
                new,
            }),
        };
        if let Some(merged) = merged {
            changes.insert(entry.path.clone(), merged);
        }
    }
    for (path, file_mode) in untracked {
        // A path deleted from the index but left on disk stays a deletion, as in git.
        changes.entry(path.clone()).or_insert(Entry {
            status: ChangeStatus::Added,
            old: None,
            new: Some(Side {
                path,
                id: Oid::ZERO_SHA1,
                mode: file_mode,
                in_worktree: true,
            }),
        });
    }
    changes.into_values().collect()
}

#[cfg(test)]
#[path = "worktree_tests.rs"]
mod tests;
