//! Parse throughput: `handoff::parse_document` next to pulldown-cmark's bare
//! event iteration (offset iterator, tables on: the same pass our parser starts with)
//! over the same generated corpus of records.
//!
//! Run: `cargo bench --bench parse` (release profile). Optional argument: the number of
//! records (default 12,000).

use handoff::parse_document;
use pulldown_cmark::{Options, Parser};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Rounds per measurement; the fastest is reported.
const ROUNDS: usize = 7;

fn main() {
    let count = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse::<usize>().ok())
        .unwrap_or(12_000);
    let corpus = corpus(count);
    let megabytes = corpus.len() as f64 / 1_000_000.0;
    let records = parse_document("corpus", &corpus).records.len();
    println!("corpus: {records} records, {megabytes:.2} MB");
    let bare = fastest(|| {
        Parser::new_ext(&corpus, Options::ENABLE_TABLES)
            .into_offset_iter()
            .count()
    });
    let ours = fastest(|| parse_document("corpus", &corpus).records.len());
    let rate = |time: Duration| megabytes / time.as_secs_f64();
    println!(
        "pulldown-cmark events: {:>8.1} MB/s ({:?})",
        rate(bare),
        bare
    );
    println!(
        "handoff parse_document: {:>7.1} MB/s ({:?})",
        rate(ours),
        ours
    );
    println!(
        "ratio: {:.2}x the bare event pass",
        ours.as_secs_f64() / bare.as_secs_f64()
    );
}

fn fastest<T>(mut run: impl FnMut() -> T) -> Duration {
    (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            black_box(run());
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// `count` records cycling through the three kinds and the three header shapes, with
/// prose between them.
fn corpus(count: usize) -> String {
    let mut text = String::with_capacity(count * 700);
    for index in 0..count {
        text.push_str(&format!(
            "Notes for item {index}: some prose between records.\n\n"
        ));
        match index % 4 {
            0 => interaction(&mut text, index),
            1 => assignment(&mut text, index),
            2 => routing(&mut text, index),
            _ => escalation(&mut text, index),
        }
        text.push('\n');
    }
    text
}

fn interaction(text: &mut String, index: usize) {
    text.push_str(&format!(
        "## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-{index} |\n| Type | review |\n| From | backend-engineer |\n| To | reality-checker |\n| Transport | agent-teams |\n| Risk Class | high |\n| Timestamp | 2026-01-11T20:30:00Z |\n\n### Context\n\nImplementing OAuth2 PKCE flow for the `/auth` endpoint. JWT session currently in place.\n\n### Request\n\nReview the change.\n\n### Evidence Bundle\n\n- **Files changed**: src/auth/oauth.ts, src/auth/middleware.ts\n- **Test mapping**: `tests/auth/pkce.test.ts` → login works\n- **Before/after**: before any code; after verifier required\n\n### Decision\n\nApproved\n\nReviewer: reality-checker\n"
    ));
}

fn assignment(text: &mut String, index: usize) {
    text.push_str(&format!(
        "## Task Assignment\n| Task ID | ENG-{index} |\n| Assigned to | backend-engineer |\n| Expected file scope | [src/auth/middleware.ts, src/auth/oauth.ts, tests/auth/*.test.ts] |\n| Risk Class | medium |\n"
    ));
}

fn routing(text: &mut String, index: usize) {
    text.push_str(&format!(
        "## Routing Decision\n\n| Task ID | ENG-{index} |\n|---|---|\n| Requested capability | auth: [oauth2, pkce] |\n| Matched agents | security-engineer (auth: [oauth2, saml]), backend-engineer (auth: [jwt, session]) |\n| Selected | security-engineer |\n| Reason | Qualifier match: oauth2 is in security-engineer's qualifiers |\n| Rejected | backend-engineer — qualifier mismatch |\n| Tie-break rule applied | qualifier-match (highest priority) |\n"
    ));
}

fn escalation(text: &mut String, index: usize) {
    text.push_str(&format!(
        "## Interaction Record\n| Task ID | ENG-{index} |\n| Type | escalation |\n| From | backend-engineer |\n| To | enterprise-orchestrator |\n### Context\nAttempted OAuth2 PKCE implementation \\| blocked.\n### Request\nFailure Type: wrong-capability\nNeed: security-engineer with auth+oauth2+supabase qualifiers\n"
    ));
}
