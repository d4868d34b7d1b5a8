//! Handoff messages: what agent runtimes exchange, checked, and turned into trail
//! events.
//!
//! Five kinds (TRAIL.md): a **handoff** (002's `handoff:` schema, or 004's Handoff
//! Message with `source`/`target`/`expectations`/`rollback`/`metadata`, both mapped onto
//! one canonical handoff in 002's field names with 004's extra sections kept under
//! their own names), an **acceptance** (002 §5.3), a **return** (002 §4.1), a
//! **completion** and a **failure** (004). A trail event (a line of a trail, without
//! its chain fields) is accepted too, so events from another tool can be appended.
//!
//! [`check`] reads a document (one JSON or YAML message, a JSON array of them, or JSON
//! lines), recognises each message's kind from its keys, validates it against the
//! embedded JSON Schema of its kind ([`schema`]) and then the rules no schema states
//! ([`rules`]), and reports each problem at its JSON pointer and line:column
//! ([`locate`]). A message without errors converts to an [`Intent`]: what the trail
//! appends for it.

mod append;
mod convert;
mod locate;
mod rules;
mod schema;

pub use crate::trail::Intent;
pub use append::append_messages;
pub use convert::canonical_handoff;

use crate::diagnostic::{shape, Diagnostic, Severity, TrailCode};
use serde::Serialize;
use serde_json::Value;

/// The kinds of message (and the trail event) `handoff` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// 002's handoff.
    Handoff,
    /// 004's Handoff Message.
    #[serde(rename = "handoff-004")]
    Handoff004,
    /// 002 §5.3's acceptance confirmation.
    Acceptance,
    /// 002 §4.1's return payload.
    Return,
    /// 004's Completion Message.
    Completion,
    /// 004's Failure Message.
    Failure,
    /// A trail event.
    Event,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 7] = [
        Kind::Handoff,
        Kind::Handoff004,
        Kind::Acceptance,
        Kind::Return,
        Kind::Completion,
        Kind::Failure,
        Kind::Event,
    ];

    /// The stable name, e.g. `handoff-004`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Handoff => "handoff",
            Kind::Handoff004 => "handoff-004",
            Kind::Acceptance => "acceptance",
            Kind::Return => "return",
            Kind::Completion => "completion",
            Kind::Failure => "failure",
            Kind::Event => "event",
        }
    }

    /// The key a message of this kind may be wrapped in (`handoff:`, `return:`, …).
    fn wrapper(self) -> Option<&'static str> {
        match self {
            Kind::Handoff => Some("handoff"),
            Kind::Return => Some("return"),
            Kind::Acceptance => Some("acceptance"),
            _ => None,
        }
    }
}

/// One message of a document, checked.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    /// 0-based position in the document.
    pub index: usize,
    /// The kind recognised, if any.
    pub kind: Option<Kind>,
    /// The JSON pointer of the message in the document.
    pub pointer: String,
    /// The line the message starts on.
    pub line: usize,
    /// Every problem found, each at its JSON pointer, line and column.
    #[serde(serialize_with = "shape::pointed")]
    pub problems: Vec<Diagnostic>,
    /// The message itself (unwrapped from `handoff:` / `return:` / `acceptance:`).
    #[serde(skip)]
    pub value: Value,
}

impl Checked {
    /// Whether the message has errors (warnings do not count).
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(|p| p.severity == Severity::Error)
    }

    /// What the trail appends for the message, when it has no errors.
    pub fn into_intent(mut self) -> Option<Intent> {
        self.take_intent()
    }

    /// [`Checked::into_intent`], taking the message's value and leaving the rest (its
    /// place and problems) for the report.
    pub fn take_intent(&mut self) -> Option<Intent> {
        match (self.has_errors(), self.kind) {
            (false, Some(kind)) => convert::intent(kind, std::mem::take(&mut self.value)),
            _ => None,
        }
    }
}

/// A checked document.
#[derive(Debug, Clone, Serialize)]
pub struct Document {
    /// The file's name (`-` for standard input).
    pub file: String,
    /// Problems with the document itself (not JSON or YAML).
    #[serde(serialize_with = "shape::pointed")]
    pub problems: Vec<Diagnostic>,
    /// Its messages.
    pub messages: Vec<Checked>,
}

impl Document {
    /// Whether the document or any message has errors.
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(|p| p.severity == Severity::Error)
            || self.messages.iter().any(Checked::has_errors)
    }

    /// Every problem, the document's first.
    pub fn all_problems(&self) -> impl Iterator<Item = &Diagnostic> {
        self.problems
            .iter()
            .chain(self.messages.iter().flat_map(|m| m.problems.iter()))
    }
}

/// Where a message's text is, to turn pointers into lines and columns.
#[derive(Debug, Clone, Copy)]
struct Source<'a> {
    text: &'a str,
    yaml: bool,
    /// Lines before `text` in the document (JSON lines).
    line_offset: usize,
}

impl Source<'_> {
    fn locate(&self, tokens: &[String]) -> (usize, usize) {
        let found = match self.yaml {
            true => locate::in_yaml(self.text, tokens),
            false => locate::in_json(self.text, tokens),
        };
        let (line, column) = found.unwrap_or((1, 1));
        (line + self.line_offset, column)
    }
}

/// A message found in a document, before it is checked.
struct Found<'a> {
    value: Value,
    source: Source<'a>,
    /// Pointer tokens from the source's root to the message.
    prefix: Vec<String>,
}

/// Checks every message of the document `text`, read from `file`.
pub fn check(file: &str, text: &str) -> Document {
    check_each(file, text, |_| {})
}

/// [`check`], handing each message to `visit` as soon as it is checked, so a caller
/// streams a large document one message at a time: `visit` may take the message's
/// value ([`Checked::take_intent`]), and the document keeps the rest. When a line of a
/// JSON-lines document is not JSON, the document is that problem alone, as [`check`]
/// reports it (the messages before it were visited all the same).
pub fn check_each(file: &str, text: &str, mut visit: impl FnMut(&mut Checked)) -> Document {
    let mut report = Document {
        file: file.to_string(),
        problems: Vec::new(),
        messages: Vec::new(),
    };
    let mut messages = Vec::new();
    let split = split(text, &mut |found| {
        let mut checked = check_one(messages.len(), found);
        visit(&mut checked);
        messages.push(checked);
    });
    match split {
        Ok(()) if messages.is_empty() => report.problems.push(document_problem(
            TrailCode::Empty,
            (1, 1),
            "holds no message; give one JSON or YAML object, a JSON array of them, or one per line"
                .into(),
        )),
        Ok(()) => report.messages = messages,
        Err(problem) => report.problems.push(*problem),
    }
    report
}

fn document_problem(code: TrailCode, at: (usize, usize), message: String) -> Diagnostic {
    // serde_json says column 0 for an error at a line's start (a raw newline in a
    // string); positions here are 1-based.
    problem(code, "", (at.0.max(1), at.1.max(1)), message)
}

/// A problem at `pointer`, on `line` and `column` of the document.
fn problem(
    code: TrailCode,
    pointer: impl Into<String>,
    (line, column): (usize, usize),
    message: String,
) -> Diagnostic {
    let mut problem = Diagnostic::new(code, message).at_pointer(pointer);
    problem.line = Some(line);
    problem.column = Some(column);
    problem
}

/// Splits a document into its messages (one value, a JSON array, or JSON lines) and
/// hands each to `each`, a line of JSON lines as soon as it is read.
fn split<'a>(text: &'a str, each: &mut dyn FnMut(Found<'a>)) -> Result<(), Box<Diagnostic>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim_start();
    let whole = Source {
        text,
        yaml: false,
        line_offset: 0,
    };
    if trimmed.is_empty() {
        return Ok(());
    }
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => {
                spread(value, whole).into_iter().for_each(each);
                return Ok(());
            }
            Err(error)
                if trimmed.starts_with('{')
                    && error.to_string().starts_with("trailing characters") =>
            {
                return json_lines(text, each);
            }
            Err(error) => {
                return Err(Box::new(document_problem(
                    TrailCode::NotJson,
                    (error.line(), error.column()),
                    format!("is not valid JSON: {}", strip_position(&error.to_string())),
                )))
            }
        }
    }
    match yaml_serde::from_str::<Value>(text) {
        Ok(value) => {
            let source = Source {
                yaml: true,
                ..whole
            };
            spread(value, source).into_iter().for_each(each);
            Ok(())
        }
        Err(error) => {
            let at = error.location().map_or((1, 1), |l| (l.line(), l.column()));
            // libyaml may place an error at end of input on a line past the last one.
            // (Lines as YAML counts them: a lone carriage return breaks a line too.)
            let normalised = text.replace("\r\n", "\n");
            let lines = normalised.split(['\n', '\r']).count();
            let last = normalised
                .rsplit(['\n', '\r'])
                .next()
                .map_or(0, |l| l.chars().count());
            let at = match at.0 > lines {
                true => (lines, last + 1),
                false => at,
            };
            Err(Box::new(document_problem(
                TrailCode::NotJson,
                at,
                format!(
                    "is neither JSON nor YAML: {}",
                    strip_position(&error.to_string())
                ),
            )))
        }
    }
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

fn spread(value: Value, source: Source<'_>) -> Vec<Found<'_>> {
    match value {
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(index, value)| Found {
                value,
                source,
                prefix: vec![index.to_string()],
            })
            .collect(),
        value => vec![Found {
            value,
            source,
            prefix: Vec::new(),
        }],
    }
}

fn json_lines<'a>(text: &'a str, each: &mut dyn FnMut(Found<'a>)) -> Result<(), Box<Diagnostic>> {
    for (index, line) in text.split('\n').enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value = serde_json::from_str::<Value>(line).map_err(|error| {
            Box::new(document_problem(
                TrailCode::NotJson,
                (index + 1, error.column()),
                format!(
                    "line {} is not valid JSON: {}",
                    index + 1,
                    strip_position(&error.to_string())
                ),
            ))
        })?;
        each(Found {
            value,
            source: Source {
                text: line,
                yaml: false,
                line_offset: index,
            },
            prefix: Vec::new(),
        });
    }
    Ok(())
}

/// Recognises a message's kind from its keys; returns the kind and the wrapper key.
pub fn recognise(value: &Value) -> Option<(Kind, Option<&'static str>)> {
    let object = value.as_object()?;
    let has = |key: &str| object.contains_key(key);
    let wrapped = |key: &str| object.get(key).is_some_and(Value::is_object);
    for kind in [Kind::Handoff, Kind::Return, Kind::Acceptance] {
        if let Some(wrapper) = kind.wrapper().filter(|w| wrapped(w)) {
            return Some((kind, Some(wrapper)));
        }
    }
    let status = object.get("status").and_then(Value::as_str);
    let kind = if has("event_type") {
        Kind::Event
    } else if has("failure_id") || has("failure") || has("rollback_request") {
        Kind::Failure
    } else if has("completion_id") || has("deliverables") || has("verification") {
        Kind::Completion
    } else if has("source") && has("target") {
        Kind::Handoff004
    } else if matches!(status, Some("accepted" | "rejected" | "deferred")) {
        Kind::Acceptance
    } else if matches!(status, Some("success" | "partial" | "failed" | "timeout")) {
        Kind::Return
    } else if has("from_agent") && has("to_agent") && has("type") {
        Kind::Handoff
    } else {
        return None;
    };
    Some((kind, None))
}

fn check_one(index: usize, found: Found<'_>) -> Checked {
    let Found {
        value,
        source,
        prefix,
    } = found;
    let (line, _) = source.locate(&prefix);
    let base_pointer = pointer_of(&prefix);
    let mut checked = Checked {
        index,
        kind: None,
        pointer: base_pointer.clone(),
        line,
        problems: Vec::new(),
        value: Value::Null,
    };
    let Some((kind, wrapper)) = recognise(&value) else {
        checked.problems.push(problem(
            TrailCode::UnknownKind,
            base_pointer,
            (line, source.locate(&prefix).1),
            "is not a handoff message: expected a handoff (`handoff:` or `from_agent`/`to_agent`/`type`, or 004's `source`/`target`), an acceptance (`status: accepted|rejected|deferred`), a return (`return:`), a completion (`completion_id`) or a failure (`failure`)".into(),
        ));
        return checked;
    };
    let mut inner_prefix = prefix.clone();
    let inner = match (wrapper, value) {
        (Some(key), Value::Object(mut object)) => {
            inner_prefix.push(key.to_string());
            object.remove(key).unwrap_or(Value::Null)
        }
        (_, value) => value,
    };
    checked.kind = Some(kind);
    let place = |pointer: &str| {
        let mut tokens = inner_prefix.clone();
        tokens.extend(locate::tokens(pointer));
        let (line, column) = source.locate(&tokens);
        (pointer_of(&tokens), line, column)
    };
    for (pointer, message) in schema::validate(kind, &inner) {
        let (pointer, line, column) = place(&pointer);
        checked
            .problems
            .push(problem(TrailCode::Schema, pointer, (line, column), message));
    }
    for finding in rules::check(kind, &inner) {
        let (pointer, line, column) = place(&finding.pointer);
        checked.problems.push(problem(
            finding.code,
            pointer,
            (line, column),
            finding.message,
        ));
    }
    checked.problems.sort_by_key(|p| (p.line, p.column));
    checked.value = inner;
    checked
}

/// The value at a JSON pointer (RFC 6901), as [`Value::pointer`] finds it, without
/// allocating for each token (unescaping only a token that holds `~`): the rules and
/// the conversion look up a dozen pointers per message.
pub(crate) fn at<'v>(value: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(value);
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').try_fold(value, |target, token| {
        let unescaped;
        let token = if token.contains('~') {
            unescaped = token.replace("~1", "/").replace("~0", "~");
            unescaped.as_str()
        } else {
            token
        };
        match target {
            Value::Object(map) => map.get(token),
            Value::Array(items) => index(token).and_then(|i| items.get(i)),
            _ => None,
        }
    })
}

/// An array index in a pointer: digits, no leading zero (RFC 6901).
fn index(token: &str) -> Option<usize> {
    let digits = !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit());
    let leading_zero = token.len() > 1 && token.starts_with('0');
    (digits && !leading_zero)
        .then(|| token.parse().ok())
        .flatten()
}

fn pointer_of(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_finds_what_value_pointer_finds() {
        let value = serde_json::json!({
            "a": {"b/c": [10, {"d~e": "x"}], "": 1, "0": "zero"},
            "list": [[1, 2], 3],
        });
        for pointer in [
            "",
            "/",
            "/a",
            "/a/b~1c",
            "/a/b~1c/0",
            "/a/b~1c/1/d~0e",
            "/a/b~1c/01",
            "/a/b~1c/+1",
            "/a/b~1c/9",
            "/a/",
            "/a/0",
            "/list/0/1",
            "/list/-",
            "a",
            "/missing/x",
            "/a/b~1c/0/deeper",
        ] {
            assert_eq!(at(&value, pointer), value.pointer(pointer), "{pointer}");
        }
    }
}
