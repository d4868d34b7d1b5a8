//! Timeouts with each `on_timeout` (002 §4.2), applied by `tick`.

use super::TestTrail;

const LATER: &str = "2099-01-01T00:00:00Z";

/// The `n`th tick, a day apart, so each attempt's deadline has passed.
fn day(n: usize) -> String {
    format!("2099-01-{:02}T00:00:00Z", n + 1)
}

fn events(trail: &TestTrail, id: &str) -> Vec<String> {
    trail
        .ok(&["query", "--handoff", id, "--format", "human"])
        .lines()
        .map(|line| {
            line.split_whitespace()
                .nth(2)
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[test]
fn nothing_times_out_before_its_deadline() {
    let trail = TestTrail::new();
    let id = trail.open(&["--timeout", "1h", "--on-timeout", "fail"]);
    assert_eq!(trail.ok(&["tick", "--now", "2000-01-01T00:00:00Z"]), "");
    assert_eq!(events(&trail, &id), ["initiated"]);
}

#[test]
fn on_timeout_fail_records_failed() {
    let trail = TestTrail::new();
    let id = trail.open(&["--timeout", "1m", "--on-timeout", "fail"]);
    trail.ok(&["accept", &id]);
    trail.ok(&["tick", "--now", LATER]);
    assert_eq!(
        events(&trail, &id),
        ["initiated", "accepted", "timeout", "failed"]
    );
    assert_eq!(
        trail.ok(&["tick", "--now", LATER]),
        "",
        "a final handoff never times out"
    );
}

#[test]
fn on_timeout_retry_reinitiates_until_three_attempts_then_fails() {
    let trail = TestTrail::new();
    let id = trail.open(&["--timeout", "1m", "--on-timeout", "retry"]);
    for n in 0..3 {
        trail.ok(&["tick", "--now", &day(n)]);
    }
    assert_eq!(
        events(&trail, &id),
        [
            "initiated",
            "timeout",
            "initiated",
            "timeout",
            "initiated",
            "timeout",
            "failed"
        ]
    );
    let attempts = trail.ok(&["query", "--handoff", &id, "--event", "initiated"]);
    for attempt in 1..=3 {
        assert!(
            attempts.contains(&format!("\"attempt\":{attempt}")),
            "{attempts}"
        );
    }
    assert!(trail
        .ok(&["query", "--handoff", &id, "--event", "failed"])
        .contains("all 3 attempts"));
    assert_eq!(trail.run(&["verify"]).code, 0);
}

#[test]
fn on_timeout_escalate_opens_a_child_one_level_up() {
    let trail = TestTrail::new();
    let id = trail.open(&[
        "--timeout",
        "1m",
        "--on-timeout",
        "escalate",
        "--escalate-to",
        "ciso",
    ]);
    trail.ok(&["accept", &id]);
    trail.ok(&["tick", "--now", LATER]);
    assert_eq!(
        events(&trail, &id),
        ["initiated", "accepted", "timeout", "escalated"]
    );
    let children = trail.ok(&["query", "--to", "ciso", "--event", "initiated"]);
    assert!(
        children.contains("\"handoff_type\":\"escalation\""),
        "{children}"
    );
    assert!(
        children.contains(&format!("\"parent_handoff\":\"{id}\"")),
        "{children}"
    );
    assert!(children.contains("\"depth\":1"), "{children}");
    assert!(
        children.contains("\"decision_rationale\":\"timed out"),
        "{children}"
    );
    assert_eq!(trail.run(&["verify"]).code, 0);
}

#[test]
fn escalating_timeouts_stop_at_depth_three_and_fail() {
    let trail = TestTrail::new();
    trail.open(&[
        "--timeout",
        "1m",
        "--on-timeout",
        "escalate",
        "--escalate-to",
        "ciso",
    ]);
    for n in 0..4 {
        trail.ok(&["tick", "--now", &day(n)]);
    }
    let escalations = trail.ok(&["query", "--event", "escalated", "--format", "human"]);
    assert_eq!(escalations.lines().count(), 3, "{escalations}");
    let failed = trail.ok(&["query", "--event", "failed"]);
    assert!(failed.contains("escalation depth 3"), "{failed}");
    assert_eq!(trail.run(&["verify"]).code, 0);
}

#[test]
fn without_on_timeout_the_handoff_waits_at_timeout() {
    let trail = TestTrail::new();
    let id = trail.open(&["--timeout", "1m"]);
    trail.ok(&["tick", "--now", LATER]);
    trail.ok(&["tick", "--now", LATER]);
    assert_eq!(events(&trail, &id), ["initiated", "timeout"]);
}
