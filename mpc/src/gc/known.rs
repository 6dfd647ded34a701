//! An evaluation done knowing the garbling: what the audit does (`play/audit.rs`), which
//! plays both sides again from their opened seeds and so holds the garbler's labels
//! while it plays the evaluator.
//!
//! An honest evaluation is exact: with half gates and free XOR every wire ends with the
//! label of the bit it carries, its zero label XOR that bit times `Δ` (Zahur, Rosulek and
//! Evans, Eurocrypt 2015, §3 and appendix A). So the evaluator's outputs are the
//! garbling's output labels of the circuit's bits in the clear: one pass of bit
//! operations instead of two AES hashes an AND gate, the same labels to the bit. The
//! rows are not read, only counted as `evaluate` counts them, so both refuse the same
//! shapes. An input label that is neither of its wire's two is left to `evaluate`,
//! which gives what a player would have computed from it.

use super::evaluate::EvalError;
use super::garble::Garbling;
use super::{Block, Circuit, Gate, input_count};

/// The output labels an evaluation of `garbling`'s rows (`rows` of them) gives from
/// these input labels; `Ok(None)` if an input label is neither of its wire's two.
pub fn evaluate_known(
    garbling: &Garbling,
    c: &Circuit,
    rows: usize,
    inputs: &[Block],
) -> Result<Option<Vec<Block>>, EvalError> {
    let n_in = input_count(c);
    if inputs.len() != n_in {
        return Err(EvalError::Inputs {
            expected: n_in,
            got: inputs.len(),
        });
    }
    let mut bits = Vec::with_capacity(n_in + c.gates.len());
    for (w, &label) in inputs.iter().enumerate() {
        match garbling.bit_of(w, label) {
            Some(b) => bits.push(b),
            None => return Ok(None),
        }
    }
    let mut ands = 0;
    for g in &c.gates {
        let out = match *g {
            Gate::Xor(x, y) => bits[x] ^ bits[y],
            Gate::Not(x) => !bits[x],
            Gate::And(x, y) => {
                ands += 1;
                bits[x] & bits[y]
            }
        };
        bits.push(out);
    }
    // Counted in the same pass: a circuit's AND gates are not stored.
    if rows != ands {
        return Err(EvalError::Rows {
            expected: ands,
            got: rows,
        });
    }
    let labels = c.output_gates.iter().enumerate();
    Ok(Some(
        labels
            .map(|(k, &o)| garbling.output(k, bits[o]).unwrap_or_default())
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::evaluate::evaluate;
    use super::super::garble::garble;
    use super::super::seed::Stream;
    use super::*;

    /// A circuit of every gate kind, deep enough that AND gates feed AND gates: two
    /// inputs of four bits each, outputs their bitwise AND, XOR, NOT and a carry chain.
    fn circuit() -> Circuit {
        let mut gates = vec![];
        let mut outputs = vec![];
        let n_in = 8;
        let wire = |g: Gate, gates: &mut Vec<Gate>| {
            gates.push(g);
            n_in + gates.len() - 1
        };
        let mut carry = None;
        for i in 0..4 {
            let (a, b) = (i, 4 + i);
            outputs.push(wire(Gate::And(a, b), &mut gates));
            let x = wire(Gate::Xor(a, b), &mut gates);
            outputs.push(x);
            outputs.push(wire(Gate::Not(a), &mut gates));
            carry = Some(match carry {
                None => outputs[outputs.len() - 3],
                Some(c) => wire(Gate::And(c, x), &mut gates),
            });
        }
        outputs.extend(carry);
        Circuit {
            input_gates: vec![4, 4],
            gates,
            output_gates: outputs,
        }
    }

    /// Whatever seed a player opens (his `Δ`, his labels), the shortcut gives what
    /// evaluating the rows gives: no seed can be chosen to make them differ.
    #[test]
    fn knowing_the_garbling_gives_what_evaluating_its_rows_gives() {
        let c = circuit();
        for (seed, run) in (0..8u8).flat_map(|s| (0..4u64).map(move |r| (s, r))) {
            let stream = Stream::new(&[seed.wrapping_mul(37) ^ 9; 32]);
            let g = garble(&c, &stream, run, &[]);
            for x in 0..=255u8 {
                let inputs: Vec<Block> = (0..8)
                    .map(|w| g.input(w, x >> w & 1 == 1).expect("an input wire"))
                    .collect();
                let evaluated = evaluate(&c, &g.rows, run, &inputs).expect("its shape");
                let known = evaluate_known(&g, &c, g.rows.len(), &inputs).expect("its shape");
                assert_eq!(
                    known,
                    Some(evaluated),
                    "seed {seed}, run {run}, inputs {x:08b}"
                );
            }
        }
    }

    #[test]
    fn it_refuses_what_evaluate_refuses_and_leaves_a_stray_label_to_it() {
        let c = circuit();
        let g = garble(&c, &Stream::new(&[3; 32]), 0, &[]);
        let inputs: Vec<Block> = (0..8).map(|w| g.input(w, false).expect("a wire")).collect();
        let n = g.rows.len();
        for (rows, labels) in [(n - 1, &inputs[..]), (n, &inputs[..7])] {
            assert_eq!(
                evaluate_known(&g, &c, rows, labels).err(),
                evaluate(&c, &g.rows[..rows], 0, labels).err()
            );
        }
        let mut stray = inputs.clone();
        stray[5] ^= 1 << 77;
        assert_eq!(evaluate_known(&g, &c, n, &stray), Ok(None));
    }
}
