//! Oblivious-transfer extension (Ishai, Kilian, Nissim and Petrank, Crypto 2003): the
//! 128 base OTs, made once per game, give each computation `m` fresh transfers.
//!
//! ```text
//! receiver (choices r, base keys k_i^0, k_i^1)      sender (s, base keys k_i^{s_i})
//! t_i = G(k_i^0), u_i = t_i ⊕ G(k_i^1) ⊕ r  ── u ──▶ q_i = G(k_i^{s_i}) ⊕ s_i·u_i
//!                                                    (so row q_j = t_j ⊕ r_j·s)
//!                                 ◀── y ──  y_j^0 = x_j^0 ⊕ H(q_j, τ_j)
//!                                           y_j^1 = x_j^1 ⊕ H(q_j ⊕ s, τ_j)
//! x_j = y_j^{r_j} ⊕ H(t_j, τ_j)
//! ```
//!
//! **The consistency check** (Keller, Orsini and Scholl, Crypto 2015). The receiver
//! appends `CHECK` = 192 choices of his own (the *filler*: AES-128, under the first 16
//! bytes of SHA-256 of `sealed/v2/ot/filler` and every base key pair in order, on the
//! block `R`, bits from the least significant) and asks for `m + CHECK` transfers. Both
//! draw `χ_j`, `j < m + CHECK`: AES-128 under the first 16 bytes of SHA-256 of
//! `sealed/v2/ot/check`, `R` (8 bytes, little-endian) and `u`, on the block `j`. The
//! receiver sends, after `u`, `x = ⊕ r_j·χ_j` and `t = ⊕ χ_j·t_j` (products in
//! GF(2¹²⁸), `field.rs`); the sender refuses the request unless `⊕ χ_j·q_j = t ⊕ x·s`.
//! An honest request always passes (`q_j = t_j ⊕ r_j·s`); one whose columns carry
//! different choice vectors fails but with probability about 2⁻¹²⁸ per attempt to guess,
//! and the filler keeps `x` from telling the real choices. Only the first `m` transfers
//! are answered.
//!
//! `G(k)` for run `R` is AES-128 under `k` on the blocks `R·2⁶⁴ + n`, `n = 0, 1, …`, the
//! `m` bits taken from the 16-byte little-endian blocks in order, least significant bit
//! first. `H` is the garbling's hash (`gc::hash`) with tweak `τ_j = 2¹²⁷ + R·2⁶⁴ + j`,
//! apart from every tweak of the garbling (whose top bit is 0). Runs are below 2⁶³.
//! On the wire: the request is `u`, the 128 columns in order, each `⌈(m + CHECK) / 128⌉`
//! blocks, then `x` and `t`; `y` is each of the `m` transfers' `y^0` then `y^1`; blocks
//! as 16 little-endian bytes.

use aes::Aes128;
use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockEncrypt, KeyInit};

use super::field::mul;
use super::{KAPPA, OtError};
use crate::gc::hash::Hash;
use crate::gc::{Block, blocks_from_bytes, blocks_to_bytes};

/// `m` bits of `G(k)` for run `run`, as 128-bit words.
fn expand(k: Block, run: u64, m: usize) -> Vec<Block> {
    let aes = Aes128::new(&GenericArray::from(k.to_le_bytes()));
    (0..m.div_ceil(128))
        .map(|n| {
            let mut b = GenericArray::from(((u128::from(run) << 64) | n as u128).to_le_bytes());
            aes.encrypt_block(&mut b);
            let mut out = [0u8; 16];
            out.copy_from_slice(&b);
            Block::from_le_bytes(out)
        })
        .collect()
}

/// Transfers added to every request for the consistency check.
pub const CHECK: usize = KAPPA + 64;

/// AES-128 under the first 16 bytes of SHA-256 of `parts`, as a block generator.
fn keyed(parts: &[&[u8]]) -> Aes128 {
    use sha2_010::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    let d = h.finalize();
    Aes128::new(GenericArray::from_slice(&d[..16]))
}

fn block_of(aes: &Aes128, n: u128) -> Block {
    let mut b = GenericArray::from(n.to_le_bytes());
    aes.encrypt_block(&mut b);
    let mut out = [0u8; 16];
    out.copy_from_slice(&b);
    Block::from_le_bytes(out)
}

/// The challenges `χ_j` for a request `u` of run `run`.
fn challenges(run: u64, u: &[u8], n: usize) -> Vec<Block> {
    let aes = keyed(&[b"sealed/v2/ot/check", &run.to_le_bytes(), u]);
    (0..n).map(|j| block_of(&aes, j as u128)).collect()
}

fn tweak(run: u64, j: usize) -> Block {
    (1u128 << 127) | (u128::from(run & (u64::MAX >> 1)) << 64) | j as u128
}

/// Row `j` of the matrix whose columns are `cols`.
fn row(cols: &[Vec<Block>], j: usize) -> Block {
    let (w, b) = (j / 128, j % 128);
    cols.iter()
        .enumerate()
        .fold(0u128, |acc, (i, c)| acc | (((c[w] >> b) & 1) << i))
}

/// The extension's receiver (the evaluator), holding both keys of every base OT.
pub struct Receiver {
    keys: Vec<(Block, Block)>,
    filler: Aes128,
    hash: Hash,
}

/// What the receiver keeps of one run until the sender answers.
pub struct Pending {
    run: u64,
    choices: Vec<bool>,
    rows: Vec<Block>,
}

impl Receiver {
    /// From the base OTs' keys (`base::Sender::keys`).
    pub fn new(keys: Vec<(Block, Block)>) -> Receiver {
        let bytes: Vec<u8> = keys
            .iter()
            .flat_map(|(a, b)| a.to_le_bytes().into_iter().chain(b.to_le_bytes()))
            .collect();
        Receiver {
            filler: keyed(&[b"sealed/v2/ot/filler", &bytes]),
            keys,
            hash: Hash::new(),
        }
    }

    /// The request (`u`, `x`, `t`) for one label per choice in run `run`, and what to
    /// keep.
    pub fn request(&self, run: u64, choices: &[bool]) -> (Vec<u8>, Pending) {
        let m = choices.len();
        let total = m + CHECK;
        let words = total.div_ceil(128);
        let filler: Vec<Block> = (0..CHECK.div_ceil(128))
            .map(|n| block_of(&self.filler, (u128::from(run) << 64) | n as u128))
            .collect();
        let all: Vec<bool> = choices
            .iter()
            .copied()
            .chain((0..CHECK).map(|k| (filler[k / 128] >> (k % 128)) & 1 == 1))
            .collect();
        let mut r = vec![0u128; words];
        for (j, &c) in all.iter().enumerate() {
            r[j / 128] |= u128::from(c) << (j % 128);
        }
        let mut t_cols = Vec::with_capacity(KAPPA);
        let mut u = Vec::with_capacity(KAPPA * words);
        for &(k0, k1) in &self.keys {
            let t = expand(k0, run, total);
            let g1 = expand(k1, run, total);
            u.extend((0..words).map(|w| t[w] ^ g1[w] ^ r[w]));
            t_cols.push(t);
        }
        let rows: Vec<Block> = (0..total).map(|j| row(&t_cols, j)).collect();
        let mut message = blocks_to_bytes(&u);
        let chi = challenges(run, &message, total);
        let (mut x, mut t) = (0u128, 0u128);
        for j in 0..total {
            if all[j] {
                x ^= chi[j];
            }
            t ^= mul(chi[j], rows[j]);
        }
        message.extend(blocks_to_bytes(&[x, t]));
        (
            message,
            Pending {
                run,
                choices: choices.to_vec(),
                rows: rows[..m].to_vec(),
            },
        )
    }

    /// The label of each choice, from the sender's `y`.
    pub fn finish(&self, p: &Pending, y: &[u8]) -> Result<Vec<Block>, OtError> {
        let m = p.choices.len();
        if y.len() != m * 32 {
            return Err(OtError::Length {
                expected: m * 32,
                got: y.len(),
            });
        }
        let y = blocks_from_bytes(y);
        Ok((0..m)
            .map(|j| {
                let pick = y[2 * j + usize::from(p.choices[j])];
                pick ^ self.hash.one(p.rows[j], tweak(p.run, j))
            })
            .collect())
    }
}

/// The extension's sender (the garbler): his secret `s` (his base OTs' choices) and the
/// key of each base OT he chose.
pub struct Sender {
    s: Block,
    keys: Vec<Block>,
    hash: Hash,
}

impl Sender {
    /// From `s` and the keys the base OTs gave him (`base::Receiver::reply`).
    pub fn new(s: Block, keys: Vec<Block>) -> Sender {
        Sender {
            s,
            keys,
            hash: Hash::new(),
        }
    }

    /// The base OTs' choices for a secret `s`: its bits, least significant first.
    pub fn choices(s: Block) -> [bool; KAPPA] {
        std::array::from_fn(|i| (s >> i) & 1 == 1)
    }

    /// The answer `y` to the receiver's request in run `run`, carrying `pairs` (the two
    /// labels of each transfer, for a choice of 0 and of 1), once the request passes its
    /// consistency check.
    pub fn respond(
        &self,
        run: u64,
        request: &[u8],
        pairs: &[(Block, Block)],
    ) -> Result<Vec<u8>, OtError> {
        let m = pairs.len();
        let total = m + CHECK;
        let words = total.div_ceil(128);
        let u_len = KAPPA * words * 16;
        if request.len() != u_len + 32 {
            return Err(OtError::Length {
                expected: u_len + 32,
                got: request.len(),
            });
        }
        let (u_bytes, xt) = request.split_at(u_len);
        let u = blocks_from_bytes(u_bytes);
        let xt = blocks_from_bytes(xt);
        let q_cols: Vec<Vec<Block>> = self
            .keys
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let g = expand(k, run, total);
                let on = (self.s >> i) & 1 == 1;
                (0..words)
                    .map(|w| if on { g[w] ^ u[i * words + w] } else { g[w] })
                    .collect()
            })
            .collect();
        let rows: Vec<Block> = (0..total).map(|j| row(&q_cols, j)).collect();
        let chi = challenges(run, u_bytes, total);
        let q = chi
            .iter()
            .zip(&rows)
            .fold(0u128, |acc, (c, r)| acc ^ mul(*c, *r));
        if q != xt[1] ^ mul(xt[0], self.s) {
            return Err(OtError::Inconsistent);
        }
        let mut y = Vec::with_capacity(2 * m);
        for (j, &(x0, x1)) in pairs.iter().enumerate() {
            let q = rows[j];
            let [h0, h1] = self.hash.many([q, q ^ self.s], [tweak(run, j); 2]);
            y.push(x0 ^ h0);
            y.push(x1 ^ h1);
        }
        Ok(blocks_to_bytes(&y))
    }
}
