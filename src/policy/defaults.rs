//! The built-in policy: `defaults.yaml`, embedded, read by the same loader and the same
//! validating types as `.handoff.yaml`.

use super::file::{Glob, LineRegex, RecordsDir, Role, Roles};
use super::{
    ErrorContext, EvidencePolicy, Policy, PolicyError, PolicySource, ReviewerPolicy, RiskClass,
    Rule, RuleMatch, Trigger, TriggerPolicy,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// The embedded defaults.
const DEFAULTS: &str = include_str!("defaults.yaml");

/// The built-in policy, read once. The file is part of the program (its tests read it on
/// every build), so a failure here is a broken build, not bad input.
static DEFAULT_POLICY: LazyLock<Policy> = LazyLock::new(|| match read_defaults(DEFAULTS) {
    Ok(policy) => policy,
    Err(error) => panic!("the built-in policy (src/policy/defaults.yaml) is broken: {error}"),
});

/// The built-in policy: every built-in trigger with its rules, the evidence items with
/// their wording and labels, the reviewer roles.
pub fn defaults() -> &'static Policy {
    &DEFAULT_POLICY
}

/// The whole defaults file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefaultsFile {
    records_dir: RecordsDir,
    exclude: Vec<Glob>,
    copies: bool,
    triggers: Vec<TriggerDefinition>,
    evidence: BTreeMap<String, EvidenceDefinition>,
    reviewers: ReviewersDefinition,
}

/// One built-in trigger.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TriggerDefinition {
    name: String,
    class: RiskClass,
    description: String,
    #[serde(default = "yes")]
    reads_removed_lines: bool,
    #[serde(default)]
    secret: bool,
    rules: Vec<RuleDefinition>,
}

fn yes() -> bool {
    true
}

/// One default rule: `paths`, or a `line` regex with optional `files`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleDefinition {
    id: String,
    #[serde(default)]
    paths: Vec<Glob>,
    line: Option<LineRegex>,
    #[serde(default)]
    files: Vec<Glob>,
}

/// One evidence item: the seed's wording and the labels that name it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EvidenceDefinition {
    wording: String,
    aliases: Vec<String>,
}

/// The default reviewer roles.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewersDefinition {
    medium: Roles,
    high: Roles,
    orchestrator: Role,
    unavailable: Vec<Role>,
}

/// Reads a defaults file into the policy it defines.
fn read_defaults(text: &str) -> Result<Policy, PolicyError> {
    let context = ErrorContext::named("defaults.yaml (built in)");
    let Some(file) = context.read_yaml::<DefaultsFile>(text)? else {
        return Err(context.whole("the built-in policy is empty".to_string()));
    };
    let mut triggers = Vec::new();
    for definition in file.triggers {
        triggers.push(trigger(definition).map_err(|message| context.whole(message))?);
    }
    let names = |roles: Vec<Role>| roles.into_iter().map(|role| role.0).collect();
    let (mut aliases, mut wording) = (BTreeMap::new(), BTreeMap::new());
    for (id, item) in file.evidence {
        aliases.insert(id.clone(), item.aliases);
        wording.insert(id, item.wording);
    }
    Ok(Policy {
        source: PolicySource::Defaults,
        records_dir: file.records_dir.0,
        exclude: file.exclude.into_iter().map(|glob| glob.0).collect(),
        copies: file.copies,
        triggers,
        evidence: EvidencePolicy { aliases, wording },
        reviewers: ReviewerPolicy {
            medium: names(file.reviewers.medium.0),
            high: names(file.reviewers.high.0),
            orchestrator: file.reviewers.orchestrator.0,
            unavailable: names(file.reviewers.unavailable),
        },
    })
}

fn trigger(definition: TriggerDefinition) -> Result<TriggerPolicy, String> {
    let name: Trigger = definition.name.parse()?;
    let rules = definition
        .rules
        .into_iter()
        .map(|rule| {
            let matches = match (rule.line, rule.paths.is_empty()) {
                (None, false) => RuleMatch::Paths {
                    globs: rule.paths.into_iter().map(|glob| glob.0).collect(),
                },
                (Some(regex), true) => RuleMatch::Line {
                    regex: regex.0,
                    files: rule.files.into_iter().map(|glob| glob.0).collect(),
                },
                _ => return Err(format!("rule `{}` needs either paths or a line", rule.id)),
            };
            Ok(Rule {
                id: rule.id,
                matches,
                from_policy: false,
            })
        })
        .collect::<Result<Vec<Rule>, String>>()?;
    Ok(TriggerPolicy {
        name: name.as_str().to_string(),
        description: definition.description,
        class: definition.class,
        builtin: true,
        reads_removed_lines: definition.reads_removed_lines,
        secret: definition.secret,
        rules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_define_every_built_in_trigger_in_order_with_well_named_rules() {
        let policy = read_defaults(DEFAULTS).unwrap_or_else(|error| panic!("{error}"));
        let names: Vec<&str> = policy.triggers.iter().map(|t| t.name.as_str()).collect();
        let builtin: Vec<&str> = Trigger::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(names, builtin);
        let mut seen = std::collections::BTreeSet::new();
        for trigger in &policy.triggers {
            assert!(!trigger.description.is_empty(), "{}", trigger.name);
            for rule in &trigger.rules {
                assert!(
                    seen.insert(rule.id.clone()),
                    "duplicate rule id {}",
                    rule.id
                );
                let kind = match rule.matches {
                    RuleMatch::Paths { .. } => "path",
                    RuleMatch::Line { .. } => "line",
                };
                assert!(
                    rule.id.starts_with(&format!("{}.{kind}.", trigger.name)),
                    "{}",
                    rule.id
                );
            }
        }
        let file_count = &policy.triggers[0];
        assert!(
            file_count.rules.is_empty(),
            "file-count is counted, not matched"
        );
        let credential = policy.trigger("credential").expect("credential");
        assert!(credential.secret && !credential.reads_removed_lines);
    }

    #[test]
    fn a_broken_defaults_file_is_an_error_with_its_line() {
        let broken = DEFAULTS.replacen("class: medium", "class: severe", 1);
        let message = read_defaults(&broken).err().map(|e| e.to_string());
        assert!(
            message.is_some_and(|m| m.starts_with("defaults.yaml (built in):")),
            "the loader names the file and line"
        );
    }
}
