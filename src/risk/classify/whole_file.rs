//! The findings of whole files, read after the stream: the gate's own files (and the CI
//! workflows that run it), the env files a compose file names, and the count of files.

use super::{FILE_COUNT_LIMIT, FILE_COUNT_RULE};
use crate::git::{ChangeSet, ChangedFile, GitError, Head, Repo, RepoPath};
use crate::policy::{Policy, RiskClass, Trigger, GATE_FILE_RULE};
use crate::risk::finding::Finding;
use crate::risk::project::{compose_env_files, is_compose_file, ProjectModel, COMPOSE_NAMES};
use std::collections::HashSet;

/// The stack of rules that apply everywhere.
const ANY: &str = "any";

/// The trigger of the gate's own files.
const POLICY_TRIGGER: &str = "policy";

/// The rule of a file a compose file names under `env_file:`.
const COMPOSE_ENV_FILE_RULE: &str = "env-var.path.compose-env-file";

/// The `policy` findings of the gate's own files that no rule reported: the files
/// [`Policy::is_gate_file`] names, and the CI workflows that run the gate (a workflow
/// file that mentions `handoff` on either side). No policy excludes or removes these.
pub(super) fn gate_file_findings(
    repo: &Repo,
    change: &ChangeSet,
    head: &Head,
    policy: &Policy,
    found: &[Finding],
) -> Result<Vec<Finding>, GitError> {
    let reported = |path: &RepoPath| {
        found
            .iter()
            .any(|f| f.trigger == POLICY_TRIGGER && f.path.as_ref() == Some(path))
    };
    let mut findings = Vec::new();
    for file in &change.files {
        for path in file.touched_paths() {
            if reported(path)
                || findings
                    .iter()
                    .any(|f: &Finding| f.path.as_ref() == Some(path))
            {
                continue;
            }
            if policy.is_gate_file(path) || runs_the_gate(repo, change, head, file, path)? {
                findings.push(Finding {
                    trigger: POLICY_TRIGGER.to_string(),
                    class: RiskClass::High,
                    path: Some(path.clone()),
                    line: None,
                    side: None,
                    rule: GATE_FILE_RULE.to_string(),
                    stack: ANY.to_string(),
                    excerpt: None,
                });
            }
        }
    }
    Ok(findings)
}

/// The `env-var` findings of the changed files a compose file names under `env_file:`:
/// the root's compose files at the base (read by the project model), every changed
/// compose file at the base and the head, and, for a changed file whose name could be an
/// env file's ([`may_be_env_file`]), the compose files of the folders above it at the
/// base. Only compose files found by name are read.
pub(super) fn compose_env_file_findings(
    repo: &Repo,
    change: &ChangeSet,
    head: &Head,
    policy: &Policy,
    project: &ProjectModel,
) -> Result<Vec<Finding>, GitError> {
    let Some(trigger) = policy
        .triggers
        .iter()
        .find(|t| t.name == Trigger::EnvVar.as_str())
    else {
        return Ok(Vec::new());
    };
    let mut env_files = project.env_files().clone();
    let base = Head::Rev(change.base.clone());
    for file in &change.files {
        let sides = [
            (&base, file.old_path.as_ref().unwrap_or(&file.path)),
            (head, &file.path),
        ];
        for (at, path) in sides {
            let Some(name) = path.as_str().filter(|name| is_compose_file(name)) else {
                continue;
            };
            if let Some(bytes) = repo.read_file_at(at, name)? {
                env_files.extend(compose_env_files(name, &bytes));
            }
        }
    }
    let mut folders_read = HashSet::new();
    let candidates = change
        .files
        .iter()
        .filter(|file| !file.binary && !file.submodule)
        .flat_map(ChangedFile::touched_paths)
        .filter_map(|path| path.as_str().filter(|name| may_be_env_file(name)));
    for name in candidates {
        let mut folder = name;
        while let Some((parent, _)) = folder.rsplit_once('/') {
            folder = parent;
            if !folders_read.insert(folder.to_string()) {
                continue;
            }
            for compose in COMPOSE_NAMES {
                let compose = format!("{folder}/{compose}");
                if let Some(bytes) = repo.read_file_at(&base, &compose)? {
                    env_files.extend(compose_env_files(&compose, &bytes));
                }
            }
        }
    }
    let named = change
        .files
        .iter()
        .flat_map(ChangedFile::touched_paths)
        .filter(|path| path.as_str().is_some_and(|name| env_files.contains(name)));
    Ok(named
        .map(|path| Finding {
            trigger: trigger.name.to_string(),
            class: trigger.class,
            path: Some(path.clone()),
            line: None,
            side: None,
            rule: COMPOSE_ENV_FILE_RULE.to_string(),
            stack: "compose".to_string(),
            excerpt: None,
        })
        .collect())
}

/// Whether a file named `name` could be an env file whose name does not say so: no
/// extension (`docker/php/xdebug`, `.flaskenv`) or one env files are given (`.txt`,
/// `.conf`, `.local`, …). Code, documents and assets are not.
fn may_be_env_file(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    let file = file.strip_prefix('.').unwrap_or(file);
    match file.rsplit_once('.') {
        None => true,
        Some((_, extension)) => matches!(
            extension.to_ascii_lowercase().as_str(),
            "env"
                | "txt"
                | "conf"
                | "cfg"
                | "ini"
                | "vars"
                | "list"
                | "local"
                | "dev"
                | "prod"
                | "production"
                | "staging"
                | "test"
                | "sample"
                | "example"
                | "dist"
                | "template"
                | "tpl"
                | "secrets"
        ),
    }
}

/// Whether `path` is a CI definition (a GitHub workflow, a composite action, GitLab
/// CI) that mentions `handoff` in the base or the head: the change edits how its own
/// gate runs.
fn runs_the_gate(
    repo: &Repo,
    change: &ChangeSet,
    head: &Head,
    file: &ChangedFile,
    path: &RepoPath,
) -> Result<bool, GitError> {
    let Some(name) = path.as_str() else {
        return Ok(false);
    };
    let ci = name.starts_with(".github/workflows/")
        || name.starts_with(".github/actions/")
        || matches!(name, "action.yml" | "action.yaml" | ".gitlab-ci.yml");
    if !ci {
        return Ok(false);
    }
    let base = Head::Rev(change.base.clone());
    let sides = [
        (&base, file.old_path.as_ref().unwrap_or(&file.path)),
        (head, &file.path),
    ];
    for (at, side_path) in sides {
        let Some(side_name) = side_path.as_str() else {
            continue;
        };
        let Some(bytes) = repo.read_file_at(at, side_name)? else {
            continue;
        };
        if memchr::memmem::find(&bytes.to_ascii_lowercase(), b"handoff").is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

pub(super) fn file_count_finding(count: usize) -> Finding {
    Finding {
        trigger: "file-count".to_string(),
        class: RiskClass::Medium,
        path: None,
        line: None,
        side: None,
        rule: FILE_COUNT_RULE.to_string(),
        stack: ANY.to_string(),
        excerpt: Some(format!(
            "{count} files changed (more than {FILE_COUNT_LIMIT})"
        )),
    }
}
