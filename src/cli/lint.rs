//! `handoff lint [FILE|-|DIR]... [--format human|json]`: check records against the protocol.
//!
//! Human output is one block per diagnostic: `path:line:column: error[code]: message`,
//! the source line with a caret under the column, and `= hint: …`. JSON is
//! `{"diagnostics": [{source, line, column, severity, code, message, hint}], "errors": [..]}`
//! where `errors` holds one message per input that could not be read.
//! Exit 0 without errors (warnings allowed), 1 with errors, 2 when a file cannot be read.

use super::inputs::expand;
use super::output::write_stdout;
use super::{Failure, Outcome};
use handoff::diagnostic::Diagnostic;
use handoff::io::Source;
use handoff::record::{lint, parse_document};
use std::path::PathBuf;

/// Output formats of `handoff lint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LintFormat {
    /// `path:line:column: severity[code]: message`, the line, a caret and a hint.
    Human,
    /// `{"diagnostics": [...]}`.
    Json,
}

/// Arguments of `handoff lint`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or directories (every `.md` below); `-` or nothing reads standard input.
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = LintFormat::Human)]
    format: LintFormat,
}

/// Lints every input and reports.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let mut diagnostics = Vec::new();
    let mut human = String::new();
    let mut unreadable = Vec::new();
    for input in expand(&args.paths) {
        match input
            .map_err(|error| error.to_string())
            .and_then(|input| lint_input(&input))
        {
            Ok((text, found)) => {
                if args.format == LintFormat::Human {
                    human.push_str(&render_human(&text, &found));
                }
                diagnostics.extend(found);
            }
            Err(message) => unreadable.push(message),
        }
    }
    let output = match args.format {
        LintFormat::Human => human + &summary(&diagnostics),
        LintFormat::Json => {
            // `errors` names the inputs that could not be read, so a JSON reader never
            // mistakes a run that exits 2 for a clean one.
            let report = serde_json::json!({ "diagnostics": diagnostics, "errors": unreadable });
            serde_json::to_string_pretty(&report)? + "\n"
        }
    };
    write_stdout(&output)?;
    if !unreadable.is_empty() {
        return Err(Failure(unreadable.join("\nerror: ")));
    }
    Ok(if diagnostics.iter().any(Diagnostic::is_error) {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}

fn lint_input(input: &Source) -> Result<(String, Vec<Diagnostic>), String> {
    let text = input.read().map_err(|error| error.to_string())?;
    let found = lint(&parse_document(&input.name(), &text));
    Ok((text, found))
}

/// One diagnostic block per finding, as `rustc` and ripgrep users expect.
pub fn render_human(text: &str, diagnostics: &[Diagnostic]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    for diagnostic in diagnostics {
        out.push_str(&format!(
            "{}: {}[{}]: {}\n",
            diagnostic.location(),
            diagnostic.severity,
            diagnostic.code,
            diagnostic.message
        ));
        let number = diagnostic.line.unwrap_or_default();
        if let Some(line) = number.checked_sub(1).and_then(|index| lines.get(index)) {
            let number = number.to_string();
            let pad = " ".repeat(number.len());
            let caret = " ".repeat(diagnostic.column.unwrap_or(1).saturating_sub(1));
            out.push_str(&format!("{pad} |\n{number} | {line}\n{pad} | {caret}^\n"));
        }
        if let Some(hint) = &diagnostic.hint {
            out.push_str(&format!("  = hint: {hint}\n"));
        }
        out.push('\n');
    }
    out
}

fn summary(diagnostics: &[Diagnostic]) -> String {
    if diagnostics.is_empty() {
        return String::new();
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    format!("{errors} error(s), {warnings} warning(s)\n")
}
