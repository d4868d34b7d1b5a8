//! Suppression: the ways a finding is kept from counting, and the fingerprint that names
//! a finding across runs.
//!
//! Three things keep a finding from counting, and none of them hides it: every report
//! counts what was suppressed, and by what.
//!
//! - An `allow` entry of the policy (a rule or trigger on some paths, with a reason):
//!   [`crate::policy::Allowance`].
//! - A baseline ([`Baseline`]): the SARIF log of an earlier run (`--format sarif`); a
//!   finding whose fingerprint the log holds is not reported again. Each entry covers one
//!   finding: two findings with one fingerprint need two entries.
//! - An inline marker `handoff:allow RULE` in the base revision of a file
//!   ([`marker_rules`] reads one line; the classifier decides what a marker covers).
//!
//! For a change (`check`, `classify`), each is read from the BASE revision like the
//! policy, so a change can never suppress its own findings.
//!
//! A finding's fingerprint is a hash of its rule, its file and its message, not its line:
//! it survives lines moving above it. SARIF carries it as `partialFingerprints
//! ["handoff/v1"]`, which is what a baseline is matched by.

use crate::git::{Head, Repo};
use crate::spelled::spelled_enum;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The inline marker's keyword.
pub const MARKER: &str = "handoff:allow";

/// The key of the fingerprint in a SARIF result's `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "handoff/v1";

/// The largest baseline read: 64 MiB.
const MAX_BASELINE_BYTES: u64 = 64 * 1024 * 1024;

spelled_enum! {
    /// What kept a finding from counting.
    SuppressedBy {
        /// An `allow` entry of the policy.
        Allow => "allow",
        /// The baseline: an earlier run reported it.
        Baseline => "baseline",
        /// A `handoff:allow` marker in the base revision of the file.
        Marker => "marker",
    }
}

/// The stable fingerprint of a finding: the first 32 hex digits of SHA-256 over its rule,
/// its file (empty when it has none) and its message, each followed by a NUL byte.
pub fn fingerprint(rule: &str, path: Option<&str>, message: &str) -> String {
    let mut hash = Sha256::new();
    for part in [rule, path.unwrap_or(""), message] {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    let digest = hash.finalize();
    digest[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The findings of an earlier run, by fingerprint: a SARIF 2.1.0 log written by
/// `--format sarif`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Baseline {
    /// Where it was read from (a path, with the revision for a baseline read from git).
    pub source: String,
    /// The file's path in the repository, when it is read from a revision: changing it
    /// fires the `policy` trigger, like the policy file.
    #[serde(skip)]
    pub in_repo: Option<String>,
    /// How many findings it lists.
    pub entries: usize,
    /// How many findings of each fingerprint are left to cover.
    #[serde(skip)]
    remaining: HashMap<String, usize>,
}

/// Why a baseline cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}: {message}")]
pub struct BaselineError {
    /// The file.
    pub source_name: String,
    /// What is wrong, and the fix.
    pub message: String,
}

impl Baseline {
    /// A baseline with no entries (a file the base revision does not have).
    pub fn empty(source: String, in_repo: Option<String>) -> Baseline {
        Baseline {
            source,
            in_repo,
            entries: 0,
            remaining: HashMap::new(),
        }
    }

    /// Reads a SARIF log: every result's `partialFingerprints["handoff/v1"]`, results
    /// that carry `suppressions` left out (they were not reported).
    pub fn parse(source: String, bytes: &[u8]) -> Result<Baseline, BaselineError> {
        let error = |message: String| BaselineError {
            source_name: source.clone(),
            message,
        };
        let log: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
            error(format!(
                "not JSON ({e}); a baseline is the SARIF log a run wrote with `--format sarif`"
            ))
        })?;
        let runs = match (log.get("version"), log.get("runs")) {
            (Some(version), Some(serde_json::Value::Array(runs))) if version == "2.1.0" => runs,
            _ => {
                return Err(error(
                    "not a SARIF 2.1.0 log (no `version: 2.1.0` and `runs`); write the \
                     baseline with `--format sarif`"
                        .to_string(),
                ))
            }
        };
        let mut baseline = Baseline::empty(source.clone(), None);
        let results = runs
            .iter()
            .filter_map(|run| run.get("results").and_then(|r| r.as_array()))
            .flatten();
        for (index, result) in results.enumerate() {
            let suppressions = result.get("suppressions").and_then(|s| s.as_array());
            if suppressions.is_some_and(|list| !list.is_empty()) {
                continue;
            }
            let fingerprint = result
                .pointer(&format!(
                    "/partialFingerprints/{}",
                    FINGERPRINT_KEY.replace('/', "~1")
                ))
                .and_then(|value| value.as_str())
                .ok_or_else(|| {
                    error(format!(
                        "result {index} has no `partialFingerprints.\"{FINGERPRINT_KEY}\"`: \
                         the log was not written by `handoff … --format sarif`"
                    ))
                })?;
            *baseline
                .remaining
                .entry(fingerprint.to_string())
                .or_default() += 1;
            baseline.entries += 1;
        }
        Ok(baseline)
    }

    /// Reads the baseline file `path` from disk.
    pub fn read(path: &std::path::Path) -> Result<Baseline, BaselineError> {
        let source = path.display().to_string();
        let bytes =
            crate::io::read_capped(path, MAX_BASELINE_BYTES).map_err(|e| BaselineError {
                source_name: source.clone(),
                message: e.to_string(),
            })?;
        Baseline::parse(source, &bytes)
    }

    /// Reads the baseline `path` (a file of the repository: relative to its root, or an
    /// absolute path inside it) as the revision `base` has it; a file `base` does not
    /// have is an empty baseline (a change that adds its baseline is judged without it),
    /// and so is any baseline when there is no base.
    pub fn read_at(
        repo: &Repo,
        base: Option<&str>,
        path: &std::path::Path,
    ) -> Result<Baseline, BaselineError> {
        let in_repo = repository_path(repo, path)?;
        let Some(base) = base else {
            let source = format!("{in_repo} (no base revision: empty)");
            return Ok(Baseline::empty(source, Some(in_repo)));
        };
        let source = format!("{in_repo} at base {}", base.get(..12).unwrap_or(base));
        let read = repo.read_file_at(&Head::Rev(base.to_string()), &in_repo);
        let bytes = read.map_err(|e| BaselineError {
            source_name: source.clone(),
            message: e.to_string(),
        })?;
        let mut baseline = match bytes {
            Some(bytes) if bytes.len() as u64 > MAX_BASELINE_BYTES => {
                return Err(BaselineError {
                    source_name: source,
                    message: format!("larger than {MAX_BASELINE_BYTES} bytes"),
                })
            }
            Some(bytes) => Baseline::parse(source, &bytes)?,
            None => Baseline::empty(format!("{source} (no such file there: empty)"), None),
        };
        baseline.in_repo = Some(in_repo);
        Ok(baseline)
    }

    /// Whether an entry with `fingerprint` is left.
    pub fn holds(&self, fingerprint: &str) -> bool {
        self.remaining.get(fingerprint).is_some_and(|&n| n > 0)
    }

    /// Uses up one entry with `fingerprint`; whether there was one.
    pub fn take(&mut self, fingerprint: &str) -> bool {
        match self.remaining.get_mut(fingerprint) {
            Some(count) if *count > 0 => {
                *count -= 1;
                true
            }
            _ => false,
        }
    }
}

/// `path` as a path of the repository, `/`-separated: relative paths are taken from the
/// root; an absolute path must lie inside the work tree.
fn repository_path(repo: &Repo, path: &std::path::Path) -> Result<String, BaselineError> {
    let error = |message: &str| BaselineError {
        source_name: path.display().to_string(),
        message: message.to_string(),
    };
    let relative = match path.is_absolute() {
        false => path.to_path_buf(),
        true => {
            let root = repo
                .root()
                .canonicalize()
                .map_err(|e| error(&e.to_string()))?;
            let dir = path.parent().and_then(|dir| dir.canonicalize().ok());
            dir.zip(path.file_name())
                .and_then(|(dir, name)| Some(dir.strip_prefix(&root).ok()?.join(name)))
                .ok_or_else(|| {
                    error(
                        "the baseline of a change is read from the base revision, so it must \
                         be a file of the repository",
                    )
                })?
        }
    };
    let text = relative
        .to_str()
        .ok_or_else(|| error("the path is not UTF-8"))?
        .replace('\\', "/");
    Ok(text.trim_start_matches("./").to_string())
}

/// The rule ids (or trigger names) a line's `handoff:allow` markers name: after the
/// keyword, white space, then one or more ids (`[A-Za-z0-9_.-]`) separated by commas.
pub fn marker_rules(line: &[u8]) -> Vec<String> {
    let mut rules = Vec::new();
    let mut rest = line;
    while let Some(at) = memchr::memmem::find(rest, MARKER.as_bytes()) {
        rest = &rest[at + MARKER.len()..];
        let spaces = rest
            .iter()
            .take_while(|b| *b == &b' ' || *b == &b'\t')
            .count();
        if spaces == 0 {
            continue;
        }
        let ids = &rest[spaces..];
        let end = ids
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || b"_.-,".contains(b)))
            .unwrap_or(ids.len());
        for id in ids[..end].split(|b| *b == b',') {
            if !id.is_empty() {
                rules.push(String::from_utf8_lossy(id).into_owned());
            }
        }
        rest = &ids[end..];
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_names_its_rules_after_white_space() {
        assert_eq!(
            marker_rules(b"def csrf():  # handoff:allow auth.scope.csrf,auth -- reviewed"),
            ["auth.scope.csrf", "auth"]
        );
        assert!(marker_rules(b"# handoff:allowauth").is_empty());
        assert!(marker_rules(b"# handoff:allow").is_empty());
        assert_eq!(
            marker_rules(b"x // handoff:allow a handoff:allow\tb"),
            ["a", "b"]
        );
    }

    #[test]
    fn a_baseline_counts_each_fingerprint_as_often_as_the_log_holds_it() {
        let log = br#"{"version": "2.1.0", "runs": [{"results": [
            {"partialFingerprints": {"handoff/v1": "aa"}},
            {"partialFingerprints": {"handoff/v1": "aa"}},
            {"partialFingerprints": {"handoff/v1": "bb"}, "suppressions": [{"kind": "external"}]}
        ]}]}"#;
        let mut baseline = Baseline::parse("b.sarif".into(), log).unwrap();
        assert_eq!(baseline.entries, 2);
        assert!(
            !baseline.holds("bb"),
            "a suppressed result was not reported"
        );
        assert!(baseline.take("aa") && baseline.take("aa"));
        assert!(!baseline.take("aa"));
    }

    #[test]
    fn a_baseline_that_is_not_a_handoff_sarif_log_is_refused_with_the_fix() {
        for text in [
            &b"{}"[..],
            b"not json",
            br#"{"version":"2.1.0","runs":[{"results":[{}]}]}"#,
        ] {
            let error = Baseline::parse("b.json".into(), text)
                .unwrap_err()
                .to_string();
            assert!(error.starts_with("b.json: "), "{error}");
            assert!(error.contains("--format sarif"), "{error}");
        }
    }
}
