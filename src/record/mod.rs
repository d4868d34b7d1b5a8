//! Interaction Records: the model, and the modules that read, write and check it.
//!
//! A Markdown document holds zero or more records of three kinds (Interaction Record,
//! Task Assignment, Routing Decision). Each record is a heading, a key/value header
//! table, optional prose (the preamble), and `###` sections. [`parse_document`] turns a
//! document into [`Record`]s plus diagnostics and never fails; [`render`] turns a record
//! into its canonical Markdown through Tera templates and proves the result re-parses
//! to the same record; [`lint`] checks records against the protocol; [`format_document`]
//! rewrites the records of a document in canonical form and leaves everything else alone.
//!
//! Values are stored normalised (trimmed, `\n` line endings, enumerations in canonical
//! lower case, structured values in canonical text when they parse), so two records that
//! say the same thing compare equal whatever their source looked like. Positions (file,
//! line, byte span) are carried along but never take part in equality.

mod derived;
mod diff;
pub mod fields;
mod fmt;
mod json;
mod lint;
mod parse;
pub mod placeholder;
mod render;
mod sanitize;
mod skeleton;
mod statements;

pub use derived::{CapabilityRequest, Decision, DecisionStatus, ScopeExpansion};
pub use diff::unified_diff;
pub use fields::{
    Capability, FailureType, FieldKey, InteractionType, MatchedAgent, RejectedAgent, TieBreak,
    Transport, Urgency,
};
pub use fmt::{format_document, FormattedDocument, SkippedRecord};
pub use json::{records_from_json, JsonInputError, RecordJson};
pub use lint::{lint, lint_record};
pub use parse::{parse_document, ParsedDocument};
pub use render::{render, RenderError};
pub use skeleton::{
    set_checked_value, skeleton, timestamp_or_now, write_new_record, SetValueError, SkeletonError,
    SkeletonValues, WriteNewError, SKELETONS,
};

use crate::evidence::EvidenceItem;
use crate::policy::RiskClass;
use std::collections::HashMap;
use std::ops::Range;

/// The three kinds of record, named by their heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// `## Interaction Record`: a consultation, handoff, review, escalation or capability request.
    InteractionRecord,
    /// `## Task Assignment`: the orchestrator's dispatch, with the file scope.
    TaskAssignment,
    /// `## Routing Decision`: who the orchestrator routed a task to, and why.
    RoutingDecision,
}

impl RecordKind {
    /// Every kind.
    pub const ALL: [RecordKind; 3] = [
        RecordKind::InteractionRecord,
        RecordKind::TaskAssignment,
        RecordKind::RoutingDecision,
    ];

    /// The heading text, e.g. `Interaction Record`.
    pub fn heading(self) -> &'static str {
        match self {
            RecordKind::InteractionRecord => "Interaction Record",
            RecordKind::TaskAssignment => "Task Assignment",
            RecordKind::RoutingDecision => "Routing Decision",
        }
    }

    /// The kind's name in JSON, e.g. `interaction-record`.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::InteractionRecord => "interaction-record",
            RecordKind::TaskAssignment => "task-assignment",
            RecordKind::RoutingDecision => "routing-decision",
        }
    }

    /// Looks a kind up by its JSON name or heading text (case-insensitive).
    pub fn parse(text: &str) -> Option<RecordKind> {
        let folded = fields::fold_key(text);
        RecordKind::ALL
            .into_iter()
            .find(|kind| folded == kind.as_str() || folded == kind.heading().to_lowercase())
    }

    /// The header keys of this kind, in the order the canonical form writes them.
    pub fn keys(self) -> &'static [FieldKey] {
        match self {
            RecordKind::InteractionRecord => &[
                FieldKey::TaskId,
                FieldKey::Type,
                FieldKey::From,
                FieldKey::To,
                FieldKey::Transport,
                FieldKey::RiskClass,
                FieldKey::Timestamp,
            ],
            RecordKind::TaskAssignment => &[
                FieldKey::TaskId,
                FieldKey::AssignedTo,
                FieldKey::ExpectedFileScope,
                FieldKey::BaselineSha,
                FieldKey::RiskClass,
                FieldKey::CapabilityRouted,
            ],
            RecordKind::RoutingDecision => &[
                FieldKey::TaskId,
                FieldKey::RequestedCapability,
                FieldKey::MatchedAgents,
                FieldKey::Selected,
                FieldKey::Reason,
                FieldKey::Rejected,
                FieldKey::TieBreakRule,
            ],
        }
    }

    /// Whether `lint` requires the key in a record of this kind (one of [`Self::keys`]).
    pub fn requires(self, key: FieldKey) -> bool {
        use FieldKey::*;
        matches!(
            (self, key),
            (_, TaskId)
                | (RecordKind::InteractionRecord, Type | From | To)
                | (RecordKind::TaskAssignment, AssignedTo | ExpectedFileScope)
                | (RecordKind::RoutingDecision, RequestedCapability | Selected)
        )
    }

    /// The known key a header-table key names for this kind, matched case-insensitively.
    pub fn key_named(self, key: &str) -> Option<FieldKey> {
        self.keys()
            .iter()
            .copied()
            .find(|known| fields::keys_match(known.label(), key))
    }
}

/// The seed's section titles, in the canonical order.
pub const SEED_SECTIONS: [&str; 5] = [
    "Context",
    "Request",
    "Constraints",
    "Evidence Bundle",
    "Decision",
];

/// One header-table value of a known key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Which key.
    pub key: FieldKey,
    /// The stored value (normalised; see [`FieldKey::canonical_value`]).
    pub value: String,
    /// The 1-based line of its row (0 for a record built in code).
    pub line: usize,
    /// The 1-based column of the value cell (0 for a record built in code).
    pub column: usize,
}

/// A `### Title` subsection of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The title, one line, markup stripped.
    pub title: String,
    /// The 1-based line of the heading (0 for a record built in code).
    pub line: usize,
    /// The Markdown source of the body, trimmed of surrounding blank lines, `\n` endings.
    pub body: String,
    /// The 1-based line where the body starts (0 for a record built in code).
    pub body_line: usize,
}

/// One record: its kind, header fields, preamble and sections, with positions.
#[derive(Debug, Clone)]
pub struct Record {
    /// What kind of record it is.
    pub kind: RecordKind,
    /// The file it came from (`-` for standard input, empty for a record built in code).
    pub source: String,
    /// The 1-based line of its heading (0 for a record built in code).
    pub line: usize,
    fields: Vec<Field>,
    extra: Vec<(String, String)>,
    extra_lines: Vec<usize>,
    /// Each extra key, folded ([`fields::fold_key`]), to its position in `extra`: a
    /// header of thousands of rows must not cost a scan per row.
    extra_index: HashMap<String, usize>,
    preamble: Option<String>,
    sections: Vec<Section>,
    span: Range<usize>,
}

impl PartialEq for Record {
    /// Two records are equal when they say the same thing; positions are ignored.
    fn eq(&self, other: &Record) -> bool {
        self.first_difference(other).is_none()
    }
}

impl Record {
    /// An empty record of `kind`, to be filled with [`Record::set_field`] and
    /// [`Record::push_section`].
    pub fn new(kind: RecordKind) -> Record {
        Record {
            kind,
            source: String::new(),
            line: 0,
            fields: Vec::with_capacity(kind.keys().len()),
            extra: Vec::new(),
            extra_lines: Vec::new(),
            extra_index: HashMap::new(),
            preamble: None,
            sections: Vec::new(),
            span: 0..0,
        }
    }

    /// Sets a header value by key (a known key of this kind, matched case-insensitively,
    /// else an extra key). The value is normalised; an existing value is replaced.
    pub fn set_field(&mut self, key: &str, value: &str) -> &mut Record {
        self.set_field_at(self.kind.key_named(key), key, value, (0, 0));
        self
    }

    /// Sets a value whose key was already resolved to `known` (`None`: an extra key).
    pub(crate) fn set_field_at(
        &mut self,
        known: Option<FieldKey>,
        key: &str,
        value: &str,
        (line, column): (usize, usize),
    ) {
        match known {
            Some(known) => self.set_known(known, value, line, column),
            None => self.set_extra(key, value, line),
        }
    }

    fn set_known(&mut self, key: FieldKey, value: &str, line: usize, column: usize) {
        let field = Field {
            key,
            value: key.canonical_value(value),
            line,
            column,
        };
        match self.fields.binary_search_by_key(&key, |field| field.key) {
            Ok(at) => self.fields[at] = field,
            Err(at) => self.fields.insert(at, field),
        }
    }

    fn set_extra(&mut self, key: &str, value: &str, line: usize) {
        let key = fields::normalize_value(key);
        let value = fields::normalize_value(value);
        let folded = fields::fold_key(&key);
        match self.extra_index.get(&folded) {
            Some(&at) => {
                self.extra[at].1 = value;
                self.extra_lines[at] = line;
            }
            None => {
                self.extra_index.insert(folded, self.extra.len());
                self.extra.push((key, value));
                self.extra_lines.push(line);
            }
        }
    }

    /// Removes a header value (known or extra); returns whether there was one.
    pub fn remove_field(&mut self, key: &str) -> bool {
        if let Some(known) = self.kind.key_named(key) {
            let before = self.fields.len();
            self.fields.retain(|field| field.key != known);
            return before != self.fields.len();
        }
        match self.extra_index.remove(&fields::fold_key(key)) {
            Some(at) => {
                self.extra.remove(at);
                self.extra_lines.remove(at);
                for position in self.extra_index.values_mut() {
                    if *position > at {
                        *position -= 1;
                    }
                }
                true
            }
            None => false,
        }
    }

    /// Appends a section. The title is made one line and trimmed; the body is trimmed of
    /// surrounding blank lines and given `\n` line endings.
    pub fn push_section(&mut self, title: &str, body: &str) -> &mut Record {
        self.sections.push(Section {
            title: normalize_title(title),
            line: 0,
            body: normalize_body(body),
            body_line: 0,
        });
        self
    }

    /// Replaces the body of the first section titled `title` (case-insensitive), or
    /// appends the section when there is none.
    pub fn set_section(&mut self, title: &str, body: &str) -> &mut Record {
        let wanted = normalize_title(title);
        match self
            .sections
            .iter_mut()
            .find(|s| s.title.eq_ignore_ascii_case(&wanted))
        {
            Some(section) => section.body = normalize_body(body),
            None => {
                self.push_section(title, body);
            }
        }
        self
    }

    /// Sets the text between the header table and the first section (`None` removes it).
    pub fn set_preamble(&mut self, preamble: Option<&str>) -> &mut Record {
        self.preamble = preamble.map(normalize_body).filter(|text| !text.is_empty());
        self
    }

    pub(crate) fn push_parsed_section(&mut self, section: Section) {
        self.sections.push(section);
    }

    pub(crate) fn set_span(&mut self, span: Range<usize>) {
        self.span = span;
    }

    /// The byte range of the record in its document: from its heading line to the end of
    /// its last non-blank line (line terminator excluded).
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// The known header fields present, in canonical order.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The field of a known key, when its row is present.
    pub fn field(&self, key: FieldKey) -> Option<&Field> {
        self.fields.iter().find(|field| field.key == key)
    }

    /// The stored value of a known key, when its row is present.
    pub fn value(&self, key: FieldKey) -> Option<&str> {
        self.field(key).map(|field| field.value.as_str())
    }

    /// A value that is present and not an unfilled placeholder.
    fn filled(&self, key: FieldKey) -> Option<&str> {
        self.value(key)
            .filter(|value| !placeholder::is_placeholder_value(key, value))
    }

    /// `Task ID`.
    pub fn task_id(&self) -> Option<&str> {
        self.value(FieldKey::TaskId)
    }

    /// `Type`, when it is one of the seed's interaction types.
    pub fn interaction_type(&self) -> Option<InteractionType> {
        self.filled(FieldKey::Type).and_then(InteractionType::parse)
    }

    /// `From`.
    pub fn from(&self) -> Option<&str> {
        self.value(FieldKey::From)
    }

    /// `To`.
    pub fn to(&self) -> Option<&str> {
        self.value(FieldKey::To)
    }

    /// `Transport`, when it is one of the seed's transports.
    pub fn transport(&self) -> Option<Transport> {
        self.filled(FieldKey::Transport).and_then(Transport::parse)
    }

    /// `Risk Class`, when it is a risk class.
    pub fn risk_class(&self) -> Option<RiskClass> {
        self.filled(FieldKey::RiskClass)
            .and_then(|value| value.parse().ok())
    }

    /// `Timestamp`, as written.
    pub fn timestamp(&self) -> Option<&str> {
        self.value(FieldKey::Timestamp)
    }

    /// `Assigned to`.
    pub fn assigned_to(&self) -> Option<&str> {
        self.value(FieldKey::AssignedTo)
    }

    /// `Expected file scope` as a list, when it parses and is filled.
    pub fn expected_file_scope(&self) -> Option<Vec<String>> {
        self.filled(FieldKey::ExpectedFileScope)
            .and_then(fields::parse_list)
    }

    /// `Baseline SHA`.
    pub fn baseline_sha(&self) -> Option<&str> {
        self.value(FieldKey::BaselineSha)
    }

    /// `Requested capability`, when it parses.
    pub fn requested_capability(&self) -> Option<Capability> {
        self.filled(FieldKey::RequestedCapability)
            .and_then(Capability::parse)
    }

    /// `Matched agents`, when they parse.
    pub fn matched_agents(&self) -> Option<Vec<MatchedAgent>> {
        self.filled(FieldKey::MatchedAgents)
            .and_then(fields::parse_matched_agents)
    }

    /// `Rejected`, every row concatenated (empty when absent or unparseable).
    pub fn rejected(&self) -> Vec<RejectedAgent> {
        self.filled(FieldKey::Rejected)
            .and_then(fields::parse_rejected)
            .unwrap_or_default()
    }

    /// `Tie-break rule applied`, normalised: `Some(None)` when it says no rule was needed,
    /// `None` when it is absent or not recognised.
    pub fn tie_break(&self) -> Option<Option<TieBreak>> {
        self.filled(FieldKey::TieBreakRule)
            .and_then(TieBreak::from_rule)
    }

    /// The header rows whose keys this kind does not define, in document order.
    pub fn extra(&self) -> &[(String, String)] {
        &self.extra
    }

    /// The 1-based line of each extra row, parallel to [`Record::extra`].
    pub fn extra_lines(&self) -> &[usize] {
        &self.extra_lines
    }

    /// The prose between the header table and the first section.
    pub fn preamble(&self) -> Option<&str> {
        self.preamble.as_deref()
    }

    /// The sections, in document order.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The first section titled `title` (case-insensitive).
    pub fn section(&self, title: &str) -> Option<&Section> {
        let wanted = fields::fold_key(title);
        self.sections
            .iter()
            .find(|section| fields::fold_key(&crate::identity::visible(&section.title)) == wanted)
    }

    /// The Decision section's status, decider and text.
    pub fn decision(&self) -> Decision {
        derived::decision(self)
    }

    /// An escalation's `Failure Type: …` line in Request, when it names a failure type.
    pub fn failure_type(&self) -> Option<FailureType> {
        derived::failure_type_line(self).and_then(|(value, _)| FailureType::parse(&value))
    }

    /// The `Capability needed:` / `Reason:` / `Urgency:` lines of Request.
    pub fn capability_request(&self) -> Option<CapabilityRequest> {
        derived::capability_request(self)
    }

    /// The line of the sentence in which this record's author tells the team to ship
    /// without review, when it holds one (whether the author is the user is the
    /// reader's question; see [`derived`]).
    pub fn waiver_line(&self) -> Option<usize> {
        derived::waiver_line(self)
    }

    /// The scope expansion a Request starting with `Scope expansion:` asks for.
    pub fn scope_expansion(&self) -> Option<ScopeExpansion> {
        derived::scope_expansion(self, usize::MAX)
    }

    /// The scope expansion with at most `cap + 1` of its paths: reading stops past a
    /// cap, so a reader that refuses more than `cap` pays for no more.
    pub fn scope_expansion_within(&self, cap: usize) -> Option<ScopeExpansion> {
        derived::scope_expansion(self, cap)
    }

    /// The labelled items of the Evidence Bundle section.
    pub fn evidence(&self) -> Vec<EvidenceItem> {
        self.section("Evidence Bundle")
            .map(|section| crate::evidence::extract_items(&section.body, section.body_line))
            .unwrap_or_default()
    }

    /// The name of the template that renders this record (`consultation.md`, …, `record.md`).
    pub fn template_name(&self) -> &'static str {
        match self.kind {
            RecordKind::TaskAssignment => "task-assignment.md",
            RecordKind::RoutingDecision => "routing-decision.md",
            RecordKind::InteractionRecord if self.scope_expansion().is_some() => {
                "scope-expansion.md"
            }
            RecordKind::InteractionRecord => match self.interaction_type() {
                Some(InteractionType::Consultation) => "consultation.md",
                Some(InteractionType::Handoff) => "handoff.md",
                Some(InteractionType::Review) => "review.md",
                Some(InteractionType::Escalation) => "escalation.md",
                Some(InteractionType::CapabilityRequest) => "capability-request.md",
                None => "record.md",
            },
        }
    }

    /// The record in canonical form: sections in the seed's order (an unknown section
    /// stays after the known section it followed), bodies and preamble sanitized so that
    /// they cannot open a heading, a record or an unclosed block.
    pub fn canonical(&self) -> Record {
        let mut canonical = self.clone();
        canonical.sections = canonical_section_order(&self.sections);
        for section in &mut canonical.sections {
            section.body = sanitize::sanitize_body(&section.body, sanitize::SECTION_BODY);
        }
        canonical.preamble = self
            .preamble
            .as_deref()
            .map(|preamble| sanitize::sanitize_body(preamble, sanitize::PREAMBLE));
        canonical
    }

    /// Says how `other` differs from this record (positions ignored), or `None`.
    pub fn first_difference(&self, other: &Record) -> Option<String> {
        if self.kind != other.kind {
            return Some(format!(
                "kind: {} vs {}",
                self.kind.as_str(),
                other.kind.as_str()
            ));
        }
        for key in self.kind.keys() {
            if self.value(*key) != other.value(*key) {
                return Some(format!(
                    "field `{}`: {:?} vs {:?}",
                    key.label(),
                    self.value(*key),
                    other.value(*key)
                ));
            }
        }
        if self.extra != other.extra {
            return Some(format!(
                "extra fields: {:?} vs {:?}",
                self.extra, other.extra
            ));
        }
        if self.preamble != other.preamble {
            return Some(format!(
                "preamble: {:?} vs {:?}",
                self.preamble, other.preamble
            ));
        }
        section_difference(&self.sections, &other.sections)
    }
}

fn section_difference(mine: &[Section], theirs: &[Section]) -> Option<String> {
    for (index, (a, b)) in mine.iter().zip(theirs).enumerate() {
        if a.title != b.title {
            return Some(format!(
                "section {}: title {:?} vs {:?}",
                index + 1,
                a.title,
                b.title
            ));
        }
        if a.body != b.body {
            return Some(format!(
                "section `{}`: body {:?} vs {:?}",
                a.title, a.body, b.body
            ));
        }
    }
    (mine.len() != theirs.len()).then(|| format!("{} sections vs {}", mine.len(), theirs.len()))
}

/// The rank of a seed section title, or `None` for other titles.
fn seed_rank(title: &str) -> Option<usize> {
    SEED_SECTIONS
        .iter()
        .position(|seed| seed.eq_ignore_ascii_case(title.trim()))
}

/// Sorts sections into the seed's order; unknown sections follow the known one before them.
fn canonical_section_order(sections: &[Section]) -> Vec<Section> {
    let mut last_rank: Option<usize> = None;
    let mut keyed: Vec<((Option<usize>, bool), Section)> = sections
        .iter()
        .map(|section| match seed_rank(&section.title) {
            Some(rank) => {
                last_rank = Some(rank);
                ((Some(rank), false), section.clone())
            }
            None => ((last_rank, true), section.clone()),
        })
        .collect();
    keyed.sort_by_key(|(key, _)| *key);
    keyed.into_iter().map(|(_, section)| section).collect()
}

/// A section title: one line (new lines become spaces), trimmed.
pub(crate) fn normalize_title(title: &str) -> String {
    if !title.contains(['\r', '\n']) {
        return title.trim().to_string();
    }
    fields::normalize_newlines(title)
        .replace('\n', " ")
        .trim()
        .to_string()
}

/// A section body: `\n` endings, leading blank lines and trailing white space removed.
pub(crate) fn normalize_body(body: &str) -> String {
    if body.contains('\r') {
        return trim_blank_lines(&fields::normalize_newlines(body));
    }
    trim_blank_lines(body)
}

/// Leading blank lines and trailing white space removed.
fn trim_blank_lines(body: &str) -> String {
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    body[start..].trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_built_in_code_normalise_values() {
        let mut record = Record::new(RecordKind::InteractionRecord);
        record
            .set_field("task id", " ENG-042 ")
            .set_field("TYPE", "Consultation")
            .set_field("Mood", "fine\r\nthanks")
            .push_section("My\nProposal", "\n\n43 chars\r\n\n");
        assert_eq!(record.task_id(), Some("ENG-042"));
        assert_eq!(record.value(FieldKey::Type), Some("consultation"));
        assert_eq!(
            record.interaction_type(),
            Some(InteractionType::Consultation)
        );
        assert_eq!(
            record.extra(),
            &[("Mood".to_string(), "fine\nthanks".to_string())]
        );
        assert_eq!(record.sections()[0].title, "My Proposal");
        assert_eq!(record.sections()[0].body, "43 chars");
        assert!(record.remove_field("mood"));
        assert!(record.extra().is_empty());
    }

    #[test]
    fn canonical_order_keeps_unknown_sections_after_their_predecessor() {
        let mut record = Record::new(RecordKind::InteractionRecord);
        for title in ["Decision", "Notes", "Context", "My Proposal", "Request"] {
            record.push_section(title, "x");
        }
        let titles: Vec<String> = record
            .canonical()
            .sections()
            .iter()
            .map(|s| s.title.clone())
            .collect();
        assert_eq!(
            titles,
            ["Context", "My Proposal", "Request", "Decision", "Notes"]
        );
    }
}
