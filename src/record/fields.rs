//! Header-table fields: the enumerations of the seed, the structured values (file
//! scopes, capabilities, matched and rejected agents) and placeholders. The cell encoding
//! that lets any value survive a trip through a Markdown table is
//! [`crate::markdown::cell`].
//!
//! Every structured value has one canonical text (`[a, b]`, `domain: [q1, q2]`,
//! `agent (domain: [q])`, `agent — reason; agent2 — reason2`). Parsing a canonical text
//! gives back the same value, so canonicalisation is idempotent: that is what lets
//! `parse(render(r)) == r` hold for every record.

use crate::policy::RiskClass;
use crate::spelled::spelled_enum;
use serde::Serialize;
use std::fmt;

spelled_enum! {
    /// The interaction types of an Interaction Record.
    InteractionType {
        /// A peer asks for input without transferring ownership.
        Consultation => "consultation",
        /// Work passes forward to another agent.
        Handoff => "handoff",
        /// Formal review of completed work.
        Review => "review",
        /// The agent is stuck and needs a reroute.
        Escalation => "escalation",
        /// The agent needs a peer with a specific capability.
        CapabilityRequest => "capability-request",
    }
}

spelled_enum! {
    /// How a record travels between agents.
    Transport {
        /// Peers message each other directly.
        AgentTeams => "agent-teams",
        /// The orchestrator relays the record.
        OrchestratorMediated => "orchestrator-mediated",
    }
}

spelled_enum! {
    /// An escalation's failure classification.
    FailureType {
        /// The agent needed different expertise.
        WrongCapability => "wrong-capability",
        /// Scope expanded beyond the assignment.
        TaskTooLarge => "task-too-large",
        /// A spec contradicts the code or another spec.
        ConflictingRequirements => "conflicting-requirements",
        /// Infrastructure or tooling is broken, not the task logic.
        EnvironmentIssue => "environment-issue",
        /// The agent needs information only another agent has.
        InsufficientContext => "insufficient-context",
        /// The agent cannot classify the failure.
        Unknown => "unknown",
    }
}

impl FailureType {
    /// The orchestrator's action for this failure type, in the seed's words.
    pub fn orchestrator_action(self) -> &'static str {
        match self {
            FailureType::WrongCapability => "Reroute to matching capability",
            FailureType::TaskTooLarge => "Decompose into subtasks",
            FailureType::ConflictingRequirements => "Escalate to product/PM for clarity",
            FailureType::EnvironmentIssue => "Route to devops/sre",
            FailureType::InsufficientContext => "Route to knowledge holder",
            FailureType::Unknown => "Orchestrator investigates",
        }
    }
}

spelled_enum! {
    /// A tie-break rule of the protocol, in priority order: the one type for a Routing
    /// Decision's `Tie-break rule applied` and for the rule routing applies. "No tie to
    /// break" is the absence of a rule (`Option<TieBreak>`, spelled `none`).
    TieBreak {
        /// The agent whose qualifiers cover the most requested qualifiers.
        QualifierMatch => "qualifier-match",
        /// Among those tied, the agent in the requester's department.
        DepartmentAffinity => "department-affinity",
        /// Still tied: the orchestrator picked and documented why.
        DocumentedChoice => "documented-choice",
    }
}

impl TieBreak {
    /// Normalises a free-text `Tie-break rule applied` value: `Some(Some(rule))`,
    /// `Some(None)` when it says no tie had to be broken (`none`, `n/a`, `-`), `None`
    /// when it is not recognised.
    pub fn from_rule(rule: &str) -> Option<Option<TieBreak>> {
        let lower = rule.trim().to_lowercase();
        if lower.contains("qualifier") {
            Some(Some(TieBreak::QualifierMatch))
        } else if lower.contains("department") || lower.contains("affinity") {
            Some(Some(TieBreak::DepartmentAffinity))
        } else if lower.contains("document") || lower.contains("choice") || lower.contains("tied") {
            Some(Some(TieBreak::DocumentedChoice))
        } else if ["none", "n/a", "-", "—", "no tie"]
            .iter()
            .any(|word| lower == *word)
        {
            Some(None)
        } else {
            None
        }
    }

    /// The spelling of an optional rule: `none` when no rule was needed.
    pub fn label(rule: Option<TieBreak>) -> &'static str {
        rule.map_or("none", TieBreak::as_str)
    }
}

spelled_enum! {
    /// How urgent a capability request is.
    Urgency {
        /// Work cannot continue without the capability.
        Blocking => "blocking",
        /// Work can continue meanwhile.
        NonBlocking => "non-blocking",
    }
}

/// A header-table key the protocol defines. Keys outside a record kind's set are extra.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldKey {
    /// `Task ID`
    TaskId,
    /// `Type`
    Type,
    /// `From`
    From,
    /// `To`
    To,
    /// `Transport`
    Transport,
    /// `Assigned to`
    AssignedTo,
    /// `Expected file scope`
    ExpectedFileScope,
    /// `Baseline SHA`
    BaselineSha,
    /// `Requested capability`
    RequestedCapability,
    /// `Matched agents`
    MatchedAgents,
    /// `Selected`
    Selected,
    /// `Reason`
    Reason,
    /// `Rejected`
    Rejected,
    /// `Tie-break rule applied`
    TieBreakRule,
    /// `Risk Class`
    RiskClass,
    /// `Capability routed`
    CapabilityRouted,
    /// `Timestamp`
    Timestamp,
}

impl FieldKey {
    /// The key as the seed writes it in a header table.
    pub fn label(self) -> &'static str {
        match self {
            FieldKey::TaskId => "Task ID",
            FieldKey::Type => "Type",
            FieldKey::From => "From",
            FieldKey::To => "To",
            FieldKey::Transport => "Transport",
            FieldKey::RiskClass => "Risk Class",
            FieldKey::Timestamp => "Timestamp",
            FieldKey::AssignedTo => "Assigned to",
            FieldKey::ExpectedFileScope => "Expected file scope",
            FieldKey::BaselineSha => "Baseline SHA",
            FieldKey::CapabilityRouted => "Capability routed",
            FieldKey::RequestedCapability => "Requested capability",
            FieldKey::MatchedAgents => "Matched agents",
            FieldKey::Selected => "Selected",
            FieldKey::Reason => "Reason",
            FieldKey::Rejected => "Rejected",
            FieldKey::TieBreakRule => "Tie-break rule applied",
        }
    }

    /// The key's name in `handoff parse` JSON.
    pub fn json_name(self) -> &'static str {
        match self {
            FieldKey::TaskId => "task_id",
            FieldKey::Type => "type",
            FieldKey::From => "from",
            FieldKey::To => "to",
            FieldKey::Transport => "transport",
            FieldKey::RiskClass => "risk_class",
            FieldKey::Timestamp => "timestamp",
            FieldKey::AssignedTo => "assigned_to",
            FieldKey::ExpectedFileScope => "expected_file_scope",
            FieldKey::BaselineSha => "baseline_sha",
            FieldKey::CapabilityRouted => "capability_routed",
            FieldKey::RequestedCapability => "requested_capability",
            FieldKey::MatchedAgents => "matched_agents",
            FieldKey::Selected => "selected",
            FieldKey::Reason => "reason",
            FieldKey::Rejected => "rejected",
            FieldKey::TieBreakRule => "tie_break_rule",
        }
    }

    /// Whether the value is a list (its placeholders are judged differently).
    pub fn is_list(self) -> bool {
        matches!(
            self,
            FieldKey::ExpectedFileScope | FieldKey::MatchedAgents | FieldKey::Rejected
        )
    }

    /// Brings a value to its stored form: the canonical text when it parses, else as written.
    pub fn canonical_value(self, value: &str) -> String {
        let value = normalize_value(value);
        if super::placeholder::is_placeholder_value(self, &value) {
            return value;
        }
        let canonical = match self {
            FieldKey::Type => InteractionType::parse(&value).map(|v| v.as_str().to_string()),
            FieldKey::Transport => Transport::parse(&value).map(|v| v.as_str().to_string()),
            FieldKey::RiskClass => value
                .parse::<RiskClass>()
                .ok()
                .map(|v| v.as_str().to_string()),
            FieldKey::ExpectedFileScope => parse_list(&value).map(|items| format_list(&items)),
            FieldKey::RequestedCapability | FieldKey::CapabilityRouted => {
                Capability::parse(&value).map(|capability| capability.to_string())
            }
            FieldKey::MatchedAgents => parse_matched_agents(&value).map(|a| format_matched(&a)),
            FieldKey::Rejected => parse_rejected(&value).map(|agents| format_rejected(&agents)),
            _ => None,
        };
        canonical.unwrap_or(value)
    }
}

/// Trims a value and turns every line ending into `\n`.
pub fn normalize_value(value: &str) -> String {
    if value.contains('\r') {
        normalize_newlines(value).trim().to_string()
    } else {
        value.trim().to_string()
    }
}

/// Turns `\r\n` and lone `\r` into `\n`.
pub fn normalize_newlines(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_string();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Whether two keys are equal ignoring ASCII case and runs of white space, without
/// allocating (the parser calls this for every row against every known key).
pub fn keys_match(a: &str, b: &str) -> bool {
    if a.eq_ignore_ascii_case(b) {
        return true;
    }
    // Two first words starting with different letters or digits cannot match; most keys
    // compared against the wrong label stop here.
    if let (Some(x), Some(y)) = (a.as_bytes().first(), b.as_bytes().first()) {
        if x.is_ascii_alphanumeric() && y.is_ascii_alphanumeric() && !x.eq_ignore_ascii_case(y) {
            return false;
        }
    }
    if let Some(answer) = ascii_keys_match(a.as_bytes(), b.as_bytes()) {
        return answer;
    }
    let (mut left, mut right) = (a.split_whitespace(), b.split_whitespace());
    loop {
        match (left.next(), right.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x.eq_ignore_ascii_case(y) => {}
            _ => return false,
        }
    }
}

/// [`keys_match`] byte by byte while the text is ASCII (a mismatch usually shows at the
/// first byte); `None` when it meets a non-ASCII byte first, whose white space only the
/// general path knows.
fn ascii_keys_match(a: &[u8], b: &[u8]) -> Option<bool> {
    // The ASCII characters `char::is_whitespace` accepts, as `split_whitespace` splits.
    let is_space = |byte: u8| matches!(byte, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r');
    let skip = |text: &[u8], mut at: usize| {
        while at < text.len() && is_space(text[at]) {
            at += 1;
        }
        at
    };
    let non_ascii = |text: &[u8], at: usize| text.get(at).is_some_and(|byte| !byte.is_ascii());
    let (mut i, mut j) = (skip(a, 0), skip(b, 0));
    loop {
        if i == a.len() || j == b.len() {
            let (i, j) = (skip(a, i), skip(b, j));
            if non_ascii(a, i) || non_ascii(b, j) {
                return None;
            }
            return Some(i == a.len() && j == b.len());
        }
        if !a[i].is_ascii() || !b[j].is_ascii() {
            return None;
        }
        match (is_space(a[i]), is_space(b[j])) {
            (true, true) => {
                i = skip(a, i);
                j = skip(b, j);
            }
            (false, false) if a[i].eq_ignore_ascii_case(&b[j]) => {
                i += 1;
                j += 1;
            }
            _ => return Some(false),
        }
    }
}

/// Collapses white space and lower-cases a key, for case-insensitive matching.
pub fn fold_key(key: &str) -> String {
    key.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A capability: a domain and its qualifiers, `auth: [oauth2, pkce]`. One type for a
/// record's `Requested capability` as written ([`Capability::parse`]) and for routing,
/// which compares normalised capabilities ([`Capability::new`], and
/// `routing::parse_capability` for text).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Capability {
    /// The capability domain, e.g. `auth`.
    pub domain: String,
    /// The qualifiers, e.g. `oauth2`, `pkce`; may be empty.
    pub qualifiers: Vec<String>,
}

impl Capability {
    /// A capability from terms that are already normalised; sorts and de-duplicates the
    /// qualifiers (and drops empty ones), so two capabilities that mean the same thing
    /// compare equal and print the same.
    pub fn new(domain: impl Into<String>, qualifiers: impl IntoIterator<Item = String>) -> Self {
        let mut qualifiers: Vec<String> =
            qualifiers.into_iter().filter(|q| !q.is_empty()).collect();
        qualifiers.sort();
        qualifiers.dedup();
        Capability {
            domain: domain.into(),
            qualifiers,
        }
    }

    /// Parses `domain: [q1, q2]`, `domain + [q1, q2]`, `domain: q1, q2` or `domain`.
    pub fn parse(text: &str) -> Option<Capability> {
        let text = text.trim();
        let (domain, rest) = match text.find([':', '+']) {
            Some(at) => (&text[..at], Some(&text[at + 1..])),
            None => (text, None),
        };
        let domain = strip_ticks(domain);
        if !is_name(&domain) {
            return None;
        }
        let qualifiers = match rest {
            Some(rest) => parse_qualifiers(rest)?,
            None => Vec::new(),
        };
        Some(Capability { domain, qualifiers })
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.qualifiers.is_empty() {
            f.write_str(&self.domain)
        } else {
            write!(f, "{}: {}", self.domain, format_list(&self.qualifiers))
        }
    }
}

/// One agent a Routing Decision matched: `security-engineer (auth: [oauth2, saml])`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MatchedAgent {
    /// The agent's name.
    pub agent: String,
    /// The domain it matched on, when given.
    pub domain: Option<String>,
    /// Its qualifiers in that domain.
    pub qualifiers: Vec<String>,
}

/// One agent a Routing Decision rejected: `backend-engineer — qualifier mismatch`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RejectedAgent {
    /// The agent's name.
    pub agent: String,
    /// Why it was rejected, when given.
    pub reason: Option<String>,
}

/// Parses a list: `[a, b, c]` or `a, b, c`; backticks are stripped. `None` when an item
/// is empty of meaning (`...`, `e.g.`) or holds list syntax that would not round trip.
pub fn parse_list(text: &str) -> Option<Vec<String>> {
    let text = text.trim();
    let inner = match text
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    {
        Some(inner) => inner,
        None => text,
    };
    let mut items = Vec::new();
    for raw in inner.split(',') {
        let item = strip_ticks(raw);
        if item.is_empty() {
            continue;
        }
        if holds_example_marker(&item) {
            return None;
        }
        items.push(item);
    }
    if items.is_empty() && !inner.trim().is_empty() {
        return None;
    }
    Some(items)
}

/// Whether a list item holds `...`, `…` or `e.g.` (any case; no non-ASCII character
/// lower-cases to one of `e.g.`'s), in one pass over its bytes.
fn holds_example_marker(item: &str) -> bool {
    let bytes = item.as_bytes();
    bytes.iter().enumerate().any(|(at, byte)| {
        let rest = &bytes[at..];
        match byte {
            b'.' => rest.starts_with(b"..."),
            b'e' | b'E' => rest
                .get(..4)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"e.g.")),
            0xE2 => rest.starts_with("…".as_bytes()),
            _ => false,
        }
    })
}

/// The canonical text of a list: `[a, b, c]`.
pub fn format_list(items: &[String]) -> String {
    let mut out = String::with_capacity(2 + items.iter().map(|item| item.len() + 2).sum::<usize>());
    write_list(&mut out, items);
    out
}

fn write_list(out: &mut String, items: &[String]) {
    out.push('[');
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        out.push_str(item);
    }
    out.push(']');
}

fn parse_qualifiers(text: &str) -> Option<Vec<String>> {
    let items = parse_list(text)?;
    items
        .iter()
        .all(|item| !item.contains(['[', ']', '(', ')', ';', '\n']))
        .then_some(items)
}

/// Strips surrounding white space and backticks until nothing changes.
fn strip_ticks(text: &str) -> String {
    let mut current = text.trim();
    loop {
        let next = current.trim_matches('`').trim();
        // `next` is a sub-slice of `current`: the same length means nothing changed.
        if next.len() == current.len() {
            return current.to_string();
        }
        current = next;
    }
}

/// A name (agent or domain): non-empty, one line, no list or capability syntax.
fn is_name(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
        && !text.contains(['(', ')', '[', ']', ',', ';', ':', '+', '\n', '`'])
}

/// Parses `agent (domain: [q1, q2]), agent2 (domain2)` into matched agents.
pub fn parse_matched_agents(text: &str) -> Option<Vec<MatchedAgent>> {
    let mut agents = Vec::new();
    for item in split_top_level(text, ',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        agents.push(parse_matched_agent(item)?);
    }
    (!agents.is_empty()).then_some(agents)
}

fn parse_matched_agent(item: &str) -> Option<MatchedAgent> {
    let Some(open) = item.find('(') else {
        let agent = strip_ticks(item);
        return is_name(&agent).then(|| MatchedAgent {
            agent,
            domain: None,
            qualifiers: Vec::new(),
        });
    };
    let inner = item[open + 1..].trim_end().strip_suffix(')')?;
    let agent = strip_ticks(&item[..open]);
    let capability = Capability::parse(inner)?;
    is_name(&agent).then_some(MatchedAgent {
        agent,
        domain: Some(capability.domain),
        qualifiers: capability.qualifiers,
    })
}

/// The canonical text of matched agents.
pub fn format_matched(agents: &[MatchedAgent]) -> String {
    let mut out = String::new();
    for (index, matched) in agents.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        out.push_str(&matched.agent);
        if let Some(domain) = &matched.domain {
            // The text of `Capability { domain, qualifiers }`, written in place.
            out.push_str(" (");
            out.push_str(domain);
            if !matched.qualifiers.is_empty() {
                out.push_str(": ");
                write_list(&mut out, &matched.qualifiers);
            }
            out.push(')');
        }
    }
    out
}

/// Splits on `separator` outside brackets and parentheses.
fn split_top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (at, ch) in text.char_indices() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ if ch == separator && depth == 0 => {
                parts.push(&text[start..at]);
                start = at + ch.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The separators between a rejected agent and its reason, earliest first wins.
const REASON_SEPARATORS: [&str; 3] = ["—", "–", " - "];

/// Parses `agent — reason; agent2 — reason2` (items split on `;` or new lines).
pub fn parse_rejected(text: &str) -> Option<Vec<RejectedAgent>> {
    let mut agents = Vec::new();
    for item in text.split([';', '\n']) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let split = REASON_SEPARATORS
            .iter()
            .filter_map(|separator| item.find(separator).map(|at| (at, separator.len())))
            .min();
        let (agent, reason) = match split {
            Some((at, len)) => (&item[..at], Some(item[at + len..].trim())),
            None => (item, None),
        };
        let agent = strip_ticks(agent);
        if !is_name(&agent) {
            return None;
        }
        let reason = reason
            .filter(|reason| !reason.is_empty())
            .map(str::to_string);
        agents.push(RejectedAgent { agent, reason });
    }
    (!agents.is_empty()).then_some(agents)
}

/// The canonical text of rejected agents.
pub fn format_rejected(agents: &[RejectedAgent]) -> String {
    let mut out = String::new();
    for (index, rejected) in agents.iter().enumerate() {
        if index > 0 {
            out.push_str("; ");
        }
        out.push_str(&rejected.agent);
        if let Some(reason) = &rejected.reason {
            out.push_str(" — ");
            out.push_str(reason);
        }
    }
    out
}

/// Whether a timestamp is RFC 3339 / ISO 8601 with a zone.
pub fn is_valid_timestamp(text: &str) -> bool {
    let bytes = text.trim().as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let slice = bytes.get(range)?;
        slice.iter().all(u8::is_ascii_digit).then_some(())?;
        std::str::from_utf8(slice).ok()?.parse().ok()
    };
    let date_ok = (|| {
        let (month, day) = (digits(5..7)?, digits(8..10)?);
        digits(0..4)?;
        (bytes.get(4) == Some(&b'-') && bytes.get(7) == Some(&b'-')).then_some(())?;
        ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some(())?;
        matches!(bytes.get(10), Some(b'T' | b't' | b' ')).then_some(())?;
        let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
        (bytes.get(13) == Some(&b':') && bytes.get(16) == Some(&b':')).then_some(())?;
        (hour < 24 && minute < 60 && second <= 60).then_some(())
    })();
    date_ok.is_some() && valid_zone(&bytes[19..])
}

fn valid_zone(rest: &[u8]) -> bool {
    let rest = match rest.strip_prefix(b".") {
        Some(fraction) => {
            let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 {
                return false;
            }
            &fraction[digits..]
        }
        None => rest,
    };
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => [h1, h2, m1, m2].iter().all(|b| b.is_ascii_digit()),
        _ => false,
    }
}

/// The current time as UTC RFC 3339 (`2026-01-11T20:30:00Z`), computed from the system clock.
pub fn utc_now_rfc3339() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or(0);
    format_unix_utc(seconds)
}

/// Formats seconds since the Unix epoch as UTC RFC 3339.
pub fn format_unix_utc(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let in_day = seconds % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        in_day / 3600,
        in_day % 3600 / 60,
        in_day % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests;
