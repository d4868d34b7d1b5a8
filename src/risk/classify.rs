//! Classification: stream a change through the compiled rules and keep what fired.
//!
//! Each file is tested once against every path rule (both paths of a rename; a deletion
//! counts), then its added and removed lines (added only, for `credential`) run through
//! one regex set per side. A trigger reports each path once, by the first path rule that
//! matched it; a line rule fires at most once per file, and the finding names the first
//! line that fired it. A trigger that already fired on a file by its path does not also
//! report that file's lines. Comment lines only count for credential rules. So memory
//! grows with files and rules, never with lines.

use super::comments::CommentStyle;
use super::matcher::{CompileError, Matcher};
use crate::git::{
    ChangeVisitor, ChangedFile, DiffLine, GitError, Head, LineSide, RenameLimitExceeded,
    RenameOptions, Repo, RepoPath,
};
use crate::policy::Policy;
use crate::policy::RiskClass;
use serde::Serialize;

/// More changed files than this raise a change to medium (seed: "More than 3 files").
pub const FILE_COUNT_LIMIT: usize = 3;

/// The id the `file-count` trigger reports as its rule.
pub const FILE_COUNT_RULE: &str = "file-count.count";

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
    /// Why: one finding per rule and file that fired, in trigger order.
    pub findings: Vec<Finding>,
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
    /// The line (trimmed, shortened, secrets redacted), or a summary for `file-count`.
    pub excerpt: Option<String>,
}

/// Why a change could not be classified.
#[derive(Debug, thiserror::Error)]
pub enum ClassifyError {
    /// Reading the change failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A rule of the policy does not compile.
    #[error(transparent)]
    Rule(#[from] CompileError),
}

/// Classifies the change from `base` to `head` under `policy`.
///
/// `base` is used as it is (a branch name means its merge base with the head); load the
/// policy from the same base with [`Policy::load`] so the change cannot weaken its gate.
pub fn classify(
    repo: &Repo,
    base: &str,
    head: &Head,
    declared: Option<RiskClass>,
    policy: &Policy,
) -> Result<Classification, ClassifyError> {
    let matcher = Matcher::new(policy)?;
    let mut visitor = Classifier::new(&matcher, policy);
    let renames = RenameOptions {
        copies: policy.copies,
        limit: None,
    };
    let change = repo.visit_changes(base, head, &renames, &mut visitor)?;
    if let Some(error) = matcher.first_error() {
        return Err(error.into());
    }
    let mut findings = visitor.findings;
    if visitor.counted > FILE_COUNT_LIMIT {
        findings.push(file_count_finding(visitor.counted));
    }
    let order = |finding: &Finding| {
        let trigger = policy
            .triggers
            .iter()
            .position(|t| t.name == finding.trigger);
        (
            trigger,
            finding.path.clone(),
            finding.line,
            finding.rule.clone(),
        )
    };
    findings.sort_by_key(order);
    let floor = declared.unwrap_or(RiskClass::Low);
    let risk = findings
        .iter()
        .map(|finding| finding.class)
        .fold(floor, RiskClass::max);
    let files = change
        .files
        .into_iter()
        .filter(|file| !file.touched_paths().all(|path| policy.is_meta(path)))
        .collect();
    Ok(Classification {
        risk,
        declared,
        reclassified: risk > floor,
        files,
        findings,
        rename_search_skipped: change.rename_search_skipped,
    })
}

fn file_count_finding(count: usize) -> Finding {
    Finding {
        trigger: "file-count".to_string(),
        class: RiskClass::Medium,
        path: None,
        line: None,
        side: None,
        rule: FILE_COUNT_RULE.to_string(),
        excerpt: Some(format!(
            "{count} files changed (more than {FILE_COUNT_LIMIT})"
        )),
    }
}

/// The per-file state of the stream.
struct Classifier<'a> {
    matcher: &'a Matcher,
    policy: &'a Policy,
    findings: Vec<Finding>,
    counted: usize,
    /// For the current file: which line rules read it and have not fired yet.
    open: Vec<bool>,
    open_count: usize,
    /// For the current file: which triggers already fired by path.
    fired_by_path: Vec<bool>,
    /// For the current file: how its comment lines start.
    comments: CommentStyle,
}

impl<'a> Classifier<'a> {
    fn new(matcher: &'a Matcher, policy: &'a Policy) -> Classifier<'a> {
        Classifier {
            matcher,
            policy,
            findings: Vec::new(),
            counted: 0,
            open: vec![false; matcher.line_rules.len()],
            open_count: 0,
            fired_by_path: vec![false; matcher.triggers.len()],
            comments: CommentStyle::None,
        }
    }

    fn is_classified(&self, path: &RepoPath) -> bool {
        !self.policy.is_meta(path) && !self.matcher.is_excluded(&path.to_string_lossy())
    }

    /// Records the path rules the file fires: one finding per trigger and path.
    fn record_path_findings(&mut self, file: &ChangedFile) {
        self.fired_by_path
            .iter_mut()
            .for_each(|fired| *fired = false);
        let paths: Vec<&RepoPath> = file
            .touched_paths()
            .filter(|p| self.is_classified(p))
            .collect();
        for path in paths {
            let mut fired_here = vec![false; self.matcher.triggers.len()];
            // A submodule is a directory: `vendor/oauth/` is what directory globs match.
            let mut text = path.to_string_lossy().into_owned();
            if file.submodule {
                text.push('/');
            }
            for rule_index in self.matcher.path_rules_for(&text) {
                let rule = &self.matcher.path_rules[rule_index];
                if std::mem::replace(&mut fired_here[rule.trigger], true) {
                    continue;
                }
                self.fired_by_path[rule.trigger] = true;
                let trigger = &self.matcher.triggers[rule.trigger];
                self.findings.push(Finding {
                    trigger: trigger.name.clone(),
                    class: trigger.class,
                    path: Some(path.clone()),
                    line: None,
                    side: None,
                    rule: rule.id.clone(),
                    excerpt: None,
                });
            }
        }
    }

    fn open_line_rules(&mut self, file: &ChangedFile) {
        let path = file.path.to_string_lossy();
        self.comments = CommentStyle::for_path(&path);
        self.matcher.line_rules_for(&path, &mut self.open);
        for (index, rule) in self.matcher.line_rules.iter().enumerate() {
            if self.fired_by_path[rule.trigger] {
                self.open[index] = false;
            }
        }
        self.open_count = self.open.iter().filter(|open| **open).count();
    }
}

impl ChangeVisitor for Classifier<'_> {
    fn file(&mut self, file: &ChangedFile) -> bool {
        self.open_count = 0;
        if !file.touched_paths().any(|path| self.is_classified(path)) {
            return false;
        }
        self.counted += 1;
        self.record_path_findings(file);
        if file.binary || file.submodule || !self.is_classified(&file.path) {
            return false;
        }
        self.open_line_rules(file);
        self.open_count > 0
    }

    fn line(&mut self, file: &ChangedFile, line: DiffLine<'_>) {
        if self.open_count == 0 {
            return;
        }
        // Only secrets count in comment lines (see `comments`); asked only of the few
        // lines a rule matches.
        let mut comment = None;
        let mut fired = Vec::new();
        self.matcher
            .open_matches(line.side, line.content, &self.open, |index| {
                let counts = self.matcher.is_secret(index)
                    || !*comment.get_or_insert_with(|| self.comments.is_comment(line.content));
                if counts && self.matcher.confirms(index, line.content) {
                    fired.push(index);
                }
            });
        for index in fired {
            self.open[index] = false;
            self.open_count -= 1;
            let rule = &self.matcher.line_rules[index];
            let trigger = &self.matcher.triggers[rule.trigger];
            self.findings.push(Finding {
                trigger: trigger.name.clone(),
                class: trigger.class,
                path: Some(file.path.clone()),
                line: Some(line.number),
                side: Some(line.side),
                rule: rule.id.clone(),
                excerpt: Some(self.matcher.excerpt(line.content)),
            });
        }
    }
}
