//! Cardmate over the protocol: seeded bot games with the suit-shuffled setup dealt by
//! the joint coin, every one ending in a verdict the offline check reproduces, and the
//! ways a player could try to steer or stall the coin.

use sealed_conformance::cardmate_kit::{cardmate_bot, cardmate_terms, pick_move, random_setup};
use sealed_conformance::pair::{Decide, Pair};
use sealed_conformance::sim::{NetConfig, Sim};
use sealed_games::cardmate::{self, Cardmate, Options};
use sealed_protocol::body::{Item, Open, Purpose};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::{ChainId, EnvRef, Seat};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::session::Session;
use sealed_protocol::verdict::{ClaimAbout, Status, Verdict};

fn converged(sim: &Sim<Cardmate>) -> Verdict {
    assert!(sim.quiet(), "not finished by t={}", sim.now);
    let files = sim.transcripts();
    assert_eq!(
        Sim::<Cardmate>::digest(&files[0]),
        Sim::<Cardmate>::digest(&files[1]),
        "transcripts differ"
    );
    let live = sim.sessions[0].verdict();
    assert_eq!(live, sim.sessions[1].verdict(), "verdicts differ");
    let offline = sealed_games::variant::check_transcript(&files[0]).expect("readable");
    assert_eq!(
        offline.verdict, live,
        "the offline check does not reproduce the live verdict"
    );
    assert_eq!(offline.exit_code(), 0);
    live
}

#[test]
fn random_setup_bot_games_end_in_verdicts_the_offline_check_reproduces() {
    let mut endings = std::collections::BTreeMap::new();
    for seed in 0..12 {
        let net = if seed % 3 == 0 {
            NetConfig::hostile()
        } else {
            NetConfig::perfect()
        };
        let terms = cardmate_terms(&random_setup(400), seed as u8);
        let mut sim = Sim::new(terms, vec![cardmate_bot(), cardmate_bot()], net, seed);
        sim.run(100_000_000);
        let v = converged(&sim);
        assert_eq!(v.status, Status::Verified, "seed {seed}: {v:#?}");
        assert!(sim.refused.is_empty(), "{:?}", sim.refused);
        // The board both seats played on is the one the coin deals.
        let e = sim.sessions[0].engine();
        let coin = e.coin().expect("coin");
        let start = cardmate::random_board(coin, false);
        assert_eq!(e.rules().start_position(coin).board, start);
        *endings.entry(v.outcome.expect("ended").reason).or_insert(0) += 1;
    }
    // Random play ends more than one way; the counts are printed for the record.
    eprintln!("endings: {endings:?}");
}

#[test]
fn the_coin_deals_different_setups_in_different_games() {
    let mut boards = std::collections::BTreeSet::new();
    for nonce in 0..4u8 {
        let mut sim = Sim::new(
            cardmate_terms(&random_setup(2), nonce),
            vec![cardmate_bot(), cardmate_bot()],
            NetConfig::perfect(),
            1,
        );
        sim.run(10_000_000);
        let coin = *sim.sessions[0].engine().coin().expect("coin");
        boards.insert(format!("{:?}", cardmate::random_board(&coin, false)));
    }
    assert_eq!(boards.len(), 4);
}

fn bots() -> [Decide<Cardmate>; 2] {
    [
        Box::new(|s: &Session<Cardmate>| pick_move(s, 7)),
        Box::new(|s: &Session<Cardmate>| pick_move(s, 3)),
    ]
}

#[test]
fn a_coin_seed_changed_to_steer_the_setup_is_caught_and_loses() {
    // Rearhand sees Forehand's commitments and, rather than its committed seed, reveals
    // another one (as if to pick a better deal). The opening does not match its
    // commitment: a proven fault, and Rearhand loses.
    let mut p = Pair::<Cardmate>::new(cardmate_terms(&random_setup(0), 9), 60);
    p.deliver();
    // Rearhand's own session would reveal its true seed at once; keep all it sends
    // back, pass on only its acceptance, then the forged reveal.
    p.silent.push(Seat(1));
    p.sessions[1]
        .handle_command(sealed_protocol::session::Command::Accept, 1)
        .unwrap();
    let first = ChainId::public(Seat(1));
    let join = p.sessions[1]
        .engine()
        .envelope(EnvRef {
            chain: first,
            seq: 0,
        })
        .unwrap()
        .clone();
    p.deliver_to(Seat(0), &join);
    let secrets = p.sessions[1].secrets().clone();
    let key = sealed_protocol::commit::CommitKey {
        seat: Seat(1),
        purpose: Purpose::Coin,
        index: 0,
    };
    let biased = Item::Open(Open {
        purpose: Purpose::Coin,
        index: 0,
        nonce: secrets.nonce(&key),
        value: vec![0x42; 32],
    });
    let env = p.forge_after(Seat(1), Seat(0), vec![biased]);
    p.deliver_to(Seat(0), &env);
    let mut d = bots();
    p.run(&mut d);
    let v = p.sessions[0].verdict();
    assert_eq!(v.status, Status::ProvenFault, "{v:#?}");
    assert!(
        v.faults
            .iter()
            .all(|f| f.seat == Seat(1) && f.kind == FaultKind::OpeningMismatch),
        "{v:#?}"
    );
    assert_eq!(
        v.outcome.as_ref().unwrap().results,
        vec![SeatResult::Win, SeatResult::Loss]
    );
    assert_eq!(
        sealed_games::variant::check_transcript(&p.transcript(Seat(0)))
            .unwrap()
            .verdict,
        v
    );
}

#[test]
fn a_coin_reveal_withheld_after_seeing_the_other_leaves_a_claim_not_a_game() {
    // Forehand proposed and committed; Rearhand joined and revealed its seed at once;
    // Forehand, the last to reveal, sees what the coin would be and walks away.
    let mut p = Pair::<Cardmate>::new(cardmate_terms(&random_setup(0), 10), 61);
    p.silence(Seat(0));
    let mut d = bots();
    p.run(&mut d);
    let v = p.sessions[1].verdict();
    assert_eq!(v.status, Status::Unconfirmed);
    assert!(v.faults.is_empty());
    assert!(
        v.claims
            .iter()
            .any(|c| c.against == Seat(0) && c.about == ClaimAbout::Unfinished),
        "{v:#?}"
    );
    assert_eq!(
        p.sessions[1].engine().coin(),
        None,
        "no coin without both seeds"
    );
}

#[test]
fn an_illegal_cardmate_move_loses() {
    let mut p = Pair::<Cardmate>::new(cardmate_terms(&Options::default(), 11), 62);
    let mut d = bots();
    p.run_until(&mut d, |p| {
        p.sessions[0].engine().state().is_some_and(|s| s.ply >= 6)
    });
    let mover = Seat(p.sessions[0].engine().state().unwrap().to_move as u8);
    // A King stepping onto its own card's square, or anywhere it cannot go: take the
    // mover's first card and send it to a square it cannot reach.
    let pos = p.sessions[0].engine().state().unwrap().clone();
    let legal = pos.legal_moves(&Options::default());
    let (card, to) = pos
        .board
        .pieces()
        .filter(|(_, pc)| cardmate::seat(pc.side) == mover)
        .flat_map(|(_, pc)| cardmate::Square::all().map(move |t| (pc.card, t)))
        .find(|(c, t)| !legal.iter().any(|m| m.card == *c && m.to == *t))
        .expect("some illegal move");
    let act = cardmate::Act {
        card: card.index(),
        to: to.index(),
        promote: false,
    };
    let env = p.forge(mover, vec![Item::Act(act.bytes())]);
    p.inject(&env);
    let mut d = bots();
    p.run(&mut d);
    let honest = Seat(1 - mover.0);
    let v = p.sessions[honest.index()].verdict();
    assert!(
        v.faults
            .iter()
            .all(|f| f.seat == mover && f.kind == FaultKind::IllegalAct),
        "{v:#?}"
    );
    assert_eq!(v.outcome.unwrap().results[honest.index()], SeatResult::Win);
}

#[test]
fn a_played_game_writes_a_score_that_replays_to_the_same_end() {
    let mut sim = Sim::new(
        cardmate_terms(&random_setup(400), 6),
        vec![cardmate_bot(), cardmate_bot()],
        NetConfig::perfect(),
        6,
    );
    sim.run(100_000_000);
    let e = sim.sessions[0].engine();
    let rules = e.rules();
    // The moves, from the accepted acts of the transcript.
    let mut pos = rules.start_position(e.coin().unwrap());
    let mut moves = vec![];
    for (at, _) in e.main_line() {
        let env = e.envelope(*at).unwrap();
        let Some(Item::Act(bytes)) = env
            .unsigned()
            .body
            .iter()
            .find(|i| matches!(i, Item::Act(_)))
        else {
            panic!("an act")
        };
        let act: cardmate::Act = sealed_protocol::wire::decode(bytes, 16).unwrap();
        let m = pos
            .legal_moves(&rules.options)
            .into_iter()
            .find(|m| cardmate::Act::of(m) == act)
            .unwrap();
        pos.play_unchecked(&m, &rules.options);
        moves.push(m);
    }
    let text = cardmate::write_score(&rules.options, e.coin(), &moves).unwrap();
    let (replayed, plies) =
        cardmate::replay_score(&text).unwrap_or_else(|err| panic!("{err}\n{text}"));
    assert_eq!(plies, moves.len());
    assert_eq!(replayed, *e.state().unwrap());
}
