//! `handoff lint [FILE|-|DIR]... [--format human|json]`: check records against the protocol.
//!
//! Human output is one block per diagnostic: `path:line:column: error[code]: message`,
//! the source line with a caret under the column, and `= hint: …`. JSON is
//! `{"diagnostics": [{source, line, column, severity, code, message, hint}], "errors": [..]}`
//! where `errors` holds one message per input that could not be read.
//! Exit 0 without errors (warnings allowed), 1 with errors, 2 when a file cannot be read.

use super::inputs::expand;
use super::output::{formats, print_report, TemplatesArg};
use super::{Failure, Outcome};
use handoff::{lint, parse_document, Baseline};
use handoff::{Format, LintReport, Report};
use std::path::PathBuf;

/// Arguments of `handoff lint`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or directories (every Markdown file below); `-` reads standard input; nothing
    /// reads the records directory (`.handoff/`, or the policy's `records_dir`).
    paths: Vec<PathBuf>,
    /// A SARIF log of an earlier run (`lint --format sarif`): the diagnostics it lists
    /// are not counted again (each entry covers one), only reported as baselined.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = formats(LintReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Lints every input and reports.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let mut report = LintReport::default();
    for input in expand(&args.paths)? {
        let read = input.map_err(|error| error.to_string()).and_then(|input| {
            input
                .read()
                .map(|text| (input, text))
                .map_err(|e| e.to_string())
        });
        match read {
            Ok((input, text)) => {
                let document = parse_document(&input.name(), &text);
                report.add(&text, document.records.len(), lint(&document));
            }
            Err(message) => report.add_unreadable(message),
        }
    }
    if let Some(path) = &args.baseline {
        report.apply_baseline(Baseline::read(path)?);
    }
    print_report(&report, args.format, &args.templates)?;
    if !report.unreadable().is_empty() {
        return Err(Failure(report.unreadable().join("\nerror: ")));
    }
    Ok(if report.has_errors() {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}
