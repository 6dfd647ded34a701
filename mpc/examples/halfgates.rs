//! What half-gates garbling (src/gc) costs on the referee's circuits, for one attempt:
//!
//! 1. the one-shot circuit of the first study (`program.rs`) at plies 1, 40 and 100, the
//!    chess alone (the replay and the judge, no commitment checks);
//! 2. the circuit with the state kept (`kept.rs`) at ply 1 (White's first move: no
//!    earlier position to repeat), and with 1, 8, 20 and 50 earlier positions in the
//!    mover's window: 20 and 50 are plies 40 and 100 of a game with no capture (a
//!    capture, announced, empties the windows).
//!
//! For each: AND gates, the time to garble, the time to evaluate, the bytes of rows a
//! garbler sends, and, as the baseline measured in the same run, the same circuit
//! evaluated in the clear (garble_lang's `Circuit::eval`); for the kept circuit also
//! the time to compile it and its AND gates against ply 1's. Medians of
//! `SEALED_GC_ROUNDS` rounds (default 5), one of each kind per round in turn.
//!
//! `cargo run --release -p sealed-mpc --example halfgates`

use std::time::{Duration, Instant};

use sealed_mpc::circuit::compile_shape;
use sealed_mpc::gc::seed::Stream;
use sealed_mpc::gc::{Circuit, evaluate, garble, input_count};
use sealed_mpc::kept::{self, KeptShape};
use sealed_mpc::program::Shape;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Garbling, evaluation and clear evaluation of `c`, medians of `rounds`, each checked
/// to decode to the clear outputs: (garble, evaluate, clear, bytes of rows).
fn measure(c: &Circuit, rounds: usize) -> (Duration, Duration, Duration, usize) {
    let n = input_count(c);
    let bits: Vec<bool> = (0..n).map(|k| k % 3 == 0).collect();
    let mut split = vec![];
    let mut at = 0;
    for &len in &c.input_gates {
        split.push(bits[at..at + len].to_vec());
        at += len;
    }
    let stream = Stream::new(&[7; 32]);
    let (mut tg, mut te, mut tc) = (vec![], vec![], vec![]);
    let mut sent = 0;
    for round in 0..rounds {
        let t = Instant::now();
        let g = garble(c, &stream, round as u64, &[]);
        tg.push(t.elapsed());
        sent = g.rows.len() * 32;
        let labels: Vec<u128> = bits
            .iter()
            .enumerate()
            .map(|(k, &v)| g.input(k, v).expect("wire"))
            .collect();
        let t = Instant::now();
        let out = evaluate(c, &g.rows, round as u64, &labels).expect("shapes");
        te.push(t.elapsed());
        let t = Instant::now();
        let clear = c.eval(&split);
        tc.push(t.elapsed());
        assert_eq!(
            g.decode(&out).expect("labels"),
            clear,
            "garbled equals clear"
        );
    }
    (median(tg), median(te), median(tc), sent)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let rounds: usize = std::env::var("SEALED_GC_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    println!("One-shot circuit (the first study), the chess alone:\n");
    println!(
        "| ply | AND gates | rows sent | garble | evaluate | clear | garble / clear | evaluate / clear | garble per AND | evaluate per AND |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for ply in [1usize, 40, 100] {
        let shape = Shape {
            white_moves: ply.div_ceil(2),
            black_moves: ply / 2,
            earlier: 0,
            commitments: false,
        };
        let prg = compile_shape(&shape, true).expect("compiles");
        let c = prg.circuit.unwrap_ssa_ref();
        let (g, e, cl, sent) = measure(c, rounds);
        let ands = c.and_gates() as f64;
        println!(
            "| {ply} | {} | {:.2} MB | {:.1} ms | {:.1} ms | {:.2} ms | {:.1} | {:.1} | {:.0} ns | {:.0} ns |",
            c.and_gates(),
            sent as f64 / 1e6,
            ms(g),
            ms(e),
            ms(cl),
            g.as_secs_f64() / cl.as_secs_f64(),
            e.as_secs_f64() / cl.as_secs_f64(),
            g.as_secs_f64() * 1e9 / ands,
            e.as_secs_f64() * 1e9 / ands,
        );
    }
    println!("\nState kept between computations (earlier attempts this period: none):\n");
    println!(
        "| case | window | AND gates | against ply 1 | compile | rows sent | garble | evaluate | clear | garble / clear | evaluate / clear |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut first = None;
    for (case, window, white) in [
        ("ply 1", 0usize, true),
        ("one earlier position", 1, false),
        ("8 earlier positions", 8, true),
        ("ply 40, no capture yet", 20, true),
        ("ply 100, no capture yet", 50, false),
    ] {
        let shape = KeptShape {
            mover_white: white,
            window,
            earlier: 0,
            first_turn: window == 0,
            must_try: true,
            name_capturer: true,
            limit: false,
        };
        let t = Instant::now();
        let prg = kept::compile(&shape).expect("compiles");
        let compile = t.elapsed();
        let c = prg.circuit.unwrap_ssa_ref();
        let (g, e, cl, sent) = measure(c, rounds);
        let ands = c.and_gates();
        let base = *first.get_or_insert(ands);
        println!(
            "| {case} | {window} | {ands} | {:.2} | {:.2} s | {:.2} MB | {:.1} ms | {:.1} ms | {:.2} ms | {:.1} | {:.1} |",
            ands as f64 / base as f64,
            compile.as_secs_f64(),
            sent as f64 / 1e6,
            ms(g),
            ms(e),
            ms(cl),
            g.as_secs_f64() / cl.as_secs_f64(),
            e.as_secs_f64() / cl.as_secs_f64(),
        );
    }
}
