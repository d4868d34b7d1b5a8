//! Rails controller callbacks: what a `before_action` line runs.
//!
//! `before_action :set_room, only: %i[ edit ]` names a method and says nothing else:
//! whether the line is an access decision is said by that method's body, which may be in
//! the same controller or in the controller it inherits from (`class
//! Rooms::DirectsController < RoomsController`, whose `set_room` finds the room among
//! `Current.user.rooms`). For each changed callback line of code of a Rails controller
//! (`before_action`, `prepend_before_action`, `append_before_action`, `around_action`,
//! and their `skip_` forms), the methods it names are looked up in the file, then in its
//! parent controllers found by Rails' naming (`RoomsController` in
//! `app/controllers/rooms_controller.rb`, a namespace's folder first), at most
//! [`PARENT_DEPTH`] files up, then in the concerns the file and those parents include
//! (`include Authorization` → `app/controllers/concerns/authorization.rb`, else
//! `app/controllers/authorization.rb`; at most [`MAX_CONCERNS`] files read, a gem's module
//! found in neither not counted); each body is read by the auth trigger's line rules that
//! read the file. A body that fires one makes the callback line `auth`
//! ([`RAILS_CALLBACK_RULE`]). A method found nowhere (a gem's, as Devise's
//! `authenticate_user!`, or one of a module that is no file of the app's controllers)
//! reads as it always did: the line is what its own words and path say; but where an
//! included concern was left unread at a limit, a method found nowhere read may be its,
//! and the line is `auth` (fail closed).
//!
//! The cheap path: only when the auth trigger's class is above what the other findings
//! reached, only for a changed file named `…_controller.rb` under a `controllers/` folder
//! whose auth scope rules are still open (not a test, auth not fired on it), and only for
//! its changed lines that are callback lines.

use super::comments::CommentStyle;
use super::enclosing::Reading;
use super::finding::Finding;
use super::matcher::Matcher;
use super::project::ProjectModel;
use crate::git::{GitError, Head, LineSide, Repo};

/// The rule id of an auth callback.
pub(crate) const RAILS_CALLBACK_RULE: &str = "auth.scope.rails-callback";

/// The stack that enables it.
const RAILS: &str = "rails";

/// The trigger it reports.
const AUTH: &str = "auth";

/// How many parent controllers are read for a method.
const PARENT_DEPTH: usize = 3;

/// How many included concerns are read for a controller (its own and its parents').
const MAX_CONCERNS: usize = 8;

/// How many included modules are looked up for a controller: a gem's (`Pagy::Backend`)
/// is looked up and not found, so it does not count to [`MAX_CONCERNS`].
const MAX_MODULES: usize = 64;

/// The callback keywords whose symbols name methods.
const CALLBACKS: [&str; 4] = [
    "before_action",
    "around_action",
    "prepend_before_action",
    "append_before_action",
];

/// The `auth` findings of changed callback lines of Rails controllers whose methods'
/// bodies fire an auth line rule (see the module's documentation). `risk` is the class
/// the other findings reached.
pub(crate) fn rails_callback_findings(
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
        let Some(root) = controllers_root(&path) else {
            continue;
        };
        if !candidate.open_to(matcher, trigger, findings) {
            continue;
        }
        let stacks = project.file_stacks(repo, base, &path)?;
        if !stacks.enables(RAILS) {
            continue;
        }
        // The auth line rules that read a controller: not scope, data or file rules.
        let open = matcher.own_line_rules_for(&path, trigger, |stack| stacks.enables(stack));
        'sides: for (side, at, side_path, numbers) in candidate.sides(base, head) {
            if numbers.is_empty() {
                continue;
            }
            let side_path = side_path.to_string_lossy();
            let Some(text) = repo.read_file_at(at, &side_path)? else {
                continue;
            };
            let lines: Vec<&[u8]> = split_lines(&text);
            // The parent controllers' and concerns' texts, read once a side, when a line
            // first needs them, and whether concerns were left unread at the limit.
            let mut parents: Option<(Vec<Vec<u8>>, bool)> = None;
            for &number in numbers {
                let Some(line) = number.checked_sub(1).and_then(|i| lines.get(i)) else {
                    continue;
                };
                let names = callback_names(line);
                if names.is_empty() {
                    continue;
                }
                let fires_in = |lines: &[&[u8]]| {
                    names
                        .iter()
                        .any(|name| body_fires(lines, name, matcher, &open))
                };
                let mut fires = fires_in(&lines);
                if !fires {
                    // Not decided by this file's own methods: its parents' and the
                    // concerns they include.
                    let (read, unread) = match parents.take() {
                        Some(known) => known,
                        None => {
                            let mut read = read_parents(repo, at, &root, &side_path, &lines)?;
                            let (concerns, unread) = read_concerns(repo, at, &root, &lines, &read)?;
                            read.extend(concerns);
                            (read, unread)
                        }
                    };
                    fires = read.iter().any(|parent| fires_in(&split_lines(parent)));
                    // Fail closed: a method defined nowhere read, where concerns were
                    // left unread, may be one of theirs.
                    fires |= unread
                        && names.iter().any(|name| {
                            definition(&lines, name).is_none()
                                && read
                                    .iter()
                                    .all(|text| definition(&split_lines(text), name).is_none())
                        });
                    parents = Some((read, unread));
                }
                if fires {
                    found.push(Finding {
                        trigger: AUTH.to_string(),
                        class,
                        path: Some(candidate.path.clone()),
                        line: Some(number),
                        side: Some(side),
                        rule: RAILS_CALLBACK_RULE.to_string(),
                        stack: RAILS.to_string(),
                        excerpt: Some(matcher.excerpt(line)),
                    });
                    break 'sides;
                }
            }
        }
    }
    Ok(found)
}

/// The folder that holds a Rails app's controllers, with its slash, when `path` is a
/// controller in it (`app/controllers/rooms/directs_controller.rb` → `app/controllers/`).
fn controllers_root(path: &str) -> Option<String> {
    if !path.ends_with("_controller.rb") {
        return None;
    }
    let at = path.rfind("controllers/")?;
    if at > 0 && !path[..at].ends_with('/') {
        return None;
    }
    Some(path[..at + "controllers/".len()].to_string())
}

/// The lines of `text`, without their line ends.
pub(crate) fn split_lines(text: &[u8]) -> Vec<&[u8]> {
    text.split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .collect()
}

/// The methods a callback line names: `before_action :a, :b, only: …` → `a`, `b`
/// (`skip_` forms too). Empty for any other line.
fn callback_names(line: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_start();
    let text = text.strip_prefix("skip_").unwrap_or(text);
    let Some(rest) = CALLBACKS.iter().find_map(|keyword| {
        text.strip_prefix(keyword)
            .filter(|rest| rest.starts_with([' ', '(']))
    }) else {
        return Vec::new();
    };
    let rest = rest.trim_start_matches([' ', '(']);
    let mut names = Vec::new();
    for part in rest.split(',') {
        let Some(symbol) = part.trim().strip_prefix(':') else {
            break;
        };
        let name: String = symbol
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '?' | '!'))
            .collect();
        let rest = symbol[name.len()..].trim().trim_end_matches(')');
        if name.is_empty() || !rest.trim().is_empty() {
            break;
        }
        names.push(name);
    }
    names
}

/// Whether the body of method `name` in `lines` (its `def` line to the line back at the
/// `def`'s indentation) holds a line of code that one of the `open` rules matches.
fn body_fires(lines: &[&[u8]], name: &str, matcher: &Matcher, open: &[bool]) -> bool {
    let comments = CommentStyle::Hash;
    let Some((start, indent)) = definition(lines, name) else {
        return false;
    };
    let mut fires = false;
    // An endless method (`def x = …`) is its own body.
    let mut body = vec![lines[start]];
    for line in &lines[start + 1..] {
        let trimmed = line.trim_ascii_start();
        if trimmed.is_empty() {
            continue;
        }
        if line.len() - trimmed.len() <= indent {
            break;
        }
        body.push(line);
    }
    for line in body {
        if comments.is_comment(line) {
            continue;
        }
        matcher.open_matches(LineSide::Added, line, open, |_| fires = true);
        if fires {
            break;
        }
    }
    fires
}

/// Where method `name` is defined in `lines`: its `def` line's index and indentation.
fn definition(lines: &[&[u8]], name: &str) -> Option<(usize, usize)> {
    lines.iter().enumerate().find_map(|(index, line)| {
        let trimmed = line.trim_ascii_start();
        let rest = trimmed.strip_prefix(b"def ")?;
        let rest = rest.trim_ascii_start();
        let rest = rest.strip_prefix(b"self.").unwrap_or(rest);
        let rest = rest.strip_prefix(name.as_bytes())?;
        let ends = rest
            .first()
            .is_none_or(|b| !b.is_ascii_alphanumeric() && !matches!(b, b'_' | b'?' | b'!'));
        ends.then_some((index, line.len() - trimmed.len()))
    })
}

/// The class a controller inherits from: `class A::B < Parent` → `Parent`.
fn parent_class(lines: &[&[u8]]) -> Option<String> {
    lines.iter().find_map(|line| {
        let text = String::from_utf8_lossy(line);
        let rest = text.trim_start().strip_prefix("class ")?;
        let (_, parent) = rest.split_once('<')?;
        let parent: String = parent
            .trim()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':'))
            .collect();
        let parent = parent.trim_start_matches(':').to_string();
        (!parent.is_empty() && parent.ends_with("Controller")).then_some(parent)
    })
}

/// The texts of the controllers `lines` (the file at `path`) inherits from, nearest
/// first, at most [`PARENT_DEPTH`] of them, each found as [`read_parent`] finds it.
fn read_parents(
    repo: &Repo,
    at: &Head,
    root: &str,
    path: &str,
    lines: &[&[u8]],
) -> Result<Vec<Vec<u8>>, GitError> {
    let folder_of = |path: &str| {
        path.rsplit_once('/')
            .map_or(String::new(), |(dir, _)| format!("{dir}/"))
    };
    let mut parents = Vec::new();
    let mut parent = parent_class(lines);
    let mut dir = folder_of(path);
    while parents.len() < PARENT_DEPTH {
        let Some(name) = parent.take() else {
            break;
        };
        let Some((parent_path, text)) = read_parent(repo, at, root, &dir, &name)? else {
            break;
        };
        parent = parent_class(&split_lines(&text));
        dir = folder_of(&parent_path);
        parents.push(text);
    }
    Ok(parents)
}

/// The modules a file includes: `include Authorization, RoomScoped` → both. Only
/// constants: `include(*modules)` or a method call names none.
fn included_modules(lines: &[&[u8]]) -> Vec<String> {
    let mut modules = Vec::new();
    for line in lines {
        let text = String::from_utf8_lossy(line);
        let Some(rest) = text.trim_start().strip_prefix("include ") else {
            continue;
        };
        for part in rest.split(',') {
            let part = part.trim();
            let name: String = part
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':'))
                .collect();
            let name = name.trim_start_matches(':');
            if !name.starts_with(|c: char| c.is_ascii_uppercase()) || name.len() != part.len() {
                break;
            }
            modules.push(name.to_string());
        }
    }
    modules
}

/// The texts of the concerns the controller (`lines`) and its `parents` include, each
/// looked up as Rails' autoloader would find a controller concern: `concerns/` under the
/// controllers' `root`, then `root` itself. A module found in neither (a gem's,
/// `Pagy::Backend`) is not read and does not count. At most [`MAX_CONCERNS`] are read
/// and [`MAX_MODULES`] looked up: the second value says whether an include was left
/// unread at a limit.
fn read_concerns(
    repo: &Repo,
    at: &Head,
    root: &str,
    lines: &[&[u8]],
    parents: &[Vec<u8>],
) -> Result<(Vec<Vec<u8>>, bool), GitError> {
    let mut names = included_modules(lines);
    for parent in parents {
        names.extend(included_modules(&split_lines(parent)));
    }
    let mut seen: Vec<String> = Vec::new();
    let mut concerns = Vec::new();
    for name in names {
        if seen.contains(&name) {
            continue;
        }
        if concerns.len() == MAX_CONCERNS || seen.len() == MAX_MODULES {
            return Ok((concerns, true));
        }
        let file = format!("{}.rb", underscore(&name));
        for path in [format!("{root}concerns/{file}"), format!("{root}{file}")] {
            if let Some(text) = repo.read_file_at(at, &path)? {
                concerns.push(text);
                break;
            }
        }
        seen.push(name);
    }
    Ok((concerns, false))
}

/// Reads the file of controller class `name` at `at`, looked up as Rails would: in the
/// folder of the class that names it (`dir`) and each folder above it, up to `root`. The
/// path read and its text.
fn read_parent(
    repo: &Repo,
    at: &Head,
    root: &str,
    dir: &str,
    name: &str,
) -> Result<Option<(String, Vec<u8>)>, GitError> {
    let file = format!("{}.rb", underscore(name));
    let mut folder = dir.to_string();
    loop {
        if folder.starts_with(root) {
            let path = format!("{folder}{file}");
            if let Some(text) = repo.read_file_at(at, &path)? {
                return Ok(Some((path, text)));
            }
        }
        if folder.len() <= root.len() {
            return Ok(None);
        }
        let trimmed = folder.trim_end_matches('/');
        folder = trimmed
            .rsplit_once('/')
            .map_or(String::new(), |(up, _)| format!("{up}/"));
    }
}

/// A constant's file name as Rails' autoloader spells it: `Admin::HTTPBaseController`
/// → `admin/http_base_controller`.
fn underscore(name: &str) -> String {
    let chars: Vec<char> = name.replace("::", "/").chars().collect();
    let mut out = String::new();
    for (index, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && index > 0 {
            let previous = chars[index - 1];
            let next_lower = chars.get(index + 1).is_some_and(char::is_ascii_lowercase);
            if previous.is_ascii_lowercase()
                || previous.is_ascii_digit()
                || (previous.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callback_lines_name_their_methods() {
        assert_eq!(
            callback_names(b"  before_action :set_room, only: %i[ edit ]"),
            ["set_room"]
        );
        assert_eq!(
            callback_names(b"  skip_before_action :a, :b?, except: :show"),
            ["a", "b?"]
        );
        assert_eq!(
            callback_names(b"  before_action(:load_user)"),
            ["load_user"]
        );
        assert!(callback_names(b"  before_action { @x = 1 }").is_empty());
        assert!(callback_names(b"  after_action :track").is_empty());
        assert!(callback_names(b"  before_actions :x").is_empty());
    }

    #[test]
    fn included_concerns_are_named_by_their_constants() {
        assert_eq!(
            included_modules(&[
                b"class RoomsController < ApplicationController",
                b"  include RoomScoped, Admin::Authorization",
                b"  include Pagy::Backend",
            ]),
            ["RoomScoped", "Admin::Authorization", "Pagy::Backend"]
        );
        assert!(included_modules(&[b"  include(*MODULES)", b"  includes :user"]).is_empty());
        assert!(included_modules(&[b"  include helpers"]).is_empty());
        assert_eq!(underscore("Admin::Authorization"), "admin/authorization");
    }

    #[test]
    fn controllers_are_found_by_rails_naming() {
        assert_eq!(
            controllers_root("app/controllers/rooms/directs_controller.rb").as_deref(),
            Some("app/controllers/")
        );
        assert_eq!(controllers_root("app/models/room.rb"), None);
        assert_eq!(controllers_root("lib/mycontrollers/a_controller.rb"), None);
        assert_eq!(underscore("RoomsController"), "rooms_controller");
        assert_eq!(
            underscore("Admin::HTTPBaseController"),
            "admin/http_base_controller"
        );
        assert_eq!(
            parent_class(&[b"class Rooms::DirectsController < RoomsController"]).as_deref(),
            Some("RoomsController")
        );
        assert_eq!(parent_class(&[b"class Room < ApplicationRecord"]), None);
    }
}
