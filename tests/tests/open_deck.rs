//! A deck opened whole from its seed after the game (protocol version 2 draft 6,
//! spec/PROTOCOL.md §17.17): the honest reveal of a version 2 game is one `OpenDeck` per
//! deck, and it opens every slot; opened before the game is over it is the sender's
//! `early-reveal`, with a seed that does not give the deck's commitments his
//! `opening-mismatch`, for a deck he does not own his `opening-without-commitment`; a
//! version 1 envelope cannot carry one; a seat's secrets stored before decks were seeded
//! read back as they were.

use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{A, B, assert_caught, finish, judged, until_turn};
use sealed_games::duel::{self, Duel};
use sealed_protocol::body::{Item, OpenDeck, Purpose};
use sealed_protocol::envelope::{EnvelopeError, Signed};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::session::Secrets;
use sealed_protocol::verdict::{Status, Verdict};

/// A version 2 Duel at A's turn in round 0.
fn at_a(seed: u64) -> Pair<Duel> {
    let mut p = sealed_conformance::withdraw_kit::pair(seed);
    until_turn(&mut p, A, 0);
    p
}

/// A's true whole-deck opening.
fn a_opens_whole(p: &Pair<Duel>) -> OpenDeck {
    OpenDeck {
        deck: duel::deck(),
        seed: p.sessions[0].secrets().deck_seed(&duel::deck()),
    }
}

/// A forges one envelope with `body` and the game runs out; B's verdict, which the
/// offline check of B's transcript must give too.
fn forged(mut p: Pair<Duel>, body: Vec<Item>) -> (Pair<Duel>, Verdict) {
    let env = p.forge(A, body);
    p.inject(&env);
    finish(&mut p);
    let v = judged(&p, B);
    (p, v)
}

fn open_decks(p: &Pair<Duel>, seat: Seat) -> usize {
    p.sessions[1]
        .engine()
        .stored()
        .0
        .iter()
        .filter(|e| e.at().chain.seat == seat)
        .flat_map(|e| e.unsigned().body.iter())
        .filter(|i| matches!(i, Item::OpenDeck(_)))
        .count()
}

#[test]
fn the_honest_reveal_of_a_version_2_game_opens_each_deck_whole_once() {
    // A resigns at once, so most of both decks is still unopened when the game ends.
    let mut p = at_a(41);
    let now = p.now;
    p.sessions[0]
        .handle_command(sealed_protocol::session::Command::Resign, now)
        .expect("resigns");
    p.collect();
    finish(&mut p);
    let v = p.sessions[1].verdict();
    assert_eq!(v.status, Status::Verified, "{v:#?}");
    assert!(v.faults.is_empty(), "{v:#?}");
    for seat in [A, B] {
        assert_eq!(open_decks(&p, seat), 1, "{seat}");
        // Every commitment is open: the deck's slots by the one item.
        assert!(p.sessions[1].engine().unopened(seat).is_empty(), "{seat}");
    }
    let checked = sealed_games::variant::check_transcript(&p.transcript(A)).expect("readable");
    assert_eq!(checked.exit_code(), 0);
}

#[test]
fn a_deck_opened_whole_with_its_seed_after_resigning_opens_every_slot() {
    let p = at_a(42);
    let item = Item::OpenDeck(a_opens_whole(&p));
    let (p, v) = forged(p, vec![Item::Resign, item]);
    assert!(v.faults.is_empty(), "{v:#?}");
    assert_eq!(v.outcome.expect("over").results[0], SeatResult::Loss);
    let unopened_slots = p.sessions[1]
        .engine()
        .unopened(A)
        .into_iter()
        .filter(|k| matches!(k.purpose, Purpose::Deck(_)))
        .count();
    assert_eq!(unopened_slots, 0);
}

#[test]
fn a_deck_opened_whole_before_the_game_is_over_is_an_early_reveal() {
    let p = at_a(43);
    let item = Item::OpenDeck(a_opens_whole(&p));
    let (p, _) = forged(p, vec![item]);
    assert_caught(&p, A, FaultKind::EarlyReveal);
}

#[test]
fn a_deck_opened_whole_with_another_seed_is_an_opening_mismatch() {
    let p = at_a(44);
    let mut open = a_opens_whole(&p);
    open.seed[0] ^= 1;
    let (p, _) = forged(p, vec![Item::Resign, Item::OpenDeck(open)]);
    assert_caught(&p, A, FaultKind::OpeningMismatch);
}

#[test]
fn opening_whole_a_deck_one_does_not_own_is_an_opening_without_commitment() {
    let p = at_a(46);
    let open = OpenDeck {
        deck: Name::new("nope").expect("name"),
        seed: [7; 32],
    };
    let (p, _) = forged(p, vec![Item::Resign, Item::OpenDeck(open)]);
    assert_caught(&p, A, FaultKind::OpeningWithoutCommitment);
}

#[test]
fn a_version_1_envelope_cannot_carry_a_deck_opened_whole() {
    let mut p = sealed_conformance::scenarios::new_pair(47);
    until_turn(&mut p, A, 0);
    let seed = p.sessions[0].secrets().deck_seed(&duel::deck());
    let env = p.forge(
        A,
        vec![Item::OpenDeck(OpenDeck {
            deck: duel::deck(),
            seed,
        })],
    );
    let terms = p.sessions[1].engine().terms().clone();
    assert_eq!(
        Signed::parse(&terms, &env.bytes).expect_err("refused"),
        EnvelopeError::Version2Item
    );
    // And a version 1 game's own reveal opens slot by slot, as before.
    finish(&mut p);
    assert_eq!(open_decks(&p, A), 0);
    assert_eq!(p.sessions[1].verdict().status, Status::Verified);
}

#[test]
fn secrets_stored_before_decks_were_seeded_read_back_unseeded() {
    #[derive(serde::Serialize)]
    struct Old {
        entropy: [u8; 32],
        values: Vec<(Name, u32, Vec<u8>)>,
    }
    let old = sealed_protocol::wire::encode(&Old {
        entropy: [3; 32],
        values: vec![(Name::new("sq").expect("name"), 1, vec![9])],
    });
    let read = Secrets::from_stored(&old).expect("old secrets");
    assert!(!read.deck_seeds);
    assert_eq!(read.entropy, [3; 32]);
    assert_eq!(read.values.len(), 1);
    let new = Secrets::for_version([3; 32], sealed_protocol::proposal::VERSION_2);
    let bytes = sealed_protocol::wire::encode(&new);
    assert_eq!(Secrets::from_stored(&bytes).expect("new secrets"), new);
    // Without its last byte the new form is the old one: read as unseeded, which is
    // what the node wrote before the field existed.
    assert!(
        !Secrets::from_stored(&bytes[..bytes.len() - 1])
            .expect("old form")
            .deck_seeds
    );
    assert!(Secrets::from_stored(&bytes[..bytes.len() - 2]).is_err());
}
