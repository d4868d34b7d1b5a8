//! Allowances: the policy's `allow` entries, each silencing one rule (or one trigger's
//! rules) on some paths, with the reason written down.
//!
//! An allowance is read with the rest of the policy from the BASE revision, so a change
//! that adds one is judged without it (and is high risk: it edits the policy file). The
//! findings it covers are not dropped: the classification lists them as suppressed, with
//! the reason, and every report counts them. The gate's own files (`policy` trigger) and
//! the file count can never be allowed: the loader refuses such an entry. Nor can a path
//! rule by its id: once a path rule fires on a file, the classifier does not read the
//! trigger's line rules there, so allowing that one rule would hide the others; the
//! entry must name the trigger.

use super::{Policy, RuleMatch, RULE_PREFIXES_NEVER_ALLOWED};
use crate::pattern::{compile, Dialect};
use serde::Serialize;

/// One `allow` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Allowance {
    /// A rule id (`credential.line.aws`) or a trigger name (every rule of it).
    pub rule: String,
    /// The rule globs of the paths it covers.
    pub paths: Vec<String>,
    /// Why the findings are not risks, as the reviewers of the policy accepted it.
    pub reason: String,
}

impl Allowance {
    /// Whether it covers the finding of `rule` (of `trigger`) at `path`.
    fn covers(&self, trigger: &str, rule: &str, path: &str) -> bool {
        (self.rule == rule || self.rule == trigger)
            && self.paths.iter().any(|glob| {
                compile(glob, Dialect::Rule, false)
                    .is_ok_and(|glob| glob.compile_matcher().is_match(path))
            })
    }
}

impl Policy {
    /// The allowance that covers the finding of `rule` (of `trigger`) at `path`, if any.
    /// None for the gate's own files, whatever the entries say.
    pub fn allowance(&self, trigger: &str, rule: &str, path: &str) -> Option<&Allowance> {
        if !Policy::can_suppress(trigger, rule) {
            return None;
        }
        self.allow
            .iter()
            .find(|allowance| allowance.covers(trigger, rule, path))
    }

    /// Whether a finding of `rule` (of `trigger`) may be suppressed at all (by an
    /// allowance, a marker or a baseline): not the gate's own files, not the file count.
    pub fn can_suppress(trigger: &str, rule: &str) -> bool {
        !never_allowed(trigger) && !never_allowed(rule)
    }

    /// Whether `rule` is the id of a path rule of the policy.
    pub fn is_path_rule(&self, rule: &str) -> bool {
        self.triggers.iter().any(|trigger| {
            trigger
                .rules
                .iter()
                .any(|r| r.id == rule && matches!(r.matches, RuleMatch::Paths { .. }))
        })
    }

    /// Why `rule` (a rule id or trigger name) cannot be an allowance's rule, if it cannot.
    pub(super) fn unallowable(&self, rule: &str) -> Option<String> {
        if never_allowed(rule) {
            return Some(format!(
                "`{rule}` cannot be allowed: the gate's own files and the file count are never \
                 silenced"
            ));
        }
        let path_rule = self.triggers.iter().find_map(|trigger| {
            let rule = trigger.rules.iter().find(|r| r.id == rule)?;
            matches!(rule.matches, RuleMatch::Paths { .. }).then_some(&trigger.name)
        });
        if let Some(trigger) = path_rule {
            return Some(format!(
                "`{rule}` is a path rule: its finding stands for the whole `{trigger}` trigger \
                 on the file (the trigger's line rules are not read there once a path rule \
                 fired), so allow the trigger `{trigger}` on those paths instead"
            ));
        }
        let known = self
            .triggers
            .iter()
            .any(|t| t.name == rule || t.rules.iter().any(|r| r.id == rule));
        (!known).then(|| {
            format!(
                "`{rule}` is neither a trigger nor a rule id of the policy; `handoff policy show` \
                 lists them"
            )
        })
    }
}

/// Whether a trigger name or rule id belongs to the `policy` or `file-count` trigger.
fn never_allowed(name: &str) -> bool {
    RULE_PREFIXES_NEVER_ALLOWED.iter().any(|trigger| {
        name == *trigger
            || name
                .strip_prefix(trigger)
                .is_some_and(|rest| rest.starts_with('.'))
    })
}
