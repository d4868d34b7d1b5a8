//! A line as a compiler that normalises identifiers reads it: Python reads identifiers
//! NFKC-normalised (PEP 3131), so `ſession`, a fullwidth `ｓｅｓｓｉｏｎ` or a Kelvin-sign
//! `K` spell the same identifier as `session` or `K`. Rules are ASCII: a line holding
//! bytes outside ASCII is also matched in its NFKC form, and a match in either fires.
//!
//! Each character is normalised on its own (compatibility decomposition, then
//! composition), so every byte of the folded line comes from one character of the line,
//! whose offset it keeps: an `in_code` match found in the folded line is confirmed
//! where it is in the file. Bytes that are not UTF-8 are kept as they are.

use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// A line folded to NFKC, and where each of its bytes comes from.
#[derive(Debug)]
pub(crate) struct Folded {
    /// The line, each character in its NFKC form.
    pub text: Vec<u8>,
    /// For each byte of `text` (and one past its end), the offset in the line of the
    /// character it comes from.
    origin: Vec<usize>,
}

impl Folded {
    /// The NFKC form of `line`, or `None` when it is the line itself (an ASCII line, or
    /// one whose other characters NFKC keeps).
    pub fn of(line: &[u8]) -> Option<Folded> {
        if line.is_ascii() {
            return None;
        }
        // A line NFKC keeps as it is (accented letters, CJK, dashes) is known so from a
        // table lookup per character, without folding any.
        if let Ok(text) = std::str::from_utf8(line) {
            if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
                return None;
            }
        }
        let mut text = Vec::with_capacity(line.len());
        let mut origin = Vec::with_capacity(line.len() + 1);
        let mut changed = false;
        let mut at = 0;
        for chunk in line.utf8_chunks() {
            for (offset, c) in chunk.valid().char_indices() {
                let start = at + offset;
                if c.is_ascii() {
                    text.push(c as u8);
                    origin.push(start);
                    continue;
                }
                let mut buffer = [0; 4];
                for folded in std::iter::once(c).nfkc() {
                    changed |= folded != c;
                    let bytes = folded.encode_utf8(&mut buffer).as_bytes();
                    text.extend_from_slice(bytes);
                    origin.extend(std::iter::repeat_n(start, bytes.len()));
                }
            }
            at += chunk.valid().len();
            for (offset, &byte) in chunk.invalid().iter().enumerate() {
                text.push(byte);
                origin.push(at + offset);
            }
            at += chunk.invalid().len();
        }
        origin.push(line.len());
        changed.then_some(Folded { text, origin })
    }

    /// The offset in the line of the character that byte `index` of `text` comes from.
    pub fn origin(&self, index: usize) -> usize {
        self.origin.get(index).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_fold_to_the_ascii_they_spell() {
        let line = "x = \u{17f}ession['\u{ff54}oken'] # \u{212a}";
        let folded = Folded::of(line.as_bytes()).expect("folds");
        assert_eq!(folded.text, b"x = session['token'] # K");
        // `s` comes from `ſ` at offset 4, `o` of `oken` from after the fullwidth `ｔ`.
        assert_eq!(folded.origin(4), 4);
        assert_eq!(folded.origin(5), 6);
        assert_eq!(folded.origin(folded.text.len()), line.len());
        assert_eq!(
            &Folded::of("\u{fb01}le".as_bytes()).expect("folds").text,
            b"file"
        );
    }

    #[test]
    fn lines_nfkc_keeps_are_not_folded() {
        assert!(Folded::of(b"session_id = 1").is_none());
        assert!(Folded::of("caf\u{e9} = 1".as_bytes()).is_none());
        assert!(Folded::of("// \u{65e5}\u{672c} \u{2014} x".as_bytes()).is_none());
        // `…` is `...` to NFKC, and a combining mark may compose: folded.
        assert!(Folded::of("a\u{2026}".as_bytes()).is_some());
        // Bytes that are not UTF-8 stay where they are.
        let folded = Folded::of(b"\xff\xfe \xef\xbd\x93ession").expect("folds");
        assert_eq!(folded.text, b"\xff\xfe session");
        assert_eq!(folded.origin(3), 3);
        assert_eq!(folded.origin(4), 6);
    }
}
