//! Running the gate on a repository: the order in which the inputs are gathered.
//!
//! 1. The base as given (`--base`, else the default branch) names two commits: its tip,
//!    the target branch as it is now, from which the policy and the base's records are
//!    read; and its merge base with the head, from which the diff runs. A stale fork
//!    point therefore never brings back an older assignment or policy.
//! 2. The policy: `--policy FILE`, else `.handoff.yaml` at the base's tip.
//! 3. The records, each with its origin ([`Origin`]): every Markdown file under the
//!    records directory at the base's tip (base), the record files the change adds or
//!    edits, read at the head (head), then `--trusted-records` and `--records` inputs. A
//!    file the change deletes still counts as the base has it.
//! 4. The task: `--task`, else the single assigned task (see [`super::task`]); with no
//!    Task Assignment at all, the roll-out decides (see `super::rollout`).
//! 5. The diff base: the merge base of step 1; with no `--base`, the base Task
//!    Assignment's `Baseline SHA`, else the merge base with the default branch.
//! 6. The classification of base..head under the policy, then the verdict.
//!
//! Anything that stops the gate from running (no repository, an unreadable record file,
//! a base missing from a shallow clone, a broken policy) is a [`CheckError`]: the CLI
//! exits 2 with its message rather than passing or rejecting on partial input.

use super::reviewer::Roles;
use super::task::{select_task, Origin, SelectionError, Sourced, TaskRecords};
use super::{evaluate, ChangedPath, GateInput, RiskReport, Verdict};
use crate::diagnostic::Diagnostic;
use crate::git::{ChangeStatus, ChangedFile, GitError, Head, Repo};
use crate::io::{
    decode_text, is_markdown_file, markdown_files, read_text, Depth, InputError, WalkError,
    STDIN_NAME,
};
use crate::policy::RiskClass;
use crate::policy::{Policy, PolicyError};
use crate::record::{parse_document, Record};
use crate::risk::{classify, Classification, ClassifyError};
use crate::scope::Touch;
use crate::suppress::Baseline;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Where extra records come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordsInput {
    /// A Markdown file, or a directory searched for `**/*.md`.
    Path(PathBuf),
    /// Text already read (standard input, e.g. a pull request's body), named `-`.
    Text(String),
}

/// What to check.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The base revision; `None` for the default branch (and the Baseline SHA).
    pub base: Option<String>,
    /// The head.
    pub head: Head,
    /// The task; `None` for the single Task Assignment.
    pub task: Option<String>,
    /// Extra records that supply evidence only (`--records`).
    pub records: Vec<RecordsInput>,
    /// Extra records CI vouches for, which may grant (`--trusted-records`).
    pub trusted_records: Vec<RecordsInput>,
    /// A policy file that replaces the one at the base.
    pub policy: Option<PathBuf>,
    /// A baseline (a SARIF log of an earlier run), read from the base like the policy.
    pub baseline: Option<PathBuf>,
    /// Detect copies too, whatever the policy says.
    pub copies: bool,
}

/// Why the gate cannot run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// Reading the repository failed (missing base, unknown revision…).
    #[error(transparent)]
    Git(#[from] GitError),
    /// The policy is broken.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// The baseline cannot be read.
    #[error(transparent)]
    Baseline(#[from] crate::suppress::BaselineError),
    /// Classifying the change failed.
    #[error(transparent)]
    Classify(#[from] ClassifyError),
    /// A record file cannot be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The task cannot be chosen.
    #[error(transparent)]
    Task(#[from] SelectionError),
    /// A file in the records directory has a name that is not UTF-8.
    #[error("{path}: a file in the records directory has a name that is not UTF-8; rename it")]
    NonUtf8RecordPath {
        /// The name, invalid bytes shown as U+FFFD.
        path: String,
    },
    /// A `--records` directory cannot be searched.
    #[error(transparent)]
    Search(#[from] WalkError),
}

/// The two commits a base stands for: the tip records and policy are read from, and the
/// merge base the diff runs from.
struct Bases {
    tip: Option<String>,
    diff: Option<String>,
}

/// Runs the gate on `repo`.
pub fn check(repo: &Repo, options: &CheckOptions) -> Result<Verdict, CheckError> {
    let head = &options.head;
    let mut bases = match &options.base {
        Some(base) => Bases {
            tip: Some(repo.commit_id(base)?),
            diff: Some(repo.resolve_base(base, head)?),
        },
        None => Bases {
            tip: repo.default_branch_tip(),
            diff: repo.merge_base_with_default_branch().ok(),
        },
    };
    if bases.tip.is_none() {
        // No base and no default branch: the Baseline SHA of the assignment is the base.
        bases = baseline_bases(repo, options)?;
    }
    let policy = load_policy(repo, bases.tip.as_deref(), options)?;
    let records_dir = policy.records_dir.trim_end_matches('/').to_string();
    let (records, diagnostics) = load_records(repo, options, &bases, &records_dir)?;
    let task_id = match select_task(&records, options.task.as_deref()) {
        Err(SelectionError::NoTask) => {
            let base = match bases.diff {
                Some(base) => base,
                None => repo.merge_base_with_default_branch()?,
            };
            let task = TaskRecords::gather(&[], "");
            let (verdict, files) = judge_files(repo, &task, &base, head, &policy, &[])?;
            return Ok(super::rollout::without_task(
                verdict, &files, &records, &policy,
            ));
        }
        selected => selected?,
    };
    let task = TaskRecords::gather(&records, &task_id);
    let base = match (&options.base, bases.diff, task.baseline_sha()) {
        (Some(_), Some(base), _) => base,
        (_, _, Some(sha)) => repo.resolve_base(sha, head)?,
        (_, Some(base), None) => base,
        (_, None, None) => repo.merge_base_with_default_branch()?,
    };
    judge_files(repo, &task, &base, head, &policy, &diagnostics).map(|(verdict, _)| verdict)
}

/// The bases when neither `--base` nor a default branch names one: the `Baseline SHA`
/// of the task's assignment as the head holds it (a commit the change cannot move,
/// since the head's own commits are not yet on any branch it could name), else none.
fn baseline_bases(repo: &Repo, options: &CheckOptions) -> Result<Bases, CheckError> {
    let policy = load_policy(repo, None, options)?;
    let dir = policy.records_dir.trim_end_matches('/').to_string();
    let none = Bases {
        tip: None,
        diff: None,
    };
    let (records, _) = load_records(repo, options, &none, &dir)?;
    let Ok(task_id) = select_task(&records, options.task.as_deref()) else {
        return Ok(none);
    };
    let task = TaskRecords::gather(&records, &task_id);
    let Some(sha) = task
        .assignment
        .and_then(|a| super::task::filled(a.baseline_sha()))
    else {
        return Ok(none);
    };
    let tip = repo.commit_id(sha)?;
    Ok(Bases {
        diff: Some(repo.resolve_base(sha, &options.head)?),
        tip: Some(tip),
    })
}

/// Classifies base..head for the task and evaluates the verdict; returns it with the
/// change's files.
fn judge_files(
    repo: &Repo,
    task: &TaskRecords,
    base: &str,
    head: &Head,
    policy: &Policy,
    diagnostics: &[Diagnostic],
) -> Result<(Verdict, Vec<ChangedPath>), CheckError> {
    let declared = task
        .assignment
        .and_then(Record::risk_class)
        .or_else(|| task.evidence_record().and_then(Record::risk_class));
    let classification = classify(repo, base, head, declared, policy)?;
    let files: Vec<ChangedPath> = classification.files.iter().map(changed_path).collect();
    let migrations = migration_paths(&classification);
    let roles = Roles::from_policy(&policy.reviewers);
    let labels = crate::evidence::labels(&policy.evidence);
    let verdict = evaluate(GateInput {
        task,
        files: &files,
        risk: risk_report(classification),
        migrations: &migrations,
        roles: &roles,
        labels: &labels,
        records_dir: &policy.records_dir,
        diagnostics,
    });
    Ok((verdict, files))
}

/// The record files under `records_dir` that the change from `base` to `head` adds or
/// edits.
fn changed_record_files(
    repo: &Repo,
    base: &str,
    head: &Head,
    records_dir: &str,
) -> Result<HashSet<String>, CheckError> {
    Ok(repo
        .changed_files_under(base, head, records_dir)?
        .iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect())
}

/// The policy: `--policy FILE`, else `.handoff.yaml` at `base`, else the defaults.
fn load_policy(
    repo: &Repo,
    base: Option<&str>,
    options: &CheckOptions,
) -> Result<Policy, CheckError> {
    let mut policy = match (&options.policy, base) {
        (Some(path), _) => Policy::load(repo, "HEAD", Some(path))?,
        (None, Some(base)) => Policy::load(repo, base, None)?,
        (None, None) => Policy::default(),
    };
    policy.copies |= options.copies;
    if let Some(path) = &options.baseline {
        policy.baseline = Some(Baseline::read_at(repo, base, path)?);
    }
    Ok(policy)
}

/// Reads and parses every record with its origin: the records directory at the base's
/// tip, the record files the change adds or edits at the head (every one, when no base
/// is known), then `--trusted-records` and `--records`. Returns the records and the
/// structural diagnostics of their documents.
fn load_records(
    repo: &Repo,
    options: &CheckOptions,
    bases: &Bases,
    records_dir: &str,
) -> Result<(Vec<Sourced>, Vec<Diagnostic>), CheckError> {
    let mut documents = Vec::new();
    let dir = records_dir.trim_end_matches('/');
    if let Some(tip) = &bases.tip {
        let at = Head::Rev(tip.clone());
        for name in record_files(repo, &at, dir)? {
            documents.extend(read_record_file(repo, &at, &name, Origin::Base)?);
        }
    }
    let changed = match &bases.diff {
        Some(base) if bases.tip.is_some() => {
            Some(changed_record_files(repo, base, &options.head, dir)?)
        }
        _ => None,
    };
    for name in record_files(repo, &options.head, dir)? {
        if changed
            .as_ref()
            .is_none_or(|changed| changed.contains(&name))
        {
            documents.extend(read_record_file(repo, &options.head, &name, Origin::Head)?);
        }
    }
    for (inputs, origin) in [
        (&options.trusted_records, Origin::Trusted),
        (&options.records, Origin::Input),
    ] {
        for input in inputs {
            match input {
                RecordsInput::Text(text) => {
                    documents.push((parse_document(STDIN_NAME, text), origin));
                }
                RecordsInput::Path(path) => {
                    for file in records_files(path)? {
                        let text = read_text(&file)?;
                        let document = parse_document(&file.display().to_string(), &text);
                        documents.push((document, origin));
                    }
                }
            }
        }
    }
    let mut records = Vec::new();
    let mut diagnostics = Vec::new();
    for (document, origin) in documents {
        records.extend(
            document
                .records
                .into_iter()
                .map(|record| Sourced { record, origin }),
        );
        diagnostics.extend(document.diagnostics);
    }
    Ok((records, diagnostics))
}

/// The Markdown files under `dir` at `at`, by name; a name that is not UTF-8 is an error.
fn record_files(repo: &Repo, at: &Head, dir: &str) -> Result<Vec<String>, CheckError> {
    let mut names = Vec::new();
    for path in repo.files_under(at, dir)? {
        let Some(name) = path.as_str() else {
            return Err(CheckError::NonUtf8RecordPath {
                path: path.to_string_lossy().into_owned(),
            });
        };
        if is_markdown_file(Path::new(name)) {
            names.push(name.to_string());
        }
    }
    Ok(names)
}

fn read_record_file(
    repo: &Repo,
    at: &Head,
    name: &str,
    origin: Origin,
) -> Result<Option<(crate::record::ParsedDocument, Origin)>, CheckError> {
    let Some(bytes) = repo.read_file_at(at, name)? else {
        return Ok(None);
    };
    let text = decode_text(bytes, Path::new(name))?;
    Ok(Some((parse_document(name, &text), origin)))
}

/// `path` itself, or every Markdown file below it when it is a directory, sorted.
fn records_files(path: &Path) -> Result<Vec<PathBuf>, CheckError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    Ok(markdown_files(path, Depth::All)?)
}

/// A changed file as the gate sees it.
fn changed_path(file: &ChangedFile) -> ChangedPath {
    let path = file.path.to_string_lossy().into_owned();
    let old_path = file
        .old_path
        .as_ref()
        .map(|old| old.to_string_lossy().into_owned());
    let touch = match (file.status, &old_path) {
        (ChangeStatus::Deleted, _) => Touch::Deleted,
        (ChangeStatus::Renamed, Some(old)) => Touch::RenamedFrom(old.clone()),
        (ChangeStatus::Added | ChangeStatus::Copied, _) => Touch::Added,
        _ => Touch::Modified,
    };
    ChangedPath {
        path,
        old_path,
        touch,
    }
}

/// The files that fired the `migration` trigger.
fn migration_paths(classification: &Classification) -> Vec<String> {
    let mut paths: Vec<String> = classification
        .findings
        .iter()
        .filter(|finding| finding.trigger == "migration")
        .filter_map(|finding| finding.path.as_ref())
        .map(|path| path.to_string_lossy().into_owned())
        .collect();
    paths.dedup();
    paths
}

fn risk_report(classification: Classification) -> RiskReport {
    let computed = classification
        .findings
        .iter()
        .map(|finding| finding.class)
        .fold(RiskClass::Low, RiskClass::max);
    RiskReport {
        declared: classification.declared,
        computed,
        class: classification.risk,
        reclassified: classification.reclassified,
        findings: classification.findings,
        suppressed: classification.suppressed,
        rename_search_skipped: classification.rename_search_skipped,
    }
}
