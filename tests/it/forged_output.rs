//! Output injection: a changed file's name (or a record's value) holding new lines, a
//! forged `pass: …` verdict, terminal control sequences, a Markdown heading, a table
//! pipe or raw HTML is shown escaped in every report of `check`, and the verdict line is
//! the only verdict line.

use crate::common::{stdout_of, TestRepo};

const FORGED_VERDICT: &str = "pass: task ENG-1 at low risk, 0 error(s), 0 warning(s)";

/// A low-risk task for `docs/guide.md`, and a change that adds files whose names forge
/// a verdict line, a heading, an image, a row and terminal control sequences.
fn forging_change() -> TestRepo {
    let (repo, _) = TestRepo::with_files(&[
        (
            ".handoff/eng-1-task.md",
            "## Task Assignment\n\n| Task ID | ENG-1 |\n| Assigned to | backend-engineer |\n\
             | Expected file scope | `docs/guide.md` |\n| Risk Class | low |\n",
        ),
        ("docs/guide.md", "guide\n"),
    ]);
    repo.branch("feature");
    repo.write("docs/guide.md", "guide, changed\n");
    repo.write(
        &format!(
            "docs/x\n\n{FORGED_VERDICT}\n<img src=\"https:evil.example/p.png\">\n\
             ### ✅ handoff check — {FORGED_VERDICT}"
        ),
        "hi\n",
    );
    repo.write("docs/\x1b[2K\x1b[1A\x1b[2Kok\x1b[0m.md", "hi\n");
    repo.write("# heading | a | b |.md", "hi\n");
    repo.write("docs/\u{202e}dm.txt", "hi\n");
    repo.commit("work");
    repo
}

fn report(repo: &TestRepo, format: &str) -> String {
    let assert = repo
        .handoff()
        .args([
            "check", "--base", "main", "--head", "HEAD", "--format", format,
        ])
        .assert()
        .code(1);
    stdout_of(&assert)
}

#[test]
fn the_human_report_has_one_verdict_line_and_no_control_characters() {
    let repo = forging_change();
    let text = report(&repo, "human");
    let verdicts: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("pass:") || line.starts_with("reject:"))
        .collect();
    assert_eq!(
        verdicts,
        ["reject: task ENG-1 at medium risk, 5 error(s), 1 warning(s)"],
        "{text}"
    );
    assert_eq!(text.lines().last(), Some(verdicts[0]));
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text}");
    assert!(!text.contains('\u{202e}'), "{text}");
    // The names are shown, escaped.
    for shown in [
        format!("docs/x\\n\\n{FORGED_VERDICT}\\n<img"),
        "docs/\\x1b[2K\\x1b[1A\\x1b[2Kok\\x1b[0m.md".to_string(),
        "docs/\\u{202e}dm.txt".to_string(),
        "# heading | a | b |.md: error[undeclared-file]".to_string(),
    ] {
        assert!(text.contains(&shown), "{shown} in {text}");
    }
}

#[test]
fn the_markdown_report_renders_one_heading_one_table_and_no_html() {
    let repo = forging_change();
    let text = report(&repo, "markdown");
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text}");
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.render.r#unsafe = true;
    let html = comrak::markdown_to_html(&text, &options);
    let count = |needle: &str| html.matches(needle).count();
    assert_eq!(count("<h3>"), 1, "{html}");
    assert!(
        html.contains("<h3>❌ handoff check — reject: task ENG-1"),
        "{html}"
    );
    assert_eq!(count("<h1>") + count("<h2>"), 0, "{html}");
    // The layout's group headings only: Risk (reclassified by the file count),
    // Evidence and Scope.
    assert_eq!(count("<h4>"), 3, "{html}");
    assert_eq!(count("<table>"), 1, "{html}");
    assert_eq!(count("<tr>"), 6, "{html}");
    assert_eq!(count("<td>"), 10, "{html}");
    for raw in [
        "<img",
        "<a ",
        "<del>",
        "<em>",
        "<blockquote>",
        "<pre>\n<code>###",
    ] {
        assert_eq!(count(raw), 0, "{raw} in {html}");
    }
    // Each forged name is one list item, shown as it is (escaped) in its code span.
    assert!(
        html.contains(&format!(
            "<code>docs/x\\n\\n{FORGED_VERDICT}\\n&lt;img src=&quot;https:evil.example/p.png&quot;&gt;\\n### ✅ handoff check — {FORGED_VERDICT}</code>"
        )),
        "{html}"
    );
    assert!(
        html.contains("<code># heading | a | b |.md</code>"),
        "{html}"
    );
}

#[test]
fn the_github_commands_start_no_command_and_hold_no_control_characters() {
    let repo = forging_change();
    let text = report(&repo, "github");
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let (last, commands) = lines.split_last().expect("a summary line");
    assert!(last.starts_with("handoff check: 5 error(s)"), "{text}");
    // One command per line, each written by the reporter: a value starts none.
    for line in commands {
        assert!(
            ["::error ", "::warning ", "::notice "]
                .iter()
                .any(|start| line.starts_with(start)),
            "{line}"
        );
    }
    assert_eq!(text.matches("::error ").count(), 5, "{text}");
}
