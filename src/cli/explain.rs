//! `handoff explain CODE`: the documentation of a diagnostic code.

use super::output::write_stdout;
use super::{Failure, Outcome};
use handoff::diagnostic::Code;

/// Arguments of `handoff explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The code to explain, e.g. `missing-field`. Omit it to list every code.
    code: Option<String>,
}

/// Prints one code's documentation, or the list of all codes.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let Some(name) = args.code else {
        let mut text = String::new();
        for code in Code::all() {
            let info = code.explanation();
            text.push_str(&format!(
                "{:<28} {:<7} {}\n",
                code.name(),
                info.severity,
                info.summary
            ));
        }
        write_stdout(&text)?;
        return Ok(Outcome::Ok);
    };
    let Some(code) = Code::from_name(&name) else {
        return Err(Failure(format!(
            "unknown code `{name}`; run `handoff explain` to list every code"
        )));
    };
    let info = code.explanation();
    write_stdout(&format!(
        "{name} ({severity})\n\n{summary}\n\nExample:\n\n{example}\nFix: {fix}\n",
        name = code.name(),
        severity = info.severity,
        summary = info.summary,
        example = indent(&info.example),
        fix = info.fix,
    ))?;
    Ok(Outcome::Ok)
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("    {line}\n")).collect()
}
