//! The README's quickstart, run as written: from an empty repository to a pull request
//! the gate annotates. GitHub is a bare repository in a temp dir: the clone URL is
//! replaced by its path, and merging the adoption pull request is a push to its `main`.

use std::path::Path;
use std::process::Command;

/// The quickstart's heading in the README.
const HEADING: &str = "### Quickstart: from an empty repository to a gated pull request";

/// The URL the README clones, which the test replaces by the bare repository's path.
const CLONE_URL: &str = "https://github.com/OWNER/app";

/// The quickstart section (heading to the next heading) and its shell block's command
/// lines (continuations joined).
fn quickstart() -> (String, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("the README");
    let start = readme.find(HEADING).expect("the quickstart heading");
    let rest = &readme[start + HEADING.len()..];
    let section = &rest[..rest.find("\n#").unwrap_or(rest.len())];
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|code| code.split("\n```").next())
        .expect("the quickstart's shell block");
    let commands = block
        .replace("\\\n", "")
        .lines()
        .map(str::to_string)
        .collect();
    (format!("{HEADING}{section}"), commands)
}

/// Runs `script` with bash in `dir`, `handoff` on the path, git's identity set and no
/// user configuration read.
fn bash(dir: &Path, script: &str) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_handoff"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("the binary's directory").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Dev")
        .env("GIT_AUTHOR_EMAIL", "dev@example.com")
        .env("GIT_COMMITTER_NAME", "Dev")
        .env("GIT_COMMITTER_EMAIL", "dev@example.com")
        .env("NO_COLOR", "1")
        .output()
        .expect("run bash")
}

#[test]
fn the_readme_quickstart_runs_as_written_and_fits_a_screen() {
    let (section, commands) = quickstart();
    assert!(
        section.lines().count() <= 40,
        "the quickstart is {} lines",
        section.lines().count()
    );
    let dir = tempfile::tempdir().expect("a temp dir");
    let github = dir.path().join("github").join("app");
    let init = Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&github)
        .status()
        .expect("git init");
    assert!(init.success());
    // Each command as the README writes it, its exit code noted; the steps a user does
    // on GitHub in between are pushes to the bare repository.
    let mut script = String::from("codes=\"$PWD/codes\"\n");
    for command in &commands {
        if command.starts_with("git switch main && git pull") {
            script.push_str("git push -q origin adopt-handoff:main\n");
        }
        let command = command.replace(CLONE_URL, &github.display().to_string());
        script.push_str(&format!("{command}\necho $? >> \"$codes\"\n"));
    }
    let output = bash(dir.path(), &script);
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let codes = std::fs::read_to_string(dir.path().join("codes")).unwrap_or_default();
    let codes: Vec<&str> = codes.lines().collect();
    assert_eq!(codes.len(), commands.len(), "{log}");
    // The review is a skeleton until the agent fills it in: lint and the gate say so.
    // The adoption change's check passes (0), the agent's is a reject (1).
    let mut checks = ["0", "1"].into_iter();
    for (command, code) in commands.iter().zip(&codes) {
        let expected = if command.starts_with("handoff lint") {
            "1"
        } else if command.starts_with("handoff check") {
            checks.next().unwrap_or("0")
        } else {
            "0"
        };
        assert_eq!(*code, expected, "`{command}` exited {code}:\n{log}");
    }
    assert_eq!(checks.next(), None, "two checks in the quickstart");
    // The adoption change passes; the agent's change is rejected with what to add.
    assert!(log.contains("pass: no task at high risk"), "{log}");
    assert!(log.contains("reject: task ENG-1 at medium risk"), "{log}");
    // What the workflow runs on the pull request (`origin/<base>`, the head).
    let app = dir.path().join("app");
    let github_format = bash(
        &app,
        "handoff check --base origin/main --head HEAD --format github",
    );
    let annotations = String::from_utf8_lossy(&github_format.stdout);
    assert_eq!(github_format.status.code(), Some(1), "{annotations}");
    assert!(
        annotations.contains(
            "::error file=.handoff/eng-1-review.md,line=25,title=handoff evidence-missing::"
        ),
        "{annotations}"
    );
    assert!(
        annotations
            .contains("::notice file=src/api/items.py,title=handoff api-route.path.api-dir::"),
        "{annotations}"
    );
    let markdown = bash(
        &app,
        "handoff check --base origin/main --head HEAD --format markdown",
    );
    let summary = String::from_utf8_lossy(&markdown.stdout);
    assert!(
        summary.starts_with("### ❌ handoff check — reject: task ENG-1 at medium risk"),
        "{summary}"
    );
    // The agent's branch reached "GitHub".
    let branches = bash(&github, "git branch --list eng-1");
    assert!(String::from_utf8_lossy(&branches.stdout).contains("eng-1"));
}
