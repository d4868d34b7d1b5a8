//! `handoff policy show`: the effective policy, defaults merged with `.handoff.yaml`.
//!
//! The human form is a policy file: YAML that `.handoff.yaml` or `--policy` accepts
//! back and that reproduces the policy over the built-in defaults (only the edits to the
//! built-in triggers are keys), followed by every rule in effect as comments.

use super::{Format, Report};
use crate::policy::{Policy, Rule, RuleMatch, Trigger, TriggerPolicy};
use crate::risk::{FILE_COUNT_LIMIT, FILE_COUNT_RULE};
use serde::Serialize;
use std::collections::BTreeMap;

/// The effective policy, as `policy show` prints it.
pub struct PolicyReport<'a>(pub &'a Policy);

#[derive(Serialize)]
struct Context<'a> {
    policy: &'a Policy,
    source: String,
    /// The policy as a policy file (YAML).
    file: String,
    triggers: Vec<TriggerContext<'a>>,
}

#[derive(Serialize)]
struct TriggerContext<'a> {
    trigger: &'a TriggerPolicy,
    /// What a built-in trigger looks for, or `custom`.
    about: &'a str,
    /// The `file-count` trigger's rule id and limit (it has no patterns).
    count: Option<(&'static str, usize)>,
}

impl Report for PolicyReport<'_> {
    const NAME: &'static str = "policy";
    const FORMATS: &'static [Format] = &[Format::Human, Format::Json, Format::Yaml];
    type Contract = Policy;

    fn contract(&self) -> &Policy {
        self.0
    }

    fn context(&self, _format: Format) -> serde_json::Value {
        let triggers = self
            .0
            .triggers
            .iter()
            .map(|trigger| {
                let counted = trigger.builtin && trigger.name == Trigger::FileCount.as_str();
                TriggerContext {
                    trigger,
                    about: &trigger.description,
                    count: counted.then_some((FILE_COUNT_RULE, FILE_COUNT_LIMIT)),
                }
            })
            .collect();
        let context = Context {
            policy: self.0,
            source: self.0.source.to_string(),
            file: yaml_serde::to_string(&file_form(self.0)).unwrap_or_default(),
            triggers,
        };
        serde_json::to_value(context).unwrap_or_default()
    }
}

/// The policy as a policy file: the keys that reproduce it over the defaults (rule edits
/// relative to the built-in triggers, custom triggers, extra evidence labels), valid for
/// `.handoff.yaml` and `--policy`.
#[derive(Serialize)]
struct FileForm<'a> {
    records_dir: &'a str,
    exclude: &'a [String],
    copies: bool,
    require_task: crate::policy::RequireTask,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    triggers: BTreeMap<&'a str, TriggerEdits<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    custom_triggers: Vec<CustomTrigger<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<EvidenceForm<'a>>,
    reviewers: &'a crate::policy::ReviewerPolicy,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    allow: &'a [crate::policy::Allowance],
}

#[derive(Serialize, Default)]
struct TriggerEdits<'a> {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    add_paths: Vec<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    remove_paths: Vec<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    add_lines: Vec<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    remove_lines: Vec<&'a str>,
}

#[derive(Serialize)]
struct CustomTrigger<'a> {
    name: &'a str,
    class: crate::policy::RiskClass,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    paths: Vec<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    lines: Vec<&'a str>,
}

#[derive(Serialize)]
struct EvidenceForm<'a> {
    aliases: BTreeMap<&'a str, Vec<&'a str>>,
}

/// [`FileForm`] of `policy`: what differs from the built-in defaults, and the plain keys.
fn file_form(policy: &Policy) -> FileForm<'_> {
    let defaults = crate::policy::defaults();
    let mut triggers = BTreeMap::new();
    let mut custom_triggers = Vec::new();
    for trigger in &policy.triggers {
        let Some(default) = defaults.trigger(&trigger.name).filter(|_| trigger.builtin) else {
            custom_triggers.push(CustomTrigger {
                name: &trigger.name,
                class: trigger.class,
                paths: trigger.rules.iter().flat_map(rule_globs).collect(),
                lines: trigger.rules.iter().filter_map(rule_regex).collect(),
            });
            continue;
        };
        let mut edits = TriggerEdits::default();
        for rule in &default.rules {
            if !trigger.rules.iter().any(|kept| kept.id == rule.id) {
                match rule.matches {
                    RuleMatch::Paths { .. } => edits.remove_paths.push(&rule.id),
                    RuleMatch::Line { .. } => edits.remove_lines.push(&rule.id),
                }
            }
        }
        for rule in trigger.rules.iter().filter(|rule| rule.from_policy) {
            edits.add_paths.extend(rule_globs(rule));
            edits.add_lines.extend(rule_regex(rule));
        }
        let edited = !(edits.add_paths.is_empty()
            && edits.remove_paths.is_empty()
            && edits.add_lines.is_empty()
            && edits.remove_lines.is_empty());
        if edited {
            triggers.insert(&*trigger.name, edits);
        }
    }
    let mut aliases = BTreeMap::new();
    for (item, labels) in &policy.evidence.aliases {
        let known = defaults.evidence.aliases.get(item);
        let extra: Vec<&str> = labels
            .iter()
            .filter(|label| !known.is_some_and(|known| known.contains(label)))
            .map(String::as_str)
            .collect();
        if !extra.is_empty() {
            aliases.insert(item.as_str(), extra);
        }
    }
    FileForm {
        records_dir: &policy.records_dir,
        exclude: &policy.exclude,
        copies: policy.copies,
        require_task: policy.require_task,
        triggers,
        custom_triggers,
        evidence: (!aliases.is_empty()).then_some(EvidenceForm { aliases }),
        reviewers: &policy.reviewers,
        allow: &policy.allow,
    }
}

fn rule_globs(rule: &Rule) -> Vec<&str> {
    match &rule.matches {
        RuleMatch::Paths { globs } => globs.iter().map(|glob| &**glob).collect(),
        RuleMatch::Line { .. } => Vec::new(),
    }
}

fn rule_regex(rule: &Rule) -> Option<&str> {
    match &rule.matches {
        RuleMatch::Line { regex, .. } => Some(regex),
        RuleMatch::Paths { .. } => None,
    }
}
