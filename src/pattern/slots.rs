//! How the tables `build.rs` writes are looked up: by a hash of the pattern, into a
//! table of slots (open addressing, linear probing). `build.rs` includes this file, so
//! the two sides hash the same way. A binary search over the sorted patterns compared
//! about nine strings per lookup, 400 instructions, for each of a policy's 500 globs and
//! regexes on every run.

/// FNV-1a (64 bits) of `text`'s length, its first 16 bytes and its last 16: a regex
/// runs to hundreds of bytes, and hashing every one cost more than the search it spares.
/// Patterns that share both ends only share a probe sequence.
pub(crate) fn hash(text: &[u8]) -> u64 {
    let head = &text[..text.len().min(16)];
    let tail = &text[text.len().saturating_sub(16)..];
    let start = 0xcbf2_9ce4_8422_2325 ^ text.len() as u64;
    head.iter().chain(tail).fold(start, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The slots to try for `text`, in order, in a table of `count` slots (a power of two).
pub(crate) fn probe(text: &[u8], count: usize) -> impl Iterator<Item = usize> {
    let start = hash(text) as usize;
    (0..count).map(move |step| start.wrapping_add(step) & (count - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_tries_every_slot_once_and_equal_ends_of_a_long_text_hash_alike() {
        let mut tried: Vec<usize> = probe(b"secret", 64).collect();
        tried.sort_unstable();
        assert_eq!(tried, (0..64).collect::<Vec<_>>());
        let long =
            |middle: &str| format!("(?i)\\b(password|secret{middle}|passwd|api_key)\\s*[:=]");
        assert_eq!(hash(long("x").as_bytes()), hash(long("y").as_bytes()));
        assert_ne!(hash(long("x").as_bytes()), hash(long("xy").as_bytes()));
        assert_ne!(hash(b"a"), hash(b"b"));
    }
}
