//! Files read again after the stream: a visitor that asks for it
//! (`ChangeVisitor::reads_again`) gets each file it read by path from what the stream
//! read, never another object's content, and everything else from the object database
//! or the disk as before. Each test removes the objects the stream read from the
//! database, so a read that went to the database fails, and a read that came from memory
//! is checked against the content git holds at that commit and path.

use crate::common::{head_commit, TestRepo};
use handoff::{ChangeVisitor, ChangedFile, DiffLine, Head, RenameOptions, Repo, WORKTREE};

/// Reads every line of every file, and asks to read each file again or none.
struct ReadsAgain(bool);

impl ChangeVisitor for ReadsAgain {
    fn file(&mut self, _file: &ChangedFile) -> bool {
        true
    }

    fn line(&mut self, _file: &ChangedFile, _line: DiffLine<'_>) {}

    fn reads_again(&self, _file: &ChangedFile) -> bool {
        self.0
    }
}

/// Removes the loose object that `path` holds at `rev` from the database.
fn remove_object(repo: &TestRepo, rev: &str, path: &str) {
    let id = repo.git(&["rev-parse", &format!("{rev}:{path}")]);
    let object = repo
        .path()
        .join(".git/objects")
        .join(&id[..2])
        .join(&id[2..]);
    std::fs::remove_file(&object).expect("remove a loose object");
}

fn text(content: Option<Vec<u8>>) -> Option<String> {
    content.map(|bytes| String::from_utf8(bytes).expect("UTF-8"))
}

fn body(name: &str) -> String {
    (0..30).map(|i| format!("{name} line {i}\n")).collect()
}

#[test]
fn a_file_read_again_is_what_that_commit_holds_at_that_path() {
    let (repo, base) = TestRepo::with_files(&[
        ("a.txt", "first\n"),
        ("b.txt", "second\n"),
        ("old/moved.txt", &body("moved")),
    ]);
    // The two files swap contents, one is renamed with an edit, and a new file holds the
    // same object as another.
    let moved = format!("{}one more\n", body("moved"));
    repo.write("a.txt", "second\n")
        .write("b.txt", "first\n")
        .remove("old/moved.txt")
        .write("new/moved.txt", &moved)
        .write("twin.txt", "first\n");
    let head = repo.commit("swap, move, copy");

    let opened = Repo::open(repo.path()).unwrap();
    let change = opened
        .visit_changes(
            &base,
            &head_commit(),
            &RenameOptions::default(),
            &mut ReadsAgain(true),
        )
        .unwrap();
    assert!(change.files.iter().any(|file| file
        .old_path
        .as_ref()
        .is_some_and(|old| old.as_bytes() == b"old/moved.txt")));
    for (rev, path) in [
        (&base, "a.txt"),
        (&base, "b.txt"),
        (&base, "old/moved.txt"),
        (&head, "new/moved.txt"),
    ] {
        remove_object(&repo, rev, path);
    }

    let read = |rev: &str, path: &str| {
        text(
            opened
                .read_file_at(&Head::Rev(rev.to_string()), path)
                .unwrap(),
        )
    };
    assert_eq!(read(&base, "a.txt").as_deref(), Some("first\n"));
    assert_eq!(read(&head, "a.txt").as_deref(), Some("second\n"));
    assert_eq!(read(&base, "b.txt").as_deref(), Some("second\n"));
    assert_eq!(read(&head, "b.txt").as_deref(), Some("first\n"));
    assert_eq!(read(&base, "old/moved.txt"), Some(body("moved")));
    assert_eq!(read(&head, "new/moved.txt"), Some(moved));
    assert_eq!(read(&head, "twin.txt").as_deref(), Some("first\n"));
    // Paths a side does not hold stay absent, whatever the other side kept.
    assert_eq!(read(&base, "new/moved.txt"), None);
    assert_eq!(read(&head, "old/moved.txt"), None);
    assert_eq!(read(&base, "twin.txt"), None);
    // The same revision named otherwise finds the same files.
    let by_name = opened.read_file_at(&head_commit(), "twin.txt").unwrap();
    assert_eq!(text(by_name).as_deref(), Some("first\n"));
}

#[test]
fn a_file_the_visitor_does_not_read_again_is_read_from_the_database() {
    let (repo, base) = TestRepo::with_files(&[("a.txt", "first\n")]);
    repo.write("a.txt", "second\n");
    let head = repo.commit("edit");
    let opened = Repo::open(repo.path()).unwrap();
    opened
        .visit_changes(
            &base,
            &head_commit(),
            &RenameOptions::default(),
            &mut ReadsAgain(false),
        )
        .unwrap();
    remove_object(&repo, &head, "a.txt");

    let read = opened.read_file_at(&Head::Rev(head.clone()), "a.txt");
    let error = read.expect_err("the object is gone from the database");
    assert!(error.to_string().contains("not found"), "{error}");
    // And a file the stream kept is read from memory by no other commit's path.
    let (repo, base) = TestRepo::with_files(&[("a.txt", "first\n")]);
    repo.write("a.txt", "second\n");
    repo.commit("edit");
    repo.write("a.txt", "third\n");
    let third = repo.commit("edit again");
    let opened = Repo::open(repo.path()).unwrap();
    let parent = format!("{third}~1");
    opened
        .visit_changes(
            &base,
            &Head::Rev(parent),
            &RenameOptions::default(),
            &mut ReadsAgain(true),
        )
        .unwrap();
    let read = opened.read_file_at(&Head::Rev(third), "a.txt").unwrap();
    assert_eq!(text(read).as_deref(), Some("third\n"));
}

#[test]
fn the_working_tree_is_read_from_the_disk_and_its_base_from_what_the_stream_read() {
    let (repo, base) = TestRepo::with_files(&[("a.txt", "first\n")]);
    repo.write("a.txt", "second\n");
    let opened = Repo::open(repo.path()).unwrap();
    let change = opened
        .visit_changes(
            &base,
            &Head::WorkTree,
            &RenameOptions::default(),
            &mut ReadsAgain(true),
        )
        .unwrap();
    assert_eq!(change.head, WORKTREE);
    remove_object(&repo, &base, "a.txt");
    // Edited again after the stream: the disk says what the working tree holds now.
    repo.write("a.txt", "third\n");

    let read = |at: &Head| text(opened.read_file_at(at, "a.txt").unwrap());
    assert_eq!(read(&Head::WorkTree).as_deref(), Some("third\n"));
    assert_eq!(read(&Head::Rev(base.clone())).as_deref(), Some("first\n"));
}

#[test]
fn paths_that_differ_only_by_case_a_link_and_a_copy_source_read_again_as_git_holds_them() {
    // Two paths one letter's case apart, a symbolic link whose target changes, and the
    // source of a copy (`--copies`) that the change also edits: each side of each is
    // read again from what the stream read, and each is that path's own content.
    let (repo, base) = TestRepo::with_files(&[
        ("Auth.py", &body("upper")),
        ("auth.py", &body("lower")),
        ("src/source.py", &body("source")),
    ]);
    std::os::unix::fs::symlink("auth.py", repo.path().join("link.py")).expect("a link");
    let base_link = repo.commit("a link");
    let upper = format!("{}upper edit\n", body("upper"));
    let lower = format!("{}lower edit\n", body("lower"));
    let copied = format!("{}copied\n", body("source"));
    let source = format!("{}source edit\n", body("source"));
    repo.write("Auth.py", &upper)
        .write("auth.py", &lower)
        .write("src/copy.py", &copied)
        .write("src/source.py", &source)
        .remove("link.py");
    std::os::unix::fs::symlink("Auth.py", repo.path().join("link.py")).expect("a link");
    let head = repo.commit("edit both, copy, relink");

    let opened = Repo::open(repo.path()).unwrap();
    let options = RenameOptions {
        copies: true,
        ..RenameOptions::default()
    };
    let change = opened
        .visit_changes(&base_link, &head_commit(), &options, &mut ReadsAgain(true))
        .unwrap();
    assert!(
        change
            .files
            .iter()
            .any(|file| file.path.as_bytes() == b"src/copy.py"
                && file
                    .old_path
                    .as_ref()
                    .is_some_and(|old| old.as_bytes() == b"src/source.py")),
        "the copy is found from its source"
    );
    for (rev, path) in [
        (&base_link, "Auth.py"),
        (&base_link, "auth.py"),
        (&base_link, "src/source.py"),
        (&base_link, "link.py"),
        (&head, "Auth.py"),
        (&head, "auth.py"),
        (&head, "src/copy.py"),
        (&head, "link.py"),
    ] {
        remove_object(&repo, rev, path);
    }

    let read = |rev: &str, path: &str| {
        let at = Head::Rev(rev.to_string());
        text(opened.read_file_at(&at, path).unwrap())
    };
    assert_eq!(read(&base_link, "Auth.py"), Some(body("upper")));
    assert_eq!(read(&base_link, "auth.py"), Some(body("lower")));
    assert_eq!(read(&head, "Auth.py"), Some(upper));
    assert_eq!(read(&head, "auth.py"), Some(lower));
    assert_eq!(read(&base_link, "AUTH.py"), None);
    assert_eq!(read(&base_link, "src/source.py"), Some(body("source")));
    assert_eq!(read(&head, "src/source.py"), Some(source));
    assert_eq!(read(&head, "src/copy.py"), Some(copied));
    assert_eq!(read(&base_link, "src/copy.py"), None);
    assert_eq!(read(&base_link, "link.py").as_deref(), Some("auth.py"));
    assert_eq!(read(&head, "link.py").as_deref(), Some("Auth.py"));
    assert_eq!(
        read(&base, "link.py"),
        None,
        "the link's first commit is later"
    );
}
