//! The acts open to a seat, as a board a person clicks needs them.
//!
//! A front end draws the board and lets the player pick an act by clicking, without
//! knowing the game's rules: every act open now is one [`Choice`], with the square its
//! piece leaves and the square it reaches (in the game's own square names, as the board
//! shows them), what it is in words, and the text it is typed as — which the table's
//! `command` reads back as exactly that act. The legal targets of a selected piece
//! are the `to` of the choices whose `from` is that square; two choices on the same
//! squares (a promotion, a card played with the move) are told apart by their words.
//! An act that needs one more word the list cannot spell out (the square a trap seals,
//! the cards a redraw discards, the play a start card is followed by) carries an
//! [`Ask`], and its text a `{}` where the answer goes.
//!
//! Many acts on the same squares may differ only in what a card then names (Tempête's
//! Hoarfrost played with g1-f3 freezes any one of fifteen enemy pieces): their `words`
//! are the same, and their [`Named`] list says what differs, in the order a person is
//! asked it — so a board asks one question at a time (which piece it freezes), each
//! answer named by what it is, never fifteen buttons with the same words.
//!
//! What tells look-alike acts apart is their `names` (the piece a card freezes, what a
//! pawn becomes), asked one question at a time by the board (`web/assets/board.js`).
//! `tests/tests/table/checks.rs` checks on every bot game of every variant that acts on
//! the same squares in the same words differ in what they name;
//! `web/tests/browser/asks.rs` plays a freezing card.

use serde::{Deserialize, Serialize};

/// One act the seat may make now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// What the act names besides its squares (a card's target, a promotion's piece),
    /// in the order a person is asked it; empty for most acts.
    pub names: Vec<Named>,
    /// The generic command this button is (resign, offer draw, …), sent as that value
    /// and not as its words; absent for the game's own acts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generic: Option<super::Generic>,
    /// The card the act plays, by its number (Tempête), so that a board tells the
    /// squares a card alone reaches from a plain move's; absent for an act that plays
    /// none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<u32>,
}

/// One thing an act names, as a question and its answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    /// The question, in the game's words: `the enemy piece it freezes`.
    pub what: String,
    /// The answer when it is a square of the board (as the grid names it), to be
    /// clicked there.
    pub square: Option<String>,
    /// The answer in words: `d7`, `queen`.
    pub words: String,
}

impl Named {
    /// A square of the board, for the reason `what`.
    pub fn square(what: impl Into<String>, square: impl ToString) -> Named {
        let square = square.to_string();
        Named {
            what: what.into(),
            words: square.clone(),
            square: Some(square),
        }
    }

    /// Something named in words (a piece kind), for the reason `what`.
    pub fn word(what: impl Into<String>, words: impl Into<String>) -> Named {
        Named {
            what: what.into(),
            square: None,
            words: words.into(),
        }
    }
}

/// What a choice still asks of the player before it can be sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
            names: vec![],
            generic: None,
            card: None,
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
            names: vec![],
            generic: None,
            card: None,
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
            names: vec![],
            generic: None,
            card: None,
        }
    }

    /// The button of a generic command.
    pub fn generic(g: super::Generic) -> Choice {
        Choice {
            generic: Some(g),
            ..Choice::button(g.words(), g.words())
        }
    }

    /// This choice, asking one more thing.
    pub fn asking(self, ask: Ask) -> Choice {
        Choice {
            ask: Some(ask),
            ..self
        }
    }

    /// This choice, naming these things besides its squares.
    pub fn naming(self, names: Vec<Named>) -> Choice {
        Choice { names, ..self }
    }

    /// This choice, playing card `number`.
    pub fn playing(self, number: u32) -> Choice {
        Choice {
            card: Some(number),
            ..self
        }
    }
}
