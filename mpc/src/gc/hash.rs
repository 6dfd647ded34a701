//! The hash of the half gates: a tweakable circular correlation robust hash from a
//! fixed-key permutation, `H(x, i) = π(π(x) ⊕ i) ⊕ π(x)` with `π` AES-128 under a public
//! key (Guo, Katz, Wang and Yu, "Efficient and Secure Multiparty Computation from
//! Fixed-Key Block Ciphers", IEEE S&P 2020, §7.4): half-gates garbling with free XOR
//! needs its hash to stay pseudorandom on inputs correlated by the secret offset `Δ`,
//! with a distinct tweak per use, and this is the construction proven so there.
//!
//! Blocks enter AES as their 16 little-endian bytes.

use aes::Aes128;
use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockEncrypt, KeyInit};

use super::Block;

/// The public AES key of `π`: the first 16 bytes of SHA-256 of
/// `sealed/v2/garble/fixed-key`. Any public key serves; this one is nobody's choice.
pub fn fixed_key() -> [u8; 16] {
    use sha2_010::{Digest, Sha256};
    let d = Sha256::digest(b"sealed/v2/garble/fixed-key");
    let mut k = [0u8; 16];
    k.copy_from_slice(&d[..16]);
    k
}

/// `π` and the hash built on it.
#[derive(Clone)]
pub struct Hash {
    aes: Aes128,
}

impl Default for Hash {
    fn default() -> Self {
        Hash::new()
    }
}

impl Hash {
    /// The hash under the fixed key.
    pub fn new() -> Hash {
        Hash {
            aes: Aes128::new(&GenericArray::from(fixed_key())),
        }
    }

    /// `π` on each block in place, in one call so that AES-NI pipelines them.
    #[inline]
    fn permute<const N: usize>(&self, xs: &mut [Block; N]) {
        let mut blocks: [GenericArray<u8, _>; N] =
            std::array::from_fn(|k| GenericArray::from(xs[k].to_le_bytes()));
        self.aes.encrypt_blocks(&mut blocks);
        for (x, b) in xs.iter_mut().zip(blocks.iter()) {
            let mut out = [0u8; 16];
            out.copy_from_slice(b);
            *x = Block::from_le_bytes(out);
        }
    }

    /// `H(xs[k], tweaks[k])` for each `k`.
    #[inline]
    pub fn many<const N: usize>(&self, xs: [Block; N], tweaks: [Block; N]) -> [Block; N] {
        let mut y = xs;
        self.permute(&mut y);
        let mut z: [Block; N] = std::array::from_fn(|k| y[k] ^ tweaks[k]);
        self.permute(&mut z);
        std::array::from_fn(|k| y[k] ^ z[k])
    }

    /// `H(x, i)`.
    pub fn one(&self, x: Block, i: Block) -> Block {
        self.many([x], [i])[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The permutation is AES-128: FIPS-197 appendix C.1's vector through the same path.
    #[test]
    fn pi_is_aes_128() {
        let key: [u8; 16] = std::array::from_fn(|k| k as u8);
        let h = Hash {
            aes: Aes128::new(&GenericArray::from(key)),
        };
        let plain: [u8; 16] = std::array::from_fn(|k| (k as u8) * 0x11);
        let mut x = [Block::from_le_bytes(plain)];
        h.permute(&mut x);
        let expect = [
            0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
            0xc5, 0x5a,
        ];
        assert_eq!(x[0].to_le_bytes(), expect);
    }

    /// `H(x, i)` is `π(π(x) ⊕ i) ⊕ π(x)`, one block or several at once.
    #[test]
    fn hash_is_the_papers_construction() {
        let h = Hash::new();
        let xs = [1u128, 2, 0xdead_beef << 70, u128::MAX];
        let is = [7u128, 7, 1 << 64, 0];
        let many = h.many(xs, is);
        for k in 0..4 {
            let mut y = [xs[k]];
            h.permute(&mut y);
            let mut z = [y[0] ^ is[k]];
            h.permute(&mut z);
            assert_eq!(many[k], z[0] ^ y[0]);
            assert_eq!(h.one(xs[k], is[k]), many[k]);
        }
        // The tweak matters.
        assert_ne!(h.one(5, 1), h.one(5, 2));
    }
}
