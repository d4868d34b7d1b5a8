//! Tests of reading the working tree through the index: each against libgit2's comparison.

use super::*;
use std::process::Command;

/// A repository in a temporary directory, built with the git command-line tool.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new(files: &[(&str, &str)]) -> Fixture {
        let fixture = Fixture {
            dir: tempfile::tempdir().expect("a temporary directory"),
        };
        fixture.git(&["init", "-q", "-b", "main", "--template="]);
        fixture.git(&["config", "user.email", "test@example.com"]);
        fixture.git(&["config", "user.name", "Test"]);
        for (path, content) in files {
            fixture.write(path, content);
        }
        fixture.git(&["add", "-A"]);
        fixture.git(&["commit", "-q", "-m", "base"]);
        fixture
    }

    fn git(&self, args: &[&str]) {
        let status = Command::new("git")
            .args(args)
            .current_dir(self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("run git");
        assert!(status.success(), "git {args:?}");
    }

    fn write(&self, path: &str, content: &str) {
        let full = self.dir.path().join(path);
        std::fs::create_dir_all(full.parent().expect("a parent")).expect("directories");
        std::fs::write(full, content).expect("write a file");
    }

    fn path(&self, path: &str) -> PathBuf {
        self.dir.path().join(path)
    }

    /// The change through the index, which must be read, and through libgit2.
    fn both(&self) -> (Vec<Entry>, Vec<Entry>) {
        let repo = Repo::open(self.dir.path()).expect("opens");
        let base = repo
            .tree_of(repo.commit_of("HEAD").expect("HEAD"))
            .expect("tree");
        let own = repo
            .worktree_entries_from_index(&base)
            .expect("no error")
            .expect("the index is read");
        let libgit2 = repo.worktree_entries_from_libgit2(&base).expect("no error");
        (own, libgit2)
    }

    fn assert_same_as_libgit2(&self) -> Vec<Entry> {
        let (own, libgit2) = self.both();
        assert_eq!(summary(&own), summary(&libgit2));
        own
    }

    fn index_is_refused(&self) -> bool {
        let repo = Repo::open(self.dir.path()).expect("opens");
        let base = repo
            .tree_of(repo.commit_of("HEAD").expect("HEAD"))
            .expect("tree");
        repo.worktree_entries_from_index(&base)
            .expect("no error")
            .is_none()
    }
}

/// Status, paths and modes of each entry, and the ids of the sides both know.
fn summary(entries: &[Entry]) -> Vec<String> {
    let side = |side: &Option<Side>| match side {
        None => "-".to_string(),
        Some(side) => format!(
            "{} {:o} {} {}",
            side.display_path(),
            side.mode,
            side.in_worktree,
            if side.in_worktree {
                String::new()
            } else {
                side.id.to_string()
            }
        ),
    };
    entries
        .iter()
        .map(|entry| {
            format!(
                "{:?}: {} -> {}",
                entry.status,
                side(&entry.old),
                side(&entry.new)
            )
        })
        .collect()
}

fn statuses(entries: &[Entry]) -> Vec<(String, ChangeStatus)> {
    entries
        .iter()
        .map(|entry| {
            let side = entry.new.as_ref().or(entry.old.as_ref()).expect("a side");
            (side.display_path(), entry.status)
        })
        .collect()
}

#[test]
fn edits_additions_deletions_and_ignored_files_match_libgit2() {
    let fixture = Fixture::new(&[
        (".gitignore", "build/\n*.log\n"),
        ("a.txt", "one\n"),
        ("src/lib.rs", "fn a() {}\n"),
        ("src/deep/x.rs", "x\n"),
        ("src/deep/y.rs", "y\n"),
        ("docs/guide.md", "guide\n"),
        ("tool.sh", "echo\n"),
        ("gone.txt", "gone\n"),
    ]);
    fixture.write("a.txt", "one\ntwo\n");
    fixture.write("new.txt", "new\n");
    fixture.write("fresh/dir/file.rs", "fresh\n");
    fixture.write("build/out.bin", "ignored\n");
    fixture.write("src/deep/debug.log", "ignored\n");
    std::fs::remove_file(fixture.path("src/deep/y.rs")).expect("remove");
    fixture.git(&["rm", "-q", "--cached", "gone.txt"]);
    fixture.git(&["mv", "docs/guide.md", "docs/manual.md"]);
    std::fs::set_permissions(
        fixture.path("tool.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let own = fixture.assert_same_as_libgit2();
    let expected = [
        ("a.txt", ChangeStatus::Modified),
        ("docs/guide.md", ChangeStatus::Deleted),
        ("docs/manual.md", ChangeStatus::Added),
        ("fresh/dir/file.rs", ChangeStatus::Added),
        ("gone.txt", ChangeStatus::Deleted),
        ("new.txt", ChangeStatus::Added),
        ("src/deep/y.rs", ChangeStatus::Deleted),
        ("tool.sh", ChangeStatus::Modified),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(path, status)| (path.to_string(), *status))
        .collect();
    assert_eq!(statuses(&own), expected);
}

#[test]
fn staged_changes_merge_with_the_files_on_disk_as_in_git() {
    let fixture = Fixture::new(&[
        ("keep.txt", "keep\n"),
        ("link", "target\n"),
        ("s/t.txt", "t\n"),
    ]);
    // Staged and then edited again; staged and then deleted from disk; a file turned
    // into a link; a staged edit the file on disk still holds.
    fixture.write("added.txt", "first\n");
    fixture.write("dropped.txt", "never committed\n");
    fixture.git(&["add", "added.txt", "dropped.txt"]);
    fixture.write("added.txt", "first\nsecond\n");
    std::fs::remove_file(fixture.path("dropped.txt")).expect("remove");
    std::fs::remove_file(fixture.path("link")).expect("remove");
    std::os::unix::fs::symlink("keep.txt", fixture.path("link")).expect("symlink");
    fixture.write("s/t.txt", "t2\n");
    fixture.git(&["add", "s/t.txt"]);
    let own = fixture.assert_same_as_libgit2();
    let statuses = statuses(&own);
    assert!(statuses.contains(&("added.txt".to_string(), ChangeStatus::Added)));
    assert!(statuses.contains(&("link".to_string(), ChangeStatus::TypeChange)));
    assert!(statuses.contains(&("s/t.txt".to_string(), ChangeStatus::Modified)));
    assert!(!statuses.iter().any(|(path, _)| path == "dropped.txt"));
}

#[test]
fn an_unchanged_checkout_reads_no_tree_and_touched_files_stay_clean() {
    let fixture = Fixture::new(&[("a/b/c.txt", "c\n"), ("d.txt", "d\n")]);
    // Writes the cache-tree, and stat data older than the index.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    fixture.git(&["read-tree", "HEAD"]);
    fixture.git(&["update-index", "--refresh"]);
    let repo = Repo::open(fixture.dir.path()).expect("opens");
    let (index, _) = read_index(&fixture.path(".git/index")).expect("read");
    let base = repo
        .tree_of(repo.commit_of("HEAD").expect("HEAD"))
        .expect("tree");
    let cached = index.cache_tree.as_ref().and_then(|tree| tree.id);
    assert_eq!(cached, Some(base.id()), "git wrote the cache-tree");
    assert!(fixture.assert_same_as_libgit2().is_empty());
    // The same content written again: new stat data, hashed, still the same.
    fixture.write("d.txt", "d\n");
    assert!(fixture.assert_same_as_libgit2().is_empty());
}

#[test]
fn a_file_changed_in_the_second_the_index_was_written_is_hashed() {
    let fixture = Fixture::new(&[("racy.txt", "aaaa\n")]);
    let full = fixture.path("racy.txt");
    fixture.write("racy.txt", "bbbb\n");
    let metadata = std::fs::symlink_metadata(&full).expect("stat");
    use std::os::unix::fs::MetadataExt;
    // An entry whose recorded stat data is exactly the file's: only the racy rule
    // says the content may differ from the recorded object.
    let entry = IndexEntry {
        path: b"racy.txt".to_vec(),
        id: Oid::hash_object(git2::ObjectType::Blob, b"aaaa\n").expect("hash"),
        mode: 0o100_644,
        stat: StatData {
            ctime: (metadata.ctime() as u32, metadata.ctime_nsec() as u32),
            mtime: (metadata.mtime() as u32, metadata.mtime_nsec() as u32),
            ino: metadata.ino() as u32,
            uid: metadata.uid(),
            gid: metadata.gid(),
            size: metadata.size() as u32,
        },
        skip_worktree: false,
    };
    let root = fixture.dir.path();
    let same_second = mtime(&metadata);
    let state = file_state(root, &entry, same_second).ok().expect("a state");
    assert!(matches!(state, FileState::Changed { .. }), "{state:?}");
    let later = (same_second.0 + 1, 0);
    let trusted = file_state(root, &entry, later).ok().expect("a state");
    assert_eq!(trusted, FileState::Same, "stat data trusted when not racy");
    // And through a real index written in the same second as the edit.
    fixture.git(&["add", "racy.txt"]);
    fixture.write("racy.txt", "cccc\n");
    let own = fixture.assert_same_as_libgit2();
    assert_eq!(
        statuses(&own),
        [("racy.txt".to_string(), ChangeStatus::Modified)]
    );
}

#[test]
fn indexes_and_settings_this_reader_does_not_handle_fall_back() {
    let fixture = Fixture::new(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    assert!(!fixture.index_is_refused());
    fixture.git(&["update-index", "--assume-unchanged", "a.txt"]);
    assert!(fixture.index_is_refused(), "assume-unchanged");
    fixture.git(&["update-index", "--no-assume-unchanged", "a.txt"]);
    fixture.write("intent.txt", "i\n");
    fixture.git(&["add", "-N", "intent.txt"]);
    assert!(fixture.index_is_refused(), "intent to add");
    fixture.git(&["rm", "-q", "--cached", "intent.txt"]);
    std::fs::remove_file(fixture.path("intent.txt")).expect("remove");
    fixture.git(&["update-index", "--split-index"]);
    assert!(fixture.index_is_refused(), "split index");
    fixture.git(&["update-index", "--no-split-index"]);
    assert!(!fixture.index_is_refused());
    fixture.git(&["config", "core.ignorecase", "true"]);
    assert!(fixture.index_is_refused(), "core.ignorecase");
    fixture.git(&["config", "core.ignorecase", "false"]);
    fixture.git(&["config", "filter.lfs.clean", "git-lfs clean -- %f"]);
    assert!(fixture.index_is_refused(), "a filter driver");
    fixture.git(&["config", "--unset", "filter.lfs.clean"]);
    fixture.write(".gitattributes", "*.txt working-tree-encoding=UTF-16\n");
    fixture.git(&["add", ".gitattributes"]);
    assert!(fixture.index_is_refused(), "working-tree-encoding");
    fixture.write(".gitattributes", "*.txt text\n");
    fixture.write("a.txt", "a\r\n");
    assert!(fixture.index_is_refused(), "a carriage return to filter");
    fixture.write("a.txt", "a2\n");
    fixture.assert_same_as_libgit2();
    fixture.write("nested/repo/.git", "gitdir: ../elsewhere\n");
    assert!(
        fixture.index_is_refused(),
        "a nested repository behind a .git file"
    );
}

/// `git diff --name-status HEAD` in the fixture: git's own view of the change.
fn git_name_status(fixture: &Fixture) -> String {
    let output = Command::new("git")
        .args(["diff", "--no-ext-diff", "--name-status", "HEAD"])
        .current_dir(fixture.dir.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("run git");
    assert!(output.status.success(), "git diff: {output:?}");
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The change working-tree mode reports: through the index, or through libgit2 when the
/// reader declines.
fn reported(fixture: &Fixture) -> Vec<(String, ChangeStatus)> {
    let repo = Repo::open(fixture.dir.path()).expect("opens");
    let base = repo
        .tree_of(repo.commit_of("HEAD").expect("HEAD"))
        .expect("tree");
    let entries = match repo.worktree_entries_from_index(&base).expect("no error") {
        Some(entries) => entries,
        None => repo.worktree_entries_from_libgit2(&base).expect("no error"),
    };
    statuses(&entries)
}

/// Rewrites the fixture's index with `edit` applied to its bytes and a valid checksum (as
/// a tool could write it; git checks the checksum).
fn rewrite_index(fixture: &Fixture, edit: impl FnOnce(&mut Vec<u8>)) {
    let path = fixture.path(".git/index");
    let mut data = std::fs::read(&path).expect("read the index");
    data.truncate(data.len() - 20);
    edit(&mut data);
    std::fs::write(&path, &data).expect("write");
    let sum = Command::new("sha1sum")
        .arg(&path)
        .output()
        .expect("run sha1sum");
    let hex = String::from_utf8(sum.stdout).expect("UTF-8");
    let id = Oid::from_str(&hex[..40]).expect("a SHA-1");
    data.extend_from_slice(id.as_bytes());
    std::fs::write(&path, &data).expect("write");
}

/// The index's cache-tree extension, signature to end (the fixtures write no other).
fn cache_tree_extension(fixture: &Fixture) -> Vec<u8> {
    let data = std::fs::read(fixture.path(".git/index")).expect("read the index");
    let body = &data[..data.len() - 20];
    let at = memchr::memmem::rfind(body, b"TREE").expect("a cache-tree");
    body[at..].to_vec()
}

#[test]
fn a_staged_change_reverted_on_disk_is_no_change_as_in_git() {
    let fixture = Fixture::new(&[("a.txt", "a\n"), ("tool.sh", "echo\n"), ("b.txt", "b\n")]);
    fixture.write("a.txt", "staged\n");
    std::fs::set_permissions(
        fixture.path("tool.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    fixture.git(&["add", "a.txt", "tool.sh"]);
    fixture.write("a.txt", "a\n");
    std::fs::set_permissions(
        fixture.path("tool.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .expect("chmod");
    assert_eq!(git_name_status(&fixture), "");
    // (libgit2's comparison reports both as modified: git's answer is the one to give.)
    assert_eq!(summary(&fixture.both().0), Vec::<String>::new());
    // Staged, then edited on disk into something else again: still a change.
    fixture.write("b.txt", "b2\n");
    fixture.git(&["add", "b.txt"]);
    fixture.write("b.txt", "b3\n");
    assert_eq!(git_name_status(&fixture), "M\tb.txt\n");
    assert_eq!(
        statuses(&fixture.both().0),
        [("b.txt".to_string(), ChangeStatus::Modified)]
    );
}

#[test]
fn a_cache_tree_that_covers_fewer_entries_than_the_index_holds_is_not_trusted() {
    let fixture = Fixture::new(&[("d/a.txt", "a\n"), ("d/b.txt", "b\n"), ("top.txt", "t\n")]);
    fixture.git(&["read-tree", "HEAD"]);
    let before = cache_tree_extension(&fixture);
    // Two files staged under d/, then the cache-tree put back as it was: it claims d/ is
    // still the base's tree, of two entries, where the index holds four.
    fixture.write("d/0-new.txt", "new\n");
    fixture.write("d/z-new.txt", "new\n");
    fixture.git(&["add", "d/0-new.txt", "d/z-new.txt"]);
    rewrite_index(&fixture, |data| {
        let at = memchr::memmem::rfind(data, b"TREE").expect("a cache-tree");
        data.truncate(at);
        data.extend_from_slice(&before);
    });
    // Git accepts the index and, walking two entries as the tree's, still sees additions.
    assert_ne!(git_name_status(&fixture), "");
    let reported = reported(&fixture);
    for path in ["d/0-new.txt", "d/z-new.txt"] {
        assert!(
            reported.contains(&(path.to_string(), ChangeStatus::Added)),
            "{path} in {reported:?}"
        );
    }
}

#[test]
fn a_cache_tree_git_trusts_is_trusted_as_git_does() {
    // The count right and the id the base's: git walks the directory as the base's tree,
    // and so does this reader (a commit written from this index keeps that tree too).
    let fixture = Fixture::new(&[("d/a.txt", "a\n"), ("d/b.txt", "b\n"), ("top.txt", "t\n")]);
    fixture.git(&["read-tree", "HEAD"]);
    let before = cache_tree_extension(&fixture);
    fixture.write("d/a.txt", "staged\n");
    fixture.git(&["add", "d/a.txt"]);
    rewrite_index(&fixture, |data| {
        let at = memchr::memmem::rfind(data, b"TREE").expect("a cache-tree");
        data.truncate(at);
        data.extend_from_slice(&before);
    });
    assert_eq!(git_name_status(&fixture), "");
    assert_eq!(reported(&fixture), []);
}

#[test]
fn a_nested_repository_is_one_untracked_entry_and_a_false_one_is_walked_as_in_git() {
    let fixture = Fixture::new(&[("d/tracked.txt", "t\n")]);
    // A repository in an untracked directory; one made in a tracked directory, whose
    // files stay the directory's; a `.git` that is no repository.
    fixture.git(&["init", "-q", "nested"]);
    fixture.write("nested/a.txt", "a\n");
    fixture.git(&["init", "-q", "d"]);
    fixture.write("d/untracked.txt", "u\n");
    fixture.write("fake/.git/HEAD", "ref: refs/heads/main\n");
    fixture.write("fake/b.txt", "b\n");
    let status = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(fixture.dir.path())
        .output()
        .expect("run git");
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "?? d/untracked.txt\n?? fake/b.txt\n?? nested/\n"
    );
    let (own, _) = fixture.both();
    let expected = ["d/untracked.txt", "fake/b.txt", "nested"]
        .map(|path| (path.to_string(), ChangeStatus::Added));
    assert_eq!(statuses(&own), expected);
    let nested = own[2].new.as_ref().expect("a new side");
    assert_eq!(nested.mode, mode::GITLINK);
}

#[test]
fn a_sparse_checkout_reads_as_git_reads_it() {
    let fixture = Fixture::new(&[
        ("in/a.txt", "a\n"),
        ("in/b.txt", "b\n"),
        ("out/c.txt", "c\n"),
        ("out/deep/d.txt", "d\n"),
        ("top.txt", "t\n"),
    ]);
    fixture.git(&["sparse-checkout", "set", "--no-cone", "/in/"]);
    assert!(!fixture.path("out/c.txt").exists(), "outside the patterns");
    fixture.write("in/a.txt", "edited\n");
    // The files outside the patterns are not deletions (libgit2 calls them deleted).
    assert_eq!(git_name_status(&fixture), "M\tin/a.txt\n");
    assert_eq!(
        statuses(&fixture.both().0),
        [("in/a.txt".to_string(), ChangeStatus::Modified)]
    );
    // A skip-worktree file on disk: git looks at it in a sparse checkout and not
    // elsewhere, so libgit2 is asked.
    fixture.write("out/c.txt", "back on disk\n");
    assert!(fixture.index_is_refused(), "a skip-worktree file on disk");
}
