//! The public state of a game of Tempête: what every seat and every verifier replays.
//! Hands are secret, so the state keeps only what is public about them: how many cards
//! each holds, and which cards taken from the opponent (card 34) or kept after an
//! interception (card 18's option) are among them.

use crate::chess::{Color, Move};
use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::Outcome;

use super::board::Board;
use super::card::{FlowEffect, TrapEffect};
use super::effects::Params;
use super::physical::{Claims, Edit};

/// White is seat 0, the proposer.
pub fn seat(c: Color) -> Seat {
    match c {
        Color::White => Seat(0),
        Color::Black => Seat(1),
    }
}

/// The colour a seat plays.
pub fn color(s: Seat) -> Color {
    if s.0 == 0 { Color::White } else { Color::Black }
}

/// What is public about one player's hand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hand {
    /// Cards held (dealt or owed, granted, taken), less those played or discarded.
    pub size: u32,
    /// Cards whose number both players know to be in this hand, not played yet: taken
    /// from the opponent with card 34, or a double-move card kept after an interception
    /// (`Answer::Keep`). Such a card is played by number, not by a slot: its slot, if
    /// any, was spent when it was opened.
    pub taken: Vec<u32>,
    /// Cards the opponent played since this player's last turn began: what card 34 may
    /// take.
    pub takeable: Vec<u32>,
    /// The trap kinds this player sealed, in commitment order (the squares are secret).
    pub traps: Vec<TrapEffect>,
    /// How many of them have sprung (a commitment opens once, so each at most once).
    pub sprung: u32,
    /// Slots of this player's deck given so far, by deals owed or grants.
    pub given: u32,
}

/// A turn that the opponent may still intercept, or has intercepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnMade {
    /// The board before the turn's play (after its start card).
    pub before: Board,
    /// The number of the card played with the move, if any.
    pub card: Option<u32>,
    /// Its parameters.
    pub params: Params,
    /// The moves made.
    pub moves: Vec<Move>,
    /// Physical deck: the stated edits of a claimed turn (empty otherwise); a cancel
    /// that voids the interception carries them out again.
    pub edits: Vec<Edit>,
}

/// What the side to act may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// A turn (or yielding); `Some` when the opponent's last turn may be intercepted
    /// instead.
    Turn(Option<TurnMade>),
    /// An answer to the interception of this player's turn.
    Answer {
        /// The intercepted turn.
        turn: TurnMade,
        /// What the interception does.
        by: FlowEffect,
        /// Whether the interception hit the second move of a double move
        /// (`Act::InterceptSecond`) rather than the whole turn.
        second: bool,
    },
}

/// The public state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// The board, with the continuing effects; sealed trap squares are not on it until
    /// their owner opens them.
    pub board: Board,
    /// Who acts.
    pub to_act: Color,
    /// What that side may do.
    pub pending: Pending,
    /// Both hands, White's first.
    pub hands: [Hand; 2],
    /// Turns and answers played (the ply limit counts them).
    pub plies: u32,
    /// Set when the game is over.
    pub end: Option<Outcome>,
    /// Physical deck: the claims, disputes and continuing effects (empty otherwise).
    pub claims: Claims,
    /// The side whose next act must show its whole hand to the other (a show-hand
    /// card was played against it), if any.
    pub owes_show: Option<Color>,
}

impl State {
    /// One side's hand.
    pub fn hand(&self, c: Color) -> &Hand {
        &self.hands[c.idx()]
    }

    /// One side's hand, to change.
    pub fn hand_mut(&mut self, c: Color) -> &mut Hand {
        &mut self.hands[c.idx()]
    }
}
