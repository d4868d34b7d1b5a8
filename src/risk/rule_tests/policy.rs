//! The `policy` trigger's default rules: positives that must fire each rule, near
//! misses that must not.

use super::Case;

#[rustfmt::skip]
pub(super) const YES: &[Case] = &[
    ("policy.path.policy-file", ".handoff.yaml", ""),
];

#[rustfmt::skip]
pub(super) const NO: &[Case] = &[
    ("policy.path.policy-file", "docs/.handoff.yaml", ""),
];
