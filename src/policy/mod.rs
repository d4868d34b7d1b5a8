//! The gate's policy: `.handoff.yaml` merged over built-in defaults.
//!
//! The policy says where records live, which paths the classifier ignores, which
//! triggers raise a change to which [`RiskClass`] and by which rules, which labels count
//! as which evidence item, and which reviewer roles sign off on which class. The
//! built-in defaults are data (`defaults.yaml`, read by the same loader as
//! `.handoff.yaml`), so `handoff policy show` prints exactly what the gate applies; this
//! module owns them, and [`crate::risk`] consumes a policy (nothing here depends on it).
//!
//! It is read from the BASE revision of a change, never from its head: a change must not
//! be able to weaken its own gate. `--policy FILE` replaces it (CI controls its command
//! line). No file means the defaults. Every mistake in the file (an unknown key, a glob or
//! regex that does not compile, a rule to remove that does not exist) is an error naming
//! the file and the line, because a silently ignored typo would turn a rule off.
//!
//! The file format is documented in `docs/gate.md` and described by the JSON Schema in
//! `schema/handoff-policy.schema.json`.

mod allow;
mod class;
mod defaults;
mod error;
mod file;
mod merge;
mod rollout;
mod trigger;

pub use allow::Allowance;
pub use class::{RiskClass, UnknownRiskClass};
pub use defaults::defaults;
pub use error::PolicyError;
pub use rollout::RequireTask;

use error::{short, too_large, ErrorContext};
pub use trigger::Trigger;

use crate::git::{Head, Repo, RepoPath};
use crate::io::{read_capped, InputError};
use crate::pattern::literal_rule_glob;
use file::PolicyFile;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub(crate) use file::compile_line_regex;

/// Where the policy file sits in a repository.
pub const POLICY_FILE: &str = ".handoff.yaml";

/// A name people give the policy file that is not read; finding it is an error.
const MISNAMED_POLICY_FILE: &str = ".handoff.yml";

/// The rule that fires `policy` when the `--policy` file itself changes.
pub const OVERRIDE_RULE: &str = "policy.path.override";

/// The rule that fires `policy` for the gate's own files, whatever the policy says
/// ([`Policy::is_gate_file`]): no policy can exclude or remove it.
pub const GATE_FILE_RULE: &str = "policy.path.gate-file";

/// The triggers whose findings no `allow` entry silences: the gate's own files and the
/// file count.
const RULE_PREFIXES_NEVER_ALLOWED: [&str; 2] = ["policy", "file-count"];

/// Where GitHub, GitLab and Gitea look for CODEOWNERS: the rules that protect the
/// records directory, on which the trust of the head's records rests.
pub(crate) const CODEOWNERS_FILES: [&str; 4] = [
    "CODEOWNERS",
    ".github/CODEOWNERS",
    "docs/CODEOWNERS",
    ".gitlab/CODEOWNERS",
];

/// The largest policy file read: 1 MiB. A policy is a short hand-written file; a larger
/// one is refused before it is read in full or quoted back in an error.
pub const MAX_POLICY_BYTES: u64 = 1024 * 1024;

/// A text of the policy: borrowed from the program when the built-in defaults hold it,
/// owned when a policy file gave it (a run under the defaults copies none of their
/// ~1,000 rule ids, globs and regexes: the copies cost about 0.5 M instructions, half
/// git's whole diff of a one-line commit).
pub type PolicyText = Cow<'static, str>;

/// The effective policy: defaults with the policy file applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Policy {
    /// Where the policy came from.
    pub source: PolicySource,
    /// The records directory (meta-data: not counted, scoped or classified).
    pub records_dir: String,
    /// The handoff trail's directory, relative to the repository root, when the file
    /// sets one (the trail's default is `.handoff/trail`; `--trail DIR` overrides both).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trail_dir: Option<String>,
    /// Globs of paths the classifier ignores.
    pub exclude: Vec<String>,
    /// Whether copies are detected too (git's `-C`), not only renames.
    pub copies: bool,
    /// From which class a change with no Task Assignment is rejected (the roll-out).
    pub require_task: RequireTask,
    /// Findings the policy allows (reported as suppressed, never silent).
    pub allow: Vec<Allowance>,
    /// The baseline `check` and `classify` were given (`--baseline`), as the base has
    /// it: findings an earlier run reported (suppressed, never silent).
    #[serde(skip)]
    pub baseline: Option<crate::suppress::Baseline>,
    /// Every trigger with its effective rules, built-ins first, in report order.
    pub triggers: Vec<TriggerPolicy>,
    /// Evidence labels.
    pub evidence: EvidencePolicy,
    /// Reviewer roles.
    pub reviewers: ReviewerPolicy,
    /// The `--policy` file's path in the repository, when it lies inside it (as given:
    /// a link is the link, not its target).
    #[serde(skip)]
    pub override_in_repo: Option<String>,
}

/// Where a policy came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PolicySource {
    /// No policy file: the built-in defaults.
    Defaults,
    /// `.handoff.yaml` as committed in the base revision.
    Base {
        /// The base revision it was read from.
        rev: String,
    },
    /// A file given with `--policy`.
    File {
        /// Its path.
        path: PathBuf,
    },
}

impl fmt::Display for PolicySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicySource::Defaults => write!(f, "built-in defaults (no {POLICY_FILE} in the base)"),
            PolicySource::Base { rev } => write!(f, "{POLICY_FILE} at base {}", short(rev)),
            PolicySource::File { path } => write!(f, "{}", path.display()),
        }
    }
}

/// One trigger and its effective rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TriggerPolicy {
    /// The trigger's name, e.g. `auth`, or a custom trigger's name.
    pub name: PolicyText,
    /// What it looks for, in one line (`custom` for a custom trigger).
    #[serde(skip)]
    pub description: PolicyText,
    /// The class it raises a change to.
    pub class: RiskClass,
    /// Whether it is one of the nine built-in triggers.
    pub builtin: bool,
    /// Whether line rules also read removed lines.
    pub reads_removed_lines: bool,
    /// Whether matched text is a secret (redacted, placeholders ignored).
    pub secret: bool,
    /// Whether its path rules need a changed line of code in the file: a file whose every
    /// changed line is a comment or blank fires none of them (a comment changes no
    /// behaviour). Files without line changes (binary, a pure rename) still fire.
    pub needs_code_change: bool,
    /// The rules; any one firing fires the trigger.
    pub rules: Vec<Rule>,
}

/// A rule of a trigger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// The stable id, e.g. `auth.path.middleware`; policy-added rules are `…policy-N`.
    pub id: PolicyText,
    /// What it matches.
    #[serde(flatten)]
    pub matches: RuleMatch,
    /// Whether it is a default or comes from the policy file.
    pub from_policy: bool,
    /// Whether it reads test files (a test of a permission check changes no permission).
    pub reads_test_files: bool,
    /// For a line rule of a secret trigger: whether it reads code only, not comments (a
    /// reference to a credential by name, unlike a pasted key, means nothing in a comment).
    pub code_only: bool,
    /// The stack that enables it: `any`, a language (`python`, …) or a framework found
    /// in the base's manifests (`laravel`, `trpc`, …; docs/gate.md lists them).
    pub stack: PolicyText,
    /// For a line rule: whether its regex reads the definitions around each changed line
    /// of code (the lines that open the blocks it is in: `def csrf():`, `public int
    /// paySuccess(…) {`) rather than the changed line itself.
    pub scope: bool,
    /// For a line rule: whether its match must start in code, not in a string or a
    /// comment, where the file's language has a grammar (see docs/gate.md, "Code, strings
    /// and comments").
    pub in_code: bool,
    /// For a line rule: whether its regex reads the key path of each changed line of a
    /// configuration file (`Deployment/spec.template.spec.containers.-.env.-.name`)
    /// rather than the line (see docs/gate.md, "Configuration read as data").
    pub data: bool,
    /// For a line rule: whether its regex reads the whole file a changed line of code is
    /// in (any line of that side's version), not the changed line: a configuration module
    /// that reads the environment makes every default it holds an environment setting
    /// (see docs/gate.md, "Scope rules: the definitions around a change").
    pub file_scope: bool,
}

impl Rule {
    /// A rule of the policy file: reads every file, comments too for secret triggers.
    pub fn from_policy_file(id: String, matches: RuleMatch) -> Rule {
        Rule {
            id: id.into(),
            matches,
            from_policy: true,
            reads_test_files: true,
            code_only: false,
            stack: Cow::Borrowed("any"),
            scope: false,
            in_code: false,
            data: false,
            file_scope: false,
        }
    }
}

/// What a rule matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RuleMatch {
    /// Any touched path matching one of the globs.
    Paths {
        /// .gitignore-style globs.
        globs: Vec<PolicyText>,
    },
    /// A changed line matching the regex, in files matching `files` (all when empty).
    Line {
        /// The regex.
        regex: PolicyText,
        /// Globs restricting the files it reads.
        files: Vec<PolicyText>,
    },
}

/// Evidence labels per item id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidencePolicy {
    /// For each item id, the labels that name it: the defaults' (the seed's wording
    /// first), then the policy file's.
    pub aliases: BTreeMap<String, Vec<String>>,
    /// For each item id, the seed's wording, for messages.
    #[serde(skip)]
    pub wording: BTreeMap<String, String>,
}

impl EvidencePolicy {
    /// The seed's wording of the item `id` (the id itself when there is none).
    pub fn wording<'a>(&'a self, id: &'a str) -> &'a str {
        self.wording.get(id).map_or(id, String::as_str)
    }
}

/// Reviewer roles (seed: the "Reviewer" lines of each class).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewerPolicy {
    /// Medium risk, in order of preference (the next one when the first authored the work).
    pub medium: Vec<String>,
    /// High risk, in order of preference.
    pub high: Vec<String>,
    /// Reviews directly when every medium reviewer is unavailable.
    pub orchestrator: String,
    /// Roles that are not available to review.
    pub unavailable: Vec<String>,
}

impl Default for Policy {
    /// The built-in defaults (`defaults.yaml`).
    fn default() -> Policy {
        defaults::owned_defaults()
    }
}

impl Policy {
    /// Loads the policy: `override_path` when given, else `.handoff.yaml` from `base_rev`,
    /// else the defaults.
    pub fn load(
        repo: &Repo,
        base_rev: &str,
        override_path: Option<&Path>,
    ) -> Result<Policy, PolicyError> {
        if let Some(path) = override_path {
            let mut policy = Policy::read_file(path)?;
            policy.watch_override(repo, path);
            return Ok(policy);
        }
        match repo.read_file_at(&Head::Rev(base_rev.to_string()), POLICY_FILE)? {
            Some(bytes) => Policy::parse(
                &bytes,
                PolicySource::Base {
                    rev: base_rev.to_string(),
                },
            ),
            None => Policy::check_misnamed(repo, base_rev),
        }
    }

    /// The defaults, unless the base holds a policy under a name that is not read
    /// (`.handoff.yml`): a gate must not silently ignore its policy.
    fn check_misnamed(repo: &Repo, base_rev: &str) -> Result<Policy, PolicyError> {
        let base = Head::Rev(base_rev.to_string());
        match repo.read_file_at(&base, MISNAMED_POLICY_FILE)? {
            Some(_) => Err(PolicyError::InvalidFile {
                file: MISNAMED_POLICY_FILE.to_string(),
                message: format!("the policy file is read as `{POLICY_FILE}`; rename it"),
                at: Some(base_rev.to_string()),
            }),
            None => Ok(Policy::default()),
        }
    }

    /// Reads and parses a policy file on disk (`--policy`): a directory, a missing file
    /// or one over [`MAX_POLICY_BYTES`] is refused before it is read.
    pub fn read_file(path: &Path) -> Result<Policy, PolicyError> {
        let (bytes, source) = read_policy_bytes(path)?;
        Policy::parse(&bytes, source)
    }

    /// The `trail_dir` of the policy file at `path` (as checked out), `None` when it
    /// sets none. The file is read and checked as [`Policy::read_file`] reads it (every
    /// key and value, errors at their line), without merging it over the defaults, so a
    /// trail command pays for its own key only.
    pub fn read_trail_dir(path: &Path) -> Result<Option<String>, PolicyError> {
        let (bytes, source) = read_policy_bytes(path)?;
        let context = ErrorContext::of(&source);
        let text = std::str::from_utf8(&bytes).map_err(|error| context.not_utf8(&bytes, &error))?;
        let parsed: Option<PolicyFile> = context.read_yaml(text)?;
        Ok(parsed.and_then(|file| file.trail_dir).map(|dir| dir.0))
    }

    /// Parses policy file content over the defaults; `source` names it in errors.
    pub fn parse(bytes: &[u8], source: PolicySource) -> Result<Policy, PolicyError> {
        if bytes.len() as u64 > MAX_POLICY_BYTES {
            return Err(too_large(&source, bytes.len() as u64));
        }
        let context = ErrorContext::of(&source);
        let text = std::str::from_utf8(bytes).map_err(|error| context.not_utf8(bytes, &error))?;
        let parsed: Option<PolicyFile> = context.read_yaml(text)?;
        let mut policy = Policy {
            source,
            ..Policy::default()
        };
        policy.apply(parsed.unwrap_or_default(), text, &context)?;
        Ok(policy)
    }

    /// When the `--policy` file lies inside the repository, changing it fires `policy`
    /// too (rule `policy.path.override`): the change may be editing the file it is
    /// judged by.
    fn watch_override(&mut self, repo: &Repo, path: &Path) {
        let Ok(root) = repo.root().canonicalize() else {
            return;
        };
        // The path as given (its directory resolved, the file itself not followed), so a
        // link put in its place is still the policy path.
        let as_given = path
            .parent()
            .map(|dir| {
                if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                }
            })
            .and_then(|dir| dir.canonicalize().ok())
            .zip(path.file_name())
            .map(|(dir, name)| dir.join(name));
        let relative = |full: &Path| {
            full.strip_prefix(&root)
                .ok()
                .and_then(Path::to_str)
                .map(str::to_string)
        };
        self.override_in_repo = as_given.as_deref().and_then(relative);
        let Some(target) = path.canonicalize().ok().as_deref().and_then(relative) else {
            return;
        };
        let Some(trigger) = self
            .triggers
            .iter_mut()
            .find(|t| t.name == Trigger::Policy.as_str())
        else {
            return;
        };
        trigger.rules.push(Rule {
            from_policy: false,
            ..Rule::from_policy_file(
                OVERRIDE_RULE.to_string(),
                RuleMatch::Paths {
                    globs: vec![literal_rule_glob(&target).into()],
                },
            )
        });
    }

    /// Whether `path` is one of the gate's own files, which fire `policy` whatever the
    /// policy says: `.handoff.yaml` and every path a later run would read or refuse as
    /// the policy (`.handoff.yml`, anything under a directory of those names), the
    /// in-repository `--policy` file, the `--baseline` file, and the CODEOWNERS files that protect the records
    /// directory. (The CI workflows that run the gate are told by their content; see
    /// the classifier.)
    pub fn is_gate_file(&self, path: &RepoPath) -> bool {
        let Some(path) = path.as_str() else {
            return false;
        };
        [POLICY_FILE, MISNAMED_POLICY_FILE].iter().any(|name| {
            path == *name
                || path
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with('/'))
        }) || CODEOWNERS_FILES.contains(&path)
            || self.override_in_repo.as_deref() == Some(path)
            || self.baseline.as_ref().and_then(|b| b.in_repo.as_deref()) == Some(path)
    }

    /// The trigger named `name`.
    pub fn trigger(&self, name: &str) -> Option<&TriggerPolicy> {
        self.triggers.iter().find(|trigger| trigger.name == name)
    }

    /// Whether `path` is meta-data, never counted, scoped or classified by path: a
    /// Markdown file (a record file) in the records directory, unless it is one of the
    /// gate's own files. Every other file there (code, a submodule, a build include) is
    /// a path like any other.
    pub fn is_meta(&self, path: &RepoPath) -> bool {
        path.is_under(&self.records_dir)
            && path.as_str().is_some_and(|name| {
                Path::new(name)
                    .extension()
                    .is_some_and(|ext| ext.eq_ignore_ascii_case("md"))
            })
            && !self.is_gate_file(path)
    }
}

/// A policy file on disk: a directory, a missing file or one over [`MAX_POLICY_BYTES`]
/// is refused before it is read.
fn read_policy_bytes(path: &Path) -> Result<(Vec<u8>, PolicySource), PolicyError> {
    let source = PolicySource::File {
        path: path.to_path_buf(),
    };
    match read_capped(path, MAX_POLICY_BYTES) {
        Ok(bytes) => Ok((bytes, source)),
        Err(InputError::TooLarge { size, .. }) => Err(too_large(&source, size)),
        Err(error) => {
            let message = match error {
                _ if path.is_dir() => "it is a directory".to_string(),
                InputError::Unreadable { source, .. } => source.to_string(),
                other => other.to_string(),
            };
            let path = path.to_path_buf();
            Err(PolicyError::Unreadable { path, message })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Policy, PolicyError> {
        Policy::parse(
            text.as_bytes(),
            PolicySource::File {
                path: PathBuf::from("policy.yaml"),
            },
        )
    }

    fn error_text(text: &str) -> String {
        match parse(text) {
            Ok(policy) => panic!("expected an error, got {policy:?}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn an_empty_file_means_the_defaults() {
        let policy = parse("# nothing yet\n").unwrap();
        assert_eq!(policy.triggers, Policy::default().triggers);
        assert_eq!(policy.records_dir, ".handoff");
        assert_eq!(
            policy.reviewers.high,
            ["reality-checker", "security-engineer"]
        );
    }

    #[test]
    fn every_key_is_applied() {
        let policy = parse(
            "records_dir: meta/records/\n\
             exclude: [vendor/, '*.lock']\n\
             triggers:\n  auth:\n    add_paths: ['src/guards/**']\n    remove_paths: [auth.path.session, '*.guard.{ts,js}']\n    add_lines: ['checkAccess\\(']\n    remove_lines: [auth.line.js]\n\
             custom_triggers:\n  - name: infra\n    class: high\n    paths: ['terraform/']\n\
             evidence:\n  aliases:\n    rollback-plan: [undo plan]\n\
             reviewers:\n  high: [security-engineer]\n  unavailable: [qa-engineer]\n",
        )
        .unwrap();
        assert_eq!(policy.records_dir, "meta/records");
        assert_eq!(policy.exclude, ["vendor/", "*.lock"]);
        let auth = policy.trigger("auth").unwrap();
        let ids: Vec<&str> = auth.rules.iter().map(|rule| &*rule.id).collect();
        assert!(!ids.contains(&"auth.path.session") && !ids.contains(&"auth.line.js"));
        assert!(
            ids.contains(&"auth.path.token"),
            "the rest of the rule stays"
        );
        assert!(ids.contains(&"auth.path.policy-1") && ids.contains(&"auth.line.policy-1"));
        let permissions = auth
            .rules
            .iter()
            .find(|rule| rule.id == "auth.path.permissions")
            .unwrap();
        let RuleMatch::Paths { globs } = &permissions.matches else {
            panic!("a path rule: {permissions:?}");
        };
        assert!(!globs.iter().any(|glob| glob == "*.guard.{ts,js}") && globs.len() > 1);
        let infra = policy.trigger("infra").unwrap();
        assert_eq!((infra.class, infra.builtin), (RiskClass::High, false));
        assert_eq!(
            policy.evidence.aliases["rollback-plan"].last().unwrap(),
            "undo plan"
        );
        assert_eq!(policy.reviewers.high, ["security-engineer"]);
        assert_eq!(policy.reviewers.medium, ["qa-engineer", "reality-checker"]);
        assert_eq!(policy.reviewers.unavailable, ["qa-engineer"]);
    }

    #[test]
    fn unknown_keys_are_errors_with_the_line() {
        let message = error_text("records_dir: .handoff\ntriggers:\n  auth:\n    add_path: [x]\n");
        assert!(message.starts_with("policy.yaml:4:"), "{message}");
        assert!(message.contains("add_path"), "{message}");
        let message = error_text("exclud: [x]\n");
        assert!(message.starts_with("policy.yaml:1:"), "{message}");
    }

    #[test]
    fn bad_globs_regexes_and_names_are_errors_with_the_line() {
        let message =
            error_text("triggers:\n  auth:\n    add_lines:\n      - 'ok'\n      - '(unclosed'\n");
        assert!(message.starts_with("policy.yaml:5:"), "{message}");
        assert!(message.contains("invalid regex"), "{message}");
        let message = error_text("exclude:\n  - 'src/[z-a]'\n");
        assert!(
            message.starts_with("policy.yaml:2:") && message.contains("invalid glob"),
            "{message}"
        );
        let message = error_text("triggers:\n  authentication: {}\n");
        assert!(
            message.starts_with("policy.yaml:2:") && message.contains("unknown trigger"),
            "{message}"
        );
        let message =
            error_text("custom_triggers:\n  - name: infra\n    class: severe\n    paths: [x]\n");
        assert!(message.starts_with("policy.yaml:3:"), "{message}");
        let message = error_text("reviewers:\n  high: []\n");
        assert!(message.starts_with("policy.yaml:2:"), "{message}");
        let message = error_text("evidence:\n  aliases:\n    rollback: [undo]\n");
        assert!(
            message.starts_with("policy.yaml:3:") && message.contains("unknown evidence item"),
            "{message}"
        );
    }

    #[test]
    fn removing_a_rule_that_is_not_there_is_an_error_with_the_line() {
        let message = error_text("triggers:\n  auth:\n    remove_paths: [auth.path.sesion]\n");
        assert!(
            message.starts_with("policy.yaml:3:") && message.contains("auth.path.sesion"),
            "{message}"
        );
        let message =
            error_text("triggers:\n  payment:\n    remove_paths:\n      - auth.path.session\n");
        assert!(message.starts_with("policy.yaml:4:"), "{message}");
        assert!(
            message.contains("not a default rule of trigger `payment`"),
            "{message}"
        );
    }

    #[test]
    fn custom_triggers_must_be_new_and_match_something() {
        let message =
            error_text("custom_triggers:\n  - name: auth\n    class: high\n    paths: [x]\n");
        assert!(
            message.starts_with("policy.yaml:2:") && message.contains("built-in"),
            "{message}"
        );
        let message = error_text("custom_triggers:\n  - name: infra\n    class: high\n");
        assert!(
            message.starts_with("policy.yaml:2:") && message.contains("at least one"),
            "{message}"
        );
    }

    #[test]
    fn records_dir_must_stay_inside_the_repository() {
        assert!(error_text("records_dir: ../elsewhere\n").starts_with("policy.yaml:1:"));
        assert!(error_text("records_dir: /abs\n").contains("relative"));
    }

    #[test]
    fn meta_data_is_the_record_files_under_the_records_dir() {
        let policy = Policy::default();
        assert!(policy.is_meta(&RepoPath::from(".handoff/tasks/t.md")));
        assert!(policy.is_meta(&RepoPath::from(".handoff/T.MD")));
        assert!(!policy.is_meta(&RepoPath::from(".handoff.yaml")));
        // The records directory exempts records only.
        for other in [
            ".handoff/local.mk",
            ".handoff/tools",
            ".handoff/x.py",
            ".handoff/md",
        ] {
            assert!(!policy.is_meta(&RepoPath::from(other)), "{other}");
        }
        for own in [
            ".handoff.yml",
            ".handoff.yaml/x.md",
            "CODEOWNERS",
            ".github/CODEOWNERS",
        ] {
            assert!(policy.is_gate_file(&RepoPath::from(own)), "{own}");
        }
        assert!(!policy.is_gate_file(&RepoPath::from(".handoff.yaml.bak")));
    }
}
