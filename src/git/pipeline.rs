//! Streaming a large change on two threads: one reads (inflates) and diffs the files,
//! the caller's thread hands the lines to the visitor, a few files behind.
//!
//! Inflating objects and diffing lines are most of the cost of a large change, and the
//! visitor's own work (classifying each line) is the rest; on two cores the two overlap.
//! The reading thread opens the repository again (libgit2 shares the pack files between
//! the two handles) and records, for each file in order, the lines it would stream: the
//! changed lines' bytes and numbers, not the whole contents, so memory stays bounded by
//! the files in flight. It cannot ask the visitor which files it wants, so it diffs them
//! all; a file the visitor reads whole instead of diffed (a rename out of a place it did
//! not read, see [`ChangeVisitor::whole`]) is read again on the caller's thread. The visitor sees
//! exactly the calls, in exactly the order, that the one-thread stream makes.

use super::content::{stream_whole, Kept};
use super::listing::Entry;
use super::{ChangeVisitor, ChangedFile, DiffLine, GitError, LineSide, Repo};
use std::sync::mpsc;

/// Changes with fewer files than this are streamed on one thread: opening the
/// repository again would cost more than it saves.
pub(super) const MIN_FILES: usize = 64;

/// How many files the reading thread may prepare ahead of the visitor.
const AHEAD: usize = 8;

/// One file as the reading thread prepared it.
struct Recorded {
    file: Option<ChangedFile>,
    /// The changed lines' bytes, one after another.
    text: Vec<u8>,
    /// Each line: its side, number, and where its bytes lie in `text`.
    lines: Vec<(LineSide, usize, usize, usize)>,
    /// Whether lines were recorded at all (not for submodules).
    has_lines: bool,
}

/// A visitor that wants every file's lines and writes them down.
#[derive(Default)]
struct Recorder {
    text: Vec<u8>,
    lines: Vec<(LineSide, usize, usize, usize)>,
    asked: bool,
}

impl ChangeVisitor for Recorder {
    fn file(&mut self, file: &ChangedFile) -> bool {
        self.asked = !file.submodule;
        true
    }

    fn line(&mut self, _file: &ChangedFile, line: DiffLine<'_>) {
        let start = self.text.len();
        self.text.extend_from_slice(line.content);
        self.lines
            .push((line.side, line.number, start, self.text.len()));
    }
}

impl Repo {
    /// Streams `entries` to `visitor`, reading and diffing them on a second thread.
    pub(super) fn stream_in_parallel(
        &self,
        entries: &[Entry],
        kept: Kept,
        visitor: &mut dyn ChangeVisitor,
    ) -> Result<Vec<ChangedFile>, GitError> {
        let reader = self.reopen()?;
        let (sender, receiver) = mpsc::sync_channel::<Result<Recorded, GitError>>(AHEAD);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut kept = kept;
                for entry in entries {
                    let recorded = reader.record_entry(entry, &mut kept);
                    let failed = recorded.is_err();
                    // The receiver is gone when the visitor's side stopped early.
                    if sender.send(recorded).is_err() || failed {
                        break;
                    }
                }
            });
            let mut files = Vec::with_capacity(entries.len());
            for (entry, recorded) in entries.iter().zip(receiver.iter()) {
                files.extend(self.replay(entry, recorded?, visitor)?);
            }
            Ok(files)
        })
    }

    /// A second handle on the same repository (its git directory, which gives it the same
    /// working tree), for the reading thread.
    fn reopen(&self) -> Result<Repo, GitError> {
        Repo::open(self.inner.path())
    }

    fn record_entry(&self, entry: &Entry, kept: &mut Kept) -> Result<Recorded, GitError> {
        let mut recorder = Recorder::default();
        let file = self.stream_entry(entry, kept, &mut recorder)?;
        Ok(Recorded {
            file,
            text: recorder.text,
            lines: recorder.lines,
            has_lines: recorder.asked,
        })
    }

    /// Hands one prepared file to the visitor as the one-thread stream would.
    fn replay(
        &self,
        entry: &Entry,
        recorded: Recorded,
        visitor: &mut dyn ChangeVisitor,
    ) -> Result<Option<ChangedFile>, GitError> {
        let Some(file) = recorded.file else {
            return Ok(None);
        };
        if !recorded.has_lines {
            visitor.file(&file);
            return Ok(Some(file));
        }
        if !visitor.file(&file) {
            return Ok(Some(file));
        }
        if !file.binary && visitor.whole(&file) {
            if let Some(new) = &entry.new {
                let content = self.read_side(new)?;
                stream_whole(&file, &content, LineSide::Added, visitor);
            }
            return Ok(Some(file));
        }
        for (side, number, start, end) in recorded.lines {
            let content = &recorded.text[start..end];
            visitor.line(
                &file,
                DiffLine {
                    side,
                    number,
                    content,
                },
            );
        }
        Ok(Some(file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::RenameOptions;
    use std::process::Command;

    /// Writes down every call a visitor receives; declines every third file and reads
    /// renames whole, so that both answers are exercised.
    #[derive(Default)]
    struct Log {
        calls: Vec<String>,
        seen: usize,
    }

    impl ChangeVisitor for Log {
        fn file(&mut self, file: &ChangedFile) -> bool {
            self.seen += 1;
            self.calls.push(format!("file {file:?}"));
            self.seen % 3 != 0
        }

        fn line(&mut self, file: &ChangedFile, line: DiffLine<'_>) {
            let text = line.text();
            let (side, number) = (line.side, line.number);
            self.calls
                .push(format!("line {} {side:?} {number} {text}", file.path));
        }

        fn whole(&self, file: &ChangedFile) -> bool {
            file.old_path.is_some()
        }
    }

    fn git(dir: &std::path::Path, args: &[&str]) {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("run git");
        assert!(status.success(), "git {args:?}");
    }

    #[test]
    fn the_two_thread_stream_makes_the_one_thread_streams_calls() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main", "--template="]);
        git(root, &["config", "user.email", "test@example.com"]);
        git(root, &["config", "user.name", "Test"]);
        let body = |i: usize, edit: &str| -> String {
            (0..40)
                .map(|line| format!("line {line} of {i}{edit}\n"))
                .collect()
        };
        for i in 0..90 {
            std::fs::write(root.join(format!("f{i:02}.txt")), body(i, "")).expect("write");
        }
        std::fs::write(root.join("moved.txt"), body(100, "")).expect("write");
        std::fs::write(root.join("image.bin"), b"\0\x01binary\0").expect("write");
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "base"]);
        for i in 0..90 {
            let path = root.join(format!("f{i:02}.txt"));
            match i % 3 {
                0 => std::fs::write(&path, body(i, " edited")).expect("write"),
                1 => std::fs::remove_file(&path).expect("remove"),
                _ => std::fs::write(root.join(format!("g{i:02}.txt")), body(i, "")).expect("write"),
            }
        }
        std::fs::rename(root.join("moved.txt"), root.join("sub-moved.txt")).expect("move");
        std::fs::write(root.join("image.bin"), b"\0\x02binary AKIA\0").expect("write");
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "head"]);

        let repo = Repo::open(root).expect("opens");
        let base = repo.commit_of("HEAD~1").expect("base");
        let head = repo.commit_of("HEAD").expect("head");
        let mut entries = repo.entries(base, Some(head)).expect("entries");
        let options = RenameOptions::default();
        let (_, kept) = repo.pair_renames(&mut entries, &options).expect("pairs");
        assert!(entries.len() >= MIN_FILES, "{} entries", entries.len());

        let mut one = Log::default();
        let mut none_kept = Kept::default();
        let mut files = Vec::new();
        for entry in &entries {
            files.extend(
                repo.stream_entry(entry, &mut none_kept, &mut one)
                    .expect("streams"),
            );
        }
        let mut two = Log::default();
        let parallel = repo
            .stream_in_parallel(&entries, kept, &mut two)
            .expect("streams");
        assert_eq!(parallel, files);
        assert_eq!(two.calls, one.calls);
        assert!(one.calls.iter().any(|call| call.contains("sub-moved.txt")));
        assert!(one.calls.iter().any(|call| call.contains("AKIA")));
    }
}
