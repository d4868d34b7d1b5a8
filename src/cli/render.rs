//! `handoff render [FILE|-] [--templates DIR]`: records from data back to Markdown.
//!
//! Reads `handoff parse` output (JSON or YAML), a single record object, or an array of
//! them; derived keys (`decision`, `evidence`, …) are ignored since they follow from the
//! rest. Prints each record in canonical form, separated by a blank line.

use super::inputs::single;
use super::output::{write_stdout, TemplatesArg};
use super::{Failure, Outcome};
use handoff::{records_from_json, render, JsonInputError};
use std::path::PathBuf;

/// Arguments of `handoff render`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The JSON or YAML file; `-` (or nothing, when it is piped) reads standard input.
    input: Option<PathBuf>,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Renders every record of the input.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let input = single(args.input.as_deref(), "`handoff parse` JSON or YAML")?;
    let (name, text) = (input.name(), input.read()?);
    let records = records_from_json(&text).map_err(|error| match error {
        JsonInputError::Shape { line, column, .. } if line > 0 => {
            Failure(format!("{name}:{line}:{column}: {error}"))
        }
        _ => Failure(format!("{name}: {error}")),
    })?;
    let templates = args.templates.load()?;
    let rendered = records
        .iter()
        .map(|record| render(record, &templates))
        .collect::<Result<Vec<String>, _>>()?;
    write_stdout(&rendered.join("\n"))?;
    Ok(Outcome::Ok)
}
