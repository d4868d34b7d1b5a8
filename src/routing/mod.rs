//! Routing: choosing the agent for a task from an agent registry, and auditing the
//! routing decisions that were recorded.
//!
//! The handoff protocol (seed 003, "Routing Decision Artifact") routes a task by the
//! capability it needs, `domain: [qualifier, …]`. Every agent that declares the domain is
//! a candidate; three tie-break rules, in priority order, narrow the candidates down:
//!
//! 1. `qualifier-match`: the candidates covering the most requested qualifiers win;
//! 2. `department-affinity`: among those still tied, the ones in the requester's
//!    department win;
//! 3. `documented-choice`: still tied, the orchestrator picks and writes down why.
//!
//! The rule recorded is the first one that left exactly one agent; with a single
//! candidate no rule was needed. Load-balancing ("fewer current assignments") is not a
//! rule, on purpose: nothing durable records assignments, so such a choice could never
//! be audited.
//!
//! The module is split by idea: [`normalise`] turns capability text into canonical
//! terms, [`aliases`] reads the controlled vocabulary and qualifier aliases,
//! [`registry`] reads the three registry layouts, [`route`] applies the rules and
//! [`audit`] re-derives recorded decisions and reports where they break the rules.
//! Everything here is deterministic: the same inputs give the same output, byte for
//! byte, because every collection is sorted.

pub mod aliases;
pub mod artifact;
pub mod audit;
pub mod normalise;
pub mod registry;
pub mod route;
pub mod summary;
mod yaml;

pub use aliases::{load_registry, Aliases};
pub use normalise::parse_capability;
pub use registry::{Agent, Registry};
pub use route::{
    request_warnings, route, Candidate, Decision, Pick, Rejection, RouteError, RouteRequest,
    RoutingOutcome,
};
pub use yaml::RegistryError;
