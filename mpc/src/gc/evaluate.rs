//! Evaluating a garbled circuit: one label per wire, the row of each AND gate picked by
//! its inputs' point-and-permute bits (`garble.rs` gives the garbling this inverts):
//!
//! ```text
//! W_G = H(W_A, j) ⊕ s_A·T_G      W_E = H(W_B, j') ⊕ s_B·(T_E ⊕ W_A)      W = W_G ⊕ W_E
//! ```

use super::garble::Row;
use super::hash::Hash;
use super::{Block, Circuit, Gate, input_count, lsb};

/// Why a garbled circuit could not be evaluated: its shape does not match the circuit.
/// Whoever sent the rows or the labels is at fault; nothing is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// Not one row per AND gate.
    Rows {
        /// AND gates in the circuit.
        expected: usize,
        /// Rows given.
        got: usize,
    },
    /// Not one label per input wire.
    Inputs {
        /// Input wires of the circuit.
        expected: usize,
        /// Labels given.
        got: usize,
    },
}

/// The output labels of `c` garbled as `rows` for run `run`, from one label per input
/// wire. Wrong labels or rows give wrong labels, never a panic: the garbler's decoding
/// finds them.
pub fn evaluate(
    c: &Circuit,
    rows: &[Row],
    run: u64,
    inputs: &[Block],
) -> Result<Vec<Block>, EvalError> {
    let n_in = input_count(c);
    if inputs.len() != n_in {
        return Err(EvalError::Inputs {
            expected: n_in,
            got: inputs.len(),
        });
    }
    let ands = c.and_gates();
    if rows.len() != ands {
        return Err(EvalError::Rows {
            expected: ands,
            got: rows.len(),
        });
    }
    let hash = Hash::new();
    let base = u128::from(run) << 64;
    let mut w: Vec<Block> = Vec::with_capacity(n_in + c.gates.len());
    w.extend_from_slice(inputs);
    let mut k = 0usize;
    for g in &c.gates {
        let out = match *g {
            Gate::Xor(x, y) => w[x] ^ w[y],
            Gate::Not(x) => w[x],
            Gate::And(x, y) => {
                let (a, b) = (w[x], w[y]);
                let [tg, te] = rows[k];
                let j = base | (2 * k as u128);
                k += 1;
                let [ha, hb] = hash.many([a, b], [j, j | 1]);
                let wg = ha ^ if lsb(a) { tg } else { 0 };
                let we = hb ^ if lsb(b) { te ^ a } else { 0 };
                wg ^ we
            }
        };
        w.push(out);
    }
    Ok(c.output_gates.iter().map(|&o| w[o]).collect())
}
