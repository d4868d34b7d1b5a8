//! `handoff explain CODE`: the documentation of a diagnostic code.

use super::output::{print_report, TemplatesArg};
use super::{Failure, Outcome};
use handoff::Code;
use handoff::{ExplainReport, Format};

/// Arguments of `handoff explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The code to explain, e.g. `missing-field`. Omit it to list every code.
    code: Option<String>,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Prints one code's documentation, or the list of all codes.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let code = match args.code.as_deref() {
        None => None,
        Some(name) => Some(Code::from_name(name).ok_or_else(|| {
            Failure(format!(
                "unknown code `{name}`; run `handoff explain` to list every code"
            ))
        })?),
    };
    print_report(&ExplainReport(code), Format::Human, &args.templates)?;
    Ok(Outcome::Ok)
}
