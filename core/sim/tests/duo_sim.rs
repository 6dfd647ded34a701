//! Secret Stallmate without a referee (spec/GAMES.md §5.15) in the deterministic
//! simulation (`sim/`): the messages of the computations on their own streams, with the
//! receiver's answer byte (spec/PROTOCOL.md §16.7). The world loses the first stream of
//! every message, as libp2p-stream does when the receiver's acceptor is busy; the sender
//! hears that the stream ended unanswered (the shell's `MessageLost`) and sends the
//! message again at once, not after the 30 s of its periodic resend. The game plays to
//! its end, and its transcript verifies with no fault against anyone. Against receivers
//! that never answer (nodes of document 2.8), every message is taken once and sent again
//! only a bounded number of times while it stays unanswered. A message that never
//! arrives goes a few times, its wait doubling, and then by the witness.
//!
//! `cargo test -p sealed-sim --test duo_sim` runs two seeds;
//! `SEALED_SIM_SEEDS=20 cargo test --release -p sealed-sim --test duo_sim -- --nocapture`
//! more.

use std::collections::BTreeSet;

use sealed_sim::witnessed::{ALICE, BOB, checked, settled, start, world};
use sealed_sim::{Fate, Payload, World};

/// A message whose stream was lost goes again within this much of the world's time:
/// the report's trip back (the world's latency, 40 ms at most) and nothing more. The
/// periodic resend alone would take 30 s (core `computations.rs`).
const AGAIN_WITHIN: u64 = 1_000;

/// Plays a game of Secret Stallmate without a referee (ply limit 2, a witness) in `w`
/// to its end, both players settled, and checks Alice's transcript: verified, no fault.
/// When it began and when it was over, in the world's time.
fn play(w: &mut World, seed: u64) -> Result<(u64, u64), String> {
    let options = vec![
        ("ply-limit".into(), "2".into()),
        ("time-per-move".into(), "1h".into()),
    ];
    let (game, id) = start(w, "stallmate-duo", options, false, 0, 10 * 60_000)?;
    let begun = w.now;
    if !w.run(60 * 60_000, &|w| settled(w, &[ALICE, BOB], &game)) {
        return Err(format!(
            "not over in an hour of the world's time (seed {seed})"
        ));
    }
    let over = w.now;
    let (_, c) = checked(w, &id)?;
    if !c.verdict.faults.is_empty() {
        return Err(format!("seed {seed}: faults: {:?}", c.verdict.faults));
    }
    Ok((begun, over))
}

/// Runs `one` on each seed (`SEALED_SIM_SEEDS`, 2 unless set), printing what it gives.
fn each_seed(one: fn(u64) -> Result<String, String>) {
    let seeds: u64 = std::env::var("SEALED_SIM_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    for seed in 1..=seeds {
        match one(seed) {
            Ok(said) => println!("seed {seed}: {said}"),
            Err(e) => panic!("{e}"),
        }
    }
}

fn lost_once(seed: u64) -> Result<(usize, u64), String> {
    let mut w = world(seed, false);
    // The first copy of each message, from each sender, is lost.
    let mut seen = BTreeSet::new();
    w.filter = Some(Box::new(move |_, from, _, p: &mut Payload<'_>| match p {
        Payload::Message { game, index } if seen.insert((from, *game, *index)) => Fate::Drop,
        _ => Fate::Pass,
    }));
    let (begun, over) = play(&mut w, seed)?;
    let took = over - begun;
    let losses = &w.tally.computation_losses;
    if losses.is_empty() {
        return Err("no message of the computations went".into());
    }
    // Each lost stream is followed by its message again, from the same sender, soon;
    // only one lost as the game ended is not (over, it owes nothing more).
    for (t, from, g, index) in losses {
        let again = w
            .tally
            .computation_sends
            .iter()
            .find(|(at, node, sg, si)| at > t && node == from && sg == g && si == index)
            .map(|(at, ..)| at - t);
        match again {
            Some(d) if d <= AGAIN_WITHIN => {}
            None if over - t <= AGAIN_WITHIN => {}
            other => {
                return Err(format!(
                    "seed {seed}: message {index} of node {from}, lost at {t}, sent again \
                     after {other:?} ms"
                ));
            }
        }
    }
    Ok((losses.len(), took))
}

/// Receivers that never answer: the game ends verified, each message taken once, and
/// sent at most twice (once, and again at once on the report) — the next act answers it
/// before the schedule's 2 s. The most copies of one message, and the game's time.
fn never_answered(seed: u64) -> Result<(usize, u64), String> {
    let mut w = world(seed, false);
    w.unanswered = true;
    let (begun, over) = play(&mut w, seed)?;
    let took = over - begun;
    let mut copies = std::collections::BTreeMap::new();
    for (_, node, g, index) in &w.tally.computation_sends {
        *copies.entry((*node, *g, *index)).or_insert(0usize) += 1;
    }
    let most = copies.values().copied().max().unwrap_or(0);
    if most == 0 || most > 2 {
        return Err(format!("seed {seed}: a message sent {most} times"));
    }
    Ok((most, took))
}

/// The message at this position never arrives: its first stream is reported lost, every
/// later one vanishes unanswered (a receiver that holds streams open).
const NEVER: u64 = 3;

/// Copies of one message its sender may make in the minute after its first loss: the
/// original, one at once on the report, then after 2, 4, 8 and 16 s (the 30 s wait
/// comes at 60 s). Without the wait doubling on its own, a copy would go on every tick
/// once 2 s passed: about 24 in the minute.
const MOST_IN_A_MINUTE: usize = 7;

/// A message that never arrives: its copies in the minute after the first loss stay
/// within [`MOST_IN_A_MINUTE`], and the game still ends verified (the receiver says he
/// lacks it, and takes it from the witness, spec/GAMES.md §5.15). The copies, and the
/// game's time.
fn never_arrives(seed: u64) -> Result<(usize, u64), String> {
    let mut w = world(seed, false);
    let mut first = BTreeSet::new();
    w.filter = Some(Box::new(move |_, from, _, p: &mut Payload<'_>| match p {
        Payload::Message { index, .. } if *index == NEVER => {
            if first.insert(from) {
                Fate::Drop
            } else {
                Fate::Vanish
            }
        }
        _ => Fate::Pass,
    }));
    let (begun, over) = play(&mut w, seed)?;
    let took = over - begun;
    let Some(&(lost_at, ..)) = w.tally.computation_losses.iter().find(|l| l.3 == NEVER) else {
        return Err(format!("seed {seed}: message {NEVER} never went"));
    };
    let copies = w
        .tally
        .computation_sends
        .iter()
        .filter(|(at, _, _, index)| *index == NEVER && *at >= lost_at && *at < lost_at + 60_000)
        .count();
    if copies > MOST_IN_A_MINUTE {
        return Err(format!(
            "seed {seed}: {copies} copies of message {NEVER} in the minute after it was lost"
        ));
    }
    Ok((copies, took))
}

#[test]
fn a_message_that_never_arrives_goes_a_few_times_and_then_by_the_witness() {
    each_seed(|seed| {
        let (copies, took) = never_arrives(seed)?;
        Ok(format!(
            "{copies} copies in the minute after the loss, game over in {took} ms of the world's time"
        ))
    });
}

#[test]
fn against_receivers_that_never_answer_a_message_goes_at_most_twice() {
    each_seed(|seed| {
        let (most, took) = never_answered(seed)?;
        Ok(format!(
            "at most {most} copies of a message, game over in {took} ms of the world's time"
        ))
    });
}

#[test]
fn a_message_whose_stream_is_lost_goes_again_at_once_and_the_game_ends_verified() {
    each_seed(|seed| {
        let (lost, took) = lost_once(seed)?;
        Ok(format!(
            "{lost} streams lost, game over in {took} ms of the world's time"
        ))
    });
}
