//! Edge cases that do not fit a JSON case file: very long outputs, generated inputs.

use handoff::{check_output, is_resumable_agent_id, ContractOptions as CheckOptions};
use proptest::prelude::*;
use serde_json::json;

fn valid_contract(verbatim: &str) -> serde_json::Value {
    json!({
        "agent_status": {"plan_status": "COMPLETE", "agent_id": "a1b2c3d4e5", "pending_steps": [], "next_action": "done"},
        "evidence_report": {
            "patterns_checked": [], "files_checked": [], "commands_run": [], "key_outputs": ["k"],
            "verbatim_outputs": [verbatim], "cross_layer_impacts": [], "open_gaps": [],
            "verification": {"result": "pass", "details": "ok"}
        }
    })
}

fn block(contract: &serde_json::Value) -> String {
    format!("```agent_contract_handoff\n{contract}\n```\n")
}

#[test]
fn a_block_after_megabytes_of_prose_is_found() {
    let prose = "The agent explains what it did, with `code` and ``` fences ```.\n".repeat(150_000);
    let output = format!("{prose}{}", block(&valid_contract("v")));
    assert!(output.len() > 9_000_000);
    let (result, _) = check_output(&output, &CheckOptions::default());
    assert!(result.valid, "{:?}", result.missing());
}

#[test]
fn a_megabyte_string_full_of_fences_stays_inside_the_block() {
    let verbatim = "```sh\n$ make\n```\n\"quoted\" \\ ".repeat(40_000);
    let (result, contract) =
        check_output(&block(&valid_contract(&verbatim)), &CheckOptions::default());
    assert!(result.valid, "{:?}", result.missing());
    let contract = contract.expect("block parsed");
    assert_eq!(
        contract["evidence_report"]["verbatim_outputs"][0],
        verbatim.as_str()
    );
}

#[test]
fn many_false_openings_are_scanned_in_linear_time() {
    let output = "```agent_contract_handoff {} ".repeat(200_000);
    let (result, _) = check_output(&output, &CheckOptions::default());
    assert_eq!(result.missing().len(), 5);
    assert!(result.no_block.is_some());
}

#[test]
fn an_unterminated_string_is_not_a_contract() {
    let output = "```agent_contract_handoff\n{\"agent_status\": \"unterminated\n```\n";
    let (result, _) = check_output(output, &CheckOptions::default());
    assert!(!result.valid);
    let reason = result.no_block.expect("a reason").to_string();
    assert!(reason.contains("never closed"), "{reason}");
}

#[test]
fn agent_id_pattern_follows_python_re_match() {
    assert!(is_resumable_agent_id("a12345"));
    assert!(is_resumable_agent_id("a1b2c3d4e5f6"));
    assert!(
        is_resumable_agent_id("a12345\n"),
        "Python's $ accepts one trailing newline"
    );
    assert!(!is_resumable_agent_id("a12345\n\n"));
    assert!(!is_resumable_agent_id("a1234"));
    assert!(!is_resumable_agent_id("A12345"));
    assert!(!is_resumable_agent_id("a1234g"));
    assert!(!is_resumable_agent_id(" a12345"));
}

proptest! {
    #[test]
    fn any_text_gets_a_verdict(text in ".{0,400}") {
        let (result, _) = check_output(&text, &CheckOptions::default());
        prop_assert_eq!(result.valid, result.missing().is_empty() && result.invalid().is_empty());
    }

    #[test]
    fn any_string_value_survives_the_block_scan(verbatim in "[`\"\\\\a-z\n{}\\[\\] ]{0,200}") {
        let (result, contract) = check_output(&block(&valid_contract(&verbatim)), &CheckOptions::default());
        prop_assert!(result.valid);
        let contract = contract.expect("block parsed");
        prop_assert_eq!(contract["evidence_report"]["verbatim_outputs"][0].as_str(), Some(verbatim.as_str()));
    }

    #[test]
    fn text_around_the_block_does_not_matter(before in "[^`]{0,200}", after in ".{0,200}") {
        let output = format!("{before}\n{}{after}", block(&valid_contract("v")));
        let (result, _) = check_output(&output, &CheckOptions::default());
        prop_assert!(result.valid);
    }
}
