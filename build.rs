//! Sets `HANDOFF_VERSION` for `handoff --version`: the package version, and the commit
//! and its date when built from a git checkout (`0.1.0 (3f2a9c1d0b4e 2026-11-23)`), or
//! `HANDOFF_COMMIT` when a packager sets it. Outside git (a crates.io or sdist build, git
//! missing) it is the package version alone.
//!
//! Reads the built-in policy, `src/policy/defaults.yaml`, once, here, and writes its
//! values as static Rust literals of typed structures to `OUT_DIR/defaults.rs` (the
//! `Built…` structures of `src/policy/defaults.rs`), which the program copies into its
//! policy without parsing text or matching keys: parsing the YAML cost every run about
//! 6.5 M instructions, three times git's whole diff of a one-line commit, JSON still
//! 1.1 M, and reading a tree of values through serde 0.6 M. The YAML file stays the
//! source; a test holds the policy read from the literals equal to the one the YAML
//! loader reads.
//!
//! Reads there too the literals of every built-in line regex and rule glob (the words
//! every match holds, `src/pattern/required.rs`, which this script includes) into
//! `OUT_DIR/literals.rs`, sorted tables the classifier's prefilters look patterns up in:
//! reading them from the rules' text cost every run about 4.5 M instructions. The tables
//! hold spans of one string and of arrays, not pointers, which the loader would relocate
//! in every run.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use yaml_serde::Value;

// Only the functions of text are used here.
#[allow(dead_code)]
#[path = "src/pattern/required.rs"]
mod required;
#[path = "src/pattern/slots.rs"]
mod slots;
// Only the index's construction is used here.
#[allow(dead_code)]
#[path = "src/pattern/start_index.rs"]
mod start_index;
// Only the encoder is used here.
#[allow(dead_code)]
#[path = "src/pattern/hir_code.rs"]
mod hir_code;

fn main() {
    let defaults = write_defaults_tree();
    write_literals(&defaults);
    let version = env!("CARGO_PKG_VERSION");
    let full = match commit() {
        Some(commit) => format!("{version} ({commit})"),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=HANDOFF_VERSION={full}");
    println!("cargo:rerun-if-env-changed=HANDOFF_COMMIT");
    // A new commit moves HEAD or the branch it names (loose or packed).
    let reference = git(&["symbolic-ref", "-q", "HEAD"]);
    for name in ["HEAD", "packed-refs"]
        .into_iter()
        .chain(reference.as_deref())
    {
        if let Some(path) = git(&["rev-parse", "--git-path", name]) {
            if Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
}

/// `HANDOFF_COMMIT` when a packager sets it, else the checkout's commit and date.
fn commit() -> Option<String> {
    if let Ok(commit) = std::env::var("HANDOFF_COMMIT") {
        return Some(commit).filter(|c| !c.trim().is_empty());
    }
    // Only the package's own repository counts, not one it happens to sit in.
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let manifest = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    let same = |a: &str, b: &str| std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok();
    if !same(&top, &manifest) {
        return None;
    }
    git(&["log", "-1", "--format=%h %cs", "--abbrev=12"])
}

/// The trimmed output of a successful git command, run in the package's directory.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Converts `src/policy/defaults.yaml` to `OUT_DIR/defaults.rs` (`BUILT_DEFAULTS`, the
/// same values as typed literals, no comments) and returns it. A file that is not YAML
/// stops the build at its line and column.
fn write_defaults_tree() -> Value {
    let source = "src/policy/defaults.yaml";
    println!("cargo:rerun-if-changed={source}");
    let text = std::fs::read_to_string(source)
        .unwrap_or_else(|error| panic!("{source} cannot be read: {error}"));
    let value: Value = yaml_serde::from_str(&text)
        .unwrap_or_else(|error| panic!("{source} is not valid YAML: {error}"));
    let mut tree = String::from("pub(super) static BUILT_DEFAULTS: BuiltDefaults = ");
    typed(&mut tree, &value, "");
    tree.push_str(";\n");
    write_out("defaults.rs", &tree);
    value
}

/// Writes `value`, the value of key `key` (`""`: the whole file), as a Rust expression of
/// the `Built…` structures of `src/policy/defaults.rs` (`{:?}` writes a string as a Rust
/// literal). A mapping is a structure whose fields are its keys (a key the structure does
/// not have is a compile error; one the file omits takes the structure's `DEFAULT`);
/// `evidence` is a list of its ids with their structures.
fn typed(text: &mut String, value: &Value, key: &str) {
    match value {
        Value::Bool(value) => {
            let _ = write!(text, "{value}");
        }
        Value::String(string) => {
            let _ = write!(text, "{string:?}");
        }
        Value::Sequence(items) => {
            text.push_str("&[");
            for item in items {
                typed(text, item, key);
                text.push_str(", ");
            }
            text.push(']');
        }
        Value::Mapping(entries) if key == "evidence" => {
            text.push_str("&[");
            for (id, item) in entries {
                let _ = write!(text, "({:?}, ", map_key(id));
                typed_struct(text, item, "BuiltEvidence");
                text.push_str("), ");
            }
            text.push(']');
        }
        Value::Mapping(_) => {
            let name = match key {
                "" => "BuiltDefaults",
                "triggers" => "BuiltTrigger",
                "rules" => "BuiltRule",
                "reviewers" => "BuiltReviewers",
                other => panic!("defaults.yaml: `{other}` holds a mapping, which is not read"),
            };
            typed_struct(text, value, name);
        }
        other => {
            panic!("defaults.yaml: {other:?}: only strings, booleans, lists and maps are read")
        }
    }
}

/// Writes the mapping `value` as structure `name` (see [`typed`]).
fn typed_struct(text: &mut String, value: &Value, name: &str) {
    let Value::Mapping(entries) = value else {
        panic!("defaults.yaml: {value:?} should be a mapping ({name})");
    };
    let _ = write!(text, "{name} {{ ");
    for (key, value) in entries {
        let key = map_key(key);
        // The keys a rule may leave out with no default of its own.
        let optional = name == "BuiltRule" && matches!(key, "line" | "stack" | "reads_test_files");
        let _ = write!(text, "{key}: ");
        text.push_str(if optional { "Some(" } else { "" });
        typed(text, value, key);
        text.push_str(if optional { "), " } else { ", " });
    }
    let _ = write!(text, "..{name}::DEFAULT }}");
}

/// A mapping's key, which must be a string.
fn map_key(key: &Value) -> &str {
    key.as_str()
        .unwrap_or_else(|| panic!("defaults.yaml: a key that is not a string: {key:?}"))
}

/// Writes `OUT_DIR/literals.rs`: every literal of a built-in pattern once, sorted
/// (`BUILT_LITERAL_ENDS`), `BUILT_REGEX_LITERALS` (each built-in line regex) and
/// `BUILT_GLOB_LITERALS` (each built-in rule glob as the policy holds it, `.‹code›`
/// expanded) with their literals' indices, sorted by pattern, and
/// `BUILT_REGEX_REQUIREMENTS`, each built-in line regex's whole requirement. A pattern
/// missing from them is read at run time (a test checks every built-in one is there).
///
/// The tables hold no pointer: every string is a span of one (`BUILT_TEXT`), every list
/// a span of one array. A table of pointers is relocated by the loader when the program
/// starts, every page of it written in every run: these were 5,400 pointers on 35 pages.
fn write_literals(defaults: &Value) {
    println!("cargo:rerun-if-changed=src/pattern/required.rs");
    println!("cargo:rerun-if-changed=src/pattern/slots.rs");
    let extensions: Vec<&str> = words(defaults.get("code_extensions")).collect();
    let code = format!(".{{{}}}", extensions.join(","));
    let (mut regexes, mut requirements, mut globs) =
        (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    let rules = sequence(defaults.get("triggers")).flat_map(|t| sequence(t.get("rules")));
    for rule in rules {
        if let Some(regex) = rule.get("line").and_then(Value::as_str) {
            regexes.insert(regex.to_string(), required::regex_literals(regex));
            requirements.insert(regex.to_string(), required::regex_requirement(regex));
        }
        for glob in words(rule.get("paths")).chain(words(rule.get("files"))) {
            let glob = glob.replace(".‹code›", &code);
            let literals = required::glob_literals(&required::rule_glob(&glob));
            globs.insert(glob, literals);
        }
    }
    let literals: Vec<&String> = regexes
        .values()
        .chain(globs.values())
        .flatten()
        .flatten()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let ids: BTreeMap<&String, usize> = literals
        .iter()
        .enumerate()
        .map(|(id, literal)| (*literal, id))
        .collect();
    assert!(
        ids.len() <= usize::from(u16::MAX),
        "more built-in literals than a u16 counts"
    );
    let (mut strings, mut text, mut lists) = (String::new(), String::new(), Vec::new());
    let mut ends = vec![0];
    for literal in &literals {
        ends.push(span(&mut strings, literal)[1]);
    }
    let _ = writeln!(
        text,
        "static BUILT_LITERAL_ENDS: [u32; {}] = {ends:?};",
        ends.len()
    );
    for (name, patterns) in [
        ("BUILT_REGEX_LITERALS", &regexes),
        ("BUILT_GLOB_LITERALS", &globs),
    ] {
        let rows = table(&mut strings, &mut lists, patterns, &ids);
        let _ = writeln!(
            text,
            "static {name}: [[u32; 4]; {}] = {rows:?};",
            rows.len()
        );
        slot_table(&mut text, name, &strings, &rows);
    }
    let _ = writeln!(
        text,
        "static BUILT_LITERAL_IDS: [u16; {}] = {lists:?};",
        lists.len()
    );
    requirement_tables(&mut text, &mut strings, &requirements);
    hir_tables(&mut text, &mut strings, regexes.keys());
    write_prefilters(
        defaults,
        &code,
        &mut strings,
        [&regexes, &globs],
        &ids,
        &literals,
    );
    let _ = writeln!(text, "const BUILT_TEXT: &str = {strings:?};");
    write_out("literals.rs", &text);
}

/// Writes `OUT_DIR/prefilters.rs`: `BUILT_PREFILTERS`, the prefilters of the built-in
/// policy's line regexes, path rules' globs and line rules' file globs, each list in the
/// order the matcher holds it (rule by rule, `.‹code›` expanded), gathered as
/// `Prefilter::new` gathers built-in literals (`src/pattern/literals.rs`: the literals
/// any pattern holds take a slot each, in the table's order; each slot's patterns in
/// order; the patterns without literals apart) and indexed with the program's own
/// `StartIndex::new` (`src/pattern/start_index.rs`). The patterns are spans of
/// `strings`, so the program can tell its lists are these.
fn write_prefilters(
    defaults: &Value,
    code: &str,
    strings: &mut String,
    [regexes, globs]: [&BTreeMap<String, Option<Vec<String>>>; 2],
    ids: &BTreeMap<&String, usize>,
    literals: &[&String],
) {
    println!("cargo:rerun-if-changed=src/pattern/start_index.rs");
    let (mut lines, mut paths, mut files) = (Vec::new(), Vec::new(), Vec::new());
    let expand = |glob: &str| glob.replace(".‹code›", code);
    for rule in sequence(defaults.get("triggers")).flat_map(|t| sequence(t.get("rules"))) {
        match rule.get("line").and_then(Value::as_str) {
            Some(regex) => {
                lines.push(regex.to_string());
                files.extend(words(rule.get("files")).map(expand));
            }
            None => paths.extend(words(rule.get("paths")).map(expand)),
        }
    }
    let mut text = String::from("static BUILT_PREFILTERS: [BuiltPrefilter; 3] = [\n");
    for (patterns, table) in [(&lines, regexes), (&paths, globs), (&files, globs)] {
        let items: Vec<Option<Vec<usize>>> = patterns
            .iter()
            .map(|pattern| {
                let held = table[pattern].as_ref();
                held.map(|held| held.iter().map(|literal| ids[literal]).collect())
            })
            .collect();
        // The literals held take the first slots, in the table's order.
        let used: BTreeSet<usize> = items.iter().flatten().flatten().copied().collect();
        let slot_of: BTreeMap<usize, usize> = used
            .iter()
            .enumerate()
            .map(|(slot, &id)| (id, slot))
            .collect();
        let mut owners_of: Vec<Vec<usize>> = vec![Vec::new(); used.len()];
        let mut always = Vec::new();
        for (index, item) in items.iter().enumerate() {
            match item {
                None => always.push(index),
                Some(held) => {
                    for id in held {
                        owners_of[slot_of[id]].push(index);
                    }
                }
            }
        }
        let mut starts = vec![0];
        let mut owners: Vec<usize> = Vec::new();
        for group in &owners_of {
            owners.extend(group);
            starts.push(owners.len());
        }
        let built = start_index::StartIndex::new(used.iter().map(|&id| literals[id].as_bytes()));
        let spans: Vec<[u32; 2]> = patterns
            .iter()
            .map(|pattern| match strings.find(pattern.as_str()) {
                Some(at) => [index(at), index(at + pattern.len())],
                None => span(strings, pattern),
            })
            .collect();
        let slots: Vec<usize> = used.into_iter().collect();
        let _ = writeln!(
            text,
            "BuiltPrefilter {{ patterns: &{spans:?}, literals: &{slots:?}, starts: &{starts:?}, \
             owners: &{owners:?}, always: &{always:?}, index_starts: {:?}, index_first: &{:?}, \
             index_entries: &{:?}, index_pairs: &{:?}, index_by_pair: &{:?}, \
             index_short: &{:?} }},",
            built.starts, built.first, built.entries, built.pairs, built.by_pair, built.short,
        );
    }
    text.push_str("];\n");
    write_out("prefilters.rs", &text);
}

/// One table of patterns and their literals' indices: each pattern's span in `strings`,
/// then its literals' span in `lists` (`u32::MAX` twice when its text does not say).
fn table(
    strings: &mut String,
    lists: &mut Vec<u16>,
    patterns: &BTreeMap<String, Option<Vec<String>>>,
    ids: &BTreeMap<&String, usize>,
) -> Vec<[u32; 4]> {
    let mut rows = Vec::new();
    for (pattern, literals) in patterns {
        let [start, end] = span(strings, pattern);
        let list = match literals {
            Some(literals) => {
                let at = index(lists.len());
                lists.extend(literals.iter().map(|literal| ids[literal] as u16));
                [at, index(lists.len())]
            }
            None => [u32::MAX; 2],
        };
        rows.push([start, end, list[0], list[1]]);
    }
    rows
}

/// Writes each built-in line regex's whole requirement: the regexes and the
/// requirements' literals as spans of `strings`, the requirements as one code of `u32`s
/// (`BUILT_REQUIREMENT_CODE`, [`requirement_code`]), and `BUILT_REGEX_REQUIREMENTS`,
/// sorted by regex: its span, then its code's (as a tree of borrowed parts, 4,000
/// pointers on 27 pages).
fn requirement_tables(
    text: &mut String,
    strings: &mut String,
    requirements: &BTreeMap<String, required::Requirement>,
) {
    let (mut code, mut rows) = (Vec::new(), Vec::new());
    for (regex, requirement) in requirements {
        let key = span(strings, regex);
        let start = code.len();
        requirement_code(&mut code, strings, requirement);
        rows.push([key[0], key[1], index(start), index(code.len())]);
    }
    let _ = writeln!(
        text,
        "static BUILT_REQUIREMENT_CODE: [u32; {}] = {code:?};",
        code.len()
    );
    let _ = writeln!(
        text,
        "static BUILT_REGEX_REQUIREMENTS: [[u32; 4]; {}] = {rows:?};",
        rows.len()
    );
    slot_table(text, "BUILT_REGEX_REQUIREMENTS", strings, &rows);
}

/// Writes each built-in line regex's syntax tree, parsed with the classifier's settings
/// (`compile_line_regex`: bytes, ASCII classes), as code (`BUILT_HIR_CODE`,
/// `src/pattern/hir_code.rs`), and `BUILT_REGEX_HIRS`, sorted by regex: its span in
/// `strings`, then its code's.
fn hir_tables<'r>(
    text: &mut String,
    strings: &mut String,
    regexes: impl Iterator<Item = &'r String>,
) {
    println!("cargo:rerun-if-changed=src/pattern/hir_code.rs");
    let (mut code, mut rows) = (Vec::new(), Vec::new());
    for regex in regexes {
        // A parser for each: one that is reused keeps the flags a regex set at its top
        // level (`(?i)`) for the next.
        let mut parser = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build();
        let hir = parser
            .parse(regex)
            .unwrap_or_else(|error| panic!("a built-in line regex does not parse: {error}"));
        // The regex's text is in `strings` already (its requirement's key).
        let key = match strings.find(regex.as_str()) {
            Some(at) => [index(at), index(at + regex.len())],
            None => span(strings, regex),
        };
        let start = code.len();
        hir_code::encode(&hir, &mut code, strings);
        rows.push([key[0], key[1], index(start), index(code.len())]);
    }
    let _ = writeln!(
        text,
        "static BUILT_HIR_CODE: [u32; {}] = {code:?};",
        code.len()
    );
    let _ = writeln!(
        text,
        "static BUILT_REGEX_HIRS: [[u32; 4]; {}] = {rows:?};",
        rows.len()
    );
    slot_table(text, "BUILT_REGEX_HIRS", strings, &rows);
}

/// Writes `NAME_SLOTS`, the slots by which table `name` is looked up ([`slots`]): each
/// holds a row's index plus one, or 0 when empty; a power of two, at least twice as many
/// as the rows.
fn slot_table(text: &mut String, name: &str, strings: &str, rows: &[[u32; 4]]) {
    let mut table = vec![0u16; (rows.len() * 2).next_power_of_two()];
    for (row, [start, end, _, _]) in rows.iter().enumerate() {
        let key = &strings.as_bytes()[*start as usize..*end as usize];
        let free = slots::probe(key, table.len()).find(|&slot| table[slot] == 0);
        let slot = free.expect("a table of slots has free ones");
        table[slot] = u16::try_from(row + 1).expect("a built table of fewer than 65,535 rows");
    }
    let _ = writeln!(
        text,
        "static {name}_SLOTS: [u16; {}] = {table:?};",
        table.len()
    );
}

/// Appends `part` to `strings` and returns where it is.
fn span(strings: &mut String, part: &str) -> [u32; 2] {
    let start = index(strings.len());
    strings.push_str(part);
    [start, index(strings.len())]
}

/// A length or a place in a table built here, as the `u32` the tables hold.
fn index(at: usize) -> u32 {
    u32::try_from(at).expect("a built table of fewer than 2^32 items")
}

/// Writes `requirement` as code, in prefix order: a literal as `[0, start, end]` (its
/// span in `strings`), `All` and `Any` as `[1, n, length]` and `[2, n, length]` followed
/// by their `n` parts' code, `length` words in all (`src/pattern/literals.rs` reads it).
fn requirement_code(
    code: &mut Vec<u32>,
    strings: &mut String,
    requirement: &required::Requirement,
) {
    let (kind, parts) = match requirement {
        required::Requirement::Literal(literal) => {
            code.push(0);
            code.extend(span(strings, literal));
            return;
        }
        required::Requirement::All(parts) => (1, parts),
        required::Requirement::Any(parts) => (2, parts),
    };
    let at = code.len();
    code.extend([kind, index(parts.len()), 0]);
    for part in parts.iter() {
        requirement_code(code, strings, part);
    }
    code[at + 2] = index(code.len() - at - 3);
}

/// The items of a YAML list (none when `value` is missing or no list).
fn sequence(value: Option<&Value>) -> impl Iterator<Item = &Value> {
    value.and_then(Value::as_sequence).into_iter().flatten()
}

/// The strings of a YAML list.
fn words(value: Option<&Value>) -> impl Iterator<Item = &str> {
    sequence(value).filter_map(Value::as_str)
}

/// Writes `name` in `OUT_DIR`.
fn write_out(name: &str, text: &str) {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = PathBuf::from(out).join(name);
    std::fs::write(&path, text)
        .unwrap_or_else(|error| panic!("{} cannot be written: {error}", path.display()));
}
