//! The built-in policy: `defaults.yaml`, the source, which `build.rs` turns into static
//! literals of its values at build time ([`BuiltDefaults`]); the program copies them into
//! the same structures the YAML would give (parsing the YAML on every run cost about
//! 6.5 M instructions, three times git's whole diff of a one-line commit; reading a tree
//! of its values through serde still 0.6 M, matching every key by name). The tests read
//! the YAML with the loader of `.handoff.yaml` ([`ErrorContext::read_yaml`]: the YAML
//! parser, errors at the line and column) and hold the two policies equal, so a default
//! given here and the one serde gives a key the file leaves out cannot drift apart.
//!
//! Its globs and regexes are not compiled one by one as it is read (that is how a user's
//! file is checked, and for the defaults it cost 45 M instructions on every run): the
//! classifier compiles them when needed, and the tests check each one compiles.

use super::{
    ErrorContext, EvidencePolicy, Policy, PolicyError, PolicySource, PolicyText, ReviewerPolicy,
    RiskClass, Rule, RuleMatch, Trigger, TriggerPolicy,
};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

// `BUILT_DEFAULTS`: `defaults.yaml` as a `BuiltDefaults` literal (written by `build.rs`;
// a key it does not leave out is written even where it equals the default).
#[allow(clippy::needless_update)]
mod built_literal {
    use super::{BuiltDefaults, BuiltEvidence, BuiltReviewers, BuiltRule, BuiltTrigger};
    include!(concat!(env!("OUT_DIR"), "/defaults.rs"));
}
use built_literal::BUILT_DEFAULTS;

/// The built-in policy, read once when it is borrowed.
static DEFAULT_POLICY: OnceLock<Policy> = OnceLock::new();

/// The built-in policy: every built-in trigger with its rules, the evidence items with
/// their wording and labels, the reviewer roles.
pub fn defaults() -> &'static Policy {
    DEFAULT_POLICY.get_or_init(read_tree)
}

/// The built-in policy, owned: a copy of the one read if it was, else read for the
/// caller alone (a run of `classify` under the defaults reads them once and copies
/// nothing: the copy cost about 0.25 M instructions).
pub(super) fn owned_defaults() -> Policy {
    DEFAULT_POLICY.get().map_or_else(read_tree, Policy::clone)
}

/// The built-in policy read from its literals. The file is part of the program (its
/// tests read it on every build), so a failure here is a broken build, not bad input.
fn read_tree() -> Policy {
    match BUILT_DEFAULTS.file().and_then(policy) {
        Ok(policy) => policy,
        Err(error) => panic!("the built-in policy (src/policy/defaults.yaml) is broken: {error}"),
    }
}

/// `defaults.yaml` as `build.rs` writes it: the [`DefaultsFile`] it reads into, with
/// borrowed strings. Each structure's `DEFAULT` holds what serde gives a key the file
/// leaves out (the required keys' are empty: the YAML loader refuses a file without
/// them, and the tests hold the two policies equal).
pub(super) struct BuiltDefaults {
    code_extensions: &'static [&'static str],
    records_dir: &'static str,
    exclude: &'static [&'static str],
    copies: bool,
    require_task: &'static str,
    triggers: &'static [BuiltTrigger],
    evidence: &'static [(&'static str, BuiltEvidence)],
    reviewers: BuiltReviewers,
}

/// One built-in trigger ([`TriggerDefinition`]); `class` as written.
pub(super) struct BuiltTrigger {
    name: &'static str,
    class: &'static str,
    description: &'static str,
    reads_removed_lines: bool,
    secret: bool,
    reads_test_files: bool,
    needs_code_change: bool,
    rules: &'static [BuiltRule],
}

/// One default rule ([`RuleDefinition`]).
pub(super) struct BuiltRule {
    id: &'static str,
    paths: &'static [&'static str],
    line: Option<&'static str>,
    files: &'static [&'static str],
    reads_test_files: Option<bool>,
    code_only: bool,
    stack: Option<&'static str>,
    scope: bool,
    in_code: bool,
    data: bool,
    file_scope: bool,
}

/// One evidence item ([`EvidenceDefinition`]).
pub(super) struct BuiltEvidence {
    wording: &'static str,
    aliases: &'static [&'static str],
}

/// The default reviewer roles ([`ReviewersDefinition`]).
pub(super) struct BuiltReviewers {
    medium: &'static [&'static str],
    high: &'static [&'static str],
    orchestrator: &'static str,
    unavailable: &'static [&'static str],
}

impl BuiltDefaults {
    const DEFAULT: BuiltDefaults = BuiltDefaults {
        code_extensions: &[],
        records_dir: "",
        exclude: &[],
        copies: false,
        require_task: "",
        triggers: &[],
        evidence: &[],
        reviewers: BuiltReviewers::DEFAULT,
    };

    /// The file these literals are, owned.
    fn file(&self) -> Result<DefaultsFile, PolicyError> {
        let triggers = self.triggers.iter().map(BuiltTrigger::definition);
        Ok(DefaultsFile {
            code_extensions: strings(self.code_extensions),
            records_dir: self.records_dir.to_string(),
            exclude: strings(self.exclude),
            copies: self.copies,
            require_task: self.require_task.to_string(),
            triggers: triggers.collect::<Result<_, _>>()?,
            evidence: self
                .evidence
                .iter()
                .map(|(id, item)| {
                    let wording = item.wording.to_string();
                    let aliases = strings(item.aliases);
                    (id.to_string(), EvidenceDefinition { wording, aliases })
                })
                .collect(),
            reviewers: ReviewersDefinition {
                medium: strings(self.reviewers.medium),
                high: strings(self.reviewers.high),
                orchestrator: self.reviewers.orchestrator.to_string(),
                unavailable: strings(self.reviewers.unavailable),
            },
        })
    }
}

impl BuiltTrigger {
    const DEFAULT: BuiltTrigger = BuiltTrigger {
        name: "",
        class: "",
        description: "",
        reads_removed_lines: true,
        secret: false,
        reads_test_files: true,
        needs_code_change: false,
        rules: &[],
    };

    fn definition(&self) -> Result<TriggerDefinition, PolicyError> {
        let class = RiskClass::parse(self.class).ok_or_else(|| {
            let name = self.name;
            context().whole(format!("trigger `{name}`: no class `{}`", self.class))
        })?;
        Ok(TriggerDefinition {
            name: self.name.to_string(),
            class,
            description: Cow::Borrowed(self.description),
            reads_removed_lines: self.reads_removed_lines,
            secret: self.secret,
            reads_test_files: self.reads_test_files,
            needs_code_change: self.needs_code_change,
            rules: self.rules.iter().map(BuiltRule::definition).collect(),
        })
    }
}

impl BuiltRule {
    const DEFAULT: BuiltRule = BuiltRule {
        id: "",
        paths: &[],
        line: None,
        files: &[],
        reads_test_files: None,
        code_only: false,
        stack: None,
        scope: false,
        in_code: false,
        data: false,
        file_scope: false,
    };

    fn definition(&self) -> RuleDefinition {
        RuleDefinition {
            id: Cow::Borrowed(self.id),
            paths: texts(self.paths),
            line: self.line.map(Cow::Borrowed),
            files: texts(self.files),
            reads_test_files: self.reads_test_files,
            code_only: self.code_only,
            stack: self.stack.map(Cow::Borrowed),
            scope: self.scope,
            in_code: self.in_code,
            data: self.data,
            file_scope: self.file_scope,
        }
    }
}

impl BuiltEvidence {
    const DEFAULT: BuiltEvidence = BuiltEvidence {
        wording: "",
        aliases: &[],
    };
}

impl BuiltReviewers {
    const DEFAULT: BuiltReviewers = BuiltReviewers {
        medium: &[],
        high: &[],
        orchestrator: "",
        unavailable: &[],
    };
}

/// Owned copies of `texts`.
fn strings(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|text| text.to_string()).collect()
}

/// `texts`, borrowed.
fn texts(texts: &'static [&'static str]) -> Vec<PolicyText> {
    texts.iter().map(|&text| Cow::Borrowed(text)).collect()
}

/// The whole defaults file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefaultsFile {
    code_extensions: Vec<String>,
    records_dir: String,
    exclude: Vec<String>,
    copies: bool,
    require_task: String,
    triggers: Vec<TriggerDefinition>,
    evidence: BTreeMap<String, EvidenceDefinition>,
    reviewers: ReviewersDefinition,
}

/// One built-in trigger.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TriggerDefinition {
    name: String,
    class: RiskClass,
    description: PolicyText,
    #[serde(default = "yes")]
    reads_removed_lines: bool,
    #[serde(default)]
    secret: bool,
    #[serde(default = "yes")]
    reads_test_files: bool,
    #[serde(default)]
    needs_code_change: bool,
    rules: Vec<RuleDefinition>,
}

fn yes() -> bool {
    true
}

/// One default rule: `paths`, or a `line` regex with optional `files`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleDefinition {
    id: PolicyText,
    #[serde(default)]
    paths: Vec<PolicyText>,
    line: Option<PolicyText>,
    #[serde(default)]
    files: Vec<PolicyText>,
    reads_test_files: Option<bool>,
    #[serde(default)]
    code_only: bool,
    stack: Option<PolicyText>,
    #[serde(default)]
    scope: bool,
    #[serde(default)]
    in_code: bool,
    #[serde(default)]
    data: bool,
    #[serde(default)]
    file_scope: bool,
}

/// One evidence item: the seed's wording and the labels that name it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EvidenceDefinition {
    wording: String,
    aliases: Vec<String>,
}

/// The default reviewer roles.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewersDefinition {
    medium: Vec<String>,
    high: Vec<String>,
    orchestrator: String,
    unavailable: Vec<String>,
}

/// Where errors in the defaults point.
fn context() -> ErrorContext {
    ErrorContext::named("defaults.yaml (built in)")
}

/// Reads a defaults file (YAML, as a policy file is read) into the policy it defines.
#[cfg(test)]
fn read_defaults(text: &str) -> Result<Policy, PolicyError> {
    let context = context();
    let Some(file) = context.read_yaml::<DefaultsFile>(text)? else {
        return Err(context.whole("the built-in policy is empty".to_string()));
    };
    policy(file)
}

/// The policy a defaults file defines.
fn policy(file: DefaultsFile) -> Result<Policy, PolicyError> {
    let context = context();
    let code = format!(".{{{}}}", file.code_extensions.join(","));
    let require_task =
        super::RequireTask::parse(&file.require_task).map_err(|message| context.whole(message))?;
    let mut triggers = Vec::new();
    for definition in file.triggers {
        let built = trigger(definition, &code).map_err(|message| context.whole(message))?;
        triggers.push(built);
    }
    let (mut aliases, mut wording) = (BTreeMap::new(), BTreeMap::new());
    for (id, item) in file.evidence {
        aliases.insert(id.clone(), item.aliases);
        wording.insert(id, item.wording);
    }
    Ok(Policy {
        source: PolicySource::Defaults,
        records_dir: file.records_dir,
        trail_dir: None,
        exclude: file.exclude,
        copies: file.copies,
        require_task,
        allow: Vec::new(),
        triggers,
        evidence: EvidencePolicy { aliases, wording },
        reviewers: ReviewerPolicy {
            medium: file.reviewers.medium,
            high: file.reviewers.high,
            orchestrator: file.reviewers.orchestrator,
            unavailable: file.reviewers.unavailable,
        },
        override_in_repo: None,
        baseline: None,
    })
}

/// Expands `.‹code›` in a glob to the list of code extensions (`code`: `.{py,…}`).
/// A glob without `‹` (nearly all) is kept as it is: replacing in every one built a
/// substring searcher and a new string each, a quarter of reading the defaults.
fn expand_code(globs: Vec<PolicyText>, code: &str) -> Vec<PolicyText> {
    globs
        .into_iter()
        .map(|glob| {
            if glob.contains('‹') {
                Cow::Owned(glob.replace(".‹code›", code))
            } else {
                glob
            }
        })
        .collect()
}

fn trigger(definition: TriggerDefinition, code: &str) -> Result<TriggerPolicy, String> {
    let name: Trigger = definition.name.parse()?;
    let rules = definition
        .rules
        .into_iter()
        .map(|rule| {
            let matches = match (rule.line, rule.paths.is_empty()) {
                (None, false) => RuleMatch::Paths {
                    globs: expand_code(rule.paths, code),
                },
                (Some(regex), true) => RuleMatch::Line {
                    regex,
                    files: expand_code(rule.files, code),
                },
                _ => return Err(format!("rule `{}` needs either paths or a line", rule.id)),
            };
            let reads_around = rule.scope || rule.data || rule.file_scope;
            if reads_around && matches!(matches, RuleMatch::Paths { .. }) {
                return Err(format!(
                    "rule `{}`: only a line rule reads scopes or data",
                    rule.id
                ));
            }
            let kinds = [rule.scope, rule.data, rule.in_code, rule.file_scope];
            if kinds.into_iter().filter(|&kind| kind).count() > 1 {
                return Err(format!(
                    "rule `{}`: scope, data, file_scope and in_code exclude each other",
                    rule.id
                ));
            }
            Ok(Rule {
                id: rule.id,
                matches,
                from_policy: false,
                reads_test_files: rule.reads_test_files.unwrap_or(definition.reads_test_files),
                code_only: rule.code_only,
                stack: rule.stack.unwrap_or(Cow::Borrowed("any")),
                scope: rule.scope,
                in_code: rule.in_code,
                data: rule.data,
                file_scope: rule.file_scope,
            })
        })
        .collect::<Result<Vec<Rule>, String>>()?;
    Ok(TriggerPolicy {
        name: Cow::Borrowed(name.as_str()),
        description: definition.description,
        class: definition.class,
        builtin: true,
        reads_removed_lines: definition.reads_removed_lines,
        secret: definition.secret,
        needs_code_change: definition.needs_code_change,
        rules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The source, read as a policy file is read.
    const DEFAULTS: &str = include_str!("defaults.yaml");

    #[test]
    fn the_built_form_is_the_policy_the_yaml_defines() {
        let from_yaml = read_defaults(DEFAULTS).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(defaults(), &from_yaml);
        assert!(!from_yaml.triggers.is_empty() && !from_yaml.evidence.wording.is_empty());
    }

    #[test]
    fn the_defaults_define_every_built_in_trigger_in_order_with_well_named_rules() {
        let policy = read_defaults(DEFAULTS).unwrap_or_else(|error| panic!("{error}"));
        let names: Vec<&str> = policy.triggers.iter().map(|t| &*t.name).collect();
        let builtin: Vec<&str> = Trigger::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(names, builtin);
        let mut seen = std::collections::BTreeSet::new();
        for trigger in &policy.triggers {
            assert!(!trigger.description.is_empty(), "{}", trigger.name);
            for rule in &trigger.rules {
                assert!(
                    seen.insert(rule.id.clone()),
                    "duplicate rule id {}",
                    rule.id
                );
                let kind = match rule.matches {
                    RuleMatch::Paths { .. } => "path",
                    RuleMatch::Line { .. } if rule.scope => "scope",
                    RuleMatch::Line { .. } if rule.data => "data",
                    RuleMatch::Line { .. } if rule.file_scope => "file",
                    RuleMatch::Line { .. } => "line",
                };
                assert!(
                    rule.id.starts_with(&format!("{}.{kind}.", trigger.name)),
                    "{}",
                    rule.id
                );
            }
        }
        let file_count = &policy.triggers[0];
        assert!(
            file_count.rules.is_empty(),
            "file-count is counted, not matched"
        );
        let credential = policy.trigger("credential").expect("credential");
        assert!(credential.secret && !credential.reads_removed_lines);
    }

    #[test]
    fn every_default_glob_regex_and_role_is_what_a_policy_file_accepts() {
        use super::super::file::{Glob, LineRegex, RecordsDir, Role, Validated};
        let policy = defaults();
        let accepted = |result: Result<(), String>| result.unwrap_or_else(|e| panic!("{e}"));
        accepted(RecordsDir::validate(policy.records_dir.clone()).map(drop));
        for trigger in &policy.triggers {
            for rule in &trigger.rules {
                let (globs, regex) = match &rule.matches {
                    RuleMatch::Paths { globs } => (globs, None),
                    RuleMatch::Line { regex, files } => (files, Some(regex)),
                };
                for glob in globs {
                    accepted(Glob::validate(glob.to_string()).map(drop));
                }
                if let Some(regex) = regex {
                    accepted(LineRegex::validate(regex.to_string()).map(drop));
                }
            }
        }
        let reviewers = &policy.reviewers;
        let roles = reviewers.medium.iter().chain(&reviewers.high);
        for role in roles.chain(std::iter::once(&reviewers.orchestrator)) {
            accepted(Role::validate(role.clone()).map(drop));
        }
    }

    #[test]
    fn a_broken_defaults_file_is_an_error_with_its_line() {
        let broken = DEFAULTS.replacen("class: medium", "class: severe", 1);
        let message = read_defaults(&broken).err().map(|e| e.to_string());
        assert!(
            message.is_some_and(|m| m.starts_with("defaults.yaml (built in):")),
            "the loader names the file and line"
        );
    }
}
