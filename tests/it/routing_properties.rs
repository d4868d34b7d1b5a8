//! Properties that tie `route` and `audit` together, over random registries: every
//! decision `route` makes, written as a record and read back, passes the audit with no
//! finding; routing is deterministic; and a tie is never broken without a pick.

use handoff::record_fields;
use handoff::recorded_decision;
use handoff::{check_decision, Reference};
use handoff::{parse_document, render, Record, RecordKind, Templates};
use handoff::{route, Aliases, Capability, Pick, Registry, RouteRequest, RoutingOutcome};
use proptest::prelude::*;
use std::path::Path;

const QUALIFIERS: [&str; 5] = ["oauth2", "pkce", "jwt", "saml", "session"];
const DEPARTMENTS: [&str; 3] = ["engineering", "product", "data"];

/// Up to six agents; each may declare `auth` with some qualifiers and may have a department.
fn registry_yaml() -> impl Strategy<Value = String> {
    let agent = (
        any::<bool>(),
        proptest::sample::subsequence(QUALIFIERS.to_vec(), 0..=5),
        0..4usize,
    );
    proptest::collection::vec(agent, 1..6).prop_map(|agents| {
        let mut yaml = String::from("agents:\n");
        for (index, (declares, qualifiers, department)) in agents.into_iter().enumerate() {
            yaml.push_str(&format!("  - name: agent-{index}\n"));
            if let Some(department) = DEPARTMENTS.get(department) {
                yaml.push_str(&format!("    department: {department}\n"));
            }
            let domain = if declares { "auth" } else { "backend" };
            yaml.push_str(&format!(
                "    capabilities: {{{domain}: [{}]}}\n",
                qualifiers.join(", ")
            ));
        }
        yaml
    })
}

fn request() -> impl Strategy<Value = (Vec<&'static str>, Option<usize>)> {
    (
        proptest::sample::subsequence(QUALIFIERS.to_vec(), 0..=3),
        proptest::option::of(0..6usize),
    )
}

fn as_record(decision: &handoff::RouteDecision) -> Record {
    let mut record = Record::new(RecordKind::RoutingDecision);
    for (key, value) in record_fields(decision, Some("T-1")) {
        record.set_field(key, &value);
    }
    record
}

proptest! {
    #[test]
    fn every_decision_route_makes_passes_the_audit(yaml in registry_yaml(), (asked, requester) in request()) {
        let registry = Registry::from_yaml(Path::new("registry.yaml"), &yaml).expect("generated YAML is valid");
        let aliases = Aliases::default();
        let mut request = RouteRequest {
            capability: Capability::new("auth", asked.iter().map(|q| q.to_string())),
            requester: requester.map(|index| format!("agent-{index}")),
            pick: None,
        };
        let first = route(&registry, &aliases, &request).expect("auth is always a valid domain");
        prop_assert_eq!(&first, &route(&registry, &aliases, &request).expect("again"), "deterministic");
        let decision = match first {
            RoutingOutcome::Selected(decision) => decision,
            RoutingOutcome::NoCandidates { .. } => return Ok(()),
            RoutingOutcome::Tied { tied, .. } => {
                prop_assert!(tied.len() > 1);
                request.pick = Some(Pick { agent: tied[tied.len() - 1].clone(), reason: "knows the flow".into() });
                match route(&registry, &aliases, &request).expect("a tied agent can be picked") {
                    RoutingOutcome::Selected(decision) => decision,
                    other => return Err(TestCaseError::fail(format!("a pick must decide: {other:?}"))),
                }
            }
        };
        let text = render(&as_record(&decision), &Templates::embedded()).expect("the record renders");
        let document = parse_document("decision.md", &text);
        prop_assert_eq!(document.records.len(), 1);
        let recorded = recorded_decision(&document.records[0], None);
        let findings = check_decision(&recorded, Some(Reference { registry: &registry, aliases: &aliases }));
        prop_assert!(findings.is_empty(), "{:?}\n{}", findings, text);
    }
}
