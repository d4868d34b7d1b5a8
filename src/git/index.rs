//! Reading git's index file (`.git/index`) for working-tree mode, as `git status` reads it.
//!
//! The index lists every tracked path with the object id staged for it and the stat data
//! (times, inode, size, mode) its file had when git last looked. Versions 2, 3 and 4 are
//! read (4 compresses each path against the one before it). Of the extensions, the
//! cache-tree (`TREE`) is kept: for each directory whose staged content is unchanged since
//! git last wrote a tree, the id of that tree, so that a directory whose id is the base
//! commit's can be skipped without reading either side. Extensions that only speed git up
//! (`REUC`, `UNTR`, `FSMN`, `EOIE`, `IEOT`) are passed over.
//!
//! An entry marked skip-worktree (a sparse checkout's files outside its patterns) is kept
//! with its mark: with no file there, it is not a deletion to git, nor to the caller.
//!
//! Anything this reader does not fully understand — another version, a split or sparse
//! index, an unknown required extension, a conflict, an entry marked assume-unchanged or
//! intent-to-add, a submodule, a truncated or malformed file — makes it
//! return `None`, and the caller asks libgit2 instead: a slower answer, never a wrong one.
//! The trailing checksum is not verified (git checks it for integrity only; an entry whose
//! object is damaged fails later, when the object is read).

use git2::Oid;

/// One tracked path, stage 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IndexEntry {
    /// The path, relative to the root, `/`-separated.
    pub path: Vec<u8>,
    /// The staged object.
    pub id: Oid,
    /// The staged mode (`0o100644`, `0o100755` or `0o120000`).
    pub mode: u32,
    /// The file's stat data when git last looked at it.
    pub stat: StatData,
    /// Marked skip-worktree: git takes the file to be the staged one without looking.
    pub skip_worktree: bool,
}

/// The part of a file's stat data git records, truncated to 32 bits as git stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct StatData {
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub ino: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u32,
}

/// A directory of the cache-tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CacheTree {
    /// The directory's own name (empty for the root).
    pub name: Vec<u8>,
    /// The tree the index holds for this directory, when git knows it is still valid.
    pub id: Option<Oid>,
    /// How many index entries that tree covers (git walks that many entries as the tree's).
    pub entry_count: usize,
    /// The subdirectories git recorded.
    pub children: Vec<CacheTree>,
}

impl CacheTree {
    /// The subdirectory called `name`.
    pub fn child(&self, name: &[u8]) -> Option<&CacheTree> {
        self.children.iter().find(|child| child.name == name)
    }
}

/// What was read from an index file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Index {
    /// The entries, sorted by path.
    pub entries: Vec<IndexEntry>,
    /// The cache-tree, when the file has one.
    pub cache_tree: Option<CacheTree>,
}

/// Object ids in the index are SHA-1.
const ID_LEN: usize = 20;
/// The fixed part of an entry before its flags: ten 32-bit fields and the id.
const ENTRY_FIXED: usize = 40 + ID_LEN;
/// Flag bits of an entry.
const ASSUME_VALID: u16 = 0x8000;
const EXTENDED: u16 = 0x4000;
const STAGE_MASK: u16 = 0x3000;
/// The extended flag (version 3 and later) of a skip-worktree entry.
const SKIP_WORKTREE: u16 = 0x4000;
/// The length of the path, or all ones when it is that long or longer.
const NAME_MASK: u16 = 0x0FFF;
/// The regular-file, link and submodule modes the index holds.
const MODE_KIND: u32 = 0o170_000;
const MODE_REGULAR: u32 = 0o100_000;
const MODE_LINK: u32 = 0o120_000;

/// Extensions that only let git work faster and change no entry's meaning.
const SKIPPABLE_EXTENSIONS: [&[u8; 4]; 5] = [b"REUC", b"UNTR", b"FSMN", b"EOIE", b"IEOT"];

/// Parses an index file; `None` when it holds anything this reader does not handle.
pub(super) fn parse(data: &[u8]) -> Option<Index> {
    let mut reader = Reader { data, at: 0 };
    if reader.take(4)? != b"DIRC" {
        return None;
    }
    let version = reader.u32()?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = usize::try_from(reader.u32()?).ok()?;
    let end = data.len().checked_sub(ID_LEN)?;
    // An entry takes at least 62 bytes: refuse a count the file cannot hold before
    // reserving room for it.
    if count > end / (ENTRY_FIXED + 2) {
        return None;
    }
    let mut entries: Vec<IndexEntry> = Vec::with_capacity(count);
    for _ in 0..count {
        let previous = entries.last().map(|entry| entry.path.as_slice());
        let entry = reader.entry(version, previous)?;
        if previous.is_some_and(|previous| previous >= entry.path.as_slice()) {
            return None;
        }
        entries.push(entry);
    }
    let mut cache_tree = None;
    while reader.at < end {
        let signature = reader.take(4)?;
        let size = usize::try_from(reader.u32()?).ok()?;
        let body = reader.take(size)?;
        if signature == b"TREE" {
            cache_tree = parse_cache_tree(body)?;
        } else if !SKIPPABLE_EXTENSIONS.iter().any(|known| *known == signature) {
            return None;
        }
    }
    (reader.at == end).then_some(Index {
        entries,
        cache_tree,
    })
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, length: usize) -> Option<&'a [u8]> {
        let bytes = self.data.get(self.at..self.at.checked_add(length)?)?;
        self.at += length;
        Some(bytes)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    fn until_nul(&mut self) -> Option<&'a [u8]> {
        let length = memchr::memchr(0, self.data.get(self.at..)?)?;
        let bytes = self.take(length)?;
        self.at += 1;
        Some(bytes)
    }

    /// One entry; `previous` is the path before it (version 4 compresses against it).
    fn entry(&mut self, version: u32, previous: Option<&[u8]>) -> Option<IndexEntry> {
        let start = self.at;
        let mut field = [0u32; 10];
        for value in &mut field {
            *value = self.u32()?;
        }
        let [ctime, ctime_ns, mtime, mtime_ns, _dev, ino, mode, uid, gid, size] = field;
        let id = Oid::from_bytes(self.take(ID_LEN)?).ok()?;
        let flags = self.u16()?;
        if flags & (ASSUME_VALID | STAGE_MASK) != 0 {
            return None;
        }
        let mut skip_worktree = false;
        if flags & EXTENDED != 0 {
            // Version 3 and later: skip-worktree, intent-to-add and reserved bits; the
            // last two change what the entry means.
            if version < 3 {
                return None;
            }
            match self.u16()? {
                0 => {}
                SKIP_WORKTREE => skip_worktree = true,
                _ => return None,
            }
        }
        let path = if version == 4 {
            let strip = usize::try_from(self.varint()?).ok()?;
            let previous = previous.unwrap_or_default();
            let kept = previous.len().checked_sub(strip)?;
            let mut path = previous[..kept].to_vec();
            path.extend_from_slice(self.until_nul()?);
            path
        } else {
            let path = self.until_nul()?.to_vec();
            // Entries are padded with NULs to a multiple of eight bytes.
            let length = self.at - start;
            self.take((8 - length % 8) % 8)?;
            path
        };
        let kind = mode & MODE_KIND;
        if path.is_empty() || (kind != MODE_REGULAR && kind != MODE_LINK) {
            return None;
        }
        // Git reads a path by this length, not up to its NUL: a path whose length says
        // otherwise is a different path to git.
        if usize::from(flags & NAME_MASK) != path.len().min(usize::from(NAME_MASK)) {
            return None;
        }
        Some(IndexEntry {
            path,
            id,
            mode,
            stat: StatData {
                ctime: (ctime, ctime_ns),
                mtime: (mtime, mtime_ns),
                ino,
                uid,
                gid,
                size,
            },
            skip_worktree,
        })
    }

    /// Git's offset encoding (`decode_varint`): seven bits a byte, most significant first,
    /// each continuation adding one.
    fn varint(&mut self) -> Option<u64> {
        let mut byte = self.take(1)?[0];
        let mut value = u64::from(byte & 0x7F);
        while byte & 0x80 != 0 {
            value = value.checked_add(1)?;
            if value >> 57 != 0 {
                return None;
            }
            byte = self.take(1)?[0];
            value = (value << 7) + u64::from(byte & 0x7F);
        }
        Some(value)
    }
}

/// The cache-tree extension: each directory as `name NUL count SP subtrees LF [id]`, its
/// subdirectories after it; a count of -1 marks a directory whose tree is out of date.
/// `None` when it is malformed; `Some(None)` when it is deeper than
/// [`MAX_DIRECTORY_DEPTH`](super::MAX_DIRECTORY_DEPTH): not read (each level costs
/// stack), the index is then compared without it, and the walk refuses the deep path.
fn parse_cache_tree(body: &[u8]) -> Option<Option<CacheTree>> {
    let mut reader = Reader { data: body, at: 0 };
    let mut too_deep = false;
    match cache_tree_node(&mut reader, 0, &mut too_deep) {
        Some(tree) => (reader.at == body.len()).then_some(Some(tree)),
        None => too_deep.then_some(None),
    }
}

fn cache_tree_node(
    reader: &mut Reader<'_>,
    depth: usize,
    too_deep: &mut bool,
) -> Option<CacheTree> {
    if depth > super::MAX_DIRECTORY_DEPTH {
        *too_deep = true;
        return None;
    }
    let name = reader.until_nul()?.to_vec();
    let count = reader.data.get(reader.at..)?;
    let line = memchr::memchr(b'\n', count)?;
    let header = std::str::from_utf8(reader.take(line)?).ok()?;
    reader.at += 1;
    let (entries, subtrees) = header.split_once(' ')?;
    let entries: i64 = entries.parse().ok()?;
    let subtrees: usize = subtrees.parse().ok()?;
    let id = if entries >= 0 {
        Some(Oid::from_bytes(reader.take(ID_LEN)?).ok()?)
    } else {
        None
    };
    let entry_count = usize::try_from(entries).unwrap_or(0);
    let mut children = Vec::with_capacity(subtrees.min(1024));
    for _ in 0..subtrees {
        children.push(cache_tree_node(reader, depth + 1, too_deep)?);
    }
    Some(CacheTree {
        name,
        id,
        entry_count,
        children,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index file of the given version holding `paths` (each a regular file), with
    /// the extensions given and a (not checked) checksum.
    fn index_file(version: u32, paths: &[&str], extensions: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut data = b"DIRC".to_vec();
        data.extend_from_slice(&version.to_be_bytes());
        data.extend_from_slice(&(paths.len() as u32).to_be_bytes());
        let mut previous: &str = "";
        for path in paths {
            let start = data.len();
            for value in [1u32, 2, 3, 4, 5, 6, 0o100_644, 7, 8, 9] {
                data.extend_from_slice(&value.to_be_bytes());
            }
            data.extend_from_slice(&[0xAB; ID_LEN]);
            data.extend_from_slice(&(path.len() as u16).to_be_bytes());
            if version == 4 {
                let common = previous
                    .bytes()
                    .zip(path.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                let strip = previous.len() - common;
                assert!(strip < 0x80, "one-byte varints in these tests");
                data.push(strip as u8);
                data.extend_from_slice(&path.as_bytes()[common..]);
                data.push(0);
            } else {
                data.extend_from_slice(path.as_bytes());
                data.push(0);
                while (data.len() - start) % 8 != 0 {
                    data.push(0);
                }
            }
            previous = path;
        }
        for (signature, body) in extensions {
            data.extend_from_slice(*signature);
            data.extend_from_slice(&(body.len() as u32).to_be_bytes());
            data.extend_from_slice(body);
        }
        data.extend_from_slice(&[0; ID_LEN]);
        data
    }

    fn paths(index: &Index) -> Vec<String> {
        index
            .entries
            .iter()
            .map(|entry| String::from_utf8_lossy(&entry.path).into_owned())
            .collect()
    }

    #[test]
    fn versions_two_three_and_four_give_the_same_entries() {
        let names = ["a.txt", "src/lib.rs", "src/main.rs", "src/x/deep.rs"];
        let read: Vec<Index> = [2, 3, 4]
            .into_iter()
            .map(|version| parse(&index_file(version, &names, &[])).expect("parses"))
            .collect();
        assert_eq!(paths(&read[0]), names);
        assert_eq!(read[0], read[1]);
        assert_eq!(read[0], read[2]);
        let entry = &read[0].entries[1];
        assert_eq!(entry.mode, 0o100_644);
        assert_eq!(entry.stat.mtime, (3, 4));
        assert_eq!(entry.stat.size, 9);
    }

    #[test]
    fn the_cache_tree_is_read_with_its_invalid_directories() {
        let mut body = b"\x002 1\n".to_vec();
        body.extend_from_slice(&[0x11; ID_LEN]);
        body.extend_from_slice(b"src\0-1 0\n");
        let index = parse(&index_file(2, &["a", "src/b"], &[(b"TREE", body)])).expect("parses");
        let tree = index.cache_tree.expect("a cache-tree");
        assert_eq!(tree.id, Some(Oid::from_bytes(&[0x11; ID_LEN]).unwrap()));
        assert_eq!(tree.entry_count, 2);
        assert_eq!(tree.child(b"src").map(|src| src.id), Some(None));
    }

    #[test]
    fn speed_only_extensions_are_passed_over_and_others_refused() {
        let file = |extension: &[u8; 4]| index_file(2, &["a"], &[(extension, vec![1, 2, 3])]);
        assert!(parse(&file(b"UNTR")).is_some());
        assert!(parse(&file(b"REUC")).is_some());
        // A split index keeps its entries in another file; a sparse index holds
        // directories as entries; an unknown extension may change anything.
        assert!(parse(&file(b"link")).is_none());
        assert!(parse(&file(b"sdir")).is_none());
        assert!(parse(&file(b"ZZZZ")).is_none());
    }

    #[test]
    fn anything_malformed_or_unhandled_is_refused() {
        let good = index_file(2, &["a", "b"], &[]);
        assert!(parse(&good).is_some());
        for cut in [0, 4, 12, 40, 70, good.len() - 21] {
            assert!(parse(&good[..cut]).is_none(), "cut at {cut}");
        }
        let mut version = good.clone();
        version[7] = 5;
        assert!(parse(&version).is_none());
        // Out of order, a conflict stage, assume-unchanged, a huge count.
        assert!(parse(&index_file(2, &["b", "a"], &[])).is_none());
        for (at, byte) in [(12 + 60, 0x10u8), (12 + 60, 0x80)] {
            let mut flagged = good.clone();
            flagged[at] |= byte;
            assert!(parse(&flagged).is_none());
        }
        let mut count = good.clone();
        count[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(parse(&count).is_none());
        // A name-length field that is not the path's: git reads another path.
        let mut length = good.clone();
        length[12 + 61] -= 1;
        assert!(parse(&length).is_none());
        // A malformed cache-tree.
        let broken = index_file(2, &["a"], &[(b"TREE", b"\0x 1\n".to_vec())]);
        assert!(parse(&broken).is_none());
    }
}
