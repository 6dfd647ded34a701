//! What a mover says to the referee: a move by its squares, or "Any?".
//!
//! A move is named by squares, not SAN, because most attempts are illegal and SAN only
//! names legal moves. Castling is the king taking its own castling rook (`e1-h1`), as
//! Chess960 UCI writes it: with two individual Chess960 armies that is the one form
//! that always names the castling meant (a king stepping onto g1 could be a plain move).
//!
//! Text: `e2-e4`, `e7-e8=Q`, `e1-h1`, `any?`. The reader also takes `e2e4`, `e7e8q`,
//! `any` and either case; it never panics. The text is read and written by the chess
//! crate's one grammar of move text (`MoveText`), of which an attempt takes the forms
//! that name both squares and no piece.
//!
//! On the wire a move attempt is the chess crate's `WireMove`, the one form every game
//! sends a move in; an index that is no square or kind is refused when decoding.
//!
//! Why a table refuses a mover's attempt (its words, or not his attempt now), in either
//! Secret Stallmate: [`AttemptRefused`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::chess::wire::{WireError, WireMove};
use crate::chess::{Kind, MoveText, Square};

/// One attempt in a move period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "OnWire", into = "OnWire")]
pub enum Attempt {
    /// A move of one of the mover's pieces.
    Move {
        /// The square the piece leaves (the king's, for castling).
        from: Square,
        /// The square it goes to (the castling rook's, for castling).
        to: Square,
        /// What a pawn reaching the last rank becomes; required there, refused elsewhere.
        promotion: Option<Kind>,
    },
    /// "Any?": has the mover a legal pawn capture?
    Any,
}

/// An attempt as postcard writes it: variant 0 with the move's three fields, or 1.
#[derive(Serialize, Deserialize)]
enum OnWire {
    Move(WireMove),
    Any,
}

impl TryFrom<OnWire> for Attempt {
    type Error = WireError;

    fn try_from(w: OnWire) -> Result<Attempt, WireError> {
        Ok(match w {
            OnWire::Move(m) => {
                let (from, to, promotion) = m.squares()?;
                Attempt::Move {
                    from,
                    to,
                    promotion,
                }
            }
            OnWire::Any => Attempt::Any,
        })
    }
}

impl From<Attempt> for OnWire {
    fn from(a: Attempt) -> OnWire {
        match a {
            Attempt::Move {
                from,
                to,
                promotion,
            } => OnWire::Move(WireMove::new(from, to, promotion)),
            Attempt::Any => OnWire::Any,
        }
    }
}

/// Text that names no attempt.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an attempt (a move like e2-e4 or e7-e8=Q, or any?)")]
pub struct BadAttempt(pub String);

/// Why a table refuses a mover's attempt, with a referee or without one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AttemptRefused {
    /// The words name no attempt.
    #[error(transparent)]
    Unreadable(#[from] BadAttempt),
    /// The referee has not answered the last attempt yet.
    #[error("not your attempt now: wait for the referee")]
    WaitForReferee,
    /// The two players' computation of the last attempt is running.
    #[error("not your attempt now: the computation is running")]
    ComputationRunning,
    /// This seat's engine seed, which its attempts are committed with, is not known yet.
    #[error("your engine seed is not known yet")]
    SeedUnknown,
}

impl Attempt {
    /// A move without promotion.
    pub const fn go(from: Square, to: Square) -> Attempt {
        Attempt::Move {
            from,
            to,
            promotion: None,
        }
    }

    /// The squares and promotion of a move attempt.
    pub fn squares(&self) -> Option<(Square, Square, Option<Kind>)> {
        match *self {
            Attempt::Move {
                from,
                to,
                promotion,
            } => Some((from, to, promotion)),
            Attempt::Any => None,
        }
    }
}

impl fmt::Display for Attempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Attempt::Any => f.write_str("any?"),
            Attempt::Move {
                from,
                to,
                promotion,
            } => MoveText::long(None, from, to, false, promotion).fmt(f),
        }
    }
}

impl FromStr for Attempt {
    type Err = BadAttempt;

    fn from_str(text: &str) -> Result<Attempt, BadAttempt> {
        let s = text.trim().to_ascii_lowercase();
        if s == "any?" || s == "any" {
            return Ok(Attempt::Any);
        }
        match MoveText::read(&s).map(|t| (t.letter(), t.squares())) {
            Ok((None, Some((from, to, promotion)))) => Ok(Attempt::Move {
                from,
                to,
                promotion,
            }),
            _ => Err(BadAttempt(text.to_owned())),
        }
    }
}
