//! Finding the `agent_contract_handoff` block in an agent's output.
//!
//! The block opens where the text holds "```agent_contract_handoff" followed by
//! optional whitespace and a line break (the reference's regex
//! ```` ```agent_contract_handoff\s*\n ````; the first such place wins, even when a
//! later block would parse). The body ends at the first "```" that is *outside* a JSON
//! string: the scan below tracks string state and escapes, so a triple backtick quoted
//! inside `verbatim_outputs` never ends the block early. The body must parse as a JSON
//! object (the seed's "JSON rule"); anything else (YAML, comments, a trailing comma, an
//! array) counts as no block at all, with a [`NoBlock`] reason saying why.

use crate::markdown::line_at;
use serde_json::{Map, Value};
use std::fmt;

use super::python::is_python_space;

/// The info string that opens a contract block.
pub const OPENING: &str = "```agent_contract_handoff";

const FENCE: &str = "```";

/// Why an output holds no usable contract block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoBlock {
    /// No "```agent_contract_handoff" line anywhere in the output.
    NotFound,
    /// The block was opened but never closed by "```".
    Unterminated {
        /// 1-based line of the opening fence.
        line: usize,
    },
    /// The body is not JSON (the parser's message, with the line inside the output).
    NotJson {
        /// 1-based line of the opening fence.
        line: usize,
        /// What the JSON parser reported, its line counted from the start of the output.
        reason: String,
    },
    /// The body is JSON but not an object.
    NotObject {
        /// 1-based line of the opening fence.
        line: usize,
        /// What the body is instead: "an array", "a string", …
        found: &'static str,
    },
}

impl fmt::Display for NoBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoBlock::NotFound => write!(f, "no ```agent_contract_handoff block found"),
            NoBlock::Unterminated { line } => write!(
                f,
                "the ```agent_contract_handoff block opened on line {line} is never closed by ```"
            ),
            NoBlock::NotJson { line, reason } => write!(
                f,
                "the ```agent_contract_handoff block on line {line} is not JSON ({reason}); \
                 YAML, comments, trailing commas and unquoted keys are not accepted"
            ),
            NoBlock::NotObject { line, found } => write!(
                f,
                "the ```agent_contract_handoff block on line {line} holds {found}, not a JSON object"
            ),
        }
    }
}

/// Extracts and parses the first contract block of `output`.
pub fn extract(output: &str) -> Result<Map<String, Value>, NoBlock> {
    let (open_at, body_start) = find_opening(output).ok_or(NoBlock::NotFound)?;
    let line = line_at(output, open_at);
    let body_end = find_closing(output, body_start).ok_or(NoBlock::Unterminated { line })?;
    let body = &output[body_start..body_end];
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(NoBlock::NotObject {
            line,
            found: describe(&other),
        }),
        Err(error) => Err(NoBlock::NotJson {
            line,
            reason: json_error(&error, line_at(output, body_start)),
        }),
    }
}

/// Finds the first opening fence; returns where it starts and where its body starts.
fn find_opening(output: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(found) = output[from..].find(OPENING) {
        let start = from + found;
        let after = start + OPENING.len();
        if let Some(body_start) = body_start_after(output, after) {
            return Some((start, body_start));
        }
        from = after;
    }
    None
}

/// After the info string, the regex `\s*\n` must match: whitespace ending in a line
/// break. Like the greedy regex, the body starts after the *last* such line break.
fn body_start_after(output: &str, after: usize) -> Option<usize> {
    let rest = &output[after..];
    let run_len = rest
        .char_indices()
        .find(|&(_, ch)| !is_python_space(ch))
        .map_or(rest.len(), |(index, _)| index);
    rest[..run_len]
        .rfind('\n')
        .map(|newline| after + newline + 1)
}

/// Scans JSON text from `start` and returns where the first fence outside a string begins.
fn find_closing(output: &str, start: usize) -> Option<usize> {
    let bytes = output.as_bytes();
    let mut in_string = false;
    let mut index = start;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' if in_string => index += 1,
            b'"' => in_string = !in_string,
            b'`' if !in_string && bytes[index..].starts_with(FENCE.as_bytes()) => {
                return Some(index);
            }
            _ => {}
        }
        index += 1;
    }
    None
}

fn json_error(error: &serde_json::Error, body_line: usize) -> String {
    let message = error.to_string();
    let detail = message.split(" at line ").next().unwrap_or(&message);
    format!(
        "{detail} at line {}, column {}",
        body_line + error.line().saturating_sub(1),
        error.column()
    )
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_needs_a_line_break_after_optional_whitespace() {
        assert!(extract("```agent_contract_handoff {}\n```").is_err());
        assert!(extract("```agent_contract_handoff  \t\n{}\n```").is_ok());
        assert!(extract("```agent_contract_handoffs\n{}\n```").is_err());
        assert!(extract("text ```agent_contract_handoff\n{}```").is_ok());
    }

    #[test]
    fn a_fence_inside_a_json_string_does_not_close_the_block() {
        let output = "```agent_contract_handoff\n{\"a\": \"```x```\", \"b\": \"\\\"```\"}\n```\n";
        let map = extract(output).expect("block parses");
        assert_eq!(map["a"], "```x```");
        assert_eq!(map["b"], "\"```");
    }

    #[test]
    fn reasons_name_the_line() {
        let output = "intro\n```agent_contract_handoff\n{\"a\": 1,}\n```\n";
        let Err(NoBlock::NotJson { line, reason }) = extract(output) else {
            panic!("expected NotJson");
        };
        assert_eq!(line, 2);
        assert!(reason.contains("line 3"), "{reason}");
        assert_eq!(
            extract("```agent_contract_handoff\n[1]\n```"),
            Err(NoBlock::NotObject {
                line: 1,
                found: "an array"
            })
        );
        assert_eq!(
            extract("```agent_contract_handoff\n{\"a\": 1}\n"),
            Err(NoBlock::Unterminated { line: 1 })
        );
    }
}
