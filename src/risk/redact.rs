//! Excerpts that hold no part of a secret.
//!
//! A finding's excerpt is the line that fired it, and reports go to CI logs, job
//! summaries and pull-request comments. So an excerpt never holds any part of a secret
//! value, whichever rule fired: redaction is not tied to the credential rules matching,
//! because a secret that no credential rule recognises (a passphrase with spaces, a URL
//! password with a `/`, a default of an environment read) is still a secret.
//!
//! What is cut, each replaced by `[redacted]` (nothing of it kept, not even a prefix):
//!
//! - every value a credential rule matched: the whole quoted literal it lies in (escapes
//!   read, so an embedded quote does not end it), or, unquoted, the rest of the line;
//! - on a line that names a secret (`password`, `token`, `api_key` …): every quoted
//!   literal but a key name (`DB_PASSWORD`, `"password"`, `${SECRET}`), and everything
//!   after the first such name that is assigned (`=`, `:`, `=>`, or white space);
//! - on every line: the user information of a URL (`scheme://user:password@`), and every
//!   literal shaped like a key (16 characters or more, no white space, letters and digits);
//! - a literal that is not closed on the line runs to its end.
//!
//! Redaction runs on the whole line before it is shortened to an excerpt, so a secret that
//! straddles the excerpt's end is cut as a whole; cuts are widened to whole characters.

use std::ops::Range;

/// What replaces a cut.
pub(crate) const REDACTED: &str = "[redacted]";

/// Words that make a line name a secret (matched case-insensitively inside a name).
const SECRET_WORDS: &[&str] = &[
    "passw",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "accesskey",
    "access_key",
    "access-key",
    "private_key",
    "private-key",
    "privatekey",
    "credential",
    "signing_key",
    "signing-key",
    "encryption_key",
    "encryption-key",
];

/// The shortest literal shaped like a key that is cut on any line.
const KEY_SHAPED_CHARS: usize = 16;

/// `line` with every secret cut; `secrets` are the byte ranges the credential rules
/// matched as secret values.
pub(crate) fn redact(line: &[u8], secrets: &[Range<usize>]) -> Vec<u8> {
    let literals = literals(line);
    let names_secret = names_secret(line);
    let mut cuts: Vec<Range<usize>> = Vec::new();
    for secret in secrets.iter().filter(|secret| !secret.is_empty()) {
        match literals.iter().find(|literal| overlaps(literal, secret)) {
            Some(literal) => cuts.push(literal.clone()),
            None => cuts.push(secret.start..line.len()),
        }
    }
    for literal in &literals {
        let content = &line[literal.clone()];
        if (names_secret && !is_key_name(content)) || is_key_shaped(content) {
            cuts.push(literal.clone());
        }
    }
    if names_secret {
        cuts.extend(unquoted_values(line, &literals));
    }
    cuts.extend(url_user_info(line));
    apply(line, cuts)
}

/// The content ranges of the quoted literals of `line` (`"…"`, `'…'`, `` `…` ``), a
/// backslash escaping the next byte; an unclosed literal runs to the end of the line.
fn literals(line: &[u8]) -> Vec<Range<usize>> {
    let mut literals = Vec::new();
    let mut at = 0;
    while at < line.len() {
        let quote = line[at];
        if !matches!(quote, b'"' | b'\'' | b'`') {
            at += 1;
            continue;
        }
        let start = at + 1;
        let mut end = start;
        while end < line.len() && line[end] != quote {
            end += if line[end] == b'\\' { 2 } else { 1 };
        }
        let end = end.min(line.len());
        literals.push(start..end);
        at = end + 1;
    }
    literals
}

/// Whether `line` names a secret: one of [`SECRET_WORDS`] inside it.
fn names_secret(line: &[u8]) -> bool {
    let lower = line.to_ascii_lowercase();
    SECRET_WORDS
        .iter()
        .any(|word| memchr::memmem::find(&lower, word.as_bytes()).is_some())
}

/// Whether a literal is the name of a key rather than a value: empty, an environment
/// variable's name (`DB_PASSWORD`), a lower-case key that names a secret (`"password"`,
/// `"db.api_key"`), or a reference (`${SECRET}`, `$TOKEN`).
fn is_key_name(content: &[u8]) -> bool {
    let is_env_name = content.first().is_some_and(u8::is_ascii_uppercase)
        && content.contains(&b'_')
        && content
            .iter()
            .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    let is_secret_key = content.first().is_some_and(u8::is_ascii_lowercase)
        && content
            .iter()
            .all(|&b| b.is_ascii_lowercase() || matches!(b, b'_' | b'-' | b'.'))
        && names_secret(content);
    let reference = content
        .strip_prefix(b"${")
        .and_then(|rest| rest.strip_suffix(b"}"))
        .or_else(|| content.strip_prefix(b"$"));
    let is_reference = reference.is_some_and(|name| {
        !name.is_empty() && name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
    });
    content.is_empty() || is_env_name || is_secret_key || is_reference
}

/// Whether a literal is shaped like a key: long, no white space, letters and digits,
/// and neither a path, a URL nor a template.
fn is_key_shaped(content: &[u8]) -> bool {
    let chars = String::from_utf8_lossy(content).chars().count();
    chars >= KEY_SHAPED_CHARS
        && !content.iter().any(u8::is_ascii_whitespace)
        && content.iter().any(u8::is_ascii_digit)
        && content.iter().any(u8::is_ascii_alphabetic)
        && !content.starts_with(b"/")
        && !content.starts_with(b".")
        && memchr::memmem::find(content, b"://").is_none()
        && !content
            .iter()
            .any(|b| matches!(b, b'<' | b'{' | b'$' | b'%'))
}

/// The unquoted values on a line that names a secret: after the first name holding a
/// secret word that is followed by an assignment (`=`, `:`, `:=`, `=>`) or white space,
/// the rest of the line, quoted or not (a quoted value may hold doubled quotes or run
/// on).
fn unquoted_values(line: &[u8], literals: &[Range<usize>]) -> Option<Range<usize>> {
    let mut at = 0;
    while at < line.len() {
        if !is_name_byte(line[at]) || literals.iter().any(|literal| literal.contains(&at)) {
            at += 1;
            continue;
        }
        let start = at;
        while at < line.len() && is_name_byte(line[at]) {
            at += 1;
        }
        if !names_secret(&line[start..at]) {
            continue;
        }
        let mut name_end = at;
        while name_end < line.len() && matches!(line[name_end], b'"' | b'\'' | b']') {
            name_end += 1;
        }
        let after_spaces = skip_spaces(line, name_end);
        let operator_end = after_spaces + operator_length(&line[after_spaces..]);
        // After white space, an operator with no white space after it may be the
        // value's start (`ENV TOKEN :x`): it is cut with the value.
        let is_operator = operator_end > after_spaces
            && (after_spaces == name_end
                || line
                    .get(operator_end)
                    .is_some_and(|&b| matches!(b, b' ' | b'\t')));
        let separator_end = match is_operator {
            true => operator_end,
            false => name_end,
        };
        let value = skip_spaces(line, separator_end);
        if value > name_end && value < line.len() {
            // One space is kept; any more may belong to the value.
            let start = match value > separator_end {
                true => separator_end + 1,
                false => value,
            };
            return Some(start..line.len());
        }
    }
    None
}

/// The length of the assignment operator `rest` starts with (`=>`, `:=`, `=`, `:`), 0
/// when none: one operator, so a value that starts like one is a value.
fn operator_length(rest: &[u8]) -> usize {
    [&b"=>"[..], b":=", b"=", b":"]
        .iter()
        .find(|operator| rest.starts_with(operator))
        .map_or(0, |operator| operator.len())
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.')
}

fn skip_spaces(line: &[u8], mut at: usize) -> usize {
    while at < line.len() && matches!(line[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// The user information of every URL on the line (`scheme://user:password@host`): from
/// after `://` to the last `@` before white space or a quote.
fn url_user_info(line: &[u8]) -> Vec<Range<usize>> {
    let mut cuts = Vec::new();
    for scheme_end in memchr::memmem::find_iter(line, b"://") {
        let start = scheme_end + 3;
        let end = line[start..]
            .iter()
            .position(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`'))
            .map_or(line.len(), |length| start + length);
        if let Some(at) = line[start..end].iter().rposition(|&b| b == b'@') {
            cuts.push(start..start + at);
        }
    }
    cuts
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// `line` with each cut (merged, widened to whole UTF-8 characters) replaced by
/// [`REDACTED`].
fn apply(line: &[u8], mut cuts: Vec<Range<usize>>) -> Vec<u8> {
    let is_continuation = |b: u8| b & 0xC0 == 0x80;
    for cut in &mut cuts {
        while cut.start > 0 && cut.start < line.len() && is_continuation(line[cut.start]) {
            cut.start -= 1;
        }
        while cut.end < line.len() && is_continuation(line[cut.end]) {
            cut.end += 1;
        }
    }
    cuts.retain(|cut| !cut.is_empty());
    cuts.sort_by_key(|cut| cut.start);
    let mut merged: Vec<Range<usize>> = Vec::new();
    for cut in cuts {
        match merged.last_mut() {
            Some(last) if cut.start <= last.end => last.end = last.end.max(cut.end),
            _ => merged.push(cut),
        }
    }
    let mut out = Vec::with_capacity(line.len());
    let mut last = 0;
    for cut in merged {
        out.extend_from_slice(&line[last..cut.start]);
        out.extend_from_slice(REDACTED.as_bytes());
        last = cut.end;
    }
    out.extend_from_slice(&line[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Policy;
    use crate::risk::matcher::Matcher;
    use proptest::prelude::*;
    use std::sync::LazyLock;

    static MATCHER: LazyLock<Matcher> =
        LazyLock::new(|| Matcher::new(&Policy::default()).expect("the default rules compile"));

    fn excerpt(line: &str) -> String {
        MATCHER.excerpt(line.as_bytes())
    }

    #[test]
    fn no_part_of_a_secret_survives_on_lines_no_credential_rule_reads() {
        for (line, expected) in [
            (
                r#"os.environ.setdefault("DB_PASSWORD", "S3cr3t-Prod-Passw0rd!")"#,
                r#"os.environ.setdefault("DB_PASSWORD", "[redacted]")"#,
            ),
            (
                r#"DATABASE_URL = os.getenv("DATABASE_URL", "postgres://app:Pr0d/Secret+99@db.internal:5432/app")"#,
                r#"DATABASE_URL = os.getenv("DATABASE_URL", "[redacted]")"#,
            ),
            (
                r#"url = os.getenv("DATABASE_URL", "postgres://app:Pr0d/S3cr+99@db.internal:5432/app")"#,
                r#"url = os.getenv("DATABASE_URL", "postgres://[redacted]@db.internal:5432/app")"#,
            ),
            (
                r#"const pass = process.env.ADMIN_PASSPHRASE || "correct horse battery staple";"#,
                "const pass = process.env.ADMIN_PASSPHRASE [redacted]",
            ),
            (
                r#"os.environ["SECRET_TOKEN"] = 'Zm9vYmFyYmF6cXV4aGVsbG8td29ybGQtc2VjcmV0'"#,
                r#"os.environ["SECRET_TOKEN"] = '[redacted]'"#,
            ),
            (
                "ENV ADMIN_PASSPHRASE correct horse battery staple",
                "ENV ADMIN_PASSPHRASE [redacted]",
            ),
            (
                r#"x = os.getenv("FOO", "Zm9vYmFyYmF6cXV4aGVsbG8")"#,
                r#"x = os.getenv("FOO", "[redacted]")"#,
            ),
        ] {
            assert_eq!(excerpt(line), expected);
        }
    }

    #[test]
    fn quotes_escapes_and_multi_byte_characters_do_not_end_a_secret_early() {
        for line in [
            r#"password = "ab\"cdEFgh1234""#,
            r#"password = 'ab\'cdEFgh1234'"#,
            r#"password = 'ab''cdEFgh1234'"#,
            r#"password = "ab'cdEFgh1234""#,
            r#"password = "ab\\"#,
            "password = \"ab\u{e9}cd\u{5b57}EFgh1234\"",
            "password: ab\"cd EFgh1234",
            r#"{"password": "ab\"cdEFgh1234"}"#,
        ] {
            let excerpt = excerpt(line);
            for part in ["cd", "EF", "1234", "\u{e9}", "\u{5b57}"] {
                assert!(!excerpt.contains(part), "{line} → {excerpt}");
            }
            assert!(excerpt.contains(REDACTED), "{line} → {excerpt}");
        }
    }

    #[test]
    fn credential_values_are_cut_whole_quoted_or_not() {
        assert_eq!(
            excerpt("aws_key: AKIAIOSFODNN7REALKEY # prod"),
            "aws_key: [redacted]"
        );
        assert_eq!(
            excerpt("key = AKIAIOSFODNN7REALKEY in text"),
            "key = [redacted]"
        );
        assert_eq!(
            excerpt(r#"client.connect("AKIAIOSFODNN7REALKEY")"#),
            r#"client.connect("[redacted]")"#
        );
    }

    #[test]
    fn a_value_that_starts_like_an_operator_is_cut_with_it() {
        for (line, expected) in [
            ("ENV DB_TOKEN :", "ENV DB_TOKEN [redacted]"),
            ("ENV DB_TOKEN =>x1", "ENV DB_TOKEN [redacted]"),
            ("password :=x1", "password [redacted]"),
            ("password := x1", "password := [redacted]"),
            ("password=:x1", "password=[redacted]"),
        ] {
            assert_eq!(excerpt(line), expected);
        }
    }

    #[test]
    fn what_is_not_a_secret_stays_readable() {
        for line in [
            r#"@app.route("/api/v1/users/<int:id>")"#,
            r#"key = os.getenv("DB_PASSWORD")"#,
            r#"url = "https://example.com/x""#,
            "def check_password(user):",
            r#"settings["password"]"#,
            "MIDDLEWARE = ['django.middleware.csrf.CsrfViewMiddleware']",
        ] {
            assert_eq!(excerpt(line), line);
        }
    }

    #[test]
    fn a_secret_across_the_excerpt_end_is_cut_before_the_line_is_shortened() {
        let padding = "x".repeat(150);
        let line = format!("{padding} password = \"Zq8!Zq8!Zq8!Zq8!\"");
        let excerpt = excerpt(&line);
        assert!(excerpt.ends_with('…'), "{excerpt}");
        assert!(!excerpt.contains("Zq"), "{excerpt}");
    }

    /// One line of code holding the secret, as each language writes it.
    fn line_with(template: usize, padding: &str, secret: &str) -> String {
        let double = secret.replace('\\', r"\\").replace('"', "\\\"");
        let single = secret.replace('\\', r"\\").replace('\'', "\\'");
        let body = match template {
            0 => format!("password = \"{double}\""),
            1 => format!("API_KEY = '{single}'"),
            2 => format!("os.environ.setdefault(\"DB_PASSWORD\", \"{double}\")"),
            3 => format!("const pass = process.env.ADMIN_PASSPHRASE || \"{double}\";"),
            4 => format!("password: {secret}"),
            5 => format!("password = '{}'", secret.replace('\'', "''")),
            6 => format!("{{\"client_secret\": \"{double}\", \"x\": 1}}"),
            _ => format!("ENV DB_TOKEN {secret}"),
        };
        format!("{padding}{body}")
    }

    fn secret_text() -> impl Strategy<Value = String> {
        let chars = prop_oneof![
            proptest::char::range(' ', '~'),
            Just('\u{e9}'),
            Just('\u{5b57}'),
            Just('\u{1f600}'),
            Just('\u{200b}'),
        ];
        proptest::collection::vec(chars, 1..40).prop_map(|chars| chars.into_iter().collect())
    }

    fn padding() -> impl Strategy<Value = String> {
        let chars = prop_oneof![
            Just('x'),
            Just('\u{e9}'),
            Just('\u{5b57}'),
            Just(' '),
            Just(';')
        ];
        proptest::collection::vec(chars, 0..200).prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        /// Whatever the secret, the excerpt is the same: it says nothing about it.
        #[test]
        fn an_excerpt_does_not_depend_on_the_secret(
            template in 0usize..8,
            padding in padding(),
            secret in secret_text(),
        ) {
            prop_assume!(!secret.trim().is_empty() && !is_key_name(secret.trim().as_bytes()));
            let seen = excerpt(&line_with(template, &padding, &secret));
            let reference = excerpt(&line_with(template, &padding, "Zz9!"));
            prop_assert_eq!(&seen, &reference, "template {}: {:?}", template, secret);
        }

        /// A URL's password, whatever its characters, is never printed.
        #[test]
        fn a_url_password_is_never_printed(
            padding in padding(),
            secret in secret_text().prop_map(|secret| {
                secret.replace(|c: char| c.is_whitespace() || "\"'`".contains(c), "#")
            }),
        ) {
            let line = |secret: &str| {
                format!(
                    "{padding}url = os.getenv(\"DATABASE_URL\", \"postgres://app:{secret}@db:5432/app\")"
                )
            };
            // Cut with the user information, or whole when a credential rule reads it.
            let seen = excerpt(&line(&secret));
            prop_assert!(
                seen == excerpt(&line("Zz9/")) || seen == excerpt(&line("Zz9!")),
                "{:?}", seen
            );
        }
    }
}
