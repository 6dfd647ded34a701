//! Who is who in a game's terms, as this node asks it: the seat a key holds, the game's
//! mailboxes and other peers, its proposer, whether this node referees it. Questions of
//! the signed terms alone, asked by every layer of the core, so they sit below all of
//! them.

use sealed_protocol::ids::Seat;
use sealed_protocol::proposal::{Role, Terms};

use super::PeerKey;

/// The seat a key holds in a game, if any.
pub(super) fn seat_of(terms: &Terms, peer: &PeerKey) -> Option<Seat> {
    terms.seat_of(peer.as_bytes())
}

/// Whether a key is one of a game's mailboxes.
pub(super) fn is_mailbox(terms: &Terms, peer: &PeerKey) -> bool {
    terms
        .proposal()
        .mailboxes
        .iter()
        .any(|m| PeerKey::from(m.key) == *peer)
}

/// The keys of a game's seats, in seat order.
pub(super) fn seat_keys(terms: &Terms) -> impl Iterator<Item = PeerKey> + '_ {
    terms.proposal().seats.iter().map(|s| PeerKey::from(s.key))
}

/// The keys of a game's mailboxes, as its proposal lists them.
pub(super) fn mailbox_keys(terms: &Terms) -> impl Iterator<Item = PeerKey> + '_ {
    terms
        .proposal()
        .mailboxes
        .iter()
        .map(|m| PeerKey::from(m.key))
}

/// The key of a game's witness, if its terms name one.
pub(super) fn witness_key(terms: &Terms) -> Option<PeerKey> {
    terms.witness().map(|w| PeerKey::from(w.key))
}

/// Every peer of a game but `me`: its seats and its mailboxes.
pub(super) fn game_peers(terms: &Terms, me: &PeerKey) -> Vec<PeerKey> {
    seat_keys(terms)
        .chain(mailbox_keys(terms))
        .filter(|k| k != me)
        .collect()
}

/// The proposer of a game with these terms.
pub(super) fn proposer(terms: &Terms) -> Option<PeerKey> {
    terms.key(terms.proposal().proposer).map(PeerKey::from)
}

/// Whether this node's seat of these terms is the referee's.
pub(super) fn referees(terms: &Terms, me: &PeerKey) -> bool {
    terms
        .seat_of(me.as_bytes())
        .is_some_and(|s| terms.role(s) == Some(Role::Referee))
}

/// The key of the game's other player, seen from seat `me`.
pub(super) fn other_player(terms: &Terms, me: Seat) -> Option<PeerKey> {
    let other = terms.player_seats().find(|s| *s != me)?;
    terms.key(other).map(PeerKey::from)
}
