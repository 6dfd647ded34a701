//! The acts open to a seat, as a board a person clicks needs them.
//!
//! A front end draws the board and lets the player pick an act by clicking, without
//! knowing the game's rules: every act open now is one [`Choice`], with the square its
//! piece leaves and the square it reaches (in the game's own square names, as the board
//! shows them), what it is in words, and the text it is typed as — which the table's
//! `parse_action` reads back as exactly that act. The legal targets of a selected piece
//! are the `to` of the choices whose `from` is that square; two choices on the same
//! squares (a promotion, a card played with the move) are told apart by their words.
//! An act that needs one more word the list cannot spell out (the square a trap seals,
//! the cards a redraw discards, the play a start card is followed by) carries an
//! [`Ask`], and its text a `{}` where the answer goes.

use serde::Serialize;

/// One act the seat may make now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// The square clicked first, if the act starts from one.
    pub from: Option<String>,
    /// The square clicked next (where the piece goes, or is placed), if any.
    pub to: Option<String>,
    /// What the act is, in the game's words: a button's label, or the prompt that tells
    /// apart acts on the same squares.
    pub words: String,
    /// The act as typed; `{}` marks where the answer to `ask` goes.
    pub text: String,
    /// The one more thing the act needs from the player, if any.
    pub ask: Option<Ask>,
}

/// What a choice still asks of the player before it can be sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ask {
    /// A square of the board, clicked, for the reason given.
    Square {
        /// What the square is for.
        why: String,
    },
    /// This many cards of the hand, by number, space-separated.
    Cards {
        /// How many.
        count: u8,
        /// What they are for.
        why: String,
    },
    /// One of the choices the seat would have without this one (its text): a start
    /// card is followed by the turn's play.
    Play,
}

impl Choice {
    /// A move from one square to another.
    pub fn shift(from: impl ToString, to: impl ToString, words: String, text: String) -> Choice {
        Choice {
            from: Some(from.to_string()),
            to: Some(to.to_string()),
            words,
            text,
            ask: None,
        }
    }

    /// An act on one square (a placement).
    pub fn onto(to: impl ToString, words: String, text: String) -> Choice {
        Choice {
            from: None,
            to: Some(to.to_string()),
            words,
            text,
            ask: None,
        }
    }

    /// An act on no square: a button.
    pub fn button(words: impl Into<String>, text: impl Into<String>) -> Choice {
        Choice {
            from: None,
            to: None,
            words: words.into(),
            text: text.into(),
            ask: None,
        }
    }

    /// This choice, asking one more thing.
    pub fn asking(self, ask: Ask) -> Choice {
        Choice {
            ask: Some(ask),
            ..self
        }
    }
}
