//! Half-gates garbling (src/gc) against the circuit evaluated in the clear: random
//! circuits of every gate mix, a compiled attempt of Secret Stallmate's referee, state
//! carried from one run to the next as labels; and the cheats the audit and the decoding
//! must catch — a garbler who garbled another function, an evaluator who returns a label
//! that is not his.

mod common;

use common::bits;
use proptest::prelude::*;
use sealed_mpc::circuit::compile_shape;
use sealed_mpc::gc::garble::{rows_bytes, rows_from_bytes};
use sealed_mpc::gc::seed::Stream;
use sealed_mpc::gc::{Circuit, DecodeError, EvalError, Gate, evaluate, garble, input_count};
use sealed_mpc::program::Shape;

/// Garbles `c` under `seed` for `run`, hands the evaluator the label of each input bit
/// (what the garbler sends for his own inputs and oblivious transfer gives for the
/// evaluator's), evaluates, and decodes.
fn run_garbled(c: &Circuit, seed: u8, run: u64, bits: &[bool]) -> Vec<bool> {
    let stream = Stream::new(&[seed; 32]);
    let g = garble(c, &stream, run, &[]);
    let labels: Vec<u128> = bits
        .iter()
        .enumerate()
        .map(|(w, &b)| g.input(w, b).expect("an input wire"))
        .collect();
    let out = evaluate(c, &g.rows, run, &labels).expect("shapes match");
    g.decode(&out).expect("an honest evaluation decodes")
}

/// A circuit of `inputs` wires split between two parties and `gates` drawn from `picks`,
/// each reading earlier wires; its outputs every fifth wire and the last.
fn random_circuit(inputs: usize, picks: &[(u8, usize, usize)]) -> Circuit {
    let mut gates = Vec::with_capacity(picks.len());
    for (k, &(kind, x, y)) in picks.iter().enumerate() {
        let wires = inputs + k;
        let (x, y) = (x % wires, y % wires);
        gates.push(match kind % 3 {
            0 => Gate::Xor(x, y),
            1 => Gate::And(x, y),
            _ => Gate::Not(x),
        });
    }
    let total = inputs + gates.len();
    let mut output_gates: Vec<usize> = (0..total).step_by(5).collect();
    output_gates.push(total - 1);
    Circuit {
        input_gates: vec![inputs / 2, inputs - inputs / 2],
        gates,
        output_gates,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any circuit, any inputs: the garbled evaluation decodes to the clear one.
    #[test]
    fn garbled_equals_clear(
        inputs in 2usize..24,
        picks in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..300),
        seed in any::<u8>(),
        run in any::<u64>(),
        input_seed in 1u64..,
    ) {
        let c = random_circuit(inputs, &picks);
        let b = bits(inputs, input_seed);
        let clear = c.eval(&[b[..inputs / 2].to_vec(), b[inputs / 2..].to_vec()]);
        prop_assert_eq!(run_garbled(&c, seed, run, &b), clear);
    }
}

/// One attempt of the referee's circuit (the chess of ply 1, no commitment checks: the
/// rest is more of the same gates), on random input bits: every output bit as in the
/// clear.
#[test]
fn an_attempt_of_the_referee_garbled_equals_clear() {
    let shape = Shape {
        white_moves: 0,
        black_moves: 0,
        earlier: 0,
        commitments: false,
    };
    let prg = compile_shape(&shape, false).expect("compiles");
    let c = prg.circuit.unwrap_ssa_ref();
    assert!(c.and_gates() > 10_000, "a real circuit");
    for s in 1..4u64 {
        let b = bits(input_count(c), s * 7919);
        let (w, bl) = b.split_at(c.input_gates[0]);
        let clear = c.eval(&[w.to_vec(), bl.to_vec()]);
        assert_eq!(run_garbled(c, s as u8, s, &b), clear, "inputs {s}");
    }
}

/// A counter kept between runs as labels: run `r`'s output labels are run `r + 1`'s
/// input labels for the state, never decoded in between, and the garbler carries their
/// zero labels over. After ten runs the state decodes to the sum of the inputs. (A Garble
/// circuit's outputs start with its panic report; the value is the last 8.)
#[test]
fn state_carried_as_labels_between_runs() {
    let prg = garble_lang::compile("pub fn main(state: u8, add: u8) -> u8 { state + add }")
        .expect("compiles");
    let c = prg.circuit.unwrap_ssa_ref();
    let stream = Stream::new(&[9; 32]);
    // Run 0's state is the garbler's input, 0.
    let mut carried: Vec<(usize, u128)> = vec![];
    let mut state_labels: Option<Vec<u128>> = None;
    let mut last = None;
    let mut sum = 0u8;
    for run in 0..10u64 {
        let g = garble(c, &stream, run, &carried);
        // Small enough that the sum never overflows (which a Garble circuit reports).
        let add = (run * 3 + 1) as u8;
        sum += add;
        let mut labels: Vec<u128> = match &state_labels {
            Some(l) => l.clone(),
            None => (0..8).map(|w| g.input(w, false).expect("wire")).collect(),
        };
        let add_bits = prg
            .parse_arg(1, &format!("{add}u8"))
            .expect("a literal")
            .as_bits();
        labels.extend(
            add_bits
                .iter()
                .enumerate()
                .map(|(k, &b)| g.input(8 + k, b).expect("wire")),
        );
        let out = evaluate(c, &g.rows, run, &labels).expect("shapes");
        let value = out.len() - 8;
        carried = (0..8)
            .map(|k| (k, g.output_zero(value + k).expect("an output")))
            .collect();
        state_labels = Some(out[value..].to_vec());
        last = Some((g, out));
    }
    let (g, out) = last.expect("ran");
    let bits = g.decode(&out).expect("labels");
    let value = prg.parse_output(&bits).expect("an output");
    assert_eq!(value.to_string(), sum.to_string());
}

/// The audit garbles again from the opened seed: the same seed, circuit and run give the
/// same bytes; a garbler who garbled another function (one AND made an OR, one wire
/// moved) or another run sent other bytes, and is found.
#[test]
fn the_audit_finds_another_function() {
    let prg =
        garble_lang::compile("pub fn main(a: u16, b: u16) -> bool { a < b }").expect("compiles");
    let c = prg.circuit.unwrap_ssa_ref();
    let stream = Stream::new(&[3; 32]);
    let sent = garble(c, &stream, 4, &[]).wire_bytes();
    assert_eq!(
        garble(c, &stream, 4, &[]).wire_bytes(),
        sent,
        "deterministic"
    );
    assert_ne!(garble(c, &stream, 5, &[]).wire_bytes(), sent, "runs differ");
    let mut other = c.clone();
    let k = other
        .gates
        .iter()
        .position(|g| matches!(g, Gate::And(..)))
        .expect("an AND gate");
    if let Gate::And(x, y) = other.gates[k] {
        // x OR y = NOT(NOT x AND NOT y) needs more gates; one input swapped for its
        // negation is another function with the same shape.
        other.gates[k] = Gate::And(x, if y > 0 { y - 1 } else { y + 1 });
    }
    assert_ne!(garble(&other, &stream, 4, &[]).wire_bytes(), sent);
    // Bytes read back are the rows.
    let rows = rows_from_bytes(&sent).expect("whole rows");
    assert_eq!(rows_bytes(&rows), sent);
    assert!(rows_from_bytes(&sent[1..]).is_none());
}

/// An evaluator who returns anything but the label he computed is refused, output by
/// output: another wire's label, a bit flipped, the point-and-permute bit flipped, too
/// few or too many labels.
#[test]
fn a_label_not_the_evaluators_is_refused() {
    let prg =
        garble_lang::compile("pub fn main(a: u8, b: u8) -> u8 { a ^ (a & b) }").expect("compiles");
    let c = prg.circuit.unwrap_ssa_ref();
    let g = garble(c, &Stream::new(&[5; 32]), 0, &[]);
    let labels: Vec<u128> = (0..16)
        .map(|w| g.input(w, w % 3 == 0).expect("wire"))
        .collect();
    let out = evaluate(c, &g.rows, 0, &labels).expect("shapes");
    assert!(g.decode(&out).is_ok());
    // The value is the last 8 outputs (the panic report comes first); two of them on
    // wires of their own.
    let n = out.len();
    let (k1, k2) = (n - 1, n - 3);
    assert_ne!(c.output_gates[k1], c.output_gates[k2]);
    for (k, forged) in [(k1, out[k2]), (k2, out[k2] ^ (1 << 77)), (k1, out[k1] ^ 1)] {
        let mut bad = out.clone();
        bad[k] = forged;
        assert_eq!(g.decode(&bad), Err(DecodeError::NotALabel { output: k }));
    }
    assert!(matches!(
        g.decode(&out[1..]),
        Err(DecodeError::Count { .. })
    ));
    // Wrong shapes are refused before any evaluation.
    assert_eq!(
        evaluate(c, &g.rows[1..], 0, &labels),
        Err(EvalError::Rows {
            expected: g.rows.len(),
            got: g.rows.len() - 1
        })
    );
    assert_eq!(
        evaluate(c, &g.rows, 0, &labels[1..]),
        Err(EvalError::Inputs {
            expected: 16,
            got: 15
        })
    );
    // Rows of another run evaluate to labels that are not labels.
    let wrong_run = evaluate(c, &g.rows, 1, &labels).expect("shapes");
    assert!(g.decode(&wrong_run).is_err());
}
