//! The roll-out setting `require_task`: from which risk class a change with no Task
//! Assignment is rejected.
//!
//! A repository that has just adopted the gate has pull requests nobody filed records
//! for. `require_task: never` lets them pass with a warning that says what the gate would
//! require; `from medium` (or `from high`) rejects only the riskier ones; `always`, the
//! default, rejects every change without an assignment. Like every key, it is read from
//! the base: a change cannot relax it for itself.

use super::RiskClass;
use serde::{Serialize, Serializer};
use std::fmt;

/// When a change with no Task Assignment is rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequireTask {
    /// Never: it passes with a warning at every class.
    Never,
    /// From this class up (`always` is from `low`).
    From(RiskClass),
}

impl RequireTask {
    /// Whether a change of `class` needs a Task Assignment.
    pub fn requires(self, class: RiskClass) -> bool {
        matches!(self, RequireTask::From(least) if class >= least)
    }

    /// Reads `always`, `never` or `from CLASS`.
    pub fn parse(text: &str) -> Result<RequireTask, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["always"] => Ok(RequireTask::From(RiskClass::Low)),
            ["never"] => Ok(RequireTask::Never),
            ["from", class] => class
                .parse()
                .map(RequireTask::From)
                .map_err(|error| format!("require_task `{text}`: {error}")),
            _ => Err(format!(
                "require_task `{text}` is not one of: always, never, from medium, from high"
            )),
        }
    }
}

impl fmt::Display for RequireTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequireTask::Never => f.write_str("never"),
            RequireTask::From(RiskClass::Low) => f.write_str("always"),
            RequireTask::From(class) => write!(f, "from {class}"),
        }
    }
}

impl Serialize for RequireTask {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_parse_print_and_decide() {
        for text in ["always", "never", "from medium", "from high"] {
            let setting = RequireTask::parse(text).unwrap_or(RequireTask::Never);
            assert_eq!(setting.to_string(), text);
        }
        assert_eq!(
            RequireTask::parse("from low").map(|s| s.to_string()),
            Ok("always".into())
        );
        let from_medium = RequireTask::From(RiskClass::Medium);
        assert!(!from_medium.requires(RiskClass::Low));
        assert!(from_medium.requires(RiskClass::Medium) && from_medium.requires(RiskClass::High));
        assert!(!RequireTask::Never.requires(RiskClass::High));
        for wrong in ["", "sometimes", "from", "from critical", "always from high"] {
            assert!(RequireTask::parse(wrong).is_err(), "{wrong}");
        }
    }
}
