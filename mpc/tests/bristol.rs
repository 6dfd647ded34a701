//! The no-referee circuits survive the trip to Bristol Fashion text and back
//! (`mpc/src/bristol.rs`; docs/design/circuits-as-data.md, step 1): the start's program
//! and an attempt's, as the game compiles them, written and read back are the same gates
//! and give the same outputs on random inputs, and the text of one is the same each time.

use sealed_mpc::bristol::{read, write};
use sealed_mpc::gc::{Circuit, Gate, input_count};
use sealed_mpc::kept::{self, KeptShape};

/// Random bits from a small xorshift: the inputs need no secrecy, only variety.
fn bits(n: usize, seed: &mut u64) -> Vec<bool> {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed & 1 == 1
        })
        .collect()
}

fn round_trip(c: &Circuit, what: &str) {
    let text = write(c);
    assert_eq!(write(c), text, "{what}: the text is the same each time");
    let ands = c
        .gates
        .iter()
        .filter(|g| matches!(g, Gate::And(..)))
        .count();
    eprintln!(
        "{what}: {} input bits, {} gates ({ands} AND), {} output bits, {} bytes of text",
        input_count(c),
        c.gates.len(),
        c.output_gates.len(),
        text.len()
    );
    let back = read(&text).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(back.input_gates, c.input_gates, "{what}: inputs");
    assert_eq!(back.gates, c.gates, "{what}: gates");
    assert_eq!(back.output_gates, c.output_gates, "{what}: outputs");
    let mut seed = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..4 {
        let inputs: Vec<Vec<bool>> = c.input_gates.iter().map(|n| bits(*n, &mut seed)).collect();
        assert_eq!(
            back.eval(&inputs),
            c.eval(&inputs),
            "{what}: outputs differ"
        );
    }
    assert!(
        input_count(c) > 0 && !c.gates.is_empty(),
        "{what}: a real circuit"
    );
}

#[test]
fn the_start_and_an_attempt_read_back_as_compiled() {
    let start = kept::compile_source(&kept::start_source()).expect("the start compiles");
    round_trip(start.circuit.unwrap_ssa_ref(), "the start");
    let shape = KeptShape {
        mover_white: false,
        window: 8,
        earlier: 4,
        first_turn: false,
        must_try: true,
        name_capturer: false,
        limit: false,
    };
    let attempt = kept::compile(&shape).expect("the attempt compiles");
    round_trip(attempt.circuit.unwrap_ssa_ref(), "an attempt");
}
