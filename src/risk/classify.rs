//! Classification: stream a change through the compiled rules and keep what fired.
//!
//! Each file is tested once against every path rule (both paths of a rename; a deletion
//! counts), then its added and removed lines (added only, for `credential`) run through
//! one regex set per side. A trigger reports each path once, by the first path rule that
//! matched it; a line rule fires at most once per file, and the finding names the first
//! line that fired it. A trigger that already fired on a file by its path does not also
//! report that file's lines. Comment lines only count for credential rules, and so do
//! lines rewritten to the same code (a hunk of at most [`stream::HUNK_LINES`] removed lines is held
//! until the added lines that replace it are seen; see `rewrite`). So memory grows with
//! files and rules, never with lines. Auth is not read into the name of a browser
//! component (its path, or its definitions' names), only into its lines. (Scope rules, read last, report every
//! definition they fire on: see `enclosing`.)
//!
//! A `handoff:allow` marker the change writes (on an added line, comment or not) raises
//! the trigger it names where the marker could later cover something of the file: a path
//! finding of that trigger still waiting for a line of code counts at once, and a scope
//! rule of the trigger that reads the file fires on the marker's line. So the change that
//! writes a marker is judged at the class of what it would suppress (see `suppress`).

mod stream;
mod whole_file;

use super::enclosing::scope_findings;
use super::matcher::{CompileError, Matcher};
use super::suppress::Suppressor;
use super::syntax::confirmed_findings;
use crate::git::{
    ChangedFile, GitError, Head, LineSide, RenameLimitExceeded, RenameOptions, Repo, RepoPath,
};
use crate::policy::{Policy, RiskClass};
use crate::suppress::SuppressedBy;
use serde::Serialize;
use stream::Classifier;
use whole_file::{compose_env_file_findings, file_count_finding, gate_file_findings};

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
    let base_rev = Head::Rev(repo.resolve_base(base, head)?);
    let mut visitor = Classifier::new(&matcher, policy, repo, (base_rev.clone(), head.clone()));
    let renames = RenameOptions {
        copies: policy.copies,
        limit: None,
    };
    let change = repo.visit_changes(base, head, &renames, &mut visitor)?;
    visitor.finish_file();
    if let Some(error) = visitor.error {
        return Err(error.into());
    }
    if let Some(error) = matcher.first_error() {
        return Err(error.into());
    }
    let mut findings = visitor.findings;
    findings.extend(gate_file_findings(repo, &change, head, policy, &findings)?);
    let classified =
        |path: &RepoPath| !policy.is_meta(path) && !matcher.is_excluded(&path.to_string_lossy());
    let env_files = compose_env_file_findings(repo, &change, head, policy, &visitor.project)?;
    let env_files: Vec<Finding> = env_files
        .into_iter()
        .filter(|finding| {
            finding.path.as_ref().is_some_and(classified)
                && !findings
                    .iter()
                    .any(|f| f.trigger == finding.trigger && f.path == finding.path)
        })
        .collect();
    findings.extend(env_files);
    if visitor.counted > FILE_COUNT_LIMIT {
        findings.push(file_count_finding(visitor.counted));
    }
    // What the shortcuts below skip depends on the class reached so far, which a
    // finding that may be suppressed does not raise.
    let mut suppressor = Suppressor::new(repo, (&base_rev, head), policy, &change.files);
    suppressor.know_unmarked(std::mem::take(&mut visitor.unmarked));
    let mut risk_of = |findings: &[Finding]| -> Result<RiskClass, GitError> {
        let mut risk = RiskClass::Low;
        for finding in findings {
            if finding.class > risk && !suppressor.may_cover(finding)? {
                risk = finding.class;
            }
        }
        Ok(risk)
    };
    let risk_so_far = risk_of(&findings)?;
    findings.extend(confirmed_findings(
        repo,
        (&base_rev, head),
        &matcher,
        &visitor.in_code,
        risk_so_far,
    )?);
    let risk_so_far = risk_of(&findings)?;
    findings.extend(scope_findings(
        repo,
        (&base_rev, head),
        &matcher,
        &visitor.candidates,
        &findings,
        risk_so_far,
    )?);
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
    let (findings, suppressed) = suppressor.split(findings)?;
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
        suppressed,
        stacks: visitor.project.stacks(),
        rename_search_skipped: change.rename_search_skipped,
    })
}
