//! Writing files: an atomic replace, an exclusive create, and a spool for output that
//! must be whole or absent.
//!
//! A command that rewrites a file must leave either the old file or the new one, never a
//! half-written one, and must not change what it does not own: the file's permissions,
//! or a symbolic link (the file it points at is rewritten, the link stays a link).

use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Replaces `path` with `bytes` atomically: a temporary file in the same directory,
/// flushed to disk, given the original's permissions, then renamed over it. A symbolic
/// link is followed, so the file it points at is the one replaced. A file that does not
/// exist yet is created.
pub fn replace_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, true)
}

/// [`replace_atomically`] without flushing to disk first, for derived data that is
/// checked before use (the trail's checkpoint): after a crash it may be empty or old,
/// never half of two versions.
pub fn replace_atomically_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, false)
}

fn replace(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let permissions = std::fs::metadata(&target)
        .ok()
        .map(|meta| meta.permissions());
    let (temporary, mut file) = create_temporary(&directory, &name)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| if sync { file.sync_all() } else { Ok(()) })
        .and_then(|()| match permissions {
            Some(permissions) => std::fs::set_permissions(&temporary, permissions),
            None => Ok(()),
        })
        .and_then(|()| std::fs::rename(&temporary, &target));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// A new temporary file next to the target, named after it, never an existing one.
fn create_temporary(directory: &Path, name: &str) -> io::Result<(PathBuf, std::fs::File)> {
    let mut attempt = 0u32;
    loop {
        let path = directory.join(format!(
            ".{name}.handoff-{}-{attempt}.tmp",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1
            }
            Err(error) => return Err(error),
        }
    }
}

/// Writes `bytes` to a file that must not exist yet (`AlreadyExists` otherwise).
pub fn create_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// How much a [`Spool`] holds in memory before it moves to a temporary file.
pub const SPOOL_MEMORY_BYTES: usize = 8 << 20;

/// Output held back until it is known to be whole: a JSON document streamed from a trail
/// that an error half-way through would cut short. It stays in memory up to
/// [`SPOOL_MEMORY_BYTES`], then moves to an unnamed temporary file (removed by the
/// system when the spool is dropped), so memory stays flat however long the output.
/// Written out with [`Spool::copy_to`] once the producer has succeeded; dropped unread
/// otherwise.
#[derive(Debug)]
pub struct Spool(tempfile::SpooledTempFile);

impl Default for Spool {
    fn default() -> Spool {
        Spool(tempfile::SpooledTempFile::new(SPOOL_MEMORY_BYTES))
    }
}

impl Spool {
    /// Copies everything written to the spool to `out`; returns how many bytes.
    pub fn copy_to(mut self, out: &mut impl Write) -> io::Result<u64> {
        self.0.seek(SeekFrom::Start(0))?;
        io::copy(&mut self.0, out)
    }
}

impl Write for Spool {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replace_keeps_permissions_and_follows_links() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("a.md");
        std::fs::write(&file, "old").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::{symlink, PermissionsExt};
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).expect("chmod");
            let link = dir.path().join("link.md");
            symlink(&file, &link).expect("symlink");
            replace_atomically(&link, b"new").expect("replace");
            assert!(std::fs::symlink_metadata(&link)
                .expect("the link")
                .file_type()
                .is_symlink());
            let mode = std::fs::metadata(&file)
                .expect("the file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o640);
        }
        #[cfg(not(unix))]
        replace_atomically(&file, b"new").expect("replace");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "new");
        let entries = std::fs::read_dir(dir.path()).expect("list").count();
        assert!(entries <= 2, "no temporary file is left behind");
    }

    #[test]
    fn create_new_refuses_an_existing_file() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("a.md");
        create_new(&file, b"one").expect("create");
        let error = create_new(&file, b"two").err().map(|e| e.kind());
        assert_eq!(error, Some(io::ErrorKind::AlreadyExists));
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "one");
    }

    #[test]
    fn a_spool_gives_back_what_was_written_in_memory_and_past_it() {
        for size in [0, 5, SPOOL_MEMORY_BYTES + 3] {
            let bytes: Vec<u8> = (0..size).map(|n| (n % 251) as u8).collect();
            let mut spool = Spool::default();
            for chunk in bytes.chunks(1 << 16) {
                spool.write_all(chunk).expect("spooled");
            }
            let mut out = Vec::new();
            assert_eq!(spool.copy_to(&mut out).expect("copied"), size as u64);
            assert!(out == bytes, "{size} bytes");
        }
    }
}
