//! Every way a seat can lie, caught with the right verdict, and the honest seat never
//! losing by it. Each test pauses an honest Duel, forges what a cheater would sign,
//! delivers it, lets the game run out, and checks both the honest seat's live verdict
//! and the offline check of the honest seat's transcript.

use sealed_conformance::duel_kit::{duel_proposal, duel_terms, play};
use sealed_conformance::pair::{Decide, Pair};
use sealed_conformance::sim::test_key;
use sealed_games::duel::{self, Act, Duel};
use sealed_protocol::body::{Commit, Deal, Item, Open, Purpose};
use sealed_protocol::commit::{CommitKey, card_value, commitment};
use sealed_protocol::engine::InsertError;
use sealed_protocol::envelope::{Ack, EnvelopeError};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::Session;
use sealed_protocol::verdict::{ClaimAbout, Status, Verdict};
use sealed_protocol::wire;

const A: Seat = Seat(0);
const B: Seat = Seat(1);

/// Plays the first card in hand when it is this seat's turn.
fn honest() -> Decide<Duel> {
    Box::new(|s: &Session<Duel>| {
        if s.engine().to_act() != Some(s.seat()) {
            return None;
        }
        s.hand(&duel::deck()).first().map(|(slot, _)| play(*slot))
    })
}

fn honest_pair() -> [Decide<Duel>; 2] {
    [honest(), honest()]
}

fn new_pair(seed: u64) -> Pair<Duel> {
    Pair::new(duel_terms(&Duel::default(), 5), seed)
}

/// Runs until the game has started and `seat` is to act.
fn until_turn(p: &mut Pair<Duel>, seat: Seat, rounds: u32) {
    let mut d = honest_pair();
    let ok = p.run_until(&mut d, |p| {
        let e = p.sessions[seat.index()].engine();
        e.to_act() == Some(seat) && e.state().is_some_and(|s| s.round >= rounds)
    });
    assert!(ok);
    assert_eq!(
        p.sessions[seat.index()].engine().to_act(),
        Some(seat),
        "never became {seat}'s turn"
    );
}

/// Lets the game run out (reveals and closes included) and returns the honest seat's
/// live verdict after checking the offline verdict of its transcript is the same.
fn finish(p: &mut Pair<Duel>, honest_seat: Seat) -> Verdict {
    let mut d = honest_pair();
    p.run(&mut d);
    let live = p.sessions[honest_seat.index()].verdict();
    let offline =
        sealed_games::variant::check_transcript(&p.transcript(honest_seat)).expect("readable");
    assert_eq!(
        offline.verdict, live,
        "offline verdict differs from the live one"
    );
    live
}

/// The verdict names exactly `kind` against `cheater`, the cheater loses and the
/// honest seat wins, with nothing against the honest seat.
fn assert_caught(v: &Verdict, cheater: Seat, kind: FaultKind) {
    assert_eq!(v.status, Status::ProvenFault, "{v:#?}");
    assert!(
        v.faults.iter().any(|f| f.seat == cheater && f.kind == kind),
        "no {kind} against {cheater}: {v:#?}"
    );
    assert!(
        v.faults.iter().all(|f| f.seat == cheater),
        "the honest seat was blamed: {v:#?}"
    );
    let o = v.outcome.as_ref().expect("adjudicated");
    assert_eq!(o.results[cheater.index()], SeatResult::Loss);
    assert_eq!(o.results[1 - cheater.index()], SeatResult::Win);
}

/// An envelope opening `slot` with `card` (whatever was committed) and playing it.
fn forged_play(
    p: &Pair<Duel>,
    seat: Seat,
    slot: u32,
    card: u32,
) -> sealed_protocol::envelope::Signed {
    let s = &p.sessions[seat.index()];
    let key = CommitKey {
        seat,
        purpose: Purpose::Deck(duel::deck()),
        index: slot,
    };
    let nonce = s.secrets().expect("secrets").nonce(&key);
    let open = Item::Open(Open {
        purpose: key.purpose,
        index: slot,
        nonce,
        value: card_value(card).to_vec(),
    });
    p.forge(seat, vec![open, Item::Act(duel::play_bytes(slot))])
}

/// A true play of `slot` (its committed card).
fn true_play(p: &Pair<Duel>, seat: Seat, slot: u32) -> sealed_protocol::envelope::Signed {
    let open = p.opening(seat, Purpose::Deck(duel::deck()), slot);
    p.forge(seat, vec![open, Item::Act(duel::play_bytes(slot))])
}

#[test]
fn a_card_never_dealt_loses_at_once() {
    let mut p = new_pair(1);
    until_turn(&mut p, B, 1);
    let dealt = p.sessions[1].engine().dealt(B, &duel::deck());
    let slot = (0..9)
        .find(|s| !dealt.contains(s))
        .expect("an undealt slot");
    let env = true_play(&p, B, slot);
    p.inject(&env);
    // The honest seat saw it at once: the game is over for it.
    assert!(p.sessions[0].engine().is_over());
    assert!(
        p.sessions[0]
            .engine()
            .faults()
            .iter()
            .any(|f| f.kind == FaultKind::SlotNeverDealt)
    );
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::SlotNeverDealt);
}

#[test]
fn a_card_played_twice_loses() {
    let mut p = new_pair(2);
    until_turn(&mut p, A, 0);
    // A plays a slot honestly, the round goes on, then A plays the same slot again.
    let slot = p.sessions[0].hand(&duel::deck())[0].0;
    let env = true_play(&p, A, slot);
    p.inject(&env);
    until_turn(&mut p, A, 1);
    let env = true_play(&p, A, slot);
    p.inject(&env);
    let v = finish(&mut p, B);
    assert_caught(&v, A, FaultKind::SlotUsedTwice);
}

/// Seat B joins with a deck whose every slot holds `card` (not a permutation, or not
/// on the list), instead of accepting honestly.
fn join_with_forged_deck(p: &mut Pair<Duel>, card: u32) {
    let s = &p.sessions[1];
    let secrets = s.secrets().expect("secrets").clone();
    let game = s.engine().terms().game();
    let decks = s.engine().decks();
    let coin_key = CommitKey {
        seat: B,
        purpose: Purpose::Coin,
        index: 0,
    };
    let seed_key = CommitKey {
        seat: B,
        purpose: Purpose::DealSeed(duel::deck()),
        index: 0,
    };
    let deck: Vec<Hash> = (0..9)
        .map(|i| {
            let key = CommitKey {
                seat: B,
                purpose: Purpose::Deck(duel::deck()),
                index: i,
            };
            commitment(game, &key, &secrets.nonce(&key), &card_value(card))
        })
        .collect();
    let body = vec![
        Item::Accept,
        Item::Commit(Commit {
            purpose: Purpose::Coin,
            first: 0,
            hashes: vec![secrets.commitment(game, &coin_key, &decks).unwrap()],
        }),
        Item::Commit(Commit {
            purpose: Purpose::Deck(duel::deck()),
            first: 0,
            hashes: deck,
        }),
        Item::Commit(Commit {
            purpose: Purpose::DealSeed(duel::deck()),
            first: 0,
            hashes: vec![secrets.commitment(game, &seed_key, &decks).unwrap()],
        }),
    ];
    let env = p.forge(B, body);
    p.inject(&env);
}

/// Runs with B forging its plays (B's session cannot open a forged deck itself).
fn run_until_b_forges(p: &mut Pair<Duel>, card: u32, plays: usize) {
    let mut d: [Decide<Duel>; 2] = [honest(), Box::new(|_| None)];
    let mut done = 0;
    while done < plays {
        assert!(p.run_until(&mut d, |p| p.sessions[1].engine().to_act() == Some(B)));
        if p.sessions[1].engine().to_act() != Some(B) {
            return;
        }
        let slot = p.sessions[1].engine().dealt(B, &duel::deck())[done];
        let env = forged_play(p, B, slot, card);
        p.inject(&env);
        done += 1;
    }
}

#[test]
fn one_card_from_two_slots_loses_at_once() {
    let mut p = new_pair(3);
    join_with_forged_deck(&mut p, 4);
    run_until_b_forges(&mut p, 4, 2);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::CardFromTwoSlots);
}

#[test]
fn a_card_not_on_the_list_loses_at_once() {
    let mut p = new_pair(4);
    join_with_forged_deck(&mut p, 99);
    run_until_b_forges(&mut p, 99, 1);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::CardNotOnList);
}

#[test]
fn a_repeated_index_loses() {
    let mut p = new_pair(5);
    until_turn(&mut p, A, 1);
    let dealt = p.sessions[1].engine().dealt(A, &duel::deck());
    let env = p.forge(
        B,
        vec![Item::Deal(Deal {
            owner: A,
            deck: duel::deck(),
            slots: vec![dealt[0]],
        })],
    );
    p.inject(&env);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::IndexRepeated);
}

#[test]
fn dealing_more_than_owed_loses() {
    let mut p = new_pair(6);
    until_turn(&mut p, A, 1);
    let dealt = p.sessions[1].engine().dealt(A, &duel::deck());
    let fresh = (0..9).find(|s| !dealt.contains(s)).unwrap();
    let env = p.forge(
        B,
        vec![Item::Deal(Deal {
            owner: A,
            deck: duel::deck(),
            slots: vec![fresh],
        })],
    );
    p.inject(&env);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::OverDealt);
}

#[test]
fn deals_that_the_revealed_seed_does_not_produce_lose_at_the_end() {
    // B commits to one dealer seed but deals from another; the game plays out normally
    // and the lie only shows when B opens the committed seed at the end.
    let mut p = new_pair(7);
    let s = &p.sessions[1];
    let secrets = s.secrets().unwrap().clone();
    let game = s.engine().terms().game();
    let decks = s.engine().decks();
    let other_seed = [0x5a; 32];
    let seed_key = CommitKey {
        seat: B,
        purpose: Purpose::DealSeed(duel::deck()),
        index: 0,
    };
    let seed_nonce = secrets.nonce(&seed_key);
    let mut body = vec![Item::Accept];
    for (purpose, n) in [(Purpose::Coin, 1u32), (Purpose::Deck(duel::deck()), 9)] {
        let hashes = (0..n)
            .map(|i| {
                secrets
                    .commitment(
                        game,
                        &CommitKey {
                            seat: B,
                            purpose: purpose.clone(),
                            index: i,
                        },
                        &decks,
                    )
                    .unwrap()
            })
            .collect();
        body.push(Item::Commit(Commit {
            purpose,
            first: 0,
            hashes,
        }));
    }
    body.push(Item::Commit(Commit {
        purpose: seed_key.purpose.clone(),
        first: 0,
        hashes: vec![commitment(game, &seed_key, &seed_nonce, &other_seed)],
    }));
    let env = p.forge(B, body);
    p.inject(&env);
    // Play to the end; B's session deals from its own seed, not the committed one.
    let mut d = honest_pair();
    p.run_until(&mut d, |p| p.sessions[1].engine().is_over());
    assert!(
        p.sessions[1].engine().faults().is_empty(),
        "nothing is visible before the reveal"
    );
    // B's own session cannot open the seed it committed to; B forges the reveal.
    let mut reveal = vec![];
    for key in p.sessions[1].engine().unopened(B) {
        if key == seed_key {
            reveal.push(Item::Open(Open {
                purpose: key.purpose.clone(),
                index: 0,
                nonce: seed_nonce,
                value: other_seed.to_vec(),
            }));
        } else {
            reveal.push(p.opening(B, key.purpose.clone(), key.index));
        }
    }
    p.pending.retain(|(to, _)| *to != A);
    let env = p.forge(B, reveal);
    p.inject(&env);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::DealNotFromSeed);
}

/// Plays honest games (seed by seed from `first`) until one ends with `pick` true of
/// (board result, the seat that learned of the end last); stops there with that
/// seat's reveal still undelivered, and returns the pair and that seat.
fn ended_with(first: u64, pick: impl Fn(&[SeatResult], Seat) -> bool) -> (Pair<Duel>, Seat) {
    for seed in first..first + 200 {
        let mut p = new_pair(seed);
        let mut d = honest_pair();
        p.run_until(&mut d, |p| p.sessions.iter().all(|s| s.engine().is_over()));
        let e = p.sessions[0].engine();
        let (_, last_actor) = *e.main_line().last().expect("acts");
        // The seat that made the last act revealed at once, in the same step; the
        // other learns of the end from that act, so its reveal is still pending.
        let last_to_know = duel::other(last_actor);
        let board = e.board_outcome().expect("over");
        if pick(&board.results, last_to_know) {
            return (p, last_to_know);
        }
    }
    panic!("no seed gives the wanted ending");
}

/// Drops everything `seat` has waiting for delivery and silences it.
fn hold_back(p: &mut Pair<Duel>, seat: Seat) {
    p.pending.retain(|(_, b)| {
        wire::decode::<sealed_protocol::envelope::Envelope>(b, wire::MAX_MESSAGE)
            .map_or(true, |e| e.unsigned.seat != seat)
    });
    p.silent.push(seat);
}

#[test]
fn a_changed_reveal_loses_even_after_winning_on_the_board() {
    let (mut p, cheater) = ended_with(100, |r, s| r[s.index()] == SeatResult::Win);
    let honest_seat = duel::other(cheater);
    // The cheater's honest reveal never leaves; in its place the honest seat receives
    // one that opens the same commitments with one value changed.
    let reveal_env = p.sessions[cheater.index()]
        .engine()
        .stored()
        .0
        .into_iter()
        .filter(|e| e.at().chain == ChainId::public(cheater))
        .filter(|e| !e.unsigned().body.iter().any(|i| matches!(i, Item::Act(_))))
        .find(|e| {
            e.unsigned()
                .body
                .iter()
                .any(|i| matches!(i, Item::Open(o) if o.purpose != Purpose::Coin))
        })
        .expect("the cheater revealed")
        .clone();
    hold_back(&mut p, cheater);
    let mut unsigned = reveal_env.env.unsigned.clone();
    let Some(Item::Open(o)) = unsigned
        .body
        .iter_mut()
        .find(|i| matches!(i, Item::Open(_)))
    else {
        panic!("no opening")
    };
    o.value[0] ^= 1;
    let forged = Pair::<Duel>::sign(cheater, unsigned);
    p.deliver_to(honest_seat, &forged);
    let v = finish(&mut p, honest_seat);
    assert_caught(&v, cheater, FaultKind::OpeningMismatch);
    assert_eq!(
        v.board.unwrap().results[cheater.index()],
        SeatResult::Win,
        "the cheater had won on the board"
    );
}

#[test]
fn equivocation_loses() {
    let mut p = new_pair(9);
    until_turn(&mut p, A, 1);
    let one = p.forge(B, vec![Item::OfferDraw]);
    let two = p.forge(
        B,
        vec![Item::Claim(sealed_protocol::body::Claim {
            against: A,
            kind: sealed_protocol::body::ClaimKind::Timeout,
        })],
    );
    assert_eq!(one.at(), two.at());
    p.inject(&one);
    p.inject(&two);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::Equivocation);
    // The second envelope cannot sit in a chain; the transcript carries it as evidence.
    let file = sealed_protocol::transcript::TranscriptFile::from_bytes(&p.transcript(A)).unwrap();
    assert!(
        file.evidence
            .iter()
            .any(|e| matches!(e, sealed_protocol::transcript::Evidence::Chain(_)))
    );
}

#[test]
fn an_act_out_of_turn_loses() {
    let mut p = new_pair(10);
    until_turn(&mut p, A, 1);
    let slot = p.sessions[1].hand(&duel::deck())[0].0;
    let env = true_play(&p, B, slot);
    p.inject(&env);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::OutOfTurn);
}

#[test]
fn a_backward_acknowledgement_loses() {
    let mut p = new_pair(11);
    until_turn(&mut p, A, 2);
    let mut env = p.forge(B, vec![Item::OfferDraw]).env.unsigned;
    let ack = env
        .acks
        .iter_mut()
        .find(|a| a.chain == ChainId::public(A))
        .unwrap();
    let first = p.sessions[1]
        .engine()
        .envelope(sealed_protocol::ids::EnvRef {
            chain: ChainId::public(A),
            seq: 0,
        })
        .unwrap();
    *ack = Ack {
        chain: ChainId::public(A),
        seq: 0,
        hash: first.hash,
    };
    let env = Pair::<Duel>::sign(B, env);
    p.inject(&env);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::BackwardAck);
}

#[test]
fn a_wrong_previous_hash_loses() {
    let mut p = new_pair(12);
    until_turn(&mut p, A, 1);
    let mut env = p.forge(B, vec![Item::OfferDraw]).env.unsigned;
    env.prev = Hash([0xee; 32]);
    let env = Pair::<Duel>::sign(B, env);
    p.inject(&env);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::WrongPrevious);
}

#[test]
fn revealing_a_dealer_seed_mid_game_loses() {
    let mut p = new_pair(13);
    until_turn(&mut p, A, 1);
    let env = p.forge(B, vec![p.opening(B, Purpose::DealSeed(duel::deck()), 0)]);
    p.inject(&env);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::EarlyReveal);
}

#[test]
fn closing_mid_game_loses() {
    let mut p = new_pair(14);
    until_turn(&mut p, A, 1);
    let env = p.forge(B, vec![Item::Close]);
    p.inject(&env);
    let v = finish(&mut p, A);
    assert_caught(&v, B, FaultKind::CloseBeforeEnd);
}

#[test]
fn an_act_the_rules_refuse_loses() {
    // A plays a slot but opens a different one.
    let mut p = new_pair(15);
    until_turn(&mut p, A, 0);
    let hand = p.sessions[0].hand(&duel::deck());
    let open = p.opening(A, Purpose::Deck(duel::deck()), hand[0].0);
    let env = p.forge(
        A,
        vec![
            open,
            Item::Act(wire::encode(&Act::Play { slot: hand[1].0 })),
        ],
    );
    p.inject(&env);
    let v = finish(&mut p, B);
    assert_caught(&v, A, FaultKind::IllegalAct);
}

#[test]
fn garbage_act_bytes_lose() {
    let mut p = new_pair(16);
    until_turn(&mut p, A, 0);
    let env = p.forge(A, vec![Item::Act(vec![9, 9, 9])]);
    p.inject(&env);
    let v = finish(&mut p, B);
    assert_caught(&v, A, FaultKind::UndecodableAct);
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
    let secrets = p.sessions[1].secrets().unwrap().clone();
    let game = p.sessions[1].engine().terms().game();
    let decks = p.sessions[1].engine().decks();
    let mut body = vec![Item::Accept];
    for (purpose, indices) in sealed_protocol::session::start_keys(B, &decks, &[]) {
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
    assert!(
        v.faults
            .iter()
            .any(|f| f.seat == A && f.kind == FaultKind::PrematureReveal),
        "{v:#?}"
    );
    assert!(
        v.faults
            .iter()
            .any(|f| f.seat == B && f.kind == FaultKind::CommitmentAfterDependent),
        "{v:#?}"
    );
    assert_eq!(
        v.outcome.unwrap().results,
        vec![SeatResult::Draw, SeatResult::Draw]
    );
}

#[test]
fn a_loser_who_withholds_his_reveal_still_loses_verified() {
    let (mut p, loser) = ended_with(200, |r, s| r[s.index()] == SeatResult::Loss);
    hold_back(&mut p, loser);
    let v = finish(&mut p, duel::other(loser));
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
    let v = finish(&mut p, duel::other(winner));
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
