//! File scope: which changed files a task was allowed to touch.
//!
//! The orchestrator gives every task an `Expected file scope` at dispatch. On completion
//! every changed file must either match that scope or be named by a scope-expansion
//! record for the same task whose Decision is `approved` — by the orchestrator or a
//! designated reviewer, never by the agent who asked (peers may propose, not commit).
//!
//! Patterns are the scope dialect of [`crate::pattern`] (anchored at the repository root,
//! `dir/` a directory, case-sensitive); many are compiled into one
//! [`PatternSet`], so a 5,000-file change is matched in one pass.

use crate::identity::same_agent;
use crate::pattern::{PatternError, PatternSet};
use std::collections::HashMap;
use std::fmt;

/// How a change touched a path. A rename touches both of its paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Touch {
    /// Added in the change (in working-tree mode, untracked files too).
    Added,
    /// Modified (content, mode or type).
    Modified,
    /// Deleted.
    Deleted,
    /// The old side of a rename; the file now lives at `to`.
    RenamedTo(String),
    /// The new side of a rename from the given path.
    RenamedFrom(String),
}

impl fmt::Display for Touch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Touch::Added => f.write_str("added"),
            Touch::Modified => f.write_str("modified"),
            Touch::Deleted => f.write_str("deleted"),
            Touch::RenamedTo(to) => write!(f, "renamed to {to}"),
            Touch::RenamedFrom(from) => write!(f, "renamed from {from}"),
        }
    }
}

/// One path the change touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TouchedPath {
    /// Repository-relative path with `/` separators.
    pub path: String,
    /// How it was touched.
    pub touch: Touch,
}

/// What became of a scope-expansion request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpansionDecision {
    /// The Decision says `approved`; `by` is the one who decided.
    Approved {
        /// The decider (the Decision's `Reviewer:` line, else the record's `To`).
        by: String,
    },
    /// The Decision refuses it (`rejected`, `changes-requested`).
    Refused {
        /// The decision status as written in canonical form.
        status: String,
    },
    /// No decision yet (`pending`, `deferred`, or no Decision section).
    Undecided {
        /// The decision status in canonical form.
        status: String,
    },
}

/// A scope-expansion record of the task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpansionRequest {
    /// The paths (or patterns) the request names.
    pub paths: Vec<String>,
    /// The agent who asked: the record's `From`.
    pub requested_by: String,
    /// Its Decision.
    pub decision: ExpansionDecision,
    /// The file the record is in.
    pub source: String,
    /// The line of the record's heading.
    pub line: usize,
}

/// Whether an expansion request grants its paths, and if not why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// Approved by someone with the authority to approve it.
    Granted {
        /// Who approved it.
        by: String,
    },
    /// Approved by the agent who asked for it: not honoured.
    SelfApproved,
    /// Approved by a peer who is neither the orchestrator nor a designated reviewer.
    NotAuthorised {
        /// The peer.
        by: String,
    },
    /// Refused.
    Refused(String),
    /// Not decided yet.
    Undecided(String),
}

impl fmt::Display for Standing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Standing::Granted { by } => write!(f, "approved by {by}"),
            Standing::SelfApproved => {
                f.write_str("approved by the agent who asked for it, which does not count")
            }
            Standing::NotAuthorised { by } => write!(
                f,
                "approved by {by}, who is neither the orchestrator nor a designated reviewer"
            ),
            Standing::Refused(status) => write!(f, "its Decision is `{status}`"),
            Standing::Undecided(status) => {
                write!(f, "its Decision is `{status}`: not approved yet")
            }
        }
    }
}

impl ExpansionRequest {
    /// Judges this request: `may_approve` says whether a name is the orchestrator or a
    /// designated reviewer.
    pub fn standing(&self, may_approve: &dyn Fn(&str) -> bool) -> Standing {
        match &self.decision {
            ExpansionDecision::Approved { by } if same_agent(by, &self.requested_by) => {
                Standing::SelfApproved
            }
            ExpansionDecision::Approved { by } if !may_approve(by) => {
                Standing::NotAuthorised { by: by.clone() }
            }
            ExpansionDecision::Approved { by } => Standing::Granted { by: by.clone() },
            ExpansionDecision::Refused { status } => Standing::Refused(status.clone()),
            ExpansionDecision::Undecided { status } => Standing::Undecided(status.clone()),
        }
    }
}

/// The patterns that match every path (`**`, `**/*`, `/`, `./`): a scope must bound
/// something. Only patterns without a letter or digit can (a name bounds them), and only
/// those are compiled again, all in one set, so a long list costs one pass.
pub fn unbounded_patterns(patterns: &[String]) -> Vec<String> {
    const PROBES: [&str; 4] = ["a", ".a", "a/b/c.d", "Z/.y/z"];
    let normalised = |pattern: &str| -> String {
        pattern
            .trim()
            .trim_start_matches("./")
            .trim_start_matches('/')
            .to_string()
    };
    let candidates: Vec<&String> = patterns
        .iter()
        .filter(|pattern| !pattern.chars().any(char::is_alphanumeric))
        .collect();
    let mut distinct: Vec<String> = candidates.iter().map(|p| normalised(p)).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let (set, _) = PatternSet::new(&distinct);
    let mut hits: HashMap<&str, usize> = HashMap::new();
    for probe in PROBES {
        for pattern in set.matching(probe) {
            *hits.entry(pattern).or_default() += 1;
        }
    }
    candidates
        .into_iter()
        .filter(|pattern| {
            let normalised = normalised(pattern);
            normalised.is_empty()
                || normalised == "."
                || hits.get(normalised.as_str()) == Some(&PROBES.len())
        })
        .cloned()
        .collect()
}

/// What the fix command for an undeclared file is filled in with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixContext {
    /// The task's ID.
    pub task_id: String,
    /// The agent doing the work (who must ask).
    pub author: String,
    /// Whom to ask: the orchestrator.
    pub orchestrator: String,
    /// Where records live (`.handoff`), so the new record is read by the next check.
    pub records_dir: String,
}

/// A changed file covered by an approved expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    /// The file.
    pub path: String,
    /// Where the approving record is.
    pub source: String,
    /// The line of its heading.
    pub line: usize,
    /// Who approved it.
    pub approved_by: String,
}

/// A changed file outside the declared scope with no approved expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undeclared {
    /// The file.
    pub path: String,
    /// How the change touched it.
    pub touch: Touch,
    /// Expansion requests that name it but do not grant it: `(source, line, why)`.
    pub requests: Vec<(String, usize, Standing)>,
    /// The command that files the record this file needs.
    pub fix: String,
}

/// The outcome of checking a change against a task's scope.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScopeReport {
    /// Touched paths covered by the declared scope.
    pub declared: Vec<String>,
    /// Touched paths covered only by an approved expansion.
    pub expanded: Vec<Expanded>,
    /// Touched paths covered by neither.
    pub undeclared: Vec<Undeclared>,
    /// Declared or requested patterns that do not compile.
    pub pattern_errors: Vec<PatternError>,
}

impl ScopeReport {
    /// Whether every touched path is in scope and every pattern compiled.
    pub fn passes(&self) -> bool {
        self.undeclared.is_empty() && self.pattern_errors.is_empty()
    }
}

/// Checks touched paths against a task's declared scope and its expansion requests.
pub struct ScopeCheck<'a> {
    /// The task's `Expected file scope` patterns.
    pub declared: &'a [String],
    /// The task's scope-expansion records.
    pub requests: &'a [ExpansionRequest],
    /// Whether a name is the orchestrator or a designated reviewer.
    pub may_approve: &'a dyn Fn(&str) -> bool,
    /// What the fix commands are filled in with.
    pub fix: &'a FixContext,
}

/// An expansion request compiled for matching, with its standing.
struct JudgedRequest<'r> {
    request: &'r ExpansionRequest,
    standing: Standing,
}

/// Every request's paths compiled into one set, each with the request that names it: a
/// path is matched once, whatever the number of requests.
struct RequestPatterns {
    set: PatternSet,
    /// The request of each path of the set.
    owners: Vec<usize>,
}

impl RequestPatterns {
    fn new(requests: &[ExpansionRequest]) -> (RequestPatterns, Vec<crate::pattern::PatternError>) {
        let mut paths: Vec<&str> = Vec::new();
        let mut owners = Vec::new();
        for (index, request) in requests.iter().enumerate() {
            for path in &request.paths {
                paths.push(path);
                owners.push(index);
            }
        }
        let (set, errors) = PatternSet::new(&paths);
        (RequestPatterns { set, owners }, errors)
    }

    /// The indices of the requests that name `path`, in request order.
    fn naming(&self, path: &str) -> Vec<usize> {
        // The set's indices are in order, and so are the requests that own them.
        let mut indices: Vec<usize> = self
            .set
            .matching_indices(path)
            .into_iter()
            .map(|index| self.owners[index])
            .collect();
        indices.dedup();
        indices
    }
}

impl ScopeCheck<'_> {
    /// Runs the check over every touched path (deduplicated by path).
    pub fn run(&self, touched: &[TouchedPath]) -> ScopeReport {
        let (declared, mut pattern_errors) = PatternSet::new(self.declared);
        let (patterns, errors) = RequestPatterns::new(self.requests);
        pattern_errors.extend(errors);
        let judged: Vec<JudgedRequest> = self
            .requests
            .iter()
            .map(|request| JudgedRequest {
                request,
                standing: request.standing(self.may_approve),
            })
            .collect();
        let mut report = ScopeReport {
            pattern_errors,
            ..ScopeReport::default()
        };
        let mut seen = std::collections::HashSet::new();
        for entry in touched {
            if seen.insert(entry.path.as_str()) {
                let naming: Vec<&JudgedRequest> = patterns
                    .naming(&entry.path)
                    .into_iter()
                    .map(|index| &judged[index])
                    .collect();
                self.place(entry, &declared, &naming, &mut report);
            }
        }
        report
    }

    /// Puts one touched path in the declared, expanded or undeclared list.
    fn place(
        &self,
        entry: &TouchedPath,
        declared: &PatternSet,
        naming: &[&JudgedRequest],
        report: &mut ScopeReport,
    ) {
        if declared.is_match(&entry.path) {
            report.declared.push(entry.path.clone());
            return;
        }
        let granted = naming.iter().find_map(|judged| match &judged.standing {
            Standing::Granted { by } => Some((judged.request, by)),
            _ => None,
        });
        if let Some((request, by)) = granted {
            report.expanded.push(Expanded {
                path: entry.path.clone(),
                source: request.source.clone(),
                line: request.line,
                approved_by: by.clone(),
            });
            return;
        }
        report.undeclared.push(Undeclared {
            path: entry.path.clone(),
            touch: entry.touch.clone(),
            requests: naming
                .iter()
                .map(|judged| {
                    let request = judged.request;
                    (
                        request.source.clone(),
                        request.line,
                        judged.standing.clone(),
                    )
                })
                .collect(),
            fix: fix_command(self.fix, &entry.path),
        });
    }
}

/// The `handoff new scope-expansion` command that files the record `path` needs, in
/// the records directory. The agent then replaces the `[reason]` placeholder and the
/// orchestrator fills the Decision.
pub fn fix_command(fix: &FixContext, path: &str) -> String {
    let slug: String = path
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let task: String = fix
        .task_id
        .to_lowercase()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "-");
    let output = format!(
        "{}/{task}-scope-{slug}.md",
        fix.records_dir.trim_end_matches('/')
    );
    format!(
        "handoff new scope-expansion --task {} --from {} --to {} --path {} --output {}",
        shell_quote(&fix.task_id),
        shell_quote(&fix.author),
        shell_quote(&fix.orchestrator),
        shell_quote(path),
        shell_quote(&output),
    )
}

/// Quotes `text` for a POSIX shell when it holds anything but safe characters.
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c));
    if safe {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_that_matches_every_path_is_unbounded() {
        let patterns: Vec<String> = [
            "**", "**/*", "/", "./", "**/**", " ** ", "src/", "*", "*/**", "**/*.rs",
        ]
        .iter()
        .map(|p| p.to_string())
        .collect();
        assert_eq!(
            unbounded_patterns(&patterns),
            ["**", "**/*", "/", "./", "**/**", " ** "]
        );
    }

    fn touched(path: &str) -> TouchedPath {
        TouchedPath {
            path: path.to_string(),
            touch: Touch::Modified,
        }
    }

    fn request(path: &str, decision: ExpansionDecision) -> ExpansionRequest {
        ExpansionRequest {
            paths: vec![path.to_string()],
            requested_by: "backend-engineer".to_string(),
            decision,
            source: ".handoff/eng-1.md".to_string(),
            line: 7,
        }
    }

    fn approved(by: &str) -> ExpansionDecision {
        ExpansionDecision::Approved { by: by.to_string() }
    }

    fn check(declared: &[&str], requests: &[ExpansionRequest], paths: &[&str]) -> ScopeReport {
        let declared: Vec<String> = declared.iter().map(|p| p.to_string()).collect();
        let fix = FixContext {
            task_id: "ENG-1".to_string(),
            author: "backend-engineer".to_string(),
            orchestrator: "orchestrator".to_string(),
            records_dir: ".handoff/".to_string(),
        };
        let may_approve = |name: &str| name == "orchestrator" || name == "reality-checker";
        let touched: Vec<TouchedPath> = paths.iter().map(|p| touched(p)).collect();
        ScopeCheck {
            declared: &declared,
            requests,
            may_approve: &may_approve,
            fix: &fix,
        }
        .run(&touched)
    }

    #[test]
    fn declared_files_pass() {
        let report = check(&["src/auth/"], &[], &["src/auth/a.ts", "src/auth/b.ts"]);
        assert!(report.passes());
        assert_eq!(report.declared, ["src/auth/a.ts", "src/auth/b.ts"]);
    }

    #[test]
    fn an_undeclared_file_gets_the_command_that_files_its_record() {
        let report = check(&["src/auth/"], &[], &["src/auth/a.ts", "src/cors.ts"]);
        assert!(!report.passes());
        assert_eq!(report.undeclared.len(), 1);
        assert_eq!(
            report.undeclared[0].fix,
            "handoff new scope-expansion --task ENG-1 --from backend-engineer \
             --to orchestrator --path src/cors.ts --output .handoff/eng-1-scope-src-cors-ts.md"
        );
    }

    #[test]
    fn an_approved_expansion_covers_its_path() {
        let requests = [request("src/cors.ts", approved("orchestrator"))];
        let report = check(&["src/auth/"], &requests, &["src/cors.ts"]);
        assert!(report.passes());
        assert_eq!(report.expanded[0].approved_by, "orchestrator");
        assert_eq!(report.expanded[0].line, 7);
    }

    #[test]
    fn expansions_that_do_not_grant_are_named_with_the_reason() {
        let cases = [
            (approved("Backend-Engineer"), Standing::SelfApproved),
            (
                approved("frontend-engineer"),
                Standing::NotAuthorised {
                    by: "frontend-engineer".to_string(),
                },
            ),
            (
                ExpansionDecision::Refused {
                    status: "rejected".to_string(),
                },
                Standing::Refused("rejected".to_string()),
            ),
            (
                ExpansionDecision::Undecided {
                    status: "pending".to_string(),
                },
                Standing::Undecided("pending".to_string()),
            ),
        ];
        for (decision, standing) in cases {
            let requests = [request("src/cors.ts", decision)];
            let report = check(&["src/auth/"], &requests, &["src/cors.ts"]);
            assert!(!report.passes());
            assert_eq!(report.undeclared[0].requests[0].2, standing);
        }
    }

    #[test]
    fn an_expansion_for_another_path_does_not_help() {
        let requests = [request("src/other.ts", approved("orchestrator"))];
        let report = check(&[], &requests, &["src/cors.ts"]);
        assert_eq!(report.undeclared.len(), 1);
        assert!(report.undeclared[0].requests.is_empty());
    }

    #[test]
    fn a_pattern_that_does_not_compile_fails_even_when_every_file_is_covered() {
        let report = check(&["src/[", "src/"], &[], &["src/a.rs"]);
        assert_eq!(report.declared, ["src/a.rs"]);
        assert_eq!(report.pattern_errors.len(), 1);
        assert_eq!(report.pattern_errors[0].pattern, "src/[");
        assert!(!report.passes());

        let requests = [request("docs/[", approved("orchestrator"))];
        let report = check(&["src/"], &requests, &["src/a.rs"]);
        assert_eq!(report.pattern_errors.len(), 1);
        assert_eq!(report.pattern_errors[0].pattern, "docs/[");
        assert!(!report.passes());
    }

    #[test]
    fn fix_commands_quote_awkward_paths() {
        assert_eq!(shell_quote("src/a b.rs"), "'src/a b.rs'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("src/a.rs"), "src/a.rs");
        assert_eq!(shell_quote(""), "''");
    }
}
