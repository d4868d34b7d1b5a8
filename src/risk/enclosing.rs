//! The definitions around a changed line: scope rules.
//!
//! A line rule reads one line, but whether `if request.method not in safe_methods:` is a
//! CSRF check, or `orderMapper.updateByExampleSelective(order, example)` settles a
//! payment, is said by the function the line is in (`def csrf():`, `public int
//! paySuccess(…)`), not by the line. A scope rule's regex reads the lines that open the
//! blocks around each changed line of code instead of the line itself.
//!
//! Blocks are found by indentation: the nearest line above with less indentation opens
//! the block a line is in, and so on up to the top level. Indentation is what a block is
//! in Python and what every formatter of a brace language writes (rustfmt, gofmt,
//! prettier, google-java-format), so in formatted code it finds the blocks a grammar
//! would, in one pass over the file. Blank lines, comment lines and lines that only close
//! a block (`}`, `end`, `)`) open nothing.
//!
//! The cheap path first: scope rules read files again, so they are read last, only for
//! files where a scope rule's trigger has not fired, only when the change is not already
//! in the class the rule would raise it to; each such file is split into blocks once.

use super::comments::CommentStyle;
use super::finding::Finding;
use super::keys::{self, Format};
use super::matcher::{LineRule, Matcher};
use super::project::ProjectModel;
use super::syntax::{is_code, Grammar, CANDIDATES_PER_FILE};
use crate::git::{GitError, Head, LineSide, Repo, RepoPath};
use crate::policy::RiskClass;
use hashbrown::{HashMap, HashSet};

/// Columns a tab counts for.
const TAB: usize = 4;

/// What a reading beyond the changed line (scope rules here, Rails callbacks, bound
/// settings, handler lists) is given: the repository and the change's two sides, the
/// compiled rules, the files with changed lines of code, the findings so far and the
/// class they reached (a reading adds only findings that could raise it).
#[derive(Clone, Copy)]
pub(crate) struct Reading<'a> {
    pub repo: &'a Repo,
    pub sides: (&'a Head, &'a Head),
    pub matcher: &'a Matcher,
    pub candidates: &'a [ScopeCandidate],
    pub findings: &'a [Finding],
    pub risk: RiskClass,
}

/// The changed lines of code of one file that scope rules are to read.
#[derive(Debug)]
pub(crate) struct ScopeCandidate {
    /// The file's path in the head, and in the base when it was renamed.
    pub path: RepoPath,
    pub old_path: Option<RepoPath>,
    /// The scope rules that read the file (indices into the matcher's line rules).
    pub rules: Vec<usize>,
    /// Changed lines of code: added (head numbers) and removed (base numbers).
    pub added: Vec<usize>,
    pub removed: Vec<usize>,
}

impl ScopeCandidate {
    /// Whether a reading for the trigger at index `trigger` could still change the file's
    /// answer: a scope rule of the trigger reads the file, and the trigger has not fired
    /// on it.
    pub fn open_to(&self, matcher: &Matcher, trigger: usize, findings: &[Finding]) -> bool {
        let name = &matcher.triggers[trigger].name;
        self.rules
            .iter()
            .any(|&index| matcher.line_rules[index].trigger == trigger)
            && !findings
                .iter()
                .any(|f| &f.trigger == name && f.path.as_ref() == Some(&self.path))
    }

    /// The two sides of the change to the file: the side, the revision it is read at,
    /// the file's path there, and its changed lines of code on that side.
    pub fn sides<'c>(
        &'c self,
        base: &'c Head,
        head: &'c Head,
    ) -> [(LineSide, &'c Head, &'c RepoPath, &'c [usize]); 2] {
        let old_path = self.old_path.as_ref().unwrap_or(&self.path);
        [
            (LineSide::Added, head, &self.path, &self.added),
            (LineSide::Removed, base, old_path, &self.removed),
        ]
    }
}

/// A file's lines and, for each, the line that opens the block it is in.
pub(crate) struct Blocks<'a> {
    lines: Vec<&'a [u8]>,
    opener: Vec<Option<usize>>,
}

impl<'a> Blocks<'a> {
    /// Splits `text` into lines and finds each line's opener.
    pub fn new(text: &'a [u8], comments: CommentStyle) -> Blocks<'a> {
        let lines: Vec<&[u8]> = text
            .split(|&b| b == b'\n')
            .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
            .collect();
        let mut opener = vec![None; lines.len()];
        // The lines that may open a block around the next ones, outermost first.
        let mut open: Vec<(usize, usize)> = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            let Some(indent) = indentation(line) else {
                continue;
            };
            if comments.is_comment(line) {
                continue;
            }
            while open.last().is_some_and(|&(depth, _)| depth > indent) {
                open.pop();
            }
            // The rest of a header written over several lines (`) -> Result<()> {`, a
            // brace on a line of its own, `where`) continues the line that opened it.
            match open.last() {
                Some(&(depth, header)) if depth == indent && continues_header(line) => {
                    opener[index] = opener[header];
                    continue;
                }
                Some(&(depth, _)) if depth == indent => {
                    open.pop();
                }
                _ => {}
            }
            opener[index] = open.last().map(|&(_, line)| line);
            if !closes_only(line) {
                open.push((indent, index));
            }
        }
        Blocks { lines, opener }
    }

    /// The lines that open the blocks around line `number` (1-based), innermost first,
    /// each with its number.
    pub fn openers(&self, number: usize) -> impl Iterator<Item = (usize, &'a [u8])> + '_ {
        let start = number
            .checked_sub(1)
            .and_then(|index| self.opener.get(index).copied().flatten());
        std::iter::successors(start, |&index| self.opener[index])
            .map(|index| (index + 1, self.lines[index]))
    }

    /// For each of the lines `numbers` (1-based), the innermost line around it that
    /// `is_definition` accepts: each such line once, by number, ascending. Each opener is
    /// tested once, however many changed lines it holds.
    pub fn definitions(
        &self,
        numbers: &[usize],
        is_definition: impl Fn(&[u8]) -> bool,
    ) -> Vec<(usize, &'a [u8])> {
        let mut tested: Vec<Option<bool>> = vec![None; self.lines.len()];
        let mut found: Vec<(usize, &'a [u8])> = Vec::new();
        for &number in numbers {
            let definition = self.openers(number).find(|&(opener, line)| {
                *tested[opener - 1].get_or_insert_with(|| is_definition(line))
            });
            found.extend(definition);
        }
        found.sort_unstable_by_key(|&(number, _)| number);
        found.dedup_by_key(|&mut (number, _)| number);
        found
    }
}

impl Blocks<'_> {
    /// The branches beside the changed lines `numbers` (1-based) that already run the
    /// same statement: for each changed line that is a call of some length, each unchanged
    /// copy of it elsewhere in the file whose block is opened by a branch (`if`, `elif`,
    /// `unless`, `when`…) whose parent is the changed line's own block or that block's
    /// parent (a sibling branch of the same function). The branches' line indices, each
    /// once, ascending. `redisUtils.del(key)` added under a new condition is read by the
    /// `if` that already runs it when a user's roles change.
    pub fn twin_branches(&self, numbers: &[usize]) -> Vec<usize> {
        let changed: HashSet<usize> = numbers.iter().filter_map(|n| n.checked_sub(1)).collect();
        let mut copies: HashMap<&[u8], Vec<usize>> = HashMap::new();
        for &index in &changed {
            if let Some(text) = self.lines.get(index).map(|line| line.trim_ascii()) {
                if text.len() >= TWIN_LENGTH && text.contains(&b'(') && !closes_only(text) {
                    copies.entry(text).or_default();
                }
            }
        }
        if copies.is_empty() {
            return Vec::new();
        }
        // Every line of the file is looked up: hashed with hashbrown's hasher, not std's
        // SipHash (3% of a spring-framework commit), and only when it could be a copy.
        for (index, line) in self.lines.iter().enumerate() {
            if line.len() < TWIN_LENGTH {
                continue;
            }
            if let Some(list) = copies.get_mut(line.trim_ascii()) {
                if !changed.contains(&index) {
                    list.push(index);
                }
            }
        }
        let mut found: Vec<usize> = Vec::new();
        for &index in &changed {
            let Some(list) = self
                .lines
                .get(index)
                .and_then(|l| copies.get(l.trim_ascii()))
            else {
                continue;
            };
            let own = self.opener[index];
            let parent = own.and_then(|block| self.opener[block]);
            for &copy in list {
                let Some(branch) = self.opener[copy] else {
                    continue;
                };
                let beside = self.opener[branch];
                if Some(branch) != own
                    && (beside == own || beside == parent)
                    && is_branch(self.lines[branch])
                {
                    found.push(branch);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The line at `index` (0-based) with its number.
    fn numbered(&self, index: usize) -> (usize, &[u8]) {
        (index + 1, self.lines[index])
    }
}

/// The shortest statement whose copy elsewhere in a file is read as the same statement:
/// shorter ones (`return nil`, `i++`) repeat everywhere without meaning the same thing.
const TWIN_LENGTH: usize = 16;

/// The indentation of `line` in columns, `None` for a blank line.
pub(crate) fn indentation(line: &[u8]) -> Option<usize> {
    let mut columns = 0;
    for &byte in line {
        match byte {
            b' ' => columns += 1,
            b'\t' => columns += TAB,
            b'\r' | b'\x0c' => {}
            _ => return Some(columns),
        }
    }
    None
}

/// Whether `line` goes on with the header of a definition or statement begun above at
/// its indentation: the closing bracket of a parameter list written one per line
/// (rustfmt, prettier, gofmt, black), a `where` clause, or an opening brace on its own
/// line (PSR-12 methods, Allman style).
fn continues_header(line: &[u8]) -> bool {
    let text = line.trim_ascii();
    text == b"{"
        || text == b"where"
        || (matches!(text.first(), Some(b')' | b']' | b'>'))
            && text.last().is_some_and(|b| matches!(b, b'{' | b':')))
}

/// Whether a YAML file is a catalogue of translations: in a `locales`/`i18n`/`lang`/
/// `translations` folder, its root key the language its name ends with
/// (`config/locales/fr.yml` under `fr:`, `devise.pt-BR.yml` under `pt-BR:`, as Rails I18n
/// and its kin write them). Its keys name messages, so a
/// `security:` section holds the wording of a page, not a setting: no scope or data rule
/// reads it.
fn is_translation_catalogue(path: &str, text: &[u8]) -> bool {
    let mut folders = path.rsplit('/');
    let name = folders.next().unwrap_or(path);
    let in_catalogue_folder = folders.any(|folder| {
        matches!(
            folder.to_ascii_lowercase().as_str(),
            "locale"
                | "locales"
                | "i18n"
                | "l10n"
                | "lang"
                | "langs"
                | "languages"
                | "translations"
        )
    });
    if !in_catalogue_folder {
        return false;
    }
    let Some(stem) = name
        .strip_suffix(".yml")
        .or_else(|| name.strip_suffix(".yaml"))
    else {
        return false;
    };
    let language = stem.rsplit('.').next().unwrap_or(stem);
    let tag = |part: &str, lengths: std::ops::RangeInclusive<usize>| {
        lengths.contains(&part.len()) && part.bytes().all(|b| b.is_ascii_alphabetic())
    };
    let mut parts = language.split(['-', '_']);
    let is_tag = parts.next().is_some_and(|primary| {
        tag(primary, 2..=3) && primary.bytes().all(|b| b.is_ascii_lowercase())
    }) && parts.all(|region| tag(region, 2..=4));
    if !is_tag {
        return false;
    }
    let root = text
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii_end)
        .find(|line| !line.trim_ascii().is_empty() && !line.starts_with(b"#") && *line != b"---");
    root.is_some_and(|line| {
        let key = line.strip_suffix(b":").unwrap_or(b"");
        let key = key
            .strip_prefix(b"\"")
            .and_then(|k| k.strip_suffix(b"\""))
            .or_else(|| key.strip_prefix(b"'").and_then(|k| k.strip_suffix(b"'")))
            .unwrap_or(key);
        key == language.as_bytes()
    })
}

/// Whether `line` opens a branch: `if`, `elif`, `elsif`, `unless`, `when`, `else if`,
/// after a closing brace or not.
fn is_branch(line: &[u8]) -> bool {
    let text = line.trim_ascii();
    let text = text.strip_prefix(b"}").unwrap_or(text).trim_ascii_start();
    let text = text
        .strip_prefix(b"else")
        .map_or(text, <[u8]>::trim_ascii_start);
    [&b"if"[..], b"elif", b"elsif", b"unless", b"when"]
        .iter()
        .any(|keyword| {
            text.strip_prefix(*keyword).is_some_and(|rest| {
                rest.first()
                    .is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_')
            })
        })
}

/// A file rule's match (see [`scope_findings`]): the file's first line whose match
/// starts in code, by the file's grammar where it has one (a string or a comment that
/// quotes `os.Getenv(` reads nothing), else its first line that is not a comment line.
/// At most [`CANDIDATES_PER_FILE`] matching lines are parsed for; when none of those is in
/// code, the first counts (fail closed).
fn file_match<'t>(rule: &LineRule, path: &str, text: &'t [u8]) -> Option<(usize, &'t [u8])> {
    // What a line requires, the whole file holds: a file without it has no line to try
    // (two rules tried each line of a 483-line file, 1.8 M instructions, 4% of a
    // spring-framework commit).
    if !rule.could_match(text) {
        return None;
    }
    let comments = CommentStyle::for_path(path);
    let mut matches = text
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, line)| rule.is_match(line) && !comments.is_comment(line))
        .take(CANDIDATES_PER_FILE)
        .peekable();
    let first = *matches.peek()?;
    let Some(tree) = Grammar::for_path(path).and_then(|grammar| grammar.parse(text)) else {
        return matches.next().map(|(at, line)| (at + 1, line));
    };
    let regex = rule.regex()?;
    let mut read = 0;
    let found = matches.find(|(at, line)| {
        read += 1;
        let mut starts = regex.find_iter(line).map(|found| found.start());
        starts.any(|column| is_code(&tree, at + 1, column))
    });
    // As many matches as are parsed for, none in code: the lines past them are not read,
    // so the rule holds on the first (fail closed). Strings quoting `os.getenv(` above a
    // config file's real read must not hide it.
    let found = found.or((read == CANDIDATES_PER_FILE).then_some(first));
    found.map(|(at, line)| (at + 1, line))
}

/// Whether `line` only closes blocks: brackets, `end`, separators.
pub(crate) fn closes_only(line: &[u8]) -> bool {
    let text = line.trim_ascii();
    text == b"end"
        || text
            .iter()
            .all(|b| matches!(b, b'}' | b')' | b']' | b';' | b',' | b' '))
}

/// The findings of the scope rules in `candidates`: for each file and rule, every
/// definition around a changed line of code that the rule's regex matches (the innermost
/// one for each line), on each side, one finding per definition line, so that a
/// `handoff:allow` marker on one definition covers that one and no other (see
/// `suppress`). A definition the change leaves at the same line on both sides is reported
/// once. A data rule (see `keys`) reads each changed line's own key path instead and
/// reports each changed line whose path it matches. A rule is read only where it could change the answer: its trigger's class is
/// above `risk` and its trigger has not fired on the file.
pub(crate) fn scope_findings(
    reading: Reading<'_>,
    _project: &mut ProjectModel,
) -> Result<Vec<Finding>, GitError> {
    let Reading {
        repo,
        sides: (base, head),
        matcher,
        candidates,
        findings,
        risk,
    } = reading;
    let mut found = Vec::new();
    for candidate in candidates {
        let rules: Vec<usize> = candidate
            .rules
            .iter()
            .copied()
            .filter(|&index| {
                let trigger = &matcher.triggers[matcher.line_rules[index].trigger];
                trigger.class > risk
                    && !findings.iter().chain(&found).any(|finding: &Finding| {
                        finding.trigger == trigger.name
                            && finding.path.as_ref() == Some(&candidate.path)
                    })
            })
            .collect();
        if rules.is_empty() {
            continue;
        }
        // The definitions found on the added side, by rule: (line, text).
        let mut added: Vec<Vec<(usize, Vec<u8>)>> = vec![Vec::new(); rules.len()];
        for (side, at, path, numbers) in candidate.sides(base, head) {
            if numbers.is_empty() {
                continue;
            }
            let path_text = path.to_string_lossy();
            let Some(text) = repo.read_file_at(at, &path_text)? else {
                continue;
            };
            if is_translation_catalogue(&path_text, &text) {
                continue;
            }
            let mut blocks = None;
            let mut twins: Option<Vec<usize>> = None;
            let mut key_paths = None;
            for (slot, &index) in rules.iter().enumerate() {
                let rule = &matcher.line_rules[index];
                // `is_match` compiles the regex only for a line that could match it: most
                // candidates' definitions never do, and compiling costs far more than looking.
                let definitions: Vec<(usize, &[u8])> = if rule.file_scope {
                    file_match(rule, &path_text, &text).into_iter().collect()
                } else if rule.data {
                    // A data rule reads each changed line's own key path.
                    let Some(format) = Format::for_path(&path_text) else {
                        continue;
                    };
                    let paths =
                        key_paths.get_or_insert_with(|| keys::key_paths(&text, format, numbers));
                    numbers
                        .iter()
                        .filter_map(|&number| {
                            let path = paths.get(number.checked_sub(1)?)?.as_deref()?;
                            rule.is_match(path.as_bytes())
                                .then_some((number, path.as_bytes()))
                        })
                        .collect()
                } else {
                    blocks
                        .get_or_insert_with(|| {
                            Blocks::new(&text, CommentStyle::for_path(&path_text))
                        })
                        .definitions(numbers, |line| rule.is_match(line))
                };
                // Nothing around the changed lines: the branches beside them that run
                // the same statement (see `twin_branches`).
                let reads_blocks = !rule.data && !rule.file_scope;
                let definitions = match (definitions.is_empty() && reads_blocks, &blocks) {
                    (true, Some(found)) => {
                        let twins = twins.get_or_insert_with(|| found.twin_branches(numbers));
                        twins
                            .iter()
                            .map(|&index| found.numbered(index))
                            .filter(|&(_, line)| rule.is_match(line))
                            .collect()
                    }
                    _ => definitions,
                };
                for (number, line) in definitions {
                    if side == LineSide::Added {
                        added[slot].push((number, line.to_vec()));
                    } else if added[slot].iter().any(|(n, l)| *n == number && l == line) {
                        continue;
                    }
                    found.push(Finding::of_line(
                        matcher,
                        rule,
                        &candidate.path,
                        (number, side),
                        matcher.excerpt(line),
                    ));
                }
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn openers(text: &str, comments: CommentStyle, number: usize) -> Vec<(usize, String)> {
        Blocks::new(text.as_bytes(), comments)
            .openers(number)
            .map(|(n, line)| (n, String::from_utf8_lossy(line).trim().to_string()))
            .collect()
    }

    #[test]
    fn a_python_line_is_in_the_functions_and_blocks_above_it() {
        let text = "def init(app):\n    @app.before_request\n    def csrf():\n        # no CSRF for GET\n\n        if request.method not in safe:\n            abort(403)\n    return app\n";
        assert_eq!(
            openers(text, CommentStyle::Hash, 7),
            [
                (6, "if request.method not in safe:".to_string()),
                (3, "def csrf():".to_string()),
                (1, "def init(app):".to_string()),
            ]
        );
        // A line back at the function's level is in the outer function only.
        assert_eq!(
            openers(text, CommentStyle::Hash, 8),
            [(1, "def init(app):".to_string())]
        );
        assert!(openers(text, CommentStyle::Hash, 1).is_empty());
        assert!(openers(text, CommentStyle::Hash, 99).is_empty());
    }

    #[test]
    fn a_header_written_over_several_lines_opens_the_block_at_its_first_line() {
        // rustfmt: parameters one per line, `) -> T {` back at the header's column.
        let rust = "impl H {\n    async fn do_password_modification(\n        &mut self,\n    ) -> Result<()> {\n        let a = 1;\n    }\n}\n";
        assert_eq!(
            openers(rust, CommentStyle::Slash, 5),
            [
                (2, "async fn do_password_modification(".to_string()),
                (1, "impl H {".to_string()),
            ]
        );
        // PSR-12: a method's brace on a line of its own; a `where` clause.
        let php = "class A\n{\n    public function login(Request $r)\n    {\n        return 1;\n    }\n}\n";
        assert_eq!(
            openers(php, CommentStyle::Slash, 5),
            [
                (3, "public function login(Request $r)".to_string()),
                (1, "class A".to_string()),
            ]
        );
        let clause = "fn check<T>(t: T) -> bool\nwhere\n    T: Auth,\n{\n    t.ok()\n}\n";
        assert_eq!(
            openers(clause, CommentStyle::Slash, 5),
            [(1, "fn check<T>(t: T) -> bool".to_string())]
        );
        // A call's closing line is not a header: the next statement is back in the function.
        let go = "func f() {\n\tx := g(\n\t\ta,\n\t)\n\ty()\n}\n";
        assert_eq!(
            openers(go, CommentStyle::Slash, 5),
            [(1, "func f() {".to_string())]
        );
    }

    #[test]
    fn a_changed_statement_is_read_by_the_sibling_branches_that_already_run_it() {
        let text = "void update(User u) {\n    if (rolesChanged(u)) {\n        cache.del(Keys.DATA + u.id());\n        cache.del(Keys.MENU + u.id());\n    }\n    if (deptChanged(u)) {\n        cache.del(Keys.DATA + u.id());\n    }\n    save(u);\n}\nvoid other(User u) {\n    if (x) {\n        cache.del(Keys.MENU + u.id());\n        save(u);\n    }\n}\n";
        let blocks = Blocks::new(text.as_bytes(), CommentStyle::Slash);
        // Line 7 repeats line 3, run by the sibling branch at line 2 (index 1); and the
        // other way round.
        assert_eq!(blocks.twin_branches(&[6, 7, 8]), [1]);
        assert_eq!(blocks.twin_branches(&[3]), [5]);
        // A copy in another function is not beside it; a short statement is not read.
        assert!(blocks.twin_branches(&[4]).is_empty());
        assert!(blocks.twin_branches(&[14]).is_empty());
    }

    #[test]
    fn translation_catalogues_are_told_by_their_root_key_and_name() {
        let fr = b"# generated\n---\nfr:\n  pages:\n    security:\n      title: S\n";
        assert!(is_translation_catalogue("config/locales/fr.yml", fr));
        assert!(is_translation_catalogue(
            "config/locales/devise.pt-BR.yml",
            b"'pt-BR':\n  devise:\n"
        ));
        // A config file, a root key that is not the file's language, a name that is no tag.
        assert!(!is_translation_catalogue(
            "config/application.yml",
            b"security:\n  jwt: x\n"
        ));
        assert!(!is_translation_catalogue(
            "config/locales/fr.yml",
            b"en:\n  a: b\n"
        ));
        assert!(!is_translation_catalogue(
            "config/db.yml",
            b"db:\n  host: x\n"
        ));
        assert!(!is_translation_catalogue(
            "locales/settings.yml",
            b"settings:\n  a: b\n"
        ));
    }

    #[test]
    fn closing_braces_and_comments_open_nothing() {
        let text = "class Orders {\n\tpublic int paySuccess(Long id) {\n\t\tif (a) {\n\t\t\tb();\n\t\t}\n\t\t// stock\n\t\tupdate(order);\n\t}\n\tint count() {\n\t\treturn 1;\n\t}\n}\n";
        assert_eq!(
            openers(text, CommentStyle::Slash, 7),
            [
                (2, "public int paySuccess(Long id) {".to_string()),
                (1, "class Orders {".to_string()),
            ]
        );
        assert_eq!(
            openers(text, CommentStyle::Slash, 10),
            [
                (9, "int count() {".to_string()),
                (1, "class Orders {".to_string()),
            ]
        );
    }
}
