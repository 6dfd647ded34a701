//! What half-gates garbling (src/gc) costs on the referee's circuit: for one attempt at
//! plies 1, 40 and 100 (the chess alone: the replay and the judge, no commitment checks),
//! the time to garble, the time to evaluate, the bytes of rows a garbler sends, and, as
//! the baseline measured in the same run, the same circuit evaluated in the clear
//! (garble_lang's `Circuit::eval`). Medians of `SEALED_GC_ROUNDS` rounds (default 5), one
//! of each kind per round in turn.
//!
//! `cargo run --release -p sealed-mpc --example halfgates`

use std::time::{Duration, Instant};

use sealed_mpc::circuit::compile_shape;
use sealed_mpc::gc::seed::Stream;
use sealed_mpc::gc::{evaluate, garble, input_count};
use sealed_mpc::program::Shape;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::var("SEALED_GC_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    println!(
        "| ply | AND gates | all gates | rows sent | garble | evaluate | clear | garble / clear | evaluate / clear | garble per AND | evaluate per AND |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for ply in [1usize, 40, 100] {
        let shape = Shape {
            white_moves: ply.div_ceil(2),
            black_moves: ply / 2,
            earlier: 0,
            commitments: false,
        };
        let prg = compile_shape(&shape, true).expect("compiles");
        let c = prg.circuit.unwrap_ssa_ref();
        let n = input_count(c);
        let bits: Vec<bool> = (0..n).map(|k| k % 3 == 0).collect();
        let (w, b) = bits.split_at(c.input_gates[0]);
        let split = [w.to_vec(), b.to_vec()];
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
        let (g, e, cl) = (median(tg), median(te), median(tc));
        let ands = c.and_gates() as f64;
        println!(
            "| {ply} | {} | {} | {:.2} MB | {:.1} ms | {:.1} ms | {:.1} ms | {:.2} | {:.2} | {:.0} ns | {:.0} ns |",
            c.and_gates(),
            c.gates.len(),
            sent as f64 / 1e6,
            g.as_secs_f64() * 1e3,
            e.as_secs_f64() * 1e3,
            cl.as_secs_f64() * 1e3,
            g.as_secs_f64() / cl.as_secs_f64(),
            e.as_secs_f64() / cl.as_secs_f64(),
            g.as_secs_f64() * 1e9 / ands,
            e.as_secs_f64() * 1e9 / ands,
        );
    }
}
