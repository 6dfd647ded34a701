//! What the audit at the end of a referee-less Secret Stallmate game costs (issue 56's
//! bound: 2 s for 100 plies, nothing compiled): a game of `SEALED_AUDIT_PLIES` plies
//! (default 100) played by the two sides in one process (random legal moves, one illegal
//! attempt in four), then audited as a verifier would: the circuit files read and
//! checked, then every message made again and compared. Prints the attempts, the
//! traffic, the time to read the files and the audit's.
//!
//! `cargo run --release -p sealed-mpc --example audit`

use std::time::Instant;

use sealed_games::chess::Square;
use sealed_games::stallmate::{Answer, Attempt, Options as RefOptions, Referee, Setup};
use sealed_mpc::inputs::item;
use sealed_mpc::play::Party;
use sealed_mpc::play::audit::{Finding, Opened, Sent, audit};
use sealed_mpc::play::game::{Black, Circuits, Options, White};

fn main() {
    let plies: u32 = std::env::var("SEALED_AUDIT_PLIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let (ws, bs) = (Setup::new(518).unwrap(), Setup::new(301).unwrap());
    let rank = |s: Setup| s.back_rank().map(|k| k.idx() as u8);
    let options = Options {
        must_try: true,
        name_capturer: true,
        ply_limit: None,
    };
    let (wseed, bseed) = ([1u8; 32], [2u8; 32]);
    let mut referee = Referee::new(ws, bs, RefOptions::default());
    let mut w = White::new(wseed, rank(ws), options);
    let mut b = Black::new(bseed, rank(bs), options);
    let circuits = Circuits::from_files().expect("the embedded circuit files");
    let mut sent = vec![];
    let mut push = |by, bytes: &Vec<u8>| {
        sent.push(Sent {
            by,
            bytes: bytes.clone(),
        })
    };
    let t = Instant::now();
    let e0 = b.base_message();
    let g0 = w.base(&e0).unwrap();
    b.base_keys(&g0).unwrap();
    push(Party::Evaluator, &e0);
    push(Party::Garbler, &g0);
    let mut attempts = vec![];
    let mut rng = 0x1234_5678_9abc_def1u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut started = false;
    while referee.plies() < plies && referee.ending().is_none() {
        let item = if started {
            let legal = referee.position().legal_moves();
            let a = if next() % 4 == 0 {
                Attempt::Move {
                    from: Square::from_index((next() % 64) as u8).unwrap(),
                    to: Square::from_index((next() % 64) as u8).unwrap(),
                    promotion: None,
                }
            } else {
                let m = &legal[(next() % legal.len() as u64) as usize];
                Attempt::Move {
                    from: m.from,
                    to: m.to,
                    promotion: m.promotion,
                }
            };
            if let Ok(Answer::Yes(_)) = referee.attempt(a) {
                let _ = referee.end_period();
            }
            let Attempt::Move {
                from,
                to,
                promotion,
            } = a
            else {
                unreachable!("moves only")
            };
            let i = item(
                from.index(),
                to.index(),
                promotion.map_or(0, |k| k.idx() as u8),
            );
            attempts.push(i);
            i
        } else {
            0
        };
        let e1 = b.ask(item).unwrap();
        let g1 = w.answer(&circuits, &e1, item).unwrap();
        let e2 = b.evaluate(&circuits, &g1).unwrap();
        let (g2, _) = w.decode(&e2).unwrap();
        b.finish(&g2).unwrap();
        for (by, m) in [
            (Party::Evaluator, &e1),
            (Party::Garbler, &g1),
            (Party::Evaluator, &e2),
            (Party::Garbler, &g2),
        ] {
            push(by, m);
        }
        started = true;
    }
    let played = t.elapsed();
    let bytes: usize = sent.iter().map(|s| s.bytes.len()).sum();
    println!(
        "{} plies, {} attempts, {} messages, {:.1} MB; played in {:.2} s",
        referee.plies(),
        attempts.len(),
        sent.len(),
        bytes as f64 / 1e6,
        played.as_secs_f64()
    );
    let opened = Opened {
        white: (wseed, rank(ws)),
        black: (bseed, rank(bs)),
        options,
        attempts,
    };
    let t = Instant::now();
    let fresh = Circuits::from_files().expect("the embedded circuit files");
    let read = t.elapsed();
    assert_eq!(audit(&opened, &fresh, &sent), Ok(Finding::Honest));
    let all = t.elapsed();
    println!(
        "audit: {:.2} s in all, of which {:.0} ms reading the circuit files",
        all.as_secs_f64(),
        read.as_secs_f64() * 1e3
    );
}
