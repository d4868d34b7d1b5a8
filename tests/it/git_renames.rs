//! Renames and copies as git pairs them: exact renames, similar ones, same-name moves,
//! the candidate limit, copies on request, and the errors of a repository that lacks
//! objects. Every case is a real repository, and the pairing is checked against
//! `git diff -M --name-status` itself on generated histories.

use crate::common::{head_commit, stdout_of, TestRepo};
use handoff::{ChangeSet, ChangeStatus, GitError, RenameOptions, Repo};
use serde_json::Value;

/// `(status letter, old path, path)` for every file, sorted, as `git diff --name-status`
/// would list them (scores left out).
fn name_status(change: &ChangeSet) -> Vec<(char, String, String)> {
    let mut rows: Vec<(char, String, String)> = change
        .files
        .iter()
        .map(|file| {
            let letter = match file.status {
                ChangeStatus::Added => 'A',
                ChangeStatus::Modified => 'M',
                ChangeStatus::Deleted => 'D',
                ChangeStatus::Renamed => 'R',
                ChangeStatus::Copied => 'C',
                ChangeStatus::TypeChange => 'T',
            };
            let old = file
                .old_path
                .as_ref()
                .map(|p| p.to_string())
                .unwrap_or_default();
            (letter, old, file.path.to_string())
        })
        .collect();
    rows.sort();
    rows
}

/// The same rows from git itself.
fn git_name_status(repo: &TestRepo, base: &str, flags: &[&str]) -> Vec<(char, String, String)> {
    let output = repo.git(
        &[
            &["diff", "--name-status", "--no-ext-diff"],
            flags,
            &[base, "HEAD"],
        ]
        .concat(),
    );
    let mut rows: Vec<(char, String, String)> = output
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let letter = fields[0].chars().next().unwrap_or('?');
            match fields.as_slice() {
                [_, old, new] => (letter, old.to_string(), new.to_string()),
                [_, path] => (letter, String::new(), path.to_string()),
                _ => panic!("unexpected git output: {line}"),
            }
        })
        .collect();
    rows.sort();
    rows
}

fn change(repo: &TestRepo, base: &str, options: RenameOptions) -> ChangeSet {
    Repo::open(repo.path())
        .unwrap()
        .visit_changes(base, &head_commit(), &options, &mut NoLines)
        .unwrap()
}

/// Reads no lines.
struct NoLines;

impl handoff::ChangeVisitor for NoLines {
    fn file(&mut self, _file: &handoff::ChangedFile) -> bool {
        false
    }
    fn line(&mut self, _file: &handoff::ChangedFile, _line: handoff::DiffLine<'_>) {}
    fn reads_lines(&self) -> bool {
        false
    }
}

/// `count` distinct lines starting with `tag`.
fn body(tag: &str, count: usize) -> String {
    (0..count).map(|i| format!("{tag} line {i:04}\n")).collect()
}

/// `body` with the lines from `from` on replaced.
fn edited(tag: &str, count: usize, from: usize) -> String {
    (0..count)
        .map(|i| {
            if i < from {
                format!("{tag} line {i:04}\n")
            } else {
                format!("{tag} edit {i:04}\n")
            }
        })
        .collect()
}

fn rows(rows: &[(char, &str, &str)]) -> Vec<(char, String, String)> {
    let mut rows: Vec<(char, String, String)> = rows
        .iter()
        .map(|(letter, old, new)| (*letter, old.to_string(), new.to_string()))
        .collect();
    rows.sort();
    rows
}

#[test]
fn an_exact_rename_is_found_by_object_id_and_prefers_the_same_file_name() {
    let (repo, base) = TestRepo::with_files(&[
        ("a/first.txt", "same content\n"),
        ("b/moved.txt", "same content\n"),
        ("keep.txt", "kept\n"),
    ]);
    repo.remove("a/first.txt").remove("b/moved.txt");
    repo.write("c/moved.txt", "same content\n");
    repo.commit("move");

    let change = change(&repo, &base, RenameOptions::default());

    // Both deleted files hold the content; the one with the same name is the origin.
    assert_eq!(
        name_status(&change),
        rows(&[
            ('D', "", "a/first.txt"),
            ('R', "b/moved.txt", "c/moved.txt")
        ])
    );
    assert_eq!(name_status(&change), git_name_status(&repo, &base, &["-M"]));
    assert!(change.rename_search_skipped.is_none());
}

#[test]
fn a_similar_rename_is_found_and_a_dissimilar_one_is_an_add_and_a_delete() {
    let (repo, base) = TestRepo::with_files(&[
        ("src/old.rs", &body("alpha", 40)),
        ("src/gone.rs", &body("beta", 40)),
    ]);
    repo.remove("src/old.rs").remove("src/gone.rs");
    // 70% of the lines kept: a rename. 20% kept: not one.
    repo.write("lib/new.rs", edited("alpha", 40, 28));
    repo.write("lib/other.rs", edited("beta", 40, 8));
    repo.commit("move and edit");

    let change = change(&repo, &base, RenameOptions::default());

    assert_eq!(
        name_status(&change),
        rows(&[
            ('A', "", "lib/other.rs"),
            ('D', "", "src/gone.rs"),
            ('R', "src/old.rs", "lib/new.rs"),
        ])
    );
    assert_eq!(name_status(&change), git_name_status(&repo, &base, &["-M"]));
}

#[test]
fn many_moved_files_compared_on_two_threads_pair_as_git_pairs_them() {
    // 24 files moved and edited by degrees (from all 40 lines kept down to 17): more than
    // 16 contents to compare, so they are read on two threads before the search.
    let files: Vec<(String, String)> = (0..24)
        .map(|i| (format!("old/f{i:02}.txt"), body(&format!("f{i:02}"), 40)))
        .collect();
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    let (repo, base) = TestRepo::with_files(&borrowed);
    for (i, (path, _)) in files.iter().enumerate() {
        repo.remove(path);
        repo.write(
            &format!("new/g{i:02}.txt"),
            edited(&format!("f{i:02}"), 40, 40 - i),
        );
    }
    repo.commit("moves by degrees");

    let change = change(&repo, &base, RenameOptions::default());

    let renamed = change
        .files
        .iter()
        .filter(|file| file.status == ChangeStatus::Renamed)
        .count();
    assert!((1..24).contains(&renamed), "{renamed} renamed");
    assert_eq!(name_status(&change), git_name_status(&repo, &base, &["-M"]));
}

#[test]
fn past_the_limit_the_similarity_search_is_skipped_and_said_but_same_name_moves_are_found() {
    let (repo, base) = TestRepo::with_files(&[
        ("old/same.txt", &body("same", 40)),
        ("old/one.txt", &body("one", 40)),
        ("old/two.txt", &body("two", 40)),
    ]);
    repo.remove("old/same.txt")
        .remove("old/one.txt")
        .remove("old/two.txt");
    repo.write("new/same.txt", edited("same", 40, 36)); // 90%, same name
    repo.write("new/uno.txt", edited("one", 40, 36));
    repo.write("new/dos.txt", edited("two", 40, 36));
    repo.commit("moves");
    let limited = RenameOptions {
        copies: false,
        limit: Some(1),
    };

    let change = change(&repo, &base, limited);

    let skipped = change
        .rename_search_skipped
        .expect("the search was skipped");
    assert_eq!(
        (
            skipped.limit,
            skipped.sources,
            skipped.destinations,
            skipped.needed
        ),
        (1, 2, 2, 2)
    );
    assert_eq!(
        name_status(&change),
        rows(&[
            ('A', "", "new/dos.txt"),
            ('A', "", "new/uno.txt"),
            ('D', "", "old/one.txt"),
            ('D', "", "old/two.txt"),
            ('R', "old/same.txt", "new/same.txt"),
        ])
    );
    assert_eq!(
        name_status(&change),
        git_name_status(&repo, &base, &["-M", "-l1"])
    );
    // With room, everything pairs.
    let unlimited = RenameOptions {
        copies: false,
        limit: Some(0),
    };
    let change = self::change(&repo, &base, unlimited);
    assert!(change.rename_search_skipped.is_none());
    assert_eq!(change.files.len(), 3);
}

#[test]
fn the_limit_comes_from_diff_rename_limit_and_the_cli_reports_it_in_json_and_words() {
    let (repo, base) = TestRepo::with_files(&[
        ("old/one.txt", &body("one", 40)),
        ("old/two.txt", &body("two", 40)),
    ]);
    repo.remove("old/one.txt").remove("old/two.txt");
    repo.write("new/uno.txt", edited("one", 40, 36));
    repo.write("new/dos.txt", edited("two", 40, 36));
    repo.commit("moves");
    repo.git(&["config", "diff.renameLimit", "1"]);

    let json = repo
        .handoff()
        .args([
            "classify", "--base", &base, "--head", "HEAD", "--format", "json",
        ])
        .assert()
        .success();
    let json: Value = serde_json::from_str(&stdout_of(&json)).unwrap();
    assert_eq!(
        json["rename_search_skipped"],
        serde_json::json!({"limit": 1, "sources": 2, "destinations": 2, "needed": 2})
    );
    assert_eq!(json["files"].as_array().map(Vec::len), Some(4));

    let human = repo
        .handoff()
        .args(["classify", "--base", &base, "--head", "HEAD"])
        .assert()
        .success();
    let human = stdout_of(&human);
    assert!(
        human.contains("warning: the similarity search for renames was skipped")
            && human.contains("git config diff.renameLimit 2"),
        "{human}"
    );

    repo.git(&["config", "diff.renameLimit", "0"]);
    let json = repo
        .handoff()
        .args([
            "classify", "--base", &base, "--head", "HEAD", "--format", "json",
        ])
        .assert()
        .success();
    let json: Value = serde_json::from_str(&stdout_of(&json)).unwrap();
    assert!(json.get("rename_search_skipped").is_none(), "{json}");
    let statuses: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|file| file["status"].as_str())
        .collect();
    assert_eq!(statuses, ["renamed", "renamed"]);
}

#[test]
fn copies_are_found_only_on_request() {
    let (repo, base) = TestRepo::with_files(&[("src/orig.rs", &body("orig", 40))]);
    repo.write("src/orig.rs", format!("{}changed\n", body("orig", 40)));
    repo.write("src/copy.rs", body("orig", 40));
    repo.commit("copy");

    let renames_only = change(&repo, &base, RenameOptions::default());
    assert_eq!(
        name_status(&renames_only),
        rows(&[('A', "", "src/copy.rs"), ('M', "", "src/orig.rs")])
    );
    let copies = RenameOptions {
        copies: true,
        limit: None,
    };
    let with_copies = change(&repo, &base, copies);
    assert_eq!(
        name_status(&with_copies),
        rows(&[
            ('C', "src/orig.rs", "src/copy.rs"),
            ('M', "", "src/orig.rs")
        ])
    );
    assert_eq!(
        name_status(&with_copies),
        git_name_status(&repo, &base, &["-C"])
    );
}

#[test]
fn a_deleted_file_copied_twice_is_renamed_once_in_path_order() {
    let (repo, base) = TestRepo::with_files(&[("a.txt", &body("a", 30))]);
    repo.remove("a.txt");
    repo.write("b.txt", body("a", 30))
        .write("c.txt", body("a", 30));
    repo.commit("split");

    let renames = change(&repo, &base, RenameOptions::default());
    assert_eq!(
        name_status(&renames),
        git_name_status(&repo, &base, &["-M"])
    );
    let copies = RenameOptions {
        copies: true,
        limit: None,
    };
    let copied = change(&repo, &base, copies);
    assert_eq!(
        name_status(&copied),
        rows(&[('C', "a.txt", "b.txt"), ('R', "a.txt", "c.txt")])
    );
    assert_eq!(name_status(&copied), git_name_status(&repo, &base, &["-C"]));
}

#[test]
fn the_copies_flag_and_the_policy_key_turn_copies_on() {
    let (repo, base) = TestRepo::with_files(&[("src/orig.rs", &body("orig", 40))]);
    repo.write("src/orig.rs", format!("{}changed\n", body("orig", 40)));
    repo.write("src/copy.rs", body("orig", 40));
    repo.commit("copy");
    let status_of_copy = |args: &[&str]| -> String {
        let assert = repo
            .handoff()
            .args([
                "classify", "--base", &base, "--head", "HEAD", "--format", "json",
            ])
            .args(args)
            .assert()
            .success();
        let json: Value = serde_json::from_str(&stdout_of(&assert)).unwrap();
        let files = json["files"].as_array().unwrap().clone();
        let copy = files
            .iter()
            .find(|file| file["path"] == "src/copy.rs")
            .unwrap();
        copy["status"].as_str().unwrap().to_string()
    };
    assert_eq!(status_of_copy(&[]), "added");
    assert_eq!(status_of_copy(&["--copies"]), "copied");

    // The policy key, read from the base like every policy key.
    let (repo, base) = TestRepo::with_files(&[
        ("src/orig.rs", &body("orig", 40)),
        (".handoff.yaml", "copies: true\n"),
    ]);
    repo.write("src/orig.rs", format!("{}changed\n", body("orig", 40)));
    repo.write("src/copy.rs", body("orig", 40));
    repo.commit("copy");
    let assert = repo
        .handoff()
        .args([
            "classify", "--base", &base, "--head", "HEAD", "--format", "json",
        ])
        .assert()
        .success();
    let json: Value = serde_json::from_str(&stdout_of(&assert)).unwrap();
    let copied = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .any(|file| file["status"] == "copied" && file["old_path"] == "src/orig.rs");
    assert!(copied, "{json}");
}

#[test]
fn a_file_replaced_by_a_directory_is_a_deletion_and_additions() {
    let (repo, base) = TestRepo::with_files(&[("thing", "a file\n"), ("thing.txt", "x\n")]);
    repo.remove("thing");
    repo.write("thing/inside.txt", "now a directory\n");
    repo.commit("file to directory");

    let change = change(&repo, &base, RenameOptions::default());

    assert_eq!(name_status(&change), git_name_status(&repo, &base, &["-M"]));
    assert_eq!(
        name_status(&change),
        rows(&[('A', "", "thing/inside.txt"), ('D', "", "thing")])
    );
}

#[test]
fn an_object_missing_from_the_repository_is_a_clear_error() {
    let (repo, base) = TestRepo::with_files(&[("old.txt", &body("old", 40))]);
    repo.remove("old.txt");
    repo.write("new.txt", edited("old", 40, 30));
    repo.commit("move");
    // Remove the added file's blob, as a partial clone would lack it.
    let blob = repo.git(&["rev-parse", "HEAD:new.txt"]);
    let loose = repo
        .path()
        .join(".git/objects")
        .join(&blob[..2])
        .join(&blob[2..]);
    std::fs::remove_file(loose).expect("the blob is a loose object");

    let error = Repo::open(repo.path())
        .unwrap()
        .change_set(&base, &head_commit())
        .unwrap_err();

    assert!(matches!(error, GitError::MissingObject { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains(&blob) && message.contains("new.txt") && message.contains("fetch"),
        "{message}"
    );
    let assert = repo
        .handoff()
        .args(["classify", "--base", &base, "--head", "HEAD"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("is missing from the repository"),
        "{stderr}"
    );
}

#[test]
fn a_missing_tree_is_a_clear_error_too() {
    let (repo, base) = TestRepo::with_files(&[("dir/a.txt", "a\n")]);
    repo.write("dir/b.txt", "b\n");
    repo.commit("more");
    let tree = repo.git(&["rev-parse", "HEAD:dir"]);
    let loose = repo
        .path()
        .join(".git/objects")
        .join(&tree[..2])
        .join(&tree[2..]);
    std::fs::remove_file(loose).expect("the tree is a loose object");

    let error = Repo::open(repo.path())
        .unwrap()
        .change_set(&base, &head_commit())
        .unwrap_err();

    assert!(
        matches!(&error, GitError::MissingObject { id, path } if *id == tree && path == "dir"),
        "{error:?}"
    );
}

/// A small deterministic generator, so the differential runs the same cases every time.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % bound as u64) as usize
    }
}

#[test]
fn pairs_agree_with_git_on_generated_histories() {
    for seed in 0..12u64 {
        let mut random = Lcg(seed);
        let repo = TestRepo::new();
        let names = ["model", "view", "util", "config", "test_app", "readme"];
        let dirs = ["", "src/", "lib/", "app/core/"];
        let mut files = Vec::new();
        for index in 0..14 {
            let name = names[random.next(names.len())];
            let path = format!("{}{name}{index}.txt", dirs[random.next(dirs.len())]);
            let lines = 5 + random.next(60);
            repo.write(&path, body(&format!("{name}{}", random.next(4)), lines));
            files.push((path, lines));
        }
        let base = repo.commit("base");
        for (index, (path, lines)) in files.iter().enumerate() {
            let tag = format!("t{seed}x{index}");
            match random.next(6) {
                0 => {
                    repo.remove(path);
                }
                1 | 2 => {
                    // Move, keeping the name or not, editing a random share of the lines.
                    let content = std::fs::read_to_string(repo.path().join(path)).unwrap();
                    repo.remove(path);
                    let keep = random.next(lines + 1);
                    let moved: String = content
                        .lines()
                        .enumerate()
                        .map(|(i, line)| {
                            if i < keep {
                                format!("{line}\n")
                            } else {
                                format!("{tag} {i}\n")
                            }
                        })
                        .collect();
                    let file_name = path.rsplit('/').next().unwrap_or(path);
                    let target = if random.next(2) == 0 {
                        format!("moved/{file_name}")
                    } else {
                        format!("moved/renamed{index}.txt")
                    };
                    repo.write(&target, moved);
                }
                3 => {
                    repo.write(path, body(&tag, *lines));
                }
                _ => {}
            }
        }
        repo.commit("change");

        let ours = change(&repo, &base, RenameOptions::default());
        assert_eq!(
            name_status(&ours),
            git_name_status(&repo, &base, &["-M"]),
            "seed {seed}"
        );
        let copies = RenameOptions {
            copies: true,
            limit: None,
        };
        let ours = change(&repo, &base, copies);
        assert_eq!(
            name_status(&ours),
            git_name_status(&repo, &base, &["-C"]),
            "seed {seed}, copies"
        );
    }
}
