//! A player who spends the witness's quota, in the deterministic simulation (`sim/`),
//! while nodes crash and messages drop (issue 53). Bob's node runs the honest core; an
//! adversary holds his key and, as soon as the game is on, leaves junk deposits at the
//! witness (it cannot tell junk from an envelope sealed to Alice) until the witness has
//! stored his key's whole share of the day. The witness's quotas are small here, 512 KiB
//! a key, so that the simulation fills them in seconds; the rule is the same at any size.
//! Then, by seed:
//!
//! - **he walks away** (seeds 0-3, 8-11, …): his bots off, the game waits for him at
//!   his next choice, as if the full witness would keep him from being dated;
//! - **he plays on** (seeds 4-7, 12-15, …): his bots play to the end, his envelopes past
//!   his share taken only from his reserve of owed steps (`core/src/reserve.rs`).
//!
//! Issue 53 saw it live before the shares (a witness charging what a game stores to its
//! proposer alone): the quota Bob filled was Alice's too, the witness refused her
//! envelopes and dated none of them, and she lost on time or the game froze. After each
//! seed, from Alice's transcript: Alice is never lost on time, the game ends with a
//! result, and Bob, when he walked away while the game waited for his choice, lost.
//!
//! `cargo test -p sealed-sim --test adversary_quota` runs 4 seeds;
//! `SEALED_SIM_SEEDS=1000 cargo test --release -p sealed-sim --test adversary_quota --
//! --nocapture` the long run; `SEALED_SIM_SEED=17` one seed; `SEALED_SIM_LIMIT_MS`
//! shortens the time a game may take.

use sealed_core::record::Usage;
use sealed_core::{Answer, Cmd, Durable, ShowFormat};
use sealed_protocol::outcome::SeatResult;
use sealed_sim::witnessed::{
    ALICE, BOB, CHAOS, Ran, alices_result, answer, each_seed, env_u64, leave_junk, settled, start,
    world_with,
};

/// The variants with a time control.
const VARIANTS: [&str; 4] = ["duel", "cardmate", "chex", "tempete"];

/// What the witness stores for one key in a day, here.
const SHARE: u64 = 512 << 10;

/// One junk deposit: what an envelope sealed to Alice could be, for all the witness knows.
const JUNK: usize = 60 << 10;

/// What the witness has stored for Bob's key today.
fn bobs_usage(w: &sealed_sim::World, witness: usize) -> u64 {
    let bob = w.key(BOB);
    w.nodes[witness]
        .store
        .quotas()
        .unwrap_or_default()
        .into_iter()
        .find(|(k, _)| *k == bob)
        .map_or(0, |(_, u)| u.bytes)
}

/// One seed; Err says what broke, Ok what happened.
fn fill(seed: u64) -> Result<Ran, String> {
    let variant = VARIANTS[(seed % VARIANTS.len() as u64) as usize];
    // Each variant both ways: seeds 0-3 walk away, 4-7 play on, and so on.
    let walks_away = (seed / VARIANTS.len() as u64).is_multiple_of(2);
    let mut options = vec![
        ("time-leave".into(), "60s".into()),
        ("time-per-move".into(), "20s".into()),
    ];
    // The bots' Tempête, Cardmate and Chex can run to thousands of plies (a Tempête seed was
    // at ply 3,725 after 20 simulated minutes): the attack is on the quota, not on
    // patience.
    if variant != "duel" {
        options.push(("ply-limit".into(), "300".into()));
    }
    let mut w = world_with(seed, false, |witness| {
        witness.quotas.per_proposer = Usage {
            games: 64,
            envelopes: 4096,
            bytes: SHARE,
        };
    });
    let witness = w.nodes.len() - 1;
    let (game, id) = start(&mut w, variant, options, false, 2, 20 * 60_000)?;
    w.faults = CHAOS;
    let begun = w.now;
    let limit = env_u64("SEALED_SIM_LIMIT_MS").unwrap_or(2 * 60 * 60_000);
    let (mut filled, mut walked, mut sent) = (false, false, 0u32);
    let mut in_play = false;
    while !settled(&w, &[ALICE], &game) {
        if w.now > begun + limit {
            let mut show =
                |who| match answer(&mut w, who, Cmd::Show(id.clone().into(), ShowFormat::Json)) {
                    Some(Answer::Show(v)) => serde_json::to_value(v).unwrap_or_default(),
                    _ => serde_json::Value::Null,
                };
            let (a, b) = (show(ALICE), show(BOB));
            return Err(format!(
                "no end after {} minutes (filled {filled}, walked {walked}): Alice shows phase {}, {}, claims {}, ply {}; Bob shows {}, ply {}, witness refused {}",
                limit / 60_000,
                a["phase"],
                a["waiting_for"],
                a["claims"],
                a["ply"],
                b["waiting_for"],
                b["ply"],
                b["witness_refused"],
            ));
        }
        // Junk deposits, four each half second, until the witness holds Bob's whole
        // share (the chaos drops some, and a crashed witness comes back with what it
        // had stored).
        if !filled {
            filled = bobs_usage(&w, witness) + JUNK as u64 > SHARE;
            for _ in 0..if filled { 0 } else { 4 } {
                let junk = vec![(sent as u8).wrapping_add(seed as u8); JUNK];
                leave_junk(&mut w, witness, game, junk);
                sent += 1;
            }
        }
        if filled && walks_away && !walked && w.nodes[BOB].core.is_some() {
            let all = answer(&mut w, BOB, Cmd::Bot(None, false));
            let this = answer(&mut w, BOB, Cmd::Bot(Some(id.clone().into()), false));
            walked = all.is_some() && this.is_some();
        }
        if walked {
            w.nodes[BOB].cfg.bots = false;
            // A walk-away that must end in Bob's loss: the game waits for his choice
            // with his bots off. (Not a Duel whose last choice he had made already: its
            // reveals follow by themselves.)
            if !in_play && w.nodes[BOB].core.is_some() {
                let v = match answer(&mut w, BOB, Cmd::Show(id.clone().into(), ShowFormat::Json)) {
                    Some(Answer::Show(v)) => serde_json::to_value(v).unwrap_or_default(),
                    _ => serde_json::Value::Null,
                };
                in_play = v["phase"] == "play" && v["my_turn"] == true;
            }
        }
        w.wait(500);
    }
    let (c, o) = alices_result(&mut w, &id)?;
    let v = &c.verdict;
    if !filled {
        return Ok(Ran::Missed(format!(
            "{variant}: {} before Bob's share was spent ({sent} deposits)",
            o.reason
        )));
    }
    if o.reason == "seat 0 lost on time" {
        return Err(format!(
            "Alice lost on time after Bob filled the witness: {v:#?}"
        ));
    }
    // Bob, gone for good while the game waited for him, loses: on time, or on the
    // board before his time ran out.
    if in_play && o.results.get(1) != Some(&SeatResult::Loss) {
        return Err(format!(
            "Bob walked away after the fill and did not lose: {v:#?}"
        ));
    }
    let crashes: u64 = w.tally.crashes.values().sum();
    Ok(Ran::Held(format!(
        "seed {seed} {variant} ({}{}): {} after {} envelopes, exit {}; {sent} junk deposits, Bob's day {} KiB; {crashes} crashes, {} dropped",
        if walks_away { "walks away" } else { "plays on" },
        if walked && !in_play {
            ", his last choice made"
        } else {
            ""
        },
        o.reason,
        v.envelopes,
        c.exit_code(),
        bobs_usage(&w, witness) >> 10,
        w.tally.dropped
    )))
}

#[test]
fn a_player_who_fills_the_witness_spends_only_his_own_share() {
    each_seed(4, fill);
}
