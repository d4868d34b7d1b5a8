//! The change set read from real repositories: statuses, renames, copies, binary files,
//! submodules, non-UTF-8 paths, the working tree, merge bases and the errors.

use crate::common::{git_in, head_commit, not_a_repository, shallow_clone_missing_base, TestRepo};
use handoff::{
    ChangeSet, ChangeStatus, ChangeVisitor, ChangedFile, DiffLine, GitError, Head, LineSide,
    RenameOptions, Repo, RepoPath, WORKTREE,
};

fn summary(change: &ChangeSet) -> Vec<(String, Option<String>, ChangeStatus)> {
    change
        .files
        .iter()
        .map(|file| {
            (
                file.path.to_string_lossy().into_owned(),
                file.old_path
                    .as_ref()
                    .map(|old| old.to_string_lossy().into_owned()),
                file.status,
            )
        })
        .collect()
}

/// Opens the repository and reads the change from `base` to `head`.
fn change_set(repo: &TestRepo, base: &str, head: &Head) -> ChangeSet {
    Repo::open(repo.path())
        .unwrap()
        .change_set(base, head)
        .unwrap()
}

fn file<'a>(change: &'a ChangeSet, path: &str) -> &'a ChangedFile {
    change
        .files
        .iter()
        .find(|file| file.path.as_bytes() == path.as_bytes())
        .unwrap_or_else(|| panic!("{path} is not in the change set: {change:?}"))
}

#[test]
fn commits_give_added_modified_and_deleted_files_with_resolved_ids() {
    let (repo, base) = TestRepo::with_files(&[("keep.txt", "one\n"), ("gone.txt", "bye\n")]);
    repo.write("keep.txt", "one\ntwo\n")
        .write("new.txt", "hi\n")
        .remove("gone.txt");
    let head_oid = repo.commit("head");

    let change = change_set(&repo, &base, &head_commit());

    assert_eq!(change.base, base);
    assert_eq!(change.head, head_oid);
    assert_eq!(
        summary(&change),
        vec![
            ("gone.txt".into(), None, ChangeStatus::Deleted),
            ("keep.txt".into(), None, ChangeStatus::Modified),
            ("new.txt".into(), None, ChangeStatus::Added),
        ]
    );
}

#[test]
fn a_rename_keeps_both_paths_and_a_copy_asked_for_names_its_source() {
    let repo = TestRepo::new();
    let body: String = (0..40).map(|i| format!("line {i}\n")).collect();
    let other: String = (0..40).map(|i| format!("other {i}\n")).collect();
    repo.write("src/old.rs", &body).write("src/orig.rs", &other);
    let base = repo.commit("base");
    repo.git_mv("src/old.rs", "lib/new.rs");
    repo.write("src/orig.rs", format!("{other}changed\n"));
    repo.write("src/copy.rs", &other);
    repo.commit("rename and copy");

    let change = change_set(&repo, &base, &head_commit());

    let renamed = file(&change, "lib/new.rs");
    assert_eq!(renamed.status, ChangeStatus::Renamed);
    assert_eq!(renamed.old_path, Some(RepoPath::from("src/old.rs")));
    assert_eq!(renamed.touched_paths().count(), 2);
    // Copies are found only on request (git's `-C`).
    assert_eq!(file(&change, "src/copy.rs").status, ChangeStatus::Added);
    let copies = RenameOptions {
        copies: true,
        limit: None,
    };
    let change = Repo::open(repo.path())
        .unwrap()
        .visit_changes(&base, &head_commit(), &copies, &mut Lines::default())
        .unwrap();
    let copied = file(&change, "src/copy.rs");
    assert_eq!(copied.status, ChangeStatus::Copied);
    assert_eq!(copied.old_path, Some(RepoPath::from("src/orig.rs")));
    assert_eq!(copied.touched_paths().count(), 1);
}

#[test]
fn binary_files_submodules_and_type_changes_are_flagged() {
    let (repo, base) = TestRepo::with_files(&[("link", "target\n")]);
    repo.write("image.png", [0x89, b'P', b'N', b'G', 0, 0, 1, 2]);
    repo.remove("link");
    std::os::unix::fs::symlink("image.png", repo.path().join("link")).unwrap();
    repo.add_submodule("vendor/sub");
    repo.commit("binary, symlink, submodule");

    let change = change_set(&repo, &base, &head_commit());

    assert!(file(&change, "image.png").binary);
    assert_eq!(file(&change, "link").status, ChangeStatus::TypeChange);
    let submodule = file(&change, "vendor/sub");
    assert!(submodule.submodule && !submodule.binary);
    assert!(!file(&change, ".gitmodules").binary);
}

#[test]
fn a_submodule_pointer_change_is_a_modified_path() {
    let repo = TestRepo::new();
    repo.add_submodule("vendor/sub");
    let base = repo.commit("add submodule");
    let inner = repo.path().join("vendor/sub");
    std::fs::write(inner.join("more.txt"), "x\n").unwrap();
    git_in(&inner, &["add", "-A"]);
    git_in(
        &inner,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@e",
            "commit",
            "-q",
            "-m",
            "bump",
        ],
    );
    repo.commit("bump submodule");

    let change = change_set(&repo, &base, &head_commit());

    assert_eq!(
        summary(&change),
        vec![("vendor/sub".into(), None, ChangeStatus::Modified)]
    );
    assert!(change.files[0].submodule);
}

#[test]
fn non_utf8_paths_are_reported_not_dropped() {
    let (repo, base) = TestRepo::with_base();
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(repo.path().join(name), "x\n").unwrap();
    repo.commit("latin-1 name");

    let change = change_set(&repo, &base, &head_commit());

    assert_eq!(change.files.len(), 1);
    assert_eq!(change.files[0].path.as_bytes(), b"caf\xe9.txt");
    assert_eq!(change.files[0].path.as_str(), None);
}

#[test]
fn the_working_tree_holds_staged_unstaged_and_untracked_but_not_ignored_files() {
    let (repo, base) = TestRepo::with_files(&[(".gitignore", "target/\n"), ("tracked.txt", "a\n")]);
    repo.write("staged.txt", "s\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("tracked.txt", "a\nb\n");
    repo.write("notes/untracked.md", "u\n");
    repo.write("target/build.o", "ignored\n");

    let change = change_set(&repo, &base, &Head::WorkTree);

    assert_eq!(change.head, WORKTREE);
    assert_eq!(
        summary(&change),
        vec![
            ("notes/untracked.md".into(), None, ChangeStatus::Added),
            ("staged.txt".into(), None, ChangeStatus::Added),
            ("tracked.txt".into(), None, ChangeStatus::Modified),
        ]
    );
}

#[test]
fn a_staged_move_in_the_working_tree_is_a_rename() {
    let repo = TestRepo::new();
    let body: String = (0..30).map(|i| format!("fn f{i}() {{}}\n")).collect();
    repo.write("src/auth.rs", &body);
    let base = repo.commit("base");
    repo.git_mv("src/auth.rs", "src/login.rs");

    let change = change_set(&repo, &base, &Head::WorkTree);

    assert_eq!(
        summary(&change),
        vec![(
            "src/login.rs".into(),
            Some("src/auth.rs".into()),
            ChangeStatus::Renamed
        )]
    );
}

/// Collects every line it is shown.
#[derive(Default)]
struct Lines(Vec<(String, LineSide, usize, String)>);

impl ChangeVisitor for Lines {
    fn file(&mut self, _file: &ChangedFile) -> bool {
        true
    }

    fn line(&mut self, file: &ChangedFile, line: DiffLine<'_>) {
        let path = file.path.to_string_lossy().into_owned();
        self.0
            .push((path, line.side, line.number, line.text().into_owned()));
    }
}

#[test]
fn lines_stream_with_their_numbers_on_each_side() {
    let (repo, base) = TestRepo::with_files(&[("a.txt", "one\ntwo\nthree\n")]);
    repo.write("a.txt", "one\nTWO\nthree\nfour\r\n");
    repo.write("b.txt", "new\n");
    repo.commit("edit");

    let mut lines = Lines::default();
    let repo = Repo::open(repo.path()).unwrap();
    let change = repo
        .visit_changes(&base, &head_commit(), &RenameOptions::default(), &mut lines)
        .unwrap();

    assert_eq!(change.files.len(), 2);
    let expected = [
        ("a.txt", LineSide::Removed, 2, "two"),
        ("a.txt", LineSide::Added, 2, "TWO"),
        ("a.txt", LineSide::Added, 4, "four"),
        ("b.txt", LineSide::Added, 1, "new"),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(p, s, n, t)| (p.to_string(), *s, *n, t.to_string()))
        .collect();
    assert_eq!(lines.0, expected);
}

#[test]
fn untracked_file_lines_stream_in_working_tree_mode() {
    let (repo, base) = TestRepo::with_base();
    repo.write("new.py", "import os\nprint(os.environ['HOME'])\n");

    let mut lines = Lines::default();
    Repo::open(repo.path())
        .unwrap()
        .visit_changes(
            &base,
            &Head::WorkTree,
            &RenameOptions::default(),
            &mut lines,
        )
        .unwrap();

    assert_eq!(lines.0.len(), 2);
    assert_eq!(lines.0[1].2, 2);
}

#[test]
fn a_branch_name_as_base_means_the_merge_base() {
    let (repo, fork) = TestRepo::with_base();
    repo.branch("feature");
    repo.write("feature.txt", "f\n");
    repo.commit("feature work");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("main-only.txt", "m\n");
    repo.commit("main moves on");
    repo.git(&["checkout", "-q", "feature"]);

    let opened = Repo::open(repo.path()).unwrap();
    let change = opened.change_set("main", &head_commit()).unwrap();

    assert_eq!(change.base, fork);
    assert_eq!(
        summary(&change),
        vec![("feature.txt".into(), None, ChangeStatus::Added)]
    );
    assert_eq!(opened.merge_base_with_default_branch().unwrap(), fork);
}

#[test]
fn files_are_read_at_a_revision_and_in_the_working_tree() {
    let (repo, base) = TestRepo::with_base();
    repo.write(".handoff/tasks/t1.md", "task\n");
    repo.commit("record");
    repo.write("README.md", "# edited\n");
    repo.write(".handoff/notes/n.md", "untracked\n");
    let opened = Repo::open(repo.path()).unwrap();

    let at_base = opened
        .read_file_at(&Head::Rev(base.clone()), "README.md")
        .unwrap();
    assert_eq!(at_base.as_deref(), Some(&b"# fixture\n"[..]));
    let now = opened.read_file_at(&Head::WorkTree, "README.md").unwrap();
    assert_eq!(now.as_deref(), Some(&b"# edited\n"[..]));
    assert_eq!(
        opened.read_file_at(&Head::Rev(base), "nope.md").unwrap(),
        None
    );

    let committed = opened.files_under(&head_commit(), ".handoff").unwrap();
    assert_eq!(committed, vec![RepoPath::from(".handoff/tasks/t1.md")]);
    let working = opened.files_under(&Head::WorkTree, ".handoff/").unwrap();
    assert_eq!(
        working,
        vec![
            RepoPath::from(".handoff/notes/n.md"),
            RepoPath::from(".handoff/tasks/t1.md")
        ]
    );
}

#[test]
fn the_names_present_in_a_directory_are_listed_at_a_revision_only() {
    let (repo, base) = TestRepo::with_files(&[
        ("Cargo.toml", "[package]\n"),
        ("app/requirements/base.txt", "flask\n"),
        ("app/main.py", "x = 1\n"),
    ]);
    let opened = Repo::open(repo.path()).unwrap();
    let at = Head::Rev(base);
    let asked = [
        "package.json",
        "Cargo.toml",
        "requirements",
        "main.py",
        "app",
    ];
    let present = |dir: &str| opened.names_present_at(&at, dir, asked).unwrap();
    assert_eq!(present(""), Some(vec!["Cargo.toml", "app"]));
    assert_eq!(present("app"), Some(vec!["requirements", "main.py"]));
    assert_eq!(present("app/main.py"), Some(vec![]));
    assert_eq!(present("nowhere"), Some(vec![]));
    // The working tree is not listed: its files are looked up one by one.
    assert_eq!(
        opened.names_present_at(&Head::WorkTree, "", asked).unwrap(),
        None
    );
}

#[test]
fn a_shallow_clone_without_the_base_asks_for_more_history() {
    let (_dir, clone, base) = shallow_clone_missing_base("a.txt");

    let repo = Repo::open(&clone).unwrap();
    let error = repo.change_set(&base, &head_commit()).unwrap_err();

    assert!(
        matches!(error, GitError::ShallowMissingBase { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("fetch-depth: 0"), "{error}");
}

#[test]
fn unknown_revisions_missing_repositories_and_bare_working_trees_are_clear_errors() {
    let (repo, base) = TestRepo::with_base();
    let opened = Repo::open(repo.path()).unwrap();
    let error = opened
        .change_set("no-such-branch", &head_commit())
        .unwrap_err();
    assert!(
        matches!(error, GitError::UnknownRevision { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("no-such-branch"));

    let (_dir, path) = not_a_repository();
    let error = Repo::discover(&path).unwrap_err();
    assert!(
        error.to_string().contains("not a git repository"),
        "{error}"
    );

    let (_dir, bare_clone) = repo.clone_with(&["--bare"]);
    let bare = Repo::open(&bare_clone).unwrap();
    let error = bare.change_set(&base, &Head::WorkTree).unwrap_err();
    assert!(matches!(error, GitError::BareWorkTree { .. }), "{error:?}");
    assert!(bare.change_set(&base, &head_commit()).is_ok());
}

#[test]
fn symlinks_stream_their_target_as_a_line() {
    let (repo, base) = TestRepo::with_base();
    std::os::unix::fs::symlink("README.md", repo.path().join("docs-link")).unwrap();
    repo.commit("link");

    let mut lines = Lines::default();
    let change = Repo::open(repo.path())
        .unwrap()
        .visit_changes(&base, &head_commit(), &RenameOptions::default(), &mut lines)
        .unwrap();

    assert_eq!(
        summary(&change),
        vec![("docs-link".into(), None, ChangeStatus::Added)]
    );
    assert_eq!(
        lines.0,
        vec![(
            "docs-link".to_string(),
            LineSide::Added,
            1,
            "README.md".to_string()
        )]
    );
}

#[test]
fn a_records_directory_with_glob_characters_is_listed_literally() {
    let (repo, _) = TestRepo::with_base();
    repo.write("rec[1]/a.md", "a\n").write("rec1/b.md", "b\n");
    let opened = Repo::open(repo.path()).unwrap();

    let listed = opened.files_under(&Head::WorkTree, "rec[1]").unwrap();

    assert_eq!(listed, vec![RepoPath::from("rec[1]/a.md")]);
}

#[test]
fn a_branch_base_whose_merge_base_is_cut_off_by_a_shallow_clone_asks_for_history() {
    let (origin, _) = TestRepo::with_base();
    origin.branch("feature");
    origin.write("feature.txt", "f\n");
    origin.commit("feature");
    origin.git(&["checkout", "-q", "main"]);
    origin.write("main.txt", "m\n");
    origin.commit("main moves on");
    let (_dir, clone) =
        origin.clone_with(&["--depth", "1", "--no-single-branch", "--branch", "feature"]);

    let repo = Repo::open(&clone).unwrap();
    let error = repo.change_set("origin/main", &head_commit()).unwrap_err();

    assert!(
        matches!(error, GitError::ShallowMissingBase { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("`origin/main`"), "{error}");
}

/// The paths under a directory that `changed_files_under` lists without reading
/// contents: what the change set lists there except deletions, in commits and in the
/// working tree (a rename into the directory included, one out of it not).
#[test]
fn the_changed_files_under_a_directory_are_the_change_sets_there_less_deletions() {
    let body: String = (0..30).map(|i| format!("line {i}\n")).collect();
    let (repo, base) = TestRepo::with_files(&[
        (".handoff/keep.md", "k\n"),
        (".handoff/edit.md", "e\n"),
        (".handoff/gone.md", "g\n"),
        (".handoff/out.md", &body),
        ("moved.md", &body.replace("line 1\n", "line one\n")),
        ("other.txt", "o\n"),
    ]);
    repo.write(".handoff/edit.md", "e2\n")
        .write(".handoff/new/task.md", "n\n")
        .write("other.txt", "o2\n")
        .remove(".handoff/gone.md");
    repo.git_mv(".handoff/out.md", "outside.md");
    repo.git_mv("moved.md", ".handoff/moved.md");
    let opened = Repo::open(repo.path()).unwrap();
    let expected = |change: ChangeSet| -> Vec<RepoPath> {
        let mut paths: Vec<RepoPath> = change
            .files
            .into_iter()
            .filter(|file| file.status != ChangeStatus::Deleted && file.path.is_under(".handoff"))
            .map(|file| file.path)
            .collect();
        paths.sort();
        paths
    };
    let listed = |head: &Head| opened.changed_files_under(&base, head, ".handoff").unwrap();

    let worktree = listed(&Head::WorkTree);
    assert_eq!(
        worktree,
        expected(change_set(&repo, &base, &Head::WorkTree))
    );
    assert_eq!(
        worktree
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect::<Vec<_>>(),
        [
            ".handoff/edit.md",
            ".handoff/moved.md",
            ".handoff/new/task.md"
        ]
    );
    repo.commit("head");
    assert_eq!(listed(&head_commit()), worktree);
    assert_eq!(
        listed(&head_commit()),
        expected(change_set(&repo, &base, &head_commit()))
    );
}

#[test]
fn a_corrupt_or_truncated_index_is_an_error_naming_it() {
    let (repo, base) = TestRepo::with_files(&[("a.txt", "a\n"), ("d/b.txt", "b\n")]);
    repo.write("a.txt", "edited\n");
    let index = repo.path().join(".git").join("index");
    let good = std::fs::read(&index).unwrap();
    let mut flipped_count = good.clone();
    flipped_count[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
    let corrupt = [
        good[..good.len() / 2].to_vec(),
        good[..13].to_vec(),
        b"DIRC".to_vec(),
        b"not an index at all\n".to_vec(),
        flipped_count,
    ];
    for data in corrupt {
        std::fs::write(&index, &data).unwrap();
        let error = Repo::open(repo.path())
            .unwrap()
            .change_set(&base, &Head::WorkTree)
            .unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains(&index.display().to_string()),
            "{} bytes: {message}",
            data.len()
        );
        // The way out is in the message: git rebuilds an index from HEAD.
        assert!(message.contains("git reset"), "{message}");
    }
}

#[test]
fn a_repository_inside_the_working_tree_is_a_submodule_added_not_an_error() {
    let (repo, base) = TestRepo::with_files(&[("a.txt", "a\n")]);
    git_in(repo.path(), &["init", "-q", "vendor/lib"]);
    repo.write("vendor/lib/code.rs", "fn f() {}\n");
    repo.write("a.txt", "edited\n");
    let change = change_set(&repo, &base, &Head::WorkTree);
    assert_eq!(
        summary(&change),
        vec![
            ("a.txt".into(), None, ChangeStatus::Modified),
            ("vendor/lib".into(), None, ChangeStatus::Added),
        ]
    );
    assert!(file(&change, "vendor/lib").submodule);
}
