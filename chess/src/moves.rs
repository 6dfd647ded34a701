//! A move: from, to, what it promotes to, and what kind of move it is.
//!
//! Castling is written as the king taking its own rook (from = king square, to = rook
//! square), as Chess960 UCI does: that names the move without ambiguity even where the
//! king does not move (king already on g1) or where the king's target holds the rook.

use std::fmt;

use super::castling::CastleSide;
use super::piece::Kind;
use super::square::Square;

/// What a move does besides taking the piece from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A plain move or capture (including promotions).
    Normal,
    /// A pawn's two-square advance, which opens en passant for the reply.
    DoubleStep,
    /// A pawn capture en passant: the captured pawn is beside `from`, not on `to`.
    EnPassant,
    /// Castling; `from` is the king's square and `to` the castling rook's.
    Castle(CastleSide),
}

/// A move of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square the moving piece leaves (the king's, for castling).
    pub from: Square,
    /// The square it reaches (the castling rook's, for castling).
    pub to: Square,
    /// The kind a pawn becomes on reaching the last rank.
    pub promotion: Option<Kind>,
    /// Castling, en passant, double step or normal.
    pub kind: MoveKind,
}

impl Move {
    /// A normal move without promotion.
    pub const fn normal(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            promotion: None,
            kind: MoveKind::Normal,
        }
    }

    /// Whether this is castling, and to which side.
    pub const fn castle_side(&self) -> Option<CastleSide> {
        match self.kind {
            MoveKind::Castle(side) => Some(side),
            _ => None,
        }
    }

    /// The move in Chess960 UCI notation: `e2e4`, `e7e8q`, castling as king-takes-rook
    /// (`e1h1`).
    pub fn uci(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(kind) = self.promotion {
            write!(f, "{}", kind.upper().to_ascii_lowercase())?;
        }
        Ok(())
    }
}
