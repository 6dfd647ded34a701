//! What a mover says to the referee: a move by its squares, or "Any?".
//!
//! A move is named by squares, not SAN, because most attempts are illegal and SAN only
//! names legal moves. Castling is the king taking its own castling rook (`e1-h1`), as
//! Chess960 UCI writes it: with two individual Chess960 armies that is the one form
//! that always names the castling meant (a king stepping onto g1 could be a plain move).
//!
//! Text: `e2-e4`, `e7-e8=Q`, `e1-h1`, `any?`. The reader also takes `e2e4`, `e7e8q`,
//! `any` and either case; it never panics.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::chess::{Kind, Square};

use super::wire;

/// One attempt in a move period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Attempt {
    /// A move of one of the mover's pieces.
    Move {
        /// The square the piece leaves (the king's, for castling).
        #[serde(with = "wire::square")]
        from: Square,
        /// The square it goes to (the castling rook's, for castling).
        #[serde(with = "wire::square")]
        to: Square,
        /// What a pawn reaching the last rank becomes; required there, refused elsewhere.
        #[serde(with = "wire::kind_opt")]
        promotion: Option<Kind>,
    },
    /// "Any?": has the mover a legal pawn capture?
    Any,
}

/// Text that names no attempt.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an attempt (a move like e2-e4 or e7-e8=Q, or any?)")]
pub struct BadAttempt(pub String);

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
        match self {
            Attempt::Any => f.write_str("any?"),
            Attempt::Move {
                from,
                to,
                promotion,
            } => {
                write!(f, "{from}-{to}")?;
                if let Some(k) = promotion {
                    write!(f, "={}", k.upper())?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for Attempt {
    type Err = BadAttempt;

    fn from_str(text: &str) -> Result<Attempt, BadAttempt> {
        let bad = || BadAttempt(text.to_owned());
        let s = text.trim().to_ascii_lowercase();
        if s == "any?" || s == "any" {
            return Ok(Attempt::Any);
        }
        let b = s.as_bytes();
        if !s.is_ascii() || b.len() < 4 || b.len() > 7 {
            return Err(bad());
        }
        let square = |i: usize| -> Option<Square> { s.get(i..i + 2)?.parse().ok() };
        let from = square(0).ok_or_else(bad)?;
        let mut i = 2;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let to = square(i).ok_or_else(bad)?;
        i += 2;
        if b.get(i) == Some(&b'=') {
            i += 1;
        }
        let promotion = match b.get(i) {
            None if b.get(i - 1) != Some(&b'=') => None,
            Some(&c) if i + 1 == b.len() => Some(Kind::from_char(char::from(c)).ok_or_else(bad)?),
            _ => return Err(bad()),
        };
        Ok(Attempt::Move {
            from,
            to,
            promotion,
        })
    }
}
