//! A change with no Task Assignment at all: the adoption change and the roll-out.
//!
//! With no assignment the gate has no scope, author or criteria to judge against, so it
//! reports what it would require (the class, its evidence items, its reviewer) and
//! decides by two rules only, both read from the base:
//!
//! - **The adoption change** (see [`adopts_gate`]): the base has no policy file and no
//!   records, and the change adds `.handoff.yaml` and touches nothing but the gate's own
//!   setup (the policy file, CODEOWNERS, workflows under `.github/workflows/` that run the
//!   gate, the records directory). It passes at its real class with a warning: nothing was in force to judge
//!   it by, and a policy it adds applies from the next change on.
//! - **The roll-out**: otherwise the policy's `require_task` decides: a change whose class
//!   it covers is rejected (`task-required`), any other passes with a warning
//!   (`no-task-assignment`) that says what the gate would require.
//!
//! A change cannot reach either path by hiding an assignment: the base's records are read
//! at the base, and any assignment anywhere selects a task judged in full.

use super::task::{Origin, Sourced};
use super::{ChangedPath, Outcome, Verdict};
use crate::diagnostic::{Diagnostic, GateCode};
use crate::policy::{Policy, PolicySource, CODEOWNERS_FILES, POLICY_FILE};
use crate::risk::Finding;
use crate::scope::Touch;

/// Decides the verdict of a change with no Task Assignment: `verdict` is the gate's
/// verdict for an empty task (what the class would require), `files` the change's files.
pub(super) fn without_task(
    mut verdict: Verdict,
    files: &[ChangedPath],
    records: &[Sourced],
    policy: &Policy,
) -> Verdict {
    let class = verdict.risk.class;
    let required = would_require(&verdict);
    let problem = if adopts_gate(files, &verdict.risk.findings, records, policy) {
        Diagnostic::new(
            GateCode::AdoptsGate,
            format!(
                "the change adopts the gate: the base has no {POLICY_FILE} and no records, and \
                 the change adds {POLICY_FILE} and touches only the gate's own setup; it \
                 passes at {class} risk without a Task Assignment. Review it as any {class}-risk \
                 change: from the next change on, its policy applies"
            ),
        )
        .in_file(POLICY_FILE)
    } else if policy.require_task.requires(class) {
        Diagnostic::new(
            GateCode::TaskRequired,
            format!(
                "the change has no Task Assignment, which the policy requires at {class} risk \
                 (require_task: {}); with one, the gate would require {required}. File the \
                 orchestrator's assignment (`handoff new task-assignment --task ID --to AGENT \
                 --scope 'PATTERN,...' -o {}/ID.md`) on the target branch, or pass --task ID",
                policy.require_task, policy.records_dir
            ),
        )
    } else {
        Diagnostic::new(
            GateCode::NoTaskAssignment,
            format!(
                "the change has no Task Assignment, not required at {class} risk during the \
                 roll-out (require_task: {}); with one, the gate would require {required}",
                policy.require_task
            ),
        )
    };
    verdict.verdict = if problem.is_error() {
        Outcome::Reject
    } else {
        Outcome::Pass
    };
    verdict.problems = vec![problem];
    verdict
}

/// What a task of the verdict's class would need: its evidence items and its reviewer.
fn would_require(verdict: &Verdict) -> String {
    let items: Vec<&str> = verdict
        .evidence
        .required
        .iter()
        .map(|i| i.as_str())
        .collect();
    let reviewer = match &verdict.reviewer.required {
        Some(role) => format!("; review by {role}"),
        None => String::new(),
    };
    format!("an evidence bundle with {}{reviewer}", items.join(", "))
}

/// Whether the change is the one that adopts the gate: the base has neither a policy
/// file (and no `--policy` replaces it) nor records, and the change adds the policy file
/// and touches only the gate's setup files. A deletion or a rename out of any other file
/// is not setup.
fn adopts_gate(
    files: &[ChangedPath],
    findings: &[Finding],
    records: &[Sourced],
    policy: &Policy,
) -> bool {
    let nothing_at_base = policy.source == PolicySource::Defaults
        && records.iter().all(|sourced| sourced.origin != Origin::Base);
    let adds_policy = files
        .iter()
        .any(|file| file.path == POLICY_FILE && file.touch == Touch::Added);
    let runs_gate = |path: &str| {
        findings.iter().any(|f| {
            f.trigger == "policy" && f.path.as_ref().is_some_and(|p| p.to_string_lossy() == path)
        })
    };
    let setup = |path: &str| is_setup_file(path, runs_gate(path));
    let only_setup = files.iter().all(|file| {
        file.touch != Touch::Deleted
            && setup(&file.path)
            && file.old_path.as_deref().is_none_or(setup)
    });
    nothing_at_base && adds_policy && only_setup
}

/// The files an adoption change may hold besides records: the policy file, a
/// CODEOWNERS file, a workflow that runs the gate (`runs_gate`: the classifier's `policy`
/// trigger fired on it).
fn is_setup_file(path: &str, runs_gate: bool) -> bool {
    let workflow = path.strip_prefix(".github/workflows/").is_some_and(|name| {
        !name.contains('/') && (name.ends_with(".yml") || name.ends_with(".yaml"))
    });
    path == POLICY_FILE || CODEOWNERS_FILES.contains(&path) || (workflow && runs_gate)
}
