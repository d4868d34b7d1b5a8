//! Runs the data-driven cases: every case in the JSON files, every key of its `expect`
//! compared to the library's result.

use handoff::decide;
use handoff::PlanStatus;
use handoff::{check_output, ContractOptions as CheckOptions};
use handoff::{transition, AgentRecord};
use serde_json::Value;
use std::collections::HashMap;

fn load(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/it/contract/cases/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    match serde_json::from_str(&text) {
        Ok(Value::Array(cases)) => cases,
        other => panic!("{path}: expected an array of cases, got {other:?}"),
    }
}

/// The agent output of a case: `output` as written, or `contract` wrapped in a block
/// the way the reference's tests do.
pub fn output_of(case: &Value) -> String {
    if let Some(output) = case["output"].as_str() {
        return output.to_string();
    }
    let body = serde_json::to_string_pretty(&case["contract"]).expect("contract serializes");
    format!("## Findings\n\n```agent_contract_handoff\n{body}\n```\n")
}

fn options_of(case: &Value) -> CheckOptions {
    CheckOptions {
        consolidation_required: case["flags"]["consolidation_required"]
            .as_bool()
            .unwrap_or(false),
        task_agent_id: case["flags"]["task_agent_id"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    }
}

/// Compares each expected key; returns one line per mismatch.
fn mismatches(name: &str, expect: &Value, actual: &Value) -> Vec<String> {
    let Value::Object(expect) = expect else {
        return vec![format!("{name}: expect is not an object")];
    };
    expect
        .iter()
        .filter(|(key, want)| actual.get(key.as_str()) != Some(want))
        .map(|(key, want)| {
            format!(
                "{name}: {key}: expected {want}, got {}",
                actual.get(key.as_str()).unwrap_or(&Value::Null)
            )
        })
        .collect()
}

fn report(failures: Vec<String>, total: usize) {
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn check_cases() {
    let cases = load("check.json");
    assert!(cases.len() >= 100, "the case file lost cases");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("?");
        let (result, _) = check_output(&output_of(case), &options_of(case));
        let actual = serde_json::to_value(&result).expect("result serializes");
        failures.extend(mismatches(name, &case["expect"], &actual));
        if result
            .findings
            .iter()
            .any(|finding| finding.repair.is_empty())
        {
            failures.push(format!("{name}: a finding without a repair line"));
        }
    }
    report(failures, cases.len());
}

#[test]
fn state_cases() {
    let cases = load("state.json");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("?");
        let mut records: HashMap<String, AgentRecord> = HashMap::new();
        for (index, step) in case["steps"].as_array().into_iter().flatten().enumerate() {
            let agent = step["agent"].as_str().unwrap_or("");
            let status = step["status"]
                .as_str()
                .and_then(PlanStatus::parse)
                .expect("a canonical status");
            let (verdict, updated) = transition(records.get(agent), status);
            let actual = serde_json::to_value(&verdict).expect("verdict serializes");
            failures.extend(mismatches(
                &format!("{name} step {}", index + 1),
                &step["expect"],
                &actual,
            ));
            if verdict.is_accepted() != updated.is_some() {
                failures.push(format!(
                    "{name} step {}: a record must be stored exactly when accepted",
                    index + 1
                ));
            }
            if let Some(updated) = updated {
                records.insert(agent.to_string(), updated);
            }
        }
    }
    report(failures, cases.len());
}

#[test]
fn next_cases() {
    let cases = load("next.json");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("?");
        let (result, contract) = check_output(&output_of(case), &CheckOptions::default());
        let agents = case["agents"].as_u64().unwrap_or(1) as usize;
        let decision = decide(result, contract.as_ref(), agents, None);
        if decision.instructions.is_empty() {
            failures.push(format!("{name}: no instructions"));
        }
        let actual = serde_json::to_value(&decision).expect("decision serializes");
        failures.extend(mismatches(name, &case["expect"], &actual));
    }
    report(failures, cases.len());
}

/// The ported cases name their sources; keep the count visible in the test output.
#[test]
fn every_case_names_its_source() {
    for file in ["check.json", "state.json", "next.json"] {
        for case in load(file) {
            let source = case["source"].as_str().unwrap_or("");
            assert!(!source.is_empty(), "{file}: {} has no source", case["name"]);
        }
    }
}
