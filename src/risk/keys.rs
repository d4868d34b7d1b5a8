//! Configuration files read as data: the key path of each line.
//!
//! A line rule reads `        - name: GOMAXPROCS`; whether that line adds a variable to a
//! container's environment or names a port is said by the keys above it, not by the
//! line. `rules:` in a Kubernetes `ClusterRole` grants permissions, `rules:` anywhere else
//! may be anything. A data rule's regex therefore reads the line's *key path* instead:
//!
//! ```text
//! KIND/key.key.-.key
//! ```
//!
//! `KIND` is the `kind:` of the YAML document the line is in (Kubernetes manifests; empty
//! elsewhere), then the mapping keys from the top of the document down to the line's own
//! key, with `-` for a list item and for a line that has no key of its own (a scalar in a
//! list, a line of a block scalar, an array element). So
//! `Deployment/spec.template.spec.containers.-.env.-.name`,
//! `ClusterRole/rules.-.verbs.-`, `/services.db.environment.POSTGRES_DB` (compose),
//! `/env.PORT` (a TOML `[env]` table), `/program:web.environment` (INI). Values never
//! enter a key path, so a finding's excerpt never prints one.
//!
//! Structure is found by indentation, as `enclosing` finds blocks: what every formatter
//! of these formats writes, and what a Helm or Jinja template still has when it cannot be
//! parsed (its template-only lines, `{{- if … }}`, are skipped). A YAML list item nests
//! half a level below a key at its own column (`env:` then `- name: A` under it), and the
//! keys of the item's mapping below its first one. TOML and INI section headers
//! (`[env]`, `[[headers]]`, `[program:web]`) start the path of the lines below them;
//! a properties key (`spring.security.user.name`) is its own path.

use std::borrow::Cow;

/// A configuration format whose lines get key paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Yaml,
    Json,
    /// TOML and INI: `[section]` headers and `key = value` lines.
    Sections,
    Properties,
    /// Jsonnet (`.jsonnet`, `.libsonnet`): read by brackets (see `jsonnet`).
    Jsonnet,
}

impl Format {
    /// The format of the file at `path`, by its extension.
    pub fn for_path(path: &str) -> Option<Format> {
        let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
        let extension = name.rsplit_once('.').map_or("", |(_, extension)| extension);
        match extension {
            "yml" | "yaml" => Some(Format::Yaml),
            "json" => Some(Format::Json),
            "toml" | "ini" | "cfg" => Some(Format::Sections),
            "properties" => Some(Format::Properties),
            "jsonnet" | "libsonnet" => Some(Format::Jsonnet),
            _ => None,
        }
    }
}

/// One line on the way down: how deep it is, and where the segments it adds to the path
/// end in the walk's stack of segments (they start where the level below ends).
struct Level {
    depth: usize,
    end: usize,
}

/// The key path of each line of `text` whose number (1-based) is in `wanted`, at index
/// `number - 1`; `None` for the other lines, blank lines, comments, template-only lines
/// and lines that only close a block. The whole file is walked, only the wanted lines'
/// paths are written out; the walk copies nothing (segments borrow the text, the open
/// levels share one stack of them), so a one-line change of a long workflow costs
/// about a pass over its bytes.
pub(crate) fn key_paths(bytes: &[u8], format: Format, wanted: &[usize]) -> Vec<Option<String>> {
    // Invalid UTF-8 is read as `String::from_utf8_lossy` reads it; a line break is never
    // part of an invalid sequence, so the file's lines are those of the lossy text.
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    let mut lines: Vec<&str> = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]) {
        let line = &text[start..end];
        lines.push(line.strip_suffix('\r').unwrap_or(line));
        start = end + 1;
    }
    let mut is_wanted = vec![false; lines.len()];
    for &number in wanted {
        if let Some(slot) = number
            .checked_sub(1)
            .and_then(|index| is_wanted.get_mut(index))
        {
            *slot = true;
        }
    }
    if format == Format::Jsonnet {
        return super::jsonnet::key_paths(bytes, &is_wanted);
    }
    let (kinds, kind_of) = document_kinds(&lines, format);
    let mut paths = Vec::with_capacity(lines.len());
    let mut section: Vec<&str> = Vec::new();
    let mut open: Vec<Level> = Vec::new();
    // The segments of the open levels, bottom first, and the line's own.
    let mut segments: Vec<&str> = Vec::new();
    let mut own: Vec<&str> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let trimmed = trim(line);
        if format == Format::Yaml && (trimmed == "---" || trimmed.starts_with("--- ")) {
            open.clear();
            segments.clear();
            paths.push(None);
            continue;
        }
        if skipped(trimmed, format) {
            paths.push(None);
            continue;
        }
        if format == Format::Sections {
            if let Some(header) = section_header(trimmed) {
                section = header;
                open.clear();
                segments.clear();
                paths.push(
                    is_wanted[index].then(|| render(&kinds[kind_of[index]], &section, &[], &[])),
                );
                continue;
            }
        }
        let indent = line.len() - trim_start(line).len();
        let (item, key) = parse_line(trimmed, format);
        let depth = indent * 2 + usize::from(item);
        while open.last().is_some_and(|level| level.depth >= depth) {
            open.pop();
            segments.truncate(open.last().map_or(0, |level| level.end));
        }
        own.clear();
        if item {
            own.push("-");
        }
        match key {
            Some(key) if format == Format::Properties || format == Format::Sections => {
                own.extend(key.split('.').map(|part| unquote(part.trim())));
            }
            Some(key) => own.push(key),
            None => {
                // A JSON document's opening bracket is no element of anything.
                let document = format == Format::Json && open.is_empty() && opens_only(trimmed);
                if !item && !document {
                    own.push("-");
                }
            }
        }
        if own.last().is_some_and(|last| *last != "-") && holds_collection(trimmed, format) {
            own.push("-");
        }
        paths.push(
            is_wanted[index].then(|| render(&kinds[kind_of[index]], &section, &segments, &own)),
        );
        if format == Format::Properties {
            continue;
        }
        if item {
            // `- name: A`: the item, then its first key at the column after the dash,
            // where the item's other keys are.
            segments.push(own[0]);
            open.push(Level {
                depth,
                end: segments.len(),
            });
            if own.len() > 1 {
                segments.extend_from_slice(&own[1..]);
                open.push(Level {
                    depth: (indent + 2) * 2,
                    end: segments.len(),
                });
            }
        } else {
            segments.extend_from_slice(&own);
            open.push(Level {
                depth,
                end: segments.len(),
            });
        }
    }
    paths
}

/// `KIND/` and the segments of the section, the open levels and the line, dot-joined.
fn render(kind: &str, section: &[&str], open: &[&str], own: &[&str]) -> String {
    let segments: Vec<&str> = section.iter().chain(open).chain(own).copied().collect();
    format!("{kind}/{}", segments.join("."))
}

/// Whether a trimmed line has no place in a path: blank, a comment, a template-only
/// line, or one that only closes brackets.
fn skipped(trimmed: &str, format: Format) -> bool {
    let comment = match format {
        Format::Yaml | Format::Sections => trimmed.starts_with('#') || trimmed.starts_with(';'),
        Format::Properties => trimmed.starts_with('#') || trimmed.starts_with('!'),
        Format::Json | Format::Jsonnet => trimmed.starts_with("//"),
    };
    let template = (trimmed.starts_with("{{") && trimmed.ends_with("}}"))
        || (trimmed.starts_with("{%") && trimmed.ends_with("%}"));
    trimmed.is_empty()
        || comment
        || template
        || trimmed
            .bytes()
            .all(|b| matches!(b, b'}' | b')' | b']' | b';' | b',' | b' '))
}

/// Whether the line's value is a whole flow collection (`env: [{name: A, value: "1"}]`,
/// `env = { A = "1" }`, `verbs: []`): its elements are on the line, so the line's path
/// ends in `-` as theirs would. A template action (`{{ .Values.x }}`) is no collection.
fn holds_collection(trimmed: &str, format: Format) -> bool {
    let separator = match format {
        Format::Sections | Format::Properties => b'=',
        Format::Yaml | Format::Json | Format::Jsonnet => b':',
    };
    let Some(at) = memchr::memchr(separator, trimmed.as_bytes()) else {
        return false;
    };
    let value = trim_end(trim(&trimmed[at + 1..]).trim_end_matches(','));
    !value.starts_with("{{")
        && ((value.starts_with('[') && value.ends_with(']'))
            || (value.starts_with('{') && value.ends_with('}')))
}

/// `str::trim`, `trim_start` and `trim_end` (Unicode white space), a byte at a time while
/// the text is ASCII: the standard ones decode every character, which cost a one-line
/// change of a 375-line workflow more than the rest of the walk.
fn trim(text: &str) -> &str {
    trim_end(trim_start(text))
}

fn trim_start(text: &str) -> &str {
    let at = text
        .bytes()
        .position(|b| !is_ascii_white(b))
        .unwrap_or(text.len());
    match text.as_bytes().get(at) {
        Some(b) if !b.is_ascii() => text[at..].trim_start(),
        _ => &text[at..],
    }
}

fn trim_end(text: &str) -> &str {
    let end = text
        .bytes()
        .rposition(|b| !is_ascii_white(b))
        .map_or(0, |at| at + 1);
    match end.checked_sub(1).map(|last| text.as_bytes()[last]) {
        Some(b) if !b.is_ascii() => text[..end].trim_end(),
        _ => &text[..end],
    }
}

/// The ASCII characters `char::is_whitespace` holds (vertical tab too, unlike
/// `u8::is_ascii_whitespace`).
fn is_ascii_white(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// Whether a trimmed line only opens brackets.
fn opens_only(trimmed: &str) -> bool {
    trimmed.bytes().all(|b| matches!(b, b'{' | b'[' | b' '))
}

/// A TOML or INI section header's segments: `[a.b]` is `a.b`, `[[a]]` is `a.-`.
fn section_header(trimmed: &str) -> Option<Vec<&str>> {
    let (inner, array) = if let Some(inner) = trimmed
        .strip_prefix("[[")
        .and_then(|rest| rest.split_once("]]").map(|(inner, _)| inner))
    {
        (inner, true)
    } else {
        let inner = trimmed.strip_prefix('[')?.split_once(']')?.0;
        (inner, false)
    };
    let mut segments: Vec<&str> = if inner.contains(['"', '\'']) || !inner.contains('.') {
        vec![unquote(inner.trim())]
    } else {
        inner.split('.').map(str::trim).collect()
    };
    if array {
        segments.push("-");
    }
    Some(segments)
}

/// Whether the line is a list item, and its key.
fn parse_line(trimmed: &str, format: Format) -> (bool, Option<&str>) {
    match format {
        Format::Yaml => {
            let (item, rest) = match trimmed.strip_prefix('-') {
                Some(rest) if rest.is_empty() || rest.starts_with([' ', '\t']) => {
                    (true, trim_start(rest))
                }
                _ => (false, trimmed),
            };
            (item, yaml_key(rest))
        }
        Format::Json | Format::Jsonnet => {
            let key = trimmed.strip_prefix('"').and_then(|rest| {
                let end = rest.find('"')?;
                rest[end + 1..]
                    .trim_start()
                    .starts_with(':')
                    .then(|| &rest[..end])
            });
            (false, key)
        }
        Format::Sections | Format::Properties => {
            let separators: &[char] = if format == Format::Properties {
                &['=', ':']
            } else {
                &['=']
            };
            let key = trimmed
                .find(separators)
                .map(|at| trimmed[..at].trim())
                .filter(|key| !key.is_empty() && !key.contains(['{', '[', ' ']) || quoted(key));
            (false, key)
        }
    }
}

/// A YAML mapping key at the start of `rest` (`key:`, `"key":`), if any.
fn yaml_key(rest: &str) -> Option<&str> {
    let (key, after) = if let Some(quote) = rest.chars().next().filter(|c| matches!(c, '"' | '\''))
    {
        let end = rest[1..].find(quote)? + 1;
        (&rest[1..end], &rest[end + 1..])
    } else {
        let end = memchr::memchr(b':', rest.as_bytes())?;
        (&rest[..end], &rest[end..])
    };
    let after = trim_start(after).strip_prefix(':')?;
    let plain = !key.is_empty()
        && !key.contains([
            '{', '}', '[', ']', '#', ',', '&', '*', '!', '|', '>', '"', '\'',
        ])
        && !key.starts_with(' ');
    (plain && (after.is_empty() || after.starts_with([' ', '\t']))).then(|| trim(key))
}

/// Whether `key` is one quoted string.
fn quoted(key: &str) -> bool {
    key.len() >= 2
        && ((key.starts_with('"') && key.ends_with('"'))
            || (key.starts_with('\'') && key.ends_with('\'')))
}

/// `key` without one pair of surrounding quotes.
fn unquote(key: &str) -> &str {
    if quoted(key) {
        &key[1..key.len() - 1]
    } else {
        key
    }
}

/// The `kind:` of the YAML document each line is in (`""` when none, and for every
/// line of other formats): the kinds, and the index of each line's kind. A templated kind
/// keeps its words (`{{ if … }}ClusterRole{{ else }}Role{{ end }}` is `ClusterRole|Role`).
fn document_kinds(lines: &[&str], format: Format) -> (Vec<String>, Vec<usize>) {
    let mut kinds = vec![String::new()];
    let mut of_line = vec![0; lines.len()];
    if format != Format::Yaml {
        return (kinds, of_line);
    }
    let mut start = 0;
    for end in 0..=lines.len() {
        let boundary = end == lines.len() || {
            let trimmed = trim_end(lines[end]);
            trimmed == "---" || trimmed.starts_with("--- ")
        };
        if !boundary {
            continue;
        }
        let kind = lines[start..end]
            .iter()
            .find_map(|line| line.strip_prefix("kind:").map(kind_words));
        if let Some(kind) = kind {
            kinds.push(kind);
            of_line[start..end].fill(kinds.len() - 1);
        }
        start = end + 1;
    }
    (kinds, of_line)
}

/// The words of a `kind:` value outside template actions, `|`-joined.
fn kind_words(value: &str) -> String {
    let mut words = Vec::new();
    let mut rest = value;
    loop {
        let (outside, after) = match rest.split_once("{{") {
            Some((outside, after)) => (outside, Some(after)),
            None => (rest, None),
        };
        words.extend(
            outside
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|word| !word.is_empty())
                .map(str::to_string),
        );
        match after.and_then(|after| after.split_once("}}")) {
            Some((_, next)) => rest = next,
            None => break,
        }
    }
    words.join("|")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str, format: Format) -> Vec<String> {
        let every: Vec<usize> = (1..=text.lines().count() + 1).collect();
        key_paths(text.as_bytes(), format, &every)
            .into_iter()
            .map(|path| path.unwrap_or_default())
            .collect()
    }

    #[test]
    fn a_container_s_env_entries_are_under_its_env_key_at_either_list_style() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        env:\n        - name: PORT\n          value: \"8080\"\n        ports:\n        - containerPort: 8080\n";
        let found = paths(text, Format::Yaml);
        assert_eq!(found[1], "Deployment/kind");
        assert_eq!(found[6], "Deployment/spec.template.spec.containers.-.name");
        assert_eq!(
            found[8],
            "Deployment/spec.template.spec.containers.-.env.-.name"
        );
        assert_eq!(
            found[9],
            "Deployment/spec.template.spec.containers.-.env.-.value"
        );
        assert_eq!(
            found[10],
            "Deployment/spec.template.spec.containers.-.ports"
        );
        assert_eq!(
            found[11],
            "Deployment/spec.template.spec.containers.-.ports.-.containerPort"
        );
        // A flow collection on one line stands for its elements.
        let flow = text.replace(
            "        env:\n        - name: PORT\n          value: \"8080\"\n",
            "        env: [{name: PORT, value: \"8080\"}]\n",
        );
        assert_eq!(
            paths(&flow, Format::Yaml)[7],
            "Deployment/spec.template.spec.containers.-.env.-"
        );
        assert_eq!(
            paths("environment: production\n", Format::Yaml)[0],
            "/environment"
        );
        // Indented list style, the same paths.
        let indented = text.replace(
            "\n        - name: PORT\n          value",
            "\n          - name: PORT\n            value",
        );
        assert_eq!(paths(&indented, Format::Yaml)[9], found[9]);
    }

    #[test]
    fn each_document_has_its_own_kind_and_template_lines_are_skipped() {
        let text = "kind: ServiceAccount\nmetadata:\n  name: x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: {{ if .Values.global }}ClusterRole{{ else }}Role{{ end }}\nrules:\n{{- if .Values.secrets }}\n  - apiGroups: [\"\"]\n    verbs:\n      - get\n{{- end }}\n";
        let found = paths(text, Format::Yaml);
        assert_eq!(found[2], "ServiceAccount/metadata.name");
        assert_eq!(found[3], "");
        assert_eq!(found[7], "", "a template line has no path");
        assert_eq!(found[8], "ClusterRole|Role/rules.-.apiGroups.-");
        assert_eq!(found[10], "ClusterRole|Role/rules.-.verbs.-");
    }

    #[test]
    fn sections_json_and_properties_have_key_paths_too() {
        let toml = "app = \"x\"\n[env]\n  PORT = \"8080\"\n[[headers]]\nfor = \"/*\"\n[headers.values]\n\"X-Frame-Options\" = \"DENY\"\n";
        let found = paths(toml, Format::Sections);
        assert_eq!(found[0], "/app");
        assert_eq!(found[2], "/env.PORT");
        assert_eq!(found[4], "/headers.-.for");
        assert_eq!(found[6], "/headers.values.X-Frame-Options");
        let json = "{\n  \"containerEnv\": {\n    \"PORT\": \"8080\"\n  },\n  \"args\": [\n    \"--verbose\"\n  ]\n}\n";
        let found = paths(json, Format::Json);
        assert_eq!(found[2], "/containerEnv.PORT");
        assert_eq!(found[5], "/args.-");
        assert_eq!(found[3], "", "a closing brace has no path");
        let properties = "# session\nserver.servlet.session.cookie.secure=true\n";
        assert_eq!(
            paths(properties, Format::Properties)[1],
            "/server.servlet.session.cookie.secure"
        );
        let ini = "[program:web]\ncommand=run\nenvironment=A=\"1\"\n";
        assert_eq!(paths(ini, Format::Sections)[2], "/program:web.environment");
    }

    #[test]
    fn crlf_ends_and_invalid_bytes_are_read_as_the_lossy_text() {
        let raw = b"env:\r\n  \xffPORT: 1\r\n  \xe2\x82NAME:\r\n    - x\xc0\r\n";
        let found = paths(&String::from_utf8_lossy(raw), Format::Yaml);
        assert_eq!(found[1], "/env.\u{fffd}PORT");
        assert_eq!(found[3], "/env.\u{fffd}NAME.-");
        let every: Vec<usize> = (1..=5).collect();
        let from_bytes: Vec<String> = key_paths(raw, Format::Yaml, &every)
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
        assert_eq!(from_bytes, found);
    }

    #[test]
    fn the_trims_are_the_standard_ones() {
        let spaces = [
            "", " ", "\t", "\u{b}", "\u{c}", "\r\n", "\u{a0}", "\u{85}", "\u{3000}",
        ];
        let words = ["", "a", "é", "a b", "\u{a0}x\u{a0}", "-"];
        for before in spaces {
            for word in words {
                for after in spaces {
                    let text = format!("{before}{after}{word}{before}{after}");
                    assert_eq!(trim(&text), text.trim(), "{text:?}");
                    assert_eq!(trim_start(&text), text.trim_start(), "{text:?}");
                    assert_eq!(trim_end(&text), text.trim_end(), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn formats_are_known_by_extension() {
        assert_eq!(Format::for_path("k8s/app.YAML"), Some(Format::Yaml));
        assert_eq!(Format::for_path("fly.toml"), Some(Format::Sections));
        assert_eq!(
            Format::for_path(".devcontainer/devcontainer.json"),
            Some(Format::Json)
        );
        assert_eq!(Format::for_path("src/main.rs"), None);
    }
}
