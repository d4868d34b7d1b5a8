//! Python semantics the reference implementation relies on, so that verdicts agree.
//!
//! The reference validator (gaia-ops, Python) reads the block with `json.loads` and then
//! leans on Python's own rules: a value is "empty" when it is falsy, scalar fields are
//! compared after `str(value)`, `loop_state` numbers go through `int()` and `float()`,
//! and the `LOOP_STATE_INCOMPLETE` code prints numbers the way Python does (`0.3`,
//! `1.0`, `1e-05`). This module reproduces exactly those pieces over `serde_json`
//! values, nothing more.

use serde_json::Value;

/// Python truthiness of a JSON value: `null`, `false`, `0`, `""`, `[]` and `{}` are falsy.
pub fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|x| x != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// The name Python gives the type `json.loads` produces for this value.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python's `str(value)`: strings as they are, everything else as its `repr`.
pub fn to_str(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => repr(other),
    }
}

/// Python's `repr(value)` of what `json.loads` returns.
pub fn repr(value: &Value) -> String {
    match value {
        Value::Null => "None".to_string(),
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Number(number) => match (number.as_i64(), number.as_u64()) {
            (Some(int), _) => int.to_string(),
            (None, Some(int)) => int.to_string(),
            _ => float_repr(number.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(text) => string_repr(text),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(repr).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(key, item)| format!("{}: {}", string_repr(key), repr(item)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// Python's `repr(text)`: single quotes unless the text holds `'` and no `"`.
pub fn string_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&escape_control(c)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn escape_control(ch: char) -> String {
    let code = u32::from(ch);
    if code <= 0xff {
        format!("\\x{code:02x}")
    } else {
        format!("\\u{code:04x}")
    }
}

/// Python's `repr(float)`: the shortest round-trip digits, fixed notation for
/// exponents from -4 to 15, scientific (`1e-05`, `1.5e+16`) outside that range.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let (digits, exponent) = shortest_digits(x.abs());
    let body = if (-4..16).contains(&exponent) {
        fixed_notation(&digits, exponent)
    } else {
        scientific_notation(&digits, exponent)
    };
    format!("{sign}{body}")
}

/// The shortest round-trip decimal digits of a positive finite `x` and the decimal
/// exponent of the first digit (`x = d.ddd × 10^exponent`).
fn shortest_digits(x: f64) -> (String, i32) {
    let formatted = format!("{x:e}");
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((&formatted, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exponent.parse().unwrap_or(0))
}

fn fixed_notation(digits: &str, exponent: i32) -> String {
    if exponent < 0 {
        let zeros = "0".repeat((-exponent - 1) as usize);
        return format!("0.{zeros}{digits}");
    }
    let int_len = exponent as usize + 1;
    if digits.len() <= int_len {
        let zeros = "0".repeat(int_len - digits.len());
        format!("{digits}{zeros}.0")
    } else {
        format!("{}.{}", &digits[..int_len], &digits[int_len..])
    }
}

fn scientific_notation(digits: &str, exponent: i32) -> String {
    let mantissa = if digits.len() == 1 {
        digits.to_string()
    } else {
        format!("{}.{}", &digits[..1], &digits[1..])
    };
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// Python's `int(value)` for what `json.loads` returns; `None` where Python raises.
pub fn to_int(value: &Value) -> Option<i128> {
    match value {
        Value::Bool(flag) => Some(i128::from(*flag)),
        Value::Number(number) => match (number.as_i64(), number.as_u64()) {
            (Some(int), _) => Some(i128::from(int)),
            (None, Some(int)) => Some(i128::from(int)),
            _ => float_to_int(number.as_f64()?),
        },
        Value::String(text) => parse_int_literal(text),
        _ => None,
    }
}

fn float_to_int(x: f64) -> Option<i128> {
    // `int(2.9)` truncates toward zero; `int(inf)` and `int(nan)` raise.
    let truncated = x.trunc();
    (truncated.is_finite() && truncated.abs() < 1e38).then_some(truncated as i128)
}

/// Python's `int(text)`: surrounding whitespace, a sign, digits with single underscores.
fn parse_int_literal(text: &str) -> Option<i128> {
    let trimmed = text.trim_matches(is_python_space);
    let (negative, unsigned) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let digits = without_digit_underscores(unsigned)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude: i128 = digits.parse().ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// Python's `float(value)` for what `json.loads` returns; `None` where Python raises.
pub fn to_float(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(flag) => Some(if *flag { 1.0 } else { 0.0 }),
        Value::Number(number) => number.as_f64(),
        Value::String(text) => parse_float_literal(text),
        _ => None,
    }
}

fn parse_float_literal(text: &str) -> Option<f64> {
    let trimmed = text.trim_matches(is_python_space);
    let cleaned = without_digit_underscores(trimmed)?;
    let special = cleaned.trim_start_matches(['+', '-']).to_ascii_lowercase();
    let is_word = special.chars().all(|c| c.is_ascii_alphabetic());
    if is_word && !matches!(special.as_str(), "inf" | "infinity" | "nan") {
        return None;
    }
    cleaned.parse().ok()
}

/// Removes underscores that sit between two digits (`1_000`); `None` for any other `_`.
fn without_digit_underscores(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (index, ch) in text.char_indices() {
        if ch != '_' {
            out.push(ch);
            continue;
        }
        let before = index.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(index + 1).copied();
        let between_digits =
            before.is_some_and(|b| b.is_ascii_digit()) && after.is_some_and(|b| b.is_ascii_digit());
        if !between_digits {
            return None;
        }
    }
    Some(out)
}

/// Python's `str.isspace` for one character (adds the ASCII separators `\x1c`–`\x1f`,
/// which Rust's `char::is_whitespace` leaves out).
pub fn is_python_space(ch: char) -> bool {
    ch.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&ch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_print_like_python_repr() {
        let cases = [
            (0.3, "0.3"),
            (1.0, "1.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123.456, "123.456"),
            (-2.5, "-2.5"),
            (-0.0, "-0.0"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
        ];
        for (x, expected) in cases {
            assert_eq!(float_repr(x), expected, "{x:?}");
        }
    }

    #[test]
    fn str_and_repr_follow_python() {
        assert_eq!(to_str(&json!("DONE")), "DONE");
        assert_eq!(to_str(&json!(null)), "None");
        assert_eq!(to_str(&json!(true)), "True");
        assert_eq!(to_str(&json!([])), "[]");
        assert_eq!(to_str(&json!(["a", 1, 2.0])), "['a', 1, 2.0]");
        assert_eq!(to_str(&json!({"k": "it's"})), "{'k': \"it's\"}");
        assert_eq!(string_repr("a\nb\u{1}"), "'a\\nb\\x01'");
    }

    #[test]
    fn int_and_float_coerce_like_python() {
        assert_eq!(to_int(&json!(2.9)), Some(2));
        assert_eq!(to_int(&json!(-2.9)), Some(-2));
        assert_eq!(to_int(&json!(" 7 ")), Some(7));
        assert_eq!(to_int(&json!("1_000")), Some(1000));
        assert_eq!(to_int(&json!("2.0")), None);
        assert_eq!(to_int(&json!("1__0")), None);
        assert_eq!(to_int(&json!(true)), Some(1));
        assert_eq!(to_int(&json!([1])), None);
        assert_eq!(to_float(&json!("0.5")), Some(0.5));
        assert_eq!(to_float(&json!(3)), Some(3.0));
        assert!(to_float(&json!("nan")).is_some_and(f64::is_nan));
        assert_eq!(to_float(&json!("-Infinity")), Some(f64::NEG_INFINITY));
        assert_eq!(to_float(&json!("abc")), None);
        assert_eq!(to_float(&json!(null)), None);
    }

    #[test]
    fn truthiness_matches_python() {
        for falsy in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert!(!is_truthy(&falsy), "{falsy}");
        }
        for truthy in [
            json!(true),
            json!(1),
            json!("x"),
            json!([0]),
            json!({"a": null}),
        ] {
            assert!(is_truthy(&truthy), "{truthy}");
        }
    }
}
