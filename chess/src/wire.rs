//! The wire form of a chess move, and serde helpers for the board's own types.
//!
//! Every game that sends a chess move sends it one way: [`WireMove`], the from-square's
//! index (a1 = 0 … h8 = 63), the target's, and an optional promotion as an index in
//! [`Kind::ALL`] (pawn = 0 … king = 5). In postcard that is one byte, one byte, then
//! `00` or `01 k`. The move carries bytes, not checked squares, so that a game decides
//! where an out-of-range index is refused: Tempête refuses it as an illegal act when it
//! plays the move (spec/GAMES.md §4.6.2), Secret Stallmate refuses it when it decodes
//! the attempt ([`WireMove::squares`] through serde's `try_from`).
//!
//! The helper modules write a [`Square`] as its index, an optional [`Kind`] as an
//! optional index and a [`Color`] as 0 (White) or 1 (Black), for `#[serde(with = …)]`;
//! reading refuses any number out of range, so a decoded value is always a real square,
//! kind or colour.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::moves::{Move, MoveKind};
use super::piece::{Color, Kind};
use super::square::Square;

/// A chess move on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WireMove {
    /// From square index.
    pub from: u8,
    /// To square index.
    pub to: u8,
    /// Promotion kind index.
    pub promotion: Option<u8>,
}

/// A wire move whose bytes name no square or no kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// An index of 64 or more.
    #[error("{0} is not a square")]
    Square(u8),
    /// A kind index of 6 or more.
    #[error("{0} is not a piece kind")]
    Kind(u8),
}

impl WireMove {
    /// The wire form of a move.
    pub fn of(m: &Move) -> WireMove {
        WireMove::new(m.from, m.to, m.promotion)
    }

    /// The wire form of two squares and a promotion.
    pub fn new(from: Square, to: Square, promotion: Option<Kind>) -> WireMove {
        WireMove {
            from: from.index(),
            to: to.index(),
            promotion: promotion.map(|k| k.idx() as u8),
        }
    }

    /// The squares and promotion named, checked.
    pub fn squares(self) -> Result<(Square, Square, Option<Kind>), WireError> {
        Ok((
            square_at(self.from)?,
            square_at(self.to)?,
            self.promotion.map(kind_at).transpose()?,
        ))
    }

    /// The move named: from, to and promotion (the board decides its kind).
    pub fn to_move(self) -> Result<Move, WireError> {
        let (from, to, promotion) = self.squares()?;
        Ok(Move {
            from,
            to,
            promotion,
            kind: MoveKind::Normal,
        })
    }
}

/// The square with index `i`.
pub fn square_at(i: u8) -> Result<Square, WireError> {
    Square::from_index(i).ok_or(WireError::Square(i))
}

/// The kind with index `i` in [`Kind::ALL`].
pub fn kind_at(i: u8) -> Result<Kind, WireError> {
    Kind::ALL
        .get(usize::from(i))
        .copied()
        .ok_or(WireError::Kind(i))
}

/// A [`Square`] as its index.
pub mod square {
    use super::*;

    /// Writes the index.
    pub fn serialize<S: Serializer>(sq: &Square, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(sq.index())
    }

    /// Reads an index below 64.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        let i = u8::deserialize(d)?;
        Square::from_index(i).ok_or_else(|| D::Error::custom("a square index is below 64"))
    }
}

/// An optional [`Kind`] as an optional index.
pub mod kind_opt {
    use super::*;

    /// Writes the optional index.
    pub fn serialize<S: Serializer>(k: &Option<Kind>, s: S) -> Result<S::Ok, S::Error> {
        k.map(|k| k.idx() as u8).serialize(s)
    }

    /// Reads an optional index below 6.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Kind>, D::Error> {
        match Option::<u8>::deserialize(d)? {
            None => Ok(None),
            Some(i) => kind_at(i)
                .map(Some)
                .map_err(|_| D::Error::custom("a kind index is below 6")),
        }
    }
}

/// A [`Color`] as 0 (White) or 1 (Black).
pub mod color {
    use super::*;

    /// Writes 0 or 1.
    pub fn serialize<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(c.idx() as u8)
    }

    /// Reads 0 or 1.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        match u8::deserialize(d)? {
            0 => Ok(Color::White),
            1 => Ok(Color::Black),
            _ => Err(D::Error::custom("a colour is 0 (white) or 1 (black)")),
        }
    }
}
