//! `--format github`: GitHub Actions workflow commands that annotate the diff
//! (`::error file=…,line=…,col=…,title=…::message`).
//!
//! GitHub shows at most 10 error, 10 warning and 10 notice annotations per step and drops
//! the rest silently, so at most [`PER_LEVEL`] of each level are written as commands; the
//! rest are listed as plain lines after a count that says how many were not annotated, so
//! nothing is lost from the log. Suppressed findings (an `allow` entry, a marker, the
//! baseline) are never annotated: they are listed with what suppressed them and why. The
//! last line counts every level, and the suppressed. Messages and
//! properties are escaped as the runner expects (`%`, new lines, and in properties `:` and
//! `,`), so a value cannot end its command or start another; other control characters
//! (a carriage return too) are shown as escapes ([`crate::escape::human`]), and so are the plain lines' values, whose
//! line cannot begin with `::` (the runner reads a line that does, after white space, as
//! a command).

use super::annotation::{Annotation, Level};
use crate::escape::{human, human_lines};

/// How many annotations of one level GitHub shows per step.
pub const PER_LEVEL: usize = 10;

/// The workflow commands of `annotations`, found by the command `command`.
pub fn commands(command: &str, annotations: &[Annotation]) -> String {
    let mut out = String::new();
    let mut shown = [0usize; 3];
    let mut rest = Vec::new();
    let (suppressed, annotations): (Vec<&Annotation>, Vec<&Annotation>) =
        annotations.iter().partition(|a| a.suppressed.is_some());
    for annotation in annotations.iter().copied() {
        let count = &mut shown[annotation.level as usize];
        if *count < PER_LEVEL {
            *count += 1;
            out.push_str(&workflow_command(annotation));
        } else {
            rest.push(annotation);
        }
    }
    let total = |level: Level| annotations.iter().filter(|a| a.level == level).count();
    if !rest.is_empty() {
        out.push_str(&format!(
            "{} more finding(s) not annotated (GitHub shows at most {PER_LEVEL} errors, \
             {PER_LEVEL} warnings and {PER_LEVEL} notices per step):\n",
            rest.len()
        ));
        for annotation in rest {
            out.push_str(&format!("  {}\n", plain_line(annotation)));
        }
    }
    if !suppressed.is_empty() {
        out.push_str(&format!(
            "{} finding(s) suppressed (not annotated):\n",
            suppressed.len()
        ));
        for annotation in &suppressed {
            if let Some((by, reason)) = &annotation.suppressed {
                let line = plain_line(annotation);
                out.push_str(&format!("  {line} ({by}: {})\n", human(reason)));
            }
        }
    }
    out.push_str(&format!(
        "handoff {command}: {} error(s), {} warning(s), {} note(s){}\n",
        total(Level::Error),
        total(Level::Warning),
        total(Level::Note),
        match suppressed.len() {
            0 => String::new(),
            n => format!(", {n} suppressed"),
        }
    ));
    out
}

fn workflow_command(annotation: &Annotation) -> String {
    let name = match annotation.level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "notice",
    };
    let mut properties = Vec::new();
    if let Some(path) = &annotation.path {
        properties.push(format!("file={}", escape_property(&human(path))));
        if let Some(line) = annotation.line {
            properties.push(format!("line={line}"));
            if let Some(column) = annotation.column {
                properties.push(format!("col={column}"));
            }
        }
    }
    properties.push(format!(
        "title={}",
        escape_property(&format!("handoff {}", annotation.rule))
    ));
    let mut message = human_lines(&annotation.message);
    if let Some(help) = &annotation.help {
        message.push_str("\nfix: ");
        message.push_str(&human_lines(help));
    }
    format!(
        "::{name} {}::{}\n",
        properties.join(","),
        escape_data(&message)
    )
}

/// `path:line: level[rule]: message`, for the findings past the limit.
fn plain_line(annotation: &Annotation) -> String {
    let at = match (&annotation.path, annotation.line) {
        (Some(path), Some(line)) => format!("{}:{line}: ", human(path)),
        (Some(path), None) => format!("{}: ", human(path)),
        _ => String::new(),
    };
    let at = match at.strip_prefix(':') {
        Some(rest) => format!("\\x3a{rest}"),
        None => at,
    };
    format!(
        "{at}{}[{}]: {}",
        annotation.level.as_str(),
        annotation.rule,
        human(&annotation.message)
    )
}

/// A command's message: `%`, CR and LF escaped.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value: as a message, and `:` and `,` too.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotation(level: Level, message: &str) -> Annotation {
        Annotation {
            rule: "undeclared-file".into(),
            rule_summary: String::new(),
            level,
            message: message.into(),
            path: Some("src/a,b:c.py".into()),
            line: Some(3),
            column: None,
            help: None,
            suppressed: None,
        }
    }

    #[test]
    fn values_cannot_end_their_command() {
        let text = commands("check", &[annotation(Level::Error, "50%\n::error::forged")]);
        let first = text.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            "::error file=src/a%2Cb%3Ac.py,line=3,title=handoff undeclared-file::50%25%0A::error::forged"
        );
    }

    #[test]
    fn a_listed_value_cannot_start_a_line_or_a_command() {
        let mut forged = annotation(Level::Error, "x\n::notice::pass\x1b[2K");
        forged.path = Some("::notice::pass\nok".into());
        let many = vec![forged; 11];
        let text = commands("check", &many);
        let listed = text.lines().nth(11).unwrap_or_default();
        assert_eq!(
            listed,
            "  \\x3a:notice::pass\\nok:3: error[undeclared-file]: x\\n::notice::pass\\x1b[2K"
        );
        assert!(text
            .lines()
            .all(|line| !line.trim_start().starts_with("::notice")));
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn past_ten_per_level_the_rest_are_listed_not_annotated() {
        let many: Vec<Annotation> = (0..13)
            .map(|i| annotation(Level::Error, &format!("e{i}")))
            .chain((0..2).map(|i| annotation(Level::Warning, &format!("w{i}"))))
            .collect();
        let text = commands("lint", &many);
        assert_eq!(text.matches("\n::error ").count() + 1, 10, "{text}");
        assert_eq!(text.matches("::warning ").count(), 2);
        assert!(text.contains("3 more finding(s) not annotated"), "{text}");
        assert!(text.contains("  src/a,b:c.py:3: error[undeclared-file]: e12\n"));
        assert!(text.ends_with("handoff lint: 13 error(s), 2 warning(s), 0 note(s)\n"));
    }
}
