//! Every example record of seed 003, copied verbatim into `tests/fixtures/seed/`, parses
//! to the fields RECORDS.md names, through the library and through the JSON contract.

use handoff::RiskClass;
use handoff::{
    parse_document, DecisionStatus, EvidenceItemId, FailureType, InteractionType, Record,
    RecordJson, RecordKind, Transport, Urgency,
};
use serde_json::{json, Value};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/seed/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn only_record(name: &str) -> Record {
    let document = parse_document(name, &fixture(name));
    assert!(
        document.diagnostics.is_empty(),
        "{name}: {:?}",
        document.diagnostics
    );
    assert_eq!(document.records.len(), 1, "{name}");
    document
        .records
        .into_iter()
        .next()
        .unwrap_or_else(|| unreachable!())
}

fn json_of(record: &Record) -> Value {
    let text = serde_json::to_string(&RecordJson(record)).expect("serializes");
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn the_template_keeps_its_placeholders_as_written() {
    let record = only_record("template.md");
    let value = json_of(&record);
    assert_eq!(value["kind"], "interaction-record");
    assert_eq!(value["task_id"], "[DEPT-NNN, e.g., ENG-042]");
    assert_eq!(
        value["type"],
        "[consultation | handoff | review | escalation | capability-request]"
    );
    assert_eq!(value["transport"], "[agent-teams | orchestrator-mediated]");
    assert_eq!(value["timestamp"], "[ISO 8601]");
    assert_eq!(record.interaction_type(), None);
    let titles: Vec<&str> = record.sections().iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Context",
            "Request",
            "Constraints",
            "Evidence Bundle",
            "Decision"
        ]
    );
    assert_eq!(
        value["decision"],
        json!({"status": "pending", "by": null, "text": null, "line": 17})
    );
    assert_eq!(value["evidence"], json!([]));
}

#[test]
fn the_consultation() {
    let record = only_record("consultation.md");
    assert_eq!(record.task_id(), Some("ENG-042"));
    assert_eq!(
        record.interaction_type(),
        Some(InteractionType::Consultation)
    );
    assert_eq!(record.from(), Some("backend-engineer"));
    assert_eq!(record.to(), Some("security-engineer"));
    assert_eq!(record.transport(), Some(Transport::AgentTeams));
    let value = json_of(&record);
    assert_eq!(value["source"], "consultation.md");
    assert_eq!(value["line"], 1);
    assert_eq!(value["risk_class"], Value::Null);
    assert_eq!(value["timestamp"], Value::Null);
    assert_eq!(value["extra"], json!({}));
    assert_eq!(
        value["sections"][0],
        json!({"title": "Context", "line": 7, "body_line": 8,
        "body": "Implementing OAuth2 PKCE flow for the /auth endpoint. JWT session currently in place."})
    );
    assert_eq!(value["sections"][2]["title"], "My Proposal");
    assert_eq!(value["decision"]["status"], "absent");
    assert_eq!(value["failure_type"], Value::Null);
    assert_eq!(value["scope_expansion"], Value::Null);
}

#[test]
fn the_escalation() {
    let record = only_record("escalation.md");
    assert_eq!(record.interaction_type(), Some(InteractionType::Escalation));
    assert_eq!(record.to(), Some("enterprise-orchestrator"));
    assert_eq!(record.failure_type(), Some(FailureType::WrongCapability));
    let value = json_of(&record);
    assert_eq!(value["failure_type"], "wrong-capability");
    assert_eq!(
        value["orchestrator_action"],
        "Reroute to matching capability"
    );
    let evidence = record.evidence();
    assert_eq!(evidence.len(), 3);
    assert_eq!(evidence[0].item, Some(EvidenceItemId::FilesChanged));
    assert_eq!(
        evidence[0].text,
        "src/auth/middleware.ts, src/auth/oauth.ts"
    );
    assert_eq!(evidence[0].line, 12);
    assert_eq!(evidence[1].label, "Error");
}

#[test]
fn the_capability_request() {
    let record = only_record("capability-request.md");
    assert_eq!(
        record.interaction_type(),
        Some(InteractionType::CapabilityRequest)
    );
    let request = record.capability_request();
    assert_eq!(
        request.as_ref().map(|r| r.domain.as_str()),
        Some("design-system")
    );
    assert_eq!(
        request.as_ref().and_then(|r| r.urgency),
        Some(Urgency::NonBlocking)
    );
    assert_eq!(
        json_of(&record)["capability"],
        json!({"domain": "design-system", "qualifiers": ["tokens", "dark-theme"],
               "reason": "Need hex values for error state background in dark mode to render in email templates.",
               "urgency": "non-blocking"})
    );
}

#[test]
fn the_task_assignment() {
    let record = only_record("task-assignment.md");
    assert_eq!(record.kind, RecordKind::TaskAssignment);
    assert_eq!(record.assigned_to(), Some("backend-engineer"));
    assert_eq!(record.risk_class(), Some(RiskClass::Medium));
    let value = json_of(&record);
    assert_eq!(value["kind"], "task-assignment");
    assert_eq!(
        value["expected_file_scope"],
        json!([
            "src/auth/middleware.ts",
            "src/auth/oauth.ts",
            "tests/auth/*.test.ts"
        ])
    );
    assert_eq!(value["baseline_sha"], Value::Null);
    assert_eq!(value["capability_routed"], Value::Null);
    assert!(
        value.get("type").is_none(),
        "a task assignment has no `type` key"
    );
}

#[test]
fn the_scope_expansion() {
    let record = only_record("scope-expansion.md");
    assert_eq!(
        record.interaction_type(),
        Some(InteractionType::Consultation)
    );
    assert_eq!(
        json_of(&record)["scope_expansion"],
        // The seed names the path in prose, which grants nothing: only code spans and
        // list items name paths (see tests/it/cli.rs for the lint error that says so).
        json!({"paths": [],
               "reason": "OAuth redirect URI changed.\nThis is a 3-line config update, not logic.",
               "line": 7})
    );
    assert_eq!(record.template_name(), "scope-expansion.md");
}

#[test]
fn the_routing_decision() {
    let record = only_record("routing-decision.md");
    let value = json_of(&record);
    assert_eq!(value["kind"], "routing-decision");
    assert_eq!(
        value["requested_capability"],
        json!({"domain": "auth", "qualifiers": ["oauth2", "pkce"]})
    );
    assert_eq!(
        value["matched_agents"],
        json!([{"agent": "security-engineer", "domain": "auth", "qualifiers": ["oauth2", "saml"]},
               {"agent": "backend-engineer", "domain": "auth", "qualifiers": ["jwt", "session"]}])
    );
    assert_eq!(value["selected"], "security-engineer");
    assert_eq!(
        value["rejected"],
        json!([{"agent": "backend-engineer", "reason": "qualifier mismatch"}])
    );
    assert_eq!(
        value["tie_break_rule"],
        "qualifier-match (highest priority)"
    );
    assert_eq!(value["tie_break"], "qualifier-match");
    assert!(value["reason"]
        .as_str()
        .is_some_and(|r| r.starts_with("Qualifier match: oauth2")));
}

#[test]
fn the_whole_seed_holds_seven_records() {
    let text = fixture("003_6531168df38881cb.txt");
    let document = parse_document("seed", &text);
    let kinds: Vec<(RecordKind, usize)> =
        document.records.iter().map(|r| (r.kind, r.line)).collect();
    use RecordKind::*;
    assert_eq!(
        kinds,
        [
            (InteractionRecord, 8),
            (InteractionRecord, 32),
            (InteractionRecord, 56),
            (InteractionRecord, 72),
            (TaskAssignment, 130),
            (InteractionRecord, 141),
            (RoutingDecision, 162)
        ]
    );
    assert!(document
        .records
        .iter()
        .all(|r| r.decision().status != DecisionStatus::Approved));
}
