//! Generated records for the audit tests and the audit benchmark.
//!
//! Record `i` is one of a fixed cycle of [`CYCLE`] shapes, each with a known result when
//! audited against `examples/registry`: a compliant decision, one decision per error
//! finding, and the other kinds the summary counts. Task IDs are unique (`GEN-<i>`).

/// How many record shapes the cycle has.
pub const CYCLE: usize = 8;

/// The Markdown of record `i`.
pub fn record(i: usize) -> String {
    let task = format!("GEN-{i}");
    match i % CYCLE {
        0 => routing(&task, "auth: [oauth2, pkce]", AUTH, "security-engineer", "Qualifier match: covers oauth2", "backend-engineer — qualifier-match", "qualifier-match"),
        // Department affinity picks fullstack-engineer for a frontend-engineer requester.
        1 => routing(&task, "backend: [node]", BACKEND, "fullstack-engineer", "Covers nodejs", "backend-engineer — qualifier mismatch; data-engineer — qualifier mismatch", "qualifier-match")
            .replace("| Tie-break", "| Requester | frontend-engineer |\n| Tie-break"),
        2 => routing(&task, "api-design: [rest]", API, "backend-engineer", "Has fewer current assignments", "fullstack-engineer — not picked", "documented-choice"),
        3 => routing(&task, "auth: [oauth2]", AUTH, "backend-engineer", "Wrote the middleware", "security-engineer — not picked", "documented-choice"),
        // Also a candidates-differ warning: the matched list is not the registry's.
        4 => routing(&task, "database: [postgres]", "frontend-engineer (database: [postgresql])", "frontend-engineer", "Only candidate", "none", "none"),
        5 => interaction(&task, "escalation", "medium", "### Request\n\nFailure Type: wrong-capability\nNeed: an agent with auth+oauth2\n\n### Decision\n\nApproved: rerouted.\n"),
        6 => interaction(&task, "consultation", "low", "### Request\n\nScope expansion: also update `docs/setup.md`.\n\n### Decision\n\nApproved.\n"),
        _ => interaction(&task, "review", "high", "### Evidence Bundle\n\n- File paths changed: src/a.rs\n- Test output mapped to acceptance criteria: t1 covers AC1\n- Security implications analysis: none\n- Rollback plan: git revert\n- Reviewer sign-off: below\n- Before/after behavior description: same\n\n### Decision\n\nApproved.\nReviewer: reality-checker\n"),
    }
}

/// `count` records in files of `per_file` records each, as `(name, text)`.
pub fn documents(count: usize, per_file: usize) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for start in (0..count).step_by(per_file.max(1)) {
        let end = (start + per_file.max(1)).min(count);
        let text: Vec<String> = (start..end).map(record).collect();
        files.push((format!("generated/{start:06}.md"), text.join("\n")));
    }
    files
}

const AUTH: &str = "security-engineer (auth: [oauth2, jwt, saml, session]), backend-engineer (auth: [jwt, session, middleware])";
const BACKEND: &str = "backend-engineer (backend: [nodejs, python]), data-engineer (backend: [python]), fullstack-engineer (backend: [nodejs, python])";
const API: &str = "backend-engineer (api-design: [rest, graphql]), fullstack-engineer (api-design: [rest, graphql])";

fn routing(
    task: &str,
    capability: &str,
    matched: &str,
    selected: &str,
    reason: &str,
    rejected: &str,
    rule: &str,
) -> String {
    format!(
        "## Routing Decision\n\n| Field | Value |\n|---|---|\n| Task ID | {task} |\n| Requested capability | {capability} |\n| Matched agents | {matched} |\n| Selected | {selected} |\n| Reason | {reason} |\n| Rejected | {rejected} |\n| Tie-break rule applied | {rule} |\n"
    )
}

fn interaction(task: &str, kind: &str, risk: &str, sections: &str) -> String {
    format!(
        "## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | {task} |\n| Type | {kind} |\n| From | backend-engineer |\n| To | enterprise-orchestrator |\n| Transport | orchestrator-mediated |\n| Risk Class | {risk} |\n\n{sections}"
    )
}
