//! The handoff trail: a tamper-evident, append-only audit log of handoffs.
//!
//! Agent runtimes hand the tool the messages they already exchange (002's handoff,
//! acceptance and return; 004's handoff, completion and failure messages), or use the
//! commands (`open`, `accept`, …); each becomes one or more audit [`Event`]s of 002
//! §7.1, checked against the handoff's lifecycle ([`lifecycle`]) and appended to a
//! [`Trail`] directory of daily JSON-lines segments ([`store`]). Each event carries
//! `seq`, `prev` and `hash`: SHA-256 over the RFC 8785 canonical JSON of the event
//! without its hash ([`chain`]), so an edited, deleted, reordered or truncated event is
//! found by [`verify()`], which any JCS library can reproduce.
//!
//! One pass over the trail gives everything a view needs: [`Trail::for_each_event`]
//! streams events with their segment and line, and a [`Ledger`] folded over them holds
//! every handoff's current state. `verify`, `query`, `tick`, `prune` and the appends
//! are built on those two.

mod append;
mod canonical;
mod chain;
mod checkpoint;
mod error;
mod event;
mod export;
mod fast;
mod import;
mod lifecycle;
mod maintenance;
mod open;
mod ops;
mod query;
mod store;
mod summary;
mod tick;
pub(crate) mod time;
mod validate;
mod verify;
mod view;

pub use append::{seal, Batch, Scope};
pub use canonical::{hash_member, without_hash};
pub use chain::{canonical_json, event_hash, sha256_hex_parts, GENESIS};
pub use error::{ErrorKind, TrailError};
pub use event::{ContextSnapshot, Event, EventType, HandoffType, OnTimeout, Outcome};
pub use export::export_otlp;
pub use import::{import, import_files, Imported, Skipped};
pub use lifecycle::{
    Handoff, Ledger, Violation, ViolationKind, MAX_ATTEMPTS, MAX_DEPTH, MAX_REROUTES,
};
pub use maintenance::{
    prune, repair, Prune, PrunedSegment, Repair, TornLine, ACTIVE_TASK_DAYS, COMPLETED_TASK_DAYS,
    ESCALATION_DAYS,
};
pub(crate) use ops::push_intent;
pub use ops::{
    append, escalate, follow, initiate, open_handoff, take_steps, Deferred, Initiation, Intent,
    Located, Step,
};
pub use query::{query, Filter};
pub use store::{default_dir, ChainPoint, Line, Segment, Trail};
pub use summary::{shares, summarise, Bar, Counted, Spread, TaskRow, Timeline, TrailSummary};
pub use tick::tick;
pub use time::{parse_duration, parse_utc};
pub use validate::against_registry;
pub use verify::{definition_hash, parse as parse_line, verify, Parsed, Verification};
pub use view::{
    list, show, views, Deliverables, EventSummary, Expectation, HandoffRow, HandoffView,
    HandoffViews, VerificationCheck,
};
