//! A policy file's edits applied over the built-in defaults: scalar keys replace, each
//! built-in trigger loses the rules or patterns the file removes and gains the patterns it
//! adds (`TRIGGER.path.policy-N`, `TRIGGER.line.policy-N`), custom triggers are appended,
//! evidence labels and `allow` entries are added, reviewer roles replaced key by key. Every
//! edit that names what is not there is an error at its line.

use super::error::ErrorContext;
use super::file::{self, PolicyFile, Removal, TriggerEdit};
use super::{Allowance, Policy, PolicyError, Rule, RuleMatch, Trigger, TriggerPolicy};

impl Policy {
    /// Applies the parsed file `file` (whose text is `text`, for error lines) over `self`.
    pub(super) fn apply(
        &mut self,
        file: PolicyFile,
        text: &str,
        context: &ErrorContext,
    ) -> Result<(), PolicyError> {
        if let Some(dir) = file.records_dir {
            self.records_dir = dir.0;
        }
        if let Some(dir) = file.trail_dir {
            self.trail_dir = Some(dir.0);
        }
        self.exclude = file.exclude.into_iter().map(|glob| glob.0).collect();
        if let Some(copies) = file.copies {
            self.copies = copies;
        }
        if let Some(require_task) = file.require_task {
            self.require_task = require_task.0;
        }
        for (key, edit) in file.triggers {
            let trigger = key.0;
            let Some(policy) = self
                .triggers
                .iter_mut()
                .find(|t| t.name == trigger.as_str())
            else {
                continue;
            };
            edit_trigger(policy, trigger, edit, text, context)?;
        }
        for custom in file.custom_triggers {
            self.add_custom_trigger(custom, text, context)?;
        }
        if let Some(evidence) = file.evidence {
            for (id, labels) in evidence.aliases {
                let aliases = self.evidence.aliases.entry(id.0).or_default();
                aliases.extend(labels.into_iter().map(|label| label.0));
            }
        }
        for entry in file.allow {
            if let Some(message) = self.unallowable(&entry.rule.0) {
                return Err(context.at_text(text, &entry.rule.0, message));
            }
            self.allow.push(Allowance {
                rule: entry.rule.0,
                paths: entry.paths.0.into_iter().map(|glob| glob.0).collect(),
                reason: entry.reason.0,
            });
        }
        if let Some(reviewers) = file.reviewers {
            let names = |roles: Vec<file::Role>| roles.into_iter().map(|role| role.0).collect();
            if let Some(medium) = reviewers.medium {
                self.reviewers.medium = names(medium.0);
            }
            if let Some(high) = reviewers.high {
                self.reviewers.high = names(high.0);
            }
            if let Some(orchestrator) = reviewers.orchestrator {
                self.reviewers.orchestrator = orchestrator.0;
            }
            if let Some(unavailable) = reviewers.unavailable {
                self.reviewers.unavailable = names(unavailable);
            }
        }
        Ok(())
    }

    fn add_custom_trigger(
        &mut self,
        custom: file::CustomTrigger,
        text: &str,
        context: &ErrorContext,
    ) -> Result<(), PolicyError> {
        let name = custom.name.0;
        if self.trigger(&name).is_some() {
            return Err(context.at_text(
                text,
                &name,
                format!("custom trigger `{name}` is defined twice"),
            ));
        }
        if custom.paths.is_empty() && custom.lines.is_empty() {
            return Err(context.at_text(
                text,
                &name,
                format!("custom trigger `{name}` needs at least one of `paths` or `lines`"),
            ));
        }
        let mut rules = Vec::new();
        add_rules(&mut rules, &name, custom.paths, custom.lines);
        self.triggers.push(TriggerPolicy {
            name: name.into(),
            description: "custom".into(),
            class: custom.class,
            builtin: false,
            reads_removed_lines: true,
            secret: false,
            needs_code_change: false,
            rules,
        });
        Ok(())
    }
}

fn edit_trigger(
    policy: &mut TriggerPolicy,
    trigger: Trigger,
    edit: TriggerEdit,
    text: &str,
    context: &ErrorContext,
) -> Result<(), PolicyError> {
    for removal in edit.remove_paths.iter().chain(&edit.remove_lines) {
        if !remove_rule(&mut policy.rules, removal) {
            return Err(context.at_text(
                text,
                &removal.0,
                format!(
                    "`{}` is not a default rule of trigger `{}`; `handoff policy show` lists them",
                    removal.0,
                    trigger.as_str()
                ),
            ));
        }
    }
    add_rules(
        &mut policy.rules,
        trigger.as_str(),
        edit.add_paths,
        edit.add_lines,
    );
    Ok(())
}

/// Removes the default rule with this id, or the pattern from the rule holding it.
fn remove_rule(rules: &mut Vec<Rule>, removal: &Removal) -> bool {
    let name = removal.0.as_str();
    let before = rules.len();
    rules.retain(|rule| rule.from_policy || rule.id != name);
    if rules.len() != before {
        return true;
    }
    let mut removed = false;
    rules.retain_mut(|rule| {
        if rule.from_policy {
            return true;
        }
        match &mut rule.matches {
            RuleMatch::Paths { globs } => {
                let count = globs.len();
                globs.retain(|glob| glob != name);
                removed |= globs.len() != count;
                !globs.is_empty()
            }
            RuleMatch::Line { regex, .. } => {
                let hit = regex == name;
                removed |= hit;
                !hit
            }
        }
    });
    removed
}

fn add_rules(
    rules: &mut Vec<Rule>,
    trigger: &str,
    globs: Vec<file::Glob>,
    lines: Vec<file::LineRegex>,
) {
    for (index, glob) in globs.into_iter().enumerate() {
        rules.push(Rule::from_policy_file(
            format!("{trigger}.path.policy-{}", index + 1),
            RuleMatch::Paths {
                globs: vec![glob.0.into()],
            },
        ));
    }
    for (index, regex) in lines.into_iter().enumerate() {
        rules.push(Rule::from_policy_file(
            format!("{trigger}.line.policy-{}", index + 1),
            RuleMatch::Line {
                regex: regex.0.into(),
                files: Vec::new(),
            },
        ));
    }
}
