//! Key paths of Jsonnet files (`.jsonnet`, `.libsonnet`), read by brackets.
//!
//! A Jsonnet manifest is an object language: `env: [{ name: 'PORT', value: '8080' }]`
//! inside `containers: [...]` inside an object whose `kind: 'Deployment'` is a sibling
//! key, often nested under other objects (`deployment: { kind: …, spec: … }`) and built
//! with `+`, `local` and function calls. Indentation says little there (one line may
//! open and close several objects), so this walker follows the brackets instead, over
//! strings (`'…'`, `"…"`, `@'…'`, `|||` text blocks) and comments (`//`, `#`, `/* */`),
//! and gives each line the path `keys::key_paths` gives a YAML line:
//!
//! ```text
//! Deployment/spec.template.spec.containers.-.env.-.name
//! ClusterRole/rules.-.verbs
//! ```
//!
//! `KIND` is the `kind` of the innermost object around the line that has one, and the
//! keys run from that object down (from the top of the file when no object has a kind),
//! so a Kubernetes object reads the same whether it is a document of its own or a field
//! of a bigger one. Object fields of every form count as keys (`a:`, `a::`, `a+:`,
//! `'a':`), and so does a `local a =` binding; an array element is `-`, a function call's
//! arguments are `-` of the key it is the value of, and a line whose value is a whole
//! collection on the line (`env: [{ name: 'A', value: '1' }],`) adds a `-` as its
//! elements' lines would.

/// An open bracket.
struct Frame {
    /// What the bracket is: `{`, `[` or `(`.
    open: u8,
    /// How many path segments were open before it (its pushes are above that).
    base: usize,
    /// The object's number, for an object.
    object: Option<usize>,
    /// An object's key whose value is being read.
    key: Option<String>,
    /// How many path segments are open inside it.
    inside: usize,
    /// The line it was opened on (0-based).
    line: usize,
}

/// What a wanted line's path is made of, until the kinds of every object are known.
struct LinePath {
    /// The segments from the top of the file.
    segments: Vec<String>,
    /// The objects around the line, innermost last, each with the number of segments
    /// above it.
    objects: Vec<(usize, usize)>,
}

/// The key path of each line of the Jsonnet `text` whose number (1-based) is wanted
/// (`wanted[index]` for line `index + 1`), as `keys::key_paths` returns them.
pub(crate) fn key_paths(text: &[u8], wanted: &[bool]) -> Vec<Option<String>> {
    let mut walk = Walk::new(text, wanted.len());
    walk.run(wanted);
    let kinds = walk.kinds;
    walk.lines
        .into_iter()
        .map(|line| {
            let line = line?;
            let (start, kind) = line
                .objects
                .iter()
                .rev()
                .find_map(|&(object, depth)| {
                    kinds[object]
                        .as_deref()
                        .map(|kind| (depth.min(line.segments.len()), kind))
                })
                .unwrap_or((0, ""));
            Some(format!("{kind}/{}", line.segments[start..].join(".")))
        })
        .collect()
}

/// The walk over the text.
struct Walk<'a> {
    text: &'a [u8],
    at: usize,
    /// The current line (0-based).
    line: usize,
    frames: Vec<Frame>,
    segments: Vec<String>,
    /// The kind of each object seen, by number.
    kinds: Vec<Option<String>>,
    /// A `local`'s name at the top of the file, whose value is being read.
    top_key: Option<String>,
    /// The object whose `kind:` key awaits its string.
    kind_of: Option<usize>,
    /// The path of each wanted line, at its first token.
    lines: Vec<Option<LinePath>>,
    /// Whether the current line's first token has been seen.
    started: bool,
    /// For the wanted line being read: whether its value is a whole collection.
    collection_on_line: bool,
}

impl<'a> Walk<'a> {
    fn new(text: &'a [u8], lines: usize) -> Walk<'a> {
        Walk {
            text,
            at: 0,
            line: 0,
            frames: Vec::new(),
            segments: Vec::new(),
            kinds: Vec::new(),
            top_key: None,
            kind_of: None,
            lines: (0..lines).map(|_| None).collect(),
            started: false,
            collection_on_line: false,
        }
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.text.get(self.at + ahead).copied().unwrap_or(0)
    }

    fn run(&mut self, wanted: &[bool]) {
        while self.at < self.text.len() {
            let byte = self.text[self.at];
            match byte {
                b'\n' => {
                    self.end_line();
                    self.at += 1;
                }
                b' ' | b'\t' | b'\r' => self.at += 1,
                b'#' => self.skip_to_line_end(),
                b'/' if self.peek(1) == b'/' => self.skip_to_line_end(),
                b'/' if self.peek(1) == b'*' => self.skip_block_comment(),
                _ => {
                    let closing = matches!(byte, b'}' | b']' | b')' | b',' | b';');
                    if !self.started && !closing {
                        self.started = true;
                        if wanted.get(self.line).copied().unwrap_or(false) {
                            let key = self.key_here();
                            self.lines[self.line] = Some(self.path_here(key));
                        }
                    }
                    self.token(byte);
                }
            }
        }
        self.end_line();
    }

    /// Reads the token at `at`.
    fn token(&mut self, byte: u8) {
        match byte {
            b'{' | b'[' | b'(' => {
                self.open(byte);
                self.at += 1;
            }
            b'}' | b']' | b')' => {
                self.close();
                self.at += 1;
            }
            b',' | b';' => {
                match self.frames.last_mut() {
                    Some(frame) => frame.key = None,
                    None => self.top_key = None,
                }
                self.kind_of = None;
                self.at += 1;
            }
            b'\'' | b'"' => {
                let value = self.string(byte, true);
                self.note_kind(value);
            }
            b'@' if matches!(self.peek(1), b'\'' | b'"') => {
                self.at += 1;
                let value = self.string(self.text[self.at], false);
                self.note_kind(value);
            }
            b'|' if self.peek(1) == b'|' && self.peek(2) == b'|' => self.text_block(),
            _ if byte == b'_' || byte.is_ascii_alphabetic() => self.word(),
            _ => self.at += 1,
        }
    }

    /// An identifier: a key when a `:` follows (`a:`, `a::`, `a+:`), a `local`'s name.
    fn word(&mut self) {
        let word = self.identifier();
        if word == "local" {
            self.skip_spaces();
            if self.peek(0) == b'_' || self.peek(0).is_ascii_alphabetic() {
                let name = self.identifier();
                self.set_key(name);
            }
            return;
        }
        if self.in_object() && self.colon_follows() {
            if word == "kind" {
                self.kind_of = self.frames.last().and_then(|frame| frame.object);
            }
            self.set_key(word);
        }
    }

    fn identifier(&mut self) -> String {
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|&b| b == b'_' || b.is_ascii_alphanumeric())
        {
            self.at += 1;
        }
        String::from_utf8_lossy(&self.text[start..self.at]).into_owned()
    }

    /// A quoted string from `at` (its opening quote); a key when a `:` follows it in an
    /// object. Returns its text when it is a value.
    fn string(&mut self, quote: u8, escapes: bool) -> Option<String> {
        self.at += 1;
        let start = self.at;
        while self.at < self.text.len() {
            let byte = self.text[self.at];
            if escapes && byte == b'\\' {
                self.at += 2;
                continue;
            }
            if byte == b'\n' {
                self.end_line();
            }
            if byte == quote {
                if !escapes && self.peek(1) == quote {
                    self.at += 2;
                    continue;
                }
                break;
            }
            self.at += 1;
        }
        let end = self.at.min(self.text.len());
        let text = String::from_utf8_lossy(&self.text[start..end]).into_owned();
        self.at = (self.at + 1).min(self.text.len());
        if self.in_object() && self.colon_follows() {
            self.set_key(text);
            return None;
        }
        Some(text)
    }

    /// A `|||` text block: to the line whose text starts with `|||`.
    fn text_block(&mut self) {
        self.skip_to_line_end();
        while self.at < self.text.len() {
            self.end_line();
            self.at += 1;
            let rest = &self.text[self.at..];
            let line_end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
            let trimmed = rest[..line_end].trim_ascii_start();
            if trimmed.starts_with(b"|||") {
                self.at += line_end - trimmed.len() + 3;
                return;
            }
            self.at += line_end;
        }
    }

    fn note_kind(&mut self, value: Option<String>) {
        if let (Some(object), Some(value)) = (self.kind_of.take(), value) {
            self.kinds[object] = Some(value);
        }
    }

    fn in_object(&self) -> bool {
        self.frames.last().is_none_or(|frame| frame.open == b'{')
    }

    /// Whether `:` (after an optional `+`) follows `at`, past spaces.
    fn colon_follows(&self) -> bool {
        let rest = &self.text[self.at..];
        let rest = rest.trim_ascii_start();
        let rest = rest.strip_prefix(b"+").unwrap_or(rest);
        rest.first() == Some(&b':')
    }

    /// The key that starts the line at `at`, if any, without moving.
    fn key_here(&self) -> Option<String> {
        let rest = &self.text[self.at..];
        if !self.in_object() {
            return None;
        }
        let name_end = rest
            .iter()
            .position(|&b| b != b'_' && !b.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        let (name, after) = if let Some(&quote) = rest.first().filter(|b| matches!(b, b'\'' | b'"'))
        {
            let end = memchr::memchr(quote, &rest[1..])? + 1;
            (&rest[1..end], &rest[end + 1..])
        } else {
            (&rest[..name_end], &rest[name_end..])
        };
        if name == b"local" {
            let after = after.trim_ascii_start();
            let end = after
                .iter()
                .position(|&b| b != b'_' && !b.is_ascii_alphanumeric())
                .unwrap_or(after.len());
            return (end > 0).then(|| String::from_utf8_lossy(&after[..end]).into_owned());
        }
        let after = after.trim_ascii_start();
        let after = after.strip_prefix(b"+").unwrap_or(after);
        (!name.is_empty() && after.first() == Some(&b':'))
            .then(|| String::from_utf8_lossy(name).into_owned())
    }

    /// The path of the line starting at `at`: the open segments, and the line's own key,
    /// the key whose value it continues, or `-` for an element or an argument.
    fn path_here(&self, key: Option<String>) -> LinePath {
        let mut segments = self.segments.clone();
        match (self.frames.last(), key) {
            (_, Some(key)) => segments.push(key),
            (Some(frame), None) if frame.open == b'{' => segments.extend(frame.key.clone()),
            (Some(_), None) => segments.push("-".to_string()),
            (None, None) => {}
        }
        LinePath {
            segments,
            objects: self.objects(),
        }
    }

    /// The open objects, innermost last, with the number of segments above each.
    fn objects(&self) -> Vec<(usize, usize)> {
        self.frames
            .iter()
            .filter_map(|frame| frame.object.map(|object| (object, frame.inside)))
            .collect()
    }

    fn set_key(&mut self, key: String) {
        match self.frames.last_mut() {
            Some(frame) => frame.key = Some(key),
            None => self.top_key = Some(key),
        }
    }

    fn open(&mut self, open: u8) {
        let base = self.segments.len();
        match self.frames.last() {
            Some(parent) if parent.open == b'{' => self.segments.extend(parent.key.clone()),
            Some(parent) if parent.open == b'[' => self.segments.push("-".to_string()),
            Some(_) => {}
            None => self.segments.extend(self.top_key.clone()),
        }
        let object = (open == b'{').then(|| {
            self.kinds.push(None);
            self.kinds.len() - 1
        });
        self.frames.push(Frame {
            open,
            base,
            object,
            key: None,
            inside: self.segments.len(),
            line: self.line,
        });
    }

    fn close(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        self.segments.truncate(frame.base);
        if frame.line == self.line && frame.open != b'(' {
            self.collection_on_line = true;
        }
    }

    fn skip_spaces(&mut self) {
        while matches!(self.peek(0), b' ' | b'\t' | b'\r') {
            self.at += 1;
        }
    }

    fn skip_to_line_end(&mut self) {
        let rest = &self.text[self.at..];
        self.at += memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    }

    fn skip_block_comment(&mut self) {
        self.at += 2;
        while self.at < self.text.len() && !(self.peek(0) == b'*' && self.peek(1) == b'/') {
            if self.peek(0) == b'\n' {
                self.end_line();
            }
            self.at += 1;
        }
        self.at = (self.at + 2).min(self.text.len());
    }

    /// Ends the current line: a wanted line whose value was a whole collection on it
    /// gets its `-`.
    fn end_line(&mut self) {
        if self.collection_on_line {
            if let Some(Some(line)) = self.lines.get_mut(self.line) {
                if line.segments.last().is_none_or(|last| last != "-") {
                    line.segments.push("-".to_string());
                }
            }
        }
        self.collection_on_line = false;
        self.started = false;
        self.line += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<String> {
        let wanted = vec![true; text.lines().count() + 1];
        key_paths(text.as_bytes(), &wanted)
            .into_iter()
            .map(|path| path.unwrap_or_default())
            .collect()
    }

    #[test]
    fn a_deployment_s_env_entries_are_under_its_kind_wherever_the_object_is() {
        let text = "local image = 'app:1';\n{\n  deployment: {\n    apiVersion: 'apps/v1',\n    spec: {\n      template: { spec: {\n        containers: [{\n          name: 'app',\n          env: [\n            { name: 'PORT', value: '8080' },\n            {\n              name: 'MODE',\n              value: std.join('-', ['a', 'b']),\n            },\n          ],\n          ports: [{ containerPort: 8080 }],\n        }],\n      } },\n    },\n    kind: 'Deployment',\n  },\n}\n";
        let found = paths(text);
        assert_eq!(found[0], "/image");
        assert_eq!(found[3], "Deployment/apiVersion");
        assert_eq!(found[7], "Deployment/spec.template.spec.containers.-.name");
        assert_eq!(found[8], "Deployment/spec.template.spec.containers.-.env");
        assert_eq!(found[9], "Deployment/spec.template.spec.containers.-.env.-");
        assert_eq!(
            found[11],
            "Deployment/spec.template.spec.containers.-.env.-.name"
        );
        assert_eq!(
            found[12],
            "Deployment/spec.template.spec.containers.-.env.-.value.-"
        );
        assert_eq!(found[14], "", "a line that only closes has no path");
        assert_eq!(
            found[15],
            "Deployment/spec.template.spec.containers.-.ports.-"
        );
        assert_eq!(found[19], "Deployment/kind");
        // A whole list on the line stands for its elements.
        let flow = "{ kind: 'Deployment', spec: { template: { spec: { containers: [{\n  env+: [{ name: 'A', value: '1' }],\n}] } } } }\n";
        assert_eq!(
            paths(flow)[1],
            "Deployment/spec.template.spec.containers.-.env.-"
        );
    }

    #[test]
    fn strings_comments_and_text_blocks_hide_their_brackets() {
        let text = "{\n  kind: \"ClusterRole\",\n  // rules: [ {\n  annotations: { 'a.b/c': '{[(' },\n  doc: |||\n    rules: [\n  |||,\n  rules+: [\n    { apiGroups: [''], verbs: ['get'] },\n  ],\n  'quoted-key':: @'it''s',\n}\n";
        let found = paths(text);
        assert_eq!(found[1], "ClusterRole/kind");
        assert_eq!(found[2], "");
        assert_eq!(found[3], "ClusterRole/annotations.-");
        assert_eq!(found[5], "", "a text block's lines are text");
        assert_eq!(found[7], "ClusterRole/rules");
        assert_eq!(found[8], "ClusterRole/rules.-");
        assert_eq!(found[10], "ClusterRole/quoted-key");
    }
}
