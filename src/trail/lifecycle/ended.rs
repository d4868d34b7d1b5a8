//! What a compact ledger keeps of the handoffs that have ended: every one (exact), or,
//! in a bounded ledger, the latest few in full and every id in a Bloom filter.

use super::id_key;
use crate::trail::event::EventType;
use hashbrown::HashMap;
use std::collections::VecDeque;

/// What a compact ledger keeps of a handoff that has ended.
#[derive(Debug, Clone)]
pub(super) struct Closed {
    pub(super) state: EventType,
    pub(super) depth: u32,
    pub(super) to_agent: String,
    pub(super) reroutes: u32,
    /// When it was put in (for [`Ended`]'s window).
    pub(super) generation: u64,
}

/// How many ended handoffs a bounded ledger keeps in full.
pub const RECENT: usize = 4_096;
/// The bounded ledger's filter of ended ids: 2^16 blocks of 512 bits (4 MiB).
const FILTER_BLOCKS: usize = 1 << 16;
/// 64-bit words per block: one cache line.
const BLOCK_WORDS: usize = 8;
/// Bits set per id.
const FILTER_BITS: u32 = 6;

/// The handoffs a compact ledger has seen end: every one (exact), or, in a bounded
/// one, the latest [`RECENT`] in full and every id in a Bloom filter of fixed size
/// whose six bits for one id fall in one 512-bit block, one cache line (no false
/// negatives; at 340k ended ids about one false alarm in ten million lookups).
#[derive(Debug, Clone, Default)]
pub(super) struct Ended {
    pub(super) map: HashMap<String, Closed>,
    /// Bounded: the ids put in, oldest first, with their generation.
    order: VecDeque<(String, u64)>,
    /// Bounded: the filter.
    filter: Vec<u64>,
    generation: u64,
}

impl Ended {
    pub(super) fn bounded() -> Ended {
        Ended {
            filter: vec![0; FILTER_BLOCKS * BLOCK_WORDS],
            ..Ended::default()
        }
    }

    fn is_bounded(&self) -> bool {
        !self.filter.is_empty()
    }

    pub(super) fn get(&self, id: &str) -> Option<&Closed> {
        self.map.get(id)
    }

    pub(super) fn insert(&mut self, id: String, mut closed: Closed) {
        if !self.is_bounded() {
            self.map.insert(id, closed);
            return;
        }
        for (word, bit) in filter_bits(&id) {
            self.filter[word] |= bit;
        }
        self.generation += 1;
        closed.generation = self.generation;
        self.order.push_back((id.clone(), self.generation));
        self.map.insert(id, closed);
        while self.map.len() > RECENT || self.order.len() > 2 * RECENT {
            let Some((id, generation)) = self.order.pop_front() else {
                break;
            };
            if self
                .map
                .get(&id)
                .is_some_and(|c| c.generation == generation)
            {
                self.map.remove(&id);
            }
        }
    }

    /// Whether `id` may have ended before and left the window (bounded only).
    pub(super) fn maybe(&self, id: &str) -> bool {
        if !self.is_bounded() || self.map.contains_key(id) {
            return false;
        }
        filter_bits(id).all(|(word, bit)| self.filter[word] & bit != 0)
    }
}

/// The filter's bits for `id`: each a word of the filter and the bit in it.
fn filter_bits(id: &str) -> impl Iterator<Item = (usize, u64)> {
    // FNV-1a, then SplitMix64's finaliser twice: one for the block, one for the bits.
    let mix = |mut h: u64| {
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^ (h >> 31)
    };
    let key = mix(id_key(id.as_bytes()));
    let block = (key as usize & (FILTER_BLOCKS - 1)) * BLOCK_WORDS;
    let bits = mix(key ^ 0x9e37_79b9_7f4a_7c15);
    (0..FILTER_BITS).map(move |n| {
        let at = (bits >> (9 * n)) as usize & 511;
        (block + at / 64, 1u64 << (at % 64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every id put in the filter is found (no false negatives), and at the size of a
    /// 1M-event trail's ended handoffs an id not put in is almost never.
    #[test]
    fn the_filter_of_ended_ids_finds_each_and_rarely_another() {
        let mut ended = Ended::bounded();
        let closed = || Closed {
            state: EventType::Completed,
            depth: 0,
            to_agent: "b".into(),
            reroutes: 0,
            generation: 0,
        };
        for n in 0..340_000 {
            let id = format!("ho_{n:08}");
            ended.insert(id, closed());
        }
        assert_eq!(ended.map.len(), RECENT);
        let missed = (0..340_000)
            .filter(|n| {
                let id = format!("ho_{n:08}");
                ended.get(&id).is_none() && !ended.maybe(&id)
            })
            .count();
        assert_eq!(missed, 0);
        let false_alarms = (340_000..1_340_000)
            .filter(|n| ended.maybe(&format!("ho_{n:08}")))
            .count();
        assert!(false_alarms <= 3, "{false_alarms} false alarms in 1M");
    }
}
