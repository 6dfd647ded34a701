//! garble_lang's panic bits taken off a compiled circuit, once it is proven they never
//! say anything. Every circuit garble_lang compiles begins its outputs with
//! [`PANIC_BITS`] bits: whether it panicked (an index out of bounds, a division by zero),
//! then why and where. None of the no-referee circuits does either, and the "where" bits
//! are constants that differ from one source to another, so a file under `spec/circuits/`
//! that kept them would tie the spec to the compiler's bookkeeping. They go, but only
//! when constant folding over the gates proves every one of them a constant and the first
//! false: then no input can make the circuit panic, and nothing is lost.

use crate::gc::{Circuit, Gate, input_count};
use garble_lang::circuit::PANIC_RESULT_SIZE_IN_BITS as PANIC_BITS;

use super::ChainError;

/// `c` without its panic bits, if they are proven constant and the first false; else
/// which circuit might panic.
pub fn strip(mut c: Circuit, circuit: &'static str) -> Result<Circuit, ChainError> {
    if c.output_gates.len() < PANIC_BITS {
        return Err(ChainError::Layout {
            circuit,
            what: "its output (with garble_lang's panic bits)",
            expected: PANIC_BITS,
            found: c.output_gates.len(),
        });
    }
    let known = constants(&c);
    let value = |wire: usize| known.get(wire).copied().flatten();
    let panic = &c.output_gates[..PANIC_BITS];
    if value(panic[0]) != Some(false) || panic.iter().any(|&w| value(w).is_none()) {
        return Err(ChainError::Panic { circuit });
    }
    c.output_gates.drain(..PANIC_BITS);
    Ok(c)
}

/// Every wire's value when it does not depend on the inputs (constant folding: `x ^ x`,
/// `x & 0`, and gates over constants), else `None`.
fn constants(c: &Circuit) -> Vec<Option<bool>> {
    let mut v: Vec<Option<bool>> = vec![None; input_count(c)];
    v.reserve(c.gates.len());
    for g in &c.gates {
        let at = |w: usize| v.get(w).copied().flatten();
        let out = match *g {
            Gate::Xor(a, b) if a == b => Some(false),
            Gate::Xor(a, b) => at(a).zip(at(b)).map(|(x, y)| x ^ y),
            Gate::And(a, b) => match (at(a), at(b)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Gate::Not(a) => at(a).map(|x| !x),
        };
        v.push(out);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circuit(src: &str) -> Circuit {
        crate::kept::compile_source(src)
            .expect("compiles")
            .circuit
            .unwrap_ssa_ref()
            .clone()
    }

    #[test]
    fn a_circuit_that_cannot_panic_loses_its_panic_bits_and_nothing_else() {
        let c = circuit("pub fn main(a: u8, b: u8) -> u8 { a & b }");
        let out = c.output_gates[PANIC_BITS..].to_vec();
        let s = strip(c.clone(), "and").expect("cannot panic");
        assert_eq!(s.output_gates, out);
        assert_eq!(s.gates, c.gates);
        for (a, b) in [(0xf0u8, 0x3cu8), (0xff, 0x81)] {
            let bits = |x: u8| (0..8).map(|i| (x >> (7 - i)) & 1 == 1).collect::<Vec<_>>();
            let full = c.eval(&[bits(a), bits(b)]);
            assert_eq!(s.eval(&[bits(a), bits(b)]), full[PANIC_BITS..].to_vec());
        }
    }

    #[test]
    fn a_circuit_whose_inputs_can_make_it_panic_keeps_them_and_is_refused() {
        let c = circuit("pub fn main(a: [u8; 4], i: usize) -> u8 { a[i] }");
        assert!(matches!(
            strip(c, "index"),
            Err(ChainError::Panic { circuit: "index" })
        ));
    }

    #[test]
    fn a_circuit_too_short_for_panic_bits_is_refused_not_cut() {
        let c = Circuit {
            input_gates: vec![1],
            gates: vec![],
            output_gates: vec![0],
        };
        assert!(matches!(strip(c, "tiny"), Err(ChainError::Layout { .. })));
    }
}
