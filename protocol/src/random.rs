//! The one random stream every derivation uses: ChaCha20 keyed by a 32-byte hash.
//!
//! Portability matters more than speed here: two implementations must draw the same
//! numbers from the same key forever, so we name the cipher (RFC 8439 ChaCha20, nonce
//! all zero, block counter from 0), the word order (little-endian `u32`s of the key
//! stream) and the range and shuffle algorithms, instead of relying on a library RNG
//! whose algorithm may change between versions.

use chacha20::ChaCha20;
use chacha20::cipher::{KeyIvInit, StreamCipher};

use crate::hash::Hash;

/// A deterministic stream of random words.
pub struct Stream {
    cipher: ChaCha20,
    block: [u8; 64],
    used: usize,
}

impl Stream {
    /// A stream keyed by `key`.
    pub fn new(key: &Hash) -> Self {
        let cipher = ChaCha20::new(key.as_bytes().into(), &[0u8; 12].into());
        Stream {
            cipher,
            block: [0; 64],
            used: 64,
        }
    }

    /// The next little-endian `u32` of the key stream.
    pub fn next_u32(&mut self) -> u32 {
        if self.used == 64 {
            self.block = [0; 64];
            self.cipher.apply_keystream(&mut self.block);
            self.used = 0;
        }
        let w = u32::from_le_bytes(
            self.block[self.used..self.used + 4]
                .try_into()
                .unwrap_or_default(),
        );
        self.used += 4;
        w
    }

    /// A uniform number in `0..n` by rejection: draw `w`, accept when
    /// `w < n·⌊2³²/n⌋`, return `w mod n`. `n` must be at least 1.
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "below(0) has no value");
        let zone = (1u64 << 32) / u64::from(n) * u64::from(n);
        loop {
            let w = self.next_u32();
            if u64::from(w) < zone {
                return w % n;
            }
        }
    }

    /// Fisher–Yates from the top: for `i` from `len-1` down to 1, swap `i` with
    /// `below(i+1)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// A shuffled `0..n`.
    pub fn permutation(&mut self, n: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (0..n).collect();
        self.shuffle(&mut v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rfc8439_test_vector_1() {
        // RFC 8439 appendix A.1, test vector #1: zero key, zero nonce, counter 0.
        let mut s = Stream::new(&Hash::ZERO);
        let words: Vec<u32> = (0..4).map(|_| s.next_u32()).collect();
        assert_eq!(words, [0xade0_b876, 0x903d_f1a0, 0xe56a_5d40, 0x28bd_8653]);
    }

    proptest! {
        #[test]
        fn permutations_are_permutations(key in any::<[u8; 32]>(), n in 1u32..300) {
            let mut p = Stream::new(&Hash(key)).permutation(n);
            p.sort_unstable();
            prop_assert_eq!(p, (0..n).collect::<Vec<_>>());
        }

        #[test]
        fn below_stays_below(key in any::<[u8; 32]>(), n in 1u32..u32::MAX) {
            let mut s = Stream::new(&Hash(key));
            for _ in 0..8 { prop_assert!(s.below(n) < n); }
        }
    }
}
