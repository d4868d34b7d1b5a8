//! A fast path for `verify`: is a line already in RFC 8785 canonical form?
//!
//! `append` writes every event as its canonical JSON, so on an untouched trail each
//! line *is* the JCS form of its event. If a single scan confirms that (no white space,
//! object keys in strictly ascending order, strings with exactly the escapes JCS
//! makes, integers in their shortest form), the hash of the event without `hash` is the
//! SHA-256 of the line with its `"hash":"…"` member cut out, and no re-serialization is
//! needed. The scan is deliberately narrow: a non-ASCII key, a fraction or an exponent,
//! an integer beyond 2^53 or anything unusual answers "not sure", and `verify` takes
//! the slow path (parse, canonicalise with `serde_json_canonicalizer`, hash), which is
//! the definition. So the fast path can only agree with the definition, never differ.

use std::ops::Range;

/// The byte range of the top-level `"hash":"<64 hex>"` member, with the comma that
/// joins it to its neighbour, when `line` is confirmed canonical.
pub fn hash_member(line: &[u8]) -> Option<(Range<usize>, &str)> {
    let found = members(line)?;
    Some((found.hash, std::str::from_utf8(&line[found.stored]).ok()?))
}

/// The SHA-256 input of a canonical line: the line without its hash member.
pub fn without_hash(line: &[u8], member: Range<usize>) -> (&[u8], &[u8]) {
    (&line[..member.start], &line[member.end..])
}

/// Nesting deeper than this is for the slow path, whose parser refuses it (serde_json
/// stops at 128 levels); the scan recurses, so this also bounds its stack.
const MAX_DEPTH: usize = 100;

/// The top-level members of a canonical line that the fast paths cut out, each with
/// the comma that joins it to its neighbour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Members {
    /// The `"hash":"…"` member.
    pub hash: Range<usize>,
    /// Where the hash it stores lies (inside its quotes).
    pub stored: Range<usize>,
    /// The `"message":…` member, when there is one, and the range of its value.
    pub message: Option<(Range<usize>, Range<usize>)>,
    /// Every top-level member: where its key's text and its value lie, in key order.
    pub top: Top,
}

/// The most top-level members a line may have for the fast paths (an event has 30
/// fields at most); a line with more takes the slow path.
const MAX_TOP: usize = 32;

/// The top-level members of a line, kept in place (no allocation per line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Top {
    /// Key start and end, value start and end.
    members: [[u32; 4]; MAX_TOP],
    len: usize,
}

impl Top {
    fn push(&mut self, key: Range<usize>, value: Range<usize>) -> Option<()> {
        let at = |n: usize| u32::try_from(n).ok();
        let member = [
            at(key.start)?,
            at(key.end)?,
            at(value.start)?,
            at(value.end)?,
        ];
        *self.members.get_mut(self.len)? = member;
        self.len += 1;
        Some(())
    }

    /// Each member's key text and value, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (Range<usize>, Range<usize>)> + '_ {
        self.members[..self.len].iter().map(|[ks, ke, vs, ve]| {
            let range = |start: &u32, end: &u32| *start as usize..*end as usize;
            (range(ks, ke), range(vs, ve))
        })
    }
}

/// The hash and message members of `line`, when `line` is confirmed canonical (and
/// so UTF-8).
pub fn members(line: &[u8]) -> Option<Members> {
    let mut scan = Scan::new(line);
    scan.object(true)?;
    if scan.at != line.len() {
        return None;
    }
    let (hash, stored) = scan.hash?;
    Some(Members {
        hash,
        stored,
        message: scan.message,
        top: scan.top,
    })
}

/// The members of `value`, a canonical object on its own (one nested in a line, e.g.
/// a context snapshot), in key order.
pub fn object_members(value: &[u8]) -> Option<Top> {
    let mut scan = Scan::new(value);
    scan.object(true)?;
    (scan.at == value.len()).then_some(scan.top)
}

struct Scan<'a> {
    bytes: &'a [u8],
    /// Whether the line holds only printable ASCII (and so every string part does).
    plain: bool,
    at: usize,
    depth: usize,
    hash: Option<(Range<usize>, Range<usize>)>,
    message: Option<(Range<usize>, Range<usize>)>,
    top: Top,
}

/// Where the first `"` or `\\` of `text` is: most strings (keys, names) end within a
/// few bytes, sooner found eight at a time in place than by a call that sets up
/// vectors; a long string goes on with `memchr`.
fn quote_or_escape(text: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    // The lowest byte of `word` equal to `byte` sets the lowest flagged bit (a borrow
    // can only flag a byte above it).
    let flag = |word: u64, byte: u8| {
        let diff = word ^ (ONES * u64::from(byte));
        diff.wrapping_sub(ONES) & !diff & HIGHS
    };
    let mut at = 0;
    while let Some(chunk) = text.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        let found = flag(word, b'"') | flag(word, b'\\');
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
        if at == 32 {
            return memchr::memchr2(b'"', b'\\', &text[at..]).map(|end| at + end);
        }
    }
    let rest = text[at..].iter().position(|b| matches!(b, b'"' | b'\\'));
    rest.map(|end| at + end)
}

/// Whether key `a` sorts strictly before key `b` (byte order), compared in place: keys
/// are short, and a call to `memcmp` for each one cost more than the comparison.
fn before(a: &[u8], b: &[u8]) -> bool {
    match a.iter().zip(b).find(|(x, y)| x != y) {
        Some((x, y)) => x < y,
        None => a.len() < b.len(),
    }
}

impl<'a> Scan<'a> {
    fn new(bytes: &'a [u8]) -> Scan<'a> {
        // One pass over the whole text, a vector at a time: with no control character
        // and nothing past ASCII anywhere, no string needs checking for either.
        let seen = bytes
            .iter()
            .fold(0, |seen, b| seen | u8::from(*b < 0x20) | (b & 0x80));
        Scan {
            bytes,
            plain: seen == 0,
            at: 0,
            depth: 0,
            hash: None,
            message: None,
            top: Top {
                members: [[0; 4]; MAX_TOP],
                len: 0,
            },
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'{' | b'[' => self.nested(),
            b'"' => self.string(false).map(|_| ()),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.integer(),
            _ => None,
        }
    }

    fn nested(&mut self) -> Option<()> {
        if self.depth == MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let found = match self.peek()? {
            b'{' => self.object(false),
            _ => self.array(),
        };
        self.depth -= 1;
        found
    }

    /// A member from `start` to here, with the comma that joins it to a neighbour.
    fn joined(&self, start: usize) -> Option<Range<usize>> {
        Some(match self.peek()? {
            b',' => start..self.at + 1,
            _ if start > 1 => start - 1..self.at,
            _ => start..self.at,
        })
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    fn object(&mut self, top: bool) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        let mut previous: Option<&[u8]> = None;
        loop {
            let member_start = self.at;
            let key_start = self.at + 1;
            let key = self.string(true)?;
            // ASCII keys only: their byte order is their UTF-16 order.
            if previous.is_some_and(|p| !before(p, key)) {
                return None;
            }
            previous = Some(key);
            self.eat(b':')?;
            let value_start = self.at;
            self.value()?;
            if top {
                let key_range = key_start..key_start + key.len();
                self.top.push(key_range, value_start..self.at)?;
            }
            if top && key == b"hash" {
                let value = &self.bytes[value_start..self.at];
                let quoted = value.starts_with(b"\"") && value.len() >= 2;
                let hex = quoted.then(|| value_start + 1..self.at - 1)?;
                self.hash = Some((self.joined(member_start)?, hex));
            }
            if top && key == b"message" {
                self.message = Some((self.joined(member_start)?, value_start..self.at));
            }
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self) -> Option<()> {
        self.eat(b'[')?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.value()?;
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string with exactly JCS's escapes; `ascii` also refuses non-ASCII (keys).
    fn string(&mut self, ascii: bool) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.at;
        loop {
            let rest = &self.bytes[self.at..];
            let stop = quote_or_escape(rest)?;
            if !self.plain {
                Self::check_part(&rest[..stop], ascii)?;
            }
            self.at += stop;
            if self.bytes[self.at] == b'"' {
                let text = &self.bytes[start..self.at];
                self.at += 1;
                return Some(text);
            }
            self.at += 1;
            match self.peek()? {
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                b'u' => self.control_escape()?,
                _ => return None,
            }
        }
    }

    /// A string's part between escapes: no control character; ASCII only when
    /// `ascii`, else UTF-8.
    fn check_part(part: &[u8], ascii: bool) -> Option<()> {
        // A fold rather than `any`: no early exit, so it runs a vector at a time.
        // Bit 0: a control character; bit 7: a byte past ASCII.
        let seen = part
            .iter()
            .fold(0, |seen, b| seen | u8::from(*b < 0x20) | (b & 0x80));
        if seen & 1 != 0 {
            return None;
        }
        // Outside strings only ASCII passes the scan, and an escape or a quote never
        // splits a character: so the line is UTF-8 when each part is.
        if seen & 0x80 != 0 && (ascii || std::str::from_utf8(part).is_err()) {
            return None;
        }
        Some(())
    }

    /// `\u00xx` for a control character that has no short escape, lower-case hex.
    fn control_escape(&mut self) -> Option<()> {
        let digits = self.bytes.get(self.at + 1..self.at + 5)?;
        if &digits[..2] != b"00" || !matches!(digits[2], b'0' | b'1') {
            return None;
        }
        if !matches!(digits[3], b'0'..=b'9' | b'a'..=b'f') {
            return None;
        }
        let code = u8::from_str_radix(std::str::from_utf8(&digits[2..]).ok()?, 16).ok()?;
        if matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
            return None;
        }
        self.at += 5;
        Some(())
    }

    /// An integer in its shortest form, within ±2^53: anything else is for the slow path.
    fn integer(&mut self) -> Option<()> {
        let start = self.at;
        self.eat(b'-');
        let digits_start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        let digits = &self.bytes[digits_start..self.at];
        let shortest = !digits.is_empty() && (digits == b"0" || digits[0] != b'0');
        let negative_zero = digits == b"0" && digits_start > start;
        if !shortest || negative_zero || digits.len() > 16 {
            return None;
        }
        if matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let value: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
        (value <= 1 << 53).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trail::chain;
    use serde_json::Value;

    fn fast(line: &str) -> Option<String> {
        let (member, _) = hash_member(line.as_bytes())?;
        let (before, after) = without_hash(line.as_bytes(), member);
        Some(chain::sha256_hex(&[before, after].concat()))
    }

    fn slow(line: &str) -> String {
        let mut value: Value = serde_json::from_str(line).expect("JSON");
        let map = value.as_object_mut().cloned().expect("an object");
        chain::event_hash(&map)
    }

    #[test]
    fn the_first_quote_or_escape_is_found_at_any_place() {
        for len in 0..80 {
            for at in 0..len {
                for stop in [b'"', b'\\'] {
                    let mut text = vec![b'a'; len];
                    text[at] = stop;
                    // A byte one above the one sought must not hide it.
                    if at > 0 {
                        text[at - 1] = stop + 1;
                    }
                    if at + 1 < len {
                        text[at + 1] = b'"';
                    }
                    assert_eq!(quote_or_escape(&text), Some(at), "{len} {at}");
                }
            }
            assert_eq!(quote_or_escape(&vec![b'a'; len]), None);
        }
    }

    #[test]
    fn the_fast_path_agrees_with_the_definition_or_declines() {
        let lines = [
            r#"{"a":1,"hash":"x","z":[true,false,null,{"b":"\u001f\n"}]}"#,
            r#"{"hash":"x","z":-12}"#,
            r#"{"a":"é €","hash":"x"}"#,
        ];
        for line in lines {
            assert_eq!(fast(line).as_deref(), Some(slow(line).as_str()), "{line}");
        }
        let declined = [
            r#"{"a": 1,"hash":"x"}"#,
            r#"{"b":1,"a":2,"hash":"x"}"#,
            r#"{"a":1.5,"hash":"x"}"#,
            r#"{"a":1e3,"hash":"x"}"#,
            r#"{"a":"\/","hash":"x"}"#,
            r#"{"a":"\u000a","hash":"x"}"#,
            r#"{"a":"\u001F","hash":"x"}"#,
            r#"{"é":1,"hash":"x"}"#,
            r#"{"a":-0,"hash":"x"}"#,
            r#"{"a":01,"hash":"x"}"#,
            r#"{"a":90071992547409930,"hash":"x"}"#,
            r#"{"a":1,"a":2,"hash":"x"}"#,
            r#"{"a":1,"hash":"x"} "#,
            r#"{"a":1}"#,
        ];
        for line in declined {
            assert!(fast(line).is_none(), "{line}");
        }
    }
}
