//! Hash maps keyed by node ids (pre-order slots of `js::syntax::tree`) and other
//! small integers.
//!
//! The standard SipHash resists hash flooding, which buys nothing for keys
//! the parser produced and cost ≈ 3% of a full check in the profile. This is
//! the Fx multiply-rotate hash (as in rustc), with a final rotation that
//! spreads the multiply's high bits over the low bits hashbrown indexes by
//! (it was written for pointer keys, whose low bits are always zero).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl IdHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        for b in chunks.remainder() {
            self.add(u64::from(*b));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

pub type IdBuildHasher = BuildHasherDefault<IdHasher>;
pub type IdMap<K, V> = HashMap<K, V, IdBuildHasher>;
pub type IdSet<K> = HashSet<K, IdBuildHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_pointer_keys_spread_over_low_bits() {
        use std::hash::BuildHasher;
        let b = IdBuildHasher::default();
        let mut low: IdSet<u64> = IdSet::default();
        for i in 0..64u64 {
            low.insert(b.hash_one(0x7f00_0000_0000 + i * 64) & 63);
        }
        // 64 keys 64 bytes apart land in many distinct low-bit buckets.
        assert!(low.len() > 32, "only {} distinct buckets", low.len());
    }

    #[test]
    fn maps_behave_like_maps() {
        let mut m: IdMap<usize, &str> = IdMap::default();
        m.insert(8, "a");
        m.insert(16, "b");
        m.insert(8, "c");
        assert_eq!(m.len(), 2);
        assert_eq!(m.get(&8), Some(&"c"));
        assert_eq!(m.get(&24), None);
    }
}
