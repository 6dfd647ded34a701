//! Every random choice of a garbler, drawn from his seed, so that the audit can make it
//! again: the global offset `Δ` and the zero label of each input wire of each run.
//!
//! The stream is AES-128 in counter mode under `K = SHA-256("sealed/v2/garble/seed" ‖
//! seed)[0..16]`: block `n` is `AES_K(n)`, `n` as 16 little-endian bytes. `Δ` is block
//! `2¹²⁸ − 1` with its least significant bit set; the secret `s` of the OT extension
//! (`ot::extension`) is block `2¹²⁸ − 2`; the zero label of input wire `w` of run `r` is
//! block `r·2⁶⁴ + w`; a player's pad for run `r` (`play`) is block `2¹²⁷ + r`, the salt
//! of his commitment to his attempt in run `r` (`play::record`) block `3·2¹²⁶ + r`. Runs are numbered by the caller (one per computation of a
//! game), so no two runs under one seed share a label.

use aes::Aes128;
use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockEncrypt, KeyInit};

use super::Block;

/// A garbler's 32-byte seed.
pub type Seed = [u8; 32];

/// The stream of one seed.
pub struct Stream {
    aes: Aes128,
}

impl Stream {
    /// The stream of `seed`.
    pub fn new(seed: &Seed) -> Stream {
        use sha2_010::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"sealed/v2/garble/seed");
        h.update(seed);
        let d = h.finalize();
        Stream {
            aes: Aes128::new(GenericArray::from_slice(&d[..16])),
        }
    }

    /// Block `n` of the stream.
    pub fn block(&self, n: u128) -> Block {
        let mut b = GenericArray::from(n.to_le_bytes());
        self.aes.encrypt_block(&mut b);
        let mut out = [0u8; 16];
        out.copy_from_slice(&b);
        Block::from_le_bytes(out)
    }

    /// The global offset: odd, so that a wire's two labels differ in their
    /// point-and-permute bit.
    pub fn delta(&self) -> Block {
        self.block(u128::MAX) | 1
    }

    /// The garbler's secret in the OT extension, whose bits are his base OTs' choices.
    pub fn ot_secret(&self) -> Block {
        self.block(u128::MAX - 1)
    }

    /// The player's share of the fingerprints' key, whoever garbles: five words from
    /// blocks `2¹²⁸ − 3`, `2¹²⁸ − 4`, `2¹²⁸ − 5` (each block's low word first, the last
    /// block's high word unused).
    pub fn hash_share(&self) -> [u64; 5] {
        let words = |n: u128| {
            let b = self.block(n);
            [b as u64, (b >> 64) as u64]
        };
        let [a, b] = words(u128::MAX - 2);
        let [c, d] = words(u128::MAX - 3);
        let [e, _] = words(u128::MAX - 4);
        [a, b, c, d, e]
    }

    /// The player's pad for run `run` (below 2⁶³), whoever garbles.
    pub fn pad(&self, run: u64) -> Block {
        self.block((1u128 << 127) | u128::from(run))
    }

    /// The salt of the player's commitment to his attempt in run `run` (below 2⁶³):
    /// opening the seed opens it.
    pub fn salt(&self, run: u64) -> Block {
        self.block((3u128 << 126) | u128::from(run))
    }

    /// The zero label of input wire `wire` in run `run`.
    pub fn input_zero(&self, run: u64, wire: u64) -> Block {
        self.block((u128::from(run) << 64) | u128::from(wire))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_the_seeds_alone() {
        let a = Stream::new(&[1; 32]);
        let b = Stream::new(&[1; 32]);
        let c = Stream::new(&[2; 32]);
        assert_eq!(a.delta(), b.delta());
        assert_eq!(a.input_zero(3, 9), b.input_zero(3, 9));
        assert_ne!(a.delta(), c.delta());
        assert_ne!(a.input_zero(3, 9), a.input_zero(4, 9));
        assert_ne!(a.input_zero(3, 9), a.input_zero(3, 10));
        assert!(super::super::lsb(a.delta()));
    }
}
