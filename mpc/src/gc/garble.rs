//! Garbling a circuit by half gates: XOR and NOT free, two ciphertexts per AND gate.
//!
//! For an AND gate with input zero labels `A`, `B` (`a = lsb(A)`, `b = lsb(B)`), the
//! `k`-th AND gate of run `r`, tweaks `j = r·2⁶⁴ + 2k` and `j' = j + 1`:
//!
//! ```text
//! T_G = H(A, j) ⊕ H(A ⊕ Δ, j) ⊕ b·Δ          W_G = H(A, j) ⊕ a·T_G
//! T_E = H(B, j') ⊕ H(B ⊕ Δ, j') ⊕ A           W_E = H(B, j') ⊕ b·(T_E ⊕ A)
//! ```
//!
//! the gate's row is `(T_G, T_E)` and its output zero label `W_G ⊕ W_E`. An XOR gate's
//! output zero label is the XOR of its inputs'; a NOT gate's is its input's XOR `Δ`.

use super::hash::Hash;
use super::seed::Stream;
use super::{Block, Circuit, Gate, input_count, lsb};

/// What a garbler sends for one AND gate.
pub type Row = [Block; 2];

/// One garbled circuit: the rows to send, and what the garbler keeps to encode inputs
/// and read outputs.
pub struct Garbling {
    /// One row per AND gate, in the circuit's order: the garbled circuit itself.
    pub rows: Vec<Row>,
    delta: Block,
    inputs: Vec<Block>,
    outputs: Vec<Block>,
}

/// Why an output label was refused: not one of its wire's two labels. The evaluator
/// returned it, so the fault is his (an honest evaluation always gives one of the two).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The label at this output position is neither of its wire's.
    NotALabel {
        /// The output's position.
        output: usize,
    },
    /// A different number of labels than the circuit has outputs.
    Count {
        /// Outputs the circuit has.
        expected: usize,
        /// Labels returned.
        got: usize,
    },
}

/// Garbles `c` for run `run` of `stream`'s seed. Input wire `w`'s zero label is the
/// stream's unless `carried` gives one for it: a label kept from an earlier run's output
/// (the state carried between computations, never drawn twice).
pub fn garble(c: &Circuit, stream: &Stream, run: u64, carried: &[(usize, Block)]) -> Garbling {
    let delta = stream.delta();
    let n_in = input_count(c);
    let mut zero: Vec<Block> = Vec::with_capacity(n_in + c.gates.len());
    zero.extend((0..n_in as u64).map(|w| stream.input_zero(run, w)));
    for &(w, label) in carried {
        if let Some(z) = zero.get_mut(w) {
            *z = label;
        }
    }
    let inputs = zero.clone();
    let hash = Hash::new();
    let base = u128::from(run) << 64;
    let mut rows = Vec::with_capacity(c.and_gates());
    for g in &c.gates {
        let out = match *g {
            Gate::Xor(x, y) => zero[x] ^ zero[y],
            Gate::Not(x) => zero[x] ^ delta,
            Gate::And(x, y) => {
                let (a0, b0) = (zero[x], zero[y]);
                let j = base | (2 * rows.len() as u128);
                let [ha0, ha1, hb0, hb1] =
                    hash.many([a0, a0 ^ delta, b0, b0 ^ delta], [j, j, j | 1, j | 1]);
                let tg = ha0 ^ ha1 ^ if lsb(b0) { delta } else { 0 };
                let wg = ha0 ^ if lsb(a0) { tg } else { 0 };
                let te = hb0 ^ hb1 ^ a0;
                let we = hb0 ^ if lsb(b0) { te ^ a0 } else { 0 };
                rows.push([tg, te]);
                wg ^ we
            }
        };
        zero.push(out);
    }
    let outputs = c.output_gates.iter().map(|&w| zero[w]).collect();
    Garbling {
        rows,
        delta,
        inputs,
        outputs,
    }
}

impl Garbling {
    /// The label of input wire `wire` carrying `bit`: what the garbler sends for his own
    /// inputs, and the two messages of an oblivious transfer for the evaluator's.
    pub fn input(&self, wire: usize, bit: bool) -> Option<Block> {
        let z = *self.inputs.get(wire)?;
        Some(if bit { z ^ self.delta } else { z })
    }

    /// The bit input wire `wire`'s label stands for, if it is one of the wire's two.
    pub fn bit_of(&self, wire: usize, label: Block) -> Option<bool> {
        let z = *self.inputs.get(wire)?;
        match label ^ z {
            0 => Some(false),
            d if d == self.delta => Some(true),
            _ => None,
        }
    }

    /// The label of output `k` carrying `bit`: what an honest evaluation ends with.
    pub fn output(&self, k: usize, bit: bool) -> Option<Block> {
        let z = *self.outputs.get(k)?;
        Some(if bit { z ^ self.delta } else { z })
    }

    /// The zero label of output `k`: kept to be carried into a later run as an input's.
    pub fn output_zero(&self, k: usize) -> Option<Block> {
        self.outputs.get(k).copied()
    }

    /// The bits the evaluator's labels stand for, or the first that is no label.
    pub fn decode(&self, labels: &[Block]) -> Result<Vec<bool>, DecodeError> {
        if labels.len() != self.outputs.len() {
            return Err(DecodeError::Count {
                expected: self.outputs.len(),
                got: labels.len(),
            });
        }
        labels
            .iter()
            .zip(&self.outputs)
            .enumerate()
            .map(|(output, (&l, &z))| {
                if l == z {
                    Ok(false)
                } else if l == z ^ self.delta {
                    Ok(true)
                } else {
                    Err(DecodeError::NotALabel { output })
                }
            })
            .collect()
    }

    /// The bytes sent for the rows: each row's `T_G` then `T_E`, 16 little-endian bytes
    /// each. What the evaluator signs the hash of, and the audit compares.
    pub fn wire_bytes(&self) -> Vec<u8> {
        rows_bytes(&self.rows)
    }
}

/// Rows as sent (see [`Garbling::wire_bytes`]).
pub fn rows_bytes(rows: &[Row]) -> Vec<u8> {
    super::blocks_to_bytes(rows.as_flattened())
}

/// Rows read back from bytes: `None` unless the length is a whole number of rows.
pub fn rows_from_bytes(bytes: &[u8]) -> Option<Vec<Row>> {
    if !bytes.len().is_multiple_of(32) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(32)
            .map(|r| [super::block_at(r), super::block_at(&r[16..])])
            .collect(),
    )
}
