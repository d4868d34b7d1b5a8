//! `--color auto|always|never`: colour in the human reports and in error messages.
//!
//! `auto` (the default) colours a stream only when it is a terminal, `NO_COLOR` is unset
//! or empty (<https://no-color.org>) and `TERM` is not `dumb`; `always` and `never` say
//! what they mean, whatever the environment. Colour is painted over the finished text,
//! so the layouts (and `--templates` overrides) stay plain text: severities and codes
//! (`error[code]`, `warning[code]`), hints and fixes, and the verdict words.

use clap::builder::styling::{AnsiColor, Style};
use clap::ColorChoice;
use regex::Regex;
use std::io::IsTerminal;
use std::sync::OnceLock;

/// The choice made on the command line, set once by [`choose`].
static CHOICE: OnceLock<ColorChoice> = OnceLock::new();

/// Records the `--color` choice for the rest of the run.
pub fn choose(choice: ColorChoice) {
    let _ = CHOICE.set(choice);
}

/// Whether standard output is painted.
pub fn stdout() -> bool {
    enabled(std::io::stdout().is_terminal())
}

/// Whether standard error is painted.
pub fn stderr() -> bool {
    enabled(std::io::stderr().is_terminal())
}

fn enabled(terminal: bool) -> bool {
    match CHOICE.get().copied().unwrap_or(ColorChoice::Auto) {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            let dumb = std::env::var_os("TERM").is_some_and(|v| v == "dumb");
            terminal && !no_color && !dumb
        }
    }
}

/// The words painted, and how.
fn rules() -> &'static [(Regex, Style)] {
    static RULES: OnceLock<Vec<(Regex, Style)>> = OnceLock::new();
    RULES.get_or_init(|| {
        let style = |color: AnsiColor| Style::new().fg_color(Some(color.into()));
        let table = [
            (r"\berror(\[[^\]\s]+\])?:", style(AnsiColor::Red).bold()),
            (
                r"\bwarning(\[[^\]\s]+\])?:",
                style(AnsiColor::Yellow).bold(),
            ),
            (r"(?m)^[ \t]*(= hint|fix):", style(AnsiColor::Cyan)),
            (r"(?m)^(pass|ok|valid):", style(AnsiColor::Green).bold()),
            (r"(?m)^(reject|invalid):", style(AnsiColor::Red).bold()),
            (r": no problems$", style(AnsiColor::Green)),
        ];
        table
            .into_iter()
            .filter_map(|(pattern, style)| Some((Regex::new(pattern).ok()?, style)))
            .collect()
    })
}

/// `text` with its severities, hints and verdict words in colour.
pub fn paint(text: &str) -> String {
    let mut spans: Vec<(usize, usize, Style)> = Vec::new();
    for (regex, style) in rules() {
        for found in regex.find_iter(text) {
            let overlaps = spans
                .iter()
                .any(|&(start, end, _)| found.start() < end && start < found.end());
            if !overlaps {
                spans.push((found.start(), found.end(), *style));
            }
        }
    }
    spans.sort_by_key(|&(start, _, _)| start);
    let mut painted = String::with_capacity(text.len() + spans.len() * 12);
    let mut at = 0;
    for (start, end, style) in spans {
        painted.push_str(&text[at..start]);
        painted.push_str(&format!("{style}{}{style:#}", &text[start..end]));
        at = end;
    }
    painted.push_str(&text[at..]);
    painted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_and_verdicts_are_painted_and_nothing_else_changes() {
        let text = "a.md:1:1: error[missing-field]: no Task\n  = hint: add it\nreject: task X\n";
        let painted = paint(text);
        assert!(
            painted.contains("error[missing-field]:\u{1b}[0m"),
            "{painted:?}"
        );
        assert!(painted.contains("reject:\u{1b}[0m"), "{painted:?}");
        let plain = Regex::new("\u{1b}\\[[0-9;]*m").expect("a regex");
        assert_eq!(plain.replace_all(&painted, ""), text);
    }
}
