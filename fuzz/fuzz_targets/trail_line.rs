//! One line of a trail segment, as `verify` reads it: never panics, and whenever the
//! fast path (a canonical line hashed as it stands) answers, it agrees with the
//! definition (parse, RFC 8785, SHA-256).
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
    if let Some((member, _)) = hash_member(data) {
        let (before, after) = without_hash(data, member);
        let fast = sha256_hex_parts(&[before, after]);
        assert_eq!(Some(fast), definition_hash(data));
    }
});
