//! Report text made inert for a GFM table cell or a list item.
//!
//! Outside code spans: `\` → `\\`, `|` → `\|`, `<` `>` `@` → `&lt;` `&gt;` `&#64;` (no HTML,
//! no mention), a line break → `<br>`. Inside a code span, where Markdown shows text as it
//! is, only `|` is escaped (a table splits on it before it reads spans) and a line break
//! becomes a space.

/// Escapes `text` for a report's table cell or list item (see the module).
pub fn escape_report_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut in_code = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '|' => out.push_str("\\|"),
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push_str(if in_code { " " } else { "<br>" });
            }
            _ if in_code => out.push(c),
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => out.push_str("&#64;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_cannot_break_a_cell_open_html_or_mention() {
        assert_eq!(
            escape_report_text("a|b <i>@team `git revert <sha>`"),
            "a\\|b &lt;i&gt;&#64;team `git revert <sha>`"
        );
        assert_eq!(
            escape_report_text("a|b\n<script>"),
            "a\\|b<br>&lt;script&gt;"
        );
        assert_eq!(escape_report_text("x\\y `a|b\r\nc`"), "x\\\\y `a\\|b c`");
    }
}
