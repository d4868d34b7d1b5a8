//! From a JSON pointer to the line and column of the value it names.
//!
//! Neither `serde_json` nor `yaml_serde` keeps positions in the values they build,
//! but both put the parser's position on any error raised while deserializing. So the
//! document is read once more with a [`DeserializeSeed`] that walks the pointer's
//! tokens, skips everything else, and raises an error the moment it reaches the value:
//! the error's position is the value's.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

const FOUND: &str = "handoff: pointer reached";

/// The 1-based line and column of the value at `tokens` in the JSON `text`.
pub fn in_json(text: &str, tokens: &[String]) -> Option<(usize, usize)> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    match (Seek {
        tokens,
        eager: true,
    })
    .deserialize(&mut deserializer)
    {
        Err(error) if error.to_string().starts_with(FOUND) => {
            Some(skip_blanks(text, error.line(), error.column()))
        }
        _ => None,
    }
}

/// serde_json reports the position just before a value (after the `:` or `,`): moves
/// on over white space to the value's first character.
fn skip_blanks(text: &str, line: usize, column: usize) -> (usize, usize) {
    let (mut line, mut column) = (line.max(1), column.max(1));
    let start = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum::<usize>();
    for byte in text.as_bytes().iter().skip(start + column - 1) {
        match byte {
            b' ' | b'\t' | b'\r' => column += 1,
            b'\n' => {
                line += 1;
                column = 1;
            }
            _ => break,
        }
    }
    (line, column)
}

/// The 1-based line and column of the value at `tokens` in the YAML `text`.
pub fn in_yaml(text: &str, tokens: &[String]) -> Option<(usize, usize)> {
    let deserializer = yaml_serde::Deserializer::from_str(text);
    match (Seek {
        tokens,
        eager: false,
    })
    .deserialize(deserializer)
    {
        Err(error) if error.to_string().contains(FOUND) => error
            .location()
            .map(|location| (location.line(), location.column())),
        _ => None,
    }
}

/// Splits a JSON pointer (`/a/b~1c/0`) into its unescaped tokens.
pub fn tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|token| token.replace("~1", "/").replace("~0", "~"))
        .collect()
}

struct Seek<'a> {
    tokens: &'a [String],
    /// Stop before reading the value (JSON) rather than on its first event (YAML,
    /// whose errors carry the position of the event being read).
    eager: bool,
}

/// Fails on whatever value comes, so the error carries that value's position.
struct Found;

impl<'de> Visitor<'de> for Found {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
}

impl<'de> DeserializeSeed<'de> for Seek<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match (self.tokens.is_empty(), self.eager) {
            (true, true) => return Err(de::Error::custom(FOUND)),
            (true, false) => return deserializer.deserialize_any(Found),
            (false, _) => {}
        }
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seek<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == self.tokens[0] {
                return map.next_value_seed(Seek {
                    tokens: &self.tokens[1..],
                    eager: self.eager,
                });
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Ok(wanted) = self.tokens[0].parse::<usize>() else {
            return Ok(());
        };
        let mut index = 0;
        while index < wanted {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
            index += 1;
        }
        seq.next_element_seed(Seek {
            tokens: &self.tokens[1..],
            eager: self.eager,
        })
        .map(|_| ())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_positions_point_at_the_value() {
        let text = "{\n  \"a\": 1,\n  \"b\": {\"c\": [10, \"x\"]}\n}";
        assert_eq!(in_json(text, &[]), Some((1, 1)));
        assert_eq!(in_json(text, &tokens("/b/c/1")), Some((3, 19)));
        assert_eq!(in_json(text, &tokens("/a")), Some((2, 8)));
        assert_eq!(in_json(text, &tokens("/b")), Some((3, 8)));
        assert_eq!(in_json(text, &tokens("/zz")), None);
    }

    #[test]
    fn yaml_positions_point_at_the_value() {
        let text = "a: 1\nb:\n  c:\n    - 10\n    - x\n";
        assert_eq!(in_yaml(text, &tokens("/b/c/1")), Some((5, 7)));
        assert_eq!(in_yaml(text, &tokens("/a")), Some((1, 4)));
        assert_eq!(in_yaml(text, &tokens("/b/c")), Some((4, 5)));
    }
}
