//! Tests of the facts derived from a record's sections: the decision and its decider,
//! waivers, capability requests, scope expansions.

use super::super::RecordKind;
use super::*;

fn with_decision(body: &str) -> Decision {
    let mut record = Record::new(RecordKind::InteractionRecord);
    record.push_section("Decision", body);
    record.decision()
}

#[test]
fn decisions_are_classified_from_the_first_line() {
    assert_eq!(
        with_decision("**Approved** — ship it").status,
        DecisionStatus::Approved
    );
    assert_eq!(
        with_decision("Status: changes requested").status,
        DecisionStatus::ChangesRequested
    );
    assert_eq!(with_decision("LGTM").status, DecisionStatus::Approved);
    assert_eq!(with_decision("Denied.").status, DecisionStatus::Rejected);
    assert_eq!(
        with_decision("On hold until Q3").status,
        DecisionStatus::Deferred
    );
    assert_eq!(
        with_decision("[Filled by the receiver]").status,
        DecisionStatus::Pending
    );
    assert_eq!(
        with_decision("Approval pending").status,
        DecisionStatus::Pending
    );
    assert!(with_decision("Approval pending").unrecognized);
    assert_eq!(
        with_decision("Not approved").status,
        DecisionStatus::Rejected
    );
    let decision = with_decision("Approved\n\nReviewer: **reality-checker**");
    assert_eq!(decision.by.as_deref(), Some("reality-checker"));
    assert_eq!(
        Record::new(RecordKind::InteractionRecord).decision().status,
        DecisionStatus::Absent
    );
}

#[test]
fn decisions_are_read_as_markdown() {
    let refused = |body: &str| {
        let decision = with_decision(body);
        decision.status != DecisionStatus::Approved || decision.ambiguity.is_some()
    };
    for body in [
        "~~Approved~~ Rejected",
        "~Approved~ Rejected",
        "<!-- Approved -->\nRejected",
        "Approved? No.",
        "[approved]: #\n\nRejected: the check now accepts every user.",
        "```approved\nnotes\n```\nRejected.",
        "Pass — I will not sign this off. Rejected.",
        "Approve once the login check is restored; until then: changes requested.",
        "> Approved? That is what backend-engineer asked for.\n\nNo — rejected.",
        "![approved](https://img.shields.io/badge/review-rejected-red) Rejected, see notes.",
        "Approved for `docs/faq.md` only. `src/reports/export.py` is rejected: it belongs to ENG-7.",
        "`Approved`",
    ] {
        assert!(refused(body), "{body:?} approves");
    }
    let plain = with_decision("Approved — looks good.\n\nReviewer: `reality-checker`");
    assert_eq!(plain.status, DecisionStatus::Approved);
    assert_eq!(
        (plain.ambiguity, plain.by.as_deref()),
        (None, Some("reality-checker"))
    );
    let verdict =
        with_decision("Reviewer: qa-engineer\n\nVerdict: REJECTED — totals are negative now.");
    assert_eq!(verdict.status, DecisionStatus::Rejected);
    assert_eq!(verdict.by.as_deref(), Some("qa-engineer"));
}

#[test]
fn the_decider_is_a_plain_line_naming_one_agent() {
    let by = |body: &str| with_decision(body).by;
    assert_eq!(by("Approved.\n\n<!-- Reviewer: reality-checker -->"), None);
    assert_eq!(by("Approved.\n\n    Reviewer: reality-checker"), None);
    assert_eq!(
        by("Approved.\n\n- Reviewer: reality-checker (still to look)"),
        None
    );
    let two = with_decision("Approved.\n\nReviewer: a\n\nReviewer: b");
    assert!(two.ambiguity.is_some());
    let prose = with_decision("Approved.\n\nReviewer: a (and b later)");
    assert!(prose.ambiguity.is_some());
}

#[test]
fn a_decision_keeps_its_text_unless_blank_and_spells_its_status() {
    let blank = with_decision("[Filled by the receiver]");
    assert_eq!(
        (blank.status, blank.text, blank.unrecognized),
        (DecisionStatus::Pending, None, false)
    );
    let approved = with_decision("Approved — looks good.");
    assert_eq!(approved.text.as_deref(), Some("Approved — looks good."));
    let json = serde_json::to_value(&approved).unwrap_or_default();
    assert_eq!(json["status"], "approved");
    assert_eq!(
        DecisionStatus::ChangesRequested.to_string(),
        "changes-requested"
    );
}

#[test]
fn a_decision_word_is_a_whole_word_and_a_refusal_beside_an_approval_holds() {
    // A word that only starts with an approval word approves nothing.
    for body in ["Acceptance criteria reviewed.", "Approved-pending-QA"] {
        assert_eq!(
            with_decision(body).status,
            DecisionStatus::Pending,
            "{body}"
        );
    }
    let ambiguity = |body: &str| with_decision(body).ambiguity;
    assert!(ambiguity("Approved.\n\nRejected after all.").is_some());
    // A refusal word inside a longer word, or a deferral, is no refusal.
    assert_eq!(ambiguity("Approved. The rejection path is tested."), None);
    assert_eq!(ambiguity("Approved. Deferred items are in ENG-9."), None);
}

#[test]
fn a_capability_request_reads_its_reason_and_urgency() {
    let request = |body: &str| {
        let mut record = Record::new(RecordKind::InteractionRecord);
        record.push_section("Request", body);
        record.capability_request()
    };
    let full = request("Capability needed: backend + [node]\nReason: a queue\nUrgency: blocking");
    let full = full.as_ref();
    assert_eq!(full.map(|r| r.domain.as_str()), Some("backend"));
    assert_eq!(full.and_then(|r| r.reason.as_deref()), Some("a queue"));
    assert_eq!(full.and_then(|r| r.urgency), Some(Urgency::Blocking));
    for reason in ["Reason:", "Reason: [why]"] {
        let bare = request(&format!("Capability needed: backend\n{reason}"));
        assert_eq!(bare.map(|r| r.reason), Some(None), "{reason}");
    }
}

#[test]
fn a_bare_word_names_a_path_only_as_a_list_item() {
    let mut record = Record::new(RecordKind::InteractionRecord);
    record.push_section("Request", "Scope expansion: the file below.\n\nsrc/z.rs\n");
    let paths = record.scope_expansion().map(|e| e.paths);
    assert_eq!(paths, Some(Vec::new()));
}

fn waives(body: &str) -> bool {
    let mut record = Record::new(RecordKind::InteractionRecord);
    record.push_section("Request", body);
    waiver_line(&record).is_some()
}

#[test]
fn a_waiver_is_a_plain_sentence_of_its_own() {
    for body in [
        "OK — Ship it\nwithout review, please.",
        "No blockers. Ship it without review!",
        "Ship it without review.",
    ] {
        assert!(waives(body), "{body:?}");
    }
    for body in [
        "do not ship without a review",
        "Please don't ship it without review.",
        "Never ship it without review",
        "Can we ship it without review? I doubt it.",
        "If reality-checker is away all week, ship it without review.",
        "> ship it without review\n\nThat is what you asked; the answer is no.",
        "<!-- ship it without review -->\nPlease get reality-checker to review this.",
        "\"Ship it without review.\"",
        "~~Ship it without review.~~",
        "I refuse to ship it without review.",
        &"not ship it without review ".repeat(50),
    ] {
        assert!(!waives(body), "{body:?}");
    }
}

#[test]
fn expansion_paths_are_read_no_further_than_one_past_the_cap() {
    let mut record = Record::new(RecordKind::InteractionRecord);
    record.push_section(
        "Request",
        "Scope expansion: these files.\n\n- `a/1`\n- `a/2`, `a/1`\n- a/3\n",
    );
    let paths = |cap| record.scope_expansion_within(cap).map(|e| e.paths);
    assert_eq!(paths(0), Some(vec!["a/1".to_string()]));
    assert_eq!(paths(1), Some(vec!["a/1".to_string(), "a/2".to_string()]));
    assert_eq!(paths(3).map(|p| p.len()), Some(3));
    assert_eq!(paths(3), record.scope_expansion().map(|e| e.paths));
}

#[test]
fn scope_expansions_name_paths_and_reason() {
    let mut record = Record::new(RecordKind::InteractionRecord);
    record.push_section(
        "Request",
        "Scope expansion: need to also modify `src/middleware/cors.ts` because OAuth redirect URI changed.\nThis is a 3-line config update, not logic.",
    );
    let expansion = record.scope_expansion();
    let expansion = expansion.as_ref();
    assert_eq!(
        expansion.map(|e| e.paths.clone()),
        Some(vec!["src/middleware/cors.ts".to_string()])
    );
    assert_eq!(
        expansion.map(|e| e.reason.as_str()),
        Some("OAuth redirect URI changed.\nThis is a 3-line config update, not logic.")
    );
}

#[test]
fn expansion_paths_are_code_spans_and_list_items_never_negated_or_hidden() {
    let paths = |body: &str| {
        let mut record = Record::new(RecordKind::InteractionRecord);
        record.push_section("Request", body);
        record
            .scope_expansion()
            .map(|e| e.paths)
            .unwrap_or_default()
    };
    assert_eq!(
        paths("Scope expansion: `src/a.rs` but not `lib/`."),
        ["src/a.rs"]
    );
    assert_eq!(
        paths("Scope expansion: `docs/faq.md`\n\n[ref]: src/reports/"),
        ["docs/faq.md"]
    );
    assert!(paths("Scope expansion: faq.md in docs/, linked from src/web/.").is_empty());
    assert_eq!(paths("Scope expansion: `a.md` <!-- `src/` -->"), ["a.md"]);
    assert_eq!(
        paths("Scope expansion: these files:\n\n- src/x.rs\n- `src/y.rs`\n- some prose here"),
        ["src/x.rs", "src/y.rs"]
    );
    assert_eq!(
        paths("Scope expansion: `a.rs` because `b.rs` uses it"),
        ["a.rs"]
    );
}
