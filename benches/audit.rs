//! Times `handoff audit` over 10,000 generated records (see `tests/support/generate.rs`):
//! parsing, the audit (re-derivation against `examples/registry`, summary, lint), and
//! the Markdown-free total. Run with `cargo bench --bench audit`; it prints the best and
//! the median of several runs. Speed is measured here, never asserted by a test.

#[path = "../tests/support/generate.rs"]
mod generate;

use handoff::audit_documents;
use handoff::Reference;
use handoff::{parse_document, ParsedDocument};
use handoff::{Aliases, Registry};
use std::hint::black_box;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const RECORDS: usize = 10_000;
const PER_FILE: usize = 100;
const RUNS: usize = 7;

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/registry");
    let (mut registry, aliases) = match (
        Registry::load(&root),
        Aliases::load(&root.join("capability-aliases.yaml")),
    ) {
        (Ok(registry), Ok(aliases)) => (registry, aliases),
        (Err(error), _) | (_, Err(error)) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    registry.assign_departments(aliases.departments());
    let files = generate::documents(RECORDS, PER_FILE);
    let bytes: usize = files.iter().map(|(_, text)| text.len()).sum();
    println!(
        "audit benchmark: {RECORDS} records in {} files, {bytes} bytes, {RUNS} runs",
        files.len()
    );

    let mut parse_times = Vec::new();
    let mut audit_times = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let documents: Vec<ParsedDocument> = files
            .iter()
            .map(|(name, text)| parse_document(name, text))
            .collect();
        parse_times.push(start.elapsed());
        let start = Instant::now();
        let report = audit_documents(
            &documents,
            Some(Reference {
                registry: &registry,
                aliases: &aliases,
            }),
        );
        audit_times.push(start.elapsed());
        black_box(report);
    }
    report("parse", &mut parse_times);
    report("audit (re-derive, summary, lint)", &mut audit_times);
    let mut totals: Vec<Duration> = parse_times
        .iter()
        .zip(&audit_times)
        .map(|(p, a)| *p + *a)
        .collect();
    report("total", &mut totals);
    ExitCode::SUCCESS
}

fn report(label: &str, times: &mut [Duration]) {
    times.sort();
    let best = times[0];
    let median = times[times.len() / 2];
    let rate = RECORDS as f64 / median.as_secs_f64();
    println!("{label:<34} best {best:>10.2?}  median {median:>10.2?}  ({rate:.0} records/s at the median)");
}
