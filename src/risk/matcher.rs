//! The policy's rules compiled for speed: one glob set for every path rule, one regex set
//! per diff side for every line rule, so that each path and each line is tested once
//! whatever the number of rules.
//!
//! Secrets never leave this module whole: credential matches are checked against
//! placeholder values (`changeme`, `${VAR}`, `<your-token>` …) before they fire, and every
//! excerpt has secret-looking values cut down to a short prefix.

use crate::git::LineSide;
use crate::policy::{compile_glob, compile_line_regex, Policy, RuleMatch};
use crate::risk::RiskClass;
use globset::{GlobSet, GlobSetBuilder};
use regex::bytes::{Regex, RegexSet, RegexSetBuilder};

/// The longest excerpt reported, in characters.
const EXCERPT_CHARS: usize = 160;

/// A rule that failed to compile.
#[derive(Debug, thiserror::Error)]
#[error("rule `{rule}` does not compile: {message}")]
pub struct CompileError {
    /// The rule's id.
    pub rule: String,
    /// Why.
    pub message: String,
}

/// A trigger as the matcher needs it.
#[derive(Debug)]
pub(crate) struct TriggerInfo {
    pub name: String,
    pub class: RiskClass,
}

/// A compiled path rule.
#[derive(Debug)]
pub(crate) struct PathRule {
    pub trigger: usize,
    pub id: String,
}

/// A compiled line rule.
#[derive(Debug)]
pub(crate) struct LineRule {
    pub trigger: usize,
    pub id: String,
    regex: Regex,
    /// Whether the rule reads every file, or only those its globs match.
    pub any_file: bool,
    /// Whether the match is a secret: placeholder values do not fire, excerpts redact.
    secret: bool,
}

/// Every rule of a policy, compiled.
#[derive(Debug)]
pub(crate) struct Matcher {
    pub triggers: Vec<TriggerInfo>,
    pub path_rules: Vec<PathRule>,
    path_globs: GlobSet,
    path_glob_rule: Vec<usize>,
    pub line_rules: Vec<LineRule>,
    file_globs: GlobSet,
    file_glob_rule: Vec<usize>,
    added: SideSet,
    removed: SideSet,
    exclude: GlobSet,
    redactors: Vec<usize>,
}

/// The line rules that read one side of the diff, as one regex set.
#[derive(Debug)]
struct SideSet {
    set: RegexSet,
    rule_of: Vec<usize>,
}

impl Matcher {
    /// Compiles every rule of `policy`.
    pub fn new(policy: &Policy) -> Result<Matcher, CompileError> {
        let mut builder = Builder::default();
        for (index, trigger) in policy.triggers.iter().enumerate() {
            builder.triggers.push(TriggerInfo {
                name: trigger.name.clone(),
                class: trigger.class,
            });
            for rule in &trigger.rules {
                builder.add_rule(
                    index,
                    trigger.secret,
                    trigger.reads_removed_lines,
                    rule.id.clone(),
                    &rule.matches,
                )?;
            }
        }
        builder.build(&policy.exclude)
    }

    /// Whether the policy excludes `path` from classification.
    pub fn is_excluded(&self, path: &str) -> bool {
        self.exclude.is_match(path)
    }

    /// The indices of the path rules that `path` fires.
    pub fn path_rules_for(&self, path: &str) -> Vec<usize> {
        let mut rules: Vec<usize> = self
            .path_globs
            .matches(path)
            .into_iter()
            .map(|glob| self.path_glob_rule[glob])
            .collect();
        rules.dedup();
        rules
    }

    /// Marks in `applicable` the line rules that read the file at `path`.
    pub fn line_rules_for(&self, path: &str, applicable: &mut [bool]) {
        for (index, rule) in self.line_rules.iter().enumerate() {
            applicable[index] = rule.any_file;
        }
        for glob in self.file_globs.matches(path) {
            applicable[self.file_glob_rule[glob]] = true;
        }
    }

    /// Calls `fire` with each line rule that `content` fires on `side`.
    pub fn line_matches(&self, side: LineSide, content: &[u8], mut fire: impl FnMut(usize)) {
        let side = match side {
            LineSide::Added => &self.added,
            LineSide::Removed => &self.removed,
        };
        if side.rule_of.is_empty() || !side.set.is_match(content) {
            return;
        }
        for index in side.set.matches(content).iter() {
            fire(side.rule_of[index]);
        }
    }

    /// Whether line rule `index` really fires on `content`: a secret rule whose regex
    /// captures a `value` needs one that is not a placeholder.
    pub fn confirms(&self, index: usize, content: &[u8]) -> bool {
        let rule = &self.line_rules[index];
        if !rule.secret || rule.regex.capture_names().all(|name| name != Some("value")) {
            return true;
        }
        rule.regex
            .captures_iter(content)
            .any(|captures| match captures.name("value") {
                Some(value) => !is_placeholder(value.as_bytes()),
                None => true,
            })
    }

    /// The line as a short excerpt with every secret-looking value redacted.
    pub fn excerpt(&self, content: &[u8]) -> String {
        let mut text = content.to_vec();
        for &index in &self.redactors {
            text = redact(&self.line_rules[index].regex, &text);
        }
        let text = String::from_utf8_lossy(&text);
        let text = text.trim();
        match text.char_indices().nth(EXCERPT_CHARS) {
            Some((end, _)) => format!("{}…", &text[..end]),
            None => text.to_string(),
        }
    }
}

struct Builder {
    triggers: Vec<TriggerInfo>,
    path_rules: Vec<PathRule>,
    path_globs: GlobSetBuilder,
    path_glob_rule: Vec<usize>,
    line_rules: Vec<LineRule>,
    line_sources: Vec<(String, bool)>,
    file_globs: GlobSetBuilder,
    file_glob_rule: Vec<usize>,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            triggers: Vec::new(),
            path_rules: Vec::new(),
            path_globs: GlobSetBuilder::new(),
            path_glob_rule: Vec::new(),
            line_rules: Vec::new(),
            line_sources: Vec::new(),
            file_globs: GlobSetBuilder::new(),
            file_glob_rule: Vec::new(),
        }
    }
}

impl Builder {
    fn add_rule(
        &mut self,
        trigger: usize,
        secret: bool,
        reads_removed: bool,
        id: String,
        matches: &RuleMatch,
    ) -> Result<(), CompileError> {
        let fail = |message: String| CompileError {
            rule: id.clone(),
            message,
        };
        match matches {
            RuleMatch::Paths { globs } => {
                for glob in globs {
                    let glob = compile_glob(glob, true).map_err(|e| fail(e.to_string()))?;
                    self.path_globs.add(glob);
                    self.path_glob_rule.push(self.path_rules.len());
                }
                self.path_rules.push(PathRule { trigger, id });
            }
            RuleMatch::Line { regex, files } => {
                for glob in files {
                    let glob = compile_glob(glob, true).map_err(|e| fail(e.to_string()))?;
                    self.file_globs.add(glob);
                    self.file_glob_rule.push(self.line_rules.len());
                }
                let compiled = compile_line_regex(regex).map_err(|e| fail(e.to_string()))?;
                self.line_sources.push((regex.clone(), reads_removed));
                self.line_rules.push(LineRule {
                    trigger,
                    id,
                    regex: compiled,
                    any_file: files.is_empty(),
                    secret,
                });
            }
        }
        Ok(())
    }

    fn build(self, exclude: &[String]) -> Result<Matcher, CompileError> {
        let fail = |rule: &str, error: &dyn std::fmt::Display| CompileError {
            rule: rule.to_string(),
            message: error.to_string(),
        };
        let mut excluded = GlobSetBuilder::new();
        for glob in exclude {
            excluded.add(compile_glob(glob, false).map_err(|e| fail("exclude", &e))?);
        }
        let all = |_: &(String, bool)| true;
        let redactors = (0..self.line_rules.len())
            .filter(|&index| self.line_rules[index].secret)
            .collect();
        Ok(Matcher {
            added: side_set(&self.line_sources, all).map_err(|e| fail("line rules", &e))?,
            removed: side_set(&self.line_sources, |(_, removed)| *removed)
                .map_err(|e| fail("line rules", &e))?,
            path_globs: self
                .path_globs
                .build()
                .map_err(|e| fail("path rules", &e))?,
            file_globs: self
                .file_globs
                .build()
                .map_err(|e| fail("line rules", &e))?,
            exclude: excluded.build().map_err(|e| fail("exclude", &e))?,
            triggers: self.triggers,
            path_rules: self.path_rules,
            path_glob_rule: self.path_glob_rule,
            line_rules: self.line_rules,
            file_glob_rule: self.file_glob_rule,
            redactors,
        })
    }
}

fn side_set(
    sources: &[(String, bool)],
    keep: impl Fn(&(String, bool)) -> bool,
) -> Result<SideSet, regex::Error> {
    let rule_of: Vec<usize> = (0..sources.len()).filter(|&i| keep(&sources[i])).collect();
    let set = RegexSetBuilder::new(rule_of.iter().map(|&i| sources[i].0.as_str()))
        .unicode(false)
        .build()?;
    Ok(SideSet { set, rule_of })
}

/// Replaces each secret `regex` matches in `text` (its `value` group, else the whole
/// match) with a short prefix and an ellipsis.
fn redact(regex: &Regex, text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut last = 0;
    for captures in regex.captures_iter(text) {
        let Some(secret) = captures.name("value").or_else(|| captures.get(0)) else {
            continue;
        };
        if secret.start() < last || secret.is_empty() {
            continue;
        }
        let keep = (secret.len() / 4).min(4);
        out.extend_from_slice(&text[last..secret.start() + keep]);
        out.extend_from_slice("…[redacted]".as_bytes());
        last = secret.end();
    }
    out.extend_from_slice(&text[last..]);
    out
}

/// Whether a secret-looking value is a placeholder, a reference or a template rather than
/// a real secret: `changeme`, `${DB_PASSWORD}`, `<your-token>`, `DB_PASSWORD`, `********`,
/// `/run/secrets/db`, an all-digit number …
pub(crate) fn is_placeholder(value: &[u8]) -> bool {
    let Ok(value) = std::str::from_utf8(value) else {
        return false;
    };
    let lower = value.to_ascii_lowercase();
    let is_reference = value.starts_with(['$', '%', '/', '~', '@'])
        || value.starts_with("./")
        || ["${", "{{", "{%", "%(", "#{", "<", "enc(", "vault:", "arn:"]
            .iter()
            .any(|marker| lower.contains(marker));
    let is_env_name = value.contains('_')
        && value.starts_with(|c: char| c.is_ascii_uppercase())
        && value
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    let mut chars = value.chars();
    let first = chars.next();
    let is_repeated = chars.all(|c| Some(c) == first);
    let is_number = value
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == '-');
    const WORDS: &[&str] = &[
        "changeme",
        "change_me",
        "change-me",
        "placeholder",
        "example",
        "your_",
        "your-",
        "yourapi",
        "yourtoken",
        "yoursecret",
        "replace",
        "dummy",
        "sample",
        "redacted",
        "todo",
        "fixme",
        "fake",
        "insert",
        "xxx",
        "***",
        "...",
        "…",
        "notasecret",
        "not-a-secret",
    ];
    const EXACT: &[&str] = &[
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "none",
        "null",
        "nil",
        "undefined",
        "test",
        "testing",
        "bearer",
        "basic",
        "required",
        "optional",
        "string",
        "hidden",
        "masked",
        "default",
        "empty",
        "true",
        "false",
    ];
    is_reference
        || is_env_name
        || is_repeated
        || is_number
        || WORDS.iter().any(|word| lower.contains(word))
        || EXACT.contains(&lower.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_references_and_templates_are_not_secrets() {
        for value in [
            "changeme",
            "${DB_PASSWORD}",
            "<your-token>",
            "DB_PASSWORD",
            "********",
            "xxxxxxxx",
            "/run/secrets/db",
            "{{ csrf_token }}",
            "your_api_key_here",
            "12345678",
            "ENC(abc)",
            "%(password)s",
            "Password",
        ] {
            assert!(is_placeholder(value.as_bytes()), "{value}");
        }
        for value in [
            "hunter22x",
            "s3cr3t-Pa55",
            "AKIAIOSFODNN7EXAMPLF",
            "q8Zr!x0pL",
        ] {
            assert!(!is_placeholder(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn redaction_keeps_only_a_short_prefix() {
        let regex = compile_line_regex(r"token = '(?P<value>[^']+)'").unwrap();
        let redacted = redact(&regex, b"token = 'abcdefghijklmnop' # ok");
        assert_eq!(
            String::from_utf8_lossy(&redacted),
            "token = 'abcd…[redacted]' # ok"
        );
        let whole = compile_line_regex(r"sk_live_[a-z]+").unwrap();
        let redacted = redact(&whole, b"key sk_live_abcdefgh end");
        assert_eq!(
            String::from_utf8_lossy(&redacted),
            "key sk_l…[redacted] end"
        );
    }
}
