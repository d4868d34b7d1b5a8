//! The policy's rules, compiled when first needed: a rule is compiled only when a path or
//! a line could match it.
//!
//! Compiling every rule up front cost 45 M instructions, ten times git's whole diff of a
//! one-commit change, and most rules never meet a path or line they could match. So each
//! rule has a literal prefilter read from its own text ([`crate::pattern`]): the words
//! one of which every match holds. A [`Prefilter`] per kind of rule (path globs, file
//! globs, line regexes) finds in a path or a line the few rules that could match it; only
//! those are compiled (once, on first use) and run. A rule whose text gives no literal is
//! run on every path or line. On a release range of 5,000 files this costs about what one
//! regex set for every line rule cost (whose lazy DFA kept building states on varied
//! code), and the rules that no line comes close to are never compiled at all.
//!
//! A rule that fails to compile (the policy loader validates every rule it reads, so only
//! a policy built in code can hold one) never fires, and [`Matcher::first_error`] reports
//! it: classification fails rather than passing on a rule it could not run. Tests hold
//! [`Matcher::open_matches`] to the straightforward answer, every rule's own regex on
//! every line, and the glob prefilters to each glob compiled alone.
//!
//! Secrets never leave this module whole: credential matches are checked against
//! placeholder values (`changeme`, `${VAR}`, `<your-token>` …) before they fire, and every
//! excerpt goes through [`redact`](super::redact), which cuts them and every other
//! secret-looking value whole.

use super::redact::redact;
use crate::git::LineSide;
use crate::pattern::{
    built_hir, compile, regex_literals, Dialect, Forward, ForwardSettings, Prefilter,
    RegexRequirement, RuleGlobs,
};
use crate::policy::RiskClass;
use crate::policy::{compile_line_regex, Policy, PolicyText, Rule, RuleMatch, TriggerPolicy};
use globset::{GlobSet, GlobSetBuilder};
use regex_automata::meta::Regex;
use regex_automata::PatternID;
use std::ops::Range;
use std::sync::OnceLock;

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
    pub name: PolicyText,
    pub class: RiskClass,
    /// Whether its path rules need a changed line of code in the file.
    pub needs_code_change: bool,
}

/// A compiled path rule.
#[derive(Debug)]
pub(crate) struct PathRule {
    pub trigger: usize,
    pub id: PolicyText,
    /// Whether it reads test files.
    pub reads_test_files: bool,
    /// The stack that enables it.
    pub stack: PolicyText,
}

/// A line rule.
#[derive(Debug)]
pub(crate) struct LineRule {
    pub trigger: usize,
    pub id: PolicyText,
    /// Whether the rule reads every file, or only those its globs match.
    pub any_file: bool,
    /// Whether it reads test files.
    pub reads_test_files: bool,
    /// The stack that enables it.
    pub stack: PolicyText,
    /// Whether it reads the definitions around changed lines, not the lines (see
    /// `enclosing`).
    pub scope: bool,
    /// Whether its match must start in code (see `syntax`).
    pub in_code: bool,
    /// Whether it reads the key paths of changed lines of configuration files, not the
    /// lines (see `keys`).
    pub data: bool,
    /// Whether it reads the whole file a changed line of code is in (see `enclosing`).
    pub file_scope: bool,
    /// Whether a secret rule skips comment lines.
    code_only: bool,
    /// Whether the rule reads removed lines too (every trigger but `credential`).
    reads_removed: bool,
    /// For a credential rule, how its matches are redacted.
    secret: Option<Secret>,
    /// The regex as written.
    source: PolicyText,
    /// The regex, compiled on first use.
    regex: OnceLock<Result<Regex, String>>,
    /// For a rule only asked whether a text matches or where its matches in a line start
    /// (no captures, not in a whole file): its forward lazy DFA alone, built on first use
    /// instead of the whole regex (`None`: it could not be built, and the whole regex
    /// answers). Boxed: a rule without one stays
    /// small (the policy's rules are built, moved and freed in every process).
    forward: OnceLock<Option<Box<Forward>>>,
    /// What every match requires, read when a line first passes the prefilter.
    requirement: OnceLock<RegexRequirement>,
}

impl LineRule {
    /// The compiled regex, `None` when it does not compile (see [`Matcher::first_error`]).
    pub fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| compile_line_regex(&self.source))
            .as_ref()
            .ok()
    }

    /// Whether the rule reads removed lines too (every trigger but `credential`).
    pub fn reads_removed(&self) -> bool {
        self.reads_removed
    }

    /// Whether the regex matches `content` (never when it does not compile), compiled
    /// only for a text that could match it.
    pub fn is_match(&self, content: &[u8]) -> bool {
        if !self.could_match(content) {
            return false;
        }
        if !self.needs_whole() {
            if let Some(answer) = self.forward().and_then(|f| f.is_match(content)) {
                return answer;
            }
        }
        self.regex().is_some_and(|regex| regex.is_match(content))
    }

    /// Where each match of the regex in `content` starts, as `find_iter` reports them;
    /// `None` when the regex does not compile. A rule that needs no more of its regex
    /// (an `in_code` rule) answers by its forward lazy DFA, whose build costs about
    /// half of the whole regex's (no reverse NFA, no capture states); when that DFA
    /// gives up, the whole regex answers.
    pub fn match_starts(&self, content: &[u8]) -> Option<Vec<usize>> {
        if !self.needs_whole() {
            if let Some(starts) = self.forward().and_then(|f| f.match_starts(content)) {
                return Some(starts);
            }
        }
        let regex = self.regex()?;
        Some(
            regex
                .find_iter(content)
                .map(|found| found.start())
                .collect(),
        )
    }

    /// Whether the rule's regex compiles (as its forward lazy DFA, where that is all it
    /// needs, or whole).
    pub fn compiles(&self) -> bool {
        (!self.needs_whole() && self.forward().is_some()) || self.regex().is_some()
    }

    /// The forward lazy DFA, built on first use (`None`: it could not be built).
    fn forward(&self) -> Option<&Forward> {
        let forward = self.forward.get_or_init(|| line_forward(&self.source));
        forward.as_deref()
    }

    /// Whether the classifier asks this rule for more than where its matches start in a
    /// line: where they start in a whole file (a file rule, see `enclosing`) or its
    /// `value` group (a secret rule's placeholder check and redaction). Those rules are
    /// compiled whole from the start.
    fn needs_whole(&self) -> bool {
        self.file_scope || self.secret.is_some()
    }

    /// Whether `content` could match: until the regex is compiled, `content` must hold
    /// every literal run it requires (compiling costs a thousand times more than that
    /// check); then the regex alone decides. No line of a text that could not match
    /// could: what a line holds, a text that holds the line holds too.
    pub(crate) fn could_match(&self, content: &[u8]) -> bool {
        self.regex.get().is_some()
            || self.forward.get().is_some()
            || self
                .requirement
                .get_or_init(|| RegexRequirement::new(&self.source))
                .holds(content)
    }
}

/// The forward lazy DFA of line regex `source`, with the settings of
/// [`compile_line_regex`] (`meta`'s defaults for the rest).
fn line_forward(source: &str) -> Option<Box<Forward>> {
    let syntax = regex_automata::util::syntax::Config::new()
        .unicode(false)
        .utf8(false);
    let settings = ForwardSettings {
        nfa_size_limit: Some(10 * (1 << 20)),
        cache_capacity: 2 * (1 << 20),
        utf8_empty: false,
    };
    let forward = match built_hir(source) {
        Some(hir) => Forward::from_hir(&hir, settings),
        None => Forward::new(source, &syntax, settings),
    };
    forward.map(Box::new)
}

/// What a credential rule needs beyond its regex: its `value` group must not be a
/// placeholder for the rule to fire, and excerpts redact it.
#[derive(Debug)]
struct Secret {
    /// Whether a match without a `value` group is redacted whole: true for the policy's
    /// own patterns; the default rules without one (a private-key header, a
    /// `${{ secrets.X }}` reference) match no secret themselves.
    whole: bool,
}

/// Every rule of a policy, compiled when first needed.
#[derive(Debug)]
pub(crate) struct Matcher {
    pub triggers: Vec<TriggerInfo>,
    pub path_rules: Vec<PathRule>,
    path_globs: RuleGlobs,
    pub line_rules: Vec<LineRule>,
    file_globs: RuleGlobs,
    line_prefilter: OnceLock<Prefilter>,
    exclude: GlobSet,
}

impl Matcher {
    /// Prepares every rule of `policy`; only the exclusions are compiled now.
    pub fn new(policy: &Policy) -> Result<Matcher, CompileError> {
        let mut builder = Builder::default();
        for (index, trigger) in policy.triggers.iter().enumerate() {
            builder.triggers.push(TriggerInfo {
                name: trigger.name.clone(),
                class: trigger.class,
                needs_code_change: trigger.needs_code_change,
            });
            for rule in &trigger.rules {
                builder.add_rule(index, trigger, rule);
            }
        }
        builder.build(&policy.exclude)
    }

    /// The first rule that was needed and failed to compile, if any.
    pub fn first_error(&self) -> Option<CompileError> {
        let line = self
            .line_rules
            .iter()
            .find_map(|rule| match rule.regex.get() {
                Some(Err(message)) => Some((rule.id.to_string(), message.clone())),
                _ => None,
            });
        let path = self
            .path_globs
            .first_error()
            .map(|(rule, message)| (self.path_rules[rule].id.to_string(), message));
        let file = self
            .file_globs
            .first_error()
            .map(|(rule, message)| (self.line_rules[rule].id.to_string(), message));
        line.or(path)
            .or(file)
            .map(|(rule, message)| CompileError { rule, message })
    }

    /// Whether the policy excludes `path` from classification.
    pub fn is_excluded(&self, path: &str) -> bool {
        self.exclude.is_match(path)
    }

    /// The indices of the path rules that `path` fires.
    pub fn path_rules_for(&self, path: &str) -> Vec<usize> {
        let mut rules = Vec::new();
        self.path_globs.matches(path, |rule| rules.push(rule));
        rules.sort_unstable();
        rules.dedup();
        rules
    }

    /// Marks in `applicable` the line rules that read the file at `path`.
    pub fn line_rules_for(&self, path: &str, applicable: &mut [bool]) {
        for (index, rule) in self.line_rules.iter().enumerate() {
            applicable[index] = rule.any_file;
        }
        self.file_globs
            .matches(path, |rule| applicable[rule] = true);
    }

    /// The index and class of the trigger named `name`, when its class is above `risk`
    /// (a reading for it could still raise the change).
    pub fn trigger_above(&self, name: &str, risk: RiskClass) -> Option<(usize, RiskClass)> {
        let index = self.triggers.iter().position(|t| t.name == name)?;
        let class = self.triggers[index].class;
        (class > risk).then_some((index, class))
    }

    /// The line rules of the trigger at index `trigger` that read the file at `path` and
    /// read lines one by one (not scope, data or file rules), of the stacks `enables`
    /// accepts: marked by index, for [`Self::open_matches`].
    pub fn own_line_rules_for(
        &self,
        path: &str,
        trigger: usize,
        enables: impl Fn(&str) -> bool,
    ) -> Vec<bool> {
        let mut open = vec![false; self.line_rules.len()];
        self.line_rules_for(path, &mut open);
        for (index, rule) in self.line_rules.iter().enumerate() {
            open[index] &= rule.trigger == trigger
                && !rule.scope
                && !rule.data
                && !rule.file_scope
                && enables(&rule.stack);
        }
        open
    }

    /// Calls `fire`, in rule order, with each line rule marked in `open` that `content`
    /// matches on `side` (removed lines only count for rules that read them).
    pub fn open_matches(
        &self,
        side: LineSide,
        content: &[u8],
        open: &[bool],
        mut fire: impl FnMut(usize),
    ) {
        let prefilter = self.line_prefilter.get_or_init(|| {
            let regexes = self.line_rules.iter().map(|rule| &*rule.source);
            Prefilter::of_patterns(regexes, regex_literals)
        });
        for index in prefilter.candidates(content) {
            let rule = &self.line_rules[index];
            let reads = side == LineSide::Added || rule.reads_removed;
            if reads && open[index] && rule.is_match(content) {
                fire(index);
            }
        }
    }

    /// What [`Self::open_matches`] reports, found the straightforward way: each open
    /// rule's own regex, one at a time.
    #[cfg(test)]
    pub fn open_matches_one_by_one(&self) -> impl Fn(LineSide, &[u8], &[bool]) -> Vec<usize> + '_ {
        let regexes: Vec<Regex> = self
            .line_rules
            .iter()
            .map(|rule| compile_line_regex(&rule.source).expect("a line rule compiles"))
            .collect();
        move |side, content, open| {
            (0..self.line_rules.len())
                .filter(|&index| {
                    let reads = side == LineSide::Added || self.line_rules[index].reads_removed;
                    reads && open[index] && regexes[index].is_match(content)
                })
                .collect()
        }
    }

    /// Whether line rule `index` reads comment lines: only secret rules do (a key pasted
    /// in a comment is still leaked), and not those that only name a credential.
    pub fn reads_comments(&self, index: usize) -> bool {
        let rule = &self.line_rules[index];
        rule.secret.is_some() && !rule.code_only
    }

    /// Whether line rule `index` really fires on `content`: a secret rule whose regex
    /// captures a `value` needs one that is not a placeholder.
    pub fn confirms(&self, index: usize, content: &[u8]) -> bool {
        let rule = &self.line_rules[index];
        if rule.secret.is_none() {
            return true;
        }
        let Some(regex) = rule.regex() else {
            return false;
        };
        let Some(value) = regex.group_info().to_index(PatternID::ZERO, "value") else {
            return true;
        };
        regex
            .captures_iter(content)
            .any(|captures| match captures.get_group(value) {
                Some(span) => !is_dummy_secret(&content[span.range()]),
                None => true,
            })
    }

    /// The line as a short excerpt that holds no part of a secret ([`redact`]).
    pub fn excerpt(&self, content: &[u8]) -> String {
        let mut secrets = Vec::new();
        for rule in &self.line_rules {
            // A line that does not meet a rule's requirement holds no match of it: its
            // regex is not compiled for an excerpt (every credential rule compiled for
            // each excerpt cost 54 M instructions, six times git's diff of the commit).
            let Some(secret) = rule.secret.as_ref().filter(|_| rule.could_match(content)) else {
                continue;
            };
            if let Some(regex) = rule.regex() {
                secrets.extend(secret_spans(regex, secret.whole, content));
            }
        }
        let text = redact(content, &secrets);
        let text = String::from_utf8_lossy(&text);
        let text = text.trim();
        match text.char_indices().nth(EXCERPT_CHARS) {
            Some((end, _)) => format!("{}…", &text[..end]),
            None => text.to_string(),
        }
    }
}

#[derive(Default)]
struct Builder {
    triggers: Vec<TriggerInfo>,
    path_rules: Vec<PathRule>,
    path_globs: RuleGlobs,
    line_rules: Vec<LineRule>,
    file_globs: RuleGlobs,
}

impl Builder {
    /// Adds rule `rule` of trigger number `index`.
    fn add_rule(&mut self, index: usize, trigger: &TriggerPolicy, rule: &Rule) {
        let id = rule.id.clone();
        match &rule.matches {
            RuleMatch::Paths { globs } => {
                for glob in globs {
                    self.path_globs.add(glob, self.path_rules.len());
                }
                self.path_rules.push(PathRule {
                    trigger: index,
                    id,
                    reads_test_files: rule.reads_test_files,
                    stack: rule.stack.clone(),
                });
            }
            RuleMatch::Line { regex, files } => {
                for glob in files {
                    self.file_globs.add(glob, self.line_rules.len());
                }
                let secret = trigger.secret.then_some(Secret {
                    whole: rule.from_policy,
                });
                self.line_rules.push(LineRule {
                    trigger: index,
                    id,
                    any_file: files.is_empty(),
                    reads_test_files: rule.reads_test_files,
                    stack: rule.stack.clone(),
                    scope: rule.scope,
                    in_code: rule.in_code,
                    data: rule.data,
                    file_scope: rule.file_scope,
                    code_only: rule.code_only,
                    reads_removed: trigger.reads_removed_lines,
                    secret,
                    source: regex.clone(),
                    regex: OnceLock::new(),
                    forward: OnceLock::new(),
                    requirement: OnceLock::new(),
                });
            }
        }
    }

    fn build(self, exclude: &[String]) -> Result<Matcher, CompileError> {
        let fail = |error: globset::Error| CompileError {
            rule: "exclude".to_string(),
            message: error.to_string(),
        };
        let mut excluded = GlobSetBuilder::new();
        for glob in exclude {
            excluded.add(compile(glob, Dialect::Rule, false).map_err(fail)?);
        }
        Ok(Matcher {
            exclude: excluded.build().map_err(fail)?,
            triggers: self.triggers,
            path_rules: self.path_rules,
            path_globs: self.path_globs,
            line_rules: self.line_rules,
            file_globs: self.file_globs,
            line_prefilter: OnceLock::new(),
        })
    }
}

/// The secrets `regex` matches in `text`: its `value` group, else the whole match when
/// `whole`.
fn secret_spans(regex: &Regex, whole: bool, text: &[u8]) -> Vec<Range<usize>> {
    regex
        .captures_iter(text)
        .filter_map(|captures| {
            let matched = captures.get_group(0).filter(|_| whole);
            captures.get_group_by_name("value").or(matched)
        })
        .map(|span| span.range())
        .collect()
}

/// Whether a secret-looking value is a dummy (a placeholder, a reference or a template)
/// rather than a real secret: `changeme`, `${DB_PASSWORD}`, `<your-token>`, `DB_PASSWORD`, `********`,
/// `/run/secrets/db`, an all-digit number, a value that names itself (`password123`,
/// `my-secret-token`) …
pub(crate) fn is_dummy_secret(value: &[u8]) -> bool {
    let Ok(value) = std::str::from_utf8(value) else {
        return false;
    };
    let lower = value.to_ascii_lowercase();
    let is_reference = value.starts_with(['$', '%', '/', '~', '@'])
        || value.starts_with("./")
        || ["{", "%(", "<", "enc(", "vault:", "arn:"]
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
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "api-key",
    ];
    const EXACT: &[&str] = &[
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
mod tests;
