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
//! definition they fire on: see `enclosing`; then Rails callbacks by the methods they name,
//! `callbacks`, settings classes bound by a file beside them, `bound_settings`, and
//! changed elements of handler lists by their siblings, `chains`.)
//!
//! A `handoff:allow` marker the change writes (on an added line, comment or not) raises
//! the trigger it names where the marker could later cover something of the file: a path
//! finding of that trigger still waiting for a line of code counts at once, and a scope
//! rule of the trigger that reads the file fires on the marker's line. So the change that
//! writes a marker is judged at the class of what it would suppress (see `suppress`).

mod manifest;
mod stream;
mod waiting;
mod whole_file;

use super::bound_settings::bound_settings_findings;
use super::callbacks::rails_callback_findings;
use super::chains::middleware_chain_findings;
use super::enclosing::{scope_findings, Reading};
use super::finding::{Classification, Finding};
use super::matcher::{CompileError, Matcher};
use super::project::ProjectModel;
use super::suppress::Suppressor;
use super::syntax::{confirmed_findings, ChangedLines};
use crate::git::{GitError, Head, RenameOptions, Repo, RepoPath};
use crate::policy::{Policy, RiskClass};
use stream::Classifier;
use whole_file::{compose_env_file_findings, file_count_finding, gate_file_findings};

/// More changed files than this raise a change to medium (seed: "More than 3 files").
pub const FILE_COUNT_LIMIT: usize = 3;

/// The id the `file-count` trigger reports as its rule.
pub const FILE_COUNT_RULE: &str = "file-count.count";

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
    classify_keeping_rules(repo, base, head, declared, policy).map(|(classified, _)| classified)
}

/// The rules of a policy as [`classify_keeping_rules`] compiled them (each rule compiled
/// when a path or line of the change first could match it).
#[derive(Debug)]
pub struct CompiledRules {
    _matcher: Matcher,
}

/// [`classify`], handing back the compiled rules rather than freeing them, for a caller
/// that ends right after: freeing the compiled rules piece by piece cost a one-file
/// change of cargo 5% of its instructions (`handoff classify` lets the process's end
/// free them).
pub fn classify_keeping_rules(
    repo: &Repo,
    base: &str,
    head: &Head,
    declared: Option<RiskClass>,
    policy: &Policy,
) -> Result<(Classification, CompiledRules), ClassifyError> {
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
    let changed_lines: Vec<ChangedLines> = visitor
        .candidates
        .iter()
        .map(|c| (&c.path, &c.added[..], &c.removed[..]))
        .collect();
    findings.extend(confirmed_findings(
        repo,
        (&base_rev, head),
        &matcher,
        &visitor.in_code,
        &changed_lines,
        risk_so_far,
    )?);
    // Readings beyond the changed line, in turn: each sees the findings before it and
    // adds only what could raise the class they reached.
    type ReadingFn = fn(Reading<'_>, &mut ProjectModel) -> Result<Vec<Finding>, GitError>;
    let readings: [ReadingFn; 4] = [
        scope_findings,
        rails_callback_findings,
        bound_settings_findings,
        middleware_chain_findings,
    ];
    for read in readings {
        let reading = Reading {
            repo,
            sides: (&base_rev, head),
            matcher: &matcher,
            candidates: &visitor.candidates,
            findings: &findings,
            risk: risk_of(&findings)?,
        };
        let found = read(reading, &mut visitor.project)?;
        findings.extend(found);
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
    let classification = Classification {
        risk,
        declared,
        reclassified: risk > floor,
        files,
        findings,
        suppressed,
        stacks: visitor.project.stacks(),
        rename_search_skipped: change.rename_search_skipped,
    };
    Ok((classification, CompiledRules { _matcher: matcher }))
}
