//! Terminal manners: what a command reads with no path, `--color` and `NO_COLOR`,
//! completions, the manual page, `--version`, the summary on success, and help and
//! examples a user can follow without the project's sources.

use crate::common::{handoff, handoff_in, stdout_of, TestRepo};
use std::path::Path;

const RECORD: &str = "examples/task-assignment.md";

fn repo_with_records() -> TestRepo {
    let repo = TestRepo::new();
    let record = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORD))
        .expect("the example record");
    repo.write(".handoff/eng-42.md", &record);
    repo.write("src/app.py", "print('hi')\n");
    repo.commit("records");
    repo
}

#[test]
fn record_commands_without_a_path_read_the_records_directory() {
    let repo = repo_with_records();
    let sub = repo.path().join("src");
    let lint = handoff_in(&sub).arg("lint").assert().success();
    assert_eq!(stdout_of(&lint), "1 file, 1 record: no problems\n");
    let parse = handoff_in(repo.path()).arg("parse").assert().success();
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&parse)).expect("JSON");
    assert_eq!(json["records"][0]["source"], ".handoff/eng-42.md");
    handoff_in(repo.path()).arg("audit").assert().success();
    handoff_in(repo.path())
        .args(["fmt", "--check"])
        .assert()
        .code(1)
        .stderr("1 file: 1 would be reformatted, 0 already canonical\n");
    handoff_in(repo.path())
        .arg("fmt")
        .assert()
        .success()
        .stderr("formatted .handoff/eng-42.md\n1 file: 1 reformatted, 0 already canonical\n");
    handoff_in(repo.path())
        .args(["fmt", "--check"])
        .assert()
        .success()
        .stderr("1 file: 0 would be reformatted, 1 already canonical\n");
}

#[test]
fn the_policys_records_dir_is_the_default_and_a_missing_one_is_named() {
    let repo = TestRepo::new();
    repo.write("handoff-records/a.md", "# Notes\n");
    repo.write(".handoff.yaml", "records_dir: handoff-records\n");
    repo.commit("custom records dir");
    let lint = handoff_in(repo.path()).arg("lint").assert().success();
    assert_eq!(stdout_of(&lint), "1 file, 0 records: no problems\n");

    let empty = TestRepo::new();
    let output = handoff_in(empty.path()).arg("lint").output().expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no records directory"), "{stderr}");
    assert!(stderr.contains("`-` to read standard input"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn a_dash_still_reads_standard_input() {
    let repo = TestRepo::new();
    let record = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORD))
        .expect("the example record");
    let lint = handoff_in(repo.path())
        .args(["lint", "-"])
        .write_stdin(record)
        .assert()
        .success();
    assert_eq!(stdout_of(&lint), "1 file, 1 record: no problems\n");
}

fn lint_broken(color: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = handoff();
    command.args(["lint", "-"]).args(color);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command
        .write_stdin("## Interaction Record\n\n| Task ID | ENG-1 |\n")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn color_is_painted_only_when_asked_or_on_a_terminal_without_no_color() {
    let escape = "\u{1b}[";
    let always = lint_broken(&["--color", "always"], &[]);
    assert!(always.contains(escape), "{always:?}");
    assert!(always.contains("error["), "{always:?}");
    // Always wins over NO_COLOR: it is an explicit request.
    assert!(lint_broken(&["--color=always"], &[("NO_COLOR", "1")]).contains(escape));
    // Not a terminal (a pipe here): auto paints nothing; never and NO_COLOR neither.
    for (args, env) in [
        (&[][..], &[][..]),
        (&["--color", "never"][..], &[][..]),
        (&["--color", "auto"][..], &[("NO_COLOR", "1")][..]),
    ] {
        let plain = lint_broken(args, env);
        assert!(!plain.contains(escape), "{args:?}: {plain:?}");
        assert!(plain.contains("error["), "{plain}");
    }
    // JSON is never painted.
    let json = lint_broken(&["--color", "always", "--format", "json"], &[]);
    assert!(!json.contains(escape));
    serde_json::from_str::<serde_json::Value>(&json).expect("still JSON");
}

#[test]
fn completions_are_generated_for_each_shell() {
    for (shell, marker) in [
        ("bash", "complete -F _handoff"),
        ("zsh", "#compdef handoff"),
        ("fish", "complete -c handoff"),
        ("elvish", "handoff"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let script = stdout_of(&handoff().args(["completions", shell]).assert().success());
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("classify"), "{shell} lacks a command");
    }
    handoff().args(["completions", "tcsh"]).assert().code(2);
}

#[test]
fn the_manual_page_is_roff_for_the_tool_and_each_command() {
    let page = stdout_of(&handoff().arg("man").assert().success());
    assert!(page.contains(".TH handoff 1"), "{page}");
    assert!(page.contains("check"), "{page}");
    let check = stdout_of(&handoff().args(["man", "check"]).assert().success());
    assert!(check.contains(".TH handoff-check 1"), "{check}");
    assert!(check.contains("handoff check"), "{check}");
    assert!(check.contains("\\-\\-base"), "{check}");
    let wrong = handoff().args(["man", "nope"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&wrong.get_output().stderr).into_owned();
    assert!(
        stderr.contains("one of: ") && stderr.contains("check"),
        "{stderr}"
    );
}

#[test]
fn the_version_names_the_commit_it_was_built_from() {
    let version = stdout_of(&handoff().arg("--version").assert().success());
    let expected = format!("handoff {}", env!("CARGO_PKG_VERSION"));
    assert!(version.starts_with(&expected), "{version}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let head = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root)
        .output();
    // Built from a git checkout: the commit's first 12 digits and its date.
    if let Some(head) = head.ok().filter(|output| output.status.success()) {
        let commit = String::from_utf8_lossy(&head.stdout);
        assert!(
            version.contains(&format!("({}", &commit[..12])),
            "{version}"
        );
    }
}

/// Every command's help, recursively.
fn every_help(path: &mut Vec<String>, into: &mut Vec<(String, String)>) {
    let output = handoff().args(path.iter()).arg("--help").assert().success();
    let help = stdout_of(&output);
    into.push((path.join(" "), help.clone()));
    let commands = help
        .split("Commands:\n")
        .nth(1)
        .map(|rest| rest.split("\n\n").next().unwrap_or_default().to_string())
        .unwrap_or_default();
    for line in commands.lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        if !name.is_empty() && name != "help" {
            path.push(name.to_string());
            every_help(path, into);
            path.pop();
        }
    }
}

#[test]
fn no_help_text_refers_to_what_a_user_never_sees() {
    let mut helps = Vec::new();
    every_help(&mut Vec::new(), &mut helps);
    assert!(helps.len() > 20, "{}", helps.len());
    for (command, help) in &helps {
        for word in [
            "GATE.md",
            "CONTRACT.md",
            "RECORDS.md",
            "seed",
            "§",
            "spec/",
            "../",
        ] {
            assert!(
                !help.contains(word),
                "`handoff {command} --help` says {word}:\n{help}"
            );
        }
    }
}

#[test]
fn every_example_file_the_readme_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("the README");
    let named: Vec<&str> = readme
        .split(|c: char| c.is_whitespace() || "`()[]<>\"'".contains(c))
        .filter(|word| word.starts_with("examples/"))
        .map(|word| word.trim_end_matches([',', '.', ':', ';']))
        .collect();
    assert!(named.len() > 10, "{named:?}");
    for path in named {
        assert!(
            root.join(path).exists(),
            "the README names {path}, which is missing"
        );
    }
}

/// `classify` and `check` are parsed against their own arguments first; help and errors
/// must still be the whole tool's: the command's description, `handoff <command>` in the
/// usage line, the global `--color` accepted on either side of the command.
#[test]
fn gate_commands_print_the_whole_tools_help_and_errors() {
    for (command, about) in [
        ("classify", "Classify a change's risk from its git diff"),
        (
            "check",
            "Gate a change: risk, evidence, file scope and sign-off",
        ),
    ] {
        let help = handoff().args([command, "--help"]).assert().success();
        assert!(stdout_of(&help).starts_with(about), "{}", stdout_of(&help));
        let wrong = handoff().args([command, "--bogus"]).assert().code(2);
        let error = String::from_utf8_lossy(&wrong.get_output().stderr).to_string();
        assert!(error.contains("unexpected argument '--bogus'"), "{error}");
        assert!(
            error.contains(&format!("Usage: handoff {command} [OPTIONS]")),
            "{error}"
        );
        for color in [[command, "--color", "never"], ["--color", "never", command]] {
            let outside = handoff_in(&std::env::temp_dir())
                .args(color)
                .assert()
                .code(2);
            let error = String::from_utf8_lossy(&outside.get_output().stderr).to_string();
            assert!(!error.contains("unexpected argument"), "{error}");
        }
    }
}
