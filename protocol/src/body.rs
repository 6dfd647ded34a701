//! What an envelope carries: a list of items.
//!
//! Items are the protocol's vocabulary. Commitments, openings and deals are understood
//! by the core; a game's own moves travel as [`Item::Act`] bytes that only its rules
//! parse. One envelope may carry several items (a card play opens its slot and makes a
//! move in the same signed step); the engine reads them in order.

use serde::{Deserialize, Serialize};

use crate::hash::Hash;
use crate::ids::{Name, Seat};

/// What a commitment is for. Part of every commitment's hash, so a commitment made
/// for one purpose can never be opened as another.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Purpose {
    /// The seat's seed for the joint coin (index 0). Value: 32 bytes.
    Coin,
    /// One slot of the seat's secret deck of that name (index = slot). Value: the card
    /// number as 4 little-endian bytes.
    Deck(Name),
    /// The dealer's seed for the index stream of another seat's deck of that name
    /// (index = the owner's seat number). Value: 32 bytes.
    DealSeed(Name),
    /// The owner's seed for a private seeded setup of that name (index 0). Value: 32 bytes.
    Setup(Name),
    /// A sealed value the game defines (Tempête's secret squares); value bytes are the
    /// game's, at most [`MAX_VALUE`].
    Value(Name),
    /// The head of the owner's hash chain of draw values for the public pool of that
    /// name (index 0). Not a salted commitment: the head is published as it is, and the
    /// chain's values are opened one per draw with [`Item::DrawOpen`].
    DrawChain(Name),
}

/// Longest value a commitment may open to.
pub const MAX_VALUE: usize = 1024;

/// Commitments to consecutive indices of one purpose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    /// What they are for.
    pub purpose: Purpose,
    /// Index of the first hash; the i-th hash commits index `first + i`.
    pub first: u32,
    /// The commitments.
    pub hashes: Vec<Hash>,
}

/// Opening of one of the sender's own commitments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Open {
    /// Purpose of the commitment.
    pub purpose: Purpose,
    /// Its index.
    pub index: u32,
    /// The 32-byte salt it was made with.
    pub nonce: [u8; 32],
    /// The committed value.
    pub value: Vec<u8>,
}

/// Version 2: one of the sender's own deck slots shown without being spent
/// (spec/PROTOCOL.md §17.16). Encoded as [`Open`] with `to` first. The envelope is
/// public, so every seat and every verifier reads the card; `to` says only whom the
/// game counts as shown (`None`: every seat).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Show {
    /// The seat the card is shown to, or `None` for every seat.
    pub to: Option<Seat>,
    /// Purpose of the commitment: only `Deck(name)` is judged; any other is out of
    /// phase.
    pub purpose: Purpose,
    /// The slot.
    pub index: u32,
    /// The 32-byte salt it was made with.
    pub nonce: [u8; 32],
    /// The committed value (the card, 4 bytes little-endian).
    pub value: Vec<u8>,
}

/// A whole deck opened from its seed (version 2, spec/PROTOCOL.md §17.17): judged as
/// the openings of its slots in ascending order, each slot's salt and card derived
/// from `seed` ([`crate::commit::seeded_deck`]). One item of about 40 bytes stands for
/// every slot's opening (46 bytes each) at the end of the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenDeck {
    /// The sender's deck.
    pub deck: Name,
    /// The seed of its salts and order.
    pub seed: [u8; 32],
}

/// Slot indices the sender deals from another seat's secret deck.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    /// Whose deck.
    pub owner: Seat,
    /// Which deck.
    pub deck: Name,
    /// Slots, in the order the dealer's stream produced them.
    pub slots: Vec<u32>,
}

/// What a claim says happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ClaimKind {
    /// The accused owes an envelope and let the agreed time pass.
    Timeout,
    /// The accused stopped answering altogether.
    Abandoned,
}

/// A claim against another seat. Cryptography cannot prove that something was *not*
/// sent, so this is recorded with its evidence (the claimant's clock and what it had
/// acknowledged of the accused), never treated as proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// Who is accused.
    pub against: Seat,
    /// Of what.
    pub kind: ClaimKind,
}

/// One thing an envelope says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Item {
    /// The seat accepts the proposal (first envelope of every seat but the proposer).
    Accept,
    /// The seat declines the proposal; the game never starts.
    Decline,
    /// Commitments.
    Commit(Commit),
    /// Opening of a commitment.
    Open(Open),
    /// Deck slots dealt to another seat.
    Deal(Deal),
    /// A game move, encoded by the game's rules.
    Act(Vec<u8>),
    /// The sender resigns.
    Resign,
    /// The sender offers a draw.
    OfferDraw,
    /// The sender accepts a standing draw offer.
    AcceptDraw,
    /// A claim against another seat.
    Claim(Claim),
    /// The sender will send nothing more but further closes (see the spec's "close").
    Close,
    /// Proof that a seat broke its chain; ends the game for whoever sees it.
    Evidence(crate::proof::Proof),
    /// The contributor's fresh value for a declared draw from another seat's pool.
    DrawContribute(DrawContribute),
    /// The owner's next chain value for a draw from its pool.
    DrawOpen(DrawOpen),
    /// Version 2: the witness's statements proving another player out of time; ends
    /// the game with that player's loss on time (spec/PROTOCOL.md §17).
    Forfeit(Forfeit),
    /// Version 2: witness statements posted for the record (spec/PROTOCOL.md §17): each
    /// the bytes of a `SignedStatement` — ledgers dating public envelopes, stamps
    /// dating deposits of private ones — for the end-of-game audit, for a victim to
    /// show the witness contradicted itself, or ahead of a forfeit too long for one
    /// envelope. Empty says the sender has none to post.
    Statements(Vec<Vec<u8>>),
    /// Version 2: the proposer takes the proposal back before it has seen every other
    /// seat accept; the game never starts (spec/PROTOCOL.md §17.14).
    Withdraw,
    /// Version 2: the signer's own display name, at most [`MAX_NAME`] bytes, in the
    /// first envelope of a seat that did not propose (spec/PROTOCOL.md §17.15). The
    /// proposer's is in the proposal it signed.
    Named(String),
    /// Version 2: one of the sender's deck slots shown to one seat or to all, the slot
    /// kept in the hand (spec/PROTOCOL.md §17.16).
    Show(Show),
    /// Version 2: every slot of one of the sender's decks opened at once from the seed
    /// its salts and order came from, after the game (spec/PROTOCOL.md §17.17).
    OpenDeck(OpenDeck),
}

/// Longest display name, in a proposal's seat or a [`Item::Named`].
pub const MAX_NAME: usize = 64;

impl Item {
    /// Whether version 1 lacks this item: a version 1 envelope that carries one is not
    /// a version 1 envelope (spec/PROTOCOL.md §17).
    pub fn version_2_only(&self) -> bool {
        matches!(
            self,
            Item::Forfeit(_)
                | Item::Statements(_)
                | Item::Withdraw
                | Item::Named(_)
                | Item::Show(_)
                | Item::OpenDeck(_)
        )
    }
}

/// A time forfeit: who is accused, and the witness's signed statements (each the bytes
/// of a `SignedStatement`) that prove it against what the sender had seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forfeit {
    /// The player out of time.
    pub against: Seat,
    /// The proof: signed witness statements.
    pub statements: Vec<Vec<u8>>,
}

/// Most statements in one forfeit or statements item (a proof needs one ledger past
/// the deadline, whose times count what the accused's earlier waits cost it; a stamp is
/// about 140 bytes). Whatever does not fit one envelope goes in statements items
/// before the forfeit: the forfeit reads every statement posted in its causal past.
pub const MAX_FORFEIT_STATEMENTS: usize = 256;

/// The contributor's fresh value for draw `index` (from 1) of `owner`'s pool `pool`.
/// It must come after the draw was declared, as the sender saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawContribute {
    /// Whose pool.
    pub owner: Seat,
    /// Which pool.
    pub pool: Name,
    /// Which draw, from 1.
    pub index: u32,
    /// The value.
    pub value: [u8; 32],
}

/// The owner's chain value `index` (from 1) of its pool `pool`; it must hash to the
/// value before it, and come after the contributor's value for that draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawOpen {
    /// Which pool.
    pub pool: Name,
    /// Which draw, from 1.
    pub index: u32,
    /// The chain value.
    pub value: [u8; 32],
}

/// Most items in one envelope.
pub const MAX_ITEMS: usize = 64;
/// Most commitments in one `Commit` item.
pub const MAX_COMMITS: usize = 1024;
/// Most slots in one `Deal` item.
pub const MAX_DEAL: usize = 256;
/// Longest `Act` payload.
pub const MAX_ACT: usize = 16 * 1024;

/// Checks the size limits of a body. A signed body over a limit is the signer's fault.
pub fn check_limits(body: &[Item]) -> Result<(), &'static str> {
    if body.len() > MAX_ITEMS {
        return Err("more than 64 items");
    }
    for item in body {
        match item {
            Item::Commit(c) if c.hashes.is_empty() || c.hashes.len() > MAX_COMMITS => {
                return Err("a commit item holds 1 to 1024 hashes");
            }
            Item::Commit(c)
                if u32::try_from(c.hashes.len())
                    .ok()
                    .and_then(|n| c.first.checked_add(n))
                    .is_none() =>
            {
                return Err("commit indices overflow");
            }
            Item::Open(o) if o.value.len() > MAX_VALUE => return Err("opened value too long"),
            Item::Show(o) if o.value.len() > MAX_VALUE => return Err("shown value too long"),
            Item::Deal(d) if d.slots.is_empty() || d.slots.len() > MAX_DEAL => {
                return Err("a deal item holds 1 to 256 slots");
            }
            Item::Act(a) if a.len() > MAX_ACT => return Err("act too long"),
            Item::Named(n) if n.len() > MAX_NAME => return Err("a name is at most 64 bytes"),
            Item::Forfeit(Forfeit { statements: st, .. }) | Item::Statements(st)
                if st.len() > MAX_FORFEIT_STATEMENTS
                    || st.iter().any(|b| b.len() > crate::witness::MAX_STATEMENT) =>
            {
                return Err(
                    "a forfeit or statements item holds at most 256 statements of at most 32 KiB",
                );
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of spec/PROTOCOL.md §1.7: slot 3 of `cards` shown to seat 1.
    #[test]
    fn a_show_encodes_as_the_spec_says() {
        let item = Item::Show(Show {
            to: Some(Seat(1)),
            purpose: Purpose::Deck(Name::new("cards").unwrap()),
            index: 3,
            nonce: [7; 32],
            value: 73u32.to_le_bytes().to_vec(),
        });
        let mut want = vec![
            0x12, 0x01, 0x01, 0x01, 0x05, b'c', b'a', b'r', b'd', b's', 0x03,
        ];
        want.extend([7; 32]);
        want.extend([0x04, 0x49, 0x00, 0x00, 0x00]);
        assert_eq!(crate::wire::encode(&item), want);
        assert_eq!(want.len(), 48);
        assert!(item.version_2_only());
        assert!(
            check_limits(&[Item::Show(Show {
                to: None,
                purpose: Purpose::Coin,
                index: 0,
                nonce: [0; 32],
                value: vec![0; MAX_VALUE + 1],
            })])
            .is_err()
        );
    }
}
