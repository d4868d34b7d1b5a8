//! The contract checker on any agent output: never panics, and a block it reads checks
//! the same way twice.
#![no_main]

use handoff::{check_output, ContractOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(output) = std::str::from_utf8(data) else {
        return;
    };
    for consolidation_required in [false, true] {
        let options = ContractOptions {
            consolidation_required,
            task_agent_id: "agent-1".to_string(),
        };
        let (result, _) = check_output(output, &options);
        let _ = (result.missing(), result.invalid(), result.warnings(), result.repair_lines());
    }
});
