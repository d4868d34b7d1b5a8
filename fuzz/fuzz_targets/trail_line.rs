//! One line of a trail segment, as `verify` reads it: never panics, and whenever the
//! fast path (a canonical line in UTF-8 hashed as it stands) answers, it agrees with the
//! definition (parse, RFC 8785, SHA-256). The canonical scan checks the JSON's shape
//! only; `verify` checks UTF-8 before it takes the fast path, and so does this target.
#![no_main]

use handoff::{
    hash_member, parse_trail_line as parse, sha256_hex_parts,
    trail_line_definition_hash as definition_hash, without_hash, ParsedTrailLine as Parsed,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Parsed::Event(_, computed, _) = parse(data, true) {
        assert_eq!(Some(computed), definition_hash(data));
    }
    let utf8 = std::str::from_utf8(data).is_ok();
    if let Some((member, _)) = hash_member(data).filter(|_| utf8) {
        let (before, after) = without_hash(data, member);
        let fast = sha256_hex_parts(&[before, after]);
        assert_eq!(Some(fast), definition_hash(data));
    }
});
