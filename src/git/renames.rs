//! Pairing added files with the deleted (and, for copies, modified) files they came from,
//! the way `git diff -M` (or `-C`) pairs them, at git's cost.
//!
//! 1. Exact renames first: an added file whose object id is a deleted file's is that file
//!    moved, found by hashing ids (linear). Among several, one with the same file name
//!    wins, then the first in path order.
//! 2. Same-name moves (renames only): a file name that occurs once among the deleted files
//!    left and once among the added files left is compared with its namesake only, and
//!    paired at 75% similarity or more.
//! 3. The exhaustive search, only between the added and deleted files still unpaired:
//!    every pair whose sizes allow the minimum similarity (50%) is compared (see
//!    [`super::similarity`]), each added file keeps its four best candidates, and the best
//!    pairs overall are taken first. When the files left exceed git's limit
//!    (`sources × destinations > limit²`, `diff.renameLimit`, 1,000 by default, 0 for no
//!    limit), this step is skipped and the result says so: the files stay added and
//!    deleted, which touches the same paths and streams more lines, never fewer.
//!
//! Copies ([`RenameOptions::copies`], git's `-C`) also take modified files as sources and
//! let one source serve several added files; they are found only on request, as the
//! search is then among every added file and every modified one.
//!
//! The statuses follow git: a deleted file paired once is renamed; paired several times
//! (copies), the last pairing in path order is the rename and the others are copies; a
//! modified source only ever yields copies.

use super::content::Kept;
use super::listing::{Entry, Side};
use super::similarity::{self, Chunks, MIN_BASENAME_SCORE, MIN_SCORE};
use super::{ChangeStatus, GitError, Repo};
use git2::Oid;
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

/// Git's default `diff.renameLimit`.
pub const DEFAULT_RENAME_LIMIT: usize = 1000;

/// Git gives up on more identical candidates than this for one added file.
const MAX_IDENTICAL: usize = 100;

/// The candidates each added file keeps in the exhaustive search, as in git.
const CANDIDATES_PER_DESTINATION: usize = 4;

/// From how many contents to compare the similarity search reads them on two threads
/// first: below, a second repository handle and thread cost more than they save.
const PARALLEL_LOADS: usize = 16;

/// How renames and copies are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RenameOptions {
    /// Also find copies: added files similar to a modified or deleted file (git's `-C`).
    pub copies: bool,
    /// The limit of the exhaustive search (see [`RenameLimitExceeded`]); `None` reads
    /// git's `diff.renameLimit` (default 1,000); 0 means no limit.
    pub limit: Option<usize>,
}

/// The exhaustive similarity search was skipped because the files left to pair exceed
/// the limit: `sources × destinations > limit²`, git's `diff.renameLimit` semantics.
/// Exact renames (and, for renames, same-name moves) were still found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RenameLimitExceeded {
    /// The limit that applied.
    pub limit: usize,
    /// The deleted (or, for copies, deleted and modified) files left unpaired.
    pub sources: usize,
    /// The added files left unpaired.
    pub destinations: usize,
    /// The smallest limit that would let the search run: `max(sources, destinations)`.
    pub needed: usize,
}

impl std::fmt::Display for RenameLimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the similarity search for renames was skipped: {} added files and {} possible \
             origins were left unpaired, more than the limit allows ({} × {} pairs, git's \
             diff.renameLimit); exact renames and same-name moves were still found, the other \
             files count as added and deleted; to search them all, run \
             `git config diff.renameLimit {}` (0: no limit)",
            self.destinations, self.sources, self.limit, self.limit, self.needed
        )
    }
}

/// A file that may be the origin of an added one.
struct Source {
    entry: usize,
}

/// An added file and what it was paired with, if anything.
struct Destination {
    entry: usize,
    source: Option<usize>,
}

/// One candidate pair of the exhaustive search; `destination` is `None` for an empty slot.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    score: u64,
    same_name: bool,
    destination: Option<usize>,
    source: usize,
}

impl Candidate {
    const EMPTY: Candidate = Candidate {
        score: 0,
        same_name: false,
        destination: None,
        source: 0,
    };

    /// Git's `score_compare`: empty slots last, then by score and same file name, best
    /// first.
    fn rank(&self, other: &Candidate) -> Ordering {
        match (self.destination, other.destination) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            _ => other
                .score
                .cmp(&self.score)
                .then_with(|| other.same_name.cmp(&self.same_name)),
        }
    }
}

/// What the search knows of one file, computed when first needed.
#[derive(Default)]
struct Facts {
    id: Option<Oid>,
    size: Option<u64>,
    chunks: Option<Chunks>,
}

/// The state of one pairing.
struct Pairing<'r, 'e> {
    repo: &'r Repo,
    /// The contents read, for streaming.
    kept: Kept,
    entries: &'e [Entry],
    copies: bool,
    sources: Vec<Source>,
    destinations: Vec<Destination>,
    /// Per entry: how many added files it was paired with (a modified source counts
    /// itself once, as in git, so that it only ever yields copies).
    uses: Vec<u32>,
    facts: Vec<Facts>,
}

impl Repo {
    /// Pairs the added files of `entries` with their origins and rewrites `entries`:
    /// each pair becomes one renamed or copied entry at the added file's place, and a
    /// deleted file that was renamed is dropped.
    ///
    /// Returns what the exhaustive search skipped, if it did, and the contents it read,
    /// kept for streaming.
    pub(super) fn pair_renames(
        &self,
        entries: &mut Vec<Entry>,
        options: &RenameOptions,
    ) -> Result<(Option<RenameLimitExceeded>, Kept), GitError> {
        let mut pairing = Pairing::new(self, entries, options.copies);
        if pairing.sources.is_empty() || pairing.destinations.is_empty() {
            return Ok((None, Kept::default()));
        }
        pairing.exact()?;
        if !options.copies {
            pairing.drop_used_sources();
            pairing.same_names()?;
            pairing.drop_used_sources();
        }
        let sources = pairing.sources.len();
        let destinations = pairing.unpaired().count();
        let mut exceeded = None;
        if sources > 0 && destinations > 0 {
            let limit = options.limit.unwrap_or_else(|| self.rename_limit());
            let over = |n: usize| n as u128 * n as u128;
            if limit > 0 && sources as u128 * destinations as u128 > over(limit) {
                exceeded = Some(RenameLimitExceeded {
                    limit,
                    sources,
                    destinations,
                    needed: sources.max(destinations),
                });
            } else {
                pairing.exhaustive()?;
            }
        }
        let (paired, kept) = pairing.finish();
        *entries = paired;
        Ok((exceeded, kept))
    }

    /// Git's `diff.renameLimit` from the repository's configuration, else 1,000.
    fn rename_limit(&self) -> usize {
        self.inner
            .config()
            .and_then(|config| config.get_i64("diff.renameLimit"))
            .map_or(DEFAULT_RENAME_LIMIT, |limit| {
                usize::try_from(limit).unwrap_or(0)
            })
    }
}

impl<'r, 'e> Pairing<'r, 'e> {
    fn new(repo: &'r Repo, entries: &'e [Entry], copies: bool) -> Pairing<'r, 'e> {
        let mut uses = vec![0; entries.len()];
        let mut sources = Vec::new();
        let mut destinations = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            match entry.status {
                ChangeStatus::Added => destinations.push(Destination {
                    entry: index,
                    source: None,
                }),
                ChangeStatus::Deleted => sources.push(Source { entry: index }),
                ChangeStatus::Modified if copies => {
                    uses[index] = 1;
                    sources.push(Source { entry: index });
                }
                _ => {}
            }
        }
        let facts = std::iter::repeat_with(Facts::default)
            .take(entries.len())
            .collect();
        Pairing {
            repo,
            kept: Kept::default(),
            entries,
            copies,
            sources,
            destinations,
            uses,
            facts,
        }
    }

    /// The side a source offers: the base side.
    fn source_side(&self, entry: usize) -> Option<&'e Side> {
        self.entries[entry].old.as_ref()
    }

    /// The side an added file has: the head side.
    fn destination_side(&self, entry: usize) -> Option<&'e Side> {
        self.entries[entry].new.as_ref()
    }

    fn unpaired(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.destinations.len()).filter(|&d| self.destinations[d].source.is_none())
    }

    fn record(&mut self, destination: usize, source_entry: usize) {
        self.uses[source_entry] += 1;
        self.destinations[destination].source = Some(source_entry);
    }

    /// Sources already paired cannot be renamed again (renames only).
    fn drop_used_sources(&mut self) {
        let uses = &self.uses;
        self.sources.retain(|source| uses[source.entry] == 0);
    }

    /// Step 1: identical contents, by object id.
    fn exact(&mut self) -> Result<(), GitError> {
        let mut by_id: HashMap<Oid, Vec<usize>> = HashMap::new();
        for position in 0..self.sources.len() {
            let entry = self.sources[position].entry;
            let Some(side) = self.source_side(entry) else {
                continue;
            };
            let id = self.id(entry, side)?;
            by_id.entry(id).or_default().push(entry);
        }
        for destination in 0..self.destinations.len() {
            let entry = self.destinations[destination].entry;
            let Some(target) = self.destination_side(entry) else {
                continue;
            };
            let id = self.id(entry, target)?;
            let Some(candidates) = by_id.get(&id) else {
                continue;
            };
            let mut best: Option<(usize, u32)> = None;
            let mut tries = MAX_IDENTICAL;
            for &source_entry in candidates {
                let Some(source) = self.source_side(source_entry) else {
                    continue;
                };
                if (!source.is_regular() || !target.is_regular()) && source.mode != target.mode {
                    continue;
                }
                let used = self.uses[source_entry] > 0;
                if used && !self.copies {
                    continue;
                }
                let score = u32::from(!used) + u32::from(same_name(&source.path, &target.path));
                if best.is_none_or(|(_, best_score)| score > best_score) {
                    best = Some((source_entry, score));
                    if score == 2 {
                        break;
                    }
                }
                tries -= 1;
                if tries == 0 {
                    break;
                }
            }
            if let Some((source_entry, _)) = best {
                self.record(destination, source_entry);
            }
        }
        Ok(())
    }

    /// Step 2: a file name found once among the sources left and once among the added
    /// files left names a likely move.
    fn same_names(&mut self) -> Result<(), GitError> {
        let mut sources: HashMap<&[u8], Option<usize>> = HashMap::new();
        for source in &self.sources {
            if let Some(side) = self.source_side(source.entry) {
                sources
                    .entry(file_name(&side.path))
                    .and_modify(|unique| *unique = None)
                    .or_insert(Some(source.entry));
            }
        }
        let mut destinations: HashMap<&[u8], Option<usize>> = HashMap::new();
        for destination in self.unpaired() {
            if let Some(side) = self.destination_side(self.destinations[destination].entry) {
                destinations
                    .entry(file_name(&side.path))
                    .and_modify(|unique| *unique = None)
                    .or_insert(Some(destination));
            }
        }
        let names: Vec<(usize, usize)> = self
            .sources
            .iter()
            .filter_map(|source| {
                let side = self.source_side(source.entry)?;
                let name = file_name(&side.path);
                let source_entry = (*sources.get(name)?)?;
                let destination = (*destinations.get(name)?)?;
                Some((source_entry, destination))
            })
            .collect();
        for (source_entry, destination) in names {
            if self.destinations[destination].source.is_some() {
                continue;
            }
            let destination_entry = self.destinations[destination].entry;
            let score = self.similarity(source_entry, destination_entry, MIN_BASENAME_SCORE)?;
            if score >= MIN_BASENAME_SCORE {
                self.record(destination, source_entry);
            }
        }
        Ok(())
    }

    /// Step 3: every unpaired added file against every source left.
    fn exhaustive(&mut self) -> Result<(), GitError> {
        let unpaired: Vec<usize> = self.unpaired().collect();
        self.preload(&unpaired);
        let mut table = Vec::with_capacity(unpaired.len() * CANDIDATES_PER_DESTINATION);
        for &destination in &unpaired {
            let destination_entry = self.destinations[destination].entry;
            let mut best = [Candidate::EMPTY; CANDIDATES_PER_DESTINATION];
            for position in 0..self.sources.len() {
                let source_entry = self.sources[position].entry;
                let score = self.similarity(source_entry, destination_entry, MIN_SCORE)?;
                let same_name = match (
                    self.source_side(source_entry),
                    self.destination_side(destination_entry),
                ) {
                    (Some(source), Some(target)) => same_name(&source.path, &target.path),
                    _ => false,
                };
                keep_if_better(
                    &mut best,
                    Candidate {
                        score,
                        same_name,
                        destination: Some(destination),
                        source: source_entry,
                    },
                );
            }
            table.extend(best);
        }
        table.sort_by(Candidate::rank);
        self.take_best(&table, false);
        if self.copies {
            self.take_best(&table, true);
        }
        Ok(())
    }

    /// Git's `find_renames`: the best pairs first; a source serves once unless copying.
    fn take_best(&mut self, table: &[Candidate], copies: bool) {
        for candidate in table {
            let Some(destination) = candidate.destination else {
                break;
            };
            if candidate.score < MIN_SCORE {
                break;
            }
            if self.destinations[destination].source.is_some() {
                continue;
            }
            if !copies && self.uses[candidate.source] > 0 {
                continue;
            }
            self.record(destination, candidate.source);
        }
    }

    /// How similar the source and the added file are, 0 when their kinds or sizes rule it
    /// out before any content is read.
    fn similarity(
        &mut self,
        source_entry: usize,
        destination_entry: usize,
        minimum: u64,
    ) -> Result<u64, GitError> {
        let Some([(source, source_size), (target, target_size)]) =
            self.comparable(source_entry, destination_entry, minimum)?
        else {
            return Ok(0);
        };
        self.load_chunks(source_entry, source)?;
        self.load_chunks(destination_entry, target)?;
        let copied = match (
            &self.facts[source_entry].chunks,
            &self.facts[destination_entry].chunks,
        ) {
            (Some(from), Some(to)) => from.copied_to(to),
            _ => 0,
        };
        Ok(similarity::score(source_size, target_size, copied))
    }

    /// The two sides [`Self::similarity`] compares by content, with their sizes: both
    /// regular files, of sizes that allow `minimum`; `None` when it scores them 0 unread.
    fn comparable(
        &mut self,
        source_entry: usize,
        destination_entry: usize,
        minimum: u64,
    ) -> Result<Option<[(&'e Side, u64); 2]>, GitError> {
        let (Some(source), Some(target)) = (
            self.source_side(source_entry),
            self.destination_side(destination_entry),
        ) else {
            return Ok(None);
        };
        if !source.is_regular() || !target.is_regular() {
            return Ok(None);
        }
        let source_size = self.size(source_entry, source)?;
        let target_size = self.size(destination_entry, target)?;
        if !similarity::sizes_allow(source_size, target_size, minimum) {
            return Ok(None);
        }
        Ok(Some([(source, source_size), (target, target_size)]))
    }

    /// Reads and cuts into chunks, on this thread and a second one, the contents the
    /// search of the `unpaired` destinations compares, so that it finds them loaded.
    /// Best effort: a content that fails to load here is left to the search, which
    /// reads it again and reports the error where it always did. The contents kept for
    /// the stream are those the search would keep (decided by size, in the order it
    /// reads them), so nothing past [`Kept`]'s budget is held.
    fn preload(&mut self, unpaired: &[usize]) {
        let Ok(wanted) = self.wanted(unpaired) else {
            return;
        };
        if wanted.len() < PARALLEL_LOADS {
            return;
        }
        let Ok(other) = self.repo.reopen() else {
            return;
        };
        let keep = self
            .kept
            .plan(wanted.iter().map(|&(_, side, size)| (side, size)));
        let next = AtomicUsize::new(0);
        // Each thread claims the next content and returns what it loaded, by position in
        // `wanted`: the chunks, and the bytes when they are to be kept.
        let load = |repo: &Repo| {
            let mut loaded = Vec::new();
            loop {
                let at = next.fetch_add(1, AtomicOrdering::Relaxed);
                let Some(&(_, side, _)) = wanted.get(at) else {
                    return loaded;
                };
                if let Ok(content) = repo.read_side(side) {
                    let chunks = Chunks::of(&content, !super::content::is_binary(&content));
                    loaded.push((at, chunks, keep[at].then(|| content.to_vec())));
                }
            }
        };
        let repo = self.repo;
        let (mine, theirs) = std::thread::scope(|scope| {
            let load = &load;
            let theirs = scope.spawn(move || load(&other));
            (load(repo), theirs.join())
        });
        // A panic on the other thread: the search reads what it needs itself.
        let Ok(theirs) = theirs else {
            return;
        };
        for (at, chunks, bytes) in mine.into_iter().chain(theirs) {
            let (entry, side, _) = wanted[at];
            self.facts[entry].chunks = Some(chunks);
            if let Some(bytes) = bytes {
                self.kept.keep_read(side.id, bytes);
            }
        }
    }

    /// The contents the search of the `unpaired` destinations reads, each once, in the
    /// order it reads them: the entry, its side and its size.
    fn wanted(&mut self, unpaired: &[usize]) -> Result<Vec<(usize, &'e Side, u64)>, GitError> {
        let mut listed = vec![false; self.entries.len()];
        let mut wanted = Vec::new();
        for &destination in unpaired {
            let destination_entry = self.destinations[destination].entry;
            for position in 0..self.sources.len() {
                let source_entry = self.sources[position].entry;
                let Some(sides) = self.comparable(source_entry, destination_entry, MIN_SCORE)?
                else {
                    continue;
                };
                for ((side, size), entry) in
                    sides.into_iter().zip([source_entry, destination_entry])
                {
                    if !listed[entry] && self.facts[entry].chunks.is_none() {
                        listed[entry] = true;
                        wanted.push((entry, side, size));
                    }
                }
            }
        }
        Ok(wanted)
    }

    fn id(&mut self, entry: usize, side: &Side) -> Result<Oid, GitError> {
        if let Some(id) = self.facts[entry].id {
            return Ok(id);
        }
        let id = if side.id.is_zero() {
            let content = self.repo.read_side(side)?;
            Oid::hash_object(git2::ObjectType::Blob, &content)
                .map_err(GitError::git(format!("hashing {}", side.display_path())))?
        } else {
            side.id
        };
        self.facts[entry].id = Some(id);
        Ok(id)
    }

    fn size(&mut self, entry: usize, side: &Side) -> Result<u64, GitError> {
        if let Some(size) = self.facts[entry].size {
            return Ok(size);
        }
        let size = self.repo.side_size(side)?;
        self.facts[entry].size = Some(size);
        Ok(size)
    }

    fn load_chunks(&mut self, entry: usize, side: &Side) -> Result<(), GitError> {
        if self.facts[entry].chunks.is_none() {
            let content = self.repo.read_side(side)?;
            let text = !super::content::is_binary(&content);
            self.facts[entry].chunks = Some(Chunks::of(&content, text));
            self.kept.keep(side.id, content);
        }
        Ok(())
    }

    /// The entries with each pair made one renamed or copied entry, and the contents
    /// kept.
    fn finish(self) -> (Vec<Entry>, Kept) {
        let mut origin: Vec<Option<usize>> = vec![None; self.entries.len()];
        for destination in &self.destinations {
            origin[destination.entry] = destination.source;
        }
        let mut left = self.uses.clone();
        let mut result = Vec::with_capacity(self.entries.len());
        for (index, entry) in self.entries.iter().enumerate() {
            if let Some(source) = origin[index] {
                left[source] -= 1;
                let status = if left[source] > 0 {
                    ChangeStatus::Copied
                } else {
                    ChangeStatus::Renamed
                };
                result.push(Entry {
                    status,
                    old: self.entries[source].old.clone(),
                    new: entry.new.clone(),
                });
            } else if entry.status == ChangeStatus::Deleted && self.uses[index] > 0 {
                continue;
            } else {
                result.push(entry.clone());
            }
        }
        (result, self.kept)
    }
}

/// Git's `record_if_better`: replaces the worst of the kept candidates if `candidate`
/// ranks before it.
fn keep_if_better(kept: &mut [Candidate; CANDIDATES_PER_DESTINATION], candidate: Candidate) {
    let mut worst = 0;
    for index in 1..kept.len() {
        if kept[index].rank(&kept[worst]) == Ordering::Greater {
            worst = index;
        }
    }
    if kept[worst].rank(&candidate) == Ordering::Greater {
        kept[worst] = candidate;
    }
}

/// The last component of a path.
fn file_name(path: &[u8]) -> &[u8] {
    match memchr::memrchr(b'/', path) {
        Some(slash) => &path[slash + 1..],
        None => path,
    }
}

/// Whether two paths end in the same file name.
fn same_name(a: &[u8], b: &[u8]) -> bool {
    file_name(a) == file_name(b)
}
