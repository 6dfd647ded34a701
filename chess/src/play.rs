//! Making moves: each returns a new [`Position`] and leaves the old one untouched, so a
//! caller (a card engine trying an effect, a verifier replaying) never has to undo.
//!
//! `play` checks legality and `play_unchecked` trusts the caller: a caller that has
//! already checked a move (a verifier replaying accepted acts) does not pay twice. The `_keep_turn` forms make a move without handing the turn
//! over, for cards that give one side two moves in a row; between the two, the side not
//! to move may well be in check, which [`Position`] allows.

use super::castling::CastleSide;
use super::moves::{Move, MoveKind};
use super::piece::{Color, Kind, Piece};
use super::position::Position;
use super::square::Square;

/// A move that is not legal in the position it was played in.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{mv} is not a legal move in {fen}")]
pub struct IllegalMove {
    /// The move.
    pub mv: Move,
    /// The position, as FEN.
    pub fen: String,
}

impl Position {
    /// Plays a legal move of the side to move; the other side is then to move.
    pub fn play(&self, mv: &Move) -> Result<Position, IllegalMove> {
        self.check_legal(mv)?;
        Ok(self.apply(mv, true))
    }

    /// Plays a legal move of the side to move and keeps the turn: the same side moves
    /// again. The en passant chance a double step would open lapses, since the opponent
    /// does not reply at once.
    pub fn play_keep_turn(&self, mv: &Move) -> Result<Position, IllegalMove> {
        self.check_legal(mv)?;
        Ok(self.apply(mv, false))
    }

    /// Plays `mv` without checking it; the other side is then to move. For moves the
    /// caller generated (including [`Position::legal_moves_as`]). It never panics: a move
    /// from an empty square only passes the turn, and anything else is carried out as
    /// written.
    pub fn play_unchecked(&self, mv: &Move) -> Position {
        self.apply(mv, true)
    }

    /// [`Position::play_unchecked`] keeping the turn, like [`Position::play_keep_turn`].
    pub fn play_unchecked_keep_turn(&self, mv: &Move) -> Position {
        self.apply(mv, false)
    }

    fn check_legal(&self, mv: &Move) -> Result<(), IllegalMove> {
        if self.is_legal(mv) {
            Ok(())
        } else {
            Err(IllegalMove {
                mv: *mv,
                fen: self.fen(),
            })
        }
    }

    /// Carries out `mv` on a copy. The mover is whoever owns the piece on `from`, so a
    /// careless caller gets a consistent position, never a panic.
    pub(super) fn apply(&self, mv: &Move, pass_turn: bool) -> Position {
        let mut next = self.clone();
        next.en_passant = None;
        if pass_turn {
            if self.turn == Color::Black {
                next.fullmove_number = next.fullmove_number.saturating_add(1);
            }
            next.turn = !self.turn;
        }
        let Some(piece) = self.piece_at(mv.from) else {
            return next;
        };
        let us = piece.color;
        let mut reset_clock = piece.kind == Kind::Pawn;
        match mv.kind {
            MoveKind::Castle(side) => {
                let rank = mv.from.rank();
                let rook = self.piece_at(mv.to);
                next.set_square(mv.from, None);
                next.set_square(mv.to, None);
                next.set_square(Square::new(side.king_target(), rank), Some(piece));
                if let Some(rook) = rook {
                    next.set_square(Square::new(side.rook_target(), rank), Some(rook));
                }
            }
            MoveKind::Normal | MoveKind::DoubleStep | MoveKind::EnPassant => {
                if self.piece_at(mv.to).is_some() {
                    reset_clock = true;
                }
                if mv.kind == MoveKind::EnPassant {
                    next.set_square(Square::new(mv.to.file(), mv.from.rank()), None);
                    reset_clock = true;
                }
                let landed = Piece::new(us, mv.promotion.unwrap_or(piece.kind));
                next.set_square(mv.from, None);
                next.set_square(mv.to, Some(landed));
                if mv.kind == MoveKind::DoubleStep && pass_turn {
                    let mid = (mv.from.index() + mv.to.index()) / 2;
                    next.en_passant = Square::from_index(mid);
                }
            }
        }
        next.halfmove_clock = if reset_clock {
            0
        } else {
            self.halfmove_clock.saturating_add(1)
        };
        // A king that moves (castling included) gives up castling; a rook that moves or
        // is taken gives up its own right. The rest is caught by the general re-check.
        if piece.kind == Kind::King {
            next.castling.clear(us);
        }
        for color in Color::ALL {
            for side in CastleSide::ALL {
                if let Some(file) = next.castling.rook(color, side) {
                    let rook = Square::new(file, color.back_rank());
                    if rook == mv.from || rook == mv.to {
                        next.castling.set(color, side, None);
                    }
                }
            }
        }
        next.drop_stale_rights();
        next
    }
}
