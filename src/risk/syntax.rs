//! Code, strings and comments, told apart by each language's tree-sitter grammar.
//!
//! A line rule reads words: `authenticat`, `csrf`, `os.environ`. In
//! `.describe('The authentication methods required to access the envelope.')` or a
//! docstring that says "reads `os.environ`", the word is text, not code, and changes no
//! check and reads no variable. A rule marked `in_code` fires only when its match starts
//! in code: the file is parsed with its language's grammar and the match's position must
//! lie in no string or comment node (an interpolation inside a string, `${token}`,
//! `#{ENV["X"]}`, `{$config->key}` or `f"{os.environ['X']}"`, is code again).
//!
//! Grammars: Python, JavaScript, TypeScript (and TSX), Go, Rust, Ruby, PHP, Java and
//! Kotlin. The node kinds below are the union of theirs: comments and character literals
//! are text wherever they stand; in a string (raw strings, heredocs, text blocks,
//! templates, regular expressions), the child that holds the point decides: a piece of
//! the text or a quote is text, any other named child (an interpolation, or PHP's
//! variables in double quotes) is code.
//!
//! The fast path holds: the regex is the prefilter, run on every changed line as before;
//! only a file in which an `in_code` rule matched a changed line is read again and
//! parsed, once per side, to confirm its candidates, and only when the answer can change
//! the class (the other findings have not already reached the rule's class). Files of a
//! language without a grammar here keep the line rule's answer.
//!
//! A Rust file holds its own unit tests: a match inside an item marked `#[cfg(test)]` or
//! `#[test]` (and the async runtimes' test attributes) is not confirmed for a rule whose
//! trigger reads no test files, as a file under `tests/` is not read by it.

use super::finding::Finding;
use super::matcher::Matcher;
use crate::git::{GitError, Head, LineSide, Repo, RepoPath};
use crate::policy::RiskClass;
use std::collections::HashMap;
use tree_sitter::{Language, Node, Parser, Point, Tree};

/// How many matches of one `in_code` rule in one file wait for confirmation: the rule
/// reads no further line of the file, and fires when none of those is in code.
pub(crate) const CANDIDATES_PER_FILE: usize = 8;

/// A line an `in_code` rule matched, to confirm with the file's grammar.
#[derive(Debug)]
pub(crate) struct InCodeCandidate {
    /// The file's path in the head, and in the base when it was renamed.
    pub path: RepoPath,
    pub old_path: Option<RepoPath>,
    /// The line rule (an index into the matcher's line rules).
    pub rule: usize,
    pub side: LineSide,
    pub number: usize,
    /// Where each match starts in the line, in bytes.
    pub columns: Vec<usize>,
    pub excerpt: String,
}

/// The findings of the candidates whose match starts in code: for each file and rule,
/// the first. Files are parsed only where the answer can change the class: a candidate
/// whose trigger's class is not above `risk` (what the other findings reached) keeps the
/// line rule's answer unparsed, and so does a file that cannot be read or parsed.
pub(crate) fn confirmed_findings(
    repo: &Repo,
    (base, head): (&Head, &Head),
    matcher: &Matcher,
    candidates: &[InCodeCandidate],
    changed: &[ChangedLines],
    risk: RiskClass,
) -> Result<Vec<Finding>, GitError> {
    let mut trees: Trees = HashMap::new();
    let mut done: Vec<(&RepoPath, usize)> = Vec::new();
    let mut found = Vec::new();
    for candidate in candidates {
        if done.contains(&(&candidate.path, candidate.rule)) {
            continue;
        }
        let rule = &matcher.line_rules[candidate.rule];
        let trigger = &matcher.triggers[rule.trigger];
        if trigger.class <= risk {
            done.push((&candidate.path, candidate.rule));
            found.push(finding(matcher, candidate));
            continue;
        }
        let (at, path) = match candidate.side {
            LineSide::Added => (head, &candidate.path),
            LineSide::Removed => (base, candidate.old_path.as_ref().unwrap_or(&candidate.path)),
        };
        let tree = match trees.get(&(candidate.side, path)) {
            Some(tree) => tree,
            None => {
                let text = path.to_string_lossy();
                let parsed = match repo.read_file_at(at, &text)? {
                    Some(bytes) => Grammar::for_path(&text).and_then(|g| Parsed::new(g, &bytes)),
                    None => None,
                };
                trees.entry((candidate.side, path)).or_insert(parsed)
            }
        };
        // A match counts where it starts in code, and (for a rule that reads no test
        // files) outside the file's test items: by row and column, as code sharing a row
        // with a test attribute or a test module's closing brace is the program's.
        let counts = |parsed: &Parsed| {
            candidate.columns.iter().any(|&column| {
                is_code(&parsed.tree, candidate.number, column)
                    && (rule.reads_test_files || !parsed.in_test_item(candidate.number, column))
            })
        };
        if tree.as_ref().is_some_and(|parsed| !counts(parsed)) {
            continue;
        }
        done.push((&candidate.path, candidate.rule));
        found.push(finding(matcher, candidate));
    }
    // A rule that matched [`CANDIDATES_PER_FILE`] lines of a file stopped reading it:
    // the lines it did not read are not known to be text. When none of those it read is
    // in code, every changed line of code of the file is read now, by the parsed file
    // (`changed` knows them where a scope rule reads the file); where they are not known,
    // or the file cannot be parsed, the rule fires on the first (fail closed). Eight
    // strings that name a guard above the guard's removal must not hide it.
    let mut counts: HashMap<(&RepoPath, usize), usize> = HashMap::new();
    for candidate in candidates {
        *counts.entry((&candidate.path, candidate.rule)).or_default() += 1;
    }
    for candidate in candidates {
        let key = (&candidate.path, candidate.rule);
        if counts.get(&key).is_none_or(|&n| n < CANDIDATES_PER_FILE) || done.contains(&key) {
            continue;
        }
        done.push(key);
        let lines = changed.iter().find(|(path, _, _)| *path == &candidate.path);
        let Some(&(_, added, removed)) = lines else {
            found.push(finding(matcher, candidate));
            continue;
        };
        let lines = (added, removed);
        if let Some(fired) = reread(repo, (base, head), matcher, candidate, lines, &mut trees)? {
            found.push(fired);
        }
    }
    Ok(found)
}

/// A file's changed lines of code: its path in the head, its added lines (head numbers)
/// and its removed lines (base numbers).
pub(crate) type ChangedLines<'c> = (&'c RepoPath, &'c [usize], &'c [usize]);

/// The trees of the files parsed so far, by side and path (`None`: not parsed).
type Trees<'p> = HashMap<(LineSide, &'p RepoPath), Option<Parsed>>;

/// Reads every changed line of code of the file of `candidate` (`lines`: added, then
/// removed) with its rule: the finding of the first whose match starts in code (outside
/// test items, for a rule that reads no test files); none when no line's does. A Python
/// line outside ASCII counts (its folded identifiers are not read here), and a side that
/// cannot be parsed fires on the candidate (fail closed).
fn reread<'p>(
    repo: &Repo,
    (base, head): (&Head, &Head),
    matcher: &Matcher,
    candidate: &'p InCodeCandidate,
    (added, removed): (&[usize], &[usize]),
    trees: &mut Trees<'p>,
) -> Result<Option<Finding>, GitError> {
    let rule = &matcher.line_rules[candidate.rule];
    let old_path = candidate.old_path.as_ref().unwrap_or(&candidate.path);
    let sides = [
        (LineSide::Added, head, &candidate.path, added),
        (LineSide::Removed, base, old_path, removed),
    ];
    for (side, at, path, numbers) in sides {
        if numbers.is_empty() || (side == LineSide::Removed && !rule.reads_removed()) {
            continue;
        }
        let text = path.to_string_lossy();
        let Some(bytes) = repo.read_file_at(at, &text)? else {
            continue;
        };
        let parsed = trees
            .entry((side, path))
            .or_insert_with(|| Grammar::for_path(&text).and_then(|g| Parsed::new(g, &bytes)));
        let Some(parsed) = parsed.as_ref().filter(|_| rule.compiles()) else {
            return Ok(Some(finding(matcher, candidate)));
        };
        let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        for &number in numbers {
            let Some(line) = number.checked_sub(1).and_then(|index| lines.get(index)) else {
                continue;
            };
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let in_code = |column: usize| {
                is_code(&parsed.tree, number, column)
                    && (rule.reads_test_files || !parsed.in_test_item(number, column))
            };
            let folds = !line.is_ascii() && parsed.grammar == Grammar::Python;
            let fires = folds
                || match rule.match_starts(line) {
                    Some(starts) => starts.into_iter().any(in_code),
                    None => return Ok(Some(finding(matcher, candidate))),
                };
            if fires {
                return Ok(Some(Finding::of_line(
                    matcher,
                    rule,
                    &candidate.path,
                    (number, side),
                    matcher.excerpt(line),
                )));
            }
        }
    }
    Ok(None)
}

/// A file parsed to confirm candidates: its tree and, in Rust, the lines of its test
/// items.
struct Parsed {
    tree: Tree,
    grammar: Grammar,
    /// Where each item marked `#[cfg(test)]`, `#[test]`, `#[tokio::test]` or
    /// `#[async_std::test]` stands, from its attribute's first byte to its last (Rust's
    /// unit tests live in the file they test): a trigger that does not read test files
    /// does not read these either.
    test_items: TestItems,
}

/// Spans of a file, each from a (row, byte column) point to the point past its end.
type TestItems = Vec<((usize, usize), (usize, usize))>;

impl Parsed {
    fn new(grammar: Grammar, text: &[u8]) -> Option<Parsed> {
        let tree = grammar.parse(text)?;
        let test_items = match grammar {
            Grammar::Rust => rust_test_items(&tree, text),
            _ => Vec::new(),
        };
        Some(Parsed {
            tree,
            grammar,
            test_items,
        })
    }

    /// Whether byte `column` of line `number` (1-based) lies in a test item.
    fn in_test_item(&self, number: usize, column: usize) -> bool {
        let at = (number.saturating_sub(1), column);
        self.test_items
            .iter()
            .any(|&(start, end)| start <= at && at < end)
    }
}

/// Where the Rust items a test attribute marks stand, as (row, byte column) points: from
/// each attribute's start to the end of the item after it (past further attributes and
/// comments). A syntax error around the attribute counts nothing (the lines stay read:
/// fail closed).
fn rust_test_items(tree: &Tree, text: &[u8]) -> TestItems {
    const TEST_ATTRIBUTES: &[&[u8]] = &[b"cfg(test)", b"test", b"tokio::test", b"async_std::test"];
    let mut items = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() != "attribute_item" || child.has_error() {
                if child.child_count() > 0 {
                    stack.push(child);
                }
                continue;
            }
            let inner: Vec<u8> = text
                .get(child.byte_range())
                .unwrap_or_default()
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            let is_test = inner
                .strip_prefix(b"#[")
                .and_then(|rest| rest.strip_suffix(b"]"))
                .is_some_and(|attribute| TEST_ATTRIBUTES.contains(&attribute));
            if !is_test {
                continue;
            }
            let mut item = child.next_named_sibling();
            while let Some(next) = item.filter(|n| {
                matches!(
                    n.kind(),
                    "attribute_item" | "line_comment" | "block_comment"
                )
            }) {
                item = next.next_named_sibling();
            }
            if let Some(item) = item.filter(|n| !n.has_error()) {
                let (start, end) = (child.start_position(), item.end_position());
                items.push(((start.row, start.column), (end.row, end.column)));
            }
        }
    }
    items
}

/// The finding a candidate makes.
fn finding(matcher: &Matcher, candidate: &InCodeCandidate) -> Finding {
    Finding::of_line(
        matcher,
        &matcher.line_rules[candidate.rule],
        &candidate.path,
        (candidate.number, candidate.side),
        candidate.excerpt.clone(),
    )
}

/// A language this module can parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grammar {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Rust,
    Ruby,
    Php,
    Java,
    Kotlin,
}

/// Node kinds that are text wherever they stand: comments (doc comments too), character
/// literals, JSX text, the inline HTML of a PHP file and the tags that open and close
/// heredocs.
const TEXT_KINDS: &[&str] = &[
    "comment",
    "line_comment",
    "block_comment",
    "html_comment",
    "jsx_text",
    "rune_literal",
    "char_literal",
    "character_literal",
    "character",
    "text",
    "heredoc_beginning",
    "heredoc_start",
    "heredoc_end",
];

/// Node kinds that enclose text, with code inside them only where an interpolation
/// (a named child that is not a piece of the text) stands: strings, raw strings,
/// template strings, heredoc and nowdoc bodies, text blocks, regular expressions, Ruby's
/// `%w[]` words, quoted symbols and backtick commands.
const STRING_KINDS: &[&str] = &[
    "string",
    "template_string",
    "regex",
    "interpreted_string_literal",
    "raw_string_literal",
    "string_literal",
    "multiline_string_literal",
    "encapsed_string",
    "heredoc_body",
    "nowdoc_body",
    "bare_string",
    "bare_symbol",
    "delimited_symbol",
    "subshell",
    "shell_command_expression",
];

/// The named children of a string that are pieces of its text; any other named child
/// (`interpolation`, `template_substitution`, PHP's `{$user->name}`) is code.
const TEXT_PIECE_KINDS: &[&str] = &[
    "string_start",
    "string_content",
    "string_end",
    "string_fragment",
    "multiline_string_fragment",
    "interpreted_string_literal_content",
    "raw_string_literal_content",
    "escape_sequence",
    "heredoc_content",
    "heredoc_end",
    "nowdoc_string",
    "regex_pattern",
    "regex_flags",
];

impl Grammar {
    /// The grammar for the file at `path`, by extension (by name for `Gemfile` and
    /// `Rakefile`). Blade templates (`.blade.php`) have none: their directives stand in
    /// what PHP's grammar reads as inline HTML.
    pub fn for_path(path: &str) -> Option<Grammar> {
        let name = path.rsplit('/').next().unwrap_or(path);
        if matches!(name, "Gemfile" | "Rakefile") {
            return Some(Grammar::Ruby);
        }
        let (stem, extension) = name.rsplit_once('.')?;
        match extension.to_ascii_lowercase().as_str() {
            "py" | "pyi" => Some(Grammar::Python),
            "js" | "jsx" | "mjs" | "cjs" => Some(Grammar::JavaScript),
            "ts" | "mts" | "cts" => Some(Grammar::TypeScript),
            "tsx" => Some(Grammar::Tsx),
            "go" => Some(Grammar::Go),
            "rs" => Some(Grammar::Rust),
            "rb" | "rake" | "gemspec" | "ru" => Some(Grammar::Ruby),
            "php" if !stem.to_ascii_lowercase().ends_with(".blade") => Some(Grammar::Php),
            "java" => Some(Grammar::Java),
            "kt" | "kts" => Some(Grammar::Kotlin),
            _ => None,
        }
    }

    fn language(self) -> Language {
        match self {
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Grammar::Go => tree_sitter_go::LANGUAGE.into(),
            Grammar::Rust => tree_sitter_rust::LANGUAGE.into(),
            Grammar::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Grammar::Php => tree_sitter_php::LANGUAGE_PHP.into(),
            Grammar::Java => tree_sitter_java::LANGUAGE.into(),
            Grammar::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
        }
    }

    /// Parses `text`; `None` when the grammar cannot be loaded or the parse is cut short
    /// (then the caller keeps the line rule's answer).
    pub fn parse(self, text: &[u8]) -> Option<Tree> {
        let mut parser = Parser::new();
        parser.set_language(&self.language()).ok()?;
        parser.parse(text, None)
    }
}

/// Whether the byte at `column` (0-based) of line `number` (1-based) is code: in no
/// comment, and in no string unless inside one of its interpolations. Walks up from the
/// smallest node there: a comment is text; at the first string around the point, the
/// string's child that holds it decides (a piece of its text, or a quote, is text; an
/// interpolation is code, and so on outwards only through code).
pub(crate) fn is_code(tree: &Tree, number: usize, column: usize) -> bool {
    let Some(row) = number.checked_sub(1) else {
        return true;
    };
    let point = Point::new(row, column);
    let smallest = tree.root_node().descendant_for_point_range(point, point);
    // Where the grammar met a syntax error it guessed: code it could not read may stand
    // inside what it took for a string or a comment. A match there stays code.
    if std::iter::successors(smallest, Node::parent).any(|n| n.is_error() || n.is_missing()) {
        return true;
    }
    let mut node = smallest;
    let mut child: Option<Node> = None;
    while let Some(current) = node {
        let kind = current.kind();
        if TEXT_KINDS.contains(&kind) || STRING_KINDS.contains(&kind) {
            if current.has_error() {
                return true;
            }
            if TEXT_KINDS.contains(&kind) {
                return false;
            }
            return child.is_some_and(|c| c.is_named() && !TEXT_PIECE_KINDS.contains(&c.kind()));
        }
        child = Some(current);
        node = current.parent();
    }
    true
}

/// Whether each of `lines` (1-based) of the file at `path` in `at` lies whole in one
/// comment node of the file's grammar, from its first to its last non-blank byte: a line
/// the one-line comment test took for code inside a block comment (`|-----` between `/*`
/// and `*/`). A file without a grammar, one that cannot be read or parsed, a syntax error
/// around a line, or a line past the file's end: false (the lines stay code).
pub(crate) fn lines_in_comments(
    repo: &Repo,
    at: &Head,
    path: &RepoPath,
    lines: &[usize],
) -> Result<bool, GitError> {
    let text = path.to_string_lossy();
    let Some(grammar) = Grammar::for_path(&text) else {
        return Ok(false);
    };
    let Some(bytes) = repo.read_file_at(at, &text)? else {
        return Ok(false);
    };
    let Some(tree) = grammar.parse(&bytes) else {
        return Ok(false);
    };
    let rows: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    Ok(lines.iter().all(|&number| {
        let Some(row) = number.checked_sub(1) else {
            return false;
        };
        let Some(line) = rows.get(row) else {
            return false;
        };
        let first = line.iter().position(|b| !b.is_ascii_whitespace());
        let last = line.iter().rposition(|b| !b.is_ascii_whitespace());
        let (Some(first), Some(last)) = (first, last) else {
            return true;
        };
        let (start, end) = (Point::new(row, first), Point::new(row, last));
        let smallest = tree.root_node().descendant_for_point_range(start, start);
        let mut ancestors = std::iter::successors(smallest, Node::parent);
        if ancestors
            .clone()
            .any(|n| n.is_error() || n.is_missing() || n.has_error())
        {
            return false;
        }
        ancestors
            .find(|n| COMMENT_KINDS.contains(&n.kind()))
            .is_some_and(|comment| {
                comment.start_position() <= start && comment.end_position() > end
            })
    }))
}

/// The node kinds of comments.
const COMMENT_KINDS: &[&str] = &["comment", "line_comment", "block_comment", "html_comment"];

#[cfg(test)]
mod tests {
    use super::*;

    fn code_at(path: &str, text: &str, number: usize, word: &str) -> bool {
        let grammar = Grammar::for_path(path).expect("a grammar");
        let tree = grammar.parse(text.as_bytes()).expect("parses");
        let line = text.lines().nth(number - 1).expect("the line");
        is_code(&tree, number, line.find(word).expect("the word"))
    }

    #[test]
    fn words_in_strings_and_comments_are_text_and_interpolations_are_code() {
        let ts = "const a = z.string().describe('The authentication methods');\nconst b = authenticate(user); // authentication\nconst c = `${authenticate(u)} authentication`;\n";
        assert!(!code_at("a.ts", ts, 1, "authentication"));
        assert!(code_at("a.ts", ts, 2, "authenticate"));
        assert!(!code_at("a.ts", ts, 2, "authentication"));
        assert!(code_at("a.ts", ts, 3, "authenticate"));
        assert!(!code_at("a.ts", ts, 3, "authentication"));
        let py = "def port():\n    \"\"\"Reads os.environ['PORT'].\"\"\"\n    return os.environ['PORT'] + f\"{os.getenv('X')}\"\n";
        assert!(!code_at("a.py", py, 2, "os.environ"));
        assert!(code_at("a.py", py, 3, "os.environ"));
        assert!(code_at("a.py", py, 3, "os.getenv"));
        let tsx = "export const A = () => <p title=\"csrf\">{csrfToken}</p>;\n";
        assert!(code_at("a.tsx", tsx, 1, "csrfToken"));
    }

    /// One case per line: `(path, source, line, word, is code)`.
    type Case = (&'static str, &'static str, usize, &'static str, bool);

    fn check(cases: &[Case]) {
        for &(path, text, number, word, expected) in cases {
            assert_eq!(
                code_at(path, text, number, word),
                expected,
                "{path} line {number}: `{word}` code? in\n{text}"
            );
        }
    }

    const GO: &str = "package config\n\n// Port reads os.Getenv(\"PORT\").\nfunc Port() string {\n\tdoc := `os.Getenv(\"X\") in a raw string`\n\tmsg := \"call os.Getenv first\" /* os.Getenv */\n\treturn os.Getenv(\"PORT\") + doc + msg + string('o')\n}\n";

    #[test]
    fn go_strings_raw_strings_and_comments_are_text() {
        check(&[
            ("cmd/config.go", GO, 3, "os.Getenv", false),
            ("cmd/config.go", GO, 5, "os.Getenv", false),
            ("cmd/config.go", GO, 6, "os.Getenv", false),
            ("cmd/config.go", GO, 6, "/* os", false),
            ("cmd/config.go", GO, 7, "os.Getenv", true),
            ("cmd/config.go", GO, 7, "'o'", false),
        ]);
    }

    const RUST: &str = "/// Reads `env::var(\"PORT\")`.\n//! env::var in an inner doc\nfn port() -> String {\n    let raw = r#\"env::var(\"X\")\"#;\n    /* env::var */ let msg = \"set env::var\";\n    format!(\"{}{raw}{msg}\", env::var(\"PORT\").unwrap_or_default())\n}\n";

    #[test]
    fn rust_strings_raw_strings_and_doc_comments_are_text() {
        check(&[
            ("src/config.rs", RUST, 1, "env::var", false),
            ("src/config.rs", RUST, 2, "env::var", false),
            ("src/config.rs", RUST, 4, "env::var", false),
            ("src/config.rs", RUST, 5, "env::var", false),
            ("src/config.rs", RUST, 5, "let msg", true),
            ("src/config.rs", RUST, 6, "env::var", true),
        ]);
    }

    const RUBY: &str = "# Reads ENV[\"PORT\"]\nclass Port\n  HELP = 'set ENV.fetch first'\n  SQL = <<~SQL\n    ENV[#{ENV.fetch(\"TABLE\")}]\n  SQL\n  WORDS = %w[ENV.fetch authenticate]\n  def port = \"#{ENV[\"PORT\"]} ENV[\"X\"]\" + :authenticate.to_s\nend\n=begin\nENV.fetch in a block comment\n=end\n";

    #[test]
    fn ruby_strings_heredocs_and_comments_are_text_and_interpolations_are_code() {
        check(&[
            ("app/port.rb", RUBY, 1, "ENV", false),
            ("app/port.rb", RUBY, 3, "ENV", false),
            ("app/port.rb", RUBY, 5, "ENV[", false),
            ("app/port.rb", RUBY, 5, "ENV.fetch", true),
            ("app/port.rb", RUBY, 7, "ENV", false),
            ("app/port.rb", RUBY, 7, "authenticate", false),
            ("app/port.rb", RUBY, 8, "ENV[\"PORT", true),
            ("app/port.rb", RUBY, 8, "ENV[\"X", false),
            ("app/port.rb", RUBY, 8, "authenticate", true),
            ("app/port.rb", RUBY, 11, "ENV", false),
            (
                "Rakefile",
                "task(:x) { ENV['X'] } # ENV['Y']\n",
                1,
                "ENV['X",
                true,
            ),
            (
                "Rakefile",
                "task(:x) { ENV['X'] } # ENV['Y']\n",
                1,
                "ENV['Y",
                false,
            ),
        ]);
    }

    #[test]
    fn ruby_regexes_commands_and_word_lists_are_text_around_their_interpolations() {
        let ruby = "a = /ENV\\[#{ENV['A']}/ + `ENV[X] #{ENV['B']}` + %i[ENV]\n";
        check(&[
            ("app/x.rb", ruby, 1, "ENV\\[", false),
            ("app/x.rb", ruby, 1, "ENV['A", true),
            ("app/x.rb", ruby, 1, "ENV[X", false),
            ("app/x.rb", ruby, 1, "ENV['B", true),
            ("app/x.rb", ruby, 1, "ENV]", false),
        ]);
    }

    #[test]
    fn php_variables_in_double_quotes_are_code() {
        let php = "<?php $a = \"Bearer $token {$cfg['k']}\";\n";
        check(&[
            ("app/a.php", php, 1, "token", true),
            ("app/a.php", php, 1, "cfg", true),
            ("app/a.php", php, 1, "Bearer", false),
        ]);
    }

    const PHP: &str = "<p>Set getenv('X') here</p>\n<?php\n// getenv('PORT')\n$a = 'getenv(\"X\")' . \"{$user->getenv('X')} getenv\";\n$b = <<<EOT\n  getenv {$config->getenv('Y')}\n  EOT;\n$c = <<<'EOT'\n  getenv('Z')\n  EOT;\nreturn getenv('PORT') ?: $_ENV['PORT']; # getenv\n";

    #[test]
    fn php_strings_heredocs_nowdocs_html_and_comments_are_text_and_interpolations_are_code() {
        check(&[
            ("app/port.php", PHP, 1, "getenv", false),
            ("app/port.php", PHP, 3, "getenv", false),
            ("app/port.php", PHP, 4, "getenv(\"", false),
            ("app/port.php", PHP, 4, "getenv('X')}", true),
            ("app/port.php", PHP, 4, "getenv\";", false),
            ("app/port.php", PHP, 6, "getenv {", false),
            ("app/port.php", PHP, 6, "getenv('Y", true),
            ("app/port.php", PHP, 9, "getenv", false),
            ("app/port.php", PHP, 11, "getenv('PORT", true),
            ("app/port.php", PHP, 11, "$_ENV", true),
            ("app/port.php", PHP, 11, "# getenv", false),
        ]);
    }

    const JAVA: &str = "/** Reads System.getenv(\"PORT\"). */\nclass Port {\n  // System.getenv\n  String help = \"call System.getenv\";\n  String block = \"\"\"\n      System.getenv(\"X\")\n      \"\"\";\n  @Value(\"${PORT}\") String port = System.getenv(\"PORT\");\n}\n";

    #[test]
    fn java_strings_text_blocks_and_comments_are_text() {
        check(&[
            ("src/Port.java", JAVA, 1, "System", false),
            ("src/Port.java", JAVA, 3, "System", false),
            ("src/Port.java", JAVA, 4, "System", false),
            ("src/Port.java", JAVA, 6, "System", false),
            ("src/Port.java", JAVA, 8, "@Value", true),
            ("src/Port.java", JAVA, 8, "${PORT}", false),
            ("src/Port.java", JAVA, 8, "System", true),
        ]);
    }

    const KOTLIN: &str = "/* System.getenv */\nclass Port {\n    // System.getenv(\"X\")\n    val help = \"System.getenv ${System.getenv(\"HOME\")} $user\"\n    val raw = \"\"\"System.getenv(\"X\") ${System.getenv(\"Y\")}\"\"\"\n    @Value(\"\\${PORT}\") val port: String = System.getenv(\"PORT\")\n}\n";

    #[test]
    fn kotlin_strings_raw_strings_and_comments_are_text_and_templates_are_code() {
        check(&[
            ("src/Port.kt", KOTLIN, 1, "System", false),
            ("src/Port.kt", KOTLIN, 3, "System", false),
            ("src/Port.kt", KOTLIN, 4, "System.getenv $", false),
            ("src/Port.kt", KOTLIN, 4, "System.getenv(\"HOME", true),
            // The grammar reads a short template (`$user`) as text: a name, never a call.
            ("src/Port.kt", KOTLIN, 4, "user", false),
            ("src/Port.kt", KOTLIN, 5, "System.getenv(\"X", false),
            ("src/Port.kt", KOTLIN, 5, "System.getenv(\"Y", true),
            ("src/Port.kt", KOTLIN, 6, "@Value", true),
            ("src/Port.kt", KOTLIN, 6, "${PORT}", false),
            ("src/Port.kt", KOTLIN, 6, "System", true),
            (
                "build.gradle.kts",
                "val k = System.getenv(\"K\") // System.getenv\n",
                1,
                "System.getenv(",
                true,
            ),
        ]);
    }

    #[test]
    fn jsx_text_is_text() {
        let tsx = "export const A = () => <p>Sign in to authenticate {authenticate(u)}</p>;\n";
        check(&[
            ("a.tsx", tsx, 1, "authenticate {", false),
            ("a.tsx", tsx, 1, "authenticate(u)", true),
        ]);
    }

    #[test]
    fn text_the_grammar_could_not_read_is_code() {
        // An unterminated raw string and an unclosed comment: what follows them is where
        // the grammar guessed, so a match there is never confirmed away.
        let go = "package c\n\nfunc f() {\n\tdoc := `text\n\treturn os.Getenv(\"PORT\")\n}\n";
        let rust = "fn f() {}\n/* env::var(\"PORT\")\n";
        check(&[
            ("cmd/c.go", go, 5, "os.Getenv", true),
            ("src/c.rs", rust, 2, "env::var", true),
        ]);
    }

    #[test]
    fn rust_test_items_are_the_items_a_test_attribute_marks() {
        let text = "fn main() {}\n\n#[cfg(test)]\n// unit tests\nmod tests {\n    #[tokio::test]\n    async fn a() {}\n}\n\n#[cfg(not(test))]\nfn live() {}\n\n# [ test ]\nfn spaced() {\n}\n#[cfg(any(test, feature = \"x\"))]\nfn either() {}\n";
        let parsed = Parsed::new(Grammar::Rust, text.as_bytes()).expect("parses");
        let tested: Vec<usize> = (1..=text.lines().count())
            .filter(|&number| parsed.in_test_item(number, 0))
            .collect();
        // The module (attribute to closing brace, the comment between them included) and
        // the spaced `# [ test ]` function; not `cfg(not(test))`, not `cfg(any(test, …))`.
        assert_eq!(tested, vec![3, 4, 5, 6, 7, 8, 13, 14, 15]);
        // By column: what follows the module's closing brace on its row is not in it.
        assert!(parsed.in_test_item(8, 0) && !parsed.in_test_item(8, 1));
        // Other languages have no test items.
        let python = Parsed::new(Grammar::Python, b"def test_a():\n    pass\n").expect("parses");
        assert!(!python.in_test_item(1, 0));
    }

    #[test]
    fn only_languages_with_a_grammar_are_parsed() {
        assert_eq!(Grammar::for_path("app/x.PY"), Some(Grammar::Python));
        assert_eq!(Grammar::for_path("web/x.tsx"), Some(Grammar::Tsx));
        assert_eq!(Grammar::for_path("app/x.rb"), Some(Grammar::Ruby));
        assert_eq!(Grammar::for_path("Gemfile"), Some(Grammar::Ruby));
        assert_eq!(Grammar::for_path("lib/tasks/x.rake"), Some(Grammar::Ruby));
        assert_eq!(Grammar::for_path("cmd/main.go"), Some(Grammar::Go));
        assert_eq!(Grammar::for_path("src/lib.rs"), Some(Grammar::Rust));
        assert_eq!(Grammar::for_path("app/Http/Kernel.php"), Some(Grammar::Php));
        assert_eq!(Grammar::for_path("src/A.java"), Some(Grammar::Java));
        assert_eq!(Grammar::for_path("build.gradle.kts"), Some(Grammar::Kotlin));
        assert_eq!(Grammar::for_path("resources/views/a.blade.php"), None);
        assert_eq!(Grammar::for_path("app/views/a.html.erb"), None);
        assert_eq!(Grammar::for_path("lib/a.ex"), None);
        assert_eq!(Grammar::for_path("Makefile"), None);
    }
}
