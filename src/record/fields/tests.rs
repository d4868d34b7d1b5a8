//! Tests of the header-table fields: key matching, the structured values' canonical texts,
//! timestamps, the tie-break rules' spellings.

use super::*;

/// The definition `keys_match` implements (its ASCII path is a faster version of it).
fn keys_match_by_words(a: &str, b: &str) -> bool {
    let (left, right): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    left.len() == right.len()
        && left
            .iter()
            .zip(&right)
            .all(|(x, y)| x.eq_ignore_ascii_case(y))
}

proptest::proptest! {
    #[test]
    fn keys_match_agrees_with_its_definition(
        a in "[ \t\x0B\x0C\r\naAbB|é\u{a0}]{0,8}",
        b in "[ \t\x0B\x0C\r\naAbB|é\u{a0}]{0,8}",
    ) {
        proptest::prop_assert_eq!(keys_match(&a, &b), keys_match_by_words(&a, &b));
        proptest::prop_assert_eq!(keys_match(&a, &a.to_uppercase()), keys_match_by_words(&a, &a.to_uppercase()));
    }
}

#[test]
fn keys_match_ignores_case_and_white_space_runs_only() {
    for (a, b, same) in [
        ("Task ID", "task id", true),
        ("  Task \t ID ", "TASK ID", true),
        ("Task ID", "TaskID", false),
        ("Task ID", "Task I", false),
        ("Type", "Type ", true),
        ("Type\x0B", "type", true),
        ("", "  ", true),
        ("Tâche", "TÂCHE", false),
    ] {
        assert_eq!(keys_match(a, b), same, "{a:?} vs {b:?}");
        assert_eq!(keys_match_by_words(a, b), same, "{a:?} vs {b:?}");
    }
}

#[test]
fn structured_values_parse_and_canonicalise() {
    assert_eq!(
        parse_list("[`src/a.ts`, src/b.ts, tests/*.test.ts]"),
        Some(vec![
            "src/a.ts".into(),
            "src/b.ts".into(),
            "tests/*.test.ts".into()
        ])
    );
    let capability = Capability::parse("design-system + [tokens, dark-theme]");
    assert_eq!(
        capability.map(|c| c.to_string()),
        Some("design-system: [tokens, dark-theme]".to_string())
    );
    let matched = parse_matched_agents(
        "security-engineer (auth: [oauth2, saml]), backend-engineer (auth: [jwt, session])",
    );
    let matched = matched.unwrap_or_default();
    assert_eq!(matched.len(), 2);
    assert_eq!(matched[1].qualifiers, vec!["jwt", "session"]);
    let rejected = parse_rejected("backend-engineer — qualifier mismatch; ops").unwrap_or_default();
    assert_eq!(rejected[0].reason.as_deref(), Some("qualifier mismatch"));
    assert_eq!(rejected[1].reason, None);
    assert_eq!(
        FieldKey::Rejected.canonical_value("a - x;b – y"),
        "a — x; b — y"
    );
}

#[test]
fn timestamps_are_validated() {
    assert!(is_valid_timestamp("2026-01-11T20:30:00Z"));
    assert!(is_valid_timestamp("2026-01-11T20:30:00.123+02:00"));
    assert!(!is_valid_timestamp("2026-01-11T20:30:00"));
    assert!(!is_valid_timestamp("2026-13-11T20:30:00Z"));
    assert!(!is_valid_timestamp("yesterday"));
    assert_eq!(format_unix_utc(1_768_163_400), "2026-01-11T20:30:00Z");
    assert!(is_valid_timestamp(&utc_now_rfc3339()));
}

#[test]
fn tie_break_rules_normalise() {
    assert_eq!(
        TieBreak::from_rule("qualifier-match (highest priority)"),
        Some(Some(TieBreak::QualifierMatch))
    );
    assert_eq!(TieBreak::from_rule("None"), Some(None));
    assert_eq!(TieBreak::from_rule("coin flip"), None);
}
