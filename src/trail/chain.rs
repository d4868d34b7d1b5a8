//! The hash chain: SHA-256 over RFC 8785 (JCS) canonical JSON.
//!
//! An event's `hash` is the lower-case hex SHA-256 of the canonical JSON of the event
//! object without its `hash` key; `prev` is the `hash` of the event before it (64 zeros
//! for the first event of a trail, or the `ANCHOR`'s hash after a prune). Because the
//! hash is taken over the *parsed* line, not its bytes, any JCS library in any language
//! reproduces it; `docs/trail.md` gives the recipe.
//!
//! Canonical JSON is `serde_json_canonicalizer`: keys sorted by UTF-16 code units,
//! numbers in ECMAScript form, strings with the minimal escapes of RFC 8785 §3.2.2.2.

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The `prev` of the first event of a trail.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The RFC 8785 canonical form of `value`.
///
/// A value without fractions, exponents or non-ASCII keys serializes with
/// `serde_json`'s compact writer exactly as RFC 8785 says (keys sorted, which for ASCII
/// is UTF-16 order; the same string escapes; integers as written), and that writer is
/// several times faster; anything else goes through `serde_json_canonicalizer`.
pub fn canonical_json(value: &Value) -> Vec<u8> {
    if plain(value) {
        return serde_json::to_vec(value).unwrap_or_default();
    }
    jcs(value)
}

/// [`canonical_json`] as raw JSON, what an event keeps of its message: in the plain
/// case written once, without parsing the text again to check it.
pub fn canonical_raw(value: &Value) -> Option<Box<RawValue>> {
    if plain(value) {
        return serde_json::value::to_raw_value(value).ok();
    }
    RawValue::from_string(String::from_utf8(jcs(value)).ok()?).ok()
}

/// Whether `value` holds only ASCII keys and integers within ±2^53.
fn plain(value: &Value) -> bool {
    match value {
        Value::Number(number) => number
            .as_i64()
            .map(|n| n.unsigned_abs())
            .or_else(|| number.as_u64())
            .is_some_and(|n| n <= 1 << 53),
        Value::Array(items) => items.iter().all(plain),
        Value::Object(map) => map.iter().all(|(key, item)| key.is_ascii() && plain(item)),
        _ => true,
    }
}

/// The canonical form by the JCS crate: the definition the fast path must match.
fn jcs(value: &Value) -> Vec<u8> {
    // Serializing a `serde_json::Value` cannot fail: its keys are strings and its
    // numbers finite.
    serde_json_canonicalizer::to_vec(value).unwrap_or_default()
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex SHA-256 of `parts`, one after the other.
pub fn sha256_hex_parts(parts: &[&[u8]]) -> String {
    hex(&sha256_parts(parts))
}

/// SHA-256 of `parts`, one after the other.
pub fn sha256_parts(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// SHA-256 (hex) of the canonical form of `value`: the `context_variables_hash`.
pub fn value_hash(value: &Value) -> String {
    sha256_hex(&canonical_json(value))
}

/// The `hash` of an event object: SHA-256 of its canonical form without `hash`.
pub fn event_hash(event: &Map<String, Value>) -> String {
    let mut hasher = Sha256::new();
    if event.contains_key("hash") {
        let mut without = event.clone();
        without.remove("hash");
        hasher.update(canonical_json(&Value::Object(without)));
    } else {
        let value = Value::Object(event.clone());
        hasher.update(canonical_json(&value));
    }
    hex(&hasher.finalize())
}

/// [`event_hash`] of an object the caller owns, without copying it: `hash` is taken
/// out, the rest hashed, and the stored hash returned beside the computed one.
pub fn split_hash(event: &mut Map<String, Value>) -> (Option<Value>, String) {
    let stored = event.remove("hash");
    let value = Value::Object(std::mem::take(event));
    let computed = sha256_hex(&canonical_json(&value));
    if let Value::Object(map) = value {
        *event = map;
    }
    (stored, computed)
}

pub(super) fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    hex_into(bytes, &mut text);
    text
}

/// Lower-case hex of `bytes`, after what `text` holds.
pub(super) fn hex_into(bytes: &[u8], text: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for byte in bytes {
        text.push(DIGITS[usize::from(byte >> 4)] as char);
        text.push(DIGITS[usize::from(byte & 0x0f)] as char);
    }
}

/// Whether `text` is a well-formed hash: 64 lower-case hex digits.
pub fn is_hash(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// RFC 8785 §3.2.2.3 (numbers) and Appendix B (the IEEE 754 to ES6 table).
    #[test]
    fn numbers_are_serialised_as_rfc_8785_says() {
        let cases: [(f64, &str); 12] = [
            (0.0, "0"),
            (-0.0, "0"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (9007199254740992.0, "9007199254740992"),
            (-9007199254740992.0, "-9007199254740992"),
            (295147905179352830000.0, "295147905179352830000"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (333333333.3333333, "333333333.3333333"),
        ];
        for (number, expected) in cases {
            let text = String::from_utf8(canonical_json(&json!(number))).expect("UTF-8");
            assert_eq!(text, expected, "{number:e}");
        }
    }

    /// RFC 8785 §3.2.2 and §3.2.3: the example of the RFC, byte for byte.
    #[test]
    fn the_rfc_example_is_reproduced() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        let value: Value = serde_json::from_str(input).expect("JSON");
        let expected = concat!(
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"#,
            r#""string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
        assert_eq!(
            String::from_utf8(canonical_json(&value)).expect("UTF-8"),
            expected
        );
    }

    /// RFC 8785 §3.2.3: keys sort by UTF-16 code units, not by UTF-8 bytes.
    #[test]
    fn keys_sort_by_utf16_code_units() {
        let input = r#"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#;
        let value: Value = serde_json::from_str(input).expect("JSON");
        let text = String::from_utf8(canonical_json(&value)).expect("UTF-8");
        let order: Vec<&str> = [
            "Carriage Return",
            "One",
            "Control",
            "Latin Small",
            "Euro Sign",
            "Emoji",
            "Hebrew",
        ]
        .into_iter()
        .collect();
        let positions: Vec<usize> = order.iter().filter_map(|name| text.find(name)).collect();
        assert_eq!(positions.len(), order.len(), "{text}");
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{text}");
    }

    #[test]
    fn the_fast_writer_agrees_with_the_jcs_crate_where_it_is_used() {
        let values = [
            json!({"b": [1, -2, 9007199254740992_u64, null, true], "a": {"y": "\u{1}\n\"\\/é😀\u{7f}\u{2028}", "x": {}}}),
            json!([{"z": 0, "A": [], "_": "", "a b": -0}]),
            json!("plain"),
        ];
        for value in values {
            assert!(plain(&value));
            assert_eq!(canonical_json(&value), jcs(&value), "{value}");
            let raw = canonical_raw(&value).expect("raw JSON");
            assert_eq!(raw.get().as_bytes(), jcs(&value), "{value}");
        }
        let not_plain = json!({"x": 1.5, "é": [1e30]});
        let raw = canonical_raw(&not_plain).expect("raw JSON");
        assert_eq!(raw.get().as_bytes(), jcs(&not_plain));
        assert!(!plain(&json!({"x": 1.5})));
        assert!(!plain(&json!({"é": 1})));
        assert!(!plain(&json!({"x": 9007199254740993_u64})));
    }

    #[test]
    fn the_hash_leaves_out_the_hash_key() {
        let mut event = json!({"seq": 0, "prev": GENESIS, "b": "x"});
        let plain = event_hash(event.as_object().unwrap_or(&Map::new()));
        event["hash"] = json!("whatever");
        let with_key = event_hash(event.as_object().unwrap_or(&Map::new()));
        assert_eq!(plain, with_key);
        assert!(is_hash(&plain));
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
