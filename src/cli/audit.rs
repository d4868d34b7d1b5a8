//! `handoff audit`: re-derive recorded routing decisions and summarise the records.
//!
//! Formats: `human` (findings as `path:line: severity[kind]`, then the summary),
//! `markdown` (or `md`: a Markdown report), `html` (that report in one self-contained
//! page) and `json` (the documented contract); see [`handoff::AuditReport`]. Exit 0 when no error was found, 1 when a routing finding or a lint error
//! is an error, 2 when an input or the registry cannot be read.

use super::inputs::expand;
use super::output::{formats, print_report, TemplatesArg};
use super::{Failure, Outcome};
use handoff::parse_document;
use handoff::Reference;
use handoff::{apply_audit_baseline, audit_documents, load_registry, Baseline};
use handoff::{
    default_trail_dir, summarise_trail, AuditHeader, AuditReport, Format, Report, Trail,
};
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
    /// The trail whose tasks, timelines and counts the HTML page shows (default: the
    /// policy's `trail_dir`, `.handoff/trail/`, when there is one).
    #[arg(long, value_name = "DIR")]
    trail: Option<PathBuf>,
    /// A SARIF log of an earlier run (`audit --format sarif`): the findings and lint
    /// errors it lists are not counted again (each entry covers one), only reported as
    /// baselined.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Output format (`md` is accepted for `markdown`).
    #[arg(long, value_parser = formats(AuditReport::FORMATS), default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    templates: TemplatesArg,
}

/// Reads the records, audits them and prints the report.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let reference = match &args.registry {
        Some(path) => Some(load_registry(path, args.aliases.as_deref())?),
        None => None,
    };
    let mut documents = Vec::new();
    for input in expand(&args.paths)? {
        let input = input?;
        let text = input.read()?;
        documents.push(parse_document(&input.name(), &text));
    }
    let mut report = audit_documents(
        &documents,
        reference
            .as_ref()
            .map(|(registry, aliases)| Reference { registry, aliases }),
    );
    if let Some(path) = &args.baseline {
        apply_audit_baseline(&mut report, Baseline::read(path)?);
    }
    let now = jiff::Timestamp::now();
    let trail_dir = match &args.trail {
        Some(dir) => Some(dir.clone()),
        None => {
            let dir = default_trail_dir(&std::env::current_dir()?)?;
            dir.is_dir().then_some(dir)
        }
    };
    let summary = match (&trail_dir, args.format) {
        (Some(dir), Format::Html) => {
            let trail = Trail::at(dir.clone());
            trail.require()?;
            Some(summarise_trail(&trail, now)?)
        }
        _ => None,
    };
    let header = (args.format == Format::Html).then(|| {
        let inputs = AuditHeader::inputs(
            &args.paths,
            documents.len(),
            reference.as_ref().map(|(registry, _)| registry),
            trail_dir.as_deref().zip(summary.as_ref()),
        );
        AuditHeader::new(now, &std::env::current_dir().unwrap_or_default(), inputs)
    });
    let layout = AuditReport {
        audit: &report,
        files: documents.len(),
        registry: reference.as_ref().map(|(registry, _)| registry),
        trail: summary.as_ref(),
        header,
    };
    print_report(&layout, args.format, &args.templates)?;
    Ok(match report.error_count() {
        0 => Outcome::Ok,
        _ => Outcome::Findings,
    })
}
