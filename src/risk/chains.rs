//! Middleware chains: a changed handler of a route is read with the handlers beside it.
//!
//! `app.post("/licenses", zValidator(…), rateLimiter({…}), handler)` runs its handlers in
//! the order it lists them: moving the validator after the rate limiter changes which
//! requests the limiter counts, and adding a handler in front of `bearerAuth(…)` runs it
//! for callers no one authenticated. Such a change touches only the handler that moved or
//! was added; the limiter's and the guard's lines are unchanged, so no line rule reads
//! them. The order and the company of the auth, rate-limit and validation handlers of a
//! route is an access decision all the same.
//!
//! So a changed line of code of a JavaScript or TypeScript file that is an element of a
//! handler list written one element a line (Express, Hono, Koa and Fastify
//! `app.get(path, a, b, handler)` with a router-like receiver, any `.use(`, NestJS
//! `@UseGuards(`/`@UseInterceptors(`/`@UsePipes(`, Fastify's and Elysia's `preHandler:
//! [`/`onRequest: [`/`beforeHandle: [` lists, koa-compose's `compose([`) is read with the
//! list's opening line and the first line of each other element: where one of them fires
//! a line rule of the auth trigger, the changed line is `auth`
//! ([`MIDDLEWARE_CHAIN_RULE`]). An element is found by indentation, as `enclosing` finds
//! blocks, and by its list's extent: see [`Lists::new`] (an element indented more or less
//! than its siblings, or a comment at column 0 between them, hides nothing). A
//! route's path (an element that is only a string) is neither read as a sibling nor
//! counted as a changed element: it names the route, it guards nothing, and a path
//! rewritten beside unchanged guards stays `api-route` (docs/gate.md, "Protocol
//! questions"). Lines inside an element (a handler's body, a limiter's options) are not
//! elements.
//!
//! The cheap path: only when the auth trigger's class is above what the other findings
//! reached, and only for changed JavaScript and TypeScript files whose auth scope rules
//! are still open (not a test, auth not fired on it); each side of such a file is read in
//! one pass, and each line of it asked of the auth rules at most once.

use super::callbacks::split_lines;
use super::comments::CommentStyle;
use super::enclosing::{closes_only, indentation, Reading};
use super::finding::Finding;
use super::project::ProjectModel;
use crate::git::GitError;
use regex::bytes::Regex;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The rule id of a changed element of a handler list read with its siblings.
pub(crate) const MIDDLEWARE_CHAIN_RULE: &str = "auth.scope.middleware-chain";

/// The trigger it reports.
const AUTH: &str = "auth";

/// The extensions of the files read, and the stack each names.
const LANGUAGES: [(&str, &str); 6] = [
    ("js", "javascript"),
    ("mjs", "javascript"),
    ("cjs", "javascript"),
    ("ts", "typescript"),
    ("mts", "typescript"),
    ("cts", "typescript"),
];

/// What a line opens (trimmed, and again without a trailing comment: `app.post( // v2`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Opens {
    /// No handler list.
    Nothing,
    /// A handler list whose elements follow (`app.post(`, `router.post('/x',`).
    List,
    /// A handler list whose first elements are on the line (`app.post("/x", skipper,`).
    ListWithElements,
}

/// What `line` opens (see the module's documentation).
fn what_opens(line: &[u8]) -> Opens {
    static PATTERNS: OnceLock<Option<(Regex, Regex)>> = OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        let receiver = concat!(
            r"(?:(?:[\w$]*(?i:app|router|server|fastify|hono|routes?)|\))\s*\.\s*",
            r"(?:get|post|put|patch|delete|del|all|options|head|use|route|on|any)",
            r"|^\.\s*(?:get|post|put|patch|delete|del|all|use|route)|\.use)\s*\(",
        );
        let bare = Regex::new(&format!(
            r"(?:{receiver})\s*$|^@(?:UseGuards|UseInterceptors|UsePipes)\s*\(\s*$|\b(?:preHandler|onRequest|preValidation|preParsing|beforeHandle|middlewares?|guards)\s*:\s*\[\s*$|\bcompose\s*\(\s*\[?\s*$"
        ));
        // The arguments on the line end with a comma: more follow on the next lines.
        let inline = Regex::new(&format!(r"(?:{receiver})(?P<rest>.*),$"));
        Some((bare.ok()?, inline.ok()?))
    });
    // Fail closed: patterns that did not compile read every list.
    let Some((bare, inline)) = patterns else {
        return Opens::ListWithElements;
    };
    let text = line.trim_ascii();
    let mut found = Opens::Nothing;
    for text in [text, without_trailing_comment(text)] {
        if bare.is_match(text) {
            found = found.max_with(Opens::List);
        } else if let Some(captures) = inline.captures(text) {
            let rest = captures.name("rest").map_or(&b""[..], |m| m.as_bytes());
            let rest = rest.trim_ascii();
            // Only the route's path on the line: `router.post('/licenses',`.
            found = if rest.is_empty() || is_string_only(rest) {
                found.max_with(Opens::List)
            } else {
                Opens::ListWithElements
            };
        }
    }
    found
}

impl Opens {
    /// The one of `self` and `other` that reads more.
    fn max_with(self, other: Opens) -> Opens {
        match (self, other) {
            (Opens::ListWithElements, _) | (_, Opens::ListWithElements) => Opens::ListWithElements,
            (Opens::List, _) | (_, Opens::List) => Opens::List,
            _ => Opens::Nothing,
        }
    }
}

/// `text` without a comment that ends it (`// …`, `/* … */`), trimmed; `text` itself when
/// none does. A `//` inside a string cuts it too: the line is also read whole.
fn without_trailing_comment(text: &[u8]) -> &[u8] {
    let text = text.trim_ascii_end();
    if text.ends_with(b"*/") {
        if let Some(at) = memchr::memmem::rfind(text, b"/*") {
            return text[..at].trim_ascii_end();
        }
    }
    match memchr::memmem::find(text, b"//") {
        Some(at) => text[..at].trim_ascii_end(),
        None => text,
    }
}

/// Whether `line` is a whole element of a list, the next line not its continuation: it
/// ends with a comma (before a trailing comment) or is only a string.
fn ends_element(line: &[u8]) -> bool {
    let text = line.trim_ascii();
    [text, without_trailing_comment(text)]
        .iter()
        .any(|text| text.ends_with(b",") || is_string_only(text))
}

/// Whether a block comment is open after `line`, `open` before it (strings not told).
fn opens_block_comment(line: &[u8], open: bool) -> bool {
    let opened = memchr::memmem::rfind(line, b"/*");
    let closed = memchr::memmem::rfind(line, b"*/");
    match (opened, closed) {
        (Some(opened), Some(closed)) => opened > closed || closed < opened + 2,
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (None, None) => open,
    }
}

/// Whether `line` is only a string: a route's path (`"/licenses",`).
fn is_string_only(line: &[u8]) -> bool {
    let text = line.trim_ascii();
    let text = text.strip_suffix(b",").unwrap_or(text).trim_ascii_end();
    match (text.first(), text.last()) {
        (Some(&open), Some(&close)) if text.len() >= 2 && matches!(open, b'"' | b'\'' | b'`') => {
            close == open && !text[1..text.len() - 1].contains(&open)
        }
        _ => false,
    }
}

/// The handler lists of one side of a file, found in one pass over its lines (linear in
/// the file: each line is read a bounded number of times, whatever the changed lines).
struct Lists<'l> {
    lines: &'l [&'l [u8]],
    comments: CommentStyle,
    /// For each line: what it opens.
    opens: Vec<Opens>,
    /// For each line: the handler list it is an element of, by its opener's index.
    element_of: Vec<Option<usize>>,
    /// For each list opener: its elements, in order.
    elements: HashMap<usize, Vec<usize>>,
}

impl<'l> Lists<'l> {
    /// Reads `lines`. A line of code (not blank, not a comment) is an element of the
    /// innermost handler list still open above it when the nearest line of code above it
    /// with less indentation is the list's opener or lies above it (an element written
    /// at the opener's indentation or less), or is itself an element of that list that
    /// ends with a comma (an element indented further than its siblings). A list stays
    /// open up to the first line of code at its opener's indentation or less that closes
    /// brackets or does not end with a comma. Comment lines end nothing.
    fn new(lines: &'l [&'l [u8]], comments: CommentStyle) -> Lists<'l> {
        let mut opens = vec![Opens::Nothing; lines.len()];
        let mut element_of: Vec<Option<usize>> = vec![None; lines.len()];
        let mut elements: HashMap<usize, Vec<usize>> = HashMap::new();
        // The lines of code above that may be the nearest with less indentation.
        let mut blocks: Vec<(usize, usize)> = Vec::new();
        // The handler lists open, innermost last: (opener, its indentation).
        let mut open: Vec<(usize, usize)> = Vec::new();
        // Whether a block comment (`/*` without its `*/`) may be open: read without
        // strings, so it may be wrong, and it only ever makes lists longer.
        let mut in_block = false;
        for (index, line) in lines.iter().enumerate() {
            let maybe_comment = in_block;
            in_block = opens_block_comment(line, in_block);
            let Some(depth) = indentation(line) else {
                continue;
            };
            if comments.is_comment(line) {
                continue;
            }
            // A line that may lie inside a block comment (`hello` between `/*` and `*/`
            // at column 0) ends no list and is no parent, but may be an element.
            let parent = if maybe_comment {
                let below = blocks.partition_point(|&(above, _)| above < depth);
                below.checked_sub(1).map(|at| blocks[at].1)
            } else {
                while blocks.last().is_some_and(|&(above, _)| above >= depth) {
                    blocks.pop();
                }
                let parent = blocks.last().map(|&(_, at)| at);
                blocks.push((depth, index));
                parent
            };
            let ends_list = !maybe_comment && (closes_only(line) || !ends_element(line));
            while open
                .last()
                .is_some_and(|&(_, outer)| outer >= depth && ends_list)
            {
                open.pop();
            }
            if let Some(&(list, _)) = open.last() {
                let element = match parent {
                    None => true,
                    Some(parent) if parent <= list => true,
                    Some(parent) => element_of[parent] == Some(list) && ends_element(lines[parent]),
                };
                if element {
                    element_of[index] = Some(list);
                    elements.entry(list).or_default().push(index);
                }
            }
            opens[index] = what_opens(line);
            if opens[index] != Opens::Nothing {
                open.push((index, depth));
            }
        }
        Lists {
            lines,
            comments,
            opens,
            element_of,
            elements,
        }
    }

    /// The line of a handler list that decides for the changed line at `index`
    /// (0-based), when it is an element of one: the list's opener or another element
    /// that `fires` accepts. `firing` keeps, for each list asked about, its opener's
    /// answer and its first two elements that fire, so each line is asked once.
    fn deciding(
        &self,
        index: usize,
        firing: &mut HashMap<usize, (bool, Vec<usize>)>,
        fires: impl Fn(&[u8]) -> bool,
    ) -> Option<usize> {
        let line = self.lines.get(index)?;
        indentation(line)?;
        if closes_only(line) || is_string_only(line) || self.comments.is_comment(line) {
            return None;
        }
        // A line that opens a list with elements on it is an element of that list.
        let own = (self.opens[index] == Opens::ListWithElements).then_some(index);
        for list in [own, self.element_of[index]].into_iter().flatten() {
            let (opener_fires, elements) = firing.entry(list).or_insert_with(|| {
                let siblings = self.elements.get(&list).map_or(&[][..], Vec::as_slice);
                let elements = siblings
                    .iter()
                    .copied()
                    .filter(|&at| !closes_only(self.lines[at]) && !is_string_only(self.lines[at]))
                    .filter(|&at| fires(self.lines[at]))
                    .take(2)
                    .collect();
                (fires(self.lines[list]), elements)
            });
            if list != index && *opener_fires {
                return Some(list);
            }
            if let Some(&at) = elements.iter().find(|&&at| at != index) {
                return Some(at);
            }
        }
        None
    }
}

/// The `auth` findings of changed elements of handler lists whose opener or siblings
/// fire an auth line rule (see the module's documentation). `risk` is the class the
/// other findings reached.
pub(crate) fn middleware_chain_findings(
    reading: Reading<'_>,
    project: &mut ProjectModel,
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
    let Some((trigger, class)) = matcher.trigger_above(AUTH, risk) else {
        return Ok(found);
    };
    for candidate in candidates {
        let path = candidate.path.to_string_lossy();
        let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
        let Some(&(_, stack)) = LANGUAGES.iter().find(|(known, _)| *known == extension) else {
            continue;
        };
        if !candidate.open_to(matcher, trigger, findings) {
            continue;
        }
        let stacks = project.file_stacks(repo, base, &path)?;
        let open = matcher.own_line_rules_for(&path, trigger, |stack| stacks.enables(stack));
        let comments = CommentStyle::for_path(&path);
        'sides: for (side, at, side_path, numbers) in candidate.sides(base, head) {
            if numbers.is_empty() {
                continue;
            }
            let Some(text) = repo.read_file_at(at, &side_path.to_string_lossy())? else {
                continue;
            };
            let lines = split_lines(&text);
            let fires = |line: &[u8]| {
                let mut fired = false;
                matcher.open_matches(side, line, &open, |_| fired = true);
                fired
            };
            let lists = Lists::new(&lines, comments);
            let mut firing = HashMap::new();
            for &number in numbers {
                let Some(index) = number.checked_sub(1) else {
                    continue;
                };
                if lists.deciding(index, &mut firing, fires).is_some() {
                    found.push(Finding {
                        trigger: AUTH.to_string(),
                        class,
                        path: Some(candidate.path.clone()),
                        line: Some(number),
                        side: Some(side),
                        rule: MIDDLEWARE_CHAIN_RULE.to_string(),
                        stack: stack.to_string(),
                        excerpt: Some(matcher.excerpt(lines[index])),
                    });
                    break 'sides;
                }
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line that decides for line `number` (1-based) of `text`, where a line fires
    /// when it holds `needle`.
    fn decider(text: &str, number: usize, needle: &str) -> Option<usize> {
        let lines = split_lines(text.as_bytes());
        let fires = |line: &[u8]| String::from_utf8_lossy(line).contains(needle);
        let lists = Lists::new(&lines, CommentStyle::Slash);
        let mut fired = HashMap::new();
        lists
            .deciding(number - 1, &mut fired, fires)
            .map(|at| at + 1)
    }

    const GUARDED: &str = "app.post(\n  \"/licenses\",\n  skipper,\n  bearerAuth({ token }),\n  async (c) => {\n    return c.json(await create(c));\n  },\n);\n";

    #[test]
    fn a_handler_added_in_front_of_a_guard_is_read_however_it_is_written() {
        assert_eq!(decider(GUARDED, 3, "bearerAuth"), Some(4));
        // A comment at the list's own indentation or less ends nothing.
        for comment in ["// note", "/* note */", "  // note"] {
            let text = GUARDED.replace("  skipper,\n", &format!("  skipper,\n{comment}\n"));
            assert_eq!(decider(&text, 3, "bearerAuth"), Some(5), "{comment}");
        }
        // An element indented further than its siblings, or less, is an element.
        for skipper in ["    skipper,", "      skipper,", " skipper,", "skipper,"] {
            let text = GUARDED.replace("  skipper,", skipper);
            assert_eq!(decider(&text, 3, "bearerAuth"), Some(4), "{skipper:?}");
        }
        let deeper = GUARDED.replace("  skipper,", "    skipper, // first\n      other,");
        assert_eq!(decider(&deeper, 4, "bearerAuth"), Some(5));
        // The path, or the path and a handler, on the opener's line.
        let express = "router.post('/licenses',\n  skipper,\n  bearerAuth({ token }),\n  function (req, res) {\n    res.json(create(req));\n  });\n";
        assert_eq!(decider(express, 2, "bearerAuth"), Some(3));
        let inline = GUARDED.replace(
            "app.post(\n  \"/licenses\",\n  skipper,",
            "app.post(\"/licenses\", skipper,",
        );
        assert_eq!(decider(&inline, 1, "bearerAuth"), Some(2));
        // A block comment whose middle line stands at column 0.
        let block = GUARDED.replace("  skipper,\n", "  skipper,\n  /*\nhello\n  */\n");
        assert_eq!(decider(&block, 3, "bearerAuth"), Some(7));
        // A trailing comment on the opener.
        let noted = GUARDED.replace("app.post(", "app.post( // v2");
        assert_eq!(decider(&noted, 3, "bearerAuth"), Some(4));
        // Still no element: the handler's body, the path alone on the opener's line.
        assert_eq!(decider(GUARDED, 6, "bearerAuth"), None);
        let path = "router.post('/licenses',\n  bearerAuth({ token }),\n  handler);\n";
        assert_eq!(decider(path, 1, "bearerAuth"), None);
        // A statement after the list is no element of it.
        let after = format!("{GUARDED}app.listen(3000);\n");
        assert_eq!(decider(&after, 9, "bearerAuth"), None);
    }

    #[test]
    fn a_long_list_is_read_in_linear_time() {
        // 200,000 elements, every one changed: each line is read a bounded number of
        // times (a quadratic reading would not end within the test's time).
        let mut text = String::from("app.use(\n");
        for _ in 0..200_000 {
            text.push_str("  handler,\n");
        }
        text.push_str(");\n");
        let lines = split_lines(text.as_bytes());
        let lists = Lists::new(&lines, CommentStyle::Slash);
        let mut fired = HashMap::new();
        let decided = (1..=200_000)
            .filter(|&index| lists.deciding(index, &mut fired, |_| false).is_some())
            .count();
        assert_eq!(decided, 0);
    }

    const HONO: &str = "app.post(\n  \"/licenses\",\n  rateLimiter({\n    limit: 10,\n  }),\n  zValidator(\"json\", schema),\n  async (c) => {\n    return c.json(await create(c));\n  },\n);\n";

    #[test]
    fn a_changed_handler_is_read_with_the_handlers_beside_it() {
        // The validator (line 6) beside the limiter (line 3).
        assert_eq!(decider(HONO, 6, "rateLimiter"), Some(3));
        // The handler's header is an element too.
        assert_eq!(decider(HONO, 7, "rateLimiter"), Some(3));
        // The limiter itself is read by its line; its siblings decide nothing here.
        assert_eq!(decider(HONO, 3, "rateLimiter"), None);
        // A line inside an element (the handler's body, the limiter's options), the
        // route's path and the closing line are no elements.
        assert_eq!(decider(HONO, 8, "rateLimiter"), None);
        assert_eq!(decider(HONO, 4, "rateLimiter"), None);
        assert_eq!(decider(HONO, 2, "rateLimiter"), None);
        assert_eq!(decider(HONO, 10, "rateLimiter"), None);
        // A path that says `login` is no sibling that decides.
        let login = HONO.replace("/licenses", "/login");
        assert_eq!(decider(&login, 6, "login"), None);
    }

    #[test]
    fn only_handler_lists_are_read() {
        // A guard list decides by its opener.
        let guards = "@UseGuards(\n  JwtAuthGuard,\n  RolesGuard,\n)\n";
        assert_eq!(decider(guards, 3, "UseGuards"), Some(1));
        let fastify = "fastify.get('/x', {\n  preHandler: [\n    fastify.authenticate,\n    validate,\n  ],\n}, handler);\n";
        assert_eq!(decider(fastify, 4, "authenticate"), Some(3));
        let chained = "router\n  .route(\"/x\")\n  .post(\n    requireAuth,\n    validate,\n  );\n";
        assert_eq!(decider(chained, 5, "requireAuth"), Some(4));
        // An HTTP client's call and an object are no handler lists.
        let client = "axios.post(\n  url,\n  body,\n  { headers: { Authorization: token } },\n);\n";
        assert_eq!(decider(client, 3, "Authorization"), None);
        let object = "const routes = {\n  a: requireAuth,\n  b: validate,\n};\n";
        assert_eq!(decider(object, 3, "requireAuth"), None);
        // A comment beside the element is not read.
        let commented = "app.use(\n  // requireAuth,\n  validate,\n);\n";
        assert_eq!(decider(commented, 3, "requireAuth"), None);
    }

    #[test]
    fn handler_list_openers_are_told_by_their_receiver_and_method() {
        for line in [
            "app.post(",
            "  licensingApp.get(",
            "this.router.delete(",
            "api.use(",
            "}).post(",
            "@UseGuards(",
            "  preHandler: [",
            "const stack = compose([",
        ] {
            assert_ne!(what_opens(line.as_bytes()), Opens::Nothing, "{line}");
        }
        for line in [
            "axios.post(",
            "map.get(",
            "app.post(\"/x\", handler);",
            "app.post(\"/x\", (req, res) => {",
            "const x = [",
            "@Controller(",
        ] {
            assert_eq!(what_opens(line.as_bytes()), Opens::Nothing, "{line}");
        }
        assert!(is_string_only(b"  \"/licenses\","));
        assert!(is_string_only(b"  '/x'"));
        assert!(!is_string_only(b"  \"a\" + b,"));
        assert!(!is_string_only(b"  zValidator(\"json\", s),"));
    }
}
