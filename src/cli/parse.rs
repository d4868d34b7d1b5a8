//! `handoff parse [FILE|-|DIR]... [--format json|yaml]`: records as data.
//!
//! Output: `{"records": [...], "diagnostics": [...]}`, each record in the documented key
//! order (docs/records.md). Exit 0 (diagnostics are data, not failure), 2 when a file
//! cannot be read.

use super::inputs::expand;
use super::output::write_stdout;
use super::{Failure, Outcome};
use handoff::record::{parse_document, RecordJson};
use serde::Serialize;
use std::path::PathBuf;

/// Data formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DataFormat {
    /// JSON, pretty-printed.
    Json,
    /// YAML.
    Yaml,
}

/// Arguments of `handoff parse`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or directories (every `.md` below); `-` or nothing reads standard input.
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Json)]
    format: DataFormat,
}

#[derive(Serialize)]
struct ParseOutput<'a> {
    records: Vec<RecordJson<'a>>,
    diagnostics: &'a [handoff::diagnostic::Diagnostic],
}

/// Parses every input and prints records and diagnostics.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let mut records = Vec::new();
    let mut diagnostics = Vec::new();
    for input in expand(&args.paths) {
        let input = input?;
        let text = input.read()?;
        let document = parse_document(&input.name(), &text);
        records.extend(document.records);
        diagnostics.extend(document.diagnostics);
    }
    let output = ParseOutput {
        records: records.iter().map(RecordJson).collect(),
        diagnostics: &diagnostics,
    };
    let text = match args.format {
        DataFormat::Json => serde_json::to_string_pretty(&output)? + "\n",
        DataFormat::Yaml => yaml_serde::to_string(&output)?,
    };
    write_stdout(&text)?;
    Ok(Outcome::Ok)
}
