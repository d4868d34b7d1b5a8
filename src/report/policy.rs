//! `handoff policy show`: the effective policy, defaults merged with `.handoff.yaml`.

use super::{Format, Report};
use crate::policy::{Policy, Trigger, TriggerPolicy};
use crate::risk::{FILE_COUNT_LIMIT, FILE_COUNT_RULE};
use serde::Serialize;

/// The effective policy, as `policy show` prints it.
pub struct PolicyReport<'a>(pub &'a Policy);

#[derive(Serialize)]
struct Context<'a> {
    policy: &'a Policy,
    source: String,
    triggers: Vec<TriggerContext<'a>>,
}

#[derive(Serialize)]
struct TriggerContext<'a> {
    trigger: &'a TriggerPolicy,
    /// What a built-in trigger looks for, or `custom`.
    about: &'a str,
    /// The `file-count` trigger's rule id and limit (it has no patterns).
    count: Option<(&'static str, usize)>,
}

impl Report for PolicyReport<'_> {
    const NAME: &'static str = "policy";
    const FORMATS: &'static [Format] = &[Format::Human, Format::Json, Format::Yaml];
    type Contract = Policy;

    fn contract(&self) -> &Policy {
        self.0
    }

    fn context(&self, _format: Format) -> serde_json::Value {
        let triggers = self
            .0
            .triggers
            .iter()
            .map(|trigger| {
                let counted = trigger.builtin && trigger.name == Trigger::FileCount.as_str();
                TriggerContext {
                    trigger,
                    about: &trigger.description,
                    count: counted.then_some((FILE_COUNT_RULE, FILE_COUNT_LIMIT)),
                }
            })
            .collect();
        let context = Context {
            policy: self.0,
            source: self.0.source.to_string(),
            triggers,
        };
        serde_json::to_value(context).unwrap_or_default()
    }
}
