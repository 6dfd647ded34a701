//! Standard Algebraic Notation, written and read against a position.
//!
//! Writing gives the form PGN expects: `O-O`/`O-O-O`, the piece letter, the minimal
//! disambiguation (file if that suffices, else rank, else both), `x` for captures, the
//! pawn's file on pawn captures, `=Q` for promotions, and `+` or `#`.
//!
//! Reading is tolerant of what people write: `0-0` for castling, `e8Q` without `=`,
//! over-disambiguation (`Ngf3`, `Qh4e1`), a missing `x`, `e.p.` after an en passant
//! capture, and trailing `+`, `#`, `!` and `?`, which are ignored (a check mark names no
//! move, and a wrong one in a hand-written score should not make a legal move
//! unreadable). What it does not do is guess: text that matches no legal move is
//! [`SanError::Illegal`], text that matches several is [`SanError::Ambiguous`], and text
//! that does not fit the grammar is [`SanError::Malformed`]. It never panics on any
//! input.
//!
//! The text itself is read and printed by [`MoveText`], the one grammar of move text;
//! this file gives it meaning on a position. [`Position::san_among`] and
//! [`Position::find_move`] take the candidate moves and the capture test as arguments,
//! so a variant whose moves are not chess's (Tempête's continuing effects) writes and
//! reads its moves with the same code.

use super::moves::{Move, MoveKind};
use super::piece::Kind;
use super::play::IllegalMove;
use super::position::Position;
use super::text::{Malformed, MoveText, PieceText};

/// Why a SAN text names no move in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SanError {
    /// The text does not fit the SAN grammar.
    #[error("{san:?} is not SAN: {reason}")]
    Malformed {
        /// The text read.
        san: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The text is SAN, but no legal move fits it.
    #[error("{san:?} names no legal move here")]
    Illegal {
        /// The text read.
        san: String,
    },
    /// The text fits more than one legal move.
    #[error("{san:?} is ambiguous: it fits {} legal moves", candidates.len())]
    Ambiguous {
        /// The text read.
        san: String,
        /// Every legal move it fits.
        candidates: Vec<Move>,
    },
}

impl Position {
    /// The SAN of a legal move, with `+` or `#` when it checks or mates.
    pub fn san(&self, mv: &Move) -> Result<String, IllegalMove> {
        let legal = self.legal_moves();
        if !legal.contains(mv) {
            return Err(IllegalMove {
                mv: *mv,
                fen: self.fen(),
            });
        }
        let mut out = self
            .san_among(mv, &legal, |m| self.is_capture(m))
            .to_string();
        let after = self.play_unchecked(mv);
        if after.is_check() {
            out.push(if after.legal_moves().is_empty() {
                '#'
            } else {
                '+'
            });
        }
        Ok(out)
    }

    /// Reads a SAN move.
    pub fn parse_san(&self, san: &str) -> Result<Move, SanError> {
        let text = MoveText::read(san)
            .and_then(|t| t.san_form().map(|()| t))
            .map_err(|Malformed(reason)| SanError::Malformed {
                san: san.to_owned(),
                reason,
            })?;
        self.find_move(san, &text, &self.legal_moves(), |m| self.is_capture(m))
    }

    /// The one move among `moves` that `text` names, `capture` saying which take a
    /// piece; `written` is the text as read, for the error.
    pub fn find_move(
        &self,
        written: &str,
        text: &MoveText,
        moves: &[Move],
        capture: impl Fn(&Move) -> bool,
    ) -> Result<Move, SanError> {
        let candidates: Vec<Move> = moves
            .iter()
            .filter(|m| text.fits(self, m, capture(m)))
            .copied()
            .collect();
        match candidates.len() {
            0 => Err(SanError::Illegal {
                san: written.to_owned(),
            }),
            1 => Ok(candidates[0]),
            _ => Err(SanError::Ambiguous {
                san: written.to_owned(),
                candidates,
            }),
        }
    }

    fn is_capture(&self, mv: &Move) -> bool {
        mv.kind == MoveKind::EnPassant || (mv.castle_side().is_none() && self.occupied().has(mv.to))
    }

    /// The SAN of `mv` without a check mark, told apart from the other moves of
    /// `among` with the least disambiguation: none if the text fits no other move, else
    /// the file if that suffices, else the rank, else the square. A pawn names its file
    /// when it captures (and never its rank alone). `capture` says which moves take a
    /// piece. Each form is tried by reading it against `among`, so a variant whose
    /// pieces move in ways chess's do not gets text that reads back all the same.
    pub fn san_among(
        &self,
        mv: &Move,
        among: &[Move],
        capture: impl Fn(&Move) -> bool,
    ) -> MoveText {
        if let Some(side) = mv.castle_side() {
            return MoveText::Castle(side);
        }
        let kind = self.piece_at(mv.from).map_or(Kind::Pawn, |p| p.kind);
        let pawn = kind == Kind::Pawn;
        let takes = capture(mv);
        let text = |file: bool, rank: bool| {
            MoveText::Piece(PieceText {
                letter: (!pawn).then_some(kind),
                file: file.then(|| mv.from.file()),
                rank: rank.then(|| mv.from.rank()),
                capture: takes,
                dash: false,
                to: mv.to,
                promotion: mv.promotion,
                en_passant: false,
            })
        };
        let unique = |t: &MoveText| {
            t.fits(self, mv, takes) && !among.iter().any(|m| m != mv && t.fits(self, m, capture(m)))
        };
        let forms: &[(bool, bool)] = if pawn && takes {
            &[(true, false)]
        } else if pawn {
            &[(false, false), (true, false)]
        } else {
            &[(false, false), (true, false), (false, true)]
        };
        forms
            .iter()
            .map(|&(file, rank)| text(file, rank))
            .find(unique)
            .unwrap_or_else(|| text(true, true))
    }
}
