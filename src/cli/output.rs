//! Writing results and mapping outcomes to exit codes.
//!
//! Results are written to standard output through [`write_stdout`], which treats a
//! closed pipe (`handoff parse … | head`) as success instead of panicking the way
//! `println!` does.

use handoff::Templates;
use handoff::{write_report, Format, Report};
use std::fmt::Display;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// What a command that ran to the end found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report: exit 0.
    Ok,
    /// Findings or a rejection: exit 1.
    Findings,
}

/// Why a command could not run: exit 2, with the message on standard error.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: Display> From<E> for Failure {
    fn from(error: E) -> Self {
        Failure(error.to_string())
    }
}

/// Writes `text` to standard output; a closed pipe is not an error.
pub fn write_stdout(text: &str) -> Result<(), Failure> {
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(error) => Err(Failure(format!("cannot write to standard output: {error}"))),
    }
}

/// Maps a command's result to its exit code, printing a failure on standard error.
pub fn finish(result: Result<Outcome, Failure>) -> ExitCode {
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Err(Failure(message)) => {
            let line = format!("error: {message}");
            let line = match super::color::stderr() {
                true => super::color::paint(&line),
                false => line,
            };
            let _ = writeln!(io::stderr(), "{line}");
            ExitCode::from(2)
        }
    }
}

/// `--templates DIR`: templates that override the embedded ones, file by file.
#[derive(Debug, clap::Args)]
pub struct TemplatesArg {
    /// A directory whose templates override the embedded ones, file by file (record
    /// templates as `review.md`, report layouts as `reports/check.md`, `new`'s skeletons as
    /// `new/review.md`; see `templates/`).
    #[arg(long = "templates", value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

impl TemplatesArg {
    /// The templates: the embedded ones, overridden from the directory when one is given.
    pub fn load(&self) -> Result<Templates, Failure> {
        Ok(Templates::from_option(self.dir.as_deref())?)
    }
}

/// Writes `report` to standard output in `format`, laid out with `templates`; the human
/// layout in colour when `--color` says so.
pub fn print_report<R: Report>(
    report: &R,
    format: Format,
    templates: &TemplatesArg,
) -> Result<(), Failure> {
    let text = write_report(report, format, &templates.load()?)?;
    match format == Format::Human && super::color::stdout() {
        true => write_stdout(&super::color::paint(&text)),
        false => write_stdout(&text),
    }
}

/// The `--format` value parser of a report: its formats, by name or by an older alias
/// (`md`), listed in `--help` and in the error for any other value.
pub fn formats(allowed: &'static [Format]) -> FormatParser {
    FormatParser(allowed)
}

/// See [`formats`].
#[derive(Debug, Clone, Copy)]
pub struct FormatParser(&'static [Format]);

impl clap::builder::TypedValueParser for FormatParser {
    type Value = Format;

    fn parse_ref(
        &self,
        command: &clap::Command,
        argument: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Format, clap::Error> {
        let text = value.to_string_lossy();
        if let Some(format) = Format::named(&text).filter(|format| self.0.contains(format)) {
            return Ok(format);
        }
        use clap::error::{ContextKind, ContextValue, ErrorKind};
        let mut error = clap::Error::new(ErrorKind::InvalidValue).with_cmd(command);
        let name = argument.map_or("--format".to_string(), |arg| arg.to_string());
        error.insert(ContextKind::InvalidArg, ContextValue::String(name));
        error.insert(
            ContextKind::InvalidValue,
            ContextValue::String(text.into_owned()),
        );
        let names = self.0.iter().map(|format| format.as_str().to_string());
        error.insert(
            ContextKind::ValidValue,
            ContextValue::Strings(names.collect()),
        );
        Err(error)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(|format| {
            clap::builder::PossibleValue::new(format.as_str()).aliases(format.aliases().iter())
        })))
    }
}
