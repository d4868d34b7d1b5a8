//! The gate: one verdict over a change's risk, evidence, file scope and sign-off.
//!
//! [`bundle`] judges the substance of Evidence Bundle items and [`reviewer`] who must
//! sign a change off; [`task`] chooses the task and orders its records.

pub mod bundle;
pub mod reviewer;
pub mod task;
