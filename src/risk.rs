//! The classification of a change's risk from what it touched.
//!
//! A change starts at its declared [`RiskClass`] and every trigger it fires can only
//! raise it: [`classify`] reads the change through [`crate::git`], runs the rules of a
//! [`crate::policy::Policy`] (the built-in triggers and their rules are the policy's
//! defaults, data in `src/policy/defaults.yaml`), compiled once (`matcher`), and returns
//! a [`Classification`] whose [`Finding`]s say exactly why, down to the rule, the file
//! and the line. The policy does not depend on this module: it is consumed here.

mod bound_settings;
mod callbacks;
mod chains;
mod classify;
mod comments;
mod enclosing;
mod finding;
mod fold;
mod jsonnet;
mod keys;
mod matcher;
mod project;
mod redact;
mod rewrite;
#[cfg(test)]
mod rule_tests;
mod suppress;
mod syntax;

pub use classify::{
    classify, classify_keeping_rules, ClassifyError, CompiledRules, FILE_COUNT_LIMIT,
    FILE_COUNT_RULE,
};
pub use finding::{Classification, Finding, Suppressed};
pub use matcher::CompileError;
