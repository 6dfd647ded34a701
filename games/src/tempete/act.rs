//! The acts of Tempête on the wire: the three message kinds of the seed (a turn, an
//! interception, an answer to an interception) plus yielding a mate, in postcard.
//! Variants are only ever appended: postcard names a variant by its index, so a new one
//! at the end leaves every earlier encoding as it was.
//!
//! Squares are indices a1 = 0 … h8 = 63, kinds indices in
//! [`Kind::ALL`](crate::chess::Kind::ALL) order. A card is named by where it comes from,
//! never by its number alone: a slot of one's own deck (opened in the same envelope, so
//! the entitlement is checked at once), a card taken from the opponent with card 34
//! (public), or the card of the turn just intercepted. Parameters and moves that are no
//! squares, kinds or play: [`ActError`].

use serde::{Deserialize, Serialize};

use crate::chess::Move;
use crate::chess::wire::{WireError, kind_at, square_at};

use super::effects::Params;
use super::physical::Edit;

/// Where a played card comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CardRef {
    /// A slot of the player's own deck, opened in the same envelope.
    Slot(u32),
    /// A card in the public `taken` list, by number: taken from the opponent's played
    /// cards (card 34), or kept after an interception of a double move
    /// ([`Answer::Keep`]).
    Taken(u32),
    /// The card of the player's own turn that the opponent just intercepted, played
    /// again in the answer (the seed's card 18 options).
    Again,
}

/// A card and what it names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardUse {
    /// The card.
    pub card: CardRef,
    /// Squares it names, as indices.
    pub squares: Vec<u8>,
    /// A kind it names, as an index.
    pub kind: Option<u8>,
}

/// A chess move on the wire: the one form every game sends (see `sealed_chess::wire`).
pub use crate::chess::wire::WireMove;

/// What a start-of-turn card does besides leaving the hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StartCard {
    /// Card 34's kind: take the opponent's played card with this number.
    Take {
        /// The card played.
        card: CardRef,
        /// The number taken.
        number: u32,
    },
    /// Card 57's kind: add the never-dealt slot `slot` of one's own deck to the hand.
    Pick {
        /// The card played.
        card: CardRef,
        /// The slot named.
        slot: u32,
    },
}

/// A Tempête act.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Act {
    /// A turn: an optional start-of-turn card, an optional card with the move, the chess
    /// move(s), and the cards discarded by a redraw card (opened in the same envelope).
    Turn {
        /// A card played at the start of the turn.
        start: Option<StartCard>,
        /// The card played with the move.
        card: Option<CardUse>,
        /// The chess moves, in order.
        moves: Vec<WireMove>,
        /// Slots discarded by a redraw card.
        discard: Vec<u32>,
    },
    /// An interception of the opponent's turn just made.
    Intercept {
        /// The intercepting card (`replace-move`, or `cancel` against the turn's card).
        card: CardUse,
    },
    /// The answer to an interception.
    Answer(Answer),
    /// The side to move has no legal move and does not intercept: mated (it loses) or
    /// stalemated (a draw).
    Yield,
    /// An interception of the *second* move of the opponent's double move (a turn whose
    /// card is `extra-move`, the seed's cards 18 and 50) with a `replace-move` card: the
    /// answer must keep the first move and make another second move. The seed lets the
    /// interceptor say which part he hits; [`Act::Intercept`] hits the first.
    InterceptSecond {
        /// The intercepting card (`replace-move`).
        card: CardUse,
    },
    /// Physical deck: a turn whose board part the player states — a card's effect, a
    /// move citing a continuing effect, or what a sprung trap did.
    Claim(Claim),
    /// Physical deck: dispute act `act` of the opponent, made since one's own last act.
    /// It does not pass the turn.
    Dispute {
        /// The act disputed (accepted acts counted from 0).
        act: u32,
        /// Why.
        note: String,
    },
    /// Physical deck: offer to settle dispute `dispute` by these edits of the board as it
    /// stands (none: the claim stands). The opponent's next act that does not dispute it
    /// accepts it. It does not pass the turn.
    Settle {
        /// The dispute.
        dispute: u32,
        /// The correction.
        edits: Vec<Edit>,
        /// What is agreed.
        note: String,
    },
    /// Physical deck: the arbiter's signed ruling on dispute `dispute`, posted by the
    /// player to act; its edits correct the board as it stands. It does not pass the turn.
    Ruling {
        /// The dispute.
        dispute: u32,
        /// The correction (none: the claim stands).
        edits: Vec<Edit>,
        /// The arbiter's words.
        note: String,
        /// The arbiter's Ed25519 signature (64 bytes) on
        /// [`super::physical::ruling::ruling_hash`].
        signature: Vec<u8>,
    },
}

/// Physical deck: a play whose board part is stated, not derived from a card's text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// A card played at the start of the turn (the procedures of 34 and 57).
    pub start: Option<StartCard>,
    /// The card played, if any.
    pub card: Option<CardRef>,
    /// A continuing effect cited: the act that stated it.
    pub cite: Option<u32>,
    /// What happens on the board, in order.
    pub edits: Vec<Edit>,
    /// Turns and answers the stated effect lasts (0: it does not continue).
    pub lasting: u32,
    /// The player's words: the card's effect as he reads it.
    pub note: String,
}

impl Claim {
    /// The moves among the edits, as chess moves (what an interception compares).
    pub fn moves(&self) -> Vec<Move> {
        self.edits
            .iter()
            .filter_map(|e| match *e {
                Edit::Move {
                    from,
                    to,
                    promotion,
                } => WireMove {
                    from,
                    to,
                    promotion,
                }
                .to_move()
                .ok(),
                _ => None,
            })
            .collect()
    }
}

/// How an intercepted player answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    /// Cancel the intercepting card with a response card: the turn stands as made.
    Cancel {
        /// The cancelling card.
        card: CardUse,
    },
    /// Make another play instead of the intercepted one.
    Replay {
        /// The card, if any (after a cancel, none).
        card: Option<CardUse>,
        /// The chess moves.
        moves: Vec<WireMove>,
    },
    /// After a `replace-move` interception of the first part of a double move: one
    /// plain move, and the double-move card goes back to the hand, publicly (the
    /// seed's card 18: "now the opponent knows you have this card"). It is played
    /// later as [`CardRef::Taken`].
    Keep {
        /// The plain move (exactly one).
        moves: Vec<WireMove>,
    },
    /// Physical deck: another play, its board part stated (a card of the hand, or the
    /// intercepted turn's card again with `CardRef::Again`).
    Claimed(Claim),
}

impl CardUse {
    /// A card use with these parameters.
    pub fn new(card: CardRef, params: &Params) -> CardUse {
        CardUse {
            card,
            squares: params.squares.iter().map(|s| s.index()).collect(),
            kind: params.kind.map(|k| k.idx() as u8),
        }
    }

    /// The parameters, checked to be squares and a kind.
    pub fn params(&self) -> Result<Params, ActError> {
        if self.squares.len() > 4 {
            return Err(ActError::TooManySquares);
        }
        Ok(Params {
            squares: self
                .squares
                .iter()
                .map(|&s| square_at(s))
                .collect::<Result<_, _>>()?,
            kind: self.kind.map(kind_at).transpose()?,
        })
    }
}

/// Why an act's card parameters or moves are not what a play may carry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ActError {
    /// More than four squares named.
    #[error("a card names at most four squares")]
    TooManySquares,
    /// More than two moves.
    #[error("a play makes at most two moves")]
    TooManyMoves,
    /// An index that is no square or no kind.
    #[error(transparent)]
    Wire(#[from] WireError),
}

/// The moves of an act, checked to be squares and kinds.
pub fn moves(wire: &[WireMove]) -> Result<Vec<Move>, ActError> {
    if wire.len() > 2 {
        return Err(ActError::TooManyMoves);
    }
    Ok(wire.iter().map(|m| m.to_move()).collect::<Result<_, _>>()?)
}
