//! Comment lines, told apart by each language's comment syntax.
//!
//! The seed counts comments as low risk, so only credential rules read comment lines (a
//! secret in a comment is still a leaked secret); a doc comment that mentions
//! `process.env` or `@login_required` fires nothing. A line counts as a comment when,
//! after leading white space, it starts with its file's comment marker and holds nothing
//! else: a line of code followed by a comment is code, and so is a line of code after a
//! block comment that closes on it (`/* note */ const key = process.env.KEY`).

/// How a file's line comments start, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommentStyle {
    /// `//`, and `/*` or `*` lines of block comments: C, Rust, Go, JS/TS, Java, …
    Slash,
    /// `#`: Python, Ruby, shell, YAML, TOML, Dockerfile, …
    Hash,
    /// `--`: SQL.
    DoubleDash,
    /// `#` in env files, but a commented-out setting (`# SIGNUPS_ALLOWED=true`) is not a
    /// comment: an env template documents each variable's default that way, so changing
    /// it changes a setting the template offers.
    Env,
    /// Prose (Markdown, reStructuredText, AsciiDoc): every line is a comment. A page of
    /// docs in an `auth/` or `migrations/` folder sets nothing; only secrets count there.
    Prose,
    /// Unknown syntax: no line is a comment.
    None,
}

const SLASH: &[&str] = &[
    "rs", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "go", "java", "kt", "kts", "scala",
    "groovy", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "php", "dart", "proto", "prisma",
];
const HASH: &[&str] = &[
    "py",
    "pyi",
    "rb",
    "rake",
    "sh",
    "bash",
    "zsh",
    "yml",
    "yaml",
    "toml",
    "r",
    "pl",
    "ex",
    "exs",
    "tf",
    "properties",
    "conf",
    "cfg",
    "ini",
    "dockerfile",
];
const HASH_NAMES: &[&str] = &[
    "Dockerfile",
    "Containerfile",
    "Gemfile",
    "Rakefile",
    "Makefile",
];

impl CommentStyle {
    /// The style of the file at `path` (by extension, or by name for Dockerfiles and env
    /// files).
    pub fn for_path(path: &str) -> CommentStyle {
        let name = path.rsplit('/').next().unwrap_or(path);
        let extension = name
            .rsplit_once('.')
            .map(|(_, ext)| ext.to_ascii_lowercase());
        let is = |list: &[&str]| extension.as_deref().is_some_and(|ext| list.contains(&ext));
        if is(SLASH) {
            CommentStyle::Slash
        } else if is_env_file(name) && !is(HASH) {
            CommentStyle::Env
        } else if is(HASH) || HASH_NAMES.iter().any(|n| name.starts_with(n)) || name == ".envrc" {
            CommentStyle::Hash
        } else if is(&["sql"]) {
            CommentStyle::DoubleDash
        } else if is(&["md", "mdx", "markdown", "rst", "adoc", "asciidoc"]) {
            CommentStyle::Prose
        } else {
            CommentStyle::None
        }
    }

    /// Whether `line` is a comment line in this style.
    pub fn is_comment(self, line: &[u8]) -> bool {
        let start = line
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(line.len());
        let line = &line[start..];
        match self {
            CommentStyle::Slash if line.starts_with(b"//") => true,
            // A block comment that closes on the line is a comment line only when
            // nothing but another comment follows it: `/* billing */ const k = …` is code.
            CommentStyle::Slash if line.starts_with(b"/*") || line.starts_with(b"*") => {
                match memchr::memmem::find(&line[1..], b"*/") {
                    Some(end) => self.is_comment(&line[end + 3..]) || is_blank(&line[end + 3..]),
                    None => true,
                }
            }
            CommentStyle::Slash => false,
            CommentStyle::Hash => line.starts_with(b"#"),
            CommentStyle::DoubleDash => line.starts_with(b"--"),
            CommentStyle::Env => line.starts_with(b"#") && !is_setting(&line[1..]),
            CommentStyle::Prose => true,
            CommentStyle::None => false,
        }
    }
}

/// Whether `name` is an env file or its template: `.env`, `.env.example`, `prod.env`,
/// `docker.env.sample`, `env.template` (not `.envrc`, a shell script).
fn is_env_file(name: &str) -> bool {
    (name.starts_with(".env") && name != ".envrc")
        || name.starts_with("env.")
        || name.ends_with(".env")
        || name.contains(".env.")
}

/// Whether a commented env line is a setting: `NAME=value` after the `#` marks.
fn is_setting(text: &[u8]) -> bool {
    let text = text.trim_ascii_start();
    let text = text.strip_prefix(b"export ").unwrap_or(text);
    let name = text
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    name > 0 && !text[0].is_ascii_digit() && text[name..].trim_ascii_start().starts_with(b"=")
}

fn is_blank(text: &[u8]) -> bool {
    text.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_lines_follow_the_file_s_syntax() {
        let rust = CommentStyle::for_path("src/lib.rs");
        assert!(rust.is_comment(b"    /// env::var(\"X\")") && rust.is_comment(b" * jsdoc"));
        assert!(!rust.is_comment(b"#[cfg(test)]") && !rust.is_comment(b"let x = 1; // y"));
        let ts = CommentStyle::for_path("src/config.ts");
        assert!(!ts.is_comment(b"/* billing */ export const k = process.env.K;"));
        assert!(!ts.is_comment(b" * end */ app.post('/admin', h);"));
        assert!(ts.is_comment(b"/* a */ /* b */") && ts.is_comment(b"/* a */ // b"));
        assert!(ts.is_comment(b"/* opens here") && ts.is_comment(b"*/"));
        let python = CommentStyle::for_path("app/settings.py");
        assert!(
            python.is_comment(b"  # os.environ['X']") && !python.is_comment(b"@login_required")
        );
        assert_eq!(
            CommentStyle::for_path("deploy/Dockerfile.prod"),
            CommentStyle::Hash
        );
        // An env file's comments document its variables: every changed line counts.
        let template = CommentStyle::for_path("deploy/.env.template");
        assert!(!template.is_comment(b"# SIGNUPS_ALLOWED=true"));
        assert!(template.is_comment(b"## Allow new users to sign up"));
        assert!(template.is_comment(b"# see https://example.org/a=b"));
        assert_eq!(
            CommentStyle::for_path("docker.env.sample"),
            CommentStyle::Env
        );
        assert_eq!(CommentStyle::for_path(".envrc"), CommentStyle::Hash);
        assert!(CommentStyle::for_path("db/001.sql").is_comment(b"-- CREATE POLICY p"));
        assert!(CommentStyle::for_path("docs/auth/setup.md").is_comment(b"Set `AUTH_URL`."));
        assert!(!CommentStyle::for_path("README").is_comment(b"# Title"));
    }
}
