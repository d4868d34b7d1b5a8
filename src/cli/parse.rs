//! `handoff parse [FILE|-|DIR]... [--format json|yaml]`: records as data.
//!
//! Output: `{"records": [...], "diagnostics": [...]}`, each record in the documented key
//! order (docs/records.md). Exit 0 (diagnostics are data, not failure), 2 when a file
//! cannot be read.

use super::inputs::expand;
use super::output::{formats, print_report, TemplatesArg};
use super::{Failure, Outcome};
use handoff::parse_document;
use handoff::{Format, ParseReport, Report};
use std::path::PathBuf;

/// Arguments of `handoff parse`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or directories (every Markdown file below); `-` reads standard input; nothing
    /// reads the records directory (`.handoff/`, or the policy's `records_dir`).
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = formats(ParseReport::FORMATS), default_value_t = Format::Json)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Parses every input and prints records and diagnostics.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let mut records = Vec::new();
    let mut diagnostics = Vec::new();
    for input in expand(&args.paths)? {
        let input = input?;
        let text = input.read()?;
        let document = parse_document(&input.name(), &text);
        records.extend(document.records);
        diagnostics.extend(document.diagnostics);
    }
    let report = ParseReport::new(&records, &diagnostics);
    print_report(&report, args.format, &args.templates)?;
    Ok(Outcome::Ok)
}
