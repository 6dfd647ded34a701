//! A relayed game's places, shared by its seats ([`within_places`]): the bound is pure
//! arithmetic over what the relay holds, so the held places are filled by hand.

use super::*;
use crate::test_kit::{duel, envelope, key, peer_key};
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, Seat};

/// A relayed duel whose seat 1 holds its whole share of places, with the signers' keys.
fn full_seat() -> (
    Relayed,
    sealed_protocol::keys::SecretKey,
    sealed_protocol::keys::SecretKey,
) {
    let (alice, bob) = (key(1), key(2));
    let terms = duel(&alice, peer_key(&bob), None, 1);
    let mut r = Relayed::new(terms, 0, 0);
    let share = Places::REFERENCE.seat_share(2);
    for q in 0..share {
        r.hold_for_test(ChainId::public(Seat(1)), q, Hash([1; 32]));
    }
    (r, alice, bob)
}

fn signed(r: &Relayed, key: &sealed_protocol::keys::SecretKey, seat: u8, seq: u64) -> Signed {
    Signed::parse(r.terms(), &envelope(r.terms(), key, seat, seq)).expect("signed")
}

#[test]
fn a_seat_that_filled_its_places_is_refused_alone() {
    let (r, alice, bob) = full_seat();
    let (bobs, alices) = (
        signed(&r, &bob, 1, Places::REFERENCE.seat_share(2)),
        signed(&r, &alice, 0, 0),
    );
    let kept = within_places(&r, &Places::REFERENCE, vec![bobs.clone(), alices.clone()])
        .expect("Alice's is kept");
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].hash, alices.hash);
    assert_eq!(
        within_places(&r, &Places::REFERENCE, vec![bobs]).map(|v| v.len()),
        Err(PeerRefusal::SeatFull(Places::REFERENCE.seat_share(2)))
    );
}

#[test]
fn a_place_held_already_takes_no_room() {
    // Its twin is evidence the relay must take, full or not.
    let (r, _, bob) = full_seat();
    let twin = signed(&r, &bob, 1, 5);
    assert_eq!(
        within_places(&r, &Places::REFERENCE, vec![twin]).map(|v| v.len()),
        Ok(1)
    );
}
