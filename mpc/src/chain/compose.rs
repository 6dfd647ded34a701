//! One attempt's chain as one circuit (docs/design/circuits-as-data.md, step 3): the
//! circuits of its plan, read from the files, laid end to end, each one's inputs wired
//! to the attempt's inputs, to an earlier circuit's outputs, or to constants, and its
//! gates copied in order. Garbling and evaluating the composed circuit is garbling the
//! chain with nothing sent between circuits (an output's label is the next input's), and
//! one computation stays one circuit, so the play's messages and the audit
//! (`play::run`, `play::audit`) take it as they take any other.
//!
//! Its inputs, one party each, in order: `Fixed`, the mover's window's keys (the real
//! ones: padding is constant wires), the earlier attempts' items (the same), White's
//! fresh input, Black's. The flags, the first fold and pair, and the padding are
//! constants: wire `Xor(0, 0)` for false and its `Not` for true, added once before the
//! first circuit's gates. Its outputs are the finish's. Gates keep their order: the `k`-th
//! AND gate of the whole is the `k`-th met circuit by circuit in the plan's order, which
//! fixes each gate's tweak under garbling.

use super::walk::{Inputs, Wires, walk};
use super::{Chain, ChainError, FRESH_BITS, Flags, Part, eval::check_parties};
use crate::gc::{Circuit, Gate};
use crate::kept::{FIXED_BITS, ITEM_BITS, KEY_BITS};

/// The composed circuit of an attempt whose mover is White or not, with `window` keys
/// in his window and `earlier` attempts before this one, under `flags`, from `chain`'s
/// circuits (each read or compiled already: nothing is compiled here).
pub fn compose(
    chain: &Chain,
    mover_white: bool,
    window: usize,
    earlier: usize,
    flags: Flags,
) -> Result<Circuit, ChainError> {
    let sizes = [
        FIXED_BITS,
        window * KEY_BITS,
        earlier * ITEM_BITS,
        FRESH_BITS,
        FRESH_BITS,
    ];
    let mut next = 0usize;
    let mut wires = |n: usize| {
        let w: Vec<usize> = (next..next + n).collect();
        next += n;
        w
    };
    let fixed = wires(FIXED_BITS);
    let window: Vec<Vec<usize>> = (0..window).map(|_| wires(KEY_BITS)).collect();
    let earlier: Vec<Vec<usize>> = (0..earlier).map(|_| wires(ITEM_BITS)).collect();
    let white = wires(FRESH_BITS);
    let black = wires(FRESH_BITS);
    let inputs = next;
    let mut c = Composer {
        chain,
        gates: vec![Gate::Xor(0, 0)],
        inputs,
    };
    c.gates.push(Gate::Not(inputs));
    let outputs = walk(
        &mut c,
        &Inputs {
            mover_white,
            flags,
            fixed: &fixed,
            window: &window,
            earlier: &earlier,
            white: &white,
            black: &black,
        },
    )?;
    Ok(Circuit {
        input_gates: sizes.to_vec(),
        gates: c.gates,
        output_gates: outputs,
    })
}

/// The composition under way: the gates so far, after the inputs' wires.
struct Composer<'a> {
    chain: &'a Chain,
    gates: Vec<Gate>,
    inputs: usize,
}

impl Wires for Composer<'_> {
    type W = usize;

    fn public(&mut self, bits: &[bool]) -> Result<Vec<usize>, ChainError> {
        let (zero, one) = (self.inputs, self.inputs + 1);
        Ok(bits.iter().map(|&b| if b { one } else { zero }).collect())
    }

    fn run(&mut self, part: Part, parties: Vec<Vec<usize>>) -> Result<Vec<usize>, ChainError> {
        check_parties(part, &parties)?;
        let c = self.chain.loaded(part)?;
        let mut at: Vec<usize> = parties.into_iter().flatten().collect();
        at.reserve(c.gates.len());
        let base = self.inputs + self.gates.len();
        // Built only on a fault: counting the wires walks the circuit's input list.
        let unwired = |what| ChainError::Layout {
            circuit: part.name(),
            what,
            expected: at_len(c),
            found: 0,
        };
        for (i, g) in c.gates.iter().enumerate() {
            let w = |x: usize| {
                at.get(x)
                    .copied()
                    .ok_or_else(|| unwired("a gate's input wire"))
            };
            let gate = match *g {
                Gate::Xor(x, y) => Gate::Xor(w(x)?, w(y)?),
                Gate::And(x, y) => Gate::And(w(x)?, w(y)?),
                Gate::Not(x) => Gate::Not(w(x)?),
            };
            self.gates.push(gate);
            at.push(base + i);
        }
        c.output_gates
            .iter()
            .map(|&o| at.get(o).copied().ok_or_else(|| unwired("an output wire")))
            .collect()
    }
}

/// The wires a circuit has, inputs and gates.
fn at_len(c: &Circuit) -> usize {
    crate::gc::input_count(c) + c.gates.len()
}
