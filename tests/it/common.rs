//! Shared test fixtures: real git repositories in temporary directories, created and
//! committed to by libgit2 in process and changed further with the `git` command-line
//! tool, and the real `handoff` binary run through `assert_cmd`.
//! Every integration test that builds a repository or runs the binary uses these.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

/// A git repository in a temporary directory, deleted when dropped.
pub struct TestRepo {
    dir: TempDir,
}

impl TestRepo {
    /// An empty repository on branch `main` with a committer identity.
    ///
    /// Made by libgit2 in this process, like the commits: no template's sample hooks,
    /// and the identity appended to `.git/config` (every test builds repositories, about
    /// 400 in all, so a process each is a measurable part of the suite's CPU).
    pub fn new() -> TestRepo {
        let dir = tempfile::tempdir().expect("create a temporary directory");
        let mut options = git2::RepositoryInitOptions::new();
        options.initial_head("main").external_template(false);
        git2::Repository::init_opts(dir.path(), &options).expect("initialise a repository");
        let repo = TestRepo { dir };
        let config = repo.path().join(".git/config");
        let mut text = std::fs::read_to_string(&config).expect("read .git/config");
        text.push_str(
            "[user]\n\temail = test@example.com\n\tname = Test\n[commit]\n\tgpgsign = false\n",
        );
        std::fs::write(&config, text).expect("write .git/config");
        repo
    }

    /// The working tree's root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git in the repository and returns its trimmed standard output.
    pub fn git(&self, args: &[&str]) -> String {
        git_in(self.path(), args)
    }

    /// Writes a file (creating parent directories).
    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) -> &TestRepo {
        let full = self.path().join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).expect("create parent directories");
        }
        std::fs::write(full, content).expect("write a fixture file");
        self
    }

    /// Moves a tracked file with `git mv`, creating the target's directory.
    pub fn git_mv(&self, from: &str, to: &str) -> &TestRepo {
        if let Some(parent) = self.path().join(to).parent() {
            std::fs::create_dir_all(parent).expect("create parent directories");
        }
        self.git(&["mv", from, to]);
        self
    }

    /// Adds a one-commit repository as a submodule at `path` (staged, not committed).
    pub fn add_submodule(&self, path: &str) -> &TestRepo {
        let (submodule, _) = TestRepo::with_base();
        let url = format!("file://{}", submodule.path().display());
        let allow_file_urls = ["-c", "protocol.file.allow=always"];
        self.git(
            &[
                &allow_file_urls[..],
                &["submodule", "add", "-q", &url, path],
            ]
            .concat(),
        );
        self
    }

    /// Removes a file from the working tree.
    pub fn remove(&self, path: &str) -> &TestRepo {
        std::fs::remove_file(self.path().join(path)).expect("remove a fixture file");
        self
    }

    /// Stages everything and commits; returns the new commit id.
    ///
    /// What `git add -A` and `git commit -q --allow-empty -m MESSAGE` do (the identity
    /// of `.git/config`, the date `git_in` gives), through libgit2 in this process: the
    /// suite commits about 800 times, and three `git` processes a commit cost about
    /// 10 ms of CPU.
    pub fn commit(&self, message: &str) -> String {
        let repo = git2::Repository::open(self.path()).expect("open the test repository");
        let mut index = repo.index().expect("read the index");
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .expect("stage every file");
        index.update_all(["*"], None).expect("stage every deletion");
        index.write().expect("write the index");
        let tree = index.write_tree().expect("write the tree");
        let tree = repo.find_tree(tree).expect("read the tree");
        let config = repo.config().expect("read the configuration");
        let name = config.get_string("user.name").expect("user.name");
        let email = config.get_string("user.email").expect("user.email");
        let signature = git2::Signature::new(&name, &email, &git2::Time::new(FIXED_DATE, 0))
            .expect("a signature");
        let parent = repo
            .head()
            .ok()
            .map(|head| head.peel_to_commit().expect("HEAD"));
        let id = repo
            .commit(
                Some("HEAD"),
                &signature,
                &signature,
                &format!("{message}\n"),
                &tree,
                &parent.iter().collect::<Vec<_>>(),
            )
            .expect("commit");
        id.to_string()
    }

    /// Starts branch `name` at `HEAD` and makes it `HEAD`: what `git checkout -q -b NAME`
    /// does (the index and the working tree as they are), in this process.
    pub fn branch(&self, name: &str) -> &TestRepo {
        let repo = git2::Repository::open(self.path()).expect("open the test repository");
        let head = repo.head().and_then(|head| head.peel_to_commit());
        let head = head.expect("a commit to branch from");
        repo.branch(name, &head, false).expect("a new branch");
        repo.set_head(&format!("refs/heads/{name}"))
            .expect("the new branch as HEAD");
        self
    }

    /// A repository with one commit holding `README.md`; returns it and that commit.
    pub fn with_base() -> (TestRepo, String) {
        TestRepo::with_files(&[("README.md", "# fixture\n")])
    }

    /// A repository with one commit, the base, holding `files` (paths and contents);
    /// returns it and that commit.
    pub fn with_files(files: &[(&str, &str)]) -> (TestRepo, String) {
        let repo = TestRepo::new();
        for (path, content) in files {
            repo.write(path, content);
        }
        let base = repo.commit("base");
        (repo, base)
    }

    /// `git clone -q <options>` of the repository into a fresh temporary directory;
    /// returns the directory (deleted when dropped) and the clone's path.
    pub fn clone_with(&self, options: &[&str]) -> (TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("create a temporary directory");
        let url = format!("file://{}", self.path().display());
        git_in(
            dir.path(),
            &[&["clone", "-q"], options, &[&url, "clone"]].concat(),
        );
        let path = dir.path().join("clone");
        (dir, path)
    }

    /// The real `handoff` binary, run in the repository.
    pub fn handoff(&self) -> assert_cmd::Command {
        handoff_in(self.path())
    }
}

/// The real `handoff` binary.
pub fn handoff() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("handoff").expect("the handoff binary is built")
}

/// The real `handoff` binary, run in `dir`.
pub fn handoff_in(dir: &Path) -> assert_cmd::Command {
    let mut command = handoff();
    command.current_dir(dir);
    command
}

/// Runs the real binary in `dir` with `args`: its exit code and its standard output read
/// as JSON (a panic showing both streams when it is not JSON).
pub fn json_output(dir: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let output = handoff_in(dir).args(args).output().expect("run handoff");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        panic!("not JSON ({error}): {stdout}\n{stderr}")
    });
    (output.status.code(), value)
}

/// Runs the real binary in `dir` with `args`: its standard output as text, whatever
/// its exit code.
pub fn stdout_in(dir: &Path, args: &[&str]) -> String {
    let output = handoff_in(dir).args(args).output().expect("run handoff");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A command's standard output as text.
pub fn stdout_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
}

/// A path under the example registry, `examples/registry/`.
pub fn example_registry(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/registry")
        .join(path)
}

/// The author and committer date of every test commit: 2026-01-01T00:00:00Z.
const FIXED_DATE: i64 = 1_767_225_600;

/// Runs git in `dir` and returns its trimmed standard output; panics on failure.
pub fn git_in(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .expect("run git");
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// A clone holding only the last of two commits, so the first, the base, is missing; the
/// second commit adds `path`. Returns the clone's directory (deleted when dropped), the
/// clone's path and the base.
pub fn shallow_clone_missing_base(path: &str) -> (TempDir, PathBuf, String) {
    let (origin, base) = TestRepo::with_base();
    origin.write(path, "x\n");
    origin.commit("second");
    let (dir, clone) = origin.clone_with(&["--depth", "1"]);
    (dir, clone, base)
}

/// `HEAD` as the head of a change.
pub fn head_commit() -> handoff::Head {
    handoff::Head::Rev("HEAD".to_string())
}

/// A path inside a fresh temporary directory that is not a repository.
pub fn not_a_repository() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let path = dir.path().to_path_buf();
    (dir, path)
}
