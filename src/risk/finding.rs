//! What classification returns: the [`Classification`] of a change, and the [`Finding`]s
//! that made it, those that count and those an `allow` entry, a marker or the baseline
//! covers ([`Suppressed`]).

use super::matcher::{LineRule, Matcher};
use crate::git::{ChangedFile, LineSide, RenameLimitExceeded, RepoPath};
use crate::policy::RiskClass;
use crate::suppress::SuppressedBy;
use serde::Serialize;

/// The classification of a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Classification {
    /// The computed class: the declared class raised by every trigger that fired.
    pub risk: RiskClass,
    /// The class the task declared, if any.
    pub declared: Option<RiskClass>,
    /// Whether `risk` is higher than the declared class (`low` when none was declared).
    pub reclassified: bool,
    /// The changed files, records directory left out.
    pub files: Vec<ChangedFile>,
    /// Why: one finding per rule and file that fired (a scope rule: per definition), in
    /// trigger order.
    pub findings: Vec<Finding>,
    /// The findings the policy's `allow` entries cover: they raise nothing, and are
    /// listed with the entry's reason (absent when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<Suppressed>,
    /// The stacks found in the base's manifests (the root's and those of the directories
    /// above the changed files), sorted: what enables the framework rules.
    pub stacks: Vec<String>,
    /// Present when the similarity search for renames was skipped (too many candidate
    /// files, git's `diff.renameLimit`): unpaired files count as added and deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename_search_skipped: Option<RenameLimitExceeded>,
}

/// One reason a change is classified as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The trigger's name, e.g. `auth`.
    pub trigger: String,
    /// The class it raises the change to.
    pub class: RiskClass,
    /// The file that fired it (none for `file-count`).
    pub path: Option<RepoPath>,
    /// For a line rule: the line number, in the head for added lines, in the base for
    /// removed lines.
    pub line: Option<usize>,
    /// Whether the line was added or removed (line rules only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<LineSide>,
    /// The rule's id, e.g. `auth.path.middleware`.
    pub rule: String,
    /// The stack that enabled the rule: `any`, a language, or a framework the project
    /// model found (see [`Classification::stacks`]).
    pub stack: String,
    /// The line (trimmed, shortened, secrets redacted), or a summary for `file-count`.
    pub excerpt: Option<String>,
}

/// A finding that does not count: an `allow` entry of the policy, a `handoff:allow`
/// marker of the base or the baseline covers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suppressed {
    /// The finding.
    #[serde(flatten)]
    pub finding: Finding,
    /// What covers it.
    pub by: SuppressedBy,
    /// Why: the `allow` entry's reason, where the marker stands, or the baseline's file.
    pub reason: String,
}

impl Finding {
    /// The finding of line rule `rule` of `matcher` on line `number` of `path`, `side`.
    pub(super) fn of_line(
        matcher: &Matcher,
        rule: &LineRule,
        path: &RepoPath,
        (number, side): (usize, LineSide),
        excerpt: String,
    ) -> Finding {
        let trigger = &matcher.triggers[rule.trigger];
        Finding {
            trigger: trigger.name.to_string(),
            class: trigger.class,
            path: Some(path.clone()),
            line: Some(number),
            side: Some(side),
            rule: rule.id.to_string(),
            stack: rule.stack.to_string(),
            excerpt: Some(excerpt),
        }
    }
}
