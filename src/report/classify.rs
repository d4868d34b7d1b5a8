//! `handoff classify`: the risk class of a change, and every trigger that fired.

use super::{Annotation, Format, Report};
use crate::git::Head;
use crate::policy::PolicySource;
use crate::risk::Classification;
use serde::Serialize;

/// A classification, with what the human layout says about where it came from.
pub struct ClassifyReport<'a> {
    /// The classification (the JSON contract).
    pub classification: &'a Classification,
    /// The base commit.
    pub base: &'a str,
    /// The head.
    pub head: &'a Head,
    /// Where the policy came from.
    pub policy: &'a PolicySource,
}

#[derive(Serialize)]
struct Context<'a> {
    classification: &'a Classification,
    /// The declared class and the reclassification, as the headline says them.
    note: String,
    files: usize,
    base: &'a str,
    head: &'a str,
    policy: String,
    /// Why renames were not searched for, when they were not.
    rename_warning: Option<String>,
    /// The findings, one group per trigger, in report order.
    groups: Vec<Group<'a>>,
}

#[derive(Serialize)]
struct Group<'a> {
    trigger: &'a str,
    class: crate::policy::RiskClass,
    findings: Vec<&'a crate::risk::Finding>,
}

impl Report for ClassifyReport<'_> {
    const NAME: &'static str = "classify";
    const FORMATS: &'static [Format] = Format::FINDINGS;
    type Contract = Classification;

    fn contract(&self) -> &Classification {
        self.classification
    }

    fn context(&self, _format: Format) -> serde_json::Value {
        let result = self.classification;
        let note = match (result.declared, result.reclassified) {
            (Some(declared), true) => format!(" (reclassified from declared {declared})"),
            (None, true) => " (reclassified from low: no class declared)".to_string(),
            (Some(declared), false) => format!(" (declared {declared})"),
            (None, false) => String::new(),
        };
        let mut groups: Vec<Group> = Vec::new();
        for finding in &result.findings {
            match groups.last_mut() {
                Some(group) if group.trigger == finding.trigger => group.findings.push(finding),
                _ => groups.push(Group {
                    trigger: &finding.trigger,
                    class: finding.class,
                    findings: vec![finding],
                }),
            }
        }
        let context = Context {
            classification: result,
            note,
            files: result.files.len(),
            base: self.base.get(..12).unwrap_or(self.base),
            head: match self.head {
                Head::WorkTree => "the working tree",
                Head::Rev(rev) => rev.as_str(),
            },
            policy: self.policy.to_string(),
            rename_warning: result.rename_search_skipped.map(|s| s.to_string()),
            groups,
        };
        serde_json::to_value(context).unwrap_or_default()
    }

    /// Every trigger that fired, as a note where it fired.
    fn annotations(&self) -> Vec<Annotation> {
        let findings = self.classification.findings.iter();
        let allowed = self.classification.suppressed.iter();
        findings
            .map(Annotation::from_risk_finding)
            .chain(allowed.map(Annotation::from_suppressed))
            .collect()
    }
}
