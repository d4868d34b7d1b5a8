//! The index of a prefilter's literals by the bytes they start with ([`StartIndex`]),
//! built from the literals alone: `build.rs` includes this file and builds the index of
//! each built-in rule list's prefilter ahead (building it cost every run about 0.13 M
//! instructions), the program builds any other. The search is in
//! [`super::literals`].

use std::borrow::Cow;

/// The literals by the three bytes they start with, hashed into [`START_BUCKETS`]
/// buckets: where the three bytes of a text hash to a bucket no literal starts in, no
/// literal of three bytes or more starts there; elsewhere only the bucket's few literals
/// are compared, their first four bytes as one word. Keyed by their first pair instead,
/// the literals shared a handful of pairs (34 line-rule literals start with `en`, 33 with
/// `co`, 32 with `re`), and each of those pairs in a line compared them all: 7,500
/// instructions a line of Ruby, a quarter of rails' one-commit changes. Literals of one
/// or two bytes are searched on their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StartIndex {
    /// The buckets that hold a literal, one bit each.
    pub(crate) starts: [u64; START_BUCKETS / 64],
    /// The literals of three bytes or more; `first[b]` is the last one of bucket `b`,
    /// counted from 1 (0: none), each naming the one before it in its bucket.
    pub(crate) first: Cow<'static, [u32]>,
    pub(crate) entries: Cow<'static, [Start]>,
    /// The literals of two bytes: their slots with their pair, sorted by pair, and (for
    /// more than [`FEW_PAIRS`] of them) their pairs, one bit each.
    pub(crate) pairs: Cow<'static, [u64]>,
    pub(crate) by_pair: Cow<'static, [(u16, usize)]>,
    /// The slots of the literals of one byte (searched with memchr), and of none or past
    /// the index's four billion entries (held by every text).
    pub(crate) short: Cow<'static, [usize]>,
}

/// How many buckets [`StartIndex`] hashes the literals' first three bytes into.
pub(crate) const START_BUCKETS: usize = 1 << START_BITS;
pub(crate) const START_BITS: u32 = 12;

/// A literal of three bytes or more in a [`StartIndex`] bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Start {
    /// Its first four bytes (three, for a literal of three) as a little-endian word,
    /// and the mask of those bytes.
    pub(crate) head: u32,
    pub(crate) mask: u32,
    /// Its length and slot.
    pub(crate) length: usize,
    pub(crate) slot: usize,
    /// The literal before it in its bucket, counted from 1 (0: none).
    pub(crate) next: u32,
}

/// The bucket of the three bytes that start `bytes` (at least three).
fn start_bucket(bytes: &[u8]) -> usize {
    let word = u32::from(bytes[0]) | u32::from(bytes[1]) << 8 | u32::from(bytes[2]) << 16;
    (word.wrapping_mul(START_HASH) >> (32 - START_BITS)) as usize
}

/// The multiplier of the hash of three bytes (Fibonacci hashing).
pub(crate) const START_HASH: u32 = 0x9E37_79B1;

/// Up to how many literals of two bytes are each searched with `memchr` rather than
/// through a table of pairs.
pub(crate) const FEW_PAIRS: usize = 4;

/// The first four bytes of `bytes` as a little-endian word, zeros past its end.
pub(crate) fn head_word(bytes: &[u8]) -> u32 {
    match bytes {
        [a, b, c, d, ..] => u32::from_le_bytes([*a, *b, *c, *d]),
        _ => {
            let mut word = [0; 4];
            word[..bytes.len()].copy_from_slice(bytes);
            u32::from_le_bytes(word)
        }
    }
}

impl StartIndex {
    /// The index of `literals` (lower case), slot `i` being the `i`-th.
    pub(crate) fn new<'a>(literals: impl ExactSizeIterator<Item = &'a [u8]>) -> StartIndex {
        let mut first = vec![0; START_BUCKETS];
        let mut entries = Vec::with_capacity(literals.len());
        let (mut starts, mut by_pair, mut short) =
            ([0; START_BUCKETS / 64], Vec::new(), Vec::new());
        for (slot, literal) in literals.enumerate() {
            match *literal {
                ref bytes @ [_, _, _, ..] => {
                    // Beyond four billion literals, one is found in every text.
                    let Ok(number) = u32::try_from(entries.len() + 1) else {
                        short.push(slot);
                        continue;
                    };
                    let bucket = start_bucket(bytes);
                    starts[bucket >> 6] |= 1 << (bucket & 63);
                    let mask = if bytes.len() == 3 {
                        0x00FF_FFFF
                    } else {
                        u32::MAX
                    };
                    entries.push(Start {
                        head: head_word(bytes) & mask,
                        mask,
                        length: bytes.len(),
                        slot,
                        next: first[bucket],
                    });
                    first[bucket] = number;
                }
                [first, second] => by_pair.push((u16::from_be_bytes([first, second]), slot)),
                _ => short.push(slot),
            }
        }
        let mut pairs = Vec::new();
        if by_pair.len() > FEW_PAIRS {
            pairs = vec![0; 1 << 10];
            for &(pair, _) in &by_pair {
                pairs[usize::from(pair >> 6)] |= 1 << (pair & 63);
            }
        }
        by_pair.sort_unstable();
        StartIndex {
            starts,
            first: Cow::Owned(first),
            entries: Cow::Owned(entries),
            pairs: Cow::Owned(pairs),
            by_pair: Cow::Owned(by_pair),
            short: Cow::Owned(short),
        }
    }
}
