//! 128 base oblivious transfers at once, Chou and Orlandi's "simplest OT" over
//! Ristretto255:
//!
//! ```text
//! sender                                 receiver (choice c_i)
//! a, A = a·G          ── A ──▶
//!                     ◀── B_i ──         b_i, B_i = b_i·G + c_i·A
//! k_i^0 = H(i, A, B_i, a·B_i)            k_i^{c_i} = H(i, A, B_i, b_i·A)
//! k_i^1 = H(i, A, B_i, a·(B_i − A))
//! ```
//!
//! `H` is SHA-256 of `"sealed/v2/ot/base"`, `i` as one byte, and the three compressed
//! points, cut to its first 16 bytes. Scalars come from the party's seed: `a` from
//! SHA-512 of `"sealed/v2/ot/base-a"` and the seed, `b_i` of `"sealed/v2/ot/base-b"`, the
//! seed and `i`.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT as G;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use sha2_010::{Digest, Sha256, Sha512};

use super::{KAPPA, OtError};
use crate::gc::Block;
use crate::gc::seed::Seed;

fn scalar(tag: &[u8], seed: &Seed, i: Option<u8>) -> Scalar {
    let mut h = Sha512::new();
    h.update(tag);
    h.update(seed);
    if let Some(i) = i {
        h.update([i]);
    }
    Scalar::from_bytes_mod_order_wide(&h.finalize().into())
}

fn key(i: usize, a: &CompressedRistretto, b: &CompressedRistretto, p: &RistrettoPoint) -> Block {
    let mut h = Sha256::new();
    h.update(b"sealed/v2/ot/base");
    h.update([i as u8]);
    h.update(a.as_bytes());
    h.update(b.as_bytes());
    h.update(p.compress().as_bytes());
    let d = h.finalize();
    let mut k = [0u8; 16];
    k.copy_from_slice(&d[..16]);
    Block::from_le_bytes(k)
}

fn point(bytes: &[u8], index: usize) -> Result<(CompressedRistretto, RistrettoPoint), OtError> {
    let c = CompressedRistretto::from_slice(bytes).map_err(|_| OtError::NotAPoint { index })?;
    let p = c.decompress().ok_or(OtError::NotAPoint { index })?;
    Ok((c, p))
}

/// The base OTs' sender (the evaluator): his first message is `A`.
pub struct Sender {
    a: Scalar,
    big_a: CompressedRistretto,
    point_a: RistrettoPoint,
}

impl Sender {
    /// The sender of `seed`.
    pub fn new(seed: &Seed) -> Sender {
        let a = scalar(b"sealed/v2/ot/base-a", seed, None);
        let point_a = a * G;
        Sender {
            a,
            big_a: point_a.compress(),
            point_a,
        }
    }

    /// `A`, 32 bytes.
    pub fn message(&self) -> [u8; 32] {
        self.big_a.to_bytes()
    }

    /// Both keys of each transfer, from the receiver's `B_i` (128 × 32 bytes).
    pub fn keys(&self, reply: &[u8]) -> Result<Vec<(Block, Block)>, OtError> {
        if reply.len() != KAPPA * 32 {
            return Err(OtError::Length {
                expected: KAPPA * 32,
                got: reply.len(),
            });
        }
        reply
            .chunks_exact(32)
            .enumerate()
            .map(|(i, b)| {
                let (bc, bp) = point(b, i)?;
                let k0 = key(i, &self.big_a, &bc, &(self.a * bp));
                let k1 = key(i, &self.big_a, &bc, &(self.a * (bp - self.point_a)));
                Ok((k0, k1))
            })
            .collect()
    }
}

/// The base OTs' receiver (the garbler), with his 128 choice bits.
pub struct Receiver {
    seed: Seed,
    choices: [bool; KAPPA],
}

impl Receiver {
    /// The receiver of `seed` choosing `choices`.
    pub fn new(seed: &Seed, choices: [bool; KAPPA]) -> Receiver {
        Receiver {
            seed: *seed,
            choices,
        }
    }

    /// His reply to `A`: the `B_i`, and the key of each transfer he chose.
    pub fn reply(&self, a: &[u8]) -> Result<(Vec<u8>, Vec<Block>), OtError> {
        if a.len() != 32 {
            return Err(OtError::Length {
                expected: 32,
                got: a.len(),
            });
        }
        let (ac, ap) = point(a, 0)?;
        let mut out = Vec::with_capacity(KAPPA * 32);
        let mut keys = Vec::with_capacity(KAPPA);
        for (i, &c) in self.choices.iter().enumerate() {
            let b = scalar(b"sealed/v2/ot/base-b", &self.seed, Some(i as u8));
            let mut bp = b * G;
            if c {
                bp += ap;
            }
            let bc = bp.compress();
            out.extend_from_slice(bc.as_bytes());
            keys.push(key(i, &ac, &bc, &(b * ap)));
        }
        Ok((out, keys))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_receiver_gets_the_key_he_chose_and_not_the_other() {
        let choices: [bool; KAPPA] = std::array::from_fn(|i| i % 3 == 1);
        let s = Sender::new(&[1; 32]);
        let r = Receiver::new(&[2; 32], choices);
        let (reply, got) = r.reply(&s.message()).expect("a point");
        let keys = s.keys(&reply).expect("points");
        for i in 0..KAPPA {
            let (k0, k1) = keys[i];
            assert_ne!(k0, k1);
            assert_eq!(got[i], if choices[i] { k1 } else { k0 }, "transfer {i}");
        }
    }

    #[test]
    fn bad_messages_are_refused() {
        let s = Sender::new(&[1; 32]);
        let r = Receiver::new(&[2; 32], [false; KAPPA]);
        assert!(matches!(r.reply(&[0u8; 31]), Err(OtError::Length { .. })));
        // Not a canonical Ristretto encoding.
        assert_eq!(
            r.reply(&[0xff; 32]).err(),
            Some(OtError::NotAPoint { index: 0 })
        );
        let (mut reply, _) = r.reply(&s.message()).expect("a point");
        reply[5 * 32..6 * 32].copy_from_slice(&[0xff; 32]);
        assert_eq!(s.keys(&reply).err(), Some(OtError::NotAPoint { index: 5 }));
        assert!(matches!(s.keys(&reply[1..]), Err(OtError::Length { .. })));
    }
}
