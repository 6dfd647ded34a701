//! The circuit's size, part by part: AND gates (after merging duplicates) of one attempt's
//! computation at plies 1, 40 and 100, with and without the commitment checks, and of one
//! SHA-256 block — the gate count of spec/GAMES.md §5.13.
//!
//! `cargo run --release -p sealed-mpc --example gates`

use sealed_mpc::circuit::compile_shape;
use sealed_mpc::program::{Shape, blocks, message_len};

fn main() {
    let sha = include_str!("../src/garble/sha256.garble.rs");
    let block = garble_lang::compile(&format!(
        "{sha}\npub fn main(a: [u32; 16], _b: bool) -> [u32; 8] {{ compress(initial_hash(), a) }}"
    ))
    .expect("one block compiles");
    println!("one SHA-256 block: {} AND gates", block.circuit.ands());
    println!(
        "| ply | earlier attempts | chess alone | with commitments | SHA-256 blocks | compile |"
    );
    println!("|---|---|---|---|---|---|");
    for (ply, earlier) in [(1usize, 0usize), (40, 0), (100, 0), (40, 4)] {
        let shape = |commitments| Shape {
            white_moves: ply.div_ceil(2),
            black_moves: ply / 2,
            earlier,
            commitments,
        };
        let chess = compile_shape(&shape(false), true).expect("compiles");
        let t = std::time::Instant::now();
        let all = compile_shape(&shape(true), true).expect("compiles");
        let s = shape(true);
        let mover = if s.mover_white() {
            s.white_moves
        } else {
            s.black_moves
        };
        let hashed = [2, 2]
            .into_iter()
            .chain([
                s.white_moves,
                s.black_moves,
                mover + 1,
                earlier,
                earlier + 1,
                1,
            ])
            .enumerate()
            .map(|(i, n)| if i < 2 { 1 } else { blocks(message_len(n)) })
            .sum::<usize>();
        println!(
            "| {ply} | {earlier} | {} | {} | {hashed} | {:.1} s |",
            chess.circuit.ands(),
            all.circuit.ands(),
            t.elapsed().as_secs_f64()
        );
    }
}
