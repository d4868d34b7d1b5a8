//! Every legal and illegal step, through the commands, against TRAIL.md's lifecycle;
//! and the retry, escalation and re-route caps.

use super::TestTrail;
use serde_json::Value;

/// The states a handoff can be in, each reached through the real commands.
const STATES: [&str; 7] = [
    "initiated",
    "accepted",
    "rejected",
    "completed",
    "failed",
    "timeout",
    "escalated",
];

/// The commands that add a step, and the event each adds.
const COMMANDS: [(&str, &str); 6] = [
    ("accept", "accepted"),
    ("reject", "rejected"),
    ("complete", "completed"),
    ("fail", "failed"),
    ("escalate", "escalated"),
    ("retry", "initiated"),
];

/// TRAIL.md's legal next events per state (a timeout without `on_timeout`, attempt 1).
fn legal(state: &str) -> &'static [&'static str] {
    match state {
        "initiated" => &["accepted", "rejected", "timeout"],
        "accepted" => &["completed", "failed", "timeout", "escalated"],
        "timeout" => &["initiated", "escalated", "failed"],
        _ => &[],
    }
}

fn command_args<'a>(command: &'a str, id: &'a str) -> Vec<&'a str> {
    match command {
        "reject" => vec!["reject", id, "--reason", "no"],
        "fail" => vec!["fail", id, "--reason", "no"],
        "escalate" => vec!["escalate", id, "--to", "ciso", "--reason", "up"],
        other => vec![other, id],
    }
}

/// One trail holds a handoff per state and command, reached by two batches of messages
/// (handoffs, acceptances, rejections, returns), one `tick` and the `escalate`s: a few
/// processes instead of four per case.
#[test]
fn every_step_from_every_state_is_allowed_exactly_when_the_lifecycle_says() {
    let trail = TestTrail::new();
    let id = |state: &str, command: &str| format!("{state}-{command}");
    let handoff = |id: &str, timeout: &str| {
        format!(
            r#"{{"handoff":{{"id":"{id}","timestamp":"2026-01-11T20:30:00Z","from_agent":"architect","to_agent":"auto-code","type":"sequential","reason":"r","context":{{"task_id":"ENG-42"}}{timeout}}}}}"#
        )
    };
    // The timed-out ones first: a tick times out every open handoff with a timeout.
    let mut timed: Vec<String> = Vec::new();
    for (command, _) in COMMANDS {
        let timeout = r#","return_protocol":{"timeout":"1m"}"#;
        timed.push(handoff(&id("timeout", command), timeout));
    }
    assert_eq!(trail.append(&timed.join("\n")).code, 0);
    trail.ok(&["tick", "--now", "2099-01-01T00:00:00Z"]);
    let mut batch: Vec<String> = Vec::new();
    let mut escalations: Vec<String> = Vec::new();
    for state in STATES.iter().filter(|state| **state != "timeout") {
        for (command, _) in COMMANDS {
            let id = id(state, command);
            batch.push(handoff(&id, ""));
            let acceptance = |status: &str| {
                format!(
                    r#"{{"handoff_id":"{id}","status":"{status}","reason":"busy","acknowledged_at":"2026-01-11T20:31:00Z"}}"#
                )
            };
            let ending = |status: &str| {
                format!(r#"{{"return":{{"handoff_id":"{id}","status":"{status}"}}}}"#)
            };
            match *state {
                "accepted" => batch.push(acceptance("accepted")),
                "rejected" => batch.push(acceptance("rejected")),
                "completed" => batch.extend([acceptance("accepted"), ending("success")]),
                "failed" => batch.extend([acceptance("accepted"), ending("failed")]),
                "escalated" => {
                    batch.push(acceptance("accepted"));
                    escalations.push(id);
                }
                _ => {}
            }
        }
    }
    let appended = trail.append(&batch.join("\n"));
    assert_eq!(appended.code, 0, "{}", appended.stderr);
    for id in &escalations {
        trail.ok(&["escalate", id, "--to", "qa", "--reason", "needs a reviewer"]);
    }
    let states: Value =
        serde_json::from_str(&trail.ok(&["list", "--all", "--format", "json"])).expect("JSON");
    for row in states.as_array().into_iter().flatten() {
        let id = row["handoff_id"].as_str().unwrap_or_default();
        // The escalations' children have ids of their own.
        if let Some(state) = STATES.iter().find(|s| id.starts_with(&format!("{s}-"))) {
            assert_eq!(row["status"], *state, "{id}");
        }
    }
    for state in STATES {
        for (command, event) in COMMANDS {
            let id = id(state, command);
            let before = trail.snapshot();
            let run = trail.run(&command_args(command, &id));
            let allowed = legal(state).contains(&event);
            let case = format!("{command} after {state}: {}{}", run.stdout, run.stderr);
            if allowed {
                assert_eq!(run.code, 0, "{case}");
                assert!(run.stdout.contains(&format!(" {event} {id}")), "{case}");
            } else {
                assert_eq!(run.code, 1, "{case}");
                assert!(run.stderr.contains("refused"), "{case}");
                let legal_next = legal(state);
                if legal_next.is_empty() {
                    assert!(run.stderr.contains("nothing may follow"), "{case}");
                } else {
                    assert!(run.stderr.contains("legal next"), "{case}");
                }
                assert_eq!(
                    trail.snapshot(),
                    before,
                    "a refusal wrote something: {case}"
                );
            }
        }
    }
    let verified = trail.run(&["verify"]);
    assert_eq!(verified.code, 0, "{}", verified.stdout);
}

#[test]
fn a_step_on_an_unknown_handoff_is_refused() {
    let trail = TestTrail::new();
    trail.open(&[]);
    let run = trail.run(&["accept", "ho_missing"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("no handoff `ho_missing`"),
        "{}",
        run.stderr
    );
}

#[test]
fn only_the_receiver_accepts() {
    let trail = TestTrail::new();
    let id = trail.open(&[]);
    let run = trail.run(&["accept", &id, "--by", "qa"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("not the receiver"), "{}", run.stderr);
    trail.ok(&["accept", &id, "--by", "auto-code"]);
}

#[test]
fn escalations_stop_at_depth_three() {
    let trail = TestTrail::new();
    let mut id = trail.open(&[]);
    for (level, agent) in ["reviewer", "architect", "human"].iter().enumerate() {
        trail.ok(&["accept", &id]);
        let out = trail.ok(&[
            "escalate",
            &id,
            "--to",
            agent,
            "--reason",
            "beyond my budget",
        ]);
        id = out.lines().last().expect("the child id").to_string();
        let events = trail.ok(&["query", "--handoff", &id]);
        assert!(
            events.contains(&format!("\"depth\":{}", level + 1)),
            "{events}"
        );
    }
    trail.ok(&["accept", &id]);
    let before = trail.snapshot();
    let run = trail.run(&["escalate", &id, "--to", "ceo", "--reason", "again"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("depth 3"), "{}", run.stderr);
    assert_eq!(trail.snapshot(), before);
}

#[test]
fn a_rejected_handoff_is_rerouted_at_most_three_times_and_never_to_the_same_agent() {
    let trail = TestTrail::new();
    let id = trail.open(&[]);
    trail.ok(&["reject", &id, "--reason", "at_capacity"]);
    let reroute = |to: &str| {
        trail.run(&[
            "open",
            "--from",
            "architect",
            "--to",
            to,
            "--type",
            "sequential",
            "--task",
            "ENG-42",
            "--reason",
            "re-route",
            "--parent",
            &id,
        ])
    };
    let same = reroute("auto-code");
    assert_eq!(same.code, 1);
    assert!(same.stderr.contains("another agent"), "{}", same.stderr);
    for to in ["qa", "ciso", "backend"] {
        assert_eq!(reroute(to).code, 0);
    }
    let fourth = reroute("frontend");
    assert_eq!(fourth.code, 1);
    assert!(
        fourth.stderr.contains("re-routed 3 times"),
        "{}",
        fourth.stderr
    );
}

#[test]
fn a_timed_out_handoff_is_retried_by_hand_at_most_three_attempts() {
    let trail = TestTrail::new();
    let id = trail.open(&["--timeout", "1m"]);
    for attempt in 2..=3 {
        trail.ok(&["tick", "--now", "2099-01-01T00:00:00Z"]);
        let out = trail.ok(&["retry", &id]);
        assert!(out.contains(&format!("attempt {attempt}")), "{out}");
    }
    trail.ok(&["tick", "--now", "2099-01-01T00:00:00Z"]);
    let run = trail.run(&["retry", &id]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("used its 3 attempts"), "{}", run.stderr);
    trail.ok(&["fail", &id, "--reason", "gave up"]);
}

#[test]
fn open_validates_capabilities_and_capacity_against_004s_capabilities_yaml() {
    let trail = TestTrail::new();
    let registry = trail.dir.path().join("capabilities.yaml");
    let seed = std::fs::read_to_string(super::fixture("004-capabilities.yaml")).expect("fixture");
    let text = seed.replace("  qa:\n", "  qa:\n    max_concurrent_tasks: 1\n");
    std::fs::write(&registry, text).expect("write the registry");
    let registry = registry.to_str().expect("UTF-8");
    let open = |to: &str, capabilities: &[&str]| {
        let mut args = vec![
            "open",
            "--from",
            "auto-code",
            "--to",
            to,
            "--type",
            "sequential",
            "--task",
            "ENG-42",
            "--reason",
            "test it",
            "--registry",
            registry,
        ];
        for capability in capabilities {
            args.push("--capability");
            args.push(capability);
        }
        trail.run(&args)
    };
    // All covered: accepted, no warning.
    let all = open("qa", &["code", "test_request"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert!(!all.stderr.contains("warning"), "{}", all.stderr);
    // Capacity: qa takes one handoff at a time.
    let full = open("qa", &["code"]);
    assert_eq!(full.code, 1);
    assert!(full.stderr.contains("at_capacity"), "{}", full.stderr);
    // Some covered: accepted, the gap kept in the event.
    let some = open("ciso", &["code", "design_request"]);
    assert_eq!(some.code, 0, "{}", some.stderr);
    assert!(some.stderr.contains("capability gap"), "{}", some.stderr);
    let id = some.stdout.trim();
    let events = trail.ok(&["query", "--handoff", id]);
    assert!(
        events.contains("\"warnings\":[\"capability gap"),
        "{events}"
    );
    // None covered: refused, naming who has them.
    let none = open("ciso", &["design_request"]);
    assert_eq!(none.code, 1);
    assert!(
        none.stderr.contains("design_request: architect"),
        "{}",
        none.stderr
    );
    // Not in the registry.
    let stranger = open("intern", &["code"]);
    assert_eq!(stranger.code, 1);
    assert!(
        stranger.stderr.contains("not in the registry"),
        "{}",
        stranger.stderr
    );
    // Closing qa's handoff frees its capacity.
    let first = all.stdout.trim();
    trail.ok(&["reject", first, "--reason", "later"]);
    assert_eq!(open("qa", &["code"]).code, 0);
}

/// A single append on a large trail reads on from the checkpoint (the first one, which
/// reads it all, leaves one): every step answers as a read from the start answers it,
/// refusals included, and the trail stays intact.
#[test]
fn single_appends_read_on_from_the_checkpoint_as_a_read_from_the_start_would() {
    let messages = super::padded_messages();
    let with = TestTrail::new();
    let without = TestTrail::new();
    for trail in [&with, &without] {
        assert_eq!(trail.append(&messages).code, 0);
    }
    let open = |id: &'static str| -> Vec<&'static str> {
        let args = ["open", "--from", "c", "--to", "d", "--type", "sequential"];
        let rest = ["--task", "T-99", "--reason", "r", "--id", id];
        args.into_iter().chain(rest).collect()
    };
    let steps: Vec<Vec<&str>> = vec![
        vec!["complete", "ho_1"],
        // Open at the checkpoint, closed at it, new, initiated only, unknown.
        vec!["complete", "ho_2"],
        vec!["complete", "ho_1"],
        vec!["accept", "ho_3"],
        vec!["complete", "ho_0"],
        vec!["accept", "ho_99"],
        open("ho_new"),
        vec!["accept", "ho_new"],
        open("ho_new"),
        vec!["fail", "ho_4", "--reason", "broken"],
        vec!["escalate", "ho_5", "--to", "e", "--reason", "stuck"],
        vec!["retry", "ho_6"],
    ];
    let checkpoint = with.path().join("CHECKPOINT");
    for (n, step) in steps.iter().enumerate() {
        let _ = std::fs::remove_file(without.path().join("CHECKPOINT"));
        let (a, b) = (with.run(step), without.run(step));
        assert_eq!(a.code, b.code, "{step:?}: {}", a.stderr);
        let generic = |text: &str| text.replace(&with.path().display().to_string(), "T");
        let generic_b = |text: &str| text.replace(&without.path().display().to_string(), "T");
        assert_eq!(generic(&a.stderr), generic_b(&b.stderr), "{step:?}");
        if step[0] != "escalate" {
            assert_eq!(
                a.stdout.lines().count(),
                b.stdout.lines().count(),
                "{step:?}"
            );
        }
        // The first append read the whole trail and left a checkpoint for the next.
        assert!(
            n == 0 || checkpoint.exists(),
            "no checkpoint after {step:?}"
        );
    }
    let _ = std::fs::remove_file(without.path().join("CHECKPOINT"));
    let list = |trail: &TestTrail| trail.ok(&["list", "--all", "--format", "json"]);
    // The escalation's child has a new id on each trail: rows are compared by their
    // ends and state.
    let rows = |text: &str| -> Vec<String> {
        let value: Value = serde_json::from_str(text).expect("JSON");
        let mut rows: Vec<String> = (value.as_array().cloned().unwrap_or_default())
            .into_iter()
            .map(|row| {
                let id = row["handoff_id"].as_str().unwrap_or("").to_string();
                let id = if id.starts_with("ho_") {
                    id
                } else {
                    "child".into()
                };
                format!(
                    "{id} {} {} {}",
                    row["from_agent"], row["to_agent"], row["status"]
                )
            })
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(rows(&list(&with)), rows(&list(&without)));
    for trail in [&with, &without] {
        assert!(trail.ok(&["verify"]).starts_with("intact"));
    }
}
