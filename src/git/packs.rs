//! How much of the pack files stays mapped, and so resident, by the size of the
//! repository's packs.
//!
//! libgit2 maps a pack in windows of 1 GiB, up to 8 GiB in all, and unmaps none before
//! it must, so every page a change reads (with the pages the kernel maps around each)
//! stays in the process's memory to the end: 29 MiB of a 380 MiB pack on a 2,000-file
//! rails range, more than git's whole heap. With a limit on what is mapped in all,
//! libgit2 unmaps the least recently used window beyond it; the pages stay in the page
//! cache, so mapping them again costs little system time.
//!
//! The limit only binds when the packs are larger than it. Packs larger than
//! [`MAPPED_LIMIT`] in all are mapped in windows of [`WINDOW`], at most that limit at
//! once: smaller limits made a large range of rails or spring-framework map the same
//! windows again thousands of times (18% and 10% more CPU time). Packs that fit under it
//! would never be unmapped, so they are mapped in windows of [`SMALL_PACKS_WINDOW`], at
//! most [`SMALL_PACKS_MAPPED_LIMIT`] at once: cargo's 105 MB pack, whose pages a 1,561-file
//! range left resident to the end (18 MB of its 64 MB peak), is then mapped again some
//! fifty times, at no measurable cost, and the peak falls by 6 MB. Windows that small
//! keep only the pages most recently read; on a large pack they would be mapped again
//! far more often.
//!
//! The setting is process-wide: the first repository opened decides it.

use std::path::Path;

/// The window and the limit in all for packs larger than [`MAPPED_LIMIT`] in all.
const WINDOW: usize = 64 << 20;
const MAPPED_LIMIT: usize = 128 << 20;

/// The window and the limit in all for packs of at most [`MAPPED_LIMIT`] in all.
const SMALL_PACKS_WINDOW: usize = 4 << 20;
const SMALL_PACKS_MAPPED_LIMIT: usize = 32 << 20;

/// The pack window and the most mapped at once for packs of `pack_bytes` in all (`None`:
/// not known, as for large packs).
fn mapping_for(pack_bytes: Option<u64>) -> (usize, usize) {
    match pack_bytes {
        Some(bytes) if bytes <= MAPPED_LIMIT as u64 => {
            (SMALL_PACKS_WINDOW, SMALL_PACKS_MAPPED_LIMIT)
        }
        _ => (WINDOW, MAPPED_LIMIT),
    }
}

/// The bytes of the pack files in the object database `objects` and in the databases
/// it borrows from (`info/alternates`, one level, as git reads them: absolute, or
/// relative to `objects`); `None` when a directory that exists cannot be read.
fn pack_bytes(objects: &Path) -> Option<u64> {
    let mut databases = vec![objects.to_path_buf()];
    if let Ok(alternates) = std::fs::read_to_string(objects.join("info/alternates")) {
        let listed = alternates
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'));
        databases.extend(listed.map(|line| objects.join(line)));
    }
    let mut bytes = 0u64;
    for database in databases {
        let entries = match std::fs::read_dir(database.join("pack")) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        };
        for entry in entries {
            let entry = entry.ok()?;
            if entry.path().extension().is_some_and(|ext| ext == "pack") {
                bytes = bytes.saturating_add(entry.metadata().ok()?.len());
            }
        }
    }
    Some(bytes)
}

/// Bounds how much of the pack files stays mapped, by the packs of the object database
/// `objects`; process-wide, set once, when the first repository is opened.
pub(super) fn bound_pack_mappings(objects: &Path) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let (window, limit) = mapping_for(pack_bytes(objects));
        // SAFETY: these write two of libgit2's globals, which its pack code reads when
        // it maps a window. Either value is valid at any time (libgit2 reads each once
        // per window it maps), and `Once` makes this the only write.
        let set = unsafe {
            git2::opts::set_mwindow_size(window)
                .and_then(|()| git2::opts::set_mwindow_mapped_limit(limit))
        };
        // The defaults stay if libgit2 refuses: slower to free, never wrong.
        drop(set);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_that_fit_under_the_limit_are_mapped_in_small_windows() {
        let mib = |n: u64| n << 20;
        assert_eq!(mapping_for(Some(0)), (4 << 20, 32 << 20));
        assert_eq!(mapping_for(Some(mib(128))), (4 << 20, 32 << 20));
        assert_eq!(mapping_for(Some(mib(128) + 1)), (64 << 20, 128 << 20));
        assert_eq!(mapping_for(None), (64 << 20, 128 << 20));
    }

    #[test]
    fn the_pack_bytes_count_the_databases_borrowed_from() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let pack = |database: &Path, name: &str, len: u64| {
            std::fs::create_dir_all(database.join("pack")).expect("a pack directory");
            let file = std::fs::File::create(database.join("pack").join(name)).expect("a file");
            file.set_len(len).expect("sized");
        };
        let own = dir.path().join("repo/objects");
        let borrowed = dir.path().join("other/objects");
        pack(&own, "pack-a.pack", 1000);
        pack(&own, "pack-a.idx", 50);
        pack(&borrowed, "pack-b.pack", 200 << 20);
        assert_eq!(pack_bytes(&own), Some(1000));
        std::fs::create_dir_all(own.join("info")).expect("info");
        std::fs::write(
            own.join("info/alternates"),
            "# borrowed\n../../other/objects\n\n/nowhere/objects\n",
        )
        .expect("alternates");
        assert_eq!(pack_bytes(&own), Some(1000 + (200 << 20)));
        assert_eq!(
            mapping_for(pack_bytes(&own)),
            (64 << 20, 128 << 20),
            "the borrowed pack makes them large"
        );
        assert_eq!(pack_bytes(&dir.path().join("none")), Some(0));
    }
}
