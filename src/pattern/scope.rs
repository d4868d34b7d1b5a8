//! Scope patterns compiled into one set.

use super::{compile, scope_glob, Dialect};
use globset::{GlobSet, GlobSetBuilder};
use std::collections::HashMap;

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
/// hundreds of thousands of them costs seconds and hundreds of megabytes.
#[derive(Debug, Clone)]
pub struct PatternSet {
    patterns: Vec<String>,
    set: GlobSet,
    /// The index in `patterns` of each glob of `set`.
    globbed: Vec<usize>,
    /// Literal file paths: the path, and the patterns that name it.
    exact: HashMap<String, Vec<usize>>,
    /// Literal directories (`dir/`): the directory without its `/`, and its patterns.
    below: HashMap<String, Vec<usize>>,
}

/// A glob without metacharacters, as [`compile`] reads it: its text is the path.
fn is_literal(glob: &str) -> bool {
    !glob.contains(['*', '?', '[', ']', '{', '}', '\\'])
}

impl PatternSet {
    /// Compiles `patterns`; the ones that do not compile are returned beside the set,
    /// which holds all the others.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> (PatternSet, Vec<PatternError>) {
        let mut builder = GlobSetBuilder::new();
        let mut kept = Vec::new();
        let mut globbed = Vec::new();
        let mut exact: HashMap<String, Vec<usize>> = HashMap::new();
        let mut below: HashMap<String, Vec<usize>> = HashMap::new();
        let mut errors = Vec::new();
        for pattern in patterns {
            let pattern = pattern.as_ref().trim();
            if pattern.is_empty() {
                continue;
            }
            let index = kept.len();
            let full = scope_glob(pattern);
            if let Some(directory) = full.strip_suffix("/**").filter(|d| is_literal(d)) {
                below.entry(directory.to_string()).or_default().push(index);
            } else if is_literal(&full) {
                exact.entry(full).or_default().push(index);
            } else {
                match compile(pattern, Dialect::Scope, false).map_err(|e| e.kind().to_string()) {
                    Ok(glob) => {
                        builder.add(glob);
                        globbed.push(index);
                    }
                    Err(message) => {
                        errors.push(PatternError {
                            pattern: pattern.to_string(),
                            message,
                        });
                        continue;
                    }
                }
            }
            kept.push(pattern.to_string());
        }
        let set = builder.build().unwrap_or_else(|_| GlobSet::empty());
        (
            PatternSet {
                patterns: kept,
                set,
                globbed,
                exact,
                below,
            },
            errors,
        )
    }

    /// The indices of the literal patterns that match `path`.
    fn literal_matches<'s>(&'s self, path: &'s str) -> impl Iterator<Item = usize> + 's {
        let directories = path
            .match_indices('/')
            .filter(move |(at, _)| at + 1 < path.len())
            .filter_map(move |(at, _)| self.below.get(&path[..at]));
        self.exact
            .get(path)
            .into_iter()
            .chain(directories)
            .flatten()
            .copied()
    }

    /// Every pattern that matches `path`, in the order given.
    pub fn matching(&self, path: &str) -> impl Iterator<Item = &str> {
        let mut indices: Vec<usize> = self.literal_matches(path).collect();
        if !self.globbed.is_empty() {
            indices.extend(self.set.matches(path).into_iter().map(|i| self.globbed[i]));
        }
        indices.sort_unstable();
        indices.dedup();
        indices
            .into_iter()
            .filter_map(|index| self.patterns.get(index).map(String::as_str))
    }

    /// Whether any pattern matches `path`.
    pub fn is_match(&self, path: &str) -> bool {
        self.literal_matches(path).next().is_some()
            || (!self.globbed.is_empty() && self.set.is_match(path))
    }

    /// The patterns that compiled, in the order given.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
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
    fn invalid_patterns_are_reported_and_the_rest_still_match() {
        let (set, errors) = PatternSet::new(&["src/[a.rs", "docs/"]);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].pattern, "src/[a.rs");
        assert!(set.is_match("docs/x.md"));
        assert_eq!(set.matching("docs/x.md").collect::<Vec<_>>(), ["docs/"]);
    }
}
