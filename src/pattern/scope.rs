//! Scope patterns compiled into one set.

use super::{compile, from_root, Dialect};
use globset::{GlobSet, GlobSetBuilder};
use hashbrown::{DefaultHashBuilder, HashTable};
use std::hash::BuildHasher;

/// A pattern that could not be compiled, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern as written.
    pub pattern: String,
    /// What is wrong with it.
    pub message: String,
}

/// A list of scope patterns compiled for matching. A pattern without a glob
/// metacharacter (a file path, or a directory `dir/`) is looked up in a hash table
/// rather than compiled: most scopes and file lists are such paths, and a glob set of
/// hundreds of thousands of them costs seconds and hundreds of megabytes. The tables
/// hold pattern indices, not copies of the paths, and are keyed with a seeded fast hash
/// (foldhash), so a list of 300,000 paths is one copy of each and no allocation per path.
#[derive(Debug, Clone)]
pub struct PatternSet {
    /// Every pattern given, trimmed, in order: an index is a position in the list.
    patterns: Vec<String>,
    /// Whether each pattern also covers what lies below it as a directory.
    directories: bool,
    set: GlobSet,
    /// The indices of the patterns of each glob of `set` (equal globs compiled once).
    globbed: Vec<Vec<usize>>,
    /// Literal file paths, keyed by the path ([`from_root`]).
    exact: Groups,
    /// Literal directories, keyed by the directory without its `/`.
    below: Groups,
    hasher: DefaultHashBuilder,
}

/// Pattern indices grouped by a key: each group's first and last index in a hash table,
/// the others chained through `next`, so a group costs no allocation of its own.
#[derive(Debug, Clone)]
struct Groups {
    table: HashTable<(usize, usize)>,
    next: Vec<usize>,
}

/// The end of a chain in [`Groups::next`].
const NONE: usize = usize::MAX;

impl Groups {
    fn with_capacity(patterns: usize) -> Groups {
        Groups {
            table: HashTable::with_capacity(patterns),
            next: vec![NONE; patterns],
        }
    }

    /// Adds `index` to the group of `key`, `key_of` giving the key of any index.
    fn add<'k>(
        &mut self,
        hasher: &DefaultHashBuilder,
        key: &str,
        index: usize,
        key_of: impl Fn(usize) -> &'k str,
    ) {
        if self.next.len() <= index {
            self.next.resize(index + 1, NONE);
        }
        let hash = hasher.hash_one(key);
        match self
            .table
            .find_mut(hash, |(first, _)| key_of(*first) == key)
        {
            Some((_, last)) => {
                self.next[*last] = index;
                *last = index;
            }
            None => {
                let rehash = |(first, _): &(usize, usize)| hasher.hash_one(key_of(*first));
                self.table.insert_unique(hash, (index, index), rehash);
            }
        }
    }

    /// The indices of the group of `key`, in order.
    fn get<'s, 'k>(
        &'s self,
        hasher: &DefaultHashBuilder,
        key: &str,
        key_of: impl Fn(usize) -> &'k str,
    ) -> impl Iterator<Item = usize> + 's {
        let found = self
            .table
            .find(hasher.hash_one(key), |(first, _)| key_of(*first) == key);
        let mut at = found.map_or(NONE, |(first, _)| *first);
        std::iter::from_fn(move || {
            let index = (at != NONE).then_some(at)?;
            at = self.next.get(index).copied().unwrap_or(NONE);
            Some(index)
        })
    }
}

/// A glob without metacharacters, as [`compile`] reads it: its text is the path.
fn is_literal(glob: &str) -> bool {
    !glob.contains(['*', '?', '[', ']', '{', '}', '\\'])
}

/// The key of a literal file pattern: its path from the root.
fn file_key(pattern: &str) -> &str {
    from_root(pattern)
}

/// The key of a literal directory pattern: the directory from the root without its
/// last `/` (a pattern read as a directory: without all of its trailing `/`).
fn directory_key(pattern: &str, directories: bool) -> &str {
    if directories {
        from_root(pattern.trim_end_matches('/'))
    } else {
        let path = from_root(pattern);
        path.strip_suffix('/').unwrap_or(path)
    }
}

impl PatternSet {
    /// Compiles `patterns`; the ones that do not compile are returned beside the set,
    /// which holds all the others.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> (PatternSet, Vec<PatternError>) {
        PatternSet::build(patterns, false)
    }

    /// Like [`PatternSet::new`], but every pattern also covers the paths below it as a
    /// directory: `src/auth` matches `src/auth` and `src/auth/x.ts` (a list of files
    /// changed names a directory either way).
    pub fn with_directories<S: AsRef<str>>(patterns: &[S]) -> (PatternSet, Vec<PatternError>) {
        PatternSet::build(patterns, true)
    }

    fn build<S: AsRef<str>>(patterns: &[S], directories: bool) -> (PatternSet, Vec<PatternError>) {
        let patterns: Vec<String> = patterns
            .iter()
            .map(|p| p.as_ref().trim().to_string())
            .collect();
        let hasher = DefaultHashBuilder::default();
        // Sized once: growing a table rehashes every key it holds.
        let (mut exact, mut below) = (
            Groups::with_capacity(patterns.len()),
            Groups::with_capacity(patterns.len()),
        );
        let mut globs = Globs {
            builder: GlobSetBuilder::new(),
            seen: std::collections::HashMap::new(),
            owners: Vec::new(),
        };
        let mut errors = Vec::new();
        for (index, pattern) in patterns.iter().enumerate() {
            if pattern.is_empty() {
                continue;
            }
            let directory = directory_key(pattern, directories);
            let as_directory = directories || from_root(pattern).ends_with('/');
            let as_file = !from_root(pattern).ends_with('/');
            if as_directory && is_literal(directory) {
                below.add(&hasher, directory, index, |i| {
                    directory_key(&patterns[i], directories)
                });
                if directories && as_file {
                    exact.add(&hasher, file_key(pattern), index, |i| {
                        file_key(&patterns[i])
                    });
                }
            } else if as_file && is_literal(file_key(pattern)) {
                exact.add(&hasher, file_key(pattern), index, |i| {
                    file_key(&patterns[i])
                });
            } else {
                let mut forms = vec![pattern.clone()];
                if directories {
                    forms.push(format!("{}/", pattern.trim_end_matches('/')));
                }
                for form in forms {
                    if let Err(message) = globs.add(&form, index) {
                        errors.push(PatternError {
                            pattern: pattern.clone(),
                            message,
                        });
                        break;
                    }
                }
            }
        }
        let (set, globbed) = globs.build();
        let set = PatternSet {
            patterns,
            directories,
            set,
            globbed,
            exact,
            below,
            hasher,
        };
        (set, errors)
    }

    /// The indices (in the list given) of the patterns that match `path`, in order.
    pub fn matching_indices(&self, path: &str) -> Vec<usize> {
        let mut indices: Vec<usize> = self.literal_matches(path).collect();
        if !self.globbed.is_empty() {
            for glob in self.set.matches(path) {
                indices.extend(&self.globbed[glob]);
            }
        }
        indices.sort_unstable();
        indices.dedup();
        indices
    }

    /// The indices of the literal patterns that match `path`.
    fn literal_matches<'s>(&'s self, path: &'s str) -> impl Iterator<Item = usize> + 's {
        let file_of = |i: usize| file_key(&self.patterns[i]);
        let directory_of = |i: usize| directory_key(&self.patterns[i], self.directories);
        let directories = path
            .match_indices('/')
            .filter(move |(at, _)| at + 1 < path.len())
            .flat_map(move |(at, _)| self.below.get(&self.hasher, &path[..at], directory_of));
        self.exact
            .get(&self.hasher, path, file_of)
            .chain(directories)
    }

    /// Every pattern that matches `path`, in the order given.
    pub fn matching(&self, path: &str) -> impl Iterator<Item = &str> {
        self.matching_indices(path)
            .into_iter()
            .map(|index| self.patterns[index].as_str())
    }

    /// Whether any pattern matches `path`.
    pub fn is_match(&self, path: &str) -> bool {
        self.literal_matches(path).next().is_some()
            || (!self.globbed.is_empty() && self.set.is_match(path))
    }
}

/// The globs of a set being built: each distinct text compiled once, with the indices
/// of the patterns that wrote it.
struct Globs {
    builder: GlobSetBuilder,
    /// Each distinct glob text and its place in `owners` (`None`: it did not compile).
    seen: std::collections::HashMap<String, Option<usize>>,
    owners: Vec<Vec<usize>>,
}

impl Globs {
    /// Adds the glob `text` of pattern `index`; the error says why it does not compile.
    fn add(&mut self, text: &str, index: usize) -> Result<(), String> {
        let glob = match self.seen.get(text) {
            Some(Some(glob)) => *glob,
            Some(None) => return Ok(()),
            None => match compile(text, Dialect::Scope, false) {
                Ok(compiled) => {
                    self.builder.add(compiled);
                    self.owners.push(Vec::new());
                    self.seen
                        .insert(text.to_string(), Some(self.owners.len() - 1));
                    self.owners.len() - 1
                }
                Err(error) => {
                    self.seen.insert(text.to_string(), None);
                    return Err(error.kind().to_string());
                }
            },
        };
        self.owners[glob].push(index);
        Ok(())
    }

    fn build(self) -> (GlobSet, Vec<Vec<usize>>) {
        let set = self.builder.build().unwrap_or_else(|_| GlobSet::empty());
        (set, self.owners)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table of examples: (pattern, path, matches).
    const EXAMPLES: &[(&str, &str, bool)] = &[
        ("src/auth/oauth.ts", "src/auth/oauth.ts", true),
        ("src/auth/oauth.ts", "src/auth/oauth.tsx", false),
        ("src/auth/oauth.ts", "lib/src/auth/oauth.ts", false),
        ("/src/auth/oauth.ts", "src/auth/oauth.ts", true),
        ("./src/auth/oauth.ts", "src/auth/oauth.ts", true),
        ("src/auth/", "src/auth/oauth.ts", true),
        ("src/auth/", "src/auth/deep/er/x.ts", true),
        ("src/auth/", "src/authz/x.ts", false),
        ("src/auth/", "src/auth", false),
        ("tests/auth/*.test.ts", "tests/auth/a.test.ts", true),
        ("tests/auth/*.test.ts", "tests/auth/.x.test.ts", true),
        ("tests/auth/*.test.ts", "tests/auth/sub/a.test.ts", false),
        ("src/?.rs", "src/a.rs", true),
        ("src/?.rs", "src/ab.rs", false),
        ("src/?", "src/a/b", false),
        ("src/**/*.rs", "src/a.rs", true),
        ("src/**/*.rs", "src/a/b/c.rs", true),
        ("src/**/*.rs", "src/a.py", false),
        ("**/Cargo.toml", "Cargo.toml", true),
        ("**/Cargo.toml", "crates/x/Cargo.toml", true),
        ("**/Cargo.toml", "Cargo.lock", false),
        ("*.md", "README.md", true),
        ("*.md", ".hidden.md", true),
        ("*", ".env", true),
        ("*.md", "docs/guide.md", false),
        ("src/{a,b}.rs", "src/b.rs", true),
        ("src/{a,b}.rs", "src/c.rs", false),
        ("Src/A.rs", "Src/A.rs", true),
        ("Src/A.rs", "src/a.rs", false),
        (r"src/\*.rs", "src/*.rs", true),
        (r"src/\*.rs", "src/a.rs", false),
    ];

    #[test]
    fn patterns_follow_the_documented_table() {
        for (pattern, path, expected) in EXAMPLES {
            let (set, errors) = PatternSet::new(&[*pattern]);
            assert!(errors.is_empty(), "{pattern}: {errors:?}");
            assert_eq!(
                set.is_match(path),
                *expected,
                "`{pattern}` against `{path}`"
            );
        }
    }

    #[test]
    fn literal_paths_and_globs_match_alike_and_in_order() {
        let patterns = ["src/**/*.rs", "src/", "src/a/b.rs", "/src/a/", "src/a/b.rs"];
        let (set, errors) = PatternSet::new(&patterns);
        assert!(errors.is_empty());
        assert_eq!(
            set.matching("src/a/b.rs").collect::<Vec<_>>(),
            ["src/**/*.rs", "src/", "src/a/b.rs", "/src/a/", "src/a/b.rs"]
        );
        assert_eq!(set.matching("src/a").collect::<Vec<_>>(), ["src/"]);
        assert!(!set.is_match("src"));
        assert!(!set.is_match("lib/src/a/b.rs"));
    }

    #[test]
    fn with_directories_every_pattern_also_covers_what_is_below_it() {
        let patterns = [
            "src/auth",
            "./src/auth",
            "docs/",
            "src/*.rs",
            "src/*.rs",
            "",
            "src/[",
        ];
        let (set, errors) = PatternSet::with_directories(&patterns);
        assert_eq!(errors.len(), 1);
        assert_eq!(set.matching_indices("src/auth"), [0, 1]);
        assert_eq!(set.matching_indices("src/auth/deep/x.ts"), [0, 1]);
        assert_eq!(set.matching_indices("docs/a.md"), [2]);
        assert!(set.matching_indices("docs").is_empty());
        assert_eq!(set.matching_indices("src/a.rs"), [3, 4]);
        assert_eq!(set.matching_indices("src/a.rs/b"), [3, 4]);
        assert!(!set.is_match("src/authz/x.ts"));
        let (plain, _) = PatternSet::new(&patterns);
        assert!(!plain.is_match("src/auth/deep/x.ts"));
        assert!(!plain.is_match("src/a.rs/b"));
    }

    #[test]
    fn invalid_patterns_are_reported_and_the_rest_still_match() {
        let (set, errors) = PatternSet::new(&["src/[a.rs", "docs/"]);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].pattern, "src/[a.rs");
        assert!(set.is_match("docs/x.md"));
        assert_eq!(set.matching("docs/x.md").collect::<Vec<_>>(), ["docs/"]);
    }
}
