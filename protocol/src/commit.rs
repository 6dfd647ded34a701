//! Salted commitments bound to their context.
//!
//! `C = H("sealed/v1/commit", game id, seat, purpose, index, nonce, value)`, every field
//! framed. Binding the game, seat, purpose and index means a commitment copied from
//! another game, another seat or another slot can never be opened where it was pasted.

use crate::body::Purpose;
use crate::hash::{Framed, Hash, tag};
use crate::ids::{GameId, Seat};
use crate::wire;

/// Where a commitment lives: who made it, for what, at which index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CommitKey {
    /// The committing seat.
    pub seat: Seat,
    /// Its purpose.
    pub purpose: Purpose,
    /// Its index within the purpose.
    pub index: u32,
}

/// Computes a commitment.
pub fn commitment(game: GameId, key: &CommitKey, nonce: &[u8; 32], value: &[u8]) -> Hash {
    wire::with_encoded(&key.purpose, |purpose| {
        Framed::new(tag::COMMIT)
            .field(game.0.as_bytes())
            .field(&[key.seat.0])
            .field(purpose)
            .field(&key.index.to_le_bytes())
            .field(nonce)
            .field(value)
            .finish()
    })
}

/// A deck whose salts and order come from one seed (version 2, spec/PROTOCOL.md
/// §17.17): slot `i`'s salt is `H("sealed/v2/deck-nonce"; seed, le32(i))` and its card
/// element `i` of the agreed list shuffled by the stream keyed
/// `H("sealed/v2/deck-order"; seed)`. Opening the seed after the game opens every slot
/// in one item; before it, the seed stays secret and each slot's salt reveals nothing of
/// the others'.
pub fn seeded_deck(seed: &[u8; 32], list: &[u32]) -> SeededDeck {
    let mut order = list.to_vec();
    crate::random::Stream::new(&Framed::new(tag::DECK_ORDER).field(seed).finish())
        .shuffle(&mut order);
    SeededDeck { seed: *seed, order }
}

/// The salts and order a deck seed gives ([`seeded_deck`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeededDeck {
    seed: [u8; 32],
    /// Slot → card.
    pub order: Vec<u32>,
}

impl SeededDeck {
    /// The salt of slot `i`.
    pub fn nonce(&self, slot: u32) -> [u8; 32] {
        deck_nonce(&self.seed, slot)
    }
}

/// The salt of slot `slot` of the deck seeded `seed` ([`seeded_deck`]).
pub fn deck_nonce(seed: &[u8; 32], slot: u32) -> [u8; 32] {
    Framed::new(tag::DECK_NONCE)
        .field(seed)
        .field(&slot.to_le_bytes())
        .finish()
        .0
}

/// The canonical value bytes of a deck slot: the card number, 4 bytes little-endian.
pub fn card_value(card: u32) -> [u8; 4] {
    card.to_le_bytes()
}

/// Reads a deck slot's value back as a card number.
pub fn card_from_value(value: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(value.try_into().ok()?))
}

/// Reads a 32-byte seed value.
pub fn seed_from_value(value: &[u8]) -> Option<[u8; 32]> {
    value.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Name;
    use proptest::prelude::*;

    fn key(seat: u8, index: u32) -> CommitKey {
        CommitKey {
            seat: Seat(seat),
            purpose: Purpose::Deck(Name::new("d").unwrap()),
            index,
        }
    }

    proptest! {
        #[test]
        fn any_change_changes_the_commitment(
            game in any::<[u8; 32]>(), seat in 0u8..8, index in any::<u32>(),
            nonce in any::<[u8; 32]>(), value in proptest::collection::vec(any::<u8>(), 0..16),
            flip in 0usize..6,
        ) {
            let g = GameId(Hash(game));
            let base = commitment(g, &key(seat, index), &nonce, &value);
            let mut g2 = game; let mut n2 = nonce; let mut v2 = value.clone();
            let (mut s2, mut i2) = (seat, index);
            let mut purpose = key(seat, index).purpose;
            match flip {
                0 => g2[0] ^= 1,
                1 => s2 ^= 1,
                2 => i2 ^= 1,
                3 => n2[31] ^= 1,
                4 => v2.push(0),
                _ => purpose = Purpose::Value(Name::new("d").unwrap()),
            }
            let k2 = CommitKey { seat: Seat(s2), purpose, index: i2 };
            prop_assert_ne!(base, commitment(GameId(Hash(g2)), &k2, &n2, &v2));
        }
    }
}
