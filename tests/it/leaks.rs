//! Secrets in reports: no output of `check` or `classify`, in any format, holds any part
//! of a secret value, whichever rule fired on its line and however the value is written
//! (quotes, escapes, multi-byte characters, past the excerpt's end).

use crate::common::{stdout_of, TestRepo};

/// A base with a high-risk task for `app/`, and a change that writes `line` to `file`.
fn change_writing(file: &str, line: &str) -> TestRepo {
    let (repo, _) = TestRepo::with_files(&[
        (
            ".handoff/eng-1-task.md",
            "## Task Assignment\n\n| Task ID | ENG-1 |\n| Assigned to | backend-engineer |\n\
             | Expected file scope | `app/` |\n| Risk Class | high |\n",
        ),
        (file, "x = 1\n"),
    ]);
    repo.branch("feature");
    repo.write(file, format!("{line}\n"));
    repo.commit("work");
    repo
}

/// Every report of `check` and `classify` on the change, in every format they offer (a
/// format a command does not offer is refused before anything is read).
fn reports(repo: &TestRepo) -> Vec<(String, String)> {
    let mut reports = Vec::new();
    for command in ["check", "classify"] {
        for format in [
            "human", "json", "yaml", "markdown", "html", "sarif", "github",
        ] {
            let assert = repo
                .handoff()
                .args([
                    command, "--base", "main", "--head", "HEAD", "--format", format,
                ])
                .assert();
            let code = assert.get_output().status.code();
            let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
            if code == Some(2) && stderr.contains(format) {
                continue;
            }
            assert!(
                matches!(code, Some(0 | 1)),
                "{command} {format}: {code:?} {stderr}"
            );
            reports.push((format!("{command} {format}"), stdout_of(&assert) + &stderr));
        }
    }
    assert!(
        reports.len() >= 6,
        "{:?}",
        reports.iter().map(|r| &r.0).collect::<Vec<_>>()
    );
    reports
}

/// Asserts that no report holds `secret`, nor any piece of it `piece` characters long,
/// raw or escaped the way JSON, YAML or HTML would write it.
fn assert_never_printed(repo: &TestRepo, secret: &str, piece: usize) {
    let chars: Vec<char> = secret.chars().collect();
    let pieces: Vec<String> = chars
        .windows(piece.min(chars.len()))
        .map(|window| window.iter().collect())
        .collect();
    let escaped = |piece: &str| {
        [
            piece.to_string(),
            piece.replace('\\', "\\\\").replace('"', "\\\""),
            piece
                .replace('&', "&amp;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;")
                .replace('<', "&lt;"),
        ]
    };
    let reports = reports(repo);
    assert!(
        reports.iter().any(|(_, text)| text.contains("[redacted]")),
        "some report shows the line, redacted"
    );
    for (name, text) in &reports {
        for piece in &pieces {
            for form in escaped(piece) {
                assert!(
                    !text.contains(&form),
                    "{name} prints {form:?} of the secret:\n{text}"
                );
            }
        }
    }
}

#[test]
fn a_password_as_an_environment_default_is_never_printed() {
    let repo = change_writing(
        "app/db.py",
        r#"os.environ.setdefault("DB_PASSWORD", "S3cr3t-Prod-Passw0rd!")"#,
    );
    assert_never_printed(&repo, "S3cr3t-Prod-Passw0rd!", 4);
}

#[test]
fn a_url_password_with_a_slash_is_never_printed() {
    let repo = change_writing(
        "app/db.py",
        r#"DATABASE_URL = os.getenv("DATABASE_URL", "postgres://app:Pr0d/Secret+99@db.internal:5432/app")"#,
    );
    assert_never_printed(&repo, "Pr0d/Secret+99", 4);
}

#[test]
fn a_passphrase_with_spaces_is_never_printed() {
    let repo = change_writing(
        "app/admin.js",
        r#"const pass = process.env.ADMIN_PASSPHRASE || "correct horse battery staple";"#,
    );
    assert_never_printed(&repo, "correct horse battery staple", 6);
}

#[test]
fn a_token_assigned_into_the_environment_is_never_printed() {
    let repo = change_writing(
        "app/boot.py",
        r#"os.environ["SECRET_TOKEN"] = 'Zm9vYmFyYmF6cXV4aGVsbG8td29ybGQtc2VjcmV0'"#,
    );
    assert_never_printed(&repo, "Zm9vYmFyYmF6cXV4aGVsbG8td29ybGQtc2VjcmV0", 4);
}

#[test]
fn a_secret_with_an_embedded_quote_is_never_printed_in_part() {
    let repo = change_writing(
        "app/settings.py",
        r#"API_KEY = os.getenv("API_KEY", "q8Zr\"Wk71!mX<&>p")"#,
    );
    assert_never_printed(&repo, "q8Zr\"Wk71!mX<&>p", 3);
    // The credential rule reads the value up to the escaped quote only.
    let repo = change_writing("app/settings.py", r#"PASSWORD = 'q8Zr9x\'Wk71!mXp'"#);
    assert_never_printed(&repo, "q8Zr9x'Wk71!mXp", 3);
}

#[test]
fn a_multi_byte_secret_is_never_printed_in_part() {
    let repo = change_writing(
        "app/settings.py",
        "SECRET_KEY = os.getenv(\"SECRET_KEY\", \"pä\u{df}wört-\u{5bc6}\u{7801}-\u{1f511}-42\")",
    );
    assert_never_printed(&repo, "pä\u{df}wört-\u{5bc6}\u{7801}-\u{1f511}-42", 3);
}

#[test]
fn a_secret_across_the_end_of_the_excerpt_is_never_printed_in_part() {
    // The secret starts at the 155th character: the excerpt (160) ends inside it.
    let padding = "é".repeat(115);
    let line =
        format!("x = os.getenv('K') or f({padding}, {{'password': 'Wq9!Wq9!Zx7#Zx7#Yv5$Yv5$'}})");
    assert_eq!(line.chars().position(|c| c == 'W'), Some(155));
    let repo = change_writing("app/settings.py", &line);
    assert_never_printed(&repo, "Wq9!Wq9!Zx7#Zx7#Yv5$Yv5$", 3);
}
