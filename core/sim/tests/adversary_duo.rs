//! A mover who stalls with attempts in Secret Stallmate without a referee, in the
//! deterministic simulation (`sim/`), while nodes crash and messages drop (issue 53,
//! "every wait has a bound"). Bob's node runs the honest core; an adversary turns his
//! bots off once the game is on and, at his turn, makes an attempt a little before each
//! deadline — a move of a piece he does not have, which the computation answers
//! "illegal" (silently: spec/GAMES.md §5.15) — and never a legal one.
//!
//! Under draft 9 of version 2 each attempt was a wait of its own with the whole time per
//! move, so he could stall for 1,024 times a move's time; and under "N moves in D" every
//! act, the computations' messages included, earned him more time. Since draft 10 a move
//! has the time of one move however many attempts it takes, and only chess moves count
//! (spec/PROTOCOL.md §17.7): he must lose on time after one move's time.
//!
//! Even seeds play 2 minutes a move; odd seeds 1 move in 2 minutes; Bob waits 90 s
//! before each attempt in half the seeds of each, 40 s in the other half. After each seed,
//! from Alice's transcript: Alice is never faulted, and Bob lost on time (or by a fault
//! of his own), never a draw, a win, or a game without an end.
//!
//! `cargo test -p sealed-sim --test adversary_duo` runs 4 seeds;
//! `SEALED_SIM_SEEDS=200 cargo test --release -p sealed-sim --test adversary_duo --
//! --nocapture` the long run; `SEALED_SIM_SEED=3` one seed.

use sealed_core::Cmd;
use sealed_protocol::ids::Seat;
use sealed_sim::witnessed::{
    ALICE, BOB, CHAOS, Ran, alices_result, answer, each_seed, settled, shown_to, start, world,
};

/// A move's time, in the world's milliseconds.
const MOVE_MS: u64 = 120_000;

/// How long Bob waits before each attempt, by seed: within a move's time, so that under
/// draft 9 every attempt came in time; a third of it, so that his move's time runs out
/// only over several attempts, each well in time alone.
const STALLS_MS: [u64; 2] = [MOVE_MS * 3 / 4, MOVE_MS / 3];

/// How long a game may take in the world's time: many times what one stalled move may
/// take, far less than the 1,024 attempts a turn allows at one attempt a stall.
const LIMIT_MS: u64 = 40 * MOVE_MS;

/// An attempt of a piece Bob cannot have: from a square of the other side's half that
/// none of his pieces reaches in the two turns before he stalls.
fn junk(side: &str) -> &'static str {
    if side == "white" { "d6-d5" } else { "d3-d4" }
}

fn stall(seed: u64) -> Result<Ran, String> {
    let options: Vec<(String, String)> = if seed.is_multiple_of(2) {
        vec![("time-per-move".into(), "2m".into())]
    } else {
        vec![
            ("time-moves".into(), "1".into()),
            ("time-period".into(), "2m".into()),
        ]
    };
    let mut options = options;
    options.push(("ply-limit".into(), "20".into()));
    let stall_ms = STALLS_MS[(seed / 2 % 2) as usize];
    let mut w = world(seed, false);
    let (game, id) = start(&mut w, "stallmate-duo", options, false, 0, 10 * 60_000)?;
    w.faults = CHAOS;
    let begun = w.now;
    let mut bots_off = false;
    let mut attempts = 0u32;
    let mut next_attempt: Option<u64> = None;
    while !settled(&w, &[ALICE], &game) {
        if w.now > begun + LIMIT_MS {
            let v = shown_to(&mut w, ALICE, &id);
            return Err(format!(
                "seed {seed}: no end after {} minutes and {attempts} stalled attempts; Alice's node shows phase {}, {}, claims {}",
                LIMIT_MS / 60_000,
                v["phase"],
                v["waiting_for"],
                v["claims"]
            ));
        }
        // Bob's bots stay off, across his node's restarts too.
        w.nodes[BOB].cfg.bots = false;
        if !bots_off && w.nodes[BOB].core.is_some() {
            let all = answer(&mut w, BOB, Cmd::Bot(None, false));
            let this = answer(&mut w, BOB, Cmd::Bot(Some(id.clone().into()), false));
            bots_off = all.is_some() && this.is_some();
        }
        if bots_off && w.nodes[BOB].core.is_some() {
            let v = shown_to(&mut w, BOB, &id);
            if v["phase"] == "play" && v["my_turn"] == true {
                let at = *next_attempt.get_or_insert(w.now + stall_ms);
                if w.now >= at {
                    let side = v["side"].as_str().unwrap_or("black").to_owned();
                    let made = answer(
                        &mut w,
                        BOB,
                        Cmd::Move {
                            game: id.clone().into(),
                            text: junk(&side).into(),
                            expect: None,
                        },
                    );
                    if made.is_some() {
                        attempts += 1;
                        next_attempt = Some(w.now + stall_ms);
                    }
                }
            }
        }
        // Half a second passes even when nothing happens in it (every node down, its
        // restart further off): `run` would stop at the last event and this loop turn
        // for ever at one instant (seed 773 of the first long run turned there for 17
        // minutes, the event loop pushing back one event past each half second).
        w.wait(500);
    }
    let (c, o) = alices_result(&mut w, &id)?;
    let v = &c.verdict;
    if attempts == 0 {
        return Ok(Ran::Missed(format!(
            "the game ended before Bob's turn: {}",
            o.reason
        )));
    }
    let only_bob_at_fault = !v.faults.is_empty() && v.faults.iter().all(|f| f.seat == Seat(1));
    if o.reason != "seat 1 lost on time" && !only_bob_at_fault {
        return Err(format!(
            "seed {seed}: Bob stalled with {attempts} attempts and did not lose on time: {v:#?}"
        ));
    }
    let crashes: u64 = w.tally.crashes.values().sum();
    Ok(Ran::Held(format!(
        "seed {seed}: {} after {attempts} stalled attempts and {} s of the world's time; {crashes} crashes, {} dropped",
        o.reason,
        (w.now - begun) / 1000,
        w.tally.dropped
    )))
}

#[test]
fn a_mover_who_stalls_with_illegal_attempts_loses_on_time_after_one_move() {
    each_seed(4, stall);
}
