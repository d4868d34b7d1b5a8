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

pub mod canonical;
pub mod chain;
mod error;
pub mod event;
pub mod lifecycle;
pub mod maintenance;
pub mod ops;
pub mod query;
pub mod report;
pub mod store;
pub mod tick;
pub mod time;
pub mod validate;
pub mod verify;

pub use error::{Severity, TrailError};
pub use event::{ContextSnapshot, Event, EventType, HandoffType, OnTimeout, Outcome, RiskLevel};
pub use lifecycle::{Handoff, Ledger, Violation, ViolationKind};
pub use store::{Batch, ChainPoint, Line, Scope, Segment, Trail};
pub use tick::tick;
pub use verify::{verify, Break, Verification};
