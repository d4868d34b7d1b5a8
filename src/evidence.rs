//! Evidence bundles: the items the seed requires per risk class, how a label in a
//! record's `### Evidence Bundle` section names one of them, and the extraction of the
//! labelled items from that section's Markdown.
//!
//! An item is a list item `- **Label**: text` / `- Label: text` (its nested content
//! included), or a sub-heading (`####`) followed by its content. A label names an item
//! when, compared case-insensitively with punctuation and spacing folded, it starts with
//! one of its labels (the policy's: the seed's wording and the aliases, `handoff policy
//! show` lists them); the longest matching label wins.

use crate::markdown::{events, Event, LineIndex, Tag, TagEnd};
use crate::policy::{defaults, EvidencePolicy};
use crate::spelled::spelled_enum;
use serde::Serialize;
use std::sync::LazyLock;

spelled_enum! {
    /// The evidence items the seed's risk classes require. Their wording and the labels
    /// that name them are the policy's ([`crate::policy::defaults`]).
    EvidenceItemId {
        /// File paths changed.
        FilesChanged => "files-changed",
        /// Brief description of change (≤3 sentences).
        Description => "description",
        /// Test output mapped to acceptance criteria.
        TestMapping => "test-mapping",
        /// Before/after behavior description.
        BeforeAfter => "before-after",
        /// Any migrations or breaking-change notes.
        MigrationNotes => "migration-notes",
        /// Security implications analysis.
        SecurityAnalysis => "security-analysis",
        /// Rollback plan (exact commands or steps).
        RollbackPlan => "rollback-plan",
        /// Reviewer sign-off.
        ReviewerSignOff => "reviewer-sign-off",
    }
}

impl EvidenceItemId {
    /// The seed's wording of the item.
    pub fn seed_wording(self) -> &'static str {
        defaults().evidence.wording(self.as_str())
    }
}

/// The labels of a policy's evidence items, folded for matching.
pub fn labels(policy: &EvidencePolicy) -> Vec<(EvidenceItemId, String)> {
    policy
        .aliases
        .iter()
        .filter_map(|(id, labels)| Some((EvidenceItemId::parse(id)?, labels)))
        .flat_map(|(id, labels)| labels.iter().map(move |label| (id, fold_label(label))))
        .filter(|(_, label)| !label.is_empty())
        .collect()
}

/// The built-in labels ([`labels`] of the default policy).
static DEFAULT_LABELS: LazyLock<Vec<(EvidenceItemId, String)>> =
    LazyLock::new(|| labels(&defaults().evidence));

/// Folds a label for matching: lower case, every non-alphanumeric run a single space.
pub fn fold_label(label: &str) -> String {
    label
        .to_lowercase()
        .split(|ch: char| !ch.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The item a label names: the longest of `labels` (folded, see [`labels`]) it starts
/// with.
pub fn match_label(label: &str, labels: &[(EvidenceItemId, String)]) -> Option<EvidenceItemId> {
    let folded = fold_label(label);
    labels
        .iter()
        .filter(|(_, alias)| starts_with_words(&folded, alias))
        .max_by_key(|(_, alias)| alias.len())
        .map(|(item, _)| *item)
}

fn starts_with_words(folded: &str, alias: &str) -> bool {
    folded
        .strip_prefix(alias)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// One labelled entry of an Evidence Bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceItem {
    /// The item the label names, when it names one.
    pub item: Option<EvidenceItemId>,
    /// The label as written (markup stripped).
    pub label: String,
    /// The content after the label, nested lines included (Markdown source).
    pub text: String,
    /// The 1-based line of the entry in its document.
    pub line: usize,
}

/// Extracts the labelled items of an Evidence Bundle body whose first line is `first_line`.
pub fn extract_items(body: &str, first_line: usize) -> Vec<EvidenceItem> {
    let lines = LineIndex::new(body);
    let line_of = |offset: usize| lines.line(offset) - 1;
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut open_heading: Option<(usize, u8, usize)> = None;
    let mut headings: Vec<(usize, u8, usize)> = Vec::new();
    let parser = events(body);
    for (event, range) in parser {
        match event {
            // List items under a sub-heading are that heading's content, not items.
            Event::Start(Tag::Item)
                if depth == 1 && headings.is_empty() && open_heading.is_none() =>
            {
                if let Some(item) =
                    list_item(&body[range.clone()], first_line + line_of(range.start))
                {
                    items.push((range.start, item));
                }
                depth += 1;
            }
            Event::Start(Tag::Heading { level, .. }) if depth == 0 => {
                open_heading = Some((range.start, level as u8, range.end));
                depth += 1;
            }
            Event::End(TagEnd::Heading(_)) if depth == 1 => {
                headings.extend(open_heading.take());
                depth -= 1;
            }
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    for (index, (start, level, heading_end)) in headings.iter().enumerate() {
        let end = headings[index + 1..]
            .iter()
            .find(|(_, next_level, _)| next_level <= level)
            .map_or(body.len(), |(next_start, _, _)| *next_start);
        let label = heading_label(&body[*start..*heading_end]);
        let text = body[(*heading_end).min(end)..end].trim().to_string();
        let item = EvidenceItem {
            item: match_label(&label, &DEFAULT_LABELS),
            label,
            text,
            line: first_line + line_of(*start),
        };
        items.push((*start, item));
    }
    items.sort_by_key(|(start, _)| *start);
    items.into_iter().map(|(_, item)| item).collect()
}

fn heading_label(source: &str) -> String {
    let first = source.lines().next().unwrap_or_default();
    strip_markup(first.trim().trim_start_matches('#').trim_end_matches('#'))
}

/// Strips emphasis and code markup characters and surrounding white space.
fn strip_markup(text: &str) -> String {
    text.replace("**", "")
        .replace("__", "")
        .trim_matches(|ch: char| ch == '*' || ch == '_' || ch == '`' || ch.is_whitespace())
        .to_string()
}

/// A list item `- **Label**: text` or `- Label: text`; `None` when it has no label.
fn list_item(source: &str, line: usize) -> Option<EvidenceItem> {
    let mut lines = source.lines();
    let first = lines.next()?;
    let content = strip_list_marker(first);
    let (label, rest) = split_label(content)?;
    let nested: Vec<&str> = lines.collect();
    let indent = nested
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut text = rest.trim().to_string();
    for nested_line in nested {
        text.push('\n');
        text.push_str(
            nested_line
                .get(indent..)
                .unwrap_or(nested_line.trim_start()),
        );
    }
    Some(EvidenceItem {
        item: match_label(&label, &DEFAULT_LABELS),
        label,
        text: text.trim().to_string(),
        line,
    })
}

fn strip_list_marker(line: &str) -> &str {
    let trimmed = line.trim_start();
    if let Some(rest) = trimmed.strip_prefix(['-', '*', '+']) {
        return rest.trim_start();
    }
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    match trimmed[digits..].strip_prefix(['.', ')']) {
        Some(rest) if digits > 0 => rest.trim_start(),
        _ => trimmed,
    }
}

/// Splits `**Label**: text`, `**Label:** text` or `Label: text` into label and text.
fn split_label(content: &str) -> Option<(String, &str)> {
    if let Some(rest) = content.strip_prefix("**") {
        let close = rest.find("**")?;
        let label = rest[..close].trim().trim_end_matches(':').trim();
        let after = rest[close + 2..].trim_start();
        let after = after.strip_prefix(':').unwrap_or(after);
        return (!label.is_empty()).then(|| (label.to_string(), after));
    }
    let colon = content.find(':')?;
    let label = strip_markup(&content[..colon]);
    let plausible =
        !label.is_empty() && label.chars().count() <= 60 && !content[colon..].starts_with("://");
    plausible.then(|| (label, &content[colon + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_match_seed_wording_and_aliases() {
        let defaults = &DEFAULT_LABELS;
        for (label, item) in [
            ("File paths changed", EvidenceItemId::FilesChanged),
            ("Files attempted", EvidenceItemId::FilesChanged),
            (
                "Before/after behavior description",
                EvidenceItemId::BeforeAfter,
            ),
            (
                "Brief description (≤3 sentences)",
                EvidenceItemId::Description,
            ),
            ("Rollback plan", EvidenceItemId::RollbackPlan),
            ("Reviewer sign off", EvidenceItemId::ReviewerSignOff),
        ] {
            assert_eq!(match_label(label, defaults), Some(item), "{label}");
        }
        assert_eq!(match_label("Filesystem notes", defaults), None);
        let mut policy = defaults_evidence();
        let tests = policy
            .aliases
            .entry("test-mapping".to_string())
            .or_default();
        tests.push("QA run".to_string());
        assert_eq!(
            match_label("qa run results", &labels(&policy)),
            Some(EvidenceItemId::TestMapping)
        );
    }

    fn defaults_evidence() -> EvidencePolicy {
        defaults().evidence.clone()
    }

    #[test]
    fn every_label_policy_show_prints_is_matched_to_its_item() {
        for (id, aliases) in &defaults().evidence.aliases {
            for alias in aliases {
                assert_eq!(
                    match_label(alias, &DEFAULT_LABELS),
                    EvidenceItemId::parse(id),
                    "`{alias}`"
                );
            }
        }
    }

    #[test]
    fn every_item_has_wording_and_labels_and_every_labelled_id_is_an_item() {
        let evidence = &defaults().evidence;
        for item in EvidenceItemId::ALL {
            assert!(evidence.aliases.contains_key(item.as_str()), "{item}");
            assert_ne!(item.seed_wording(), item.as_str(), "{item} has no wording");
        }
        for id in evidence.aliases.keys() {
            assert!(EvidenceItemId::parse(id).is_some(), "`{id}` is no item");
        }
    }

    #[test]
    fn items_come_from_list_items_and_sub_headings() {
        let body = "- **Files changed**: src/a.rs\n  - src/b.rs\n- Summary: one line\n- no label here\n\n#### Rollback plan\n\n```sh\ngit revert HEAD\n```\n\n#### Tests\n\n- login: tests/login.rs\n";
        let items = extract_items(body, 10);
        assert_eq!(items.len(), 4);
        assert_eq!(items[3].item, Some(EvidenceItemId::TestMapping));
        assert_eq!(items[3].text, "- login: tests/login.rs");
        assert_eq!(items[0].item, Some(EvidenceItemId::FilesChanged));
        assert_eq!(items[0].text, "src/a.rs\n- src/b.rs");
        assert_eq!(items[0].line, 10);
        assert_eq!(items[1].item, Some(EvidenceItemId::Description));
        assert_eq!(items[1].line, 12);
        assert_eq!(items[2].item, Some(EvidenceItemId::RollbackPlan));
        assert_eq!(items[2].line, 15);
        assert!(items[2].text.contains("git revert HEAD"));
        assert_eq!(
            (items[1].label.as_str(), items[1].text.as_str()),
            ("Summary", "one line")
        );
        assert_eq!(items[2].label, "Rollback plan");
        assert_eq!(
            EvidenceItemId::RollbackPlan.seed_wording(),
            "Rollback plan (exact commands or steps)"
        );
    }

    fn labels_and_texts(body: &str) -> Vec<(String, String)> {
        let items = extract_items(body, 1);
        items
            .into_iter()
            .map(|item| (item.label, item.text))
            .collect()
    }

    #[test]
    fn a_sub_heading_item_holds_its_deeper_headings_and_ends_at_its_level() {
        let body =
            "#### Rollback plan\n\ngit revert HEAD\n\n##### Checked\n\nyes\n\n#### Tests\n\nok\n";
        let items = labels_and_texts(body);
        assert_eq!(items[0].1, "git revert HEAD\n\n##### Checked\n\nyes");
        assert_eq!((items.len(), items[2].1.as_str()), (3, "ok"));
        // A heading inside a list item is that item's content, not an item of its own.
        let items = labels_and_texts("- Summary: x\n\n  #### Tests\n- Rollback plan: y\n");
        let labels: Vec<&str> = items.iter().map(|(label, _)| label.as_str()).collect();
        assert_eq!(labels, ["Summary", "Rollback plan"]);
    }

    #[test]
    fn a_list_item_label_is_read_without_markup_and_its_text_keeps_relative_indent() {
        let body = "1. *Rollback plan*: a\n2. `Summary`: b\n3. _Tests_: c\n";
        let labels: Vec<String> = labels_and_texts(body)
            .into_iter()
            .map(|(label, _)| label)
            .collect();
        assert_eq!(labels, ["Rollback plan", "Summary", "Tests"]);
        let items = labels_and_texts("- Files changed: src/a.rs\n  - src/b.rs\n    - src/c.rs\n");
        assert_eq!(items[0].1, "src/a.rs\n- src/b.rs\n  - src/c.rs");
        // A URL's colon and an empty label make no item.
        assert!(labels_and_texts("- https://ci.example.com/run/1\n- : no label\n").is_empty());
    }
}
