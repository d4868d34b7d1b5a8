//! The explanation table: what each code means, its severity, an example and the fix.
//!
//! The table is data (`explain.yaml`, embedded at build time), read once, by `explain`
//! only: reporting a diagnostic never needs it.
//! A test holds it to the codes: every code has an entry with all four parts, and every
//! entry names a code.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::LazyLock;

/// The documentation of one code, as `handoff explain` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explanation {
    /// One sentence: what the code means.
    pub summary: String,
    /// A small input that triggers it.
    pub example: String,
    /// How to repair the input.
    pub fix: String,
}

/// The embedded table.
const TABLE_TEXT: &str = include_str!("explain.yaml");

static TABLE: LazyLock<HashMap<String, Explanation>> = LazyLock::new(|| {
    // The table is part of the program, not input: the tests parse it on every build.
    yaml_serde::from_str(TABLE_TEXT).unwrap_or_default()
});

/// What an undocumented code reads as (the tests keep the table complete).
static UNDOCUMENTED: LazyLock<Explanation> = LazyLock::new(|| Explanation {
    summary: "(undocumented)".to_string(),
    example: String::new(),
    fix: String::new(),
});

/// The explanation of the code named `name`.
pub(super) fn explanation(name: &str) -> &'static Explanation {
    TABLE.get(name).unwrap_or(&UNDOCUMENTED)
}

#[cfg(test)]
mod tests {
    use super::super::Code;
    use super::*;

    #[test]
    fn every_code_has_an_explanation_and_every_entry_a_code() {
        let table: HashMap<String, Explanation> =
            yaml_serde::from_str(TABLE_TEXT).expect("explain.yaml parses");
        let mut names = std::collections::HashSet::new();
        for code in Code::all() {
            let entry = table
                .get(code.name())
                .unwrap_or_else(|| panic!("`{code}` has no entry in explain.yaml"));
            assert!(!entry.summary.trim().is_empty(), "{code}: no summary");
            assert!(!entry.example.trim().is_empty(), "{code}: no example");
            assert!(!entry.fix.trim().is_empty(), "{code}: no fix");
            assert_eq!(code.explanation(), entry);
            assert_eq!(Code::from_name(code.name()), Some(code));
            assert!(names.insert(code.name().to_lowercase()), "{code} twice");
        }
        for name in table.keys() {
            assert!(Code::from_name(name).is_some(), "`{name}` is no code");
        }
    }
}
