//! The one vocabulary of output formats, for every command.

use crate::spelled::spelled_enum;

spelled_enum! {
    /// An output format. Every command takes `--format` with these names (each command
    /// supports the ones that make sense for it, [`super::Report::FORMATS`]).
    #[non_exhaustive]
    Format {
        /// For a person at a terminal.
        Human => "human",
        /// The documented JSON contract.
        Json => "json",
        /// The same data as YAML.
        Yaml => "yaml",
        /// Markdown, e.g. for a pull-request comment or a job summary.
        Markdown => "markdown",
        /// One self-contained HTML page.
        Html => "html",
        /// One JSON object per line, streamed (`trail query`: the lines as stored).
        Jsonl => "jsonl",
        /// A SARIF 2.1.0 log of the findings, for code scanning.
        Sarif => "sarif",
        /// GitHub Actions workflow commands: annotations on the diff.
        Github => "github",
        /// A Mermaid diagram (`trail history`), drawn by GitHub in a comment.
        Mermaid => "mermaid",
    }
}

impl Format {
    /// The formats of a report of findings with no layout of its own beyond the terminal:
    /// the human text, the JSON contract and its YAML twin, and the two CI formats that
    /// annotate each finding (`classify`, `lint`).
    pub(crate) const FINDINGS: &'static [Format] = &[
        Format::Human,
        Format::Json,
        Format::Yaml,
        Format::Sarif,
        Format::Github,
    ];

    /// Other spellings each format answers to, kept so that nothing a user typed breaks.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Format::Markdown => &["md"],
            _ => &[],
        }
    }

    /// The format a name or an alias names (case-insensitive).
    pub fn named(text: &str) -> Option<Format> {
        let wanted = text.trim();
        Format::parse(wanted).or_else(|| {
            Format::ALL.iter().copied().find(|format| {
                format
                    .aliases()
                    .iter()
                    .any(|alias| alias.eq_ignore_ascii_case(wanted))
            })
        })
    }

    /// Whether the format is data (the JSON contract, its YAML twin, JSON lines, or the
    /// findings in a CI format) rather than a layout drawn by a template.
    pub fn is_data(self) -> bool {
        matches!(
            self,
            Format::Json | Format::Yaml | Format::Jsonl | Format::Sarif | Format::Github
        )
    }

    /// The template file extension of a layout format.
    pub fn template_extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Mermaid => "mmd",
            _ => "txt",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_old_spellings_are_accepted() {
        assert_eq!(Format::named("markdown"), Some(Format::Markdown));
        assert_eq!(Format::named("MD"), Some(Format::Markdown));
        assert_eq!(Format::named("json"), Some(Format::Json));
        assert_eq!(Format::named("xml"), None);
    }
}
