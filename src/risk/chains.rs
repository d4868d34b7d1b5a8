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
//! blocks: its opening line is the nearest line above with less indentation, and its
//! siblings are the lines at its own indentation up to the line back at the opener's. A
//! route's path (an element that is only a string) is neither read as a sibling nor
//! counted as a changed element: it names the route, it guards nothing, and a path
//! rewritten beside unchanged guards stays `api-route` (docs/gate.md, "Protocol
//! questions"). Lines inside an element (a handler's body, a limiter's options) are not
//! elements.
//!
//! The cheap path: only when the auth trigger's class is above what the other findings
//! reached, only for changed JavaScript and TypeScript files whose auth scope rules are
//! still open (not a test, auth not fired on it), and for each changed line, only the
//! lines up to its opener are read unless that opener begins a handler list.

use super::callbacks::split_lines;
use super::comments::CommentStyle;
use super::enclosing::{closes_only, indentation, ScopeCandidate};
use super::finding::Finding;
use super::matcher::Matcher;
use super::project::ProjectModel;
use crate::git::{GitError, Head, Repo};
use crate::policy::RiskClass;
use regex::bytes::Regex;
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

/// A line that opens a handler list written one element a line (trimmed; see the
/// module's documentation).
fn opens_handler_list(line: &[u8]) -> bool {
    static OPENER: OnceLock<Option<Regex>> = OnceLock::new();
    let opener = OPENER.get_or_init(|| {
        Regex::new(concat!(
            r"(?:[\w$]*(?i:app|router|server|fastify|hono|routes?)|\))\s*\.\s*",
            r"(?:get|post|put|patch|delete|del|all|options|head|use|route|on|any)\s*\(\s*$",
            r"|^\.\s*(?:get|post|put|patch|delete|del|all|use|route)\s*\(\s*$",
            r"|\.use\s*\(\s*$",
            r"|^@(?:UseGuards|UseInterceptors|UsePipes)\s*\(\s*$",
            r"|\b(?:preHandler|onRequest|preValidation|preParsing|beforeHandle|middlewares?|guards)\s*:\s*\[\s*$",
            r"|\bcompose\s*\(\s*\[?\s*$",
        ))
        .ok()
    });
    // Fail closed: a pattern that did not compile reads every list.
    opener
        .as_ref()
        .is_none_or(|regex| regex.is_match(line.trim_ascii()))
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

/// The line of the handler list that decides for the changed line at `index` (0-based),
/// when it is an element of one: the list's opener or an element beside it that `fires`
/// accepts, by index. Blank and comment lines are skipped.
fn deciding_sibling(
    lines: &[&[u8]],
    index: usize,
    comments: CommentStyle,
    fires: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let line = lines.get(index)?;
    let indent = indentation(line)?;
    if closes_only(line) || is_string_only(line) || comments.is_comment(line) {
        return None;
    }
    let opener = (0..index).rev().find(|&at| {
        indentation(lines[at]).is_some_and(|depth| depth < indent)
            && !comments.is_comment(lines[at])
    })?;
    if !opens_handler_list(lines[opener]) {
        return None;
    }
    if fires(lines[opener]) {
        return Some(opener);
    }
    let outer = indentation(lines[opener])?;
    for (at, sibling) in lines.iter().enumerate().skip(opener + 1) {
        let Some(depth) = indentation(sibling) else {
            continue;
        };
        if depth <= outer {
            break;
        }
        let element = depth == indent
            && at != index
            && !closes_only(sibling)
            && !is_string_only(sibling)
            && !comments.is_comment(sibling);
        if element && fires(sibling) {
            return Some(at);
        }
    }
    None
}

/// The `auth` findings of changed elements of handler lists whose opener or siblings
/// fire an auth line rule (see the module's documentation). `risk` is the class the
/// other findings reached.
pub(crate) fn middleware_chain_findings(
    repo: &Repo,
    (base, head): (&Head, &Head),
    matcher: &Matcher,
    project: &mut ProjectModel,
    candidates: &[ScopeCandidate],
    findings: &[Finding],
    risk: RiskClass,
) -> Result<Vec<Finding>, GitError> {
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
            for &number in numbers {
                let Some(index) = number.checked_sub(1) else {
                    continue;
                };
                if deciding_sibling(&lines, index, comments, fires).is_some() {
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
        deciding_sibling(&lines, number - 1, CommentStyle::Slash, fires).map(|at| at + 1)
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
            assert!(opens_handler_list(line.as_bytes()), "{line}");
        }
        for line in [
            "axios.post(",
            "map.get(",
            "app.post(\"/x\", handler);",
            "app.post(\"/x\", (req, res) => {",
            "const x = [",
            "@Controller(",
        ] {
            assert!(!opens_handler_list(line.as_bytes()), "{line}");
        }
        assert!(is_string_only(b"  \"/licenses\","));
        assert!(is_string_only(b"  '/x'"));
        assert!(!is_string_only(b"  \"a\" + b,"));
        assert!(!is_string_only(b"  zValidator(\"json\", s),"));
    }
}
