//! Rewrites that change no code: a changed line that holds the same code as the line it
//! replaces is read as a comment line (only credential rules read it).
//!
//! A hunk's removed lines pair with its added lines one to one, in order, when both runs
//! have the same length; each pair must be the same code for any of them to count as
//! such. Two lines are the same code when they differ only in:
//!
//! - a trailing comment, added, removed or changed (`@unique // why` → `@unique`), and
//!   white space at the line's start and end, in the formats where no line can lie inside
//!   a string opened on an earlier line (Prisma schemas, Protocol Buffers): the comment
//!   starts at `//` outside the line's quotes, after white space and before white space
//!   or the line's end; a line whose quotes do not close is compared whole. In every
//!   other language a `#`, `//` or `--` after code, and leading white space, may be the
//!   inside of a multi-line string, heredoc or YAML block scalar, which the line alone
//!   cannot tell (see [`LINE_LOCAL`]);
//! - in a compose file, `${NAME}` spelled `$NAME` (compose interpolates both alike);
//! - in a Dockerfile, the legacy `ENV NAME value` spelled `ENV NAME=value` (one word;
//!   BuildKit's own fix for its `LegacyKeyValueFormat` check rewrites one into the other).
//!   `ARG` has no legacy form: `ARG NAME value` declares two arguments, not a default;
//! - in Python, a trailing linter directive and nothing else after the code
//!   (`def f(  # noqa: C901`, `# type: ignore[arg-type]`, `# pragma: no cover`,
//!   `# pylint: disable=…`, `# fmt: skip`, `# pyright: ignore`), added, removed
//!   or changed: in code it is a comment; inside a `"""` string it is text no program
//!   reads as code (`noqa: C901` is no SQL, no shell and no Python), unlike a free comment
//!   (`flags # 4` is PostgreSQL's XOR), which stays compared whole. Bandit's `# nosec` is
//!   not one: it switches a security scanner off for the line, a decision a reviewer reads.
//!
//! Nothing coarser: two lines with the same tokens in another order (`a && !b`, `!a && b`),
//! a rewrapped statement (a newline can end a statement in Go, JavaScript, Python or
//! Ruby) or a re-indented Python or YAML line (indentation is structure) are changes.

use super::comments::CommentStyle;
use super::project::is_compose_file;

/// How the lines of one file are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rewrites {
    /// The marker that starts a trailing comment, if the file's syntax has one.
    marker: Option<&'static [u8]>,
    /// The quotes that open strings on a line.
    quotes: &'static [u8],
    /// Whether leading white space means nothing (free-form languages).
    free_form: bool,
    /// A spelling the file's format reads alike.
    format: Format,
    /// Whether a trailing linter directive is set aside (Python).
    directives: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Plain,
    Compose,
    Dockerfile,
}

/// The formats whose lines set a trailing comment aside: those where a line cannot lie
/// inside a string, a heredoc or a block scalar opened on an earlier line. Elsewhere
/// (Python's `"""`, YAML's `|`, Ruby's and shell's heredocs, JavaScript's template
/// literals, Go's raw strings, Java's text blocks, SQL strings, C's `\` continuations) a
/// line's own text cannot tell a comment from the inside of a string: `  UPDATE t SET
/// f = f # 4` in a Python string, `  // ${process.env.KEY}` in a template literal.
const LINE_LOCAL: &[&str] = &["prisma", "proto"];

impl Rewrites {
    /// How the lines of the file at `path`, whose comments are in `style`, compare.
    pub fn for_path(path: &str, style: CommentStyle) -> Rewrites {
        let name = path.rsplit('/').next().unwrap_or(path);
        let extension = name
            .rsplit_once('.')
            .map(|(_, ext)| ext.to_ascii_lowercase());
        let is = |list: &[&str]| extension.as_deref().is_some_and(|ext| list.contains(&ext));
        let format = if is_compose_file(path) {
            Format::Compose
        } else if name.starts_with("Dockerfile")
            || name.starts_with("Containerfile")
            || is(&["dockerfile"])
        {
            Format::Dockerfile
        } else {
            Format::Plain
        };
        let (marker, quotes, free_form): (Option<&'static [u8]>, &'static [u8], bool) = match style
        {
            CommentStyle::Slash if is(LINE_LOCAL) => (Some(b"//"), b"\"'", true),
            _ => (None, b"\"'", false),
        };
        Rewrites {
            marker,
            quotes,
            free_form,
            format,
            directives: is(&["py", "pyi"]),
        }
    }

    /// Whether `old` and `new` hold the same code (see the module's documentation).
    pub fn same_code(&self, old: &[u8], new: &[u8]) -> bool {
        if old == new {
            return true;
        }
        let (old, new) = (self.code(old), self.code(new));
        if old == new {
            return true;
        }
        if self.directives && without_directive(&old) == without_directive(&new) {
            return true;
        }
        match self.format {
            Format::Plain => false,
            Format::Compose => braced_names(&old) == braced_names(&new),
            Format::Dockerfile => key_value_env(&old) == key_value_env(&new),
        }
    }

    /// The line without its trailing comment and the white space that means nothing.
    fn code<'l>(&self, line: &'l [u8]) -> std::borrow::Cow<'l, [u8]> {
        let mut code = match self.marker {
            Some(marker) => before_comment(line, marker, self.quotes),
            None => line,
        };
        if code.len() < line.len() || self.free_form {
            code = code.trim_ascii_end();
        }
        if self.free_form {
            code = code.trim_ascii_start();
        }
        std::borrow::Cow::Borrowed(code)
    }
}

/// `line` up to a trailing comment: `marker` outside quotes, after white space and before
/// white space or the end. A line whose quotes are still open at the marker, or that
/// holds a `'` where `'` is not followed, is returned whole.
fn before_comment<'l>(line: &'l [u8], marker: &[u8], quotes: &[u8]) -> &'l [u8] {
    let mut open: Option<u8> = None;
    let mut index = 0;
    while index < line.len() {
        let byte = line[index];
        match open {
            Some(quote) => {
                if byte == b'\\' {
                    index += 1;
                } else if byte == quote {
                    open = None;
                }
            }
            None if quotes.contains(&byte) => open = Some(byte),
            None if byte == b'\'' => return line,
            None if line[index..].starts_with(marker)
                && index > 0
                && line[index - 1].is_ascii_whitespace()
                && line
                    .get(index + marker.len())
                    .is_none_or(u8::is_ascii_whitespace)
                && !line[..index].trim_ascii().is_empty() =>
            {
                return &line[..index];
            }
            None => {}
        }
        index += 1;
    }
    line
}

/// A Python linter directive that is the whole of a trailing comment.
static DIRECTIVE: std::sync::LazyLock<Option<regex::bytes::Regex>> = std::sync::LazyLock::new(
    || {
        regex::bytes::Regex::new(
        r"^#\s*(?:noqa(?::\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?|type:\s*ignore(?:\[[\w\-, ]*\])?|pragma:\s*no\s+(?:cover|branch)|pylint:\s*disable=[\w\-, ]+|fmt:\s*skip|pyright:\s*ignore(?:\[[\w\-, ]*\])?)\s*$",
    )
    .ok()
    },
);

/// `line` without a trailing linter directive (`  # noqa: C901`) and the white space
/// before it; any other line as it is. The directive must start at a `#` outside the
/// line's quotes, after code and white space, and be all that follows.
fn without_directive(line: &[u8]) -> &[u8] {
    let code = before_comment(line, b"#", b"\"'");
    if code.len() == line.len() {
        return line;
    }
    let comment = line[code.len()..].trim_ascii();
    match DIRECTIVE.as_ref() {
        Some(directive) if directive.is_match(comment) => code.trim_ascii_end(),
        _ => line,
    }
}

/// The line with each `${NAME}` of a plain name spelled `$NAME` where no name character
/// follows it (`$$` is compose's escaped dollar and is kept as it is).
fn braced_names(line: &[u8]) -> Vec<u8> {
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let mut out = Vec::with_capacity(line.len());
    let mut index = 0;
    while index < line.len() {
        if line[index..].starts_with(b"$$") {
            out.extend_from_slice(b"$$");
            index += 2;
            continue;
        }
        if line[index..].starts_with(b"${") {
            let name = &line[index + 2..];
            let length = name.iter().take_while(|b| is_name(b)).count();
            let plain = length > 0 && !name[0].is_ascii_digit();
            if plain
                && name.get(length) == Some(&b'}')
                && !name.get(length + 1).is_some_and(is_name)
            {
                out.push(b'$');
                out.extend_from_slice(&name[..length]);
                index += 2 + length + 1;
                continue;
            }
        }
        out.push(line[index]);
        index += 1;
    }
    out
}

/// A Dockerfile line with the legacy `ENV NAME value` of a one-word value
/// spelled `ENV NAME=value`; any other line as it is.
fn key_value_env(line: &[u8]) -> Vec<u8> {
    let trimmed = line.trim_ascii();
    let words: Vec<&[u8]> = trimmed
        .split(u8::is_ascii_whitespace)
        .filter(|word| !word.is_empty())
        .collect();
    if let [instruction, name, value] = words[..] {
        let instruction = instruction.to_ascii_uppercase();
        let plain_name = name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
            && !name[0].is_ascii_digit();
        if instruction == b"ENV" && plain_name {
            return [&instruction[..], b" ", name, b"=", value].concat();
        }
    }
    if let Some(instruction) = words.first() {
        let upper = instruction.to_ascii_uppercase();
        if upper == b"ENV" || upper == b"ARG" {
            let rest = trimmed[instruction.len()..].trim_ascii_start();
            return [&upper[..], b" ", rest].concat();
        }
    }
    line.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(path: &str, old: &str, new: &str) -> bool {
        Rewrites::for_path(path, CommentStyle::for_path(path))
            .same_code(old.as_bytes(), new.as_bytes())
    }

    #[test]
    fn a_trailing_comment_is_not_code() {
        let prisma_old = "  qstashMessageId String?  @unique // claimed by the broadcast";
        assert!(same(
            "prisma/schema/campaign.prisma",
            prisma_old,
            "  qstashMessageId String?  @unique"
        ));
        assert!(same(
            "api/service.proto",
            "  string name = 1; // why",
            "    string name = 1;"
        ));
        // Where a line may lie inside a multi-line string (a Python `"""`, a template
        // literal, a SQL string, a YAML block scalar, a heredoc), what follows a marker
        // may be its text, or code interpolated into it: the line is compared whole.
        assert!(!same(
            "app/models.py",
            "        UPDATE t SET f = f # 4",
            "        UPDATE t SET f = f # 12"
        ));
        assert!(!same(
            "src/app.ts",
            "  export A=1 // ${process.env.A}",
            "  export A=1 // ${process.env.B}"
        ));
        assert!(!same("src/app.ts", "  a = f(b);", "    a = f(b);"));
        assert!(!same("db/001.sql", "b -- c');", "b -- d');"));
        assert!(!same("deploy/job.yaml", "    run: x # a", "    run: x # b"));
        assert!(!same("src/h.c", "check(r); // a", "check(r); // a \\"));
        // The code around the comment changed, or the marker is inside a string, glued
        // to a word, or not a comment in that format.
        assert!(!same(
            "app/models.py",
            "    x = 1  # note",
            "    x = 2  # note"
        ));
        assert!(!same(
            "src/app.ts",
            r#"const u = "a // b";"#,
            r#"const u = "a // c";"#
        ));
        assert!(!same(
            "src/app.ts",
            "const u = 'http://a/x';",
            "const u = 'http://b/x';"
        ));
        assert!(!same(
            "src/app.ts",
            "url: http://a.org",
            "url: http://b.org"
        ));
        assert!(!same("app/style.py", "  color: #fff", "  color: #000"));
        assert!(!same("app.properties", "key=a # b", "key=a # c"));
        assert!(!same("Dockerfile", "ENV A=b # c", "ENV A=b # d"));
        assert!(!same(".env", "A=b # c", "A=b # d"));
        // A quote left open keeps the line whole.
        assert!(!same("db/schema.prisma", "s \"a // b", "s \"a // c"));
    }

    #[test]
    fn a_python_linter_directive_is_not_code() {
        let path = "lnbits/core/crud/payments.py";
        assert!(same(
            path,
            "async def get_payments_paginated(",
            "async def get_payments_paginated(  # noqa: C901"
        ));
        assert!(same(
            path,
            "    x = f(a)  # type: ignore",
            "    x = f(a)  # type: ignore[arg-type]"
        ));
        assert!(same(path, "    y = g()  # pragma: no cover", "    y = g()"));
        assert!(same(
            "app/views.pyi",
            "def h(): ...",
            "def h(): ...  # pylint: disable=invalid-name"
        ));
        // A free comment, a directive followed by more, a marker inside quotes, code
        // changed beside the directive, indentation changed: compared whole.
        assert!(!same(path, "    f = f", "    f = f # 4"));
        assert!(!same(path, "    f = f", "    f = f  # noqa: C901 and more"));
        assert!(!same(path, "    s = \"a\"", "    s = \"a  # noqa\""));
        assert!(!same(path, "    x = 1", "    x = 2  # noqa: E501"));
        assert!(!same(path, "    x = 1", "x = 1  # noqa"));
        assert!(!same(
            "src/app.ts",
            "f(a);",
            "f(a);  // eslint-disable-line"
        ));
        assert!(!same("deploy/run.sh", "a=1", "a=1  # noqa"));
        // A security scanner switched off for the line is a change.
        assert!(!same(
            path,
            "    run(cmd, shell=True)",
            "    run(cmd, shell=True)  # nosec B602"
        ));
        assert!(!same(path, "    h = md5(x)  # nosec", "    h = md5(x)"));
    }

    #[test]
    fn indentation_is_structure_where_it_is() {
        assert!(!same("app/views.py", "        return x", "    return x"));
        assert!(!same("deploy/values.yaml", "  key: v", "key: v"));
        assert!(!same("src/main.go", "\treturn x", "        return x"));
        assert!(same("db/schema.prisma", "\tid Int @id", "  id Int @id"));
        // Tokens in another order are another condition.
        assert!(!same("src/a.ts", "if (a && !b) {", "if (!a && b) {"));
    }

    #[test]
    fn a_format_s_equal_spellings_are_the_same_code() {
        let compose = "docker-compose.yml";
        assert!(same(
            compose,
            "      PASS: ${MONGODB_PASSWORD}",
            "      PASS: $MONGODB_PASSWORD"
        ));
        assert!(!same(compose, "      PASS: ${A}B", "      PASS: $AB"));
        assert!(!same(compose, "      PASS: ${A:-x}", "      PASS: $A"));
        assert!(!same(compose, "      PASS: $${A}", "      PASS: $$A"));
        assert!(!same("deploy/run.sh", "echo '${A}'", "echo '$A'"));
        assert!(same(
            "src/svc/Dockerfile",
            "ENV PORT \"8080\"",
            "ENV PORT=\"8080\""
        ));
        // `ARG A b` declares two arguments; `ARG A=b` gives one a default.
        assert!(!same("Dockerfile", "arg VERSION 1.2", "ARG VERSION=1.2"));
        assert!(same("Dockerfile", "arg  VERSION=1.2", "ARG VERSION=1.2"));
        assert!(!same("Dockerfile", "ENV PORT 8080", "ENV PORT=8081"));
        assert!(!same("Dockerfile", "ENV A b c", "ENV A=b c"));
        assert!(!same("Dockerfile", "ENV PORT 8080", "ENV HOST=8080"));
    }
}
