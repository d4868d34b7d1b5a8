//! Running the gate on a repository: the order in which the inputs are gathered.
//!
//! 1. The records: every `*.md` under the records directory at head (a commit's tree, or
//!    the working tree with untracked files), then every `--records` input in order.
//! 2. The task: `--task`, else the single Task Assignment — of several, the single one
//!    this change added or edited (or that came with `--records`).
//! 3. The base: `--base`, else the Task Assignment's `Baseline SHA`, else the merge base
//!    with the default branch.
//! 4. The policy, from that base (or `--policy FILE`), so that a change cannot weaken its
//!    own gate. The records directory it names is the one step 1 reads, so step 1 uses
//!    the policy at `--base` or at the default branch's merge base (the defaults when
//!    neither is known); the policy is read again only when the final base differs.
//! 5. The classification of base..head under that policy, then the verdict.
//!
//! Anything that stops the gate from running (no repository, an unreadable record file,
//! a base missing from a shallow clone, a broken policy) is a [`CheckError`]: the CLI
//! exits 2 with its message rather than passing or rejecting on partial input.

use super::reviewer::Roles;
use super::task::{select_task, SelectionError, TaskRecords};
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
use std::cell::OnceCell;
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
    /// The base revision; `None` for the Baseline SHA or the merge base.
    pub base: Option<String>,
    /// The head.
    pub head: Head,
    /// The task; `None` for the single Task Assignment.
    pub task: Option<String>,
    /// Extra records.
    pub records: Vec<RecordsInput>,
    /// A policy file that replaces the one at the base.
    pub policy: Option<PathBuf>,
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

/// Runs the gate on `repo`.
pub fn check(repo: &Repo, options: &CheckOptions) -> Result<Verdict, CheckError> {
    let head = &options.head;
    let given_base = match &options.base {
        Some(base) => Some(repo.resolve_base(base, head)?),
        None => None,
    };
    let early_base = given_base
        .clone()
        .or_else(|| repo.merge_base_with_default_branch().ok());
    let early_policy = load_policy(repo, early_base.as_deref(), options)?;
    let records_dir = early_policy.records_dir.trim_end_matches('/').to_string();
    let (records, diagnostics) = load_records(repo, options, &records_dir)?;
    let task_id = choose_task(repo, options, &records, early_base.as_deref(), &records_dir)?;
    let task = TaskRecords::gather(&records, &task_id);
    let base = match (given_base, task.baseline_sha()) {
        (Some(base), _) => base,
        (None, Some(sha)) => repo.resolve_base(sha, head)?,
        (None, None) => repo.merge_base_with_default_branch()?,
    };
    let policy = if early_base.as_deref() == Some(base.as_str()) {
        early_policy
    } else {
        load_policy(repo, Some(&base), options)?
    };
    judge(repo, &task, &base, head, &policy, &diagnostics)
}

/// Selects the task; of several assignments, those in record files this change added or
/// edited (or from `--records`) are the candidates.
fn choose_task(
    repo: &Repo,
    options: &CheckOptions,
    records: &[Record],
    early_base: Option<&str>,
    records_dir: &str,
) -> Result<String, CheckError> {
    let fresh = OnceCell::new();
    let in_records_dir = format!("{records_dir}/");
    let is_fresh = |record: &Record| {
        !record.source.starts_with(&in_records_dir)
            || fresh
                .get_or_init(|| fresh_record_files(repo, early_base, &options.head, records_dir))
                .contains(&record.source)
    };
    Ok(select_task(records, options.task.as_deref(), &is_fresh)?)
}

/// Classifies base..head for the task and evaluates the verdict.
fn judge(
    repo: &Repo,
    task: &TaskRecords,
    base: &str,
    head: &Head,
    policy: &Policy,
    diagnostics: &[Diagnostic],
) -> Result<Verdict, CheckError> {
    let declared = task
        .assignment
        .and_then(Record::risk_class)
        .or_else(|| task.evidence_record().and_then(Record::risk_class));
    let classification = classify(repo, base, head, declared, policy)?;
    let files: Vec<ChangedPath> = classification.files.iter().map(changed_path).collect();
    let migrations = migration_paths(&classification);
    let roles = Roles::from_policy(&policy.reviewers);
    let labels = crate::evidence::labels(&policy.evidence);
    Ok(evaluate(GateInput {
        task,
        files: &files,
        risk: risk_report(classification),
        migrations: &migrations,
        roles: &roles,
        labels: &labels,
        records_dir: &policy.records_dir,
        diagnostics,
    }))
}

/// The record files under `records_dir` that the change from `base` to `head` added or
/// edited (empty when that cannot be known: the task must then be named with `--task`).
fn fresh_record_files(
    repo: &Repo,
    base: Option<&str>,
    head: &Head,
    records_dir: &str,
) -> HashSet<String> {
    let Some(change) = base.and_then(|base| repo.change_set(base, head).ok()) else {
        return HashSet::new();
    };
    change
        .files
        .iter()
        .filter(|file| file.status != ChangeStatus::Deleted && file.path.is_under(records_dir))
        .map(|file| file.path.to_string_lossy().into_owned())
        .collect()
}

/// The policy: `--policy FILE`, else `.handoff.yaml` at `base`, else the defaults (when
/// no base is known yet, the records directory is looked for where the defaults say).
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
    Ok(policy)
}

/// Reads and parses every record: the records directory at head, then `--records`.
/// Returns the records and the structural diagnostics of their documents.
fn load_records(
    repo: &Repo,
    options: &CheckOptions,
    records_dir: &str,
) -> Result<(Vec<Record>, Vec<Diagnostic>), CheckError> {
    let mut documents = Vec::new();
    let dir = records_dir.trim_end_matches('/');
    for path in repo.files_under(&options.head, dir)? {
        let Some(name) = path.as_str() else {
            return Err(CheckError::NonUtf8RecordPath {
                path: path.to_string_lossy().into_owned(),
            });
        };
        if !is_markdown_file(Path::new(name)) {
            continue;
        }
        let Some(bytes) = repo.read_file_at(&options.head, name)? else {
            continue;
        };
        let text = decode_text(bytes, Path::new(name))?;
        documents.push(parse_document(name, &text));
    }
    for input in &options.records {
        match input {
            RecordsInput::Text(text) => documents.push(parse_document(STDIN_NAME, text)),
            RecordsInput::Path(path) => {
                for file in records_files(path)? {
                    let text = read_text(&file)?;
                    documents.push(parse_document(&file.display().to_string(), &text));
                }
            }
        }
    }
    let mut records = Vec::new();
    let mut diagnostics = Vec::new();
    for document in documents {
        records.extend(document.records);
        diagnostics.extend(document.diagnostics);
    }
    Ok((records, diagnostics))
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
        rename_search_skipped: classification.rename_search_skipped,
    }
}
