//! What our move generator costs: perft on the start position and on Kiwipete, with
//! cozy-chess (magic bitboards, pin masks) beside it as the yardstick. Ours trades speed
//! for positions cozy-chess refuses (see `sealed_chess`); a verifier replays
//! games of at most a few hundred plies, so the ratio matters little as long as it is
//! not enormous.

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use sealed_chess::{Position, perft};

const POSITIONS: [(&str, &str, u32, u64); 2] = [
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        4,
        197_281,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        3,
        97_862,
    ),
];

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut total = 0;
    board.generate_moves(|pm| {
        for mv in pm {
            if depth <= 1 {
                total += 1;
            } else {
                let mut next = board.clone();
                next.play_unchecked(mv);
                total += cozy_perft(&next, depth - 1);
            }
        }
        false
    });
    total
}

fn bench(c: &mut Criterion) {
    for (name, fen, depth, nodes) in POSITIONS {
        let pos = Position::from_fen(fen).expect("valid FEN");
        let board: cozy_chess::Board = fen.parse().expect("valid FEN");
        assert_eq!(perft(&pos, depth), nodes);
        assert_eq!(cozy_perft(&board, depth), nodes);
        let mut group = c.benchmark_group(format!("perft {name} depth {depth}"));
        group.throughput(Throughput::Elements(nodes));
        group.sample_size(10);
        group.bench_function("sealed", |b| b.iter(|| perft(black_box(&pos), depth)));
        group.bench_function("cozy-chess", |b| {
            b.iter(|| cozy_perft(black_box(&board), depth))
        });
        group.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
