//! Where the trail is when no `--trail` is given: the policy's `trail_dir`, in a real
//! repository, run from a subdirectory; `--trail` wins; a wrong value names its line.

use super::run_in;
use crate::common::TestRepo;

const OPEN: [&str; 12] = [
    "trail",
    "open",
    "--from",
    "a",
    "--to",
    "b",
    "--type",
    "sequential",
    "--task",
    "ENG-1",
    "--reason",
    "r",
];

#[test]
fn the_policy_trail_dir_moves_the_trail_and_trail_wins() {
    let (repo, _) = TestRepo::with_files(&[
        ("README.md", "# app\n"),
        (
            ".handoff.yaml",
            "records_dir: meta\ntrail_dir: audit/trail/\n",
        ),
        ("src/lib.rs", "\n"),
        ("meta/README.md", "# Records\n"),
    ]);
    let sub = repo.path().join("src");
    let opened = run_in(&sub, &OPEN, None);
    assert_eq!(opened.code, 0, "{}", opened.stderr);
    let moved = repo.path().join("audit/trail");
    assert!(
        moved.join("HEAD").is_file(),
        "the trail is where the policy says"
    );
    assert!(!repo.path().join(".handoff/trail").exists());
    let listed = run_in(repo.path(), &["trail", "list", "--format", "json"], None);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert!(
        listed.stdout.contains(opened.stdout.trim()),
        "{}",
        listed.stdout
    );

    // `--trail` overrides the policy: the other trail gets the event, this one nothing.
    let before = std::fs::read(moved.join("HEAD")).expect("HEAD");
    let mut args = OPEN.to_vec();
    args.extend(["--trail", "elsewhere"]);
    let other = run_in(repo.path(), &args, None);
    assert_eq!(other.code, 0, "{}", other.stderr);
    assert!(repo.path().join("elsewhere/HEAD").is_file());
    assert_eq!(std::fs::read(moved.join("HEAD")).expect("HEAD"), before);

    // The audit page reads the same trail.
    let page = run_in(repo.path(), &["audit", "--format", "html"], None);
    let path = "audit&#x2F;trail (1 events, head seq 0)";
    assert!(page.stdout.contains(path), "{}", page.stdout);
}

#[test]
fn a_trail_dir_outside_the_repository_is_an_error_at_its_line() {
    for value in ["/var/lib/trail", "../trail", "a/../../b"] {
        let (repo, _) = TestRepo::with_files(&[(
            ".handoff.yaml",
            &format!("copies: false\ntrail_dir: '{value}'\n"),
        )]);
        let run = run_in(repo.path(), &OPEN, None);
        assert_eq!(run.code, 2, "{value}: {}", run.stdout);
        assert!(
            run.stderr.contains(".handoff.yaml:2:") && run.stderr.contains("trail_dir"),
            "{value}: {}",
            run.stderr
        );
        assert!(!repo.path().join(".handoff").exists(), "nothing written");
    }
}
