//! Code, strings and comments, told apart by each language's tree-sitter grammar.
//!
//! A line rule reads words: `authenticat`, `csrf`, `os.environ`. In
//! `.describe('The authentication methods required to access the envelope.')` or a
//! docstring that says "reads `os.environ`", the word is text, not code, and changes no
//! check and reads no variable. A rule marked `in_code` fires only when its match starts
//! in code: the file is parsed with its language's grammar and the match's position must
//! lie in no string or comment node (an interpolation inside a string, `${token}` or
//! `f"{os.environ['X']}"`, is code again).
//!
//! The fast path holds: the regex is the prefilter, run on every changed line as before;
//! only a file in which an `in_code` rule matched a changed line is read again and
//! parsed, once per side, to confirm its candidates, and only when the answer can change
//! the class (the other findings have not already reached the rule's class). Files of a
//! language without a grammar here keep the line rule's answer.

use super::classify::Finding;
use super::matcher::Matcher;
use crate::git::{GitError, Head, LineSide, Repo, RepoPath};
use crate::policy::RiskClass;
use std::collections::HashMap;
use tree_sitter::{Language, Node, Parser, Point, Tree};

/// How many matches of one `in_code` rule in one file wait for confirmation; a rule that
/// matched more lines than that in a file is confirmed among those.
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
    risk: RiskClass,
) -> Result<Vec<Finding>, GitError> {
    let mut trees: HashMap<(LineSide, &RepoPath), Option<Tree>> = HashMap::new();
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
                let tree = match repo.read_file_at(at, &text)? {
                    Some(bytes) => Grammar::for_path(&text).and_then(|g| g.parse(&bytes)),
                    None => None,
                };
                trees.entry((candidate.side, path)).or_insert(tree)
            }
        };
        let in_code = |tree: &Tree| {
            let mut columns = candidate.columns.iter();
            columns.any(|&column| is_code(tree, candidate.number, column))
        };
        if tree.as_ref().is_some_and(|tree| !in_code(tree)) {
            continue;
        }
        done.push((&candidate.path, candidate.rule));
        found.push(finding(matcher, candidate));
    }
    Ok(found)
}

/// The finding a candidate makes.
fn finding(matcher: &Matcher, candidate: &InCodeCandidate) -> Finding {
    let rule = &matcher.line_rules[candidate.rule];
    let trigger = &matcher.triggers[rule.trigger];
    Finding {
        trigger: trigger.name.clone(),
        class: trigger.class,
        path: Some(candidate.path.clone()),
        line: Some(candidate.number),
        side: Some(candidate.side),
        rule: rule.id.clone(),
        stack: rule.stack.clone(),
        excerpt: Some(candidate.excerpt.clone()),
    }
}

/// A language this module can parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grammar {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
}

/// Node kinds that hold text, not code.
const TEXT_KINDS: &[&str] = &[
    "string",
    "string_content",
    "string_fragment",
    "template_string",
    "comment",
    "regex",
    "regex_pattern",
];

/// Node kinds inside a string that are code again.
const CODE_IN_TEXT_KINDS: &[&str] = &["interpolation", "template_substitution"];

impl Grammar {
    /// The grammar for the file at `path`, by extension.
    pub fn for_path(path: &str) -> Option<Grammar> {
        let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
        match extension.as_str() {
            "py" | "pyi" => Some(Grammar::Python),
            "js" | "jsx" | "mjs" | "cjs" => Some(Grammar::JavaScript),
            "ts" | "mts" | "cts" => Some(Grammar::TypeScript),
            "tsx" => Some(Grammar::Tsx),
            _ => None,
        }
    }

    fn language(self) -> Language {
        match self {
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
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
/// string or comment, or in an interpolation inside one.
pub(crate) fn is_code(tree: &Tree, number: usize, column: usize) -> bool {
    let Some(row) = number.checked_sub(1) else {
        return true;
    };
    let point = Point::new(row, column);
    let mut node: Option<Node> = tree.root_node().descendant_for_point_range(point, point);
    while let Some(current) = node {
        let kind = current.kind();
        if CODE_IN_TEXT_KINDS.contains(&kind) {
            return true;
        }
        if TEXT_KINDS.contains(&kind) {
            return false;
        }
        node = current.parent();
    }
    true
}

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

    #[test]
    fn only_languages_with_a_grammar_are_parsed() {
        assert_eq!(Grammar::for_path("app/x.PY"), Some(Grammar::Python));
        assert_eq!(Grammar::for_path("web/x.tsx"), Some(Grammar::Tsx));
        assert_eq!(Grammar::for_path("app/x.rb"), None);
        assert_eq!(Grammar::for_path("Makefile"), None);
    }
}
