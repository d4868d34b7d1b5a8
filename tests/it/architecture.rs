//! The layout the README's "Development" section describes, held to the source: every
//! module of `src/` has its line in the module table (and every line names a module that
//! exists), no two modules of the library import each other, directly or round a
//! longer loop (test code aside), and no file of code grows past 800 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` of the crate (`src`, `templates`), relative to it, with `/`
/// between folders, sorted.
fn files_under(dir: &str) -> Vec<String> {
    fn walk(dir: &Path, into: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, into);
            } else {
                into.push(path);
            }
        }
    }
    let top = root().join(dir);
    let mut files = Vec::new();
    walk(&top, &mut files);
    let mut names: Vec<String> = files
        .iter()
        .map(|path| {
            let relative = path.strip_prefix(&top).expect("a file under its folder");
            let parts: Vec<_> = relative.iter().map(|p| p.to_string_lossy()).collect();
            parts.join("/")
        })
        .collect();
    names.sort();
    names
}

/// Every `.rs` file under `src/`, relative to it, with `/` between folders.
fn source_files() -> Vec<String> {
    files_under("src")
        .into_iter()
        .filter(|file| file.ends_with(".rs"))
        .collect()
}

fn read(relative: &str) -> String {
    let path = root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The module path of a file (`risk/classify/stream.rs` → `risk`, `classify`, `stream`).
fn module_of(file: &str) -> Vec<String> {
    let stem = file.strip_suffix(".rs").unwrap_or(file);
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

/// The first column of the README's module table, each `{a,b}` expanded.
fn readme_rows() -> Vec<String> {
    let readme = read("README.md");
    let table = readme
        .split_once("| module | one home for |\n|---|---|\n")
        .map(|(_, rest)| rest.split("\n\n").next().unwrap_or(""))
        .expect("README.md: the module table (`| module | one home for |`) under Development");
    let mut rows = Vec::new();
    for line in table.lines() {
        let Some(name) = line
            .strip_prefix("| `")
            .and_then(|rest| rest.split_once('`'))
            .map(|(name, _)| name)
        else {
            continue;
        };
        match name.split_once('{').zip(name.split_once('}')) {
            Some(((head, rest), (_, tail))) => {
                let inner = rest.split_once('}').map_or(rest, |(inner, _)| inner);
                rows.extend(inner.split(',').map(|part| format!("{head}{part}{tail}")));
            }
            None => rows.push(name.to_string()),
        }
    }
    rows
}

#[test]
fn the_readme_lists_every_module_of_src_and_only_those() {
    let rows = readme_rows();
    let listed: BTreeSet<&str> = rows.iter().map(String::as_str).collect();
    let files = source_files();
    let mut missing = Vec::new();
    for file in &files {
        if file == "lib.rs" || file == "main.rs" {
            continue;
        }
        let module = module_of(file);
        let by_name = module.len() == 1 && listed.contains(module[0].as_str());
        let by_folder = listed
            .iter()
            .any(|row| row.ends_with('/') && file.starts_with(row));
        if !by_name && !by_folder && !listed.contains(file.as_str()) {
            missing.push(file.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "README.md's module table (Development) has no line for src/{missing:?}: add one \
         (`| `path.rs` | what it is the one home for |`) after its module's line"
    );
    let stale: Vec<&String> = rows
        .iter()
        .filter(|row| {
            let folder = row.ends_with('/');
            !files.iter().any(|file| {
                file.as_str() == row.as_str()
                    || (folder && file.starts_with(row.as_str()))
                    || (!row.contains('/') && module_of(file).first() == Some(*row))
            })
        })
        .collect();
    assert!(
        stale.is_empty(),
        "README.md's module table names {stale:?}, which src/ does not have: remove or \
         rename the line"
    );
}

/// `text` without comments and string or character literals (their contents replaced
/// by nothing), so that only code is read for paths.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if bytes[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(rest) {
            // r"…", r#"…"#, br"…": ends at a quote followed by as many `#`.
            i += rest.iter().position(|&b| b == b'"').unwrap_or(0) + 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while i < bytes.len() && !bytes[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if bytes[i] == b'\'' && (rest.get(1) == Some(&b'\\') || rest.get(2) == Some(&b'\''))
        {
            // A character literal ('a', '\n', '\u{1F600}'); a lifetime ('a) is kept.
            i += 2;
            while i < bytes.len() && bytes[i] != b'\'' {
                i += 1;
            }
            i += 1;
        } else {
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + len]);
            i += len;
        }
    }
    out
}

/// The number of `#` of a raw string literal starting at `rest`, if one does.
fn raw_string_start(rest: &[u8]) -> Option<usize> {
    let rest = rest.strip_prefix(b"b").unwrap_or(rest);
    let rest = rest.strip_prefix(b"r")?;
    let hashes = rest.iter().take_while(|&&b| b == b'#').count();
    (rest.get(hashes) == Some(&b'"')).then_some(hashes)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The first segments of the paths a `use` tree or an inline path names after `at`
/// (which follows `crate::`): `risk::x` gives `risk`, `{risk::x, git}` both.
fn first_segments(code: &str, at: usize) -> Vec<String> {
    let rest = &code[at..];
    let ident = |s: &str| -> String {
        s.bytes()
            .take_while(|&b| is_ident(b))
            .map(char::from)
            .collect()
    };
    if !rest.starts_with('{') {
        return vec![ident(rest)];
    }
    let mut names = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    for (offset, ch) in rest.char_indices() {
        match ch {
            '{' => {
                depth += 1;
                item_start = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => item_start = true,
            c if item_start && depth == 1 && !c.is_whitespace() => {
                names.push(ident(&rest[offset..]));
                item_start = false;
            }
            _ => {}
        }
    }
    names
}

/// Where `#[cfg(test)] mod NAME {` (an inline test module) starts in `code`.
fn inline_test_module(code: &str) -> Option<usize> {
    code.match_indices("#[cfg(test)]")
        .map(|(at, _)| at)
        .find(|&at| {
            let rest = code[at + "#[cfg(test)]".len()..].trim_start();
            let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
            rest.strip_prefix("mod ").is_some_and(|rest| {
                let name_end = rest.bytes().take_while(|&b| is_ident(b)).count();
                rest[name_end..].trim_start().starts_with('{')
            })
        })
}

/// The library's modules that `file`'s code (its tests aside) names, with the line
/// of the first use of each.
fn uses_of(file: &str, top: &BTreeSet<String>) -> BTreeMap<String, usize> {
    let text = read(&format!("src/{file}"));
    let code = code_only(&text);
    // An inline test module stands last in its file (clippy's `items_after_test_module`).
    let code = &code[..inline_test_module(&code).unwrap_or(code.len())];
    let depth = module_of(file).len();
    let mut found = BTreeMap::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < code.len() {
        let starts_word = at == 0 || !is_ident(bytes[at - 1]);
        let (prefix_len, target_at) = if !starts_word {
            (1, None)
        } else if bytes[at..].starts_with(b"crate::") {
            (7, Some(at + 7))
        } else if bytes[at..].starts_with(b"super::") {
            // `super` as often as the file is deep reaches the crate's root.
            let mut end = at;
            let mut count = 0;
            while bytes[end..].starts_with(b"super::") {
                end += 7;
                count += 1;
            }
            (end - at, (count >= depth).then_some(end))
        } else {
            (1, None)
        };
        if let Some(target) = target_at {
            let line = code[..at].matches('\n').count() + 1;
            for name in first_segments(code, target) {
                if top.contains(&name) {
                    found.entry(name).or_insert(line);
                }
            }
        }
        at += prefix_len;
    }
    found
}

#[test]
fn no_two_modules_of_the_library_import_each_other() {
    let files: Vec<String> = source_files()
        .into_iter()
        .filter(|file| file != "main.rs" && !file.starts_with("cli/"))
        .collect();
    // Modules declared `#[cfg(test)]` are test code.
    let mut test_modules = BTreeSet::new();
    for file in &files {
        let code = code_only(&read(&format!("src/{file}")));
        for (at, _) in code.match_indices("#[cfg(test)]") {
            let rest = code[at + 12..].trim_start();
            let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
            if let Some(name) = rest.strip_prefix("mod ").and_then(|r| r.split_once(';')) {
                let mut module = if file == "lib.rs" {
                    Vec::new()
                } else {
                    module_of(file)
                };
                module.push(name.0.trim().to_string());
                test_modules.insert(module);
            }
        }
    }
    let is_test = |file: &str| {
        let module = module_of(file);
        (1..=module.len()).any(|n| test_modules.contains(&module[..n]))
    };
    let top: BTreeSet<String> = files
        .iter()
        .filter(|file| file.as_str() != "lib.rs")
        .map(|file| module_of(file)[0].clone())
        .collect();
    // module → module it uses → where.
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in files
        .iter()
        .filter(|file| *file != "lib.rs" && !is_test(file))
    {
        let from = module_of(file)[0].clone();
        for (to, line) in uses_of(file, &top) {
            if to != from {
                edges
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| format!("src/{file}:{line}"));
            }
        }
    }
    // A cycle: a module that reaches itself.
    for start in edges.keys() {
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(&at).map(|to| to.keys()).into_iter().flatten() {
                if next == start {
                    let hops: Vec<String> = path
                        .iter()
                        .zip(path.iter().skip(1).chain(std::iter::once(start)))
                        .map(|(a, b)| format!("{a} -> {b} ({})", edges[a][b]))
                        .collect();
                    panic!(
                        "modules import each other: {}; move what both need into one of \
                         them or a module below both",
                        hops.join(", ")
                    );
                }
                if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    // The graph is not empty: the scan reads the imports it checks.
    assert!(
        edges
            .get("risk")
            .is_some_and(|to| to.contains_key("policy")),
        "the scan found no use of `policy` in `risk`: {edges:?}"
    );
}

/// The most lines a file of code (or an embedded template) may hold. A file that grows
/// past it is split by moves along a seam it already has, as the other large files were:
/// its tests to a `tests.rs` submodule, or a cohesive part to a module of its own.
const MOST_LINES: usize = 800;

/// Every `.rs` file of `src/` and every template the binary embeds stays within
/// `MOST_LINES`. The data tables (`src/**/*.yaml`, `schema/`) are not held to it: their
/// length is their number of entries, and one table split across files would have to be
/// put back together by its loader.
#[test]
fn no_file_of_code_passes_800_lines() {
    let files = source_files()
        .into_iter()
        .map(|file| format!("src/{file}"))
        .chain(
            files_under("templates")
                .into_iter()
                .map(|file| format!("templates/{file}")),
        );
    let mut too_long = Vec::new();
    let mut longest = 0;
    for file in files {
        let lines = read(&file).lines().count();
        longest = longest.max(lines);
        if lines > MOST_LINES {
            too_long.push(format!("{file} ({lines} lines)"));
        }
    }
    assert!(
        too_long.is_empty(),
        "longer than {MOST_LINES} lines: {}; split each by moves along a seam it has \
         (its tests to a `tests.rs` submodule, or a cohesive part to a module of its own \
         with its `//!`), and give each new file its line in README.md's module table",
        too_long.join(", ")
    );
    // The scan reads the files it checks.
    assert!(longest > 100, "the longest file read has {longest} lines");
}
