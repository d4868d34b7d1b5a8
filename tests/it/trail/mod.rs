//! `handoff message` and `handoff trail`: real files, real trails in temporary
//! directories, and the real binary.

mod lifecycle;
mod location;
mod messages;
mod retention;
mod tamper;
mod timeouts;
mod views;

use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// What a run of the binary did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A trail in a temporary directory.
pub struct TestTrail {
    pub dir: TempDir,
}

/// Messages for a trail of over 1 MiB (where a checkpoint is worth keeping): twelve
/// handoffs `ho_0`…`ho_11` of 100 kB each, all but every third one accepted.
pub fn padded_messages() -> String {
    let padding = "x".repeat(100_000);
    let mut messages = String::new();
    for n in 0..12 {
        messages.push_str(&format!(
            r#"{{"handoff":{{"id":"ho_{n}","timestamp":"2026-01-11T20:30:00Z","from_agent":"a","to_agent":"b","type":"sequential","reason":"r","context":{{"task_id":"T-{n}","context_variables":{{"pad":"{padding}"}}}}}}}}"#
        ));
        messages.push('\n');
        if n % 3 != 0 {
            messages.push_str(&format!(
                "{{\"handoff_id\":\"ho_{n}\",\"status\":\"accepted\",\"acknowledged_at\":\"2026-01-11T20:31:00Z\"}}\n"
            ));
        }
    }
    messages
}

impl Default for TestTrail {
    fn default() -> Self {
        TestTrail::new()
    }
}

impl TestTrail {
    pub fn new() -> TestTrail {
        TestTrail {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// The trail directory.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("trail")
    }

    /// Runs `handoff trail ARGS --trail DIR`.
    pub fn run(&self, args: &[&str]) -> Run {
        let trail = self.path();
        let mut full: Vec<&str> = vec!["trail"];
        full.extend_from_slice(args);
        full.push("--trail");
        full.push(trail.to_str().expect("a UTF-8 path"));
        run_in(self.dir.path(), &full, None)
    }

    /// Runs `handoff trail append -` with `input` on standard input.
    pub fn append(&self, input: &str) -> Run {
        let trail = self.path();
        let args = [
            "trail",
            "append",
            "-",
            "--trail",
            trail.to_str().expect("UTF-8"),
        ];
        run_in(self.dir.path(), &args, Some(input))
    }

    /// Runs a command that must succeed; returns its standard output.
    pub fn ok(&self, args: &[&str]) -> String {
        let run = self.run(args);
        assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
        run.stdout
    }

    /// Opens a handoff; returns its id.
    pub fn open(&self, extra: &[&str]) -> String {
        let mut args = vec![
            "open",
            "--from",
            "architect",
            "--to",
            "auto-code",
            "--type",
            "sequential",
            "--task",
            "ENG-42",
            "--reason",
            "build the auth module",
        ];
        args.extend_from_slice(extra);
        self.ok(&args).trim().to_string()
    }

    /// The segment files, oldest first.
    pub fn segments(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.path())
            .expect("the trail exists")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        files
    }

    /// Every byte of every file of the trail, to show nothing changed.
    pub fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(self.path())
            .map(|entries| {
                entries
                    .map(|e| e.expect("an entry").path())
                    .map(|p| {
                        let bytes = std::fs::read(&p).expect("read a trail file");
                        (p, bytes)
                    })
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    }

    /// The lines of the only segment.
    pub fn lines(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.segments()[0]).expect("a segment");
        text.lines().map(str::to_string).collect()
    }

    /// Replaces the only segment's lines.
    pub fn write_lines(&self, lines: &[String]) {
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(&self.segments()[0], text).expect("write the segment");
    }
}

/// Runs the binary in `dir`.
pub fn run_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    let mut command = crate::common::handoff_in(dir);
    command.args(args);
    if let Some(input) = stdin {
        command.write_stdin(input.to_string());
    }
    let output = command.output().expect("run handoff");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A fixture of `tests/fixtures/trail/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trail")
        .join(name)
}
