//! `handoff fmt [FILE|DIR|-]... [--check]`: rewrite records in canonical form, in place.
//!
//! Only record spans change; every other byte stays. Files are replaced atomically.
//! A record that cannot be rewritten faithfully is left alone with a warning on
//! standard error saying why. `--check` writes nothing: it prints a unified diff per file
//! and exits 1 when anything would change. `-` formats standard input to standard output.

use super::inputs::expand;
use super::output::{write_stdout, TemplatesArg};
use super::{Failure, Outcome};
use handoff::{format_document, unified_diff, Templates};
use handoff::{replace_atomically, Source};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `handoff fmt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or directories (every `.md` below); `-` formats standard input to standard
    /// output; nothing formats the records directory (`.handoff/`, or the policy's `records_dir`).
    paths: Vec<PathBuf>,
    /// Change nothing: print a diff and exit 1 when a file is not in canonical form.
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Formats every input.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let templates = args.templates.load()?;
    let (mut files, mut changed, mut stdin) = (0, 0, false);
    let mut unreadable = Vec::new();
    for input in expand(&args.paths)? {
        stdin |= matches!(input, Ok(Source::Stdin));
        let formatted = input
            .map_err(|error| Failure(error.to_string()))
            .and_then(|input| format_input(&input, &templates, args.check));
        match formatted {
            Ok(input_changed) => {
                files += 1;
                changed += usize::from(input_changed);
            }
            Err(Failure(message)) => unreadable.push(message),
        }
    }
    if !unreadable.is_empty() {
        return Err(Failure(unreadable.join("\nerror: ")));
    }
    if !stdin {
        let done = match args.check {
            true => "would be reformatted",
            false => "reformatted",
        };
        let _ = writeln!(
            std::io::stderr(),
            "{files} file{}: {changed} {done}, {} already canonical",
            plural(files),
            files - changed
        );
    }
    let changed = changed > 0;
    Ok(if args.check && changed {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}

/// `s` unless there is exactly one.
fn plural(count: usize) -> &'static str {
    match count {
        1 => "",
        _ => "s",
    }
}

/// Formats one input; returns whether it changed (or would).
fn format_input(input: &Source, templates: &Templates, check: bool) -> Result<bool, Failure> {
    let name = input.name();
    let text = input.read()?;
    let formatted = format_document(&name, &text, templates);
    let mut stderr = std::io::stderr().lock();
    for skipped in &formatted.skipped {
        let _ = writeln!(
            stderr,
            "warning: {name}:{}: record left as it is: {}",
            skipped.line, skipped.reason
        );
    }
    let changed = formatted.text != text;
    match (input, check) {
        (_, true) => write_stdout(&unified_diff(&text, &formatted.text, &name))?,
        (Source::Stdin, false) => write_stdout(&formatted.text)?,
        (Source::File(path), false) if changed => {
            replace_atomically(path, formatted.text.as_bytes())
                .map_err(|error| Failure(format!("{name}: cannot write: {error}")))?;
            let _ = writeln!(stderr, "formatted {name}");
        }
        (Source::File(_), false) => {}
    }
    Ok(changed)
}
