//! The protocol's risk classes.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The protocol's risk classes, ordered from least to most risky.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RiskClass {
    /// Docs, comments, config tweaks, typo fixes, small internal refactors.
    Low,
    /// New features, refactors, API changes, schema additions.
    Medium,
    /// Security, auth, payments, migrations, credentials, env vars.
    High,
}

impl RiskClass {
    /// Every class, lowest first.
    pub const ALL: [RiskClass; 3] = [RiskClass::Low, RiskClass::Medium, RiskClass::High];

    /// The canonical lower-case spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RiskClass::Low => "low",
            RiskClass::Medium => "medium",
            RiskClass::High => "high",
        }
    }
}

impl fmt::Display for RiskClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for a string that is not a risk class.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a risk class; expected one of: low, medium, high")]
pub struct UnknownRiskClass(pub String);

impl FromStr for RiskClass {
    type Err = UnknownRiskClass;

    /// Matches case-insensitively, ignoring surrounding white space.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim();
        RiskClass::ALL
            .into_iter()
            .find(|class| class.as_str().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| UnknownRiskClass(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_ordered_and_parse_case_insensitively() {
        assert!(RiskClass::Low < RiskClass::Medium && RiskClass::Medium < RiskClass::High);
        assert_eq!(" HIGH ".parse::<RiskClass>(), Ok(RiskClass::High));
        assert!("critical".parse::<RiskClass>().is_err());
    }
}
