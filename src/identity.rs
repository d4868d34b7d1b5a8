//! Agent identity: one normalisation for every agent name the gate reads.
//!
//! A gate that compares names as raw strings can be talked past by spelling: the author
//! written `` `reality-checker` ``, `**reality-checker**`, `@reality-checker`,
//! `[reality-checker](https://…)`, in fullwidth letters, or with a zero-width space
//! inside is still reality-checker to every reader, and must be to the gate. So every
//! name (`Assigned to`, `From`, `To`, a Decision's decider, the policy's roles, registry
//! names) goes through [`AgentName::parse`]:
//!
//! 1. Markdown markup removed: code spans, emphasis, links (their text), a leading `@`;
//! 2. Unicode NFKC (fullwidth `ｒ` → `r`, `K` (Kelvin) → `K`);
//! 3. invisible and format characters removed ([`is_invisible`]: zero-width spaces and
//!    joiners, the soft hyphen, bidirectional controls, variation selectors, tags …);
//!    the Unicode hyphens U+2010 and U+2011 become `-`;
//! 4. case folded (full Unicode lower case).
//!
//! What is left must be of the agent-name form `[a-z0-9][a-z0-9-]*`. A name that is
//! not (a Cyrillic `е` inside, a space, a second name) is an error, never a silent
//! non-match: a confusable that compares unequal to the author would let the author
//! approve its own work.
//!
//! Task IDs compare the same way, without the name form ([`task_key`]), and record and
//! section headings are recognised through [`visible`], so an invisible character
//! cannot unmake a record or its Decision.

use crate::markdown::{events, Event};
use std::borrow::Cow;
use std::fmt;
use unicode_normalization::UnicodeNormalization;

/// A normalised agent name: `[a-z0-9][a-z0-9-]*`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentName(String);

/// Why a written name is not an agent name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{written}` is not an agent name (normalised: `{normalised}`); write it as lower-case letters, digits and `-`, e.g. `reality-checker`")]
pub struct NameError {
    /// The name as written.
    pub written: String,
    /// What the normalisation made of it.
    pub normalised: String,
}

impl AgentName {
    /// Normalises a written name (see the module) and checks its form.
    pub fn parse(written: &str) -> Result<AgentName, NameError> {
        let normalised = normalise(written);
        if is_name_form(&normalised) {
            Ok(AgentName(normalised))
        } else {
            Err(NameError {
                written: written.to_string(),
                normalised,
            })
        }
    }

    /// The normalised name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AgentName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether two written names are the same agent: both are names and normalise equal.
/// A text that is not a name is nobody (the gate reports it as an error on its own).
pub fn same_agent(a: &str, b: &str) -> bool {
    match (AgentName::parse(a), AgentName::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The normalised text of a name, whatever its form.
fn normalise(written: &str) -> String {
    let text = without_markup(written.trim());
    let text = text.trim().trim_start_matches('@');
    visible(text)
        .chars()
        .map(|c| match c {
            '\u{2010}' | '\u{2011}' => '-',
            other => other,
        })
        .flat_map(char::to_lowercase)
        .collect::<String>()
        .trim()
        .to_string()
}

/// `[a-z0-9][a-z0-9-]*`.
fn is_name_form(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The text a reader sees of inline Markdown: text and code-span content, links by
/// their text; HTML dropped.
fn without_markup(text: &str) -> Cow<'_, str> {
    if !text.contains(['`', '*', '_', '[', '<', '~', '\\', '&', '!']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (event, _) in events(text) {
        match event {
            Event::Text(piece) | Event::Code(piece) => out.push_str(&piece),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            _ => {}
        }
    }
    Cow::Owned(out)
}

/// The text in NFKC with every invisible or format character removed ([`is_invisible`]):
/// what two texts that look the same have in common. ASCII text is returned as it is.
pub fn visible(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.nfkc().filter(|c| !is_invisible(*c)).collect())
}

/// Whether `c` is invisible when rendered or a format control: Unicode's
/// Default_Ignorable_Code_Point set (zero-width space, joiners, soft hyphen, word joiner,
/// bidirectional controls, variation selectors, Hangul fillers, tags …) and the other
/// format characters (general category Cf) that occur in text.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}'
        | '\u{3164}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}' | '\u{FFA0}'
        | '\u{FFF0}'..='\u{FFFB}'
        | '\u{0600}'..='\u{0605}' | '\u{06DD}' | '\u{070F}' | '\u{08E2}'
        | '\u{110BD}' | '\u{110CD}'
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}')
}

/// The form two task IDs share when they name the same task: visible text
/// ([`visible`]), trimmed, upper case. `eng-1 ` and `ENG-1` are one task.
pub fn task_key(task_id: &str) -> String {
    visible(task_id.trim()).trim().to_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_name_is_that_name() {
        for written in [
            "reality-checker",
            " Reality-Checker ",
            "`reality-checker`",
            "**reality-checker**",
            "_reality-checker_",
            "@reality-checker",
            "[reality-checker](https://example.com/rc)",
            "ｒｅａｌｉｔｙ－ｃｈｅｃｋｅｒ",
            "reality\u{200B}-checker",
            "Reality\u{2011}Checker\u{00AD}",
            "re\u{200D}ality-che\u{2060}cker\u{FEFF}",
            "\u{202E}reality-checker",
        ] {
            assert_eq!(
                AgentName::parse(written).map(|n| n.0),
                Ok("reality-checker".to_string()),
                "{written:?}"
            );
        }
    }

    #[test]
    fn a_text_that_is_still_not_a_name_is_an_error() {
        for written in [
            "r\u{0435}ality-checker",
            "reality checker",
            "qa-engineer, reality-checker",
            "",
            "-x",
            "<reality-checker>",
            "reality—checker",
        ] {
            assert!(AgentName::parse(written).is_err(), "{written:?}");
        }
        assert!(!same_agent("r\u{0435}ality-checker", "reality-checker"));
        assert!(same_agent("`QA-Engineer`", "qa\u{200D}-engineer"));
    }

    #[test]
    fn a_name_reads_and_prints_as_its_normalised_form() {
        let name = AgentName::parse("**Reality-Checker**").expect("a name");
        assert_eq!(name.as_str(), "reality-checker");
        assert_eq!(name.to_string(), "reality-checker");
    }

    #[test]
    fn two_words_on_two_lines_are_not_run_together() {
        // A line break inside markup is a space to a reader, so no name.
        for written in [
            "**reality**\nchecker",
            "`reality`\nchecker",
            "_reality_  \nchecker",
        ] {
            assert!(AgentName::parse(written).is_err(), "{written:?}");
        }
    }

    #[test]
    fn task_ids_and_headings_compare_by_what_is_visible() {
        assert_eq!(task_key("eng-1 "), task_key("ENG-1"));
        assert_eq!(task_key("ENG\u{200B}-1"), "ENG-1");
        assert_eq!(visible("Interaction Record\u{200B}"), "Interaction Record");
        assert!(matches!(visible("plain"), Cow::Borrowed("plain")));
    }
}
