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

/// One line on the way down: how deep it is and the segments it adds to the path.
struct Level {
    depth: usize,
    segments: Vec<String>,
}

/// The key path of each line of `text` whose number (1-based) is in `wanted`, at index
/// `number - 1`; `None` for the other lines, blank lines, comments, template-only lines
/// and lines that only close a block. The whole file is walked, only the wanted lines'
/// paths are written out.
pub(crate) fn key_paths(text: &[u8], format: Format, wanted: &[usize]) -> Vec<Option<String>> {
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .collect();
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
        return super::jsonnet::key_paths(text, &is_wanted);
    }
    let (kinds, kind_of) = document_kinds(&lines, format);
    let mut paths = Vec::with_capacity(lines.len());
    let mut section: Vec<String> = Vec::new();
    let mut open: Vec<Level> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let text = String::from_utf8_lossy(line);
        let trimmed = text.trim();
        if format == Format::Yaml && (trimmed == "---" || trimmed.starts_with("--- ")) {
            open.clear();
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
                paths.push(
                    is_wanted[index].then(|| render(&kinds[kind_of[index]], &section, &open, &[])),
                );
                continue;
            }
        }
        let indent = text.len() - text.trim_start().len();
        let (item, key) = parse_line(trimmed, format);
        let depth = indent * 2 + usize::from(item);
        while open.last().is_some_and(|level| level.depth >= depth) {
            open.pop();
        }
        let mut own: Vec<String> = Vec::new();
        if item {
            own.push("-".to_string());
        }
        match key {
            Some(key) if format == Format::Properties || format == Format::Sections => {
                own.extend(key.split('.').map(|part| unquote(part.trim()).to_string()));
            }
            Some(key) => own.push(key),
            None => {
                // A JSON document's opening bracket is no element of anything.
                let document = format == Format::Json && open.is_empty() && opens_only(trimmed);
                if !item && !document {
                    own.push("-".to_string());
                }
            }
        }
        if own.last().is_some_and(|last| last != "-") && holds_collection(trimmed, format) {
            own.push("-".to_string());
        }
        paths.push(is_wanted[index].then(|| render(&kinds[kind_of[index]], &section, &open, &own)));
        if format == Format::Properties {
            continue;
        }
        if item {
            // `- name: A`: the item, then its first key at the column after the dash,
            // where the item's other keys are.
            let key_depth = (indent + 2) * 2;
            let (dash, rest) = own.split_at(1);
            open.push(Level {
                depth,
                segments: dash.to_vec(),
            });
            if !rest.is_empty() {
                open.push(Level {
                    depth: key_depth,
                    segments: rest.to_vec(),
                });
            }
        } else {
            open.push(Level {
                depth,
                segments: own,
            });
        }
    }
    paths
}

/// `KIND/` and the segments of the section, the open levels and the line, dot-joined.
fn render(kind: &str, section: &[String], open: &[Level], own: &[String]) -> String {
    let segments: Vec<&str> = section
        .iter()
        .chain(open.iter().flat_map(|level| level.segments.iter()))
        .chain(own.iter())
        .map(String::as_str)
        .collect();
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
        Format::Sections | Format::Properties => '=',
        Format::Yaml | Format::Json | Format::Jsonnet => ':',
    };
    let Some(at) = trimmed.find(separator) else {
        return false;
    };
    let value = trimmed[at + 1..].trim().trim_end_matches(',').trim_end();
    !value.starts_with("{{")
        && ((value.starts_with('[') && value.ends_with(']'))
            || (value.starts_with('{') && value.ends_with('}')))
}

/// Whether a trimmed line only opens brackets.
fn opens_only(trimmed: &str) -> bool {
    trimmed.bytes().all(|b| matches!(b, b'{' | b'[' | b' '))
}

/// A TOML or INI section header's segments: `[a.b]` is `a.b`, `[[a]]` is `a.-`.
fn section_header(trimmed: &str) -> Option<Vec<String>> {
    let (inner, array) = if let Some(inner) = trimmed
        .strip_prefix("[[")
        .and_then(|rest| rest.split_once("]]").map(|(inner, _)| inner))
    {
        (inner, true)
    } else {
        let inner = trimmed.strip_prefix('[')?.split_once(']')?.0;
        (inner, false)
    };
    let mut segments: Vec<String> = if inner.contains(['"', '\'']) || !inner.contains('.') {
        vec![unquote(inner.trim()).to_string()]
    } else {
        inner
            .split('.')
            .map(|part| part.trim().to_string())
            .collect()
    };
    if array {
        segments.push("-".to_string());
    }
    Some(segments)
}

/// Whether the line is a list item, and its key.
fn parse_line(trimmed: &str, format: Format) -> (bool, Option<String>) {
    match format {
        Format::Yaml => {
            let (item, rest) = match trimmed.strip_prefix('-') {
                Some(rest) if rest.is_empty() || rest.starts_with([' ', '\t']) => {
                    (true, rest.trim_start())
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
                    .then(|| rest[..end].to_string())
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
                .filter(|key| !key.is_empty() && !key.contains(['{', '[', ' ']) || quoted(key))
                .map(str::to_string);
            (false, key)
        }
    }
}

/// A YAML mapping key at the start of `rest` (`key:`, `"key":`), if any.
fn yaml_key(rest: &str) -> Option<String> {
    let (key, after) = if let Some(quote) = rest.chars().next().filter(|c| matches!(c, '"' | '\''))
    {
        let end = rest[1..].find(quote)? + 1;
        (&rest[1..end], &rest[end + 1..])
    } else {
        let end = rest.find(':')?;
        (&rest[..end], &rest[end..])
    };
    let after = after.trim_start().strip_prefix(':')?;
    let plain = !key.is_empty()
        && !key.contains([
            '{', '}', '[', ']', '#', ',', '&', '*', '!', '|', '>', '"', '\'',
        ])
        && !key.starts_with(' ');
    (plain && (after.is_empty() || after.starts_with([' ', '\t']))).then(|| key.trim().to_string())
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
fn document_kinds(lines: &[&[u8]], format: Format) -> (Vec<String>, Vec<usize>) {
    let mut kinds = vec![String::new()];
    let mut of_line = vec![0; lines.len()];
    if format != Format::Yaml {
        return (kinds, of_line);
    }
    let mut start = 0;
    for end in 0..=lines.len() {
        let boundary = end == lines.len() || {
            let trimmed = String::from_utf8_lossy(lines[end]);
            let trimmed = trimmed.trim_end();
            trimmed == "---" || trimmed.starts_with("--- ")
        };
        if !boundary {
            continue;
        }
        let kind = lines[start..end].iter().find_map(|line| {
            line.strip_prefix(b"kind:")
                .map(|value| kind_words(&String::from_utf8_lossy(value)))
        });
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
