//! Path patterns: the two glob dialects `handoff` reads, compiled in one place.
//!
//! Both are globs over repository paths (`/`-separated, relative to the root) where `*`
//! and `?` never cross `/`, `**` does, `{a,b}` is an alternative, `[…]` a class, a
//! backslash escapes, and dotfiles are ordinary files. They differ in where a pattern is
//! anchored, because they are written for different jobs:
//!
//! | | [`Dialect::Scope`] | [`Dialect::Rule`] |
//! |---|---|---|
//! | written in | `Expected file scope`, scope expansions, `Files changed` | `.handoff.yaml` and the built-in rules: rule `paths` and `files`, `exclude` |
//! | reads like | `CODEOWNERS`: a path from the root | `.gitignore`: a name anywhere |
//! | `src/a.rs` | that file only | that file only (a `/` inside anchors) |
//! | `*.pem` | `*.pem` at the root only | any `.pem` at any depth (`**/*.pem`) |
//! | `vendor/` | everything below the root's `vendor/` | everything below any `vendor/` (`**/vendor/**`) |
//! | leading `/` | ignored (as is `./`) | anchors at the root: `/.gitlab-ci.yml` |
//! | case | sensitive | rules: insensitive ([`RuleGlobs`]); `exclude`: sensitive |
//!
//! Scope patterns are what an agent is allowed to touch, so they mean exactly what they
//! say from the root; rule globs find risky files wherever a project keeps them.
//!
//! Scope examples (the README's table):
//!
//! | pattern | matches | does not match |
//! |---|---|---|
//! | `src/auth/oauth.ts` | `src/auth/oauth.ts` (that file only) | `src/auth/oauth.tsx`, `lib/src/auth/oauth.ts` |
//! | `src/auth/` | everything under `src/auth/`, at any depth | `src/authz/x.ts`, `src/auth` |
//! | `tests/auth/*.test.ts` | `tests/auth/a.test.ts`, `tests/auth/.x.test.ts` | `tests/auth/sub/a.test.ts` |
//! | `src/?.rs` | `src/a.rs` | `src/ab.rs`, `src/a/b.rs` |
//! | `src/**/*.rs` | `src/a.rs`, `src/a/b/c.rs` | `src/a.py` |
//! | `**/Cargo.toml` | `Cargo.toml`, `crates/x/Cargo.toml` | `Cargo.lock` |
//! | `*.md` | `README.md`, `.hidden.md` | `docs/guide.md` |
//! | `src/{a,b}.rs` | `src/a.rs`, `src/b.rs` | `src/c.rs` |
//! | `Src/A.rs` | `Src/A.rs` | `src/a.rs` (case-sensitive) |
//! | `src/\*.rs` | `src/*.rs` (a literal star) | `src/a.rs` |
//!
//! [`PatternSet`] compiles many scope patterns into one set (a 5,000-file change is one
//! pass). [`RuleGlobs`] holds the rules of a policy and compiles a glob only when a path
//! could match it: `literals` reads from a glob's (or a line regex's) own text the words
//! every match holds, and its `Prefilter` finds them in a path or line.

mod forward;
mod hir_code;
mod literals;
mod plain_glob;
mod required;
mod rules;
mod scope;
mod slots;
mod start_index;

pub(crate) use forward::{Forward, Settings as ForwardSettings};
#[cfg(test)]
pub(crate) use literals::rule_glob_literals;
pub(crate) use literals::{built_hir, regex_literals, Prefilter, RegexRequirement};
pub use rules::RuleGlobs;
pub use scope::{PatternError, PatternSet};

use globset::{Glob, GlobBuilder};
use plain_glob::PlainGlob;
use regex_automata::meta;
use regex_automata::util::syntax;
use required::rule_glob;

/// Which of the two glob dialects a pattern is written in (see the module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// A file-scope pattern: anchored at the root, `dir/` a directory.
    Scope,
    /// A policy rule glob: `.gitignore`-style.
    Rule,
}

/// Compiles `pattern`, written in `dialect`, into a glob over full repository paths.
pub fn compile(
    pattern: &str,
    dialect: Dialect,
    case_insensitive: bool,
) -> Result<Glob, globset::Error> {
    let full = match dialect {
        Dialect::Scope => scope_glob(pattern),
        Dialect::Rule => rule_glob(pattern),
    };
    GlobBuilder::new(&full)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(case_insensitive)
        .build()
}

/// The matcher of `glob`: its regex read as plain pieces when it is made of them
/// ([`plain_glob`]), else compiled ([`regex_matcher`]).
pub(crate) fn glob_matcher(glob: &Glob) -> Result<GlobMatcher, String> {
    match PlainGlob::new(glob.regex()) {
        Some(plain) => Ok(GlobMatcher::Plain(Box::new(plain))),
        None => regex_matcher(glob.regex()).map(GlobMatcher::Regex),
    }
}

/// A glob's matcher: its regex's plain pieces, or the regex compiled.
#[derive(Debug)]
pub(crate) enum GlobMatcher {
    /// Matched piece by piece (boxed: the policy's globs are built and moved in every
    /// process, most of them never compiled).
    Plain(Box<PlainGlob>),
    /// Compiled.
    Regex(meta::Regex),
}

impl GlobMatcher {
    /// Whether the whole of `path` matches.
    pub(crate) fn is_match(&self, path: &[u8]) -> bool {
        match self {
            GlobMatcher::Plain(plain) => plain.is_match(path, |regex| regex_matcher(regex).ok()),
            GlobMatcher::Regex(regex) => regex.is_match(path),
        }
    }
}

/// A glob's regex compiled with `globset`'s own settings for a glob matcher (so it
/// matches exactly the paths `glob.compile_matcher()` matches) except that no full DFA is
/// built. A path is a few dozen bytes, which the lazy DFA matches about as fast; building
/// the full DFAs cost about 1 M instructions a glob, most of what a path rule cost a
/// one-commit change.
fn regex_matcher(regex: &str) -> Result<meta::Regex, String> {
    meta::Builder::new()
        .syntax(syntax::Config::new().utf8(false).dot_matches_new_line(true))
        .configure(
            meta::Config::new()
                .utf8_empty(false)
                .nfa_size_limit(Some(10 * (1 << 20)))
                .hybrid_cache_capacity(10 * (1 << 20))
                .dfa(false)
                .onepass(false),
        )
        .build(regex)
        .map_err(|error| error.to_string())
}

/// A rule glob matching exactly the repository path `path` (its metacharacters escaped).
pub fn literal_rule_glob(path: &str) -> String {
    format!("/{}", globset::escape(path))
}

/// A scope pattern as a full-path glob: a leading `/` or `./` stripped, `dir/` meaning
/// everything below `dir`.
fn scope_glob(pattern: &str) -> String {
    let text = from_root(pattern);
    if text.ends_with('/') {
        format!("{text}**")
    } else {
        text.to_string()
    }
}

/// A scope pattern relative to the repository root: trimmed, every leading `./` and `/`
/// removed.
fn from_root(pattern: &str) -> &str {
    let mut text = pattern.trim();
    loop {
        if let Some(rest) = text.strip_prefix("./") {
            text = rest;
        } else if let Some(rest) = text.strip_prefix('/') {
            text = rest;
        } else {
            return text;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialects_differ_where_the_table_says() {
        let matches = |pattern: &str, dialect, path: &str| {
            compile(pattern, dialect, false)
                .expect("compiles")
                .compile_matcher()
                .is_match(path)
        };
        assert!(matches("*.pem", Dialect::Rule, "a/b/k.pem"));
        assert!(!matches("*.pem", Dialect::Scope, "a/b/k.pem"));
        assert!(matches("vendor/", Dialect::Rule, "x/vendor/y.rs"));
        assert!(!matches("vendor/", Dialect::Scope, "x/vendor/y.rs"));
        assert!(matches("/src/a.rs", Dialect::Scope, "src/a.rs"));
        assert!(matches(
            &literal_rule_glob("a[1].yaml"),
            Dialect::Rule,
            "a[1].yaml"
        ));
    }
}
