//! The protocol's risk classes.

use crate::spelled::spelled_enum;
use std::str::FromStr;

spelled_enum! {
    deserialize
    /// The protocol's risk classes, ordered from least to most risky.
    RiskClass {
        /// Docs, comments, config tweaks, typo fixes, small internal refactors.
        Low => "low",
        /// New features, refactors, API changes, schema additions.
        Medium => "medium",
        /// Security, auth, payments, migrations, credentials, env vars.
        High => "high",
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
        RiskClass::parse(text).ok_or_else(|| UnknownRiskClass(text.to_string()))
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

    #[test]
    fn classes_deserialize_from_their_exact_spelling_only() {
        let class: Result<RiskClass, _> = serde_json::from_str("\"medium\"");
        assert_eq!(class.ok(), Some(RiskClass::Medium));
        let error = serde_json::from_str::<RiskClass>("\"High\"").map(|_| ());
        assert_eq!(
            error.map_err(|e| e.to_string()),
            Err("unknown variant `High`, expected one of `low`, `medium`, `high` at line 1 column 6".into())
        );
        assert!(serde_json::from_str::<RiskClass>("3").is_err());
    }
}
