//! Streaming a large change on two threads: both read (inflate) and diff the files, the
//! caller's thread also hands the lines to the visitor, in order.
//!
//! Inflating objects and diffing lines are most of the cost of a large change, and the
//! visitor's own work (classifying each line) is the rest; on two cores the two overlap.
//! The reading thread opens the repository again (libgit2 shares the pack files between
//! the two handles) and records, for each file it claims, the lines it would stream: the
//! changed lines' bytes and numbers, not the whole contents, so memory stays bounded by
//! the files in flight. Files are claimed in order by whichever thread is free: when the
//! file the visitor needs next is still being read on the other thread (a big file, or a
//! visitor quicker than the reading), the caller's thread claims and records the next
//! ones itself rather than wait, a few at most. Neither thread can ask the visitor which
//! files it wants, so both diff them all; a file the visitor reads whole instead of
//! diffed (a rename out of a place it did not read, see [`ChangeVisitor::whole`]) is read
//! again on the caller's thread. The visitor sees exactly the calls, in exactly the
//! order, that the one-thread stream makes.

use super::content::{stream_whole, Kept};
use super::listing::Entry;
use super::{ChangeVisitor, ChangedFile, DiffLine, GitError, LineSide, Repo};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex, PoisonError};

/// Changes with fewer files than this are streamed on one thread: opening the
/// repository again would cost more than it saves.
pub(super) const MIN_FILES: usize = 64;

/// How many files the reading thread may prepare ahead of the visitor, and how many the
/// caller's thread may prepare itself while it waits for one.
const AHEAD: usize = 8;

/// The files of a change, claimed one at a time, in order, by whichever thread is free.
struct Work<'e> {
    entries: &'e [Entry],
    /// The first file nobody has claimed.
    next: AtomicUsize,
    /// Contents read while pairing renames, taken by the thread that claims their file.
    kept: Mutex<Kept>,
    /// What the visitor wants looked for in each old side.
    needle: Option<&'static [u8]>,
}

impl<'e> Work<'e> {
    fn claim(&self) -> Option<(usize, &'e Entry)> {
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        self.entries.get(index).map(|entry| (index, entry))
    }
}

/// A file prepared by either thread: its index among the entries, and what was read.
type Prepared = (usize, Result<Recorded, GitError>);

/// One file as the reading thread prepared it.
struct Recorded {
    file: Option<ChangedFile>,
    /// The changed lines' bytes, one after another.
    text: Vec<u8>,
    /// Each line: its side, number, and where its bytes lie in `text`.
    lines: Vec<(LineSide, usize, usize, usize)>,
    /// Whether lines were recorded at all (not for submodules).
    has_lines: bool,
    /// Whether the old side holds the visitor's needle, when it was looked for.
    old_holds: Option<bool>,
}

/// A visitor that wants every file's lines and writes them down, with whether its old
/// side holds the needle of the visitor it records for.
#[derive(Default)]
struct Recorder {
    text: Vec<u8>,
    lines: Vec<(LineSide, usize, usize, usize)>,
    asked: bool,
    needle: Option<&'static [u8]>,
    old_holds: Option<bool>,
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

    fn old_side_needle(&self) -> Option<&'static [u8]> {
        self.needle
    }

    fn old_side_holds(&mut self, _file: &ChangedFile, holds: bool) {
        self.old_holds = Some(holds);
    }
}

impl Repo {
    /// Streams `entries` to `visitor`, reading and diffing them on a second thread, and on
    /// this one whenever the file the visitor needs next is not ready.
    pub(super) fn stream_in_parallel(
        &self,
        entries: &[Entry],
        kept: Kept,
        visitor: &mut dyn ChangeVisitor,
    ) -> Result<Vec<ChangedFile>, GitError> {
        let reader = self.reopen()?;
        let work = Work {
            entries,
            next: AtomicUsize::new(0),
            kept: Mutex::new(kept),
            needle: visitor.old_side_needle(),
        };
        let (sender, receiver) = mpsc::sync_channel::<Prepared>(AHEAD);
        std::thread::scope(|scope| {
            let work = &work;
            // Moved in, so that it is dropped as soon as the visitor's side returns (an
            // error included), before the scope waits for the reading thread: that
            // thread's next send then fails and it stops, where it would otherwise wait
            // for room in a channel nobody reads.
            let receiver = receiver;
            scope.spawn(move || {
                while let Some((index, entry)) = work.claim() {
                    let recorded = reader.record_entry(entry, work);
                    let failed = recorded.is_err();
                    // The receiver is gone when the visitor's side stopped early.
                    if sender.send((index, recorded)).is_err() || failed {
                        break;
                    }
                }
            });
            let mut ready = BTreeMap::new();
            let mut files = Vec::with_capacity(entries.len());
            for (index, entry) in entries.iter().enumerate() {
                let recorded = loop {
                    if let Some(recorded) = ready.remove(&index) {
                        break recorded;
                    }
                    let (index, recorded) = self.prepare_next(work, &receiver, ready.len())?;
                    ready.insert(index, recorded);
                };
                files.extend(self.replay(entry, recorded?, visitor)?);
            }
            Ok(files)
        })
    }

    /// The next file prepared while the visitor waits for one the reading thread holds:
    /// one the reading thread has sent, else one this thread claims and prepares itself
    /// (while fewer than [`AHEAD`] wait here), else the reading thread's next.
    fn prepare_next(
        &self,
        work: &Work<'_>,
        receiver: &mpsc::Receiver<Prepared>,
        waiting: usize,
    ) -> Result<Prepared, GitError> {
        let stopped = match receiver.try_recv() {
            Ok(prepared) => return Ok(prepared),
            Err(error) => error == mpsc::TryRecvError::Disconnected,
        };
        if waiting < AHEAD {
            if let Some((index, entry)) = work.claim() {
                return Ok((index, self.record_entry(entry, work)));
            }
        }
        // Every file is claimed and the one needed is the reading thread's: it sends it,
        // or has stopped without it (only when it failed on an earlier file, whose error
        // the visitor's side returns first).
        let received = if stopped {
            Err(mpsc::RecvError)
        } else {
            receiver.recv()
        };
        received.map_err(|_| GitError::Git {
            doing: "reading a change on a second thread".to_string(),
            message: "the reading thread stopped".to_string(),
        })
    }

    /// A second handle on the same repository (its git directory, which gives it the same
    /// working tree), for the reading thread.
    pub(super) fn reopen(&self) -> Result<Repo, GitError> {
        Repo::open(self.inner.path())
    }

    fn record_entry(&self, entry: &Entry, work: &Work<'_>) -> Result<Recorded, GitError> {
        let mut kept = work
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take_entry(entry);
        let mut recorder = Recorder {
            needle: work.needle,
            ..Recorder::default()
        };
        let file = self.stream_entry(entry, &mut kept, &mut recorder)?;
        Ok(Recorded {
            file,
            text: recorder.text,
            lines: recorder.lines,
            has_lines: recorder.asked,
            old_holds: recorder.old_holds,
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
        let accepted = visitor.file(&file);
        if let Some(holds) = recorded.old_holds {
            visitor.old_side_holds(&file, holds);
        }
        if !accepted {
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
        /// Every how many files the visitor stops a moment (so that the reading thread
        /// runs ahead of it), if it does.
        pause_every: Option<usize>,
    }

    impl ChangeVisitor for Log {
        fn file(&mut self, file: &ChangedFile) -> bool {
            self.seen += 1;
            if self.pause_every.is_some_and(|every| self.seen % every == 1) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
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

        fn old_side_needle(&self) -> Option<&'static [u8]> {
            Some(b"line 7 of 3\n")
        }

        fn old_side_holds(&mut self, file: &ChangedFile, holds: bool) {
            self.calls
                .push(format!("old side of {} holds: {holds}", file.path));
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

    /// A change of 92 entries (edits, deletions, additions, an exact rename, a binary
    /// file): the repository, its entries with renames paired, and the contents kept.
    fn big_change() -> (tempfile::TempDir, Repo, Vec<Entry>, Kept) {
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
        (dir, repo, entries, kept)
    }

    #[test]
    fn the_two_thread_stream_makes_the_one_thread_streams_calls() {
        let (_dir, repo, entries, kept) = big_change();

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
        let holds = |answer: &str| {
            one.calls
                .iter()
                .filter(|call| call.contains(answer))
                .count()
        };
        assert_eq!(holds("holds: true"), 1);
        assert!(holds("holds: false") > 50);
    }

    #[test]
    fn the_callers_thread_prepares_the_next_file_when_none_was_sent() {
        let (_dir, repo, entries, kept) = big_change();
        let work = Work {
            entries: &entries,
            next: AtomicUsize::new(0),
            kept: Mutex::new(kept),
            needle: None,
        };
        let (sender, receiver) = mpsc::sync_channel::<Prepared>(AHEAD);
        // Nothing sent: this thread claims the files in order and reads them itself.
        for (expected, entry) in entries.iter().enumerate().take(3) {
            let (index, recorded) = repo.prepare_next(&work, &receiver, 0).expect("prepared");
            assert_eq!(index, expected);
            let file = recorded.expect("read").file.expect("a file");
            let side = entry.new.as_ref().or(entry.old.as_ref());
            assert_eq!(
                file.path.to_string_lossy(),
                side.expect("a side").display_path()
            );
        }
        // With enough waiting, it takes what the other thread sent rather than claim more.
        let sent = (
            7,
            Err(GitError::Git {
                doing: "testing".to_string(),
                message: "sent".to_string(),
            }),
        );
        sender.send(sent).expect("sends");
        let (index, _) = repo
            .prepare_next(&work, &receiver, AHEAD)
            .expect("received");
        assert_eq!(index, 7);
        // Every file claimed and the other thread gone: an error, not a wait.
        work.next.store(entries.len(), Ordering::Relaxed);
        drop(sender);
        let stopped = repo.prepare_next(&work, &receiver, 0);
        assert!(matches!(stopped, Err(GitError::Git { .. })));
    }

    #[test]
    fn opening_a_repository_bounds_how_much_of_a_pack_is_mapped() {
        let (_dir, _repo, _, _) = big_change();
        // SAFETY: reads two of libgit2's globals, set once when the repository opened.
        let (window, limit) = unsafe {
            (
                git2::opts::get_mwindow_size().expect("window"),
                git2::opts::get_mwindow_mapped_limit().expect("limit"),
            )
        };
        // A test repository's packs are far under the limit: small windows.
        assert_eq!((window, limit), (4 << 20, 32 << 20));
    }

    /// A generated change of 300 base files: a fifth each edited, deleted, renamed with an
    /// edit (its contents kept while pairing renames), renamed as they are, and left
    /// alone, beside 60 added files; one edited file is 20,000 lines long.
    fn generated_change() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main", "--template="]);
        git(root, &["config", "user.email", "test@example.com"]);
        git(root, &["config", "user.name", "Test"]);
        let body = |i: usize, lines: usize, edit: &str| -> String {
            (0..lines)
                .map(|line| {
                    format!(
                        "file {i} line {line}{}\n",
                        if line == 5 { edit } else { "" }
                    )
                })
                .collect()
        };
        let lines = |i: usize| if i == 100 { 20_000 } else { 30 };
        for i in 0..300 {
            std::fs::write(root.join(format!("f{i:03}.txt")), body(i, lines(i), ""))
                .expect("write");
        }
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "base"]);
        for i in 0..300 {
            let path = root.join(format!("f{i:03}.txt"));
            match i % 5 {
                0 => std::fs::write(&path, body(i, lines(i), " edited")).expect("write"),
                1 => std::fs::remove_file(&path).expect("remove"),
                2 => {
                    std::fs::remove_file(&path).expect("remove");
                    let to = root.join(format!("r{i:03}.txt"));
                    std::fs::write(to, body(i, lines(i), " moved")).expect("write");
                }
                3 => std::fs::rename(&path, root.join(format!("h{i:03}.txt"))).expect("move"),
                _ => {
                    let added = root.join(format!("g{i:03}.txt"));
                    std::fs::write(added, body(i + 1000, 30, "")).expect("write");
                }
            }
        }
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "head"]);
        dir
    }

    /// The entries of the last commit of the repository at `root`, renames paired, and
    /// the contents kept.
    fn last_commit(root: &std::path::Path) -> (Repo, Vec<Entry>, Kept) {
        let repo = Repo::open(root).expect("opens");
        let base = repo.commit_of("HEAD~1").expect("base");
        let head = repo.commit_of("HEAD").expect("head");
        let mut entries = repo.entries(base, Some(head)).expect("entries");
        let (_, kept) = repo
            .pair_renames(&mut entries, &RenameOptions::default())
            .expect("pairs");
        (repo, entries, kept)
    }

    /// What the one-thread stream of the last commit gives a [`Log`]: its files or its
    /// error, and the visitor's calls.
    fn one_thread(root: &std::path::Path) -> (Result<Vec<ChangedFile>, String>, Vec<String>) {
        let (repo, entries, mut kept) = last_commit(root);
        let mut log = Log::default();
        let mut files = Vec::new();
        for entry in &entries {
            match repo.stream_entry(entry, &mut kept, &mut log) {
                Ok(file) => files.extend(file),
                Err(error) => return (Err(error.to_string()), log.calls),
            }
        }
        (Ok(files), log.calls)
    }

    /// The same from the two-thread stream, which must end within a minute (on a
    /// thread of its own, so that a stream whose threads wait on each other fails the
    /// test rather than hang it).
    fn two_threads(
        root: &std::path::Path,
        pause_every: Option<usize>,
    ) -> (Result<Vec<ChangedFile>, String>, Vec<String>) {
        let root = root.to_path_buf();
        let (done, outcome) = mpsc::channel();
        std::thread::spawn(move || {
            let (repo, entries, kept) = last_commit(&root);
            assert!(entries.len() > 200, "{} entries", entries.len());
            let mut log = Log {
                pause_every,
                ..Log::default()
            };
            let streamed = repo.stream_in_parallel(&entries, kept, &mut log);
            let _ = done.send((streamed.map_err(|error| error.to_string()), log.calls));
        });
        outcome
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the two-thread stream ends")
    }

    /// The object of the new side of `path` in the last commit, as a loose object file.
    fn new_object_file(root: &std::path::Path, path: &str) -> std::path::PathBuf {
        let (_, entries, _) = last_commit(root);
        let entry = entries
            .iter()
            .find(|entry| {
                entry
                    .new
                    .as_ref()
                    .is_some_and(|new| new.display_path() == path)
            })
            .expect("the entry");
        let id = entry.new.as_ref().expect("a new side").id.to_string();
        root.join(".git/objects").join(&id[..2]).join(&id[2..])
    }

    #[test]
    fn a_big_change_streams_the_same_calls_every_time_whichever_thread_reads_a_file() {
        let dir = generated_change();
        let (files, calls) = one_thread(dir.path());
        let files = files.expect("streams");
        assert!(calls.iter().any(|call| call.contains("r002.txt")));
        for (run, pause_every) in [None, Some(7), Some(1)].iter().cycle().take(9).enumerate() {
            let (parallel, parallel_calls) = two_threads(dir.path(), *pause_every);
            assert_eq!(parallel.as_ref(), Ok(&files), "run {run}");
            assert!(parallel_calls == calls, "run {run}: other calls");
        }
    }

    #[test]
    fn a_missing_or_unreadable_object_is_the_same_error_after_the_same_calls_every_time() {
        let dir = generated_change();
        // The first file the caller's thread reads itself; one in the middle, after the
        // long file; one near the end.
        let missing = ["f000.txt", "f105.txt", "f290.txt"];
        for (at, path) in missing.iter().enumerate() {
            let object = new_object_file(dir.path(), path);
            let original = std::fs::read(&object).expect("reads the object");
            std::fs::remove_file(&object).expect("removes the object");
            if at == 1 {
                // Unreadable rather than missing.
                std::fs::write(&object, b"not a zlib stream").expect("writes");
            }
            let (expected, calls) = one_thread(dir.path());
            let expected = expected.expect_err("an object is missing");
            assert_eq!(calls.is_empty(), at == 0, "{path} is the first file");
            assert!(expected.contains(path), "{expected}");
            for (run, pause_every) in [None, Some(7), Some(1)].iter().cycle().take(9).enumerate() {
                let (parallel, parallel_calls) = two_threads(dir.path(), *pause_every);
                assert_eq!(parallel.as_ref(), Err(&expected), "{path}, run {run}");
                assert!(parallel_calls == calls, "{path}, run {run}: other calls");
            }
            // The next round would find this one first: put it back.
            std::fs::remove_file(&object).ok();
            std::fs::write(&object, original).expect("puts the object back");
        }
    }
}
