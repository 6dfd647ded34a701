//! Move generation: pseudo-legal moves, legal moves, and the narrower generators card
//! effects need (one piece's moves; a piece moving as another kind).
//!
//! Legality is defined so that it still means something on the positions cards create:
//! **a move is legal if, after it, no king of the mover is attacked.** With several
//! kings, all must be safe; with none, every pseudo-legal move is legal. The check is
//! done the plain way (make the move on a copy, look at the kings) rather than with pin
//! masks, because pin reasoning assumes exactly one king and breaks on card positions;
//! making the move also covers the en passant capture that uncovers a rank attack on
//! the king, with no special case.
//!
//! Castling is generated only when the side has exactly one king on its back rank and
//! the right's rook is there; then, as in Chess960: every square between the king and
//! its target, and between the rook and its target, is empty except for that king and
//! rook; the king is not in check and crosses or lands on no attacked square.

use super::attacks;
use super::bitboard::Bitboard;
use super::castling::CastleSide;
use super::moves::{Move, MoveKind};
use super::piece::{Color, Kind, Piece};
use super::position::Position;
use super::square::Square;

impl Position {
    /// Every pseudo-legal move of the side to move: moves that follow how the pieces
    /// move, without asking whether they leave a king attacked. Castling is included only
    /// when its own conditions (empty path, king not in check and not crossing attacked
    /// squares) hold.
    pub fn pseudo_legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(64);
        for from in self.color_squares(self.turn) {
            if let Some(piece) = self.piece_at(from) {
                self.gen_piece(from, piece, piece.kind, true, &mut out);
            }
        }
        out
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = self.pseudo_legal_moves();
        moves.retain(|m| self.is_safe(m));
        moves
    }

    /// The legal moves of the piece on `from` only (none if it is empty or not the side
    /// to move's), castling included for a king.
    pub fn legal_moves_from(&self, from: Square) -> Vec<Move> {
        let mut out = Vec::new();
        if let Some(piece) = self.piece_at(from).filter(|p| p.color == self.turn) {
            self.gen_piece(from, piece, piece.kind, true, &mut out);
        }
        out.retain(|m| self.is_safe(m));
        out
    }

    /// The moves of the piece on `from` if it moved as a `kind` this turn (a card's
    /// "moves as a knight"), that leave no king of the mover attacked.
    ///
    /// The piece keeps its own kind when it lands. It moves and captures by `kind`'s
    /// pattern, a pawn's included (forward steps, the double step from its starting
    /// rank, diagonal captures, en passant); it promotes only if it is really a pawn
    /// reaching the last rank. Castling is never part of it. Play the result with
    /// [`Position::play_unchecked`] or its keep-turn form.
    pub fn legal_moves_as(&self, from: Square, kind: Kind) -> Vec<Move> {
        let mut out = self.pseudo_legal_moves_as(from, kind);
        out.retain(|m| self.is_safe(m));
        out
    }

    /// [`Position::legal_moves_as`] without the king-safety filter.
    pub fn pseudo_legal_moves_as(&self, from: Square, kind: Kind) -> Vec<Move> {
        let mut out = Vec::new();
        if let Some(piece) = self.piece_at(from).filter(|p| p.color == self.turn) {
            self.gen_piece(from, piece, kind, false, &mut out);
        }
        out
    }

    /// The legal move from `from` to `to` with this promotion, if there is one: how a
    /// move given as squares (UCI, a click) becomes a [`Move`]. Castling is named by the
    /// king's and the castling rook's squares, as in Chess960 UCI.
    pub fn find_legal(&self, from: Square, to: Square, promotion: Option<Kind>) -> Option<Move> {
        self.legal_moves_from(from)
            .into_iter()
            .find(|m| m.to == to && m.promotion == promotion)
    }

    /// Whether `mv` is a legal move of the side to move.
    pub fn is_legal(&self, mv: &Move) -> bool {
        self.legal_moves_from(mv.from).contains(mv)
    }

    /// Whether, after `mv`, no king of the side to move is attacked: the safety half of
    /// legality, for moves a card generated outside the rules of chess.
    pub fn is_safe(&self, mv: &Move) -> bool {
        let after = self.apply(mv, false);
        !after.king_attacked(self.turn)
    }

    /// Whether the side to move is checkmated: in check with no legal move.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && self.legal_moves().is_empty()
    }

    /// Whether the side to move is stalemated: not in check, with no legal move.
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && self.legal_moves().is_empty()
    }

    /// Appends the pseudo-legal moves of `piece` (standing on `from`, of the side to
    /// move) moving by `pattern`'s rules.
    fn gen_piece(
        &self,
        from: Square,
        piece: Piece,
        pattern: Kind,
        castling: bool,
        out: &mut Vec<Move>,
    ) {
        let us = piece.color;
        let own = self.color_squares(us);
        let occupied = self.occupied();
        match pattern {
            Kind::Pawn => self.gen_pawn(from, piece, out),
            Kind::King => {
                for to in attacks::king(from) & !own {
                    out.push(Move::normal(from, to));
                }
                if castling && piece.kind == Kind::King {
                    self.gen_castling(from, us, out);
                }
            }
            _ => {
                for to in attacks::of(pattern, us, from, occupied) & !own {
                    out.push(Move::normal(from, to));
                }
            }
        }
    }

    fn gen_pawn(&self, from: Square, piece: Piece, out: &mut Vec<Move>) {
        let us = piece.color;
        let them = self.color_squares(!us);
        let occupied = self.occupied();
        let promotes = |to: Square| piece.kind == Kind::Pawn && to.rank() == us.promotion_rank();
        let mut push = |to: Square, kind: MoveKind| {
            if promotes(to) {
                for promo in Kind::PROMOTIONS {
                    out.push(Move {
                        from,
                        to,
                        promotion: Some(promo),
                        kind,
                    });
                }
            } else {
                out.push(Move {
                    from,
                    to,
                    promotion: None,
                    kind,
                });
            }
        };
        if let Some(one) = from.offset(0, us.forward())
            && !occupied.has(one)
        {
            push(one, MoveKind::Normal);
            if from.rank() == us.double_step_rank()
                && let Some(two) = one.offset(0, us.forward())
                && !occupied.has(two)
            {
                // Only a real pawn's double step opens en passant.
                let kind = if piece.kind == Kind::Pawn {
                    MoveKind::DoubleStep
                } else {
                    MoveKind::Normal
                };
                push(two, kind);
            }
        }
        let targets = attacks::pawn(us, from);
        for to in targets & them {
            push(to, MoveKind::Normal);
        }
        if let Some(ep) = self.en_passant
            && us == self.turn
            && targets.has(ep)
        {
            push(ep, MoveKind::EnPassant);
        }
    }

    fn gen_castling(&self, from: Square, us: Color, out: &mut Vec<Move>) {
        if self.castling_king(us) != Some(from) {
            return;
        }
        let back = us.back_rank();
        for side in CastleSide::ALL {
            let Some(rook_file) = self.castling.rook(us, side) else {
                continue;
            };
            let rook = Square::new(rook_file, back);
            let king_to = Square::new(side.king_target(), back);
            let rook_to = Square::new(side.rook_target(), back);
            let king_path = attacks::between(from, king_to).with(king_to);
            let must_be_empty =
                king_path | attacks::between(from, rook) | Bitboard::from_square(rook_to);
            let others = self.occupied().without(from).without(rook);
            if !(must_be_empty & others).is_empty() {
                continue;
            }
            // The king must not start in check nor cross or land on an attacked square;
            // it is lifted so that it does not shield the squares it leaves behind.
            let without_king = self.occupied().without(from);
            let attacked = |sq: Square| !self.attackers_with(sq, !us, without_king).is_empty();
            if attacked(from) || king_path.into_iter().any(attacked) {
                continue;
            }
            out.push(Move {
                from,
                to: rook,
                promotion: None,
                kind: MoveKind::Castle(side),
            });
        }
    }
}
