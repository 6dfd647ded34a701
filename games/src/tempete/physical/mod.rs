//! The physical deck (spec/GAMES.md §4.20): Tempête played with the cards the players own.
//!
//! The program never holds a published card's text. What it keeps is what the protocol
//! can keep without it: *which* card a player is entitled to (the same committed decks
//! and blind deals as the open deck), and for the ten numbers whose mail procedure the
//! postal rules give (12, 18, 28, 32, 34, 42, 50, 52, 57, 66) that procedure — sealed
//! squares, interceptions and answers, double moves, taking and picking cards. What a
//! card does on the board is the player's to state ([`edit`]): board edits plus a note,
//! shown to the opponent, who accepts it by his next act or disputes it ([`claims`]).
//! A dispute is settled by agreement or by an arbiter named in the terms, whose signed
//! ruling is an act the verifier applies ([`ruling`]). The arbiter option is read here
//! ([`parse_arbiter`], refused with an [`ArbiterError`]).

pub mod claims;
pub mod edit;
mod flow;
pub mod notation;
pub mod ruling;
pub mod view;

use sealed_protocol::keys::{KeyError, PublicKey};

use super::card::{Card, Effect, Timing};
use super::deck::Deck;

pub use claims::{Claims, DisputeState, Lasting, Record};
pub use edit::{Edit, EditError, MAX_EDITS, MAX_NOTE};

/// The numbers whose mail procedure the engine runs in the physical deck; every other
/// number's effect is stated by its player.
pub const PROCEDURE_NUMBERS: [u32; 10] = [12, 18, 28, 32, 34, 42, 50, 52, 57, 66];

/// The highest card number of the published deck.
pub const MAX_PHYSICAL: u32 = 72;

/// Plies an arbiter has to rule on a dispute unless the terms say otherwise.
pub const DEFAULT_RULING_PLIES: u32 = 20;

/// The physical deck's terms: who arbitrates, and for how long a ruling may come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Physical {
    /// The arbiter's public key (`arbiter`), if the players named one.
    pub arbiter: Option<PublicKey>,
    /// Plies after a dispute within which the arbiter's ruling is accepted
    /// (`ruling-plies`).
    pub ruling_plies: u32,
}

impl Default for Physical {
    fn default() -> Self {
        Physical {
            arbiter: None,
            ruling_plies: DEFAULT_RULING_PLIES,
        }
    }
}

/// The card definitions the physical deck uses: under the ten numbers, the open deck's
/// cards of the same procedure (what the flow runs; their names are ours); under every
/// other number from 1 to 72, a card whose effect its player states.
pub fn deck() -> Deck {
    let open = Deck::open();
    Deck::from_cards((1..=MAX_PHYSICAL).filter_map(|n| {
        let (timing, effect, text) = match open.card(n).filter(|_| PROCEDURE_NUMBERS.contains(&n)) {
            Some(c) => (c.timing(), c.effect(), procedure_text(c.effect())),
            None => (
                Timing::Instead,
                Effect::Stated,
                "the effect printed on your own card: state it when you play it",
            ),
        };
        Card::new(n, &format!("card {n}"), timing, effect, text).ok()
    }))
}

/// What the engine does for a procedure card, in our words (the card's own text is
/// the players').
fn procedure_text(effect: Effect) -> &'static str {
    match effect {
        Effect::Trap { .. } => {
            "a secret square, sealed with your move; when an enemy piece lands on it, it is opened with your next turn, whose edits state what happens"
        }
        Effect::ExtraMove { .. } => {
            "a double move: state its two moves; an interception may hit the first or the second"
        }
        Effect::Cancel => {
            "against a card: intercept a turn that played one (the answer is then a plain move), or answer an interception to void it"
        }
        Effect::TakePlayed => {
            "at the start of your turn: take a card the opponent played since your last turn"
        }
        Effect::PickUnplayed => {
            "after you lost a piece other than a pawn: add a slot of your deck never dealt to your hand"
        }
        _ => "an interception: the opponent must make another play",
    }
}

/// Why the `arbiter` option names no arbiter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArbiterError {
    /// Not 64 hexadecimal digits.
    #[error("the arbiter is named by his public key: 64 hexadecimal digits")]
    NotHex,
    /// 32 bytes that are no usable public key.
    #[error("the arbiter's key: {0}")]
    Key(#[from] KeyError),
}

/// Reads `arbiter`: the arbiter's Ed25519 public key, 64 hexadecimal digits.
pub fn parse_arbiter(text: &str) -> Result<PublicKey, ArbiterError> {
    let bytes = sealed_protocol::hash::from_hex(text.trim())
        .filter(|b| b.len() == 32)
        .ok_or(ArbiterError::NotHex)?;
    let mut key = [0u8; 32];
    key.copy_from_slice(&bytes);
    Ok(PublicKey::from_bytes(&key)?)
}

#[cfg(test)]
mod tests {
    use super::super::act::{Act, Answer, CardRef, Claim};
    use super::Edit;

    fn hex(act: &Act) -> String {
        sealed_protocol::hash::to_hex(&sealed_protocol::wire::encode(act))
    }

    /// The encodings spec/GAMES.md §4.5 gives as examples.
    #[test]
    fn the_physical_acts_encode_as_the_spec_says() {
        let claim = Claim {
            card: Some(CardRef::Slot(3)),
            edits: vec![Edit::Move {
                from: 6,
                to: 31,
                promotion: None,
            }],
            lasting: 6,
            note: "camel".into(),
            ..Claim::default()
        };
        assert_eq!(
            hex(&Act::Claim(claim)),
            "0500010003000100061f00060563616d656c"
        );
        let cite = Claim {
            cite: Some(0),
            edits: vec![Edit::Move {
                from: 31,
                to: 36,
                promotion: None,
            }],
            ..Claim::default()
        };
        assert_eq!(hex(&Act::Claim(cite)), "050000010001001f24000000");
        assert_eq!(
            hex(&Act::Dispute {
                act: 2,
                note: String::new()
            }),
            "060200"
        );
        assert_eq!(
            hex(&Act::Settle {
                dispute: 0,
                edits: vec![
                    Edit::Remove { square: 28 },
                    Edit::Place {
                        square: 36,
                        black: true,
                        kind: 1
                    },
                    Edit::Exchange { a: 0, b: 7 },
                    Edit::ExtraMove,
                    Edit::SkipTurn
                ],
                note: String::new()
            }),
            "070005011c02240101030007040500"
        );
        assert_eq!(
            hex(&Act::Answer(Answer::Claimed(Claim {
                card: Some(CardRef::Again),
                ..Claim::default()
            }))),
            "020300010200000000"
        );
        let ruling = Act::Ruling {
            dispute: 1,
            edits: vec![],
            note: String::new(),
            signature: vec![0xab; 64],
        };
        assert_eq!(hex(&ruling), format!("0801000040{}", "ab".repeat(64)));
    }
}
