//! Tests of appending: racing first appends, single steps read on from a checkpoint,
//! and sealed lines in their canonical form.

use super::*;
use crate::policy::RiskClass;
use crate::trail::event::{ContextSnapshot, EventType, HandoffType, OnTimeout, Outcome};

/// Writers racing into a trail directory that does not exist yet, half of them
/// failing after creating it (and taking it away again): the ones that succeed all
/// land, once each, in an intact chain.
#[test]
fn a_failed_first_append_racing_others_loses_nothing() {
    for round in 0..3 {
        let root = tempfile::tempdir().expect("a temporary directory");
        let dir = root.path().join("new").join("trail");
        let writers: Vec<_> = (0..8)
            .map(|n| {
                let trail = Trail::at(&dir);
                std::thread::spawn(move || {
                    trail.transact(Timestamp::now(), |batch| {
                        let draft = format!(
                            r#"{{"attempt":1,"event_type":"initiated","from_agent":"a","handoff_id":"h{n}","handoff_type":"sequential","prev":"","recorded_at":"","seq":0,"timestamp":"2026-01-11T20:30:00.000Z","to_agent":"b"}}"#
                        );
                        batch.push(serde_json::from_str(&draft).expect("an event"))?;
                        if n % 2 == 0 {
                            std::thread::sleep(std::time::Duration::from_millis(5));
                            return Err(TrailError::plain("refused"));
                        }
                        Ok(())
                    })
                })
            })
            .collect();
        for (n, writer) in writers.into_iter().enumerate() {
            let outcome = writer.join().expect("no panic");
            assert_eq!(outcome.is_ok(), n % 2 == 1, "round {round}, writer {n}");
        }
        let trail = Trail::at(&dir);
        let report = crate::trail::verify::verify(&trail).expect("verified");
        assert!(report.is_intact(), "round {round}: {:?}", report.breaks);
        let mut ids = Vec::new();
        trail
            .for_each_event(|event, _| {
                ids.push(event.handoff_id);
                Ok(())
            })
            .expect("read");
        ids.sort();
        assert_eq!(ids, ["h1", "h3", "h5", "h7"], "round {round}");
    }
}

/// On a trail of over a MiB, the first single step reads it all and leaves a
/// checkpoint; the next reads on from it: a few lines, not the trail.
#[test]
fn a_single_step_reads_on_from_the_checkpoint() {
    let root = tempfile::tempdir().expect("a temporary directory");
    let trail = Trail::at(root.path().join("trail"));
    let event = |id: &str, event_type: &str, reason: &str| -> Event {
        let draft = format!(
            r#"{{"attempt":1,"event_type":"{event_type}","from_agent":"a","handoff_id":"{id}","handoff_type":"sequential","prev":"","reason":"{reason}","recorded_at":"","seq":0,"timestamp":"2026-01-11T20:30:00.000Z","to_agent":"b"}}"#
        );
        serde_json::from_str(&draft).expect("an event")
    };
    let padding = "x".repeat(2_000);
    let opened = trail.transact(Timestamp::now(), |batch| {
        for n in 0..800 {
            batch.push(event(&format!("h{n}"), "initiated", &padding))?;
        }
        Ok(())
    });
    assert!(opened.is_ok());
    let scope = Scope::handoffs(["h1"]);
    let state = trail.read_state(&scope).expect("read");
    assert!(state.read >= checkpoint::WORTH_KEEPING);
    let accepted = trail.transact_in(&scope, Timestamp::now(), |batch| {
        batch.push(event("h1", "accepted", "ok")).map(|_| ())
    });
    assert!(accepted.is_ok());
    assert!(root
        .path()
        .join("trail")
        .join(checkpoint::CHECKPOINT)
        .exists());
    for (id, state_there) in [("h1", EventType::Accepted), ("h2", EventType::Initiated)] {
        let state = trail.read_state(&Scope::handoffs([id])).expect("read");
        assert!(state.read < 10_000, "{id}: {} bytes read", state.read);
        let handoff = state.ledger.get(id).map(|h| (h.state, h.to_agent.as_str()));
        assert_eq!(handoff, Some((state_there, "b")), "{id}");
        assert_eq!(state.tail.map(|t| t.seq), Some(800));
    }
}

/// A trail of over 1 MiB with handoffs in every shape a single step meets: open,
/// closed, rejected and re-routed once, an escalation's closed parent, and events
/// after the checkpoint (a step on one open there, one closed after it, a new one).
fn checkpointed_trail(dir: &Path) -> Trail {
    let trail = Trail::at(dir);
    let padding = "x".repeat(2_000);
    let event = |id: &str, event_type: &str, to: &str, tail: &str| -> Event {
        let draft = format!(
            r#"{{"attempt":1,"event_type":"{event_type}","from_agent":"a","handoff_id":"{id}","handoff_type":"sequential","prev":"","reason":"{padding}","recorded_at":"","seq":0,"timestamp":"2026-01-11T20:30:00.000Z","to_agent":"{to}"{tail}}}"#
        );
        serde_json::from_str(&draft).expect("an event")
    };
    let reroute = r#","parent_handoff":"h2""#;
    let escalation = r#","parent_handoff":"h3","depth":1"#;
    let built = trail.transact(Timestamp::now(), |batch| {
        for n in 0..600 {
            let to = if n % 2 == 0 { "b" } else { "c" };
            batch.push(event(&format!("h{n}"), "initiated", to, ""))?;
        }
        for (id, step, to) in [
            ("h1", "accepted", "c"),
            ("h1", "completed", "c"),
            ("h2", "rejected", "b"),
            ("h3", "accepted", "c"),
            ("h3", "escalated", "c"),
            ("h4", "accepted", "b"),
        ] {
            batch.push(event(id, step, to, ""))?;
        }
        batch.push(event("r1", "initiated", "c", reroute))?;
        let mut child = event("e1", "initiated", "d", escalation);
        child.handoff_type = HandoffType::Escalation;
        batch.push(child)?;
        Ok(())
    });
    assert!(built.is_ok(), "{built:?}");
    assert!(super::super::open::open_ledger(&trail).is_ok());
    assert!(dir.join(checkpoint::CHECKPOINT).exists());
    assert!(dir.join(checkpoint::INDEX).exists());
    let after = trail.transact(Timestamp::now(), |batch| {
        batch.push(event("h6", "accepted", "b", ""))?;
        batch.push(event("h8", "rejected", "b", ""))?;
        batch.push(event("n1", "initiated", "b", ""))?;
        Ok(())
    });
    assert!(after.is_ok(), "{after:?}");
    trail
}

/// From the checkpoint, each kind of single step reads a few lines and knows its
/// handoffs, and its receiver's load, as a read from the start does.
#[test]
fn each_single_step_from_the_checkpoint_knows_what_a_read_from_the_start_knows() {
    let root = tempfile::tempdir().expect("a temporary directory");
    let dir = root.path().join("trail");
    let trail = checkpointed_trail(&dir);
    let only = |handoffs: &[&str], receivers: &[&str]| Scope::Only {
        handoffs: handoffs.iter().map(|id| id.to_string()).collect(),
        receivers: receivers.iter().map(|agent| agent.to_string()).collect(),
    };
    let scopes = [
        (
            only(&["h4"], &[]),
            "a step on a handoff open at the checkpoint",
        ),
        (only(&["h6"], &[]), "a step on one stepped on after it"),
        (only(&["h1"], &[]), "a step on a handoff closed before it"),
        (only(&["h8"], &[]), "a step on one closed after it"),
        (only(&["n2", "h2"], &[]), "a re-route of a rejected parent"),
        (only(&["n2", "h3"], &[]), "a child of an escalated parent"),
        (only(&["n2"], &[]), "an open of a new id"),
        (only(&["n2"], &["b"]), "an open checked against a registry"),
        (only(&["n2"], &["c"]), "the same, another receiver"),
        (only(&["n1"], &[]), "a step on one opened after it"),
    ];
    for (scope, what) in &scopes {
        let from_checkpoint = trail.read_state(scope).expect("read");
        assert!(
            from_checkpoint.read < 20_000,
            "{what}: {} bytes read",
            from_checkpoint.read
        );
        let moved = dir.join("moved");
        fs::rename(dir.join(checkpoint::CHECKPOINT), &moved).expect("moved");
        let from_start = trail.read_state(scope).expect("read");
        fs::rename(&moved, dir.join(checkpoint::CHECKPOINT)).expect("back");
        assert!(from_start.read > 1 << 20, "{what}");
        let Scope::Only {
            handoffs,
            receivers,
        } = scope
        else {
            continue;
        };
        for id in handoffs {
            let expected = from_start.ledger.get(id);
            assert_eq!(from_checkpoint.ledger.get(id), expected, "{what}: {id}");
        }
        for agent in receivers {
            assert_eq!(
                from_checkpoint.ledger.open_for(agent),
                from_start.ledger.open_for(agent),
                "{what}: {agent}"
            );
        }
        assert_eq!(from_checkpoint.tail, from_start.tail, "{what}");
        assert_eq!(from_checkpoint.expected, from_start.expected, "{what}");
    }
    let state = trail
        .read_state(&only(&["n2", "h2"], &["b", "c"]))
        .expect("read");
    assert_eq!(state.ledger.get("h2").map(|h| h.reroutes), Some(1));
    assert_eq!(state.ledger.open_for("b"), 299);
    assert_eq!(state.ledger.open_for("c"), 299);
    let closed = trail.read_state(&only(&["h1"], &[])).expect("read");
    assert_eq!(
        closed.ledger.get("h1").map(|h| h.state),
        Some(EventType::Completed)
    );
}

/// Every field set, strings that need escaping, a message with floats and Unicode:
/// the sealed line is byte for byte the RFC 8785 form of itself.
#[test]
fn a_sealed_line_is_its_own_canonical_form() {
    let message = serde_json::json!({"z": 1e30, "a": [4.5, 0.002, -0.0], "é": "\u{1f600}", "\u{e000}": 1, "\u{1f600}": 2});
    let canonical = String::from_utf8(chain::canonical_json(&message)).expect("UTF-8");
    let mut event = Event {
        attempt: 2,
        broadcast_group_id: Some("g".into()),
        context_snapshot: Some(ContextSnapshot {
            artifact_count: Some(3),
            context_variables_hash: Some(GENESIS.into()),
            task_id: "ENG-42 \"quoted\" \\ \u{1}\u{1f} \n\t é".into(),
            task_status: Some("pending".into()),
        }),
        decision_rationale: Some("r".into()),
        depth: 1,
        duration_ms: Some(5),
        escalate_to: Some("e".into()),
        event_type: EventType::Completed,
        // The pattern `seal` places `hash` after, inside an earlier string.
        from_agent: "a\",\"handoff_type\":\"escalation\"".into(),
        handoff_id: "h".into(),
        handoff_type: HandoffType::Escalation,
        hash: String::new(),
        message: serde_json::value::RawValue::from_string(canonical).ok(),
        on_timeout: Some(OnTimeout::Retry),
        outcome: Some(Outcome::Partial),
        parent_handoff: Some("p".into()),
        prev: GENESIS.into(),
        reason: Some("\u{7f} \u{2028} </script>".into()),
        recorded_at: "2026-01-11T20:30:00.000Z".into(),
        required_capabilities: vec!["auth: [oauth2]".into()],
        risk_level: Some(RiskClass::High),
        rollback_to: Some("r".into()),
        seq: 9_007_199_254_740_991,
        timeout: Some("30m".into()),
        timeout_ms: Some(1_800_000),
        timestamp: "2026-01-11T20:30:00.000Z".into(),
        to_agent: "b".into(),
        tokens_consumed: Some(7),
        warnings: vec!["w".into()],
        workflow_id: Some("wf".into()),
    };
    let line = seal(&mut event);
    assert_eq!(line, serde_json::to_vec(&event).expect("JSON"));
    let value: serde_json::Value = serde_json::from_slice(&line).expect("JSON");
    assert_eq!(chain::canonical_json(&value), line);
    let map = value.as_object().cloned().expect("an object");
    assert_eq!(chain::event_hash(&map), event.hash);
    // Floats in the message send `verify` down the slow path; without them the line
    // takes the fast one.
    assert!(crate::trail::canonical::hash_member(&line).is_none());
    event.message = None;
    let plain = seal(&mut event);
    assert!(crate::trail::canonical::hash_member(&plain).is_some());
}
