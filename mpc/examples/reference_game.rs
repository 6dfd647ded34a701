//! Writes the reference game mpc/bench measures on: both setups and 110 plies of a
//! Secret Stallmate game that does not end (random legal moves, replayed by the referee of
//! sealed-games), as `mpc/bench/game.txt` holds it.
//!
//! `cargo run -p sealed-mpc --example reference_game > mpc/bench/game.txt`

use sealed_games::chess::Kind;
use sealed_games::stallmate::{Attempt, Options, Referee, Setup};
use sealed_mpc::inputs::item;

fn code(k: Kind) -> u8 {
    // The circuit's kind codes are the chess crate's indices (mpc/src/inputs.rs).
    k.idx() as u8
}

fn main() {
    const PLIES: u32 = 110;
    let mut seed = 0x2b2b_0020u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    loop {
        let (w, b) = ((next() % 960) as u16, (next() % 960) as u16);
        let (ws, bs) = (
            Setup::new(w).expect("below 960"),
            Setup::new(b).expect("below 960"),
        );
        let mut r = Referee::new(ws, bs, Options::default());
        let mut items = vec![];
        while r.plies() < PLIES && r.ending().is_none() {
            let legal = r.position().legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[(next() % legal.len() as u64) as usize];
            let a = Attempt::Move {
                from: m.from,
                to: m.to,
                promotion: m.promotion,
            };
            // A pawn capture first when a "try" obliges one: never asked here.
            if r.attempt(a).is_err() {
                break;
            }
            items.push(item(
                m.from.index(),
                m.to.index(),
                m.promotion.map_or(0, code),
            ));
            let _ = r.end_period();
        }
        if r.plies() < PLIES || r.ending().is_some() {
            continue;
        }
        let rank = |s: Setup| s.back_rank().map(|k| code(k).to_string()).join(" ");
        println!(
            "# Secret Stallmate, {PLIES} plies of random legal moves: the game mpc/bench measures on."
        );
        println!("# Written by `cargo run -p sealed-mpc --example reference_game`.");
        println!("white {}", rank(ws));
        println!("black {}", rank(bs));
        let moves: Vec<String> = items.iter().map(ToString::to_string).collect();
        println!("moves {}", moves.join(" "));
        return;
    }
}
