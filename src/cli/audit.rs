//! `handoff audit`: re-derive recorded routing decisions and summarise the records.
//!
//! Formats: `human` (findings as `path:line: severity[kind]`, then the summary),
//! `markdown` (or `md`: a Markdown report), `html` (that report in one self-contained
//! page) and `json` (the documented contract); see [`handoff::AuditReport`]. Exit 0 when no error was found, 1 when a routing finding or a lint error
//! is an error, 2 when an input or the registry cannot be read.

use super::inputs::expand;
use super::output::{formats, print_report, TemplatesArg};
use super::route::load;
use super::{Failure, Outcome};
use handoff::audit_documents;
use handoff::parse_document;
use handoff::Reference;
use handoff::{AuditReport, Format, Report};
use std::path::PathBuf;

/// Arguments of `handoff audit`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or directories (every Markdown file below); `-` reads standard input; nothing
    /// reads the records directory (`.handoff/`, or the policy's `records_dir`).
    paths: Vec<PathBuf>,
    /// The agent registry to re-derive routing decisions against.
    #[arg(long, value_name = "PATH")]
    registry: Option<PathBuf>,
    /// The aliases file (default: `capability-aliases.yaml` inside or next to the registry).
    #[arg(long, value_name = "FILE", requires = "registry")]
    aliases: Option<PathBuf>,
    /// Output format (`md` is accepted for `markdown`).
    #[arg(long, value_parser = formats(AuditReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Reads the records, audits them and prints the report.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let reference = match &args.registry {
        Some(path) => Some(load(path, args.aliases.as_deref())?),
        None => None,
    };
    let mut documents = Vec::new();
    for input in expand(&args.paths)? {
        let input = input?;
        let text = input.read()?;
        documents.push(parse_document(&input.name(), &text));
    }
    let report = audit_documents(
        &documents,
        reference
            .as_ref()
            .map(|(registry, aliases)| Reference { registry, aliases }),
    );
    let layout = AuditReport {
        audit: &report,
        files: documents.len(),
        registry: reference.as_ref().map(|(registry, _)| registry),
    };
    print_report(&layout, args.format, &args.templates)?;
    Ok(match report.error_count() {
        0 => Outcome::Ok,
        _ => Outcome::Findings,
    })
}
