//! Facts derived from a record's sections: the decision, an escalation's failure type,
//! a capability request, and a scope expansion.
//!
//! Only a real `Decision` section heading counts as a decision: a header value or a
//! body line that merely contains `### Decision` is text. That is a security property,
//! since a record must not be able to approve itself through a field value.

use super::fields::{Capability, Urgency};
use super::placeholder::is_placeholder;
use super::statements::{each_visible_block, sentences, visible_blocks, words, Block, Piece};
use super::Record;
use crate::identity::{same_agent, AgentName};
use serde::Serialize;
use std::fmt;
use std::hash::BuildHasher;

/// What the receiver decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecisionStatus {
    /// Approved, accepted, passed, LGTM, ship it.
    Approved,
    /// Rejected, denied, declined.
    Rejected,
    /// Changes requested.
    ChangesRequested,
    /// Deferred, postponed, on hold.
    Deferred,
    /// A Decision section that is blank, a placeholder, or says something unrecognised.
    Pending,
    /// No Decision section.
    Absent,
}

impl DecisionStatus {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionStatus::Approved => "approved",
            DecisionStatus::Rejected => "rejected",
            DecisionStatus::ChangesRequested => "changes-requested",
            DecisionStatus::Deferred => "deferred",
            DecisionStatus::Pending => "pending",
            DecisionStatus::Absent => "absent",
        }
    }
}

impl fmt::Display for DecisionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for DecisionStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A record's decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// The status of the first visible statement.
    pub status: DecisionStatus,
    /// Who decided, from a `Reviewer:` / `Signed-off-by:` / `Decided by:` line.
    pub by: Option<String>,
    /// The Decision body, unless blank or a placeholder.
    pub text: Option<String>,
    /// The line of the Decision heading (the record's line when there is none).
    pub line: usize,
    /// Whether the first statement said something that is not a recognised decision.
    #[serde(skip)]
    pub unrecognized: bool,
    /// Why the Decision cannot be read as a plain decision, when it cannot: an approval
    /// with a condition or an exception, a question, a refusal beside the approval, a
    /// decider line that names no single agent. Such a Decision never approves.
    #[serde(skip)]
    pub ambiguity: Option<String>,
}

/// Approval words, matched at the start of the first statement; longer phrases first.
const APPROVALS: &[&str] = &[
    "ship it", "approved", "approve", "accepted", "accept", "lgtm",
];

/// Refusal and deferral words. A refusal holds whatever follows it: it only ever makes
/// the gate stricter.
const REFUSALS: &[(&str, DecisionStatus)] = &[
    ("changes requested", DecisionStatus::ChangesRequested),
    ("changes-requested", DecisionStatus::ChangesRequested),
    ("request changes", DecisionStatus::ChangesRequested),
    ("needs changes", DecisionStatus::ChangesRequested),
    ("not approved", DecisionStatus::Rejected),
    ("rejected", DecisionStatus::Rejected),
    ("reject", DecisionStatus::Rejected),
    ("denied", DecisionStatus::Rejected),
    ("declined", DecisionStatus::Rejected),
    ("decline", DecisionStatus::Rejected),
    ("deferred", DecisionStatus::Deferred),
    ("defer", DecisionStatus::Deferred),
    ("postponed", DecisionStatus::Deferred),
    ("on hold", DecisionStatus::Deferred),
];

/// Words that make an approval conditional, partial or negated: "Approve once …",
/// "Approved for `docs/` only", "Approved, but not the migration".
const QUALIFIERS: &[&str] = &[
    "if",
    "unless",
    "once",
    "when",
    "after",
    "until",
    "provided",
    "providing",
    "assuming",
    "only",
    "except",
    "excluding",
    "but",
    "pending",
    "partially",
    "partly",
    "conditionally",
    "conditional",
    "not",
    "no",
    "never",
    "without",
    "nor",
];

/// Labels a status may be written after: `Status: approved`, `Verdict: REJECTED`.
const STATUS_LABELS: &[&str] = &["status:", "decision:", "verdict:"];

/// Labels of the decider line.
const DECIDER_LABELS: &[&str] = &["reviewer:", "signed-off-by:", "decided by:"];

pub(super) fn decision(record: &Record) -> Decision {
    let Some(section) = record.section("Decision") else {
        return Decision {
            status: DecisionStatus::Absent,
            by: None,
            text: None,
            line: record.line,
            unrecognized: false,
            ambiguity: None,
        };
    };
    let body = section.body.trim();
    let blank = body.is_empty() || is_placeholder(body);
    let mut decision = Decision {
        status: DecisionStatus::Pending,
        by: None,
        text: (!blank).then(|| body.to_string()),
        line: section.line,
        unrecognized: false,
        ambiguity: None,
    };
    if blank {
        return decision;
    }
    let blocks = visible_blocks(body, section.body_line);
    let (by, decider_problem) = decider(&blocks);
    decision.by = by;
    let first = blocks
        .iter()
        .flat_map(|block| {
            block
                .prose()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .map(|line| line.trim().to_string())
        .find(|line| !line.is_empty() && decider_value(line).is_none());
    let Some(first) = first else {
        decision.unrecognized = true;
        return decision;
    };
    match status_of(&first) {
        Some(DecisionStatus::Approved) => {
            let all: String = blocks.iter().map(|b| b.prose() + "\n").collect();
            decision.status = DecisionStatus::Approved;
            decision.ambiguity = approval_ambiguity(&first, &all).or(decider_problem);
        }
        Some(status) => decision.status = status,
        None => decision.unrecognized = true,
    }
    decision
}

/// The status a statement starts with: a status label skipped, leading symbols (`✅`,
/// bullets) skipped; an approval or refusal word followed by no letter.
fn status_of(statement: &str) -> Option<DecisionStatus> {
    let mut lower = statement.trim().to_lowercase();
    for label in STATUS_LABELS {
        if let Some(rest) = lower.strip_prefix(label) {
            lower = rest.trim().to_string();
        }
    }
    let lower = lower.trim_start_matches(|ch: char| !ch.is_alphanumeric());
    let starts = |word: &str| {
        lower
            .strip_prefix(word)
            .is_some_and(|rest| !rest.starts_with(|ch: char| ch.is_alphanumeric() || ch == '-'))
    };
    if let Some((_, status)) = REFUSALS.iter().find(|(word, _)| starts(word)) {
        return Some(*status);
    }
    APPROVALS
        .iter()
        .any(|word| starts(word))
        .then_some(DecisionStatus::Approved)
}

/// Why an approval is not plain, if it is not: its first sentence is a question or
/// holds a condition or an exception, or a refusal is written beside it.
fn approval_ambiguity(first: &str, all: &str) -> Option<String> {
    let sentence = sentences(first).into_iter().next().unwrap_or_default();
    if sentence.ends_with('?') {
        return Some(format!("`{sentence}` is a question, not a decision"));
    }
    if let Some(word) = words(sentence)
        .into_iter()
        .find(|word| QUALIFIERS.contains(&word.as_str()))
    {
        return Some(format!(
            "`{sentence}` approves with a condition or an exception (`{word}`)"
        ));
    }
    let folded = words(all).join(" ");
    REFUSALS
        .iter()
        .filter(|(_, status)| *status != DecisionStatus::Deferred)
        .find(|(word, _)| contains_words(&folded, word))
        .map(|(word, _)| format!("the Decision approves and also says `{word}`"))
}

/// Whether `words` (space-joined) holds `phrase` as whole words.
fn contains_words(words: &str, phrase: &str) -> bool {
    words.match_indices(phrase).any(|(at, _)| {
        let before = words[..at].chars().next_back();
        let after = words[at + phrase.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The decider: the one agent named by the `Reviewer:` lines of the Decision's
/// paragraphs (not list items, quotes, code or comments). Several names, or a line that
/// holds more than a name, make it ambiguous.
fn decider(blocks: &[Block]) -> (Option<String>, Option<String>) {
    let mut named: Option<String> = None;
    for block in blocks.iter().filter(|block| !block.in_list) {
        for line in block.text().lines() {
            let Some(value) = decider_value(line.trim()) else {
                continue;
            };
            let value = value.trim().trim_end_matches(['.', ',', ';']);
            let Ok(name) = AgentName::parse(value) else {
                // One word that is not a name (a look-alike letter inside) is the
                // decider as written: the gate reports it as invalid-agent-name.
                if !value.contains(char::is_whitespace) && named.is_none() {
                    named = Some(value.to_string());
                    continue;
                }
                return (
                    named,
                    Some(format!(
                        "the decider line `{}` names no single agent",
                        line.trim()
                    )),
                );
            };
            if let Some(known) = named
                .as_deref()
                .filter(|known| !same_agent(known, name.as_str()))
            {
                let problem = format!("the Decision names two deciders, {known} and {name}");
                return (named, Some(problem));
            }
            named = Some(value.to_string());
        }
    }
    (named, None)
}

/// The value of a `Reviewer:` / `Signed-off-by:` / `Decided by:` line.
fn decider_value(line: &str) -> Option<&str> {
    DECIDER_LABELS
        .iter()
        .find_map(|label| strip_prefix_ignore_case(line, label))
}

/// Whether a record of the user says, in a sentence of its own, to ship without review:
/// the line of that sentence. Read as Markdown ([`visible_blocks`]): quoted, struck,
/// commented or coded text says nothing; a question, a quotation, a negation or a
/// condition does not waive. Besides the words "ship it without review", the sentence
/// may only hold courtesy (`OK`, `please`, `go ahead`, `you can`).
pub(super) fn waiver_line(record: &Record) -> Option<usize> {
    record.sections().iter().find_map(|section| {
        visible_blocks(&section.body, section.body_line)
            .into_iter()
            .find_map(|block| {
                let prose = block.prose().replace('\n', " ");
                sentences(&prose)
                    .into_iter()
                    .any(is_waiver_sentence)
                    .then_some(block.line)
            })
    })
}

/// The words a waiver sentence may hold besides "ship it without review".
const COURTESY: &[&str] = &[
    "ok",
    "okay",
    "yes",
    "please",
    "go",
    "ahead",
    "and",
    "just",
    "you",
    "can",
    "may",
    "fine",
    "alright",
    "i",
    "confirm",
    "hereby",
    "user",
    "instruction",
    "the",
    "team",
];

fn is_waiver_sentence(sentence: &str) -> bool {
    const PHRASE: [&str; 4] = ["ship", "it", "without", "review"];
    if sentence.ends_with('?') || sentence.contains(['"', '“', '”', '«', '»']) {
        return false;
    }
    let words = words(sentence);
    let Some(at) = words.windows(4).position(|window| window == PHRASE) else {
        return false;
    };
    words
        .iter()
        .enumerate()
        .filter(|(index, _)| !(at..at + 4).contains(index))
        .all(|(_, word)| COURTESY.contains(&word.as_str()))
}

/// Removes emphasis markers and list bullets from a line.
fn strip_emphasis(line: &str) -> String {
    let line = line.replace("**", "").replace("__", "");
    let line = line.trim();
    let line = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .unwrap_or(line);
    line.trim().to_string()
}

/// `text` without `prefix`, when it starts with it ignoring ASCII case.
fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// A `Label: value` line of a section, as `(value, 1-based line)`.
pub(super) fn labelled_line(
    record: &Record,
    section: &str,
    label: &str,
) -> Option<(String, usize)> {
    let section = record.section(section)?;
    section.body.lines().enumerate().find_map(|(offset, line)| {
        let line = strip_emphasis(line);
        let rest = strip_prefix_ignore_case(&line, label)?;
        let value = rest.trim_start().strip_prefix(':')?.trim().to_string();
        Some((value, section.body_line + offset))
    })
}

/// The `Failure Type: …` line of Request: its value and line.
pub(super) fn failure_type_line(record: &Record) -> Option<(String, usize)> {
    labelled_line(record, "Request", "Failure Type")
}

/// A capability request read from Request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CapabilityRequest {
    /// The capability domain.
    pub domain: String,
    /// Its qualifiers.
    pub qualifiers: Vec<String>,
    /// The `Reason:` line.
    pub reason: Option<String>,
    /// The `Urgency:` line, when it is `blocking` or `non-blocking`.
    pub urgency: Option<Urgency>,
}

pub(super) fn capability_request(record: &Record) -> Option<CapabilityRequest> {
    let (needed, _) = labelled_line(record, "Request", "Capability needed")?;
    if is_placeholder(&needed) {
        return None;
    }
    let capability = Capability::parse(&needed)?;
    let reason = labelled_line(record, "Request", "Reason")
        .map(|(reason, _)| reason)
        .filter(|reason| !reason.is_empty() && !is_placeholder(reason));
    let urgency = labelled_line(record, "Request", "Urgency")
        .and_then(|(urgency, _)| Urgency::parse(&urgency));
    Some(CapabilityRequest {
        domain: capability.domain,
        qualifiers: capability.qualifiers,
        reason,
        urgency,
    })
}

/// A request to touch files outside the declared scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScopeExpansion {
    /// The paths the request names: its code spans and the items of its lists, never
    /// a path its own sentence negates (`but not `lib/``).
    pub paths: Vec<String>,
    /// Why: the text after the first `because `, else the whole request.
    pub reason: String,
    /// The line of the `Scope expansion:` text.
    pub line: usize,
}

const SCOPE_PREFIX: &str = "scope expansion:";

/// Words that, earlier in the same sentence, take a path out of the request.
const NEGATIONS: &[&str] = &[
    "not",
    "except",
    "excluding",
    "exclude",
    "without",
    "no",
    "never",
    "nor",
    "but",
];

/// The scope expansion of a record, its paths read no further than `cap + 1` (the
/// reading stops there, so a request past the gate's cap costs no more than the cap).
pub(super) fn scope_expansion(record: &Record, cap: usize) -> Option<ScopeExpansion> {
    let section = record.section("Request")?;
    let mut blocks = each_visible_block(&section.body, section.body_line);
    let first = blocks.next()?;
    let text = first.written();
    let request = strip_prefix_ignore_case(text.trim_start(), SCOPE_PREFIX)?.trim();
    let reason = match request.find("because ") {
        Some(at) => request[at + "because ".len()..].trim(),
        None => request,
    };
    let (reason, line) = (reason.to_string(), first.line);
    let mut paths: Vec<String> = Vec::new();
    // Each path once, in the order written; the table holds indices into `paths`, not
    // second copies of them.
    let hasher = hashbrown::DefaultHashBuilder::default();
    let mut seen: hashbrown::HashTable<usize> = hashbrown::HashTable::new();
    for block in std::iter::once(first).chain(blocks) {
        for path in block_paths(&block) {
            let hash = hasher.hash_one(path.as_str());
            if seen.find(hash, |&at| paths[at] == path).is_none() {
                seen.insert_unique(hash, paths.len(), |&at| hasher.hash_one(paths[at].as_str()));
                paths.push(path);
            }
        }
        if paths.len() > cap {
            paths.truncate(cap + 1);
            break;
        }
    }
    Some(ScopeExpansion {
        paths,
        reason,
        line,
    })
}

/// The paths one block of a Request names: its code spans up to `because` (the reason
/// follows), unless a negation precedes them in their sentence; a list item that is one
/// bare word counts as that path.
fn block_paths(block: &Block) -> Vec<String> {
    let mut paths = Vec::new();
    let mut negated = false;
    for piece in &block.pieces {
        match piece {
            Piece::Text(text) => {
                for sentence_part in text.split_inclusive(['.', '!', '?', ';', '\n']) {
                    let words = words(sentence_part);
                    if words.iter().any(|word| word == "because") {
                        return paths;
                    }
                    negated |= words.iter().any(|word| NEGATIONS.contains(&word.as_str()));
                    if sentence_part.ends_with(['.', '!', '?', ';', '\n']) {
                        negated = false;
                    }
                }
            }
            Piece::Code(code) if !negated && !code.trim().is_empty() => {
                paths.push(code.trim().to_string());
            }
            Piece::Code(_) => {}
        }
    }
    if block.in_list && paths.is_empty() {
        let text = block.text();
        let word = text.trim().trim_end_matches([',', ';']);
        if !word.is_empty() && !word.contains(char::is_whitespace) {
            paths.push(word.to_string());
        }
    }
    paths
}

#[cfg(test)]
mod tests;
