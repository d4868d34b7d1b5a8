//! `--format sarif`: a SARIF 2.1.0 log of a report's [`Annotation`]s, for code scanning
//! (GitHub's `upload-sarif`, GitLab, Azure DevOps, IDE viewers).
//!
//! One run, tool `handoff` with its version; one rule per rule id, in the order first
//! seen, described by the explanation `handoff explain` prints (or the policy rule);
//! one result per annotation with its level, message, location (the file relative to
//! `%SRCROOT%`, the repository root, with line and column when known) and a
//! `partialFingerprints` entry (`handoff/v1`) that stays the same while the rule, the
//! file and the message do (what `--baseline` matches). A suppressed finding carries
//! `suppressions`: kind `inSource` for a `handoff:allow` marker, `external` for an
//! `allow` entry or the baseline, the justification saying which and why. A finding
//! without a file (about the change as a whole) has no location. The log validates against the official SARIF 2.1.0 JSON Schema (the tests
//! check every report that offers the format).

use super::annotation::Annotation;
use crate::suppress::SuppressedBy;
use serde_json::{json, Value};

/// The log's `$schema`.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF log of `annotations`, found by the command `command` (the report's name).
pub fn log(command: &str, annotations: &[Annotation]) -> Value {
    let mut rules: Vec<&Annotation> = Vec::new();
    let mut results = Vec::new();
    for annotation in annotations {
        let index = match rules.iter().position(|rule| rule.rule == annotation.rule) {
            Some(index) => index,
            None => {
                rules.push(annotation);
                rules.len() - 1
            }
        };
        results.push(result(annotation, index));
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "handoff",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules.iter().map(|annotation| rule(annotation)).collect::<Vec<_>>(),
            }},
            "automationDetails": {"id": format!("handoff/{command}/")},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {
                "description": {"text": "The root of the repository the command ran in."}
            }},
            "results": results,
        }],
    })
}

fn rule(annotation: &Annotation) -> Value {
    json!({
        "id": annotation.rule,
        "shortDescription": {"text": annotation.rule_summary},
        "defaultConfiguration": {"level": annotation.level.as_str()},
        "help": {"text": format!("handoff explain {}", annotation.rule)},
    })
}

fn result(annotation: &Annotation, rule_index: usize) -> Value {
    let mut message = annotation.message.clone();
    if let Some(help) = &annotation.help {
        message.push_str("\nfix: ");
        message.push_str(help);
    }
    let mut result = json!({
        "ruleId": annotation.rule,
        "ruleIndex": rule_index,
        "level": annotation.level.as_str(),
        "message": {"text": message},
        "partialFingerprints": {"handoff/v1": annotation.fingerprint()},
    });
    if let Some((by, reason)) = &annotation.suppressed {
        let kind = match by {
            SuppressedBy::Marker => "inSource",
            SuppressedBy::Allow | SuppressedBy::Baseline => "external",
        };
        let justification = format!("{by}: {reason}");
        result["suppressions"] = json!([{"kind": kind, "justification": justification}]);
    }
    if let Some(path) = &annotation.path {
        let mut location = json!({"artifactLocation": artifact(path)});
        if let Some(line) = annotation.line.filter(|&line| line > 0) {
            let mut region = json!({"startLine": line});
            if let Some(column) = annotation.column.filter(|&column| column > 0) {
                region["startColumn"] = json!(column);
            }
            location["region"] = region;
        }
        result["locations"] = json!([{"physicalLocation": location}]);
    }
    result
}

/// The artifact location of a path: relative to `%SRCROOT%`, or an absolute `file:` URI.
fn artifact(path: &str) -> Value {
    let path = path.replace('\\', "/");
    let relative = path.trim_start_matches("./");
    match path.starts_with('/') {
        true => json!({"uri": format!("file://{}", uri_encode(&path))}),
        false => json!({"uri": uri_encode(relative), "uriBaseId": "%SRCROOT%"}),
    }
}

/// A path as a URI reference: every byte but the unreserved characters and `/`
/// percent-encoded.
fn uri_encode(path: &str) -> String {
    let mut encoded = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                encoded.push(byte as char)
            }
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri_encode("src/a b/é.md"), "src/a%20b/%C3%A9.md");
        assert_eq!(artifact("./x.md")["uri"], "x.md");
        assert_eq!(artifact("/tmp/x.md")["uri"], "file:///tmp/x.md");
    }
}
