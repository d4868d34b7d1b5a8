//! Capability text and its canonical form.
//!
//! Capabilities are written by people and agents in many spellings: `Auth: [OAuth2,
//! PKCE]`, `auth: oauth2, pkce`, `design-system + [tokens]`. Before anything is compared,
//! every term goes through [`normalise_term`]: surrounding quotes stripped, trimmed,
//! internal white space collapsed to one space, lower-cased (the rules of the registry's
//! `capability-aliases.yaml`). Mapping alias spellings to their canonical form is the
//! second step and belongs to [`crate::routing::Aliases`].

use crate::record::Capability;

/// Why a capability text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read capability `{text}`: {problem}; expected `domain: [qualifier, …]`, e.g. `auth: [oauth2, pkce]`")]
pub struct CapabilityParseError {
    /// The text as given.
    pub text: String,
    /// What is wrong with it.
    pub problem: String,
}

/// Normalises one term: quotes stripped, trimmed, white space collapsed, lower-cased.
pub fn normalise_term(text: &str) -> String {
    let unquoted = strip_quotes(text.trim());
    unquoted
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn strip_quotes(text: &str) -> &str {
    for quote in ['"', '\'', '`'] {
        if text.len() >= 2 && text.starts_with(quote) && text.ends_with(quote) {
            return text[1..text.len() - 1].trim();
        }
    }
    text
}

/// Reads a capability written as `domain: [q1, q2]`, `domain: q1, q2`, `domain + [q1]`
/// (the capability-request form) or a bare `domain`, normalising every term.
pub fn parse_capability(text: &str) -> Result<Capability, CapabilityParseError> {
    let fail = |problem: &str| CapabilityParseError {
        text: text.to_string(),
        problem: problem.to_string(),
    };
    let (domain, rest) = match text.find([':', '+']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let domain = normalise_term(domain);
    if domain.is_empty() {
        return Err(fail("the domain is empty"));
    }
    if domain.contains(['[', ']', ',']) {
        return Err(fail("the domain contains `[`, `]` or `,`"));
    }
    let qualifiers = match rest {
        Some(rest) => parse_qualifier_list(rest).map_err(|problem| fail(&problem))?,
        None => Vec::new(),
    };
    Ok(Capability::new(domain, qualifiers))
}

fn parse_qualifier_list(text: &str) -> Result<Vec<String>, String> {
    let trimmed = text.trim();
    let inner = match (trimmed.strip_prefix('['), trimmed.ends_with(']')) {
        (Some(open), true) => &open[..open.len() - 1],
        (Some(_), false) => return Err("the `[` is never closed".into()),
        (None, _) if trimmed.contains(']') => return Err("a `]` has no `[`".into()),
        (None, _) => trimmed,
    };
    if inner.contains(['[', ']', ':']) {
        return Err("qualifiers cannot contain `[`, `]` or `:`".into());
    }
    Ok(inner
        .split(',')
        .map(normalise_term)
        .filter(|q| !q.is_empty())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(text: &str) -> Capability {
        match parse_capability(text) {
            Ok(capability) => capability,
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn terms_are_trimmed_unquoted_collapsed_and_lower_cased() {
        assert_eq!(normalise_term("  \"OAuth   2\" "), "oauth 2");
        assert_eq!(normalise_term("`PKCE`"), "pkce");
        assert_eq!(normalise_term("'"), "'");
    }

    #[test]
    fn every_written_form_reads_the_same() {
        let expected = Capability::new("auth", ["oauth2".to_string(), "pkce".to_string()]);
        for text in [
            "auth: [oauth2, pkce]",
            " AUTH :[ PKCE ,oauth2, ]",
            "auth: oauth2, pkce",
            "auth + [pkce, oauth2, oauth2]",
        ] {
            assert_eq!(cap(text), expected, "{text}");
        }
        assert_eq!(cap("auth"), Capability::new("auth", []));
        assert_eq!(cap("auth: []").to_string(), "auth");
        assert_eq!(expected.to_string(), "auth: [oauth2, pkce]");
    }

    #[test]
    fn malformed_capabilities_say_what_is_wrong() {
        for (text, problem) in [
            (": [oauth2]", "empty"),
            ("auth: [oauth2", "never closed"),
            ("auth: oauth2]", "no `[`"),
            ("auth: [a: b]", "cannot contain"),
            ("[auth]", "domain contains"),
        ] {
            let error = parse_capability(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(error.contains(problem), "{text}: {error}");
        }
    }
}
