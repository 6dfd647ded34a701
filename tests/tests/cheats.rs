//! Every way a seat can lie, caught with the right verdict, and the honest seat never
//! losing by it. Each scenario (tests/src/scenarios.rs) pauses an honest Duel, forges
//! what a cheater would sign, delivers it and lets the game run out; here we check both
//! the honest seat's live verdict and the offline check of its transcript.

use sealed_conformance::duel_kit::{duel_proposal, play};
use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{
    self, A, B, Cheat, ended_with, finish, hold_back, honest_pair, new_pair, until_turn,
};
use sealed_conformance::sim::test_key;
use sealed_games::duel::{self, Duel};
use sealed_protocol::body::{Commit, Item, Purpose};
use sealed_protocol::commit::CommitKey;
use sealed_protocol::engine::InsertError;
use sealed_protocol::envelope::EnvelopeError;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::proposal::Terms;
use sealed_protocol::verdict::{ClaimAbout, Status, Verdict};

/// The honest seat's live verdict, after checking the offline check of its transcript
/// says the same.
fn judged(p: &Pair<Duel>, seat: Seat) -> Verdict {
    let live = p.sessions[seat.index()].verdict();
    let offline = sealed_games::variant::check_transcript(&p.transcript(seat)).expect("readable");
    assert_eq!(
        offline.verdict, live,
        "offline verdict differs from the live one"
    );
    live
}

/// Whether the verdict names `kind` against `seat`.
fn has(v: &Verdict, seat: Seat, kind: FaultKind) -> bool {
    v.faults.iter().any(|f| f.seat == seat && f.kind == kind)
}

/// The verdict names `kind` against the cheater, the cheater loses and the honest seat
/// wins, with nothing against the honest seat.
fn assert_caught(c: &Cheat) {
    let v = judged(&c.pair, c.honest());
    let (cheater, kind) = (c.cheater, &c.kind);
    assert_eq!(v.status, Status::ProvenFault, "{v:#?}");
    assert!(
        v.faults
            .iter()
            .any(|f| f.seat == cheater && f.kind == *kind),
        "no {kind} against {cheater}: {v:#?}"
    );
    assert!(
        v.faults.iter().all(|f| f.seat == cheater),
        "the honest seat was blamed: {v:#?}"
    );
    let o = v.outcome.as_ref().expect("adjudicated");
    assert_eq!(o.results[cheater.index()], SeatResult::Loss);
    assert_eq!(o.results[c.honest().index()], SeatResult::Win);
}

#[test]
fn a_card_never_dealt_loses_at_once() {
    let c = scenarios::slot_never_dealt();
    assert_caught(&c);
}

#[test]
fn a_card_played_twice_loses() {
    assert_caught(&scenarios::slot_used_twice());
}

#[test]
fn one_card_from_two_slots_loses_at_once() {
    assert_caught(&scenarios::card_from_two_slots());
}

#[test]
fn a_card_not_on_the_list_loses_at_once() {
    assert_caught(&scenarios::card_not_on_list());
}

#[test]
fn a_repeated_index_loses() {
    assert_caught(&scenarios::index_repeated());
}

#[test]
fn dealing_more_than_owed_loses() {
    assert_caught(&scenarios::over_dealt());
}

#[test]
fn deals_that_the_revealed_seed_does_not_produce_lose_at_the_end() {
    assert_caught(&scenarios::deal_not_from_seed());
}

#[test]
fn a_changed_reveal_loses_even_after_winning_on_the_board() {
    let c = scenarios::changed_reveal();
    assert_caught(&c);
    let v = judged(&c.pair, c.honest());
    assert_eq!(
        v.board.unwrap().results[c.cheater.index()],
        SeatResult::Win,
        "the cheater had won on the board"
    );
}

#[test]
fn equivocation_loses() {
    let c = scenarios::equivocation();
    assert_caught(&c);
    // The second envelope cannot sit in a chain; the transcript carries it as evidence,
    // and the honest seat posted the proof so the game ended causally.
    let file =
        sealed_protocol::transcript::TranscriptFile::from_bytes(&c.pair.transcript(A)).unwrap();
    assert!(
        file.evidence
            .iter()
            .any(|e| matches!(e, sealed_protocol::transcript::Evidence::Chain(_)))
    );
    let e = c.pair.sessions[0].engine();
    let posted = (0..e.processed(ChainId::public(A))).any(|seq| {
        e.envelope(sealed_protocol::ids::EnvRef {
            chain: ChainId::public(A),
            seq,
        })
        .is_some_and(|x| {
            x.unsigned()
                .body
                .iter()
                .any(|i| matches!(i, Item::Evidence(_)))
        })
    });
    assert!(posted, "the honest seat did not post the proof");
}

#[test]
fn an_act_out_of_turn_loses() {
    assert_caught(&scenarios::out_of_turn());
}

#[test]
fn a_backward_acknowledgement_loses() {
    assert_caught(&scenarios::backward_ack());
}

#[test]
fn a_wrong_previous_hash_loses() {
    assert_caught(&scenarios::wrong_previous());
}

#[test]
fn revealing_a_dealer_seed_mid_game_loses() {
    assert_caught(&scenarios::early_reveal());
}

#[test]
fn closing_mid_game_loses() {
    assert_caught(&scenarios::close_before_end());
}

#[test]
fn an_act_the_rules_refuse_loses() {
    assert_caught(&scenarios::illegal_act());
}

#[test]
fn garbage_act_bytes_lose() {
    assert_caught(&scenarios::undecodable_act());
}

#[test]
fn a_commitment_copied_from_the_other_seat_cannot_be_opened() {
    assert_caught(&scenarios::copied_commitment());
}

#[test]
fn every_scenario_is_deterministic() {
    // The vectors are built from these scenarios: the same run must give the same bytes.
    for (name, build) in scenarios::all_cheats() {
        let a = build();
        let b = build();
        assert_eq!(
            a.pair.transcript(a.honest()),
            b.pair.transcript(b.honest()),
            "{name}"
        );
    }
}

#[test]
fn a_premature_coin_reveal_and_a_commitment_after_it_are_both_faults() {
    // A reveals its coin seed before B committed; B then commits having seen it. Each
    // is a proven fault of its own signer: both at fault is a draw.
    let mut p = new_pair(17);
    p.deliver();
    let env = p.forge(A, vec![p.opening(A, Purpose::Coin, 0)]);
    p.inject(&env);
    assert!(
        p.sessions[1]
            .engine()
            .faults()
            .iter()
            .any(|f| f.kind == FaultKind::PrematureReveal)
    );
    // An honest B does not join a game that is already over...
    let mut d = honest_pair();
    p.run(&mut d);
    assert!(!p.sessions[1].engine().has_joined(B));
    // ...but a B that joins anyway voids its own commitments.
    let secrets = p.sessions[1].secrets().clone();
    let game = p.sessions[1].engine().terms().game();
    let decks = p.sessions[1].engine().decks();
    let mut body = vec![Item::Accept];
    for (purpose, indices) in sealed_protocol::session::start_keys(B, &decks, &[], &[]) {
        let hashes = indices
            .iter()
            .map(|i| {
                secrets
                    .commitment(
                        game,
                        &CommitKey {
                            seat: B,
                            purpose: purpose.clone(),
                            index: *i,
                        },
                        &decks,
                    )
                    .unwrap()
            })
            .collect();
        body.push(Item::Commit(Commit {
            purpose,
            first: indices[0],
            hashes,
        }));
    }
    let env = p.forge(B, body);
    p.inject(&env);
    let v = p.sessions[0].verdict();
    assert!(has(&v, A, FaultKind::PrematureReveal), "{v:#?}");
    assert!(has(&v, B, FaultKind::CommitmentAfterDependent), "{v:#?}");
    assert_eq!(
        v.outcome.unwrap().results,
        vec![SeatResult::Draw, SeatResult::Draw]
    );
}

#[test]
fn a_loser_who_withholds_his_reveal_still_loses_verified() {
    let (mut p, loser) = ended_with(200, |r, s| r[s.index()] == SeatResult::Loss);
    hold_back(&mut p, loser);
    finish(&mut p);
    let v = judged(&p, duel::other(loser));
    assert_eq!(v.status, Status::Unconfirmed, "{v:#?}");
    assert!(
        v.verified,
        "the loss cannot be changed by what the loser hides: {v:#?}"
    );
    assert_eq!(v.outcome.unwrap().results[loser.index()], SeatResult::Loss);
    assert!(
        v.claims
            .iter()
            .any(|c| c.against == loser && c.about == ClaimAbout::WithheldReveal)
    );
}

#[test]
fn a_winner_who_withholds_his_reveal_never_gets_a_verified_win() {
    let (mut p, winner) = ended_with(300, |r, s| r[s.index()] == SeatResult::Win);
    hold_back(&mut p, winner);
    finish(&mut p);
    let v = judged(&p, duel::other(winner));
    assert_eq!(v.status, Status::Unconfirmed, "{v:#?}");
    assert!(!v.verified, "{v:#?}");
    assert_eq!(v.board.unwrap().results[winner.index()], SeatResult::Win);
    assert!(
        v.claims
            .iter()
            .any(|c| c.against == winner && c.about == ClaimAbout::WithheldReveal)
    );
}

#[test]
fn the_last_coin_revealer_who_walks_away_leaves_a_claim() {
    let mut p = new_pair(19);
    // B joins and reveals its seed in its first envelope; A sees the coin and goes silent.
    p.silence(A);
    let mut d = honest_pair();
    p.run(&mut d);
    let v = p.sessions[1].verdict();
    assert_eq!(v.status, Status::Unconfirmed);
    assert!(v.faults.is_empty());
    assert!(
        v.claims
            .iter()
            .any(|c| c.against == A && c.about == ClaimAbout::Unfinished),
        "{v:#?}"
    );
}

#[test]
fn outsiders_and_forgeries_change_nothing() {
    let mut p = new_pair(20);
    until_turn(&mut p, A, 1);
    let before = p.sessions[0].verdict();
    // An envelope signed by a key that holds no seat, claiming to be seat 1.
    let unsigned = p.forge(B, vec![Item::Resign]).env.unsigned;
    let outsider = unsigned
        .clone()
        .sign(&sealed_protocol::keys::SecretKey::from_seed(&[99; 32]));
    let r = p.sessions[0].handle_envelope(&outsider.bytes, 0);
    assert!(matches!(
        r,
        Err(sealed_protocol::session::SessionError::Insert(
            InsertError::Envelope(EnvelopeError::BadSignature(_))
        ))
    ));
    // The same, claiming a seat the game does not have.
    let mut u = unsigned.clone();
    u.seat = Seat(5);
    let r = p.sessions[0].handle_envelope(&u.sign(&test_key(5)).bytes, 0);
    assert!(matches!(
        r,
        Err(sealed_protocol::session::SessionError::Insert(
            InsertError::Envelope(EnvelopeError::NoSuchSeat(_))
        ))
    ));
    // A genuine envelope of another game (same players, other nonce).
    let other = Terms::from_signed(duel_proposal(&Duel::default(), 77).sign(&test_key(0))).unwrap();
    let mut u = unsigned.clone();
    u.game = other.game();
    let r = p.sessions[0].handle_envelope(&u.sign(&test_key(1)).bytes, 0);
    assert!(matches!(
        r,
        Err(sealed_protocol::session::SessionError::Insert(
            InsertError::Envelope(EnvelopeError::OtherGame(_))
        ))
    ));
    // Garbage and truncated bytes.
    let genuine = unsigned.sign(&test_key(1));
    for bad in [
        vec![],
        vec![0xff; 10],
        genuine.bytes[..genuine.bytes.len() - 1].to_vec(),
    ] {
        assert!(p.sessions[0].handle_envelope(&bad, 0).is_err());
    }
    let mut trailing = genuine.bytes.clone();
    trailing.push(0);
    assert!(p.sessions[0].handle_envelope(&trailing, 0).is_err());
    assert_eq!(
        p.sessions[0].verdict(),
        before,
        "refused bytes changed the verdict"
    );
    // A replayed genuine envelope is a harmless duplicate.
    let old = p.sessions[0]
        .engine()
        .envelope(sealed_protocol::ids::EnvRef {
            chain: ChainId::public(B),
            seq: 0,
        })
        .unwrap()
        .bytes
        .clone();
    assert_eq!(
        p.sessions[0].handle_envelope(&old, 0).unwrap(),
        sealed_protocol::engine::Inserted::Duplicate(sealed_protocol::ids::EnvRef {
            chain: ChainId::public(B),
            seq: 0
        })
    );
    assert_eq!(p.sessions[0].verdict(), before);
}

#[test]
fn an_honest_seat_refuses_to_sign_a_bad_move() {
    let mut p = new_pair(21);
    until_turn(&mut p, A, 0);
    let dealt = p.sessions[0].engine().dealt(A, &duel::deck());
    let undealt = (0..9).find(|s| !dealt.contains(s)).unwrap();
    let before = p.sessions[0].engine().processed_total();
    let r = p.sessions[0].handle_command(play(undealt), 1);
    assert!(
        matches!(r, Err(sealed_protocol::session::SessionError::Refused(_))),
        "{r:?}"
    );
    assert_eq!(p.sessions[0].engine().processed_total(), before);
    assert!(p.sessions[0].poll_action().is_none(), "nothing may be sent");
    // Not its turn: refused too.
    let slot = p.sessions[1].hand(&duel::deck())[0].0;
    let r = p.sessions[1].handle_command(play(slot), 1);
    assert!(r.is_err());
}

#[test]
fn a_sealed_value_opened_to_another_value_loses() {
    use sealed_conformance::race::{Race, add, race_terms};
    use sealed_protocol::body::Open;
    let honest_race = || -> sealed_conformance::pair::Decide<Race> {
        Box::new(|s| {
            if s.engine().to_act() == Some(s.seat()) {
                add(s, 1, vec![7])
            } else {
                None
            }
        })
    };
    let mut p = Pair::<Race>::new(race_terms(30, 2), 40);
    let mut d = [honest_race(), honest_race()];
    p.run_until(&mut d, |p| {
        p.sessions[0].engine().state().is_some_and(|s| s.plies >= 4)
    });
    let state = p.sessions[0].engine().state().unwrap().clone();
    let mover = state.to_move;
    let prev = state.last_note[mover.index()].expect("a previous note");
    // The mover opens its previous note with a value it did not seal.
    let secrets = p.sessions[mover.index()].secrets().clone();
    let name = sealed_protocol::ids::Name::new("note").unwrap();
    let key = CommitKey {
        seat: mover,
        purpose: Purpose::Value(name.clone()),
        index: prev,
    };
    let game = p.sessions[0].engine().terms().game();
    let fresh = sealed_protocol::commit::commitment(
        game,
        &CommitKey {
            index: state.plies,
            ..key.clone()
        },
        &secrets.nonce(&key),
        &[1],
    );
    let body = vec![
        Item::Commit(Commit {
            purpose: Purpose::Value(name.clone()),
            first: state.plies,
            hashes: vec![fresh],
        }),
        Item::Open(Open {
            purpose: Purpose::Value(name),
            index: prev,
            nonce: secrets.nonce(&key),
            value: vec![8],
        }),
        Item::Act(sealed_protocol::wire::encode(
            &sealed_conformance::race::Add(1),
        )),
    ];
    let env = p.forge(mover, body);
    p.inject(&env);
    let mut d = [honest_race(), honest_race()];
    p.run(&mut d);
    let honest_seat = Seat(1 - mover.0);
    let v = p.sessions[honest_seat.index()].verdict();
    assert_eq!(v.status, Status::ProvenFault, "{v:#?}");
    assert!(
        v.faults
            .iter()
            .all(|f| f.seat == mover && f.kind == FaultKind::OpeningMismatch),
        "{v:#?}"
    );
    assert_eq!(
        v.outcome.unwrap().results[honest_seat.index()],
        SeatResult::Win
    );
}

mod private_logs {
    //! Private logs carry what only some seats may see (Secret Stallmate's referee
    //! exchanges). Their rules hold even before any game uses them.

    use super::*;
    use sealed_conformance::race::{Race, add, race_terms};
    use sealed_protocol::envelope::{Ack, Unsigned};
    use sealed_protocol::hash::Hash;
    use sealed_protocol::ids::LogId;
    use sealed_protocol::proposal::VERSION;

    fn started() -> Pair<Race> {
        let honest = || -> sealed_conformance::pair::Decide<Race> {
            Box::new(|s| {
                if s.engine().to_act() == Some(s.seat()) {
                    add(s, 1, vec![7])
                } else {
                    None
                }
            })
        };
        let mut p = Pair::<Race>::new(race_terms(30, 3), 50);
        let mut d = [honest(), honest()];
        p.run_until(&mut d, |p| {
            p.sessions[0].engine().state().is_some_and(|s| s.plies >= 2)
        });
        p
    }

    fn private(
        p: &Pair<Race>,
        seat: Seat,
        log: u32,
        body: Vec<Item>,
    ) -> sealed_protocol::envelope::Signed {
        let e = p.sessions[seat.index()].engine();
        let unsigned = Unsigned {
            version: VERSION,
            game: e.terms().game(),
            log: LogId(log),
            seat,
            seq: 0,
            prev: Hash::ZERO,
            acks: e.heads_for(seat, LogId(log)),
            clock: p.now,
            body,
        };
        Pair::<Race>::sign(seat, unsigned)
    }

    #[test]
    fn posting_to_a_log_outside_ones_audience_is_a_fault() {
        let mut p = started();
        let env = private(&p, B, 2, vec![Item::Close]);
        p.inject(&env);
        let v = p.sessions[0].verdict();
        assert!(has(&v, B, FaultKind::NotInAudience), "{v:#?}");
        assert!(v.faults.iter().all(|f| f.seat == B));
    }

    #[test]
    fn a_public_envelope_never_acknowledges_a_private_log() {
        let mut p = started();
        // Seat 0 writes in log 1 (an empty close: the only private item version 1 has).
        let env = private(&p, A, 1, vec![Item::Close]);
        p.inject(&env);
        assert!(
            p.sessions[1].engine().faults().is_empty(),
            "a private close is no fault"
        );
        // Seat 1's next public envelope acknowledges that private chain.
        let mut u = p.forge(B, vec![Item::OfferDraw]).env.unsigned;
        u.acks.push(Ack {
            chain: sealed_protocol::ids::ChainId {
                log: LogId(1),
                seat: A,
            },
            seq: 0,
            hash: env.hash,
        });
        u.acks.sort();
        let bad = Pair::<Race>::sign(B, u);
        p.inject(&bad);
        let v = p.sessions[0].verdict();
        assert!(has(&v, B, FaultKind::MalformedAck), "{v:#?}");
    }

    #[test]
    fn acknowledging_a_log_the_game_does_not_have_is_a_fault() {
        let mut p = started();
        let mut u = p.forge(B, vec![Item::OfferDraw]).env.unsigned;
        u.acks.push(Ack {
            chain: sealed_protocol::ids::ChainId {
                log: LogId(9),
                seat: A,
            },
            seq: 0,
            hash: Hash([1; 32]),
        });
        let bad = Pair::<Race>::sign(B, u);
        p.inject(&bad);
        let v = p.sessions[0].verdict();
        assert!(has(&v, B, FaultKind::MalformedAck), "{v:#?}");
        assert!(
            v.claims
                .iter()
                .all(|c| c.about != ClaimAbout::MissingEnvelopes),
            "no wait for a chain that cannot exist"
        );
    }
}
