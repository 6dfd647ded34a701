//! A player walks away from a game with a witness while the world crashes the witness
//! and the player left behind at every step, drops and duplicates messages and fills
//! disks — in the deterministic simulation (`sim/`). The game must still end with the
//! walker's loss on time, verified with no fault against anyone; and every time the
//! witness's ledgers give in the forfeit must be the one its store holds for that
//! envelope (durable before visible, spec/PROTOCOL.md §17.11).
//!
//! The same for Secret Stallmate: Black walks away in his period while White, the
//! referee and the witness crash; the stamps of deposits still prove the forfeit
//! (−10 / 0), and every stamp posted is a time the witness's store holds (it never gave a time it then
//! lost, which would have let it contradict itself).
//!
//! `cargo test -p sealed-sim --test witness_sim` runs a few seeds;
//! `SEALED_SIM_SEEDS=200 cargo test --release -p sealed-sim --test witness_sim --
//! --nocapture` more.

use sealed_core::{Answer, Cmd, GameId};
use sealed_protocol::envelope::Signed;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::TranscriptFile;
use sealed_sim::witnessed::{
    ALICE, BOB, CHAOS, answer, checked, posted_times, settled, shown, started,
};
use sealed_sim::{Fate, Faults, Payload, World};

const WITNESS: usize = 2;

/// Alice, Bob (both with bots) and a witness; a Duel with `time-per-move=20s` proposed
/// by Alice naming the witness, played until it is on with two plies made. The world,
/// the game, and its id in hex.
fn game_on(seed: u64) -> Result<(World, GameId, String), String> {
    let options = vec![("time-per-move".into(), "20s".into())];
    started(seed, "duel", options, false, 2, 10 * 60_000)
}

/// One seed; Err says what broke.
fn walk_away(seed: u64) -> Result<(), String> {
    let (mut w, game, id) = game_on(seed)?;
    // Bob walks away.
    w.sever(BOB, ALICE);
    w.sever(BOB, WITNESS);
    // Now the chaos, on everyone left.
    w.faults = CHAOS;
    let done = |w: &World| settled(w, &[ALICE], &game);
    if !w.run(60 * 60_000, &done) {
        return Err(format!("no end after an hour: {}", shown(&mut w, &game)));
    }
    w.faults = Faults::none();
    let (bytes, checked) = checked(&mut w, &id)?;
    let reason = checked.verdict.outcome.as_ref().map(|o| o.reason.clone());
    if reason.as_deref() != Some("seat 1 lost on time") || !checked.verdict.faults.is_empty() {
        return Err(format!("{:#?}", checked.verdict));
    }
    // Every time posted is one the witness's store holds.
    let times = posted_times(&w, &game, &bytes, WITNESS)?;
    if times == 0 {
        return Err("the forfeit dates nothing".into());
    }
    let crashes: u64 = w.tally.crashes.values().sum();
    eprintln!(
        "seed {seed}: lost on time after {} envelopes; {crashes} crashes, {} messages \
         dropped, {} disks filled; {times} times in the forfeit",
        checked.verdict.envelopes, w.tally.dropped, w.tally.disk_full
    );
    Ok(())
}

#[test]
fn a_walk_away_ends_on_time_while_the_witness_and_the_winner_crash() {
    let seeds: u64 = sealed_sim::witnessed::env_u64("SEALED_SIM_SEEDS").unwrap_or(6);
    let failed: Vec<(u64, String)> = (0..seeds)
        .filter_map(|seed| walk_away(seed).err().map(|e| (seed, e)))
        .collect();
    eprintln!("{} seeds, {} failed", seeds, failed.len());
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The witness is gone (cut off) when Bob walks away: after 10 minutes of its silence
/// Alice claims a timeout, as without a witness (exit 3, no result). When the witness
/// comes back, Alice's forfeit stands within seconds — her claim, which the witness
/// dates then, put nothing off — and the claim is settled: a verified loss on time.
#[test]
fn a_silent_witness_leaves_a_timeout_claim_then_a_forfeit_when_it_answers() {
    for seed in 0..3u64 {
        let (mut w, game, id) = game_on(seed).expect("the game is on");
        // Bob walks away; the witness goes once it holds everything Alice holds.
        w.sever(BOB, ALICE);
        w.sever(BOB, WITNESS);
        let terms = {
            let file = match answer(&mut w, ALICE, Cmd::Transcript(id.clone().into())) {
                Some(Answer::Bytes(b)) => TranscriptFile::from_bytes(&b).expect("a file"),
                _ => panic!("no transcript"),
            };
            Terms::parse(&file.proposal).expect("terms")
        };
        // The public envelopes a node stores.
        let public = |w: &World, node: usize| -> Vec<Vec<u8>> {
            w.nodes[node]
                .store
                .all_envelopes(&game)
                .into_iter()
                .filter(|b| Signed::parse(&terms, b).is_ok_and(|s| s.at().chain.log.is_public()))
                .collect()
        };
        let start = w.now;
        loop {
            let (a, wit) = (public(&w, ALICE), public(&w, WITNESS));
            if a.iter().all(|e| wit.contains(e)) {
                break;
            }
            assert!(
                w.now < start + 10_000,
                "seed {seed}: the witness never caught up ({} of {})",
                a.iter().filter(|e| wit.contains(e)).count(),
                a.len()
            );
            // One step of the world (its ticks keep coming).
            let at = w.now;
            w.run(60_000, &|w: &World| w.now > at);
        }
        w.sever(WITNESS, ALICE);
        let claimed = |w: &mut World| timeout_claimed(w, &id);
        let start = w.now;
        while !claimed(&mut w) {
            assert!(
                w.now < start + 30 * 60_000,
                "seed {seed}: no timeout claim in 30 minutes"
            );
            let until = w.now + 60_000;
            w.run(60_000, &|w: &World| w.now >= until);
        }
        let (_, c) = checked(&mut w, &id).expect("a transcript");
        assert_eq!(c.exit_code(), 3, "seed {seed}: {:#?}", c.verdict);
        assert!(c.verdict.outcome.is_none());
        // The witness is back: it holds the game (it received it before), and proves
        // Bob late.
        w.mend(WITNESS, ALICE);
        w.link(WITNESS, ALICE);
        let done = |w: &World| settled(w, &[ALICE], &game);
        // Sooner than one allowance (20 s): the claim did not restart the wait.
        assert!(w.run(15_000, &done), "seed {seed}: no end within 15 s");
        let (_, c) = checked(&mut w, &id).expect("a transcript");
        assert_eq!(c.exit_code(), 0, "seed {seed}: {:#?}", c.verdict);
        assert_eq!(
            c.verdict.outcome.as_ref().map(|o| o.reason.as_str()),
            Some("seat 1 lost on time")
        );
        assert!(
            c.verdict
                .claims
                .iter()
                .any(|c| c.about == sealed_protocol::verdict::ClaimAbout::Timeout && !c.open),
            "the claim is there, settled: {:#?}",
            c.verdict.claims
        );
    }
}

/// How a witness in league with the walker answers Alice's asks for its ledgers.
#[derive(Clone, Copy, Debug)]
enum Useless {
    /// Bytes that are no statement.
    Junk,
    /// A fresh ledger, repeated past what a seat reads (65 statements).
    TooMany,
    /// Its first answer (signed before Bob was late), again and again.
    Replayed,
    /// Fresh ledgers, but it never takes Alice's envelopes (her pushes and what she
    /// sends when it syncs are lost on the way to it): its ledgers never hold her last
    /// move, so Bob's wait never starts by its times.
    Starved,
}

/// A witness that answers every ask, but never with anything that proves Bob late, is
/// silent for Alice: after its ten minutes her timeout claim goes, as with a witness
/// that answers nothing (before, any answer counted as a sign of life, and such a
/// witness kept the claim off for ever). Once it answers honestly again, her forfeit
/// stands.
#[test]
fn a_witness_answering_nothing_usable_still_leaves_a_timeout_claim() {
    // Each way on its own seeds: 1 each by default, `SEALED_SIM_SEEDS` each for a long run.
    let per_way = sealed_sim::witnessed::env_u64("SEALED_SIM_SEEDS").unwrap_or(1);
    let ways = [
        Useless::Junk,
        Useless::TooMany,
        Useless::Replayed,
        Useless::Starved,
    ];
    let runs = (0..per_way).flat_map(|n| (0u64..).zip(ways).map(move |(i, how)| (n * 4 + i, how)));
    for (seed, how) in runs {
        let (mut w, game, id) = game_on(seed).expect("the game is on");
        let witness = WITNESS;
        let mut first: Option<Vec<Vec<u8>>> = None;
        w.filter = Some(Box::new(move |_, from, to, p: &mut Payload<'_>| {
            use sealed_core::message::{Request, Response};
            if let Useless::Starved = how {
                let envelopes = matches!(
                    p,
                    Payload::Request(Request::Push { .. })
                        | Payload::Response(Response::Behind { .. } | Response::Envelopes(_))
                );
                return if from == ALICE && to == witness && envelopes {
                    Fate::Vanish
                } else {
                    Fate::Pass
                };
            }
            if let (true, Payload::Response(Response::Statements(s))) =
                (from == witness && to == ALICE, p)
            {
                match how {
                    Useless::Junk => *s = vec![vec![7u8; 100]],
                    Useless::TooMany => *s = vec![s.first().cloned().unwrap_or_default(); 65],
                    Useless::Replayed => match &first {
                        Some(f) => *s = f.clone(),
                        None => first = Some(s.clone()),
                    },
                    Useless::Starved => {}
                }
            }
            Fate::Pass
        }));
        w.sever(BOB, ALICE);
        w.sever(BOB, WITNESS);
        let claimed = |w: &mut World| timeout_claimed(w, &id);
        let start = w.now;
        while !claimed(&mut w) {
            assert!(
                w.now < start + 30 * 60_000,
                "{how:?}, seed {seed}: no timeout claim in 30 minutes: {}",
                shown(&mut w, &game)
            );
            let until = w.now + 60_000;
            w.run(60_000, &|w: &World| w.now >= until);
        }
        let (_, c) = checked(&mut w, &id).expect("a transcript");
        assert_eq!(c.exit_code(), 3, "{how:?}, seed {seed}: {:#?}", c.verdict);
        // The witness answers as it should again: Bob's loss on time is proven.
        w.filter = None;
        let done = |w: &World| settled(w, &[ALICE], &game);
        assert!(
            w.run(60_000, &done),
            "{how:?}, seed {seed}: no end within a minute"
        );
        let (_, c) = checked(&mut w, &id).expect("a transcript");
        assert_eq!(c.exit_code(), 0, "{how:?}, seed {seed}: {:#?}", c.verdict);
        assert_eq!(
            c.verdict.outcome.as_ref().map(|o| o.reason.as_str()),
            Some("seat 1 lost on time"),
            "{how:?}"
        );
    }
}

/// Secret Stallmate: White (0), Black (1), the referee (2), the witness (3).
const REFEREE: usize = 2;
const STAMPER: usize = 3;

/// One seed of Secret Stallmate's walk-away; Err says what broke.
fn stallmate_walk_away(seed: u64) -> Result<(), String> {
    // Three public acts made (Begin and two closes), then Black walks away.
    let options = vec![
        ("period".into(), "5m".into()),
        ("ply-limit".into(), "40".into()),
    ];
    let (mut w, game, id) = started(seed, "stallmate", options, true, 3, 60 * 60_000)?;
    for other in [ALICE, REFEREE, STAMPER] {
        w.sever(BOB, other);
    }
    w.faults = CHAOS;
    let done = |w: &World| settled(w, &[ALICE, REFEREE], &game);
    if !w.run(2 * 60 * 60_000, &done) {
        let referee = match answer(
            &mut w,
            REFEREE,
            Cmd::Show(hex::encode(game).into(), sealed_core::ShowFormat::Json),
        ) {
            Some(Answer::Show(v)) => serde_json::to_value(v).unwrap(),
            _ => serde_json::Value::Null,
        };
        return Err(format!(
            "no end after two hours: {}\nthe referee: {referee}",
            shown(&mut w, &game)
        ));
    }
    w.faults = Faults::none();
    let (bytes, checked) = checked(&mut w, &id)?;
    let results = checked.verdict.outcome.as_ref().map(|o| o.results.clone());
    let want = Some(vec![
        sealed_protocol::outcome::SeatResult::Score(0),
        sealed_protocol::outcome::SeatResult::Score(-10),
    ]);
    if results != want || !checked.verdict.faults.is_empty() || checked.exit_code() != 0 {
        return Err(format!("{:#?}", checked.verdict));
    }
    // Every time posted is the one the witness's store holds.
    let stamps = posted_times(&w, &game, &bytes, STAMPER)?;
    if stamps == 0 {
        return Err("no stamps posted".into());
    }
    let crashes: u64 = w.tally.crashes.values().sum();
    eprintln!(
        "seed {seed}: -10 / 0 after {} envelopes; {crashes} crashes, {} messages dropped, \
         {} disks filled; {stamps} stamps posted",
        checked.verdict.envelopes, w.tally.dropped, w.tally.disk_full
    );
    Ok(())
}

#[test]
fn a_stallmate_walk_away_is_a_forfeit_while_the_referee_and_the_witness_crash() {
    // SIM_LOG=sealed_node=debug shows what the nodes do.
    if let Ok(f) = std::env::var("SIM_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(f))
            .with_writer(std::io::stderr)
            .try_init();
    }
    let seeds: u64 = std::env::var("SEALED_SIM_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let failed: Vec<(u64, String)> = (0..seeds)
        .filter(|seed| std::env::var("SEALED_SIM_SEED").map_or(true, |o| o == seed.to_string()))
        .filter_map(|seed| stallmate_walk_away(seed).err().map(|e| (seed, e)))
        .collect();
    eprintln!("{} seeds, {} failed", seeds, failed.len());
    assert!(failed.is_empty(), "{failed:#?}");
}

/// A deposit alone in its request may be as large as a computation's message of Secret
/// Stallmate without a referee (spec/PROTOCOL.md §17.10; spec/GAMES.md §5.15): from a
/// seat of the game the witness stamps it and keeps it; one byte more, two such deposits
/// in one request, or any deposit from a peer who is no seat of the game, are refused
/// and nothing of them is kept. In a game whose players do not compute, a deposit alone
/// is an envelope's at most.
#[test]
fn a_lone_deposit_as_large_as_a_message_is_kept_for_a_seat_only() {
    let computing = sealed_games::registry::computations("stallmate-duo").expect("it computes");
    let options = vec![("time-per-move".into(), "20s".into())];
    let on = started(4, "stallmate-duo", options, false, 2, 10 * 60_000);
    lone_deposits(on.expect("the game is on"), computing.max_deposit());
    let envelope = sealed_protocol::deposit::MAX_DEPOSIT;
    lone_deposits(game_on(4).expect("the game is on"), envelope);
}

/// [`a_lone_deposit_as_large_as_a_message_is_kept_for_a_seat_only`] in one game, whose
/// lone deposits may be `MAX_DEPOSIT` bytes.
#[allow(non_snake_case)]
fn lone_deposits((mut w, game, _): (World, GameId, String), MAX_DEPOSIT: usize) {
    use sealed_core::Durable as _;
    use sealed_core::message::{Request, Response};
    let kept = |w: &World| {
        let prefix = format!("deposit/{}/", hex::encode(game));
        w.nodes[WITNESS]
            .store
            .metas(&prefix)
            .expect("readable")
            .len()
    };
    let before = kept(&w);
    let seat = w.key(ALICE);
    let ask = |w: &mut World, peer, deposits: Vec<Vec<u8>>| {
        let id = w.ask(WITNESS, peer, Request::Deposit { game, deposits });
        assert!(
            w.run(60_000, &|w: &World| w.answers.contains_key(&id)),
            "answered"
        );
        w.answers.remove(&id).expect("an answer")
    };
    let message = vec![0x5A; MAX_DEPOSIT];
    let mut refused = vec![
        ("one byte over", seat, vec![vec![1; MAX_DEPOSIT + 1]]),
        (
            "no seat of the game",
            sealed_core::PeerKey::from_bytes([0x42; 32]),
            vec![message.clone()],
        ),
    ];
    // Larger than an envelope: only alone in its request.
    if MAX_DEPOSIT > sealed_protocol::deposit::MAX_DEPOSIT {
        let two = vec![message.clone(), message.clone()];
        refused.push(("two of a message's size", seat, two));
    }
    for (what, peer, deposits) in refused {
        let r = ask(&mut w, peer, deposits);
        assert!(matches!(r, Response::Refused(_)), "{what}: {r:?}");
        assert_eq!(kept(&w), before, "{what}: nothing kept");
    }
    match ask(&mut w, seat, vec![message]) {
        // A stamp, then a ledger telling the witness's clock.
        Response::Statements(s) => assert_eq!(s.len(), 2),
        other => panic!("a seat's lone deposit: {other:?}"),
    }
    assert_eq!(kept(&w), before + 1);
}

/// A witness that refuses a player's envelopes (its store's share for him spent, as a
/// quota would) has not dated them: his node says so in the game's view, its text and
/// its line in `games`, and stops saying it once the witness takes one again. The
/// refusal is the world's hand on the witness's answers to Alice; its words reach her
/// escaped.
#[test]
fn a_player_is_told_when_the_witness_refuses_his_envelopes() {
    use std::cell::Cell;
    use std::rc::Rc;

    use sealed_core::message::Response;
    use sealed_core::refusal::PeerRefusal;
    use sealed_core::{ShowFormat, witness_refused_line};

    // Chex: a game long enough for the refusal to start and end while it is played.
    let options = vec![("time-per-move".into(), "20s".into())];
    let (mut w, game, id) = started(0, "chex", options, false, 2, 10 * 60_000).expect("on");
    let refusing = Rc::new(Cell::new(true));
    // The witness's words are its own: a terminal escape among them reaches the player
    // escaped.
    let why = format!("{} \u{1b}[2J", PeerRefusal::SeatFull(98_304));
    let kept = why.replace('\u{1b}', "\\u{1b}");
    {
        let (refusing, why) = (refusing.clone(), why.clone());
        w.filter = Some(Box::new(move |_, from, to, msg| {
            if let Payload::Response(r) = msg
                && from == WITNESS
                && to == ALICE
                && refusing.get()
                && matches!(r, Response::Ok { .. })
            {
                **r = Response::Refused(why.clone());
            }
            Fate::Pass
        }));
    }
    let said = |w: &mut World| {
        shown(w, &game)["witness_refused"]
            .as_str()
            .map(str::to_owned)
    };
    wait_until(&mut w, &game, "never said", 500, |w| said(w).is_some());
    assert_eq!(said(&mut w).as_deref(), Some(kept.as_str()));
    let line = witness_refused_line(&kept);
    match answer(
        &mut w,
        ALICE,
        Cmd::Show(id.clone().into(), ShowFormat::Text),
    ) {
        Some(Answer::Text(t)) => assert!(t.contains(&line), "{t}"),
        other => panic!("no text: {other:?}"),
    }
    match answer(&mut w, ALICE, Cmd::Games) {
        Some(Answer::Summaries(s)) => {
            let g = s.iter().find(|g| g.game == id).expect("the game's line");
            assert_eq!(g.witness_refused.as_deref(), Some(kept.as_str()));
        }
        other => panic!("no games: {other:?}"),
    }
    // Bob's node was told nothing of the kind: the witness took his envelopes.
    assert!(
        !matches!(
            answer(&mut w, BOB, Cmd::Show(id.clone().into(), ShowFormat::Json)),
            Some(Answer::Show(v)) if v.witness_refused.is_some()
        ),
        "Bob's node says the witness refused him"
    );
    // The witness takes Alice's envelopes again: the next it acknowledges ends it,
    // while the game is still played (once it is over, nothing is said).
    refusing.set(false);
    wait_until(&mut w, &game, "still said", 100, |w| said(w).is_none());
    assert_eq!(
        shown(&mut w, &game)["phase"],
        "play",
        "the game ended first"
    );
}

/// Whether the transcript of `id` holds an open timeout claim.
fn timeout_claimed(w: &mut World, id: &str) -> bool {
    let (_, c) = checked(w, id).expect("a transcript");
    c.verdict
        .claims
        .iter()
        .any(|c| c.open && c.about == sealed_protocol::verdict::ClaimAbout::Timeout)
}

/// Lets the world's time pass, `step` ms at a time, until `done`; fails saying `what`
/// and Alice's view of `game` after two virtual minutes.
fn wait_until(
    w: &mut World,
    game: &GameId,
    what: &str,
    step: u64,
    done: impl Fn(&mut World) -> bool,
) {
    let start = w.now;
    while !done(w) {
        assert!(w.now < start + 120_000, "{what}: {}", shown(w, game));
        w.wait(step);
    }
}
