//! The change set: what a change touched, read from git through git2.
//!
//! A change runs from a base commit to a head, which is either another commit (CI passes
//! `--head HEAD`) or the working tree (staged, unstaged and untracked-not-ignored files,
//! as `git status` sees them, which is what an agent has before it commits). A branch name
//! as the base means the merge base of that branch with the head, the way a pull request
//! is reviewed.
//!
//! [`Repo::change_set`] lists the changed files without computing line diffs.
//! [`Repo::visit_changes`] streams every added and removed line, one file at a time, to a
//! [`ChangeVisitor`], so memory stays bounded by the largest single file however many lines
//! the change holds. Listing walks only the trees that differ ([`listing`]); renames are
//! paired as `git diff -M` pairs them, and copies (`-C`) only on request ([`renames`]).
//! Everything handed out is owned ([`ChangeSet`], [`ChangedFile`], [`RepoPath`]) or
//! borrowed only for the length of a callback ([`DiffLine`]): git2 never leaks out of this
//! module.
//!
//! Errors say what to do: a base missing from a shallow clone asks for more history
//! (`fetch-depth: 0`) instead of producing a silent, empty diff, and so does an object
//! missing from a partial clone.

mod change;
mod content;
mod error;
#[cfg(unix)]
mod index;
mod linediff;
mod listing;
mod packs;
mod pipeline;
mod renames;
mod similarity;
#[cfg(unix)]
mod worktree;

pub use change::{ChangeSet, ChangeStatus, ChangedFile, DiffLine, LineSide, RepoPath, WORKTREE};
pub use error::GitError;
pub(crate) use linediff::diff_lines;
pub use listing::MAX_DIRECTORY_DEPTH;
pub use renames::{RenameLimitExceeded, RenameOptions, DEFAULT_RENAME_LIMIT};

use git2::{Delta, DiffOptions, Oid, Repository};
use std::path::{Path, PathBuf};

/// How many leading bytes decide whether a working-tree file is binary, as in git.
const BINARY_SNIFF_LEN: u64 = 8000;

/// The head of a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// A revision: a commit id, branch, tag or any expression git understands.
    Rev(String),
    /// The working tree: index, unstaged edits and untracked files that are not ignored.
    WorkTree,
}

impl Head {
    /// The head a [`ChangeSet::head`] string denotes.
    pub fn from_change_set_head(head: &str) -> Head {
        if head == WORKTREE {
            Head::WorkTree
        } else {
            Head::Rev(head.to_string())
        }
    }
}

/// Receives a change file by file and, for the files it asks for, line by line.
pub trait ChangeVisitor {
    /// Called once per changed file, in diff order (binary files and submodules included).
    /// Return `true` to receive its lines; binary files and submodules have none.
    fn file(&mut self, file: &ChangedFile) -> bool;
    /// Called for each added or removed line of the file last accepted by [`Self::file`].
    fn line(&mut self, file: &ChangedFile, line: DiffLine<'_>);

    /// Whether the file last accepted by [`Self::file`] is to be read whole, every line of
    /// its new side as added, rather than diffed: a rename out of a place the visitor
    /// did not read (its lines were never seen, so none of them is old).
    fn whole(&self, _file: &ChangedFile) -> bool {
        false
    }

    /// Whether this visitor reads lines at all. When it does, each file's content is
    /// loaded once, for both the binary check and the line diff.
    fn reads_lines(&self) -> bool {
        true
    }

    /// Bytes the visitor wants looked for in each file's old side, told through
    /// [`Self::old_side_holds`]: the stream reads that side anyway, so the search costs
    /// one pass over bytes in memory, where reading the file again later would cost a
    /// lookup and an inflation.
    fn old_side_needle(&self) -> Option<&'static [u8]> {
        None
    }

    /// Whether the old side of `file`, just passed to [`Self::file`] (whatever it
    /// answered), holds [`Self::old_side_needle`]. Called for each file whose old side was
    /// read (not for an added file or a submodule, nor when [`Self::reads_lines`] is
    /// false), before its lines.
    fn old_side_holds(&mut self, _file: &ChangedFile, _holds: bool) {}

    /// Whether the visitor will read `file` again by path ([`Repo::read_file_at`]) once
    /// its lines are streamed: asked after its last line, when the change is streamed on
    /// one thread. The contents the stream read of its committed sides are then kept, so
    /// that reading them again inflates nothing (see [`Repo::read_file_at`]).
    fn reads_again(&self, _file: &ChangedFile) -> bool {
        false
    }
}

/// An open git repository.
pub struct Repo {
    inner: Repository,
    /// The entries of each directory read so far, by commit: a directory's tree is inflated
    /// once however many of its files are read (libgit2 caches no tree over 4 KiB, so a
    /// lookup by path inflated the whole directory again for every file in it).
    dirs_read: std::cell::RefCell<std::collections::HashMap<(Oid, String), DirEntries>>,
    /// The commit each revision read files at names: resolving a revision again for every
    /// file read (the project model reads some sixty) cost a fifth of a one-line change.
    commits_read: std::cell::RefCell<std::collections::HashMap<String, Oid>>,
    /// The contents the stream read of files its visitor reads again (see
    /// [`ChangeVisitor::reads_again`]), by commit and path.
    read_again: std::cell::RefCell<content::ReadAgain>,
}

/// One directory's entries at one commit: name to object id and kind (hashed with
/// hashbrown's hasher, not std's SipHash: a directory of rails' tests holds hundreds).
type DirEntries = hashbrown::HashMap<String, (Oid, Option<git2::ObjectType>)>;

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("path", &self.inner.path())
            .finish()
    }
}

impl Repo {
    /// Opens the repository whose working tree (or git directory) is exactly `path`.
    pub fn open(path: &Path) -> Result<Repo, GitError> {
        skip_hash_verification();
        Repository::open(path)
            .map(opened)
            .map_err(|error| not_a_repository(path, &error))
    }

    /// Opens the repository containing `dir`, searching parent directories.
    pub fn discover(dir: &Path) -> Result<Repo, GitError> {
        skip_hash_verification();
        Repository::discover(dir)
            .map(opened)
            .map_err(|error| not_a_repository(dir, &error))
    }

    /// The working tree's root, or the git directory of a bare repository.
    pub fn root(&self) -> &Path {
        self.inner.workdir().unwrap_or_else(|| self.inner.path())
    }

    /// Resolves `base` to the commit a change is measured from, as an object id.
    ///
    /// A branch name (local, or remote such as `origin/main`) means its merge base with
    /// the head; any other revision is used as it is.
    pub fn resolve_base(&self, base: &str, head: &Head) -> Result<String, GitError> {
        self.base_commit(base, head).map(|oid| oid.to_string())
    }

    /// The changed files between `base` and `head`, without line diffs; renames found,
    /// copies not.
    pub fn change_set(&self, base: &str, head: &Head) -> Result<ChangeSet, GitError> {
        self.visit_changes(base, head, &RenameOptions::default(), &mut FilesOnly)
    }

    /// The paths below directory `dir` that exist at `head` and differ from `base`
    /// (added, modified, type-changed, or renamed or copied there), sorted: what
    /// [`Repo::change_set`] lists there except deletions, without reading a file or
    /// searching for renames (a file renamed into `dir` is a new path there either way).
    pub fn changed_files_under(
        &self,
        base: &str,
        head: &Head,
        dir: &str,
    ) -> Result<Vec<RepoPath>, GitError> {
        let base_oid = self.base_commit(base, head)?;
        let head_oid = match head {
            Head::WorkTree => None,
            Head::Rev(rev) => Some(self.commit_of(rev)?),
        };
        let mut paths: Vec<RepoPath> = self
            .entries(base_oid, head_oid)?
            .into_iter()
            .filter_map(|entry| entry.new.map(|side| RepoPath::from_bytes(side.path)))
            .filter(|path| path.is_under(dir))
            .collect();
        paths.sort();
        Ok(paths)
    }

    /// Streams the change between `base` and `head` to `visitor` and returns its files.
    ///
    /// Line diffs are computed only for files the visitor accepts, one file at a time.
    pub fn visit_changes(
        &self,
        base: &str,
        head: &Head,
        renames: &RenameOptions,
        visitor: &mut dyn ChangeVisitor,
    ) -> Result<ChangeSet, GitError> {
        let base_oid = self.base_commit(base, head)?;
        let head_oid = match head {
            Head::WorkTree => None,
            Head::Rev(rev) => Some(self.commit_of(rev)?),
        };
        let mut entries = self.entries(base_oid, head_oid)?;
        let (rename_search_skipped, mut kept) = self.pair_renames(&mut entries, renames)?;
        self.read_again.borrow_mut().streaming(base_oid, head_oid);
        let files = if visitor.reads_lines() && entries.len() >= pipeline::MIN_FILES {
            self.stream_in_parallel(&entries, kept, visitor)?
        } else {
            let mut files = Vec::with_capacity(entries.len());
            for entry in &entries {
                files.extend(self.stream_entry(entry, &mut kept, visitor)?);
            }
            files
        };
        Ok(ChangeSet {
            base: base_oid.to_string(),
            head: head_oid.map_or_else(|| WORKTREE.to_string(), |oid| oid.to_string()),
            files,
            rename_search_skipped,
        })
    }

    /// The content of `path` (relative to the root, `/`-separated) at `at`, or `None` when
    /// no such file exists there. A file the stream kept for its visitor (see
    /// [`ChangeVisitor::reads_again`]) is handed out from memory: the stream saw that
    /// object at that path of that commit, and a commit's trees never change.
    pub fn read_file_at(&self, at: &Head, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        match at {
            Head::WorkTree => self.read_worktree_file(path),
            Head::Rev(rev) => self.read_blob_at(rev, path),
        }
    }

    /// Every file below directory `dir` at `at` (recursively; untracked-not-ignored files
    /// included for the working tree), sorted by path.
    pub fn files_under(&self, at: &Head, dir: &str) -> Result<Vec<RepoPath>, GitError> {
        let mut paths = match at {
            Head::Rev(rev) => self.tree_files_under(rev, dir)?,
            Head::WorkTree => self.worktree_files_under(dir)?,
        };
        paths.sort();
        Ok(paths)
    }

    /// The commit `rev` names as given (a branch's tip, not a merge base).
    pub fn commit_id(&self, rev: &str) -> Result<String, GitError> {
        self.commit_of(rev).map(|oid| oid.to_string())
    }

    /// The tip of the default branch (`origin/HEAD`, else `init.defaultBranch`, else
    /// `main` or `master`, remote before local), when there is one.
    pub fn default_branch_tip(&self) -> Option<String> {
        let branch = self.default_branch()?;
        self.branch_tip(&branch).map(|oid| oid.to_string())
    }

    /// The merge base of `HEAD` with the default branch (`origin/HEAD`, else
    /// `init.defaultBranch`, else `main` or `master`, remote before local).
    pub fn merge_base_with_default_branch(&self) -> Result<String, GitError> {
        let branch = self.default_branch().ok_or(GitError::NoDefaultBranch)?;
        self.resolve_base(&branch, &Head::Rev("HEAD".to_string()))
    }

    fn base_commit(&self, base: &str, head: &Head) -> Result<Oid, GitError> {
        // A full object id (what callers pass once the base is resolved) names no
        // branch: looking it up among the references would read them all for nothing.
        if let Some(oid) = self.full_commit_id(base) {
            return Ok(oid);
        }
        let Some(tip) = self.branch_tip(base) else {
            return self.commit_of(base);
        };
        let head_rev = match head {
            Head::Rev(rev) => rev.as_str(),
            Head::WorkTree => "HEAD",
        };
        let head_oid = self.commit_of(head_rev)?;
        self.inner.merge_base(tip, head_oid).map_err(|error| {
            if self.inner.is_shallow() {
                GitError::ShallowMissingBase {
                    rev: base.to_string(),
                }
            } else if error.code() == git2::ErrorCode::NotFound {
                GitError::NoMergeBase {
                    base: base.to_string(),
                    head: head_rev.to_string(),
                }
            } else {
                GitError::git(format!(
                    "computing the merge base of `{base}` and `{head_rev}`"
                ))(error)
            }
        })
    }

    /// The tip of `name` when it names a local or remote-tracking branch.
    fn branch_tip(&self, name: &str) -> Option<Oid> {
        let candidates = [format!("refs/heads/{name}"), format!("refs/remotes/{name}")];
        let full = name.starts_with("refs/heads/") || name.starts_with("refs/remotes/");
        let names = if full {
            vec![name.to_string()]
        } else {
            candidates.to_vec()
        };
        names.iter().find_map(|refname| {
            let reference = self.inner.find_reference(refname).ok()?;
            reference.peel_to_commit().ok().map(|commit| commit.id())
        })
    }

    fn commit_of(&self, rev: &str) -> Result<Oid, GitError> {
        let unknown = |error: git2::Error| {
            if self
                .inner
                .head()
                .is_err_and(|e| e.code() == git2::ErrorCode::UnbornBranch)
            {
                GitError::UnknownRevision {
                    rev: rev.to_string(),
                    message: "the repository has no commits yet".to_string(),
                }
            } else if self.inner.is_shallow() {
                GitError::ShallowMissingBase {
                    rev: rev.to_string(),
                }
            } else {
                GitError::UnknownRevision {
                    rev: rev.to_string(),
                    message: error.message().to_string(),
                }
            }
        };
        let object = self.inner.revparse_single(rev).map_err(unknown)?;
        let commit = object
            .peel_to_commit()
            .map_err(|error| GitError::UnknownRevision {
                rev: rev.to_string(),
                message: format!("not a commit: {}", error.message()),
            })?;
        Ok(commit.id())
    }

    /// A commit given by its full object id, if `rev` is one and the commit exists.
    fn full_commit_id(&self, rev: &str) -> Option<Oid> {
        if rev.len() != 40 || !rev.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let oid = Oid::from_str(rev).ok()?;
        self.inner.find_commit(oid).ok().map(|commit| commit.id())
    }

    /// The changed paths from the base commit to the head commit or the working tree,
    /// before renames are paired.
    fn entries(&self, base: Oid, head: Option<Oid>) -> Result<Vec<listing::Entry>, GitError> {
        let entries = self.entries_at_any_depth(base, head)?;
        listing::check_depths(&entries)?;
        Ok(entries)
    }

    /// [`Repo::entries`] before the depth of their paths is checked (the tree walks check
    /// it before each level they descend).
    fn entries_at_any_depth(
        &self,
        base: Oid,
        head: Option<Oid>,
    ) -> Result<Vec<listing::Entry>, GitError> {
        let base_tree = self.tree_of(base)?;
        if let Some(head) = head {
            let head_tree = self.tree_of(head)?;
            return self.tree_changes(&base_tree, &head_tree);
        }
        if self.inner.is_bare() {
            return Err(GitError::BareWorkTree {
                path: self.inner.path().to_path_buf(),
            });
        }
        #[cfg(unix)]
        if let Some(entries) = self.worktree_entries_from_index(&base_tree)? {
            return Ok(entries);
        }
        self.worktree_entries_from_libgit2(&base_tree)
    }

    /// The change from the base tree to the working tree as libgit2 compares them:
    /// the whole index read and checked, every file's stat data compared.
    fn worktree_entries_from_libgit2(
        &self,
        base_tree: &git2::Tree<'_>,
    ) -> Result<Vec<listing::Entry>, GitError> {
        let mut options = DiffOptions::new();
        options
            .include_typechange(true)
            .ignore_filemode(false)
            .include_untracked(true)
            .recurse_untracked_dirs(true);
        let diff = self
            .inner
            .diff_tree_to_workdir_with_index(Some(base_tree), Some(&mut options))
            .map_err(|error| {
                if error.class() == git2::ErrorClass::Index {
                    // A corrupt, truncated or unreadable index: name the file.
                    return GitError::IndexUnreadable {
                        path: self.inner.path().join("index"),
                        message: error.message().to_string(),
                    };
                }
                GitError::git("comparing the working tree with the base")(error)
            })?;
        Ok(listing::worktree_changes(&diff))
    }

    fn tree_of(&self, commit: Oid) -> Result<git2::Tree<'_>, GitError> {
        self.inner
            .find_commit(commit)
            .and_then(|commit| commit.tree())
            .map_err(|error| {
                if is_missing(&error) {
                    GitError::MissingObject {
                        id: commit.to_string(),
                        path: "the tree of that commit".to_string(),
                    }
                } else {
                    GitError::git(format!("reading the tree of {commit}"))(error)
                }
            })
    }

    fn read_worktree_file(&self, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let Some(root) = self.inner.workdir() else {
            return Err(GitError::BareWorkTree {
                path: self.inner.path().to_path_buf(),
            });
        };
        let full = root.join(path);
        match std::fs::read(&full) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(read_error(&full, &error)),
        }
    }

    /// Which of `names` are entries directly in directory `dir` (`""`: the root; no
    /// trailing `/`) at `at`, in the order given: files, directories or submodules alike.
    /// `None` for the working tree, which is not listed: look each name up there. A caller
    /// asking for many names that are mostly absent (the project model's manifests) saves
    /// a lookup per absent name; the directory is read once either way.
    pub fn names_present_at<'a>(
        &self,
        at: &Head,
        dir: &str,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<Option<Vec<&'a str>>, GitError> {
        let Head::Rev(rev) = at else {
            return Ok(None);
        };
        let commit = self.commit_read(rev)?;
        self.with_dir_entries(commit, dir, |entries| {
            names
                .into_iter()
                .filter(|name| entries.contains_key(*name))
                .collect()
        })
        .map(Some)
    }

    /// The names of the files directly in directory `dir` (`""`: the root) at `at`,
    /// sorted; `None` for the working tree, which is not listed. The directory is read
    /// once a revision, as for [`Repo::names_present_at`].
    pub fn file_names_at(&self, at: &Head, dir: &str) -> Result<Option<Vec<String>>, GitError> {
        let Head::Rev(rev) = at else {
            return Ok(None);
        };
        let commit = self.commit_read(rev)?;
        self.with_dir_entries(commit, dir, |entries| {
            let mut names: Vec<String> = entries
                .iter()
                .filter(|(_, (_, kind))| *kind == Some(git2::ObjectType::Blob))
                .map(|(name, _)| name.clone())
                .collect();
            names.sort();
            names
        })
        .map(Some)
    }

    /// The commit `rev` names, resolved once per revision.
    fn commit_read(&self, rev: &str) -> Result<Oid, GitError> {
        let known = self.commits_read.borrow().get(rev).copied();
        match known {
            Some(commit) => Ok(commit),
            None => {
                let commit = self.commit_of(rev)?;
                self.commits_read
                    .borrow_mut()
                    .insert(rev.to_string(), commit);
                Ok(commit)
            }
        }
    }

    /// `answer` asked about the entries of directory `dir` at `commit`, read once.
    fn with_dir_entries<R>(
        &self,
        commit: Oid,
        dir: &str,
        answer: impl FnOnce(&DirEntries) -> R,
    ) -> Result<R, GitError> {
        let key = (commit, dir.to_string());
        let mut dirs_read = self.dirs_read.borrow_mut();
        let entries = match dirs_read.entry(key) {
            std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(self.dir_entries(commit, dir)?)
            }
        };
        Ok(answer(entries))
    }

    fn read_blob_at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let commit = self.commit_read(rev)?;
        if let Some(content) = self.read_again.borrow().content_at(commit, path.as_bytes()) {
            return Ok(Some(content.to_vec()));
        }
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let found = self.with_dir_entries(commit, dir, |entries| entries.get(name).copied())?;
        let Some((id, kind)) = found else {
            return Ok(None);
        };
        // A directory or submodule where a file is asked for is an error, never "absent":
        // a policy file committed as a directory must not silently become no policy.
        let found = match kind {
            Some(git2::ObjectType::Blob) => None,
            Some(git2::ObjectType::Tree) => Some("directory"),
            Some(git2::ObjectType::Commit) => Some("submodule"),
            _ => Some("non-file object"),
        };
        if let Some(found) = found {
            return Err(GitError::NotAFile {
                path: path.to_string(),
                rev: rev.to_string(),
                found,
            });
        }
        let blob = self
            .inner
            .find_blob(id)
            .map_err(GitError::git(format!("reading {path} at {rev}")))?;
        Ok(Some(blob.content().to_vec()))
    }

    /// The entries of directory `dir` (`""`: the root) at `commit`; empty when there is no
    /// such directory, as a lookup by path finds nothing there.
    fn dir_entries(&self, commit: Oid, dir: &str) -> Result<DirEntries, GitError> {
        let root = self.tree_of(commit)?;
        let tree = if dir.is_empty() {
            Some(root)
        } else {
            root.get_path(Path::new(dir))
                .ok()
                .and_then(|entry| self.inner.find_tree(entry.id()).ok())
        };
        let Some(tree) = tree else {
            return Ok(DirEntries::new());
        };
        // Sized once: grown entry by entry, the table was hashed again at each doubling.
        let mut entries = DirEntries::with_capacity(tree.len());
        entries.extend(tree.iter().filter_map(|entry| {
            let name = entry.name().ok()?.to_string();
            Some((name, (entry.id(), entry.kind())))
        }));
        Ok(entries)
    }

    fn tree_files_under(&self, rev: &str, dir: &str) -> Result<Vec<RepoPath>, GitError> {
        let tree = self.tree_of(self.commit_of(rev)?)?;
        let dir = dir.trim_end_matches('/');
        let Ok(entry) = tree.get_path(Path::new(dir)) else {
            return Ok(Vec::new());
        };
        let Ok(subtree) = self.inner.find_tree(entry.id()) else {
            return Ok(Vec::new());
        };
        let mut paths = Vec::new();
        subtree
            .walk(git2::TreeWalkMode::PreOrder, |parent, entry| {
                if entry.kind() == Some(git2::ObjectType::Blob) {
                    let mut path = format!("{dir}/{parent}").into_bytes();
                    path.extend_from_slice(entry.name_bytes());
                    paths.push(RepoPath::from_bytes(path));
                }
                git2::TreeWalkResult::Ok
            })
            .map_err(GitError::git(format!("listing {dir} at {rev}")))?;
        Ok(paths)
    }

    fn worktree_files_under(&self, dir: &str) -> Result<Vec<RepoPath>, GitError> {
        if self.inner.is_bare() {
            return Err(GitError::BareWorkTree {
                path: self.inner.path().to_path_buf(),
            });
        }
        let mut options = git2::StatusOptions::new();
        options
            .include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_unmodified(true)
            .disable_pathspec_match(true)
            .pathspec(dir.trim_end_matches('/'));
        let statuses = self
            .inner
            .statuses(Some(&mut options))
            .map_err(GitError::git(format!("listing {dir} in the working tree")))?;
        Ok(statuses
            .iter()
            .filter(|entry| !entry.status().is_wt_deleted() && !entry.status().is_ignored())
            .map(|entry| RepoPath::from_bytes(entry.path_bytes()))
            .filter(|path| path.is_under(dir))
            .collect())
    }

    fn default_branch(&self) -> Option<String> {
        if let Ok(reference) = self.inner.find_reference("refs/remotes/origin/HEAD") {
            if let Ok(Some(target)) = reference.symbolic_target() {
                return Some(target.trim_start_matches("refs/remotes/").to_string());
            }
        }
        let configured = self
            .inner
            .config()
            .and_then(|config| config.get_string("init.defaultBranch"))
            .ok();
        let names = configured
            .into_iter()
            .chain(["main".into(), "master".into()]);
        names
            .flat_map(|name| [format!("origin/{name}"), name])
            .find(|name| self.branch_tip(name).is_some())
    }
}

/// A visitor that wants no lines, for [`Repo::change_set`].
struct FilesOnly;

impl ChangeVisitor for FilesOnly {
    fn file(&mut self, _file: &ChangedFile) -> bool {
        false
    }

    fn line(&mut self, _file: &ChangedFile, _line: DiffLine<'_>) {}

    fn reads_lines(&self) -> bool {
        false
    }
}

/// Turns off libgit2's re-hashing of every object it reads, which git itself does not do
/// and which costs a third of a large diff. The setting is process-wide and idempotent.
fn skip_hash_verification() {
    git2::opts::strict_hash_verification(false);
}

/// The repository `inner`, opened: how much of its packs stays mapped is bounded (see
/// [`packs`]).
fn opened(inner: Repository) -> Repo {
    packs::bound_pack_mappings(&inner.commondir().join("objects"));
    Repo {
        inner,
        dirs_read: Default::default(),
        commits_read: Default::default(),
        read_again: Default::default(),
    }
}

fn change_status(delta: Delta) -> Option<ChangeStatus> {
    match delta {
        Delta::Added | Delta::Untracked => Some(ChangeStatus::Added),
        Delta::Modified | Delta::Conflicted => Some(ChangeStatus::Modified),
        Delta::Deleted => Some(ChangeStatus::Deleted),
        Delta::Renamed => Some(ChangeStatus::Renamed),
        Delta::Copied => Some(ChangeStatus::Copied),
        Delta::Typechange => Some(ChangeStatus::TypeChange),
        Delta::Unmodified | Delta::Ignored | Delta::Unreadable => None,
    }
}

fn read_error(path: &Path, error: &std::io::Error) -> GitError {
    GitError::ReadFile {
        path: path.to_path_buf(),
        message: error.to_string(),
    }
}

/// Whether libgit2 failed because an object is not in the database.
fn is_missing(error: &git2::Error) -> bool {
    error.code() == git2::ErrorCode::NotFound && error.class() == git2::ErrorClass::Odb
}

/// A repository path as a path of this system.
#[cfg(unix)]
fn path_of(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

/// A repository path as a path of this system.
#[cfg(not(unix))]
fn path_of(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

fn not_a_repository(path: &Path, error: &git2::Error) -> GitError {
    GitError::NotARepository {
        path: PathBuf::from(path),
        message: error.message().to_string(),
    }
}
