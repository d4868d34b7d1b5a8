//! Rule globs compiled for speed: the policy's path and file globs, matched
//! case-insensitively in one pass.

use super::{compile, Dialect};
use globset::{GlobSet, GlobSetBuilder};

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

/// Rule globs compiled for matching: each glob that ends in an extension list
/// (`*auth.{py,rb,…}`, `*.{js,ts}`) is split into its stem (`*auth`), matched against the
/// path without its last extension, and the list, looked up; every other glob is matched
/// whole. The 40-extension lists of the default rules made most of the glob set's regex
/// (and of its compile time) otherwise.
#[derive(Debug)]
pub struct RuleGlobs {
    whole: GlobSet,
    whole_rule: Vec<usize>,
    stems: GlobSet,
    stem_rule: Vec<usize>,
    /// Each stem's extensions, lower case.
    stem_extensions: Vec<Vec<String>>,
}

impl RuleGlobs {
    /// Calls `hit` with the rule of each glob that matches `path` (case-insensitively,
    /// in ASCII), possibly more than once per rule.
    pub fn matches(&self, path: &str, mut hit: impl FnMut(usize)) {
        let path = lowercase(path);
        for glob in self.whole.matches(path.as_ref()) {
            hit(self.whole_rule[glob]);
        }
        if self.stems.is_empty() {
            return;
        }
        let Some((stem, extension)) = path.rsplit_once('.') else {
            return;
        };
        if extension.contains('/') {
            return;
        }
        for glob in self.stems.matches(stem) {
            if self.stem_extensions[glob].iter().any(|e| e == extension) {
                hit(self.stem_rule[glob]);
            }
        }
    }
}

/// Collects rule globs, each with its rule number, for [`RuleGlobs`].
pub struct RuleGlobsBuilder {
    whole: GlobSetBuilder,
    whole_rule: Vec<usize>,
    stems: GlobSetBuilder,
    stem_rule: Vec<usize>,
    stem_extensions: Vec<Vec<String>>,
}

impl Default for RuleGlobsBuilder {
    fn default() -> RuleGlobsBuilder {
        RuleGlobsBuilder {
            whole: GlobSetBuilder::new(),
            whole_rule: Vec::new(),
            stems: GlobSetBuilder::new(),
            stem_rule: Vec::new(),
            stem_extensions: Vec::new(),
        }
    }
}

impl RuleGlobsBuilder {
    /// Adds `glob` as a glob of rule number `rule`.
    pub fn add(&mut self, glob: &str, rule: usize) -> Result<(), globset::Error> {
        match split_extensions(glob) {
            Some((stem, extensions)) => {
                self.stems.add(rule_glob(stem)?);
                self.stem_rule.push(rule);
                self.stem_extensions.push(extensions);
            }
            None => {
                self.whole.add(rule_glob(glob)?);
                self.whole_rule.push(rule);
            }
        }
        Ok(())
    }

    /// The compiled globs.
    pub fn build(self) -> Result<RuleGlobs, globset::Error> {
        Ok(RuleGlobs {
            whole: self.whole.build()?,
            whole_rule: self.whole_rule,
            stems: self.stems.build()?,
            stem_rule: self.stem_rule,
            stem_extensions: self.stem_extensions,
        })
    }
}

/// A glob `STEM.{a,b,c}` as `STEM` and its extensions (lower case), when that split
/// matches the same paths: the extensions are plain names (letters, digits, `_`, `-`:
/// no dot, slash or glob syntax, so a path's extension is what follows its last dot)
/// and the stem is a glob of its own whose `.` is not escaped and that does not end in
/// `**` (recursive on its own, not before `.`) or `/` (a directory on its own).
fn split_extensions(glob: &str) -> Option<(&str, Vec<String>)> {
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
    let extensions: Vec<String> = list.split(',').map(str::to_ascii_lowercase).collect();
    let plain = |e: &String| {
        !e.is_empty()
            && e.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    extensions.iter().all(plain).then_some((stem, extensions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_lists_split_only_where_the_split_is_exact() {
        assert_eq!(
            split_extensions("*auth.{py,RB}"),
            Some(("*auth", vec!["py".to_string(), "rb".to_string()]))
        );
        assert_eq!(split_extensions("*.{js,ts}").map(|s| s.0), Some("*"));
        for glob in [
            "*.{test,spec}.{js,ts}",
            "src/**.{py}",
            "x\\.{py}",
            "dir/.{py}",
            ".{env}",
            "*.{a.b,c}",
            "*.{,py}",
            "*.{p*,q}",
            "*.py",
        ] {
            let split = split_extensions(glob);
            assert!(split.is_none() || glob == "*.{test,spec}.{js,ts}", "{glob}");
        }
    }
}
