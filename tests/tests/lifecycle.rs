//! A game's life outside plain play: declining, resigning before the coin, and a seat
//! that crashes mid-game and comes back from its persisted secrets and envelopes.

use sealed_conformance::duel_kit::duel_terms;
use sealed_conformance::pair::Decide;
use sealed_conformance::scenarios::{A, B, honest_pair, new_pair};
use sealed_conformance::sim::test_key;
use sealed_games::duel::{self, Duel};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::session::{Action, Command, Phase, Secrets, Session};
use sealed_protocol::verdict::Status;

fn deliver_all(sessions: &mut [Session<Duel>]) {
    loop {
        let mut mail = vec![];
        for s in sessions.iter_mut() {
            while let Some(a) = s.poll_action() {
                if let Action::Send { env, to } = a {
                    for t in to {
                        mail.push((t, env.bytes.clone()));
                    }
                }
            }
        }
        if mail.is_empty() {
            return;
        }
        for (to, bytes) in mail {
            sessions[to.index()]
                .handle_envelope(&bytes, 1)
                .expect("honest envelope");
        }
    }
}

#[test]
fn a_declined_proposal_ends_with_no_game() {
    let terms = duel_terms(&Duel::default(), 1);
    let mut sessions = vec![
        Session::<Duel>::new(terms.clone(), test_key(0), [1; 32], 0).unwrap(),
        Session::<Duel>::new(terms, test_key(1), [2; 32], 0).unwrap(),
    ];
    deliver_all(&mut sessions);
    assert!(matches!(sessions[1].phase(), Phase::Decide(_)));
    // Acting before deciding is refused and changes nothing.
    assert!(sessions[1].handle_command(Command::Resign, 1).is_err());
    sessions[1].handle_command(Command::Decline, 1).unwrap();
    deliver_all(&mut sessions);
    for s in &sessions {
        let v = s.verdict();
        assert!(v.declined, "{v:#?}");
        assert_eq!(v.status, Status::Verified);
        assert_eq!(v.outcome, None);
        assert!(s.phase().is_done(), "{:?}", s.phase());
    }
}

#[test]
fn resigning_before_the_coin_counts() {
    // The game counts as started at acceptance: resigning while the coin is still
    // being tossed loses.
    let mut p = new_pair(30);
    p.deliver();
    p.sessions[1].handle_command(Command::Accept, 1).unwrap();
    p.sessions[1].handle_command(Command::Resign, 1).unwrap();
    let mut d = honest_pair();
    p.run(&mut d);
    let v = p.sessions[0].verdict();
    assert_eq!(v.status, Status::Verified, "{v:#?}");
    assert_eq!(
        v.outcome.unwrap().results,
        vec![SeatResult::Win, SeatResult::Loss]
    );
}

#[test]
fn a_seat_restored_from_its_persisted_state_finishes_the_game() {
    let mut p = new_pair(31);
    // Persisted secrets: the first Persist action of each session (the pair drops
    // actions it does not deliver, so take them from the sessions directly).
    let secrets: Vec<Secrets> = p.sessions.iter().map(|s| s.secrets().clone()).collect();
    let mut d = honest_pair();
    p.run_until(&mut d, |p| {
        p.sessions[0].engine().state().is_some_and(|s| s.round >= 4)
    });
    // Seat B crashes: all it has left is its secrets and the envelopes it stored.
    let (chains, others) = p.sessions[1].engine().stored();
    let stored: Vec<Vec<u8>> = chains
        .iter()
        .chain(others.iter())
        .map(|e| e.bytes.clone())
        .rev()
        .collect();
    let terms = p.sessions[1].engine().terms().clone();
    let restored =
        Session::<Duel>::restore(terms, test_key(1), secrets[1].clone(), &stored, p.now).unwrap();
    assert_eq!(
        restored.hand(&duel::deck()),
        p.sessions[1].hand(&duel::deck()),
        "the hand survives the restart"
    );
    p.sessions[1] = restored;
    let mut d: [Decide<Duel>; 2] = honest_pair();
    p.run(&mut d);
    for seat in [A, B] {
        let v = p.sessions[seat.index()].verdict();
        assert_eq!(v.status, Status::Verified, "{seat}: {v:#?}");
    }
    assert_eq!(p.transcript(A), p.transcript(B));
}

#[test]
fn a_version_2_game_with_a_witness_plays_and_verifies_like_version_1() {
    use sealed_conformance::duel_kit::duel_proposal;
    use sealed_conformance::pair::Pair;
    use sealed_protocol::envelope::Signed;
    use sealed_protocol::proposal::{Terms, VERSION_2, WitnessSpec};
    use sealed_protocol::transcript::TranscriptFile;

    let mut p = duel_proposal(&Duel::default(), 77);
    p.version = VERSION_2;
    p.witness = Some(WitnessSpec {
        key: test_key(9).public().to_bytes(),
        addrs: vec![],
    });
    let terms = Terms::from_signed(p.sign(&test_key(0))).unwrap();
    let mut game = Pair::new(terms.clone(), 3);
    game.run(&mut honest_pair());
    let bytes = game.transcript(A);
    let checked = sealed_games::variant::check_transcript(&bytes).unwrap();
    assert_eq!(checked.exit_code(), 0, "{:?}", checked.verdict);
    // Every envelope carries the version of its terms; one claiming version 1 in a
    // version 2 game is refused.
    let file = TranscriptFile::from_bytes(&bytes).unwrap();
    assert!(!file.envelopes.is_empty());
    for e in &file.envelopes {
        let s = Signed::parse(&terms, e).unwrap();
        assert_eq!(s.unsigned().version, VERSION_2);
    }
    let first = Signed::parse(&terms, &file.envelopes[0]).unwrap();
    let mut u = first.unsigned().clone();
    u.version = 1;
    let forged = u.sign(&test_key(first.at().chain.seat.0));
    assert!(Signed::parse(&terms, &forged.bytes).is_err());
}
