//! How the chess board's own types go on the wire inside Stallmate's serde types.
//!
//! The board (`crate::chess`) has no serde derives of its own, and this folder does not
//! change it; these `#[serde(with = …)]` helpers write a square as its index a1 = 0 …
//! h8 = 63, a kind as its index in [`Kind::ALL`] (pawn = 0 … king = 5) and a colour as
//! 0 (White) or 1 (Black). Reading refuses any number out of range, so a decoded value
//! is always a real square, kind or colour (parse, don't validate).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::chess::{Color, Kind, Square};

/// A [`Square`] as its index.
pub(crate) mod square {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(sq: &Square, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(sq.index())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        let i = u8::deserialize(d)?;
        Square::from_index(i).ok_or_else(|| D::Error::custom("a square index is below 64"))
    }
}

/// An optional [`Kind`] as an optional index.
pub(crate) mod kind_opt {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(k: &Option<Kind>, s: S) -> Result<S::Ok, S::Error> {
        k.map(|k| k.idx() as u8).serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Kind>, D::Error> {
        match Option::<u8>::deserialize(d)? {
            None => Ok(None),
            Some(i) => Kind::ALL
                .get(usize::from(i))
                .copied()
                .map(Some)
                .ok_or_else(|| D::Error::custom("a kind index is below 6")),
        }
    }
}

/// A [`Color`] as 0 (White) or 1 (Black).
pub(crate) mod color {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(c.idx() as u8)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        match u8::deserialize(d)? {
            0 => Ok(Color::White),
            1 => Ok(Color::Black),
            _ => Err(D::Error::custom("a colour is 0 (white) or 1 (black)")),
        }
    }
}
