//! A player lost on time who signs an ending late, in the deterministic simulation
//! (`sim/`), while nodes crash and messages drop (issue 53). Bob's node runs the honest
//! core; an adversary holds a hand on what it hears and signs with its key:
//!
//! - as soon as the game is on, Bob walks away (his bots off): it waits for him at his
//!   next choice;
//! - Alice offers a draw, which Bob's node receives and leaves standing;
//! - from then on Bob's node hears nothing (his node stopped, as far as the game knows),
//!   so it never sees Alice's forfeit when his time has gone;
//! - once Alice has posted her forfeit, Bob accepts the draw — an envelope that saw the
//!   offer and not the forfeit — and sends it to Alice and the witness; then his node
//!   hears again.
//!
//! Under draft 8 the two endings combined to a draw ("concurrent endings disagree").
//! After each seed, from Alice's transcript: Alice is never faulted, the result is a
//! result, and Bob lost it — on time, or by a fault of his own — never a draw or a win.
//!
//! `cargo test --workspace --test adversary_late` runs 4 seeds;
//! `SEALED_SIM_SEEDS=1000 cargo test --workspace --release --test adversary_late --
//! --nocapture` the long run; `SEALED_SIM_SEED=17` one seed; `SEALED_SIM_LIMIT_MS` shortens
//! the time a game may take.

use std::cell::Cell;
use std::rc::Rc;

use sealed_core::message::Request;
use sealed_core::{Answer, Cmd};
use sealed_protocol::body::Item;
use sealed_protocol::envelope::Signed;
use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::TranscriptFile;
use sealed_protocol::verdict::Finality;
use sealed_sim::witnessed::{
    ALICE, BOB, CHAOS, Ran, alices_result, answer, each_seed, env_u64, forge, settled, shown_to,
    started,
};
use sealed_sim::{Fate, World};

/// The variants with a time control and draw offers.
const VARIANTS: [&str; 4] = ["duel", "cardmate", "chex", "tempete"];

/// Whether `node`'s store holds an envelope of `seat` in `game` with an item `is`.
fn holds(
    w: &World,
    node: usize,
    terms: &Terms,
    game: &sealed_core::GameId,
    seat: u8,
    is: impl Fn(&Item) -> bool,
) -> bool {
    w.nodes[node]
        .store
        .all_envelopes(game)
        .iter()
        // Read from a store: verified when taken.
        .filter_map(|b| Signed::parse_kept(terms, b).ok())
        .any(|s| s.at().chain.seat == Seat(seat) && s.unsigned().body.iter().any(&is))
}

/// One seed; Err says what broke, Ok what happened.
fn late(seed: u64) -> Result<Ran, String> {
    let variant = VARIANTS[(seed % VARIANTS.len() as u64) as usize];
    let options = vec![
        ("time-leave".into(), "60s".into()),
        ("time-per-move".into(), "20s".into()),
    ];
    let (mut w, game, id) = started(seed, variant, options, false, 2, 20 * 60_000)?;
    let witness = w.nodes.len() - 1;
    let terms = {
        let b = match answer(&mut w, ALICE, Cmd::Transcript(id.clone().into())) {
            Some(Answer::Bytes(b)) => b,
            other => return Err(format!("no transcript: {other:?}")),
        };
        let f = TranscriptFile::from_bytes(&b).map_err(|e| e.to_string())?;
        Terms::parse(&f.proposal).map_err(|e| e.to_string())?
    };
    // Bob's node hears nothing while this is set.
    let deaf = Rc::new(Cell::new(false));
    {
        let deaf = deaf.clone();
        w.filter = Some(Box::new(move |_, _, to, _| {
            if to == BOB && deaf.get() {
                Fate::Drop
            } else {
                Fate::Pass
            }
        }));
    }
    w.faults = CHAOS;
    let start = w.now;
    let limit = env_u64("SEALED_SIM_LIMIT_MS").unwrap_or(2 * 60 * 60_000);
    let mut walked = false;
    let mut offered = false;
    let mut offered_at = 0;
    let mut accepted = false;
    let mut late_push: Option<Request> = None;
    let mut next_send = 0;
    // Done once Alice's game is settled and, when the attack is under way, her store
    // holds Bob's late acceptance (the chaos may drop it: Bob's node sends it again).
    let done = |w: &World, deaf: bool, accepted: bool| {
        settled(w, &[ALICE], &game)
            && (!deaf || accepted)
            && (!accepted || holds(w, ALICE, &terms, &game, 1, |i| *i == Item::AcceptDraw))
    };
    while !done(&w, deaf.get(), accepted) {
        if w.now > start + limit {
            let v = shown_to(&mut w, ALICE, &id);
            // What Alice's store holds, by signer, and the items of Alice's last five.
            let held: Vec<Signed> = w.nodes[ALICE]
                .store
                .all_envelopes(&game)
                .iter()
                .filter_map(|b| Signed::parse_kept(&terms, b).ok())
                .collect();
            let mut alices: Vec<&Signed> = held
                .iter()
                .filter(|s| s.at().chain.seat == Seat(0))
                .collect();
            alices.sort_by_key(|s| (s.at().chain.log.0, s.at().seq));
            let last: Vec<String> = alices
                .iter()
                .rev()
                .take(5)
                .map(|s| {
                    format!("{:?}", s.unsigned().body)
                        .chars()
                        .take(80)
                        .collect()
                })
                .collect();
            return Err(format!(
                "no end after {} minutes; Alice's node shows phase {}, {}, claims {}; offered {offered}, Bob deaf {}, accepted {accepted}; Alice's store {} envelopes, {} hers, her last: {last:?}",
                limit / 60_000,
                v["phase"],
                v["waiting_for"],
                v["claims"],
                deaf.get(),
                held.len(),
                alices.len(),
            ));
        }
        // Bob walks away at once, his bots off for good: the game waits for him at his
        // next choice.
        if !walked && w.nodes[BOB].core.is_some() {
            let all = answer(&mut w, BOB, Cmd::Bot(None, false));
            let this = answer(&mut w, BOB, Cmd::Bot(Some(id.clone().into()), false));
            walked = all.is_some() && this.is_some();
        }
        if walked {
            w.nodes[BOB].cfg.bots = false;
        }
        // Alice offers a draw; once Bob's node holds it, it hears no more.
        if walked && !offered && w.nodes[ALICE].core.is_some() {
            let ply = shown_to(&mut w, ALICE, &id)["ply"].as_u64();
            let r = answer(
                &mut w,
                ALICE,
                Cmd::Move {
                    game: id.clone().into(),
                    text: "offer draw".into(),
                    expect: ply.map(|p| p as usize),
                },
            );
            offered = r.is_some();
            offered_at = w.now;
        }
        // An offer that never reached Bob (Alice's node stopped before it was stored,
        // or the game moved on) is made again.
        if offered && !deaf.get() && w.now > offered_at + 30_000 {
            offered = false;
        }
        if offered && !deaf.get() && holds(&w, BOB, &terms, &game, 0, |i| *i == Item::OfferDraw) {
            deaf.set(true);
        }
        // Alice's forfeit is posted: Bob, who never saw it, accepts the draw.
        if deaf.get()
            && !accepted
            && holds(&w, ALICE, &terms, &game, 0, |i| {
                matches!(i, Item::Forfeit(_))
            })
        {
            let env = forge(&w, &terms, &game, vec![Item::AcceptDraw], None);
            let saw_forfeit = holds(&w, BOB, &terms, &game, 0, |i| matches!(i, Item::Forfeit(_)));
            if saw_forfeit {
                return Err("Bob's node saw the forfeit before it accepted".into());
            }
            let push = Request::Push {
                game,
                envelopes: vec![env.bytes.clone()],
            };
            // Bob's own node takes it first (as from the witness, a mailbox of the game),
            // so his chain goes on from it; then it goes to Alice and the witness, and
            // his node hears again.
            w.ask(BOB, w.key(witness), push.clone());
            late_push = Some(push);
            accepted = true;
            deaf.set(false);
        }
        // Bob sends it to Alice and the witness every few seconds until Alice holds it
        // (the chaos drops messages).
        if let Some(push) = &late_push
            && w.now >= next_send
            && !holds(&w, ALICE, &terms, &game, 1, |i| *i == Item::AcceptDraw)
        {
            w.inject(BOB, ALICE, push.clone());
            w.inject(BOB, witness, push.clone());
            next_send = w.now + 5_000;
        }
        w.wait(500);
    }
    let (c, o) = alices_result(&mut w, &id)?;
    let v = &c.verdict;
    // The attack took place: else the seed proves nothing (Bob lost on time before his
    // node held the offer, or the bots ended the game before he walked away).
    if !accepted {
        return Ok(Ran::Missed(format!(
            "{variant}, {} (walked {walked}, offered {offered})",
            o.reason
        )));
    }
    if o.results.first() != Some(&SeatResult::Win) {
        return Err(format!("Bob did not lose (accepted late): {v:#?}"));
    }
    // The result is final for Alice with Bob's late acceptance in it (spec §10.5): only
    // a witness shown to have contradicted itself could undo a loss on time.
    if v.finality == Finality::Open {
        return Err(format!(
            "Alice's result is not final with the late acceptance: {v:#?}"
        ));
    }
    if !holds(&w, ALICE, &terms, &game, 1, |i| *i == Item::AcceptDraw) {
        return Err(format!(
            "no late acceptance in Alice's record (walked {walked}, offered {offered}): {}",
            o.reason
        ));
    }
    let crashes: u64 = w.tally.crashes.values().sum();
    Ok(Ran::Held(format!(
        "seed {seed} {variant}: {} after {} envelopes, exit {}; {crashes} crashes, {} dropped",
        o.reason,
        v.envelopes,
        c.exit_code(),
        w.tally.dropped
    )))
}

#[test]
fn a_player_lost_on_time_cannot_turn_it_into_a_draw_by_signing_late() {
    each_seed(4, late);
}
