//! `tick`: timeouts that are due, with their `on_timeout` applied (002 §4.2, §6.3).
//!
//! A handoff with a return timeout that is still `initiated` or `accepted` when its
//! current attempt's deadline (the attempt's `initiated` time plus the timeout) has
//! passed gets a `timeout` event; then `retry` re-initiates it (attempt + 1; after the
//! third attempt it is `failed`), `escalate` records `escalated` and opens a child
//! escalation to its `escalate_to` (else its rollback target, else its sender; at depth
//! 3 it is `failed` instead), `fail` records `failed`. Without `on_timeout` it stays at
//! `timeout` for a person to decide (`retry`, `escalate` or `fail`).

use super::append::Batch;
use super::error::TrailError;
use super::event::{Event, EventType, OnTimeout};
use super::lifecycle::{Handoff, MAX_ATTEMPTS, MAX_DEPTH};
use super::ops::{self, Step};
use super::store::Trail;
use super::time;
use jiff::Timestamp;

/// Applies every timeout due at `now`; returns the events appended.
pub fn tick(trail: &Trail, now: Timestamp) -> Result<Vec<Event>, TrailError> {
    let ((), events) = trail.transact(now, |batch| {
        let now_ms = time::millis(now);
        let mut due: Vec<Handoff> = batch
            .ledger()
            .handoffs()
            .filter(|h| matches!(h.state, EventType::Initiated | EventType::Accepted))
            .filter(|h| h.deadline_ms().is_some_and(|deadline| deadline <= now_ms))
            .cloned()
            .collect();
        due.sort_by(|a, b| (a.deadline_ms(), &a.id).cmp(&(b.deadline_ms(), &b.id)));
        for handoff in due {
            time_out(batch, &handoff)?;
        }
        Ok(())
    })?;
    Ok(events)
}

fn time_out(batch: &mut Batch, handoff: &Handoff) -> Result<(), TrailError> {
    let waited = handoff.timeout.clone().unwrap_or_default();
    let reason = format!("timed out: no result within {waited}");
    ops::follow(
        batch,
        Step::new(&handoff.id, EventType::Timeout).because(Some(reason)),
    )?;
    let fail = |batch: &mut Batch, why: String| {
        ops::follow(
            batch,
            Step::new(&handoff.id, EventType::Failed).because(Some(why)),
        )
        .map(|_| ())
    };
    match handoff.on_timeout {
        None => Ok(()),
        Some(OnTimeout::Fail) => fail(
            batch,
            format!("timed out after {waited} (on_timeout: fail)"),
        ),
        Some(OnTimeout::Retry) if handoff.attempt < MAX_ATTEMPTS => {
            let step = Step::new(&handoff.id, EventType::Initiated).because(Some(format!(
                "retry {} of {MAX_ATTEMPTS} after a timeout",
                handoff.attempt + 1
            )));
            ops::follow(batch, step).map(|_| ())
        }
        Some(OnTimeout::Retry) => fail(
            batch,
            format!("all {MAX_ATTEMPTS} attempts timed out (on_timeout: retry)"),
        ),
        Some(OnTimeout::Escalate) if handoff.depth < MAX_DEPTH => {
            let target = handoff
                .escalate_to
                .clone()
                .or_else(|| handoff.rollback_to.clone())
                .unwrap_or_else(|| handoff.from_agent.clone());
            let rationale = format!(
                "timed out after {waited} with {}; escalated to {target} (on_timeout: escalate)",
                handoff.to_agent
            );
            ops::escalate(batch, &handoff.id, &target, &rationale).map(|_| ())
        }
        Some(OnTimeout::Escalate) => fail(
            batch,
            format!("timed out at escalation depth {MAX_DEPTH}: no level left to escalate to"),
        ),
    }
}
