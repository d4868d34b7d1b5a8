//! Findings as the CI formats see them: a rule id, a level, a message and a place.
//!
//! A [`super::Report`] that reports findings lists them as [`Annotation`]s, and the two CI
//! reporters write those: SARIF 2.1.0 ([`super::sarif`]) for code scanning and GitHub
//! workflow commands ([`super::github`]) for annotations on the diff. Each annotation has a
//! stable fingerprint: a hash of its rule, file and message (not its line, so a finding
//! keeps its fingerprint when lines move above it).

use crate::diagnostic::{Diagnostic, Severity};
use crate::suppress::SuppressedBy;
use serde::Serialize;

/// How serious an annotation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Information: why a change is classified as it is.
    Note,
    /// Worth fixing; does not fail the command.
    Warning,
    /// Fails the command.
    Error,
}

impl Level {
    /// The SARIF `level` and GitHub command name of the level.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// One finding, located in a file when it can be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// The stable rule id: a diagnostic code (`undeclared-file`) or a policy rule id
    /// (`auth.path.generic`).
    pub rule: String,
    /// What the rule is about, in one sentence (SARIF's rule description).
    pub rule_summary: String,
    /// How serious it is.
    pub level: Level,
    /// The message.
    pub message: String,
    /// The file, relative to the repository root where the command knows it; `None` for
    /// findings about the change as a whole (and for standard input).
    pub path: Option<String>,
    /// The 1-based line.
    pub line: Option<usize>,
    /// The 1-based column.
    pub column: Option<usize>,
    /// How to fix it, when known.
    pub help: Option<String>,
    /// For a suppressed finding (an `allow` entry, a marker, the baseline): why. It is
    /// reported as suppressed (SARIF `suppressions`), never as a finding.
    pub suppressed: Option<(SuppressedBy, String)>,
}

impl Annotation {
    /// The annotation of a diagnostic: its code, severity, place, message and fix.
    pub fn from_diagnostic(diagnostic: &Diagnostic) -> Annotation {
        let path = diagnostic
            .source
            .clone()
            .filter(|source| source != crate::io::STDIN_NAME && !source.is_empty());
        Annotation {
            rule: diagnostic.code.name().to_string(),
            rule_summary: diagnostic.code.explanation().summary.clone(),
            level: match diagnostic.severity {
                Severity::Error => Level::Error,
                Severity::Warning => Level::Warning,
            },
            message: diagnostic.message.clone(),
            line: diagnostic.line.filter(|_| path.is_some()),
            column: diagnostic.column.filter(|_| path.is_some()),
            path,
            help: diagnostic.fix.clone().or_else(|| diagnostic.hint.clone()),
            suppressed: None,
        }
    }

    /// The annotation of a risk finding: a note naming the trigger, the class it raises
    /// the change to, and the policy rule that fired.
    pub fn from_risk_finding(finding: &crate::risk::Finding) -> Annotation {
        let path = finding
            .path
            .as_ref()
            .map(|path| path.to_string_lossy().into_owned());
        Annotation {
            rule: finding.rule.clone(),
            rule_summary: format!(
                "The policy rule {} of the {} trigger ({} risk).",
                finding.rule, finding.trigger, finding.class
            ),
            level: Level::Note,
            message: finding.message(),
            line: finding.line.filter(|_| path.is_some()),
            column: None,
            path,
            help: None,
            suppressed: None,
        }
    }

    /// The annotation of a suppressed risk finding: the finding's, with what suppressed
    /// it and why.
    pub fn from_suppressed(suppressed: &crate::risk::Suppressed) -> Annotation {
        Annotation {
            suppressed: Some((suppressed.by, suppressed.reason.clone())),
            ..Annotation::from_risk_finding(&suppressed.finding)
        }
    }

    /// The stable fingerprint ([`crate::suppress::fingerprint`]: rule, file, message;
    /// the line is left out on purpose).
    pub fn fingerprint(&self) -> String {
        crate::suppress::fingerprint(&self.rule, self.path.as_deref(), &self.message)
    }
}
