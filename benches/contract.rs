//! Throughput of `contract check` on a generated corpus of agent outputs.
//!
//! Run with `cargo bench --bench contract` (optionally `-- 50000` for the corpus size).
//! The corpus is deterministic (a fixed-seed xorshift generator) and mixes what a
//! runtime sees: valid contracts of every status, broken ones (missing fields, bad
//! enums, failed verification, unfinished loops, approval requests without rollback),
//! outputs without a block, YAML bodies, and long outputs whose strings quote code
//! fences. It prints contracts per second and megabytes per second.

use handoff::decide;
use handoff::{check_output, ContractOptions as CheckOptions};
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::Instant;

const DEFAULT_CORPUS: usize = 20_000;
const ROUNDS: usize = 3;
const STATUSES: [&str; 6] = [
    "IN_PROGRESS",
    "APPROVAL_REQUEST",
    "COMPLETE",
    "BLOCKED",
    "NEEDS_INPUT",
    "complete.",
];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn lines(rng: &mut Rng, prefix: &str) -> Value {
    let count = rng.below(6);
    Value::Array(
        (0..count)
            .map(|i| json!(format!("{prefix} {i}: {}", "detail ".repeat(rng.below(12)))))
            .collect(),
    )
}

fn contract(rng: &mut Rng) -> Value {
    let status = STATUSES[rng.below(STATUSES.len())];
    let mut value = json!({
        "agent_status": {
            "plan_status": status,
            "agent_id": format!("a{:08x}", rng.next() as u32),
            "pending_steps": lines(rng, "step"),
            "next_action": "report to the orchestrator"
        },
        "evidence_report": {
            "patterns_checked": lines(rng, "pattern"),
            "files_checked": lines(rng, "src/file.rs"),
            "commands_run": [{"command": "cargo test", "result": "ok"}],
            "key_outputs": lines(rng, "finding"),
            "verbatim_outputs": [format!("```sh\n$ cargo test\n{}```", "test ok\n".repeat(rng.below(40)))],
            "cross_layer_impacts": [],
            "open_gaps": lines(rng, "gap"),
            "verification": {"result": if rng.below(10) == 0 { "fail" } else { "pass" }, "details": "tests green"}
        },
        "user_facing_summary": "Done."
    });
    if status == "APPROVAL_REQUEST" {
        value["approval_request"] = json!({"operation": "apply", "exact_content": "terraform apply", "scope": "prod", "risk_level": "HIGH", "verification": "plan"});
        if rng.below(2) == 0 {
            value["approval_request"]["rollback"] = json!("terraform destroy");
        }
    }
    if rng.below(8) == 0 {
        value["loop_state"] = json!({"iteration": rng.below(5), "max_iterations": 4, "metric": 0.5, "threshold": 0.8});
    }
    if rng.below(6) == 0 {
        if let Some(status) = value["agent_status"].as_object_mut() {
            status.remove("next_action");
        }
    }
    value
}

fn agent_output(rng: &mut Rng) -> String {
    let prose = "I inspected the module, ran the tests and compared the outputs.\n"
        .repeat(1 + rng.below(30));
    match rng.below(20) {
        0 => format!("{prose}No contract this time."),
        1 => format!(
            "{prose}```agent_contract_handoff\nagent_status:\n  plan_status: COMPLETE\n```\n"
        ),
        2 => format!(
            "{prose}{}",
            "Long transcript line with `code`.\n".repeat(3_000)
        ),
        _ => format!(
            "{prose}\n```agent_contract_handoff\n{:#}\n```\n",
            contract(rng)
        ),
    }
}

fn main() {
    let size = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse::<usize>().ok())
        .unwrap_or(DEFAULT_CORPUS);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let corpus: Vec<String> = (0..size).map(|_| agent_output(&mut rng)).collect();
    let bytes: usize = corpus.iter().map(String::len).sum();
    let options = CheckOptions::default();

    let mut best = f64::INFINITY;
    let mut valid = 0;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        valid = 0;
        for output in &corpus {
            let (result, contract) = check_output(black_box(output), &options);
            valid += usize::from(result.valid);
            black_box(decide(result, contract.as_ref(), 1, None));
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "contract check+next: {size} outputs ({:.1} MB, {valid} valid) in {:.3} s (best of {ROUNDS}): \
         {:.0} contracts/s, {:.1} MB/s",
        bytes as f64 / 1e6,
        best,
        size as f64 / best,
        bytes as f64 / 1e6 / best
    );
}
