//! Rule globs: the policy's path and file globs, matched case-insensitively, each compiled
//! only when a path could match it (see [`super::literals`]).

use super::literals::{rule_glob_literals, Prefilter};
use super::{compile, glob_matcher, Dialect, GlobMatcher};
use std::ops::Range;
use std::sync::OnceLock;

/// A path or file glob of a rule, matched case-insensitively against a path that
/// [`lowercase`] made lower case. A glob without a character class is lowered and
/// compiled case-sensitively, which lets `globset` match it by literal, extension or
/// suffix and leaves the rest a much smaller regex than the `(?i)` one (all ASCII case
/// folding, as `(?-u)(?i)` is). A glob with a class keeps `(?i)`: lowering `[A-z]` would
/// change which punctuation it matches.
fn rule_glob(glob: &str) -> Result<globset::Glob, globset::Error> {
    if glob.contains('[') {
        compile(glob, Dialect::Rule, true)
    } else {
        compile(&glob.to_ascii_lowercase(), Dialect::Rule, false)
    }
}

/// The path as the rule globs see it (see [`rule_glob`]).
fn lowercase(path: &str) -> std::borrow::Cow<'_, str> {
    if path.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(path.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(path)
    }
}

/// Rule globs, each compiled when a path first could match it. A glob that ends in an
/// extension list (`*auth.{py,rb,…}`, `*.{js,ts}`) is split into its stem (`*auth`),
/// matched against the path without its last extension, and the list, looked up: the
/// 40-extension lists of the default rules would otherwise make most of each glob's
/// regex.
#[derive(Debug, Default)]
pub struct RuleGlobs {
    globs: Vec<RuleGlob>,
    prefilter: OnceLock<Prefilter>,
}

/// One glob of a rule.
#[derive(Debug)]
struct RuleGlob {
    /// The rule it belongs to.
    rule: usize,
    /// The glob as written.
    source: String,
    /// The glob compiled, on first use.
    compiled: OnceLock<Result<CompiledGlob, String>>,
}

/// A rule glob split into its stem and extensions, when it ends in an extension list,
/// and compiled (see [`rule_glob`]). A stem of `*` (any file name, in any directory)
/// needs no matcher.
#[derive(Debug)]
struct CompiledGlob {
    stem: Option<GlobMatcher>,
    /// Where each extension of the glob's list (`py`, `RB`, …) stands in its source.
    extensions: Option<Vec<Range<usize>>>,
    /// The glob's source in ASCII lower case, when its list has an upper-case letter (the
    /// extensions are compared in lower case, byte for byte: comparing each in either
    /// case cost a release range of spring-framework's 9,989 files 88 M instructions).
    lowered: Option<String>,
}

impl RuleGlob {
    /// Whether the glob matches `path` (lower case), `split` at its last dot.
    fn is_match(&self, path: &str, split: Option<(&str, &str)>) -> bool {
        let compiled = self.compiled.get_or_init(|| {
            let (stem, extensions) = match split_extensions(&self.source) {
                Some((stem, extensions)) => (stem, Some(extensions)),
                None => (self.source.as_str(), None),
            };
            let lowered = (extensions.is_some()
                && self.source.bytes().any(|b| b.is_ascii_uppercase()))
            .then(|| self.source.to_ascii_lowercase());
            if stem == "*" && extensions.is_some() {
                return Ok(CompiledGlob {
                    stem: None,
                    extensions,
                    lowered,
                });
            }
            let glob = rule_glob(stem).map_err(|e| e.to_string())?;
            Ok(CompiledGlob {
                stem: Some(glob_matcher(&glob)?),
                extensions,
                lowered,
            })
        });
        let Ok(compiled) = compiled else {
            return false;
        };
        let stem_matches = |text: &str| {
            let matcher = compiled.stem.as_ref();
            matcher.is_none_or(|matcher| matcher.is_match(text.as_bytes()))
        };
        match (&compiled.extensions, split) {
            (None, _) => stem_matches(path),
            (Some(extensions), Some((stem, extension))) => {
                let lower = compiled.lowered.as_deref().unwrap_or(&self.source);
                let mut listed = extensions.iter().map(|at| &lower.as_bytes()[at.clone()]);
                listed.any(|e| e == extension.as_bytes()) && stem_matches(stem)
            }
            (Some(_), None) => false,
        }
    }
}

impl RuleGlobs {
    /// Adds the glob of rule `rule`.
    pub fn add(&mut self, glob: &str, rule: usize) {
        self.globs.push(RuleGlob {
            rule,
            source: glob.to_string(),
            compiled: OnceLock::new(),
        });
    }

    /// Calls `hit` with the rule of each glob that matches `path` (case-insensitively,
    /// in ASCII), possibly more than once per rule.
    pub fn matches(&self, path: &str, mut hit: impl FnMut(usize)) {
        let prefilter = self.prefilter.get_or_init(|| {
            let globs = self.globs.iter().map(|glob| glob.source.as_str());
            Prefilter::of_patterns(globs, rule_glob_literals)
        });
        let path = lowercase(path);
        let split = path
            .rsplit_once('.')
            .filter(|(_, extension)| !extension.contains('/'));
        for index in prefilter.candidates(path.as_bytes()) {
            let glob = &self.globs[index];
            if glob.is_match(&path, split) {
                hit(glob.rule);
            }
        }
    }

    /// The globs, in order.
    #[cfg(test)]
    pub(crate) fn sources(&self) -> impl Iterator<Item = &str> + Clone {
        self.globs.iter().map(|glob| glob.source.as_str())
    }

    /// How many globs were compiled so far.
    #[cfg(test)]
    pub(crate) fn compiled(&self) -> usize {
        let globs = self.globs.iter();
        globs.filter(|glob| glob.compiled.get().is_some()).count()
    }

    /// The rule and message of the first glob that was needed and failed to compile.
    pub fn first_error(&self) -> Option<(usize, String)> {
        self.globs
            .iter()
            .find_map(|glob| match glob.compiled.get() {
                Some(Err(message)) => Some((glob.rule, message.clone())),
                _ => None,
            })
    }
}

/// A glob `STEM.{a,b,c}` as `STEM` and where each of its extensions (`a`, `b`, `c`)
/// stands in it, when that split matches the same paths: the extensions are plain names
/// (letters, digits, `_`, `-`: no dot, slash or glob syntax, so a path's extension is
/// what follows its last dot; compared in ASCII lower case) and the stem is a glob of
/// its own whose `.` is not escaped and that does not end in `**` (recursive on its own,
/// not before `.`) or `/` (a directory on its own). The extensions are not copied: the
/// default file globs' 25-extension lists, copied name by name in lower case, cost a
/// one-commit change 0.65 M instructions.
fn split_extensions(glob: &str) -> Option<(&str, Vec<Range<usize>>)> {
    let body = glob.strip_suffix('}')?;
    let (head, list) = body.rsplit_once('{')?;
    let stem = head.strip_suffix('.')?;
    if stem.is_empty()
        || stem.ends_with("**")
        || stem.ends_with(['/', '\\'])
        || stem.contains(['{', '}'])
    {
        return None;
    }
    // One pass over the list, one allocation (a list of n bytes names at most n / 2 + 1
    // extensions): a split, a check and a growing list for each glob cost 3,300
    // instructions, 0.19 M for the 57 globs a Java file's path reaches.
    let first = head.len() + 1;
    let mut extensions = Vec::with_capacity(list.len() / 2 + 1);
    let mut start = first;
    for (at, &byte) in (first..).zip(list.as_bytes()) {
        if byte == b',' {
            if at == start {
                return None;
            }
            extensions.push(start..at);
            start = at + 1;
        } else if !(byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-') {
            return None;
        }
    }
    let end = first + list.len();
    if end == start {
        return None;
    }
    extensions.push(start..end);
    Some((stem, extensions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_glob_matches_its_extensions_in_any_case_and_no_others() {
        let mut globs = RuleGlobs::default();
        globs.add("*auth.{py,RB,j-s}", 7);
        let hits = |path: &str| {
            let mut rules = Vec::new();
            globs.matches(path, |rule| rules.push(rule));
            rules
        };
        for path in [
            "app/auth.py",
            "app/Auth.rb",
            "x/AUTH.PY",
            "auth.J-S",
            "a/oauth.rb",
        ] {
            assert_eq!(hits(path), [7], "{path}");
        }
        for path in [
            "auth.rbx",
            "auth.r",
            "auth.p",
            "auth.",
            "auth",
            "auth.py/x",
            "authx.py",
        ] {
            assert!(hits(path).is_empty(), "{path}");
        }
    }

    #[test]
    fn extension_lists_split_only_where_the_split_is_exact() {
        let glob = "*auth.{py,RB}";
        let (stem, list) = split_extensions(glob).expect("splits");
        let list: Vec<&str> = list.into_iter().map(|at| &glob[at]).collect();
        assert_eq!((stem, list), ("*auth", vec!["py", "RB"]));
        assert_eq!(split_extensions("*.{js,ts}").map(|s| s.0), Some("*"));
        let glob = "src/*.{a,bc,D-e_9}";
        let (stem, list) = split_extensions(glob).expect("splits");
        let list: Vec<&str> = list.into_iter().map(|at| &glob[at]).collect();
        assert_eq!((stem, list), ("src/*", vec!["a", "bc", "D-e_9"]));
        for glob in [
            "*.{test,spec}.{js,ts}",
            "src/**.{py}",
            "x\\.{py}",
            "dir/.{py}",
            ".{env}",
            "*.{a.b,c}",
            "*.{,py}",
            "*.{py,}",
            "*.{py,,rb}",
            "*.{}",
            "*.{p*,q}",
            "*.py",
        ] {
            let split = split_extensions(glob);
            assert!(split.is_none() || glob == "*.{test,spec}.{js,ts}", "{glob}");
        }
    }

    proptest::proptest! {
        /// A glob split at its extension list matches what the glob compiled whole
        /// matches, for a policy's own globs too: stems with `*`, `**`, a class, a
        /// leading `/` or a dot of their own, lists in any case with `-` and `_`, on
        /// paths in any case, with no extension, an empty one, a longer one, a second
        /// one or one outside ASCII.
        #[test]
        fn a_split_glob_matches_what_the_whole_glob_matches(
            stem in 0usize..9,
            list in proptest::collection::vec(0usize..8, 1..4),
            dir in 0usize..4,
            name in 0usize..8,
            extension in 0usize..13,
        ) {
            const STEMS: [&str; 9] =
                ["*", "src/*", "**/auth*", "*auth", "a/**/b", "*.test", "[Aa]pp*", "/x*", "?uth"];
            const LIST: [&str; 8] = ["py", "RB", "Ts", "j-s", "x_1", "PY", "a", "tar"];
            const DIRS: [&str; 4] = ["", "src/", "a/c/", "A/"];
            const NAMES: [&str; 8] = ["auth", "Auth", "x.test", "app", "App", "b", "\u{e9}", "oAuth"];
            const EXTENSIONS: [&str; 13] = [
                ".py", ".PY", ".rb", ".Rb", ".ts", ".J-S", ".x_1", ".a", ".pyx", ".", "",
                ".\u{e9}", ".tar.py",
            ];
            let list: Vec<&str> = list.iter().map(|&e| LIST[e]).collect();
            let glob = format!("{}.{{{}}}", STEMS[stem], list.join(","));
            let path = format!("{}{}{}", DIRS[dir], NAMES[name], EXTENSIONS[extension]);
            proptest::prop_assert!(split_extensions(&glob).is_some(), "{}", glob);
            let mut globs = RuleGlobs::default();
            globs.add(&glob, 3);
            let mut hits = Vec::new();
            globs.matches(&path, |rule| hits.push(rule));
            let whole = glob_matcher(&rule_glob(&glob).expect("compiles")).expect("a matcher");
            let expected = whole.is_match(lowercase(&path).as_bytes());
            proptest::prop_assert_eq!(!hits.is_empty(), expected, "{} on {}", glob, path);
        }
    }
}
