//! The built-in policy as the program holds it: `build.rs` reads `defaults.yaml` once and
//! writes its values as a static tree of Rust literals ([`Node`], `OUT_DIR/defaults.rs`),
//! which serde reads into the policy's structures like any other format. So the keys,
//! their defaults and the refusal of unknown keys stay declared once, on the structures
//! (`defaults.rs`), and a run reads the defaults without parsing any text: the JSON this
//! replaces cost about 1.1 M instructions on every run, half of git's whole diff of a
//! one-line commit.

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, IntoDeserializer, Visitor};
use std::fmt;

/// One value of `defaults.yaml` (the kinds it holds: `build.rs` refuses any other).
#[derive(Debug)]
pub(super) enum Node {
    /// `true` or `false`.
    Bool(bool),
    /// A string.
    Str(&'static str),
    /// A sequence.
    List(&'static [Node]),
    /// A mapping, in the file's order.
    Map(&'static [(&'static str, Node)]),
}

/// Why the tree does not read as the structure asked for (a broken build).
#[derive(Debug)]
pub(super) struct BuiltError(String);

impl fmt::Display for BuiltError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for BuiltError {}

impl de::Error for BuiltError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        BuiltError(message.to_string())
    }
}

impl<'de> de::Deserializer<'de> for &'static Node {
    type Error = BuiltError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, BuiltError> {
        match self {
            Node::Bool(value) => visitor.visit_bool(*value),
            Node::Str(text) => visitor.visit_str(text),
            Node::List(items) => visitor.visit_seq(SeqDeserializer::new(items.iter())),
            Node::Map(entries) => {
                let entries = entries.iter().map(|(key, value)| (*key, value));
                visitor.visit_map(MapDeserializer::new(entries))
            }
        }
    }

    /// A key that is present holds a value (an absent one is `None`).
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, BuiltError> {
        visitor.visit_some(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, BuiltError> for &'static Node {
    type Deserializer = &'static Node;

    fn into_deserializer(self) -> &'static Node {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Sample {
        name: String,
        on: bool,
        #[serde(default)]
        missing: Vec<String>,
        absent: Option<String>,
        present: Option<String>,
        words: Vec<String>,
    }

    static SAMPLE: Node = Node::Map(&[
        ("name", Node::Str("a")),
        ("on", Node::Bool(true)),
        ("present", Node::Str("b")),
        ("words", Node::List(&[Node::Str("x"), Node::Str("y")])),
    ]);

    #[test]
    fn a_tree_reads_into_a_structure_with_its_defaults() {
        let sample = Sample::deserialize(&SAMPLE).unwrap_or_else(|error| panic!("{error}"));
        let words = vec!["x".to_string(), "y".to_string()];
        let expected = Sample {
            name: "a".to_string(),
            on: true,
            missing: Vec::new(),
            absent: None,
            present: Some("b".to_string()),
            words,
        };
        assert_eq!(sample, expected);
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_refused() {
        static EXTRA: Node = Node::Map(&[("name", Node::Str("a")), ("nmae", Node::Str("b"))]);
        let error = Sample::deserialize(&EXTRA).map(|_| ()).unwrap_err();
        assert!(
            error.to_string().contains("unknown field `nmae`"),
            "{error}"
        );
        static WRONG: Node = Node::Map(&[("name", Node::Bool(true))]);
        let error = Sample::deserialize(&WRONG).map(|_| ()).unwrap_err();
        assert!(error.to_string().contains("invalid type"), "{error}");
    }
}
