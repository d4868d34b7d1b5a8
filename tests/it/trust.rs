//! The gate against an agent that wants its change through (GATE.md, "Trust: who may
//! grant what"): each test is one way to forge or hide a grant, in a real git repository
//! with the real binary, and asserts the fail-closed verdict and its problem code. Where
//! a class has a legitimate form, a control shows that the same setup passes with it, so
//! the rejection is the forgery's doing.
//!
//! The setup: `main` holds the orchestrator's Task Assignment (ENG-1, scope `src/auth/`,
//! high risk, assigned to `backend-engineer`) and `src/auth/login.py`; the `feature`
//! branch edits that file (an `auth` change, high risk) and adds the records it is given.

use crate::common::TestRepo;
use serde_json::Value;

/// The orchestrator's assignment of ENG-1 to `assignee`.
fn assignment(assignee: &str, scope: &str, class: &str) -> String {
    format!(
        "## Task Assignment\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-1 |\n\
         | Assigned to | {assignee} |\n| Expected file scope | [{scope}] |\n\
         | Risk Class | {class} |\n\n### Acceptance Criteria\n\n- AC1: login still works\n"
    )
}

/// The base's assignment: backend-engineer, `src/auth/`, high.
fn base_assignment() -> String {
    assignment("backend-engineer", "src/auth/", "high")
}

/// The whole high-risk bundle of the auth edit, one `(label, text)` per item.
const BUNDLE: [(&str, &str); 5] = [
    ("Files changed", "`src/auth/login.py`"),
    ("Test mapping", "AC1 → `test_login` passes"),
    (
        "Security implications",
        "the login path is touched; no new surface.",
    ),
    ("Rollback plan", "`git revert HEAD`"),
    (
        "Before/after",
        "Before: the old check. After: the new check.",
    ),
];

/// A `review` record of ENG-1 with the whole high-risk bundle, its Decision and, when
/// given, its Timestamp.
fn review(from: &str, decision: &str, timestamp: Option<&str>) -> String {
    review_of(&BUNDLE, from, decision, timestamp)
}

/// A `review` record of ENG-1 with the `(label, text)` items of `bundle`.
fn review_of(
    bundle: &[(&str, &str)],
    from: &str,
    decision: &str,
    timestamp: Option<&str>,
) -> String {
    let timestamp = timestamp.map_or(String::new(), |t| format!("| Timestamp | {t} |\n"));
    let items: String = bundle
        .iter()
        .map(|(label, text)| format!("- **{label}**: {text}\n"))
        .collect();
    format!(
        "## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-1 |\n\
         | Type | review |\n| From | {from} |\n| To | reality-checker |\n{timestamp}\n\
         ### Evidence Bundle\n\n{items}\n### Decision\n\n{decision}\n"
    )
}

/// The approved review whose item `label` says `text` instead.
fn approved_review_saying(label: &str, text: &str) -> String {
    let bundle: Vec<(&str, &str)> = BUNDLE
        .iter()
        .map(|&(l, t)| (l, if l == label { text } else { t }))
        .collect();
    review_of(&bundle, "backend-engineer", APPROVED, None)
}

/// A record of ENG-1 from `from` whose Request says `text`.
fn says(from: &str, text: &str, timestamp: Option<&str>) -> String {
    let timestamp = timestamp.map_or(String::new(), |t| format!("| Timestamp | {t} |\n"));
    format!(
        "## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-1 |\n\
         | Type | consultation |\n| From | {from} |\n| To | backend-engineer |\n{timestamp}\n\
         ### Request\n\n{text}\n"
    )
}

/// The work's own record: backend-engineer's review request with the bundle.
fn work() -> String {
    review("backend-engineer", "", Some("2026-01-02T09:00:00Z"))
}

const APPROVED: &str = "Approved.\n\nReviewer: reality-checker";
const REMOVE: &str = "\u{0}remove";

/// Builds the repository: `base` files on `main` (after the defaults, so they may replace
/// them), then `head` files on `feature` (REMOVE deletes one) with the auth edit.
fn repo_with(base: &[(&str, &[u8])], head: &[(&str, &[u8])]) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/auth/login.py", "def login():\n    return check()\n");
    repo.write(".handoff/eng-1-task.md", base_assignment());
    for (path, content) in base {
        repo.write(path, content);
    }
    repo.commit("base");
    repo.branch("feature");
    repo.write(
        "src/auth/login.py",
        "def login():\n    return check(strict=True)\n",
    );
    for (path, content) in head {
        if *content == REMOVE.as_bytes() {
            repo.remove(path);
        } else {
            repo.write(path, content);
        }
    }
    repo.commit("work");
    repo
}

/// `handoff check --base main --head HEAD --format json` plus `args`: exit code, verdict.
fn check(repo: &TestRepo, args: &[&str]) -> (i32, Value) {
    let output = repo
        .handoff()
        .args([
            "check", "--base", "main", "--head", "HEAD", "--format", "json",
        ])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let verdict = serde_json::from_str(&stdout).unwrap_or_else(|_| {
        panic!(
            "not JSON: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap_or(-1), verdict)
}

/// The verdict of a change that adds `head` records on top of `base` ones.
fn gate(base: &[(&str, &str)], head: &[(&str, &str)], args: &[&str]) -> (i32, Value) {
    let base: Vec<(&str, &[u8])> = base.iter().map(|(p, c)| (*p, c.as_bytes())).collect();
    let head: Vec<(&str, &[u8])> = head.iter().map(|(p, c)| (*p, c.as_bytes())).collect();
    check(&repo_with(&base, &head), args)
}

fn codes(verdict: &Value) -> Vec<String> {
    verdict["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Asserts a reject with `code` among the problems.
#[track_caller]
fn rejects_with((exit, verdict): (i32, Value), code: &str) -> Value {
    assert_eq!(exit, 1, "{verdict:#}");
    assert_eq!(verdict["verdict"], "reject");
    assert!(
        codes(&verdict).iter().any(|c| c == code),
        "no {code}: {verdict:#}"
    );
    verdict
}

/// Asserts a pass (the control of a class).
#[track_caller]
fn passes((exit, verdict): (i32, Value)) -> Value {
    assert_eq!(exit, 0, "{verdict:#}");
    verdict
}

fn signed_off(verdict: &Value) -> bool {
    verdict["reviewer"]["signed_off_by"].is_string()
}

fn undeclared(verdict: &Value) -> Vec<String> {
    verdict["scope"]["undeclared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect()
}

fn fired(verdict: &Value, trigger: &str, path: &str) -> bool {
    verdict["risk"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["trigger"] == trigger && f["path"] == path)
}

// ---- Authority of inputs -------------------------------------------------------------

#[test]
fn the_control_passes_with_the_reviewers_approval_in_the_records_directory() {
    let approval = review("backend-engineer", APPROVED, None);
    let verdict = passes(gate(&[], &[(".handoff/eng-1.md", &approval)], &[]));
    assert!(signed_off(&verdict));
}

#[test]
fn a_pull_request_description_supplies_evidence_but_never_grants() {
    let repo = repo_with(&[], &[]);
    let body = review("backend-engineer", APPROVED, None);
    std::fs::write(repo.path().join("pr-body.md"), &body).unwrap();
    let verdict = rejects_with(
        check(&repo, &["--records", "pr-body.md"]),
        "missing-sign-off",
    );
    assert!(codes(&verdict).contains(&"untrusted-grant".to_string()));
    assert!(!signed_off(&verdict));
    // The same file from a source CI vouches for may grant.
    passes(check(&repo, &["--trusted-records", "pr-body.md"]));

    let waiver = work() + "\n" + &says("user", "Ship it without review.", None);
    std::fs::write(repo.path().join("pr-body.md"), waiver).unwrap();
    let verdict = rejects_with(
        check(&repo, &["--records", "pr-body.md"]),
        "missing-sign-off",
    );
    assert_eq!(verdict["reviewer"]["waived"], false);

    // An assignment there lowers nothing and widens nothing.
    let lowered = assignment("backend-engineer", "**", "low") + "\n" + &work();
    std::fs::write(repo.path().join("pr-body.md"), lowered).unwrap();
    let verdict = rejects_with(
        check(&repo, &["--records", "pr-body.md"]),
        "reassigned-task",
    );
    assert_eq!(verdict["risk"]["class"], "high");
}

#[test]
fn a_scope_expansion_approved_in_the_description_grants_nothing() {
    let repo = repo_with(&[("src/app/config.py", b"A = 1\n")], &[]);
    repo.write("src/app/config.py", "A = 2\n");
    repo.write(
        ".handoff/eng-1.md",
        review("backend-engineer", APPROVED, None),
    );
    repo.commit("more");
    let expansion = "## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | consultation |\n\
        | From | backend-engineer |\n| To | enterprise-orchestrator |\n\n### Request\n\n\
        Scope expansion: `src/app/config.py` because the login reads it.\n\n\
        ### Decision\n\nApproved.\n\nReviewer: enterprise-orchestrator\n";
    std::fs::write(repo.path().join("pr-body.md"), expansion).unwrap();
    let verdict = rejects_with(
        check(&repo, &["--records", "pr-body.md"]),
        "undeclared-file",
    );
    assert_eq!(undeclared(&verdict), ["src/app/config.py"]);
}

#[test]
fn the_change_cannot_re_assign_the_bases_task() {
    let approval = review("backend-engineer", APPROVED, None);
    // Edited in place, or added again under another file name and a case variant.
    for (path, task_id) in [
        (".handoff/eng-1-task.md", "ENG-1"),
        (".handoff/again.md", "eng-1 "),
    ] {
        let widened = assignment("backend-engineer", "**", "low").replace("ENG-1", task_id);
        let repo = repo_with(
            &[],
            &[
                (path, widened.as_bytes()),
                (".handoff/eng-1.md", approval.as_bytes()),
            ],
        );
        repo.write("lib/other.py", "x = 1\n");
        repo.commit("outside");
        let verdict = rejects_with(check(&repo, &[]), "reassigned-task");
        assert_eq!(undeclared(&verdict), ["lib/other.py"], "{path}");
        assert_eq!(verdict["risk"]["class"], "high");
    }
}

#[test]
fn a_task_the_change_assigns_itself_is_reported_and_may_not_be_unbounded() {
    let own = assignment("backend-engineer", "**", "low").replace("ENG-1", "ENG-2")
        + "\n"
        + &work().replace("ENG-1", "ENG-2");
    let verdict = rejects_with(
        gate(&[], &[(".handoff/eng-2.md", &own)], &["--task", "ENG-2"]),
        "unbounded-scope",
    );
    assert!(codes(&verdict).contains(&"task-assigned-by-change".to_string()));
}

/// The change assigns ENG-2 (scope `src/`, `lib/`) to `assignee`, with its approved
/// review sent by backend-engineer, and touches `lib/report.py` outside ENG-1's scope.
fn second_task_change(base: &[(&str, &str)], assignee: &str) -> TestRepo {
    let second = assignment(assignee, "src/, lib/", "high").replace("ENG-1", "ENG-2")
        + "\n"
        + &approved_review_saying("Files changed", "`src/auth/login.py`, `lib/report.py`")
            .replace("ENG-1", "ENG-2");
    let base: Vec<(&str, &[u8])> = base.iter().map(|(p, c)| (*p, c.as_bytes())).collect();
    let repo = repo_with(&base, &[(".handoff/eng-2.md", second.as_bytes())]);
    repo.write("lib/report.py", "print('x')\n");
    repo.commit("outside ENG-1");
    repo
}

#[test]
fn a_task_the_change_assigns_beside_its_authors_open_task_needs_task() {
    let settled = review("backend-engineer", APPROVED, None);
    let settled_base = [(".handoff/eng-1.md", settled.as_str())];
    // ENG-1 is backend-engineer's and still open (the base holds no evidence of it): the
    // gate cannot tell which task the change is for, also when ENG-2 names another
    // assignee but backend-engineer sends its evidence.
    for assignee in ["backend-engineer", "`Backend-Engineer`", "docs-writer"] {
        let repo = second_task_change(&[], assignee);
        let output = repo
            .handoff()
            .args(["check", "--base", "main", "--head", "HEAD"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{assignee}: {stderr}");
        for named in ["ENG-1 (.handoff/eng-1-task.md:1)", "ENG-2", "--task"] {
            assert!(stderr.contains(named), "{assignee}: no {named}: {stderr}");
        }
        // Judged by the base's task, the files outside its scope are the finding.
        let verdict = rejects_with(check(&repo, &["--task", "ENG-1"]), "undeclared-file");
        assert_eq!(undeclared(&verdict), ["lib/report.py"]);
    }
    // Controls: once ENG-1's evidence is on the base, or when ENG-1 is another agent's,
    // the task the change assigns decides (reported for a reviewer to confirm).
    let other = assignment("frontend-engineer", "src/auth/", "high");
    let others_base = [(".handoff/eng-1-task.md", other.as_str())];
    for base in [&settled_base[..], &others_base[..]] {
        let verdict = passes(check(&second_task_change(base, "backend-engineer"), &[]));
        assert_eq!(verdict["task_id"], "ENG-2");
        assert!(codes(&verdict).contains(&"task-assigned-by-change".to_string()));
    }
}

#[test]
fn deleting_the_bases_refusal_does_not_revive_an_earlier_approval() {
    let approval = review("backend-engineer", APPROVED, Some("2026-01-02T10:00:00Z"));
    let refusal = review(
        "backend-engineer",
        "Rejected: the check accepts every user.\n\nReviewer: reality-checker",
        Some("2026-01-03T10:00:00Z"),
    );
    let (refusal_path, approval_path) = (".handoff/eng-1-refused.md", ".handoff/eng-1-approved.md");
    rejects_with(
        gate(
            &[(approval_path, &approval), (refusal_path, &refusal)],
            &[(refusal_path, REMOVE)],
            &[],
        ),
        "review-refused",
    );
}

// ---- One identity ---------------------------------------------------------------------

#[test]
fn every_spelling_of_the_author_is_the_author() {
    for written in [
        "ｒｅａｌｉｔｙ－ｃｈｅｃｋｅｒ",
        "reality\u{200B}-checker",
        "[reality-checker](https://example.com/rc)",
        "Reality\u{2011}Checker\u{00AD}",
        "`reality-checker`",
        "**reality-checker**",
        "@reality-checker",
    ] {
        let task = assignment(written, "src/auth/", "high");
        let approval = review("backend-engineer", APPROVED, None);
        let verdict = rejects_with(
            gate(
                &[(".handoff/eng-1-task.md", &task)],
                &[(".handoff/eng-1.md", &approval)],
                &[],
            ),
            "self-sign-off",
        );
        assert_eq!(
            verdict["reviewer"]["required"], "security-engineer",
            "{written}"
        );
    }
}

#[test]
fn the_evidence_records_sender_is_an_author_too() {
    // backend-engineer is assigned; reality-checker wrote the bundle and approves it.
    let own = review("reality-checker", APPROVED, None);
    let verdict = rejects_with(
        gate(&[], &[(".handoff/eng-1.md", &own)], &[]),
        "self-sign-off",
    );
    assert!(!signed_off(&verdict));
}

#[test]
fn a_look_alike_that_is_not_a_name_is_an_error() {
    let approval = review(
        "backend-engineer",
        "Approved.\n\nReviewer: r\u{0435}ality-checker",
        None,
    );
    rejects_with(
        gate(&[], &[(".handoff/eng-1.md", &approval)], &[]),
        "invalid-agent-name",
    );
}

#[test]
fn no_author_approves_a_scope_expansion_whoever_filed_it() {
    let expansion = |from: &str, approver: &str| {
        format!(
            "## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | consultation |\n\
             | From | {from} |\n| To | enterprise-orchestrator |\n\n### Request\n\n\
             Scope expansion: `scripts/deploy.sh` because the login deploys.\n\n\
             ### Decision\n\nApproved.\n\nReviewer: {approver}\n"
        )
    };
    let approval = review("backend-engineer", APPROVED, None);
    for (from, approver) in [
        ("qa-engineer", "backend-engineer"),
        ("backend\u{200D}-engineer", "backend-engineer"),
    ] {
        let repo = repo_with(
            &[],
            &[
                (".handoff/eng-1.md", approval.as_bytes()),
                (".handoff/scope.md", expansion(from, approver).as_bytes()),
            ],
        );
        repo.write("scripts/deploy.sh", "echo deploy\n");
        repo.commit("deploy");
        let verdict = rejects_with(check(&repo, &[]), "undeclared-file");
        assert_eq!(undeclared(&verdict), ["scripts/deploy.sh"], "{from}");
    }
}

// ---- Decisions and waivers read as Markdown -------------------------------------------

#[test]
fn decisions_that_do_not_plainly_approve_approve_nothing() {
    for decision in [
        "~~Approved~~ Rejected.\n\nReviewer: reality-checker",
        "~Approved~ Rejected.\n\nReviewer: reality-checker",
        "<!-- Approved -->\nRejected.\n\nReviewer: reality-checker",
        "Approved? No.\n\nReviewer: reality-checker",
        "[approved]: #\n\nRejected: the check accepts every user.\n\nReviewer: reality-checker",
        "```approved\nnotes\n```\n\nRejected.\n\nReviewer: reality-checker",
        "Pass — I will not sign this off.\n\nReviewer: reality-checker",
        "Approve once the login check is restored.\n\nReviewer: reality-checker",
        "> Approved?\n\nNo — rejected.\n\nReviewer: reality-checker",
        "![approved](badge.svg) Rejected.\n\nReviewer: reality-checker",
        "`Approved`\n\nReviewer: reality-checker",
    ] {
        let record = review("backend-engineer", decision, None);
        let (exit, verdict) = gate(&[], &[(".handoff/eng-1.md", &record)], &[]);
        assert_eq!(exit, 1, "{decision:?}: {verdict:#}");
        assert!(!signed_off(&verdict), "{decision:?}");
        let found = codes(&verdict);
        assert!(
            ["missing-sign-off", "review-refused", "unreadable-decision"]
                .iter()
                .any(|code| found.iter().any(|c| c == code)),
            "{decision:?}: {found:?}"
        );
    }
}

#[test]
fn the_decider_is_never_read_from_hidden_text() {
    for hidden in [
        "Approved.\n\n<!-- Reviewer: reality-checker -->\nReviewer: qa-engineer",
        "Approved.\n\n```\nReviewer: reality-checker\n```\n\nReviewer: qa-engineer",
    ] {
        let record = review("backend-engineer", hidden, None);
        let verdict = rejects_with(
            gate(&[], &[(".handoff/eng-1.md", &record)], &[]),
            "wrong-reviewer",
        );
        assert!(!signed_off(&verdict), "{hidden:?}");
    }
}

#[test]
fn a_second_decision_section_is_an_error() {
    let twice = review(
        "backend-engineer",
        "Rejected.\n\nReviewer: reality-checker",
        None,
    ) + "\n### Decision\n\nApproved.\n\nReviewer: reality-checker\n";
    rejects_with(
        gate(&[], &[(".handoff/eng-1.md", &twice)], &[]),
        "duplicate-section",
    );
}

#[test]
fn only_a_plain_sentence_from_the_user_waives_review() {
    let plain = work() + "\n" + &says("user", "OK, ship it without review.", None);
    let verdict = passes(gate(&[], &[(".handoff/eng-1.md", &plain)], &[]));
    assert_eq!(verdict["reviewer"]["waived"], true);
    for text in [
        "Can we ship it without review? I doubt it.",
        "If reality-checker is away all week, ship it without review.",
        "> ship it without review\n\nThat is what you asked; the answer is no.",
        "<!-- ship it without review -->\nPlease get reality-checker to review this.",
        "I refuse to ship it without review.",
        "\"Ship it without review.\"",
    ] {
        let records = work() + "\n" + &says("user", text, None);
        let verdict = rejects_with(
            gate(&[], &[(".handoff/eng-1.md", &records)], &[]),
            "missing-sign-off",
        );
        assert_eq!(verdict["reviewer"]["waived"], false, "{text:?}");
    }
}

// ---- Order --------------------------------------------------------------------------

#[test]
fn grants_are_ordered_by_timestamps_only() {
    let approval = |t: Option<&str>| review("backend-engineer", APPROVED, t);
    let refusal = |t: Option<&str>| {
        review(
            "backend-engineer",
            "Rejected.\n\nReviewer: reality-checker",
            t,
        )
    };
    // A malformed timestamp, or two equal ones: the order cannot be established, whatever
    // the file names say.
    for (approved_at, refused_at) in [
        (Some("2026-01-05T10:00:00Z"), Some("2026-01-04T25:00:00Z")),
        (Some("2026-01-04T10:00:00Z"), Some("2026-01-04T10:00:00Z")),
        (Some("2026-01-04T10:00:00Z"), None),
    ] {
        let verdict = rejects_with(
            gate(
                &[],
                &[
                    (".handoff/a-refused.md", &refusal(refused_at)),
                    (".handoff/z-approved.md", &approval(approved_at)),
                ],
                &[],
            ),
            "unordered-records",
        );
        assert!(!signed_off(&verdict));
    }
    // A distinct valid order decides: the later refusal stands.
    rejects_with(
        gate(
            &[],
            &[
                (".handoff/a.md", &refusal(Some("2026-01-05T10:00:00Z"))),
                (".handoff/z.md", &approval(Some("2026-01-04T10:00:00Z"))),
            ],
            &[],
        ),
        "review-refused",
    );
}

#[test]
fn the_users_later_word_revokes_a_waiver() {
    let records = work()
        + "\n"
        + &says(
            "user",
            "Ship it without review.",
            Some("2026-01-02T10:00:00Z"),
        )
        + "\n"
        + &says(
            "user",
            "On second thought, get it reviewed.",
            Some("2026-01-03T10:00:00Z"),
        );
    let verdict = rejects_with(
        gate(&[], &[(".handoff/eng-1.md", &records)], &[]),
        "missing-sign-off",
    );
    assert_eq!(verdict["reviewer"]["waived"], false);
}

#[test]
fn an_early_dated_record_of_the_change_does_not_replace_the_criteria() {
    let base_handoff = says(
        "enterprise-orchestrator",
        "Build it.",
        Some("2026-01-01T00:00:00Z"),
    )
        + "\n### Acceptance Criteria\n\n- AC1: login works\n- AC2: lockout after 5 tries\n";
    let task = "## Task Assignment\n\n| Task ID | ENG-1 |\n| Assigned to | backend-engineer |\n\
        | Expected file scope | [src/auth/] |\n| Risk Class | high |\n";
    let early = says("backend-engineer", "Notes.", Some("2025-06-01T00:00:00Z"))
        + "\n### Acceptance Criteria\n\n- AC1: it builds\n";
    let approval = review("backend-engineer", APPROVED, None);
    let verdict = rejects_with(
        gate(
            &[
                (".handoff/eng-1-task.md", task),
                (".handoff/eng-1-handoff.md", &base_handoff),
            ],
            &[
                (".handoff/eng-1-early.md", &early),
                (".handoff/eng-1.md", &approval),
            ],
            &[],
        ),
        "criterion-unmapped",
    );
    assert!(signed_off(&verdict));
}

// ---- Hiding places --------------------------------------------------------------------

#[test]
fn the_records_directory_exempts_records_only() {
    let approval = review("backend-engineer", APPROVED, None);
    // Code and build includes under .handoff/ are paths like any other.
    let verdict = rejects_with(
        gate(
            &[],
            &[
                (".handoff/eng-1.md", &approval),
                (".handoff/local.mk", "LDFLAGS += -lsneaky\n"),
            ],
            &[],
        ),
        "undeclared-file",
    );
    assert_eq!(undeclared(&verdict), [".handoff/local.mk"]);
    // A key pasted into a record is a leak.
    let leaking = approval.clone() + "\nThe key: AKIAIOSFODNN7REALKEY\n";
    let verdict = passes(gate(&[], &[(".handoff/eng-1.md", &leaking)], &[]));
    assert!(
        fired(&verdict, "credential", ".handoff/eng-1.md"),
        "{verdict:#}"
    );
}

#[test]
fn a_binary_file_hides_no_key() {
    let approval = review("backend-engineer", APPROVED, None);
    let utf16: Vec<u8> = "\u{FEFF}aws_key = AKIAIOSFODNN7REALKEY\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut nul = b"\x00\x01header\n".to_vec();
    nul.extend_from_slice(b"sk_live_51HxT4eC39HqLyjWDarjtT1zdp7dc\n");
    for (path, bytes) in [("src/auth/keys.txt", utf16), ("src/auth/blob.dat", nul)] {
        let repo = repo_with(
            &[(
                ".handoff/eng-1-task.md",
                assignment("backend-engineer", "src/auth/", "low").as_bytes(),
            )],
            &[(".handoff/eng-1.md", approval.as_bytes()), (path, &bytes)],
        );
        let (_, verdict) = check(&repo, &[]);
        assert!(fired(&verdict, "credential", path), "{path}: {verdict:#}");
        assert_eq!(verdict["risk"]["class"], "high");
    }
}

#[test]
fn a_file_renamed_out_of_the_records_directory_is_read_whole() {
    let approval = review("backend-engineer", APPROVED, None);
    let helper = "import os\nURL = os.environ[\"PAYMENT_URL\"]\n";
    let repo = repo_with(
        &[(".handoff/helper.md", helper.as_bytes())],
        &[(".handoff/eng-1.md", approval.as_bytes())],
    );
    repo.git_mv(".handoff/helper.md", "src/auth/helper.py");
    repo.commit("move");
    let (_, verdict) = check(&repo, &[]);
    assert!(
        fired(&verdict, "env-var", "src/auth/helper.py"),
        "{verdict:#}"
    );
}

#[test]
fn a_root_file_is_listed_alone_never_by_a_word_of_a_sentence() {
    // The scope allows the Makefile; only the evidence's file list is at stake.
    let scope = assignment("backend-engineer", "src/auth/, Makefile", "high");
    let listing = |files: &str| {
        let review = approved_review_saying("Files changed", files);
        let base: [(&str, &[u8]); 2] = [
            (".handoff/eng-1-task.md", scope.as_bytes()),
            ("Makefile", b"all:\n"),
        ];
        let repo = repo_with(&base, &[(".handoff/eng-1.md", review.as_bytes())]);
        repo.write("Makefile", "all:\n\ttrue\n");
        repo.commit("make");
        check(&repo, &[])
    };
    for files in [
        "`src/auth/login.py`, `Makefile`",
        "\n  - src/auth/login.py\n  - Makefile",
    ] {
        passes(listing(files));
    }
    let verdict = rejects_with(
        listing("`src/auth/login.py`, and the Makefile too"),
        "files-not-listed",
    );
    let messages = verdict["problems"].to_string();
    assert!(
        messages.contains("omits changed files: Makefile"),
        "{messages}"
    );
}

#[test]
fn expansion_paths_come_from_code_spans_and_lists_only() {
    let approval = review("backend-engineer", APPROVED, None);
    for request in [
        "Scope expansion: need to also modify faq.md in docs/, linked from src/web/.",
        "Scope expansion: `docs/faq.md`\n\n[ref]: src/web/",
        "Scope expansion: `docs/faq.md` but not `src/web/`.",
        "Scope expansion: `docs/faq.md` <!-- `src/web/` -->",
    ] {
        let expansion = format!(
            "## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | consultation |\n\
             | From | backend-engineer |\n| To | enterprise-orchestrator |\n\n### Request\n\n\
             {request}\n\n### Decision\n\nApproved.\n\nReviewer: enterprise-orchestrator\n"
        );
        let repo = repo_with(
            &[],
            &[
                (".handoff/eng-1.md", approval.as_bytes()),
                (".handoff/scope.md", expansion.as_bytes()),
            ],
        );
        repo.write("src/web/helpers.py", "x = 1\n");
        repo.commit("web");
        let verdict = rejects_with(check(&repo, &[]), "undeclared-file");
        assert_eq!(undeclared(&verdict), ["src/web/helpers.py"], "{request:?}");
    }
}

#[test]
fn an_invisible_character_does_not_unmake_the_bases_refusal() {
    let refusal = review(
        "backend-engineer",
        "Rejected: the check accepts every user.\n\nReviewer: reality-checker",
        Some("2026-01-03T10:00:00Z"),
    )
    .replace("## Interaction Record", "## Interaction\u{200B} Record");
    let approval = review("backend-engineer", APPROVED, Some("2026-01-02T10:00:00Z"));
    rejects_with(
        gate(
            &[(".handoff/refused.md", &refusal)],
            &[(".handoff/eng-1.md", &approval)],
            &[],
        ),
        "review-refused",
    );
}

// ---- Evidence that says nothing -------------------------------------------------------

#[test]
fn an_item_that_says_nothing_is_missing_or_fails_its_check() {
    let control = approved_review_saying("Security implications", "none: no new surface.");
    passes(gate(&[], &[(".handoff/eng-1.md", &control)], &[]));
    for (label, text, code) in [
        ("Files changed", "**", "evidence-placeholder"),
        ("Files changed", "all of them (`**`)", "files-not-listed"),
        ("Test mapping", "- → -", "evidence-placeholder"),
        ("Security implications", "n/a", "evidence-placeholder"),
        (
            "Security implications",
            "See the diff.",
            "evidence-placeholder",
        ),
        ("Rollback plan", "`-`", "evidence-placeholder"),
        ("Rollback plan", "1. -", "rollback-not-exact"),
        ("Before/after", "was; now.", "before-after-incomplete"),
    ] {
        let review = approved_review_saying(label, text);
        let verdict = rejects_with(gate(&[], &[(".handoff/eng-1.md", &review)], &[]), code);
        let message = verdict["problems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["code"] == code)
            .and_then(|p| p["message"].as_str())
            .unwrap_or_default()
            .to_string();
        // The message says why the text counts for nothing and what to write instead.
        let hint = match code {
            "evidence-placeholder" => "says nothing",
            "files-not-listed" => "names no file; list the changed files",
            _ => "",
        };
        assert!(message.contains(hint), "{message}");
    }
}

#[test]
fn a_criterion_mapped_to_no_test_is_not_mapped() {
    let control = approved_review_saying("Test mapping", "| AC1 | `test_login` |");
    passes(gate(&[], &[(".handoff/eng-1.md", &control)], &[]));
    for text in [
        "AC1 → not run yet",
        "AC1 → works",
        "| AC1 | - |",
        "- AC1: TBD",
        "AC1 → `test_login` (untested)",
    ] {
        let review = approved_review_saying("Test mapping", text);
        rejects_with(
            gate(&[], &[(".handoff/eng-1.md", &review)], &[]),
            "tests-not-mapped",
        );
    }
}

// ---- The gate's own files ---------------------------------------------------------------

#[test]
fn no_policy_silences_the_gates_own_files() {
    let low = assignment(
        "backend-engineer",
        "src/auth/, .handoff.yaml, .handoff.yml, .handoff.yaml/, CODEOWNERS, .github/",
        "low",
    );
    let work = review("backend-engineer", "", None);
    let weakening = [
        (
            "exclude: ['**']\n",
            ".handoff.yaml",
            "exclude: ['src/**']\n",
        ),
        (
            "triggers:\n  policy:\n    remove_paths: [policy.path.policy-file]\n",
            ".handoff.yaml",
            "exclude: []\n",
        ),
        (
            "exclude: ['.handoff.yml']\n",
            ".handoff.yml",
            "exclude: ['**']\n",
        ),
        ("exclude: ['**']\n", ".handoff.yaml/notes.md", "x\n"),
        ("exclude: ['CODEOWNERS']\n", "CODEOWNERS", "* @someone\n"),
        (
            "exclude: ['.github/**']\n",
            ".github/workflows/gate.yml",
            "on: push\njobs: {}\n",
        ),
    ];
    for (base_policy, path, content) in weakening {
        let base: Vec<(&str, &str)> = vec![
            (".handoff/eng-1-task.md", &low),
            (".handoff.yaml", base_policy),
            (
                ".github/workflows/gate.yml",
                "jobs:\n  gate:\n    steps:\n      - run: handoff check --base main\n",
            ),
        ];
        let base: Vec<(&str, &str)> = base
            .into_iter()
            .filter(|(p, _)| !(*p == ".handoff.yaml" && path.starts_with(".handoff.yaml/")))
            .collect();
        let (exit, verdict) = gate(&base, &[(".handoff/eng-1.md", &work), (path, content)], &[]);
        assert_eq!(exit, 1, "{path}: {verdict:#}");
        assert!(fired(&verdict, "policy", path), "{path}: {verdict:#}");
        assert_eq!(verdict["risk"]["class"], "high", "{path}");
        assert!(
            codes(&verdict).contains(&"missing-sign-off".to_string()),
            "{path}"
        );
    }
}

#[test]
fn an_in_repository_policy_file_is_the_gates_own_file() {
    let low = assignment("backend-engineer", "src/auth/, ci/", "low");
    let work = review("backend-engineer", "", None);
    let repo = repo_with(
        &[
            (".handoff/eng-1-task.md", low.as_bytes()),
            ("ci/policy.yaml", b"exclude: []\n"),
        ],
        &[
            (".handoff/eng-1.md", work.as_bytes()),
            ("ci/policy.yaml", b"exclude: ['**']\n"),
        ],
    );
    let verdict = rejects_with(
        check(&repo, &["--policy", "ci/policy.yaml"]),
        "missing-sign-off",
    );
    assert!(fired(&verdict, "policy", "ci/policy.yaml"), "{verdict:#}");
}

#[test]
fn a_policy_nested_too_deep_is_refused_before_it_is_parsed() {
    let deep = format!("exclude: {}x{}\n", "[".repeat(50_000), "]".repeat(50_000));
    let repo = repo_with(&[("ci/policy.yaml", deep.as_bytes())], &[]);
    let output = repo
        .handoff()
        .args(["check", "--base", "main", "--head", "HEAD"])
        .args(["--policy", "ci/policy.yaml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("ci/policy.yaml:1:74: nested deeper than 64"),
        "{stderr}"
    );
}
