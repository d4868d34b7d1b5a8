//! The `.handoff.yaml` file as written: serde types that validate while they parse.
//!
//! Every value that can be wrong (a glob, a regex, a trigger or role name, a rule to
//! remove) is a newtype built with `TryFrom<String>`, so the YAML parser reports the
//! error at the exact line and column of the offending value. Unknown keys are refused
//! the same way (`deny_unknown_fields`): a typo in a gate's policy must not silently
//! turn a rule off.

use super::{defaults, RiskClass, RuleMatch, Trigger};
use crate::pattern::{compile, Dialect};
use regex_automata::{meta, util::syntax};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PolicyFile {
    pub records_dir: Option<RecordsDir>,
    pub trail_dir: Option<TrailDir>,
    #[serde(default)]
    pub exclude: Vec<Glob>,
    pub copies: Option<bool>,
    pub require_task: Option<RequireTaskSetting>,
    #[serde(default)]
    pub triggers: BTreeMap<TriggerKey, TriggerEdit>,
    #[serde(default)]
    pub custom_triggers: Vec<CustomTrigger>,
    pub evidence: Option<EvidenceEdit>,
    pub reviewers: Option<ReviewersEdit>,
    #[serde(default)]
    pub allow: Vec<AllowEntry>,
}

/// An `allow` entry: a rule id or trigger name, the paths, the reason.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AllowEntry {
    pub rule: Text,
    pub paths: Paths,
    pub reason: Text,
}

/// Text that is not blank.
#[derive(Debug, Clone)]
pub(crate) struct Text(pub String);

impl Validated for Text {
    fn validate(text: String) -> Result<Text, String> {
        match text.trim() {
            "" => Err("empty value".to_string()),
            trimmed => Ok(Text(trimmed.to_string())),
        }
    }
}

/// At least one glob.
#[derive(Debug)]
pub(crate) struct Paths(pub Vec<Glob>);

impl<'de> Deserialize<'de> for Paths {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let globs = Vec::<Glob>::deserialize(deserializer)?;
        if globs.is_empty() {
            return Err(serde::de::Error::custom("`paths` needs at least one glob"));
        }
        Ok(Paths(globs))
    }
}

/// Edits to one built-in trigger.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TriggerEdit {
    #[serde(default)]
    pub add_paths: Vec<Glob>,
    #[serde(default)]
    pub remove_paths: Vec<Removal>,
    #[serde(default)]
    pub add_lines: Vec<LineRegex>,
    #[serde(default)]
    pub remove_lines: Vec<Removal>,
}

/// A trigger the policy defines.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CustomTrigger {
    pub name: CustomName,
    pub class: RiskClass,
    #[serde(default)]
    pub paths: Vec<Glob>,
    #[serde(default)]
    pub lines: Vec<LineRegex>,
}

/// Extra labels for evidence items.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EvidenceEdit {
    #[serde(default)]
    pub aliases: BTreeMap<EvidenceItemId, Vec<Label>>,
}

/// Reviewer roles; each key given replaces its default.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReviewersEdit {
    pub medium: Option<Roles>,
    pub high: Option<Roles>,
    pub orchestrator: Option<Role>,
    pub unavailable: Option<Vec<Role>>,
}

/// A glob, checked to compile.
#[derive(Debug, Clone)]
pub(crate) struct Glob(pub String);

impl Validated for Glob {
    fn validate(glob: String) -> Result<Glob, String> {
        if glob.trim().is_empty() {
            return Err("empty glob".to_string());
        }
        compile(&glob, Dialect::Rule, false)
            .map(|_| Glob(glob.clone()))
            .map_err(|error| format!("invalid glob `{glob}`: {error}"))
    }
}

/// A line regex, checked to compile.
#[derive(Debug, Clone)]
pub(crate) struct LineRegex(pub String);

impl Validated for LineRegex {
    fn validate(regex: String) -> Result<LineRegex, String> {
        if regex.is_empty() {
            return Err("empty regex: it would match every line".to_string());
        }
        compile_line_regex(&regex)
            .map(|_| LineRegex(regex.clone()))
            .map_err(|error| format!("invalid regex `{regex}`: {}", last_line(&error.to_string())))
    }
}

/// Compiles a line regex the way the classifier runs it: on bytes, ASCII classes (the
/// settings of `regex::bytes` with `unicode(false)`), and without the regex's own literal
/// prefilter, which halves the cost of compiling the large credential rules: the
/// classifier runs a rule only on lines that already hold one of its literals. Nor is a
/// full DFA built: the lazy DFA matches lines about as fast, and the full DFAs cost a
/// one-line commit about 2 M instructions. A built-in regex is not parsed: its syntax
/// tree was, at build time (`pattern::built_hir`).
pub(crate) fn compile_line_regex(regex: &str) -> Result<meta::Regex, String> {
    let mut builder = meta::Builder::new();
    builder
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .configure(
            meta::Config::new()
                .utf8_empty(false)
                .auto_prefilter(false)
                .dfa(false),
        );
    let built = match crate::pattern::built_hir(regex) {
        Some(hir) => builder.build_from_hir(&hir),
        None => builder.build(regex),
    };
    built.map_err(|error| match error.syntax_error() {
        Some(syntax) => syntax.to_string(),
        None => error.to_string(),
    })
}

/// A default rule to remove: its id, or one of its patterns.
#[derive(Debug, Clone)]
pub(crate) struct Removal(pub String);

impl Validated for Removal {
    fn validate(name: String) -> Result<Removal, String> {
        let known = defaults()
            .triggers
            .iter()
            .flat_map(|trigger| &trigger.rules)
            .any(|rule| {
                rule.id == name
                    || match &rule.matches {
                        RuleMatch::Paths { globs } => globs.iter().any(|glob| *glob == name),
                        RuleMatch::Line { regex, .. } => *regex == name,
                    }
            });
        if known {
            Ok(Removal(name))
        } else {
            Err(format!(
                "`{name}` is neither the id nor a pattern of a default rule; \
                 `handoff policy show` lists them"
            ))
        }
    }
}

/// A built-in trigger named as a key of `triggers:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct TriggerKey(pub Trigger);

impl Validated for TriggerKey {
    fn validate(name: String) -> Result<TriggerKey, String> {
        let trigger: Trigger = name.parse()?;
        if trigger == Trigger::FileCount {
            return Err("`file-count` counts files and has no patterns to edit".to_string());
        }
        Ok(TriggerKey(trigger))
    }
}

/// The name of a custom trigger: lower-case kebab, not a built-in name.
#[derive(Debug, Clone)]
pub(crate) struct CustomName(pub String);

impl Validated for CustomName {
    fn validate(name: String) -> Result<CustomName, String> {
        if name.parse::<Trigger>().is_ok() {
            return Err(format!(
                "`{name}` is a built-in trigger; edit it under `triggers:` instead"
            ));
        }
        check_kebab(&name, "trigger name")?;
        Ok(CustomName(name))
    }
}

/// A reviewer role name, e.g. `qa-engineer`.
#[derive(Debug, Clone)]
pub(crate) struct Role(pub String);

impl Validated for Role {
    fn validate(name: String) -> Result<Role, String> {
        check_kebab(&name, "role name")?;
        Ok(Role(name))
    }
}

/// A non-empty list of roles, in order of preference.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "Vec<Role>")]
pub(crate) struct Roles(pub Vec<Role>);

impl TryFrom<Vec<Role>> for Roles {
    type Error = String;

    fn try_from(roles: Vec<Role>) -> Result<Roles, String> {
        if roles.is_empty() {
            return Err("at least one reviewer role is required".to_string());
        }
        Ok(Roles(roles))
    }
}

/// An evidence item id, e.g. `rollback-plan`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct EvidenceItemId(pub String);

impl Validated for EvidenceItemId {
    fn validate(id: String) -> Result<EvidenceItemId, String> {
        let known = &defaults().evidence.aliases;
        if known.contains_key(&id) {
            Ok(EvidenceItemId(id))
        } else {
            let ids: Vec<&str> = known.keys().map(String::as_str).collect();
            Err(format!(
                "unknown evidence item `{id}`; expected one of: {}",
                ids.join(", ")
            ))
        }
    }
}

/// A non-blank evidence label.
#[derive(Debug, Clone)]
pub(crate) struct Label(pub String);

impl Validated for Label {
    fn validate(label: String) -> Result<Label, String> {
        if label.trim().is_empty() {
            return Err("empty alias".to_string());
        }
        Ok(Label(label.trim().to_string()))
    }
}

/// The records directory: relative, inside the repository, `/`-separated.
#[derive(Debug, Clone)]
pub(crate) struct RecordsDir(pub String);

impl Validated for RecordsDir {
    fn validate(dir: String) -> Result<RecordsDir, String> {
        repository_dir("records_dir", dir, ".handoff").map(RecordsDir)
    }
}

/// The trail directory: relative, inside the repository, `/`-separated (a trail
/// elsewhere is `--trail DIR`'s job: a committed policy names no path of one machine).
#[derive(Debug, Clone)]
pub(crate) struct TrailDir(pub String);

impl Validated for TrailDir {
    fn validate(dir: String) -> Result<TrailDir, String> {
        repository_dir("trail_dir", dir, ".handoff/trail").map(TrailDir)
    }
}

/// `dir` without its trailing slashes, when it is a relative directory inside the
/// repository; `key` and `example` name it in the error.
fn repository_dir(key: &str, dir: String, example: &str) -> Result<String, String> {
    let trimmed = dir.trim_end_matches('/');
    let escapes = trimmed
        .split('/')
        .any(|part| part == ".." || part.is_empty());
    if trimmed.is_empty() || dir.starts_with('/') || escapes || dir.contains('\\') {
        return Err(format!(
            "{key} `{dir}` must be a relative directory inside the repository, e.g. `{example}`"
        ));
    }
    Ok(trimmed.to_string())
}

/// The `require_task` setting, checked.
#[derive(Debug, Clone)]
pub(crate) struct RequireTaskSetting(pub super::RequireTask);

impl Validated for RequireTaskSetting {
    fn validate(text: String) -> Result<RequireTaskSetting, String> {
        super::RequireTask::parse(&text).map(RequireTaskSetting)
    }
}

fn check_kebab(name: &str, what: &str) -> Result<(), String> {
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "invalid {what} `{name}`: use lower-case letters, digits and `-`, e.g. `qa-engineer`"
        ))
    }
}

/// A string value checked as it is parsed, so that errors carry the value's location.
pub(crate) trait Validated: Sized {
    /// Builds the value, or says what is wrong with it.
    fn validate(text: String) -> Result<Self, String>;
}

/// Deserializes a [`Validated`] string. Validating inside `visit_str` (rather than with
/// `#[serde(try_from)]`) is what makes the parser pin the error on the value's own line.
fn deserialize_validated<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Validated,
{
    struct Visitor<T>(std::marker::PhantomData<T>);

    impl<T: Validated> serde::de::Visitor<'_> for Visitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
            T::validate(text.to_string()).map_err(E::custom)
        }
    }

    deserializer.deserialize_str(Visitor(std::marker::PhantomData))
}

/// The last line of a multi-line error (the regex crate's carries a caret diagram).
fn last_line(text: &str) -> &str {
    let line = text.lines().last().unwrap_or(text).trim();
    line.strip_prefix("error: ").unwrap_or(line)
}

impl<'de> Deserialize<'de> for Glob {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for LineRegex {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for Removal {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for TriggerKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for CustomName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for EvidenceItemId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for RecordsDir {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for TrailDir {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for RequireTaskSetting {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_validated(deserializer)
    }
}
