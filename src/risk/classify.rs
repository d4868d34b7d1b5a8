//! Classification: stream a change through the compiled rules and keep what fired.
//!
//! Each file is tested once against every path rule (both paths of a rename; a deletion
//! counts), then its added and removed lines (added only, for `credential`) run through
//! one regex set per side. A trigger reports each path once, by the first path rule that
//! matched it; a line rule fires at most once per file, and the finding names the first
//! line that fired it. A trigger that already fired on a file by its path does not also
//! report that file's lines. Comment lines only count for credential rules, and so do
//! lines rewritten to the same code (a hunk of at most [`HUNK_LINES`] removed lines is held
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

use super::comments::CommentStyle;
use super::enclosing::{scope_findings, ScopeCandidate};
use super::fold::Folded;
use super::matcher::{CompileError, Matcher};
use super::project::{compose_env_files, is_compose_file, FileStacks, ProjectModel, COMPOSE_NAMES};
use super::rewrite::Rewrites;
use super::suppress::Suppressor;
use super::syntax::{confirmed_findings, Grammar, InCodeCandidate, CANDIDATES_PER_FILE};
use crate::git::ChangeSet;
use crate::git::{
    ChangeVisitor, ChangedFile, DiffLine, GitError, Head, LineSide, RenameLimitExceeded,
    RenameOptions, Repo, RepoPath,
};
use crate::policy::{Policy, GATE_FILE_RULE};
use crate::policy::{RiskClass, Trigger};
use crate::suppress::{marker_rules, SuppressedBy, MARKER};

/// The stack of rules that apply everywhere.
const ANY: &str = "any";

/// The trigger of the gate's own files.
const POLICY_TRIGGER: &str = "policy";

/// The scope rules that read auth into a definition's name (`function LoginForm()`,
/// `class AuthPanel`): like a file's name, not read in a browser component.
const NAME_SCOPE_RULES: &[&str] = &["auth.scope.guard", "auth.scope.class", "auth.scope.token"];

/// The rule of a file a compose file names under `env_file:`.
const COMPOSE_ENV_FILE_RULE: &str = "env-var.path.compose-env-file";
use serde::Serialize;
use std::collections::HashSet;

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

/// The `policy` findings of the gate's own files that no rule reported: the files
/// [`Policy::is_gate_file`] names, and the CI workflows that run the gate (a workflow
/// file that mentions `handoff` on either side). No policy excludes or removes these.
fn gate_file_findings(
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
fn compose_env_file_findings(
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
            trigger: trigger.name.clone(),
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

fn file_count_finding(count: usize) -> Finding {
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

/// The trigger whose rules read records and binary files too.
const CREDENTIAL_ONLY: Option<&str> = Some("credential");

/// The per-file state of the stream.
struct Classifier<'a> {
    matcher: &'a Matcher,
    policy: &'a Policy,
    findings: Vec<Finding>,
    counted: usize,
    /// For the current file: which line rules read it and have not fired yet.
    open: Vec<bool>,
    open_count: usize,
    /// Of those, the ones that read comment lines (secrets): a comment line is matched
    /// against these only, so a rule that cannot fire there does not run its regex there.
    open_in_comments: Vec<bool>,
    /// For the current file: which triggers already fired by path.
    fired_by_path: Vec<bool>,
    /// For the current file: path findings of triggers that need a changed line of code,
    /// kept until one is seen (then reported) or the file ends (then dropped).
    pending: Vec<Finding>,
    /// For the current file: whether any changed line was seen.
    saw_line: bool,
    /// For the current file: whether a test-file path rule matched it.
    is_test: bool,
    /// The project model, read at the base as files ask, and the current file's stacks.
    project: ProjectModel,
    repo: &'a Repo,
    base: Head,
    head: Head,
    stacks: FileStacks,
    /// The first error reading a manifest (the visitor cannot return one).
    error: Option<GitError>,
    /// For the current file: how its comment lines start.
    comments: CommentStyle,
    /// For the current file: the scope rules that read it, and its changed lines of code
    /// once one is seen; then every such file (see `enclosing`).
    scoped: Vec<usize>,
    candidate: Option<ScopeCandidate>,
    candidates: Vec<ScopeCandidate>,
    /// For the current file: its grammar, and how many lines each `in_code` rule matched;
    /// then every such match, to confirm (see `syntax`).
    grammar: Option<Grammar>,
    in_code_matches: Vec<usize>,
    in_code: Vec<InCodeCandidate>,
    /// The files whose base holds no suppression marker, as the stream saw while reading
    /// them (so that suppression need not read them again).
    unmarked: HashSet<RepoPath>,
    /// For the current file: how its lines compare, and the hunk held until the lines that
    /// replace its removed lines are seen (see `rewrite`).
    rewrites: Option<Rewrites>,
    hunk: Hunk,
    /// The last path asked whether it is a browser component, and the answer.
    browser_component: Option<(RepoPath, bool)>,
}

/// At most this many removed lines of a hunk are held for comparison: a longer hunk is
/// read as it streams, so memory never grows with a file's lines.
const HUNK_LINES: usize = 32;

/// A hunk of the current file held back: its removed lines, then the added lines that
/// may replace them one to one.
#[derive(Default)]
struct Hunk {
    file: Option<ChangedFile>,
    removed: Vec<(usize, Vec<u8>)>,
    added: Vec<(usize, Vec<u8>)>,
    /// The head's line number of the hunk's first added line, if it has any.
    added_from: usize,
    /// How many lines of each side the file streamed before the hunk.
    removed_before: usize,
    added_before: usize,
    /// Whether the hunk's removed lines go on from a run held before it (longer than
    /// [`HUNK_LINES`]): its added lines replace the run's first lines, not these.
    spilled: bool,
}

impl<'a> Classifier<'a> {
    fn new(
        matcher: &'a Matcher,
        policy: &'a Policy,
        repo: &'a Repo,
        (base, head): (Head, Head),
    ) -> Classifier<'a> {
        Classifier {
            matcher,
            policy,
            findings: Vec::new(),
            counted: 0,
            open: vec![false; matcher.line_rules.len()],
            open_count: 0,
            open_in_comments: vec![false; matcher.line_rules.len()],
            fired_by_path: vec![false; matcher.triggers.len()],
            pending: Vec::new(),
            saw_line: false,
            is_test: false,
            project: ProjectModel::default(),
            repo,
            base,
            head,
            stacks: FileStacks::default(),
            error: None,
            comments: CommentStyle::None,
            scoped: Vec::new(),
            candidate: None,
            candidates: Vec::new(),
            grammar: None,
            in_code_matches: vec![0; matcher.line_rules.len()],
            in_code: Vec::new(),
            unmarked: HashSet::new(),
            rewrites: None,
            hunk: Hunk::default(),
            browser_component: None,
        }
    }

    fn is_classified(&self, path: &RepoPath) -> bool {
        !self.policy.is_meta(path) && !self.matcher.is_excluded(&path.to_string_lossy())
    }

    /// Reads the stacks that speak for `file` (the project model, at the base).
    fn read_stacks(&mut self, file: &ChangedFile) {
        let path = file.path.to_string_lossy();
        match self.project.file_stacks(self.repo, &self.base, &path) {
            Ok(stacks) => self.stacks = stacks,
            Err(error) => {
                self.stacks = FileStacks::default();
                self.error.get_or_insert(error);
            }
        }
    }

    /// Ends the current file: path findings still waiting for a line of code are dropped
    /// when the file had changed lines (all comments), kept when it had none.
    fn finish_file(&mut self) {
        self.release_hunk();
        self.hunk = Hunk::default();
        self.rewrites = None;
        if self.saw_line {
            self.pending.clear();
        } else {
            self.findings.append(&mut self.pending);
        }
        self.saw_line = false;
        self.scoped.clear();
        self.candidates.extend(self.candidate.take());
    }

    /// Records the path rules the file fires: one finding per trigger and path. Those of
    /// a trigger that needs a changed line of code wait for one (see [`Self::line`]),
    /// except in a binary file or a submodule, which have no code lines to show.
    fn record_path_findings(&mut self, file: &ChangedFile) {
        self.fired_by_path
            .iter_mut()
            .for_each(|fired| *fired = false);
        let matched: Vec<(&RepoPath, Vec<usize>)> = file
            .touched_paths()
            .filter(|p| self.is_classified(p))
            .map(|path| {
                // A submodule is a directory: `vendor/oauth/` is what directory globs match.
                let mut text = path.to_string_lossy().into_owned();
                if file.submodule {
                    text.push('/');
                }
                (path, self.matcher.path_rules_for(&text))
            })
            .collect();
        self.is_test = matched.iter().flat_map(|(_, rules)| rules).any(|&rule| {
            self.matcher.triggers[self.matcher.path_rules[rule].trigger].name
                == Trigger::TestFile.as_str()
        });
        let waits = !file.binary && !file.submodule;
        for (path, rules) in matched {
            let mut fired_here = vec![false; self.matcher.triggers.len()];
            for rule_index in rules {
                let rule = &self.matcher.path_rules[rule_index];
                if (self.is_test && !rule.reads_test_files)
                    || !self.stacks.enables(&rule.stack)
                    || fired_here[rule.trigger]
                {
                    continue;
                }
                let trigger = &self.matcher.triggers[rule.trigger];
                if trigger.name == Trigger::Auth.as_str() && self.is_browser_component(file, path) {
                    continue;
                }
                fired_here[rule.trigger] = true;
                self.fired_by_path[rule.trigger] = true;
                let trigger = &self.matcher.triggers[rule.trigger];
                let finding = Finding {
                    trigger: trigger.name.clone(),
                    class: trigger.class,
                    path: Some(path.clone()),
                    line: None,
                    side: None,
                    rule: rule.id.clone(),
                    stack: rule.stack.clone(),
                    excerpt: None,
                };
                if waits && trigger.needs_code_change {
                    self.pending.push(finding);
                } else {
                    self.findings.push(finding);
                }
            }
        }
    }

    /// Whether `path` (of `file`) is a component that runs in the browser, which decides
    /// nothing the server does not check again: a `.vue` (not a Nuxt `.server.vue`) or
    /// `.svelte` file, or a `.jsx` or `.tsx` file that opens with the `"use client"`
    /// directive at both sides. Nothing else is proof: `.tsx` is also the server's
    /// extension where a framework renders JSX there (Hono, Fresh, React Router,
    /// TanStack Start, an Express app's views), found or not. Auth is not read into its
    /// name (its lines are still read); a file that cannot be read is not one.
    fn is_browser_component(&mut self, file: &ChangedFile, path: &RepoPath) -> bool {
        if let Some((known, answer)) = &self.browser_component {
            if known == path {
                return *answer;
            }
        }
        let answer = self.reads_as_browser_component(file, path);
        self.browser_component = Some((path.clone(), answer));
        answer
    }

    fn reads_as_browser_component(&mut self, file: &ChangedFile, path: &RepoPath) -> bool {
        let Some(name) = path.as_str() else {
            return false;
        };
        let extension = name.rsplit_once('.').map(|(_, ext)| ext);
        match extension {
            Some("vue") => return !name.ends_with(".server.vue"),
            Some("svelte") => return true,
            Some("jsx" | "tsx") => {}
            _ => return false,
        }
        let old = file.old_path.as_ref().unwrap_or(&file.path);
        let sides = [(&self.base, old), (&self.head, &file.path)];
        let mut read_any = false;
        for (at, side_path) in sides {
            let Some(side_name) = side_path.as_str() else {
                return false;
            };
            match self.repo.read_file_at(at, side_name) {
                Ok(Some(bytes)) if says_use_client(&bytes) => read_any = true,
                Ok(None) => {}
                Ok(Some(_)) => return false,
                Err(error) => {
                    self.error.get_or_insert(error);
                    return false;
                }
            }
        }
        read_any
    }

    /// Keeps a match of an `in_code` rule for confirmation by the file's grammar; the rule
    /// stops reading the file after [`CANDIDATES_PER_FILE`] of them.
    /// `folded`: the line's NFKC form, when only that matched (its columns are mapped
    /// back to the line's).
    fn note_in_code_match(
        &mut self,
        file: &ChangedFile,
        line: &DiffLine<'_>,
        index: usize,
        folded: Option<&Folded>,
    ) {
        let rule = &self.matcher.line_rules[index];
        let columns = match (rule.regex(), folded) {
            (Some(regex), None) => regex.find_iter(line.content).map(|m| m.start()).collect(),
            (Some(regex), Some(folded)) => regex
                .find_iter(&folded.text)
                .map(|m| folded.origin(m.start()))
                .collect(),
            (None, _) => Vec::new(),
        };
        self.in_code.push(InCodeCandidate {
            path: file.path.clone(),
            old_path: file.old_path.clone(),
            rule: index,
            side: line.side,
            number: line.number,
            columns,
            excerpt: self.matcher.excerpt(line.content),
        });
        self.in_code_matches[index] += 1;
        if self.in_code_matches[index] == CANDIDATES_PER_FILE {
            self.close(index);
        }
    }

    /// Keeps a changed line of code of the current file for its scope rules.
    fn note_code_line(&mut self, file: &ChangedFile, line: &DiffLine<'_>) {
        let candidate = self.candidate.get_or_insert_with(|| ScopeCandidate {
            path: file.path.clone(),
            old_path: file.old_path.clone(),
            rules: self.scoped.clone(),
            added: Vec::new(),
            removed: Vec::new(),
        });
        match line.side {
            LineSide::Added => candidate.added.push(line.number),
            LineSide::Removed => candidate.removed.push(line.number),
        }
    }

    /// Raises what a marker the change writes names (a trigger, or a line rule's id for
    /// its trigger), where it could cover something of this file: the trigger's path
    /// finding waiting for a line of code counts now; else a scope rule of the trigger
    /// that reads the file fires on the marker's line.
    fn note_marker(&mut self, file: &ChangedFile, line: &DiffLine<'_>) {
        for name in marker_rules(line.content) {
            let matcher = self.matcher;
            let trigger = matcher.triggers.iter().position(|t| t.name == name);
            let Some(trigger) = trigger.or_else(|| {
                let rule = matcher.line_rules.iter().find(|rule| rule.id == name);
                rule.map(|rule| rule.trigger)
            }) else {
                continue;
            };
            let name = &matcher.triggers[trigger].name;
            if let Some(at) = self.pending.iter().position(|f| &f.trigger == name) {
                let finding = self.pending.remove(at);
                self.findings.push(finding);
                continue;
            }
            let mut scoped = self.scoped.iter().map(|&index| &matcher.line_rules[index]);
            let Some(rule) = scoped.find(|rule| rule.trigger == trigger) else {
                continue;
            };
            self.findings.push(Finding {
                trigger: name.clone(),
                class: matcher.triggers[trigger].class,
                path: Some(file.path.clone()),
                line: Some(line.number),
                side: Some(line.side),
                rule: rule.id.clone(),
                stack: rule.stack.clone(),
                excerpt: Some(matcher.excerpt(line.content)),
            });
        }
    }

    /// Opens the line rules that read `file`: every one its path selects, or only those
    /// of the trigger `only` names.
    fn open_line_rules(&mut self, file: &ChangedFile, only: Option<&str>) {
        let path = file.path.to_string_lossy();
        self.comments = CommentStyle::for_path(&path);
        self.rewrites = Some(Rewrites::for_path(&path, self.comments));
        self.grammar = Grammar::for_path(&path);
        self.in_code_matches.iter_mut().for_each(|count| *count = 0);
        self.matcher.line_rules_for(&path, &mut self.open);
        for (index, rule) in self.matcher.line_rules.iter().enumerate() {
            let other = only.is_some_and(|name| self.matcher.triggers[rule.trigger].name != name);
            let skips =
                (self.is_test && !rule.reads_test_files) || !self.stacks.enables(&rule.stack);
            if self.fired_by_path[rule.trigger] || other || skips {
                self.open[index] = false;
            } else if self.open[index] && (rule.scope || rule.data || rule.file_scope) {
                self.open[index] = false;
                if !NAME_SCOPE_RULES.contains(&rule.id.as_str())
                    || !self.is_browser_component(file, &file.path)
                {
                    self.scoped.push(index);
                }
            }
        }
        self.open_count = self.open.iter().filter(|open| **open).count();
        for (index, open) in self.open.iter().enumerate() {
            self.open_in_comments[index] = *open && self.matcher.reads_comments(index);
        }
    }

    /// Line rule `index` stops reading the current file.
    fn close(&mut self, index: usize) {
        self.open[index] = false;
        self.open_in_comments[index] = false;
        self.open_count -= 1;
    }
}

impl ChangeVisitor for Classifier<'_> {
    fn file(&mut self, file: &ChangedFile) -> bool {
        self.finish_file();
        self.is_test = false;
        self.open_count = 0;
        if file.submodule {
            if file.touched_paths().any(|path| self.is_classified(path)) {
                self.counted += 1;
                self.read_stacks(file);
                self.record_path_findings(file);
            }
            return false;
        }
        if !file.touched_paths().any(|path| self.is_classified(path)) {
            self.fired_by_path
                .iter_mut()
                .for_each(|fired| *fired = false);
            // A record is meta-data, but a key pasted into it is still a leak.
            if self.policy.is_meta(&file.path) {
                self.open_line_rules(file, CREDENTIAL_ONLY);
            }
            return self.open_count > 0;
        }
        self.counted += 1;
        self.read_stacks(file);
        self.record_path_findings(file);
        if !self.is_classified(&file.path) {
            return false;
        }
        // A binary file's text (see `git::content`) is read by the credential rules.
        let only = if file.binary { CREDENTIAL_ONLY } else { None };
        self.open_line_rules(file, only);
        self.open_count > 0 || !self.pending.is_empty() || !self.scoped.is_empty()
    }

    /// A file renamed or copied out of the records directory (or out of an excluded
    /// path) is read whole: what lay there was never read as code, whatever the rules
    /// say today.
    fn whole(&self, file: &ChangedFile) -> bool {
        file.old_path.as_ref().is_some_and(|old| {
            (!self.is_classified(old) || old.is_under(&self.policy.records_dir))
                && self.is_classified(&file.path)
        })
    }

    fn old_side_needle(&self) -> Option<&'static [u8]> {
        Some(MARKER.as_bytes())
    }

    fn old_side_holds(&mut self, file: &ChangedFile, holds: bool) {
        if !holds {
            self.unmarked.insert(file.path.clone());
        }
    }

    /// Holds a removed line until the lines that replace it are seen; an added line
    /// joins the hunk it replaces lines of, or is read at once.
    fn line(&mut self, file: &ChangedFile, line: DiffLine<'_>) {
        if self.rewrites.is_none() {
            return self.read_line(file, line, false);
        }
        let hunk = &mut self.hunk;
        let (removed_before, added_before) = (
            hunk.removed_before + hunk.removed.len(),
            hunk.added_before + hunk.added.len(),
        );
        match line.side {
            LineSide::Removed => {
                let next = hunk.added.is_empty()
                    && hunk
                        .removed
                        .last()
                        .is_none_or(|(number, _)| number + 1 == line.number);
                let follows = next && hunk.removed.len() < HUNK_LINES;
                if !follows {
                    self.release_hunk();
                }
                let hunk = &mut self.hunk;
                if hunk.removed.is_empty() {
                    // A run longer than the hunk holds goes on in a new hunk whose removed
                    // lines are not where the run's added lines start: none may pair.
                    hunk.spilled = next && !follows;
                    hunk.file.get_or_insert_with(|| file.clone());
                    hunk.removed_before = removed_before;
                    hunk.added_before = added_before;
                    // Unchanged lines keep their offset: the hunk's added lines start
                    // where its removed lines do, moved by the lines added and removed
                    // before it.
                    hunk.added_from = (line.number + added_before).saturating_sub(removed_before);
                }
                hunk.removed.push((line.number, line.content.to_vec()));
            }
            LineSide::Added => {
                let joins = !hunk.removed.is_empty()
                    && !hunk.spilled
                    && hunk.added.len() < hunk.removed.len()
                    && line.number == hunk.added_from + hunk.added.len();
                if joins {
                    hunk.added.push((line.number, line.content.to_vec()));
                } else {
                    self.release_hunk();
                    self.hunk.added_before += 1;
                    self.read_line(file, line, false);
                }
            }
        }
    }
}

impl Classifier<'_> {
    /// Reads the hunk held back: each line as a comment line when every removed line is
    /// replaced by an added line of the same code, else each line as it is.
    fn release_hunk(&mut self) {
        let hunk = &mut self.hunk;
        if hunk.removed.is_empty() {
            return;
        }
        let removed = std::mem::take(&mut hunk.removed);
        let added = std::mem::take(&mut hunk.added);
        hunk.removed_before += removed.len();
        hunk.added_before += added.len();
        let Some(file) = hunk.file.clone() else {
            return;
        };
        let same = removed.len() == added.len()
            && self.rewrites.is_some_and(|rewrites| {
                removed
                    .iter()
                    .zip(&added)
                    .all(|((_, old), (_, new))| rewrites.same_code(old, new))
            });
        let lines = removed
            .iter()
            .map(|(number, content)| (LineSide::Removed, number, content))
            .chain(
                added
                    .iter()
                    .map(|(number, content)| (LineSide::Added, number, content)),
            );
        for (side, &number, content) in lines {
            let line = DiffLine {
                side,
                number,
                content,
            };
            self.read_line(&file, line, same);
        }
    }

    /// Reads one changed line; `no_code` reads it as a comment line (its code is the
    /// line it replaces).
    fn read_line(&mut self, file: &ChangedFile, line: DiffLine<'_>, no_code: bool) {
        self.saw_line = true;
        // Only secrets count in comment lines (see `comments`); asked only of the lines
        // that need the answer.
        let mut comment = no_code.then_some(true);
        if !self.pending.is_empty()
            && !is_blank(line.content)
            && !*comment.get_or_insert_with(|| self.comments.is_comment(line.content))
        {
            self.findings.append(&mut self.pending);
        }
        if !self.scoped.is_empty()
            && !is_blank(line.content)
            && !*comment.get_or_insert_with(|| self.comments.is_comment(line.content))
        {
            self.note_code_line(file, &line);
        }
        if line.side == LineSide::Added
            && memchr::memmem::find(line.content, MARKER.as_bytes()).is_some()
        {
            self.note_marker(file, &line);
        }
        if self.open_count == 0 {
            return;
        }
        let mut fired = Vec::new();
        let in_comment = *comment.get_or_insert_with(|| self.comments.is_comment(line.content));
        let open = if in_comment {
            &self.open_in_comments
        } else {
            &self.open
        };
        self.matcher
            .open_matches(line.side, line.content, open, |index| {
                if self.matcher.confirms(index, line.content) {
                    fired.push((index, false));
                }
            });
        // A line outside ASCII is also read as Python reads its identifiers, NFKC-folded
        // (`ſession_id`, a fullwidth `ｐａｓｓｗｏｒｄ`): a rule only that form matches fires.
        let folded = Folded::of(line.content);
        if let Some(folded) = &folded {
            self.matcher
                .open_matches(line.side, &folded.text, open, |index| {
                    if !fired.iter().any(|&(known, _)| known == index)
                        && self.matcher.confirms(index, &folded.text)
                    {
                        fired.push((index, true));
                    }
                });
        }
        let matcher = self.matcher;
        for (index, only_folded) in fired {
            let rule = &matcher.line_rules[index];
            if rule.in_code && self.grammar.is_some() {
                let folded = folded.as_ref().filter(|_| only_folded);
                self.note_in_code_match(file, &line, index, folded);
                continue;
            }
            self.close(index);
            let trigger = &self.matcher.triggers[rule.trigger];
            self.findings.push(Finding {
                trigger: trigger.name.clone(),
                class: trigger.class,
                path: Some(file.path.clone()),
                line: Some(line.number),
                side: Some(line.side),
                rule: rule.id.clone(),
                stack: rule.stack.clone(),
                excerpt: Some(self.matcher.excerpt(line.content)),
            });
        }
    }
}

/// Whether a JavaScript or TypeScript file opens with the `"use client"` directive (after
/// blank lines and line comments).
fn says_use_client(bytes: &[u8]) -> bool {
    let first = bytes
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .find(|line| !line.is_empty() && !line.starts_with(b"//"));
    first.is_some_and(|line| {
        let line = line.strip_suffix(b";").unwrap_or(line).trim_ascii_end();
        line == b"\"use client\"" || line == b"'use client'"
    })
}

/// Whether a line holds nothing but white space.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}
