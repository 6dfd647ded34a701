//! The Tempête board: a chess [`Position`] plus the continuing effects cards leave
//! behind, and what a plain move means under them.
//!
//! Continuing effects and their expiry, all counted in plies (`ply` is the index of the
//! ply about to be played; an entry holds while `ply < until`):
//!
//! - **frozen** pieces may not move (they still attack and give check);
//! - **forbidden** squares: no move, swap, jump or return may put a piece there;
//! - the **truce**: no move may capture; it ends as soon as a ply ends with a king
//!   attacked;
//! - **augmented** pieces have extra move patterns for good;
//! - **traps** (secret squares the flow opened) wait for an enemy piece to end its
//!   move on them, and are spent then.
//!
//! Effects bound to a piece (frozen, augmented) follow it when it moves or is swapped,
//! and vanish when it is captured or removed.
//!
//! # Kings
//!
//! Cards can make a king capturable (the first of two knight moves gives check, a swap
//! uncovers one). We never let that happen: **no move may capture a king, and no card
//! edit may remove, swap or freeze one.** A king is only ever beaten by mate:
//! [`Board::is_mated`].

use crate::chess::{Color, FenError, Kind, Move, MoveKind, Piece, Position, Square};

use super::card::{Pattern, TrapEffect};

/// A secret square once the flow has it open (its owner's board has it from the start):
/// an enemy piece other than a king that ends a move on it suffers `effect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Trap {
    /// Who laid it.
    pub owner: Color,
    /// Where.
    pub square: Square,
    /// What it does.
    pub effect: TrapEffect,
}

/// Why one move is refused under the continuing effects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The moving piece (or the castling rook) is frozen.
    #[error("the piece on {0} is frozen")]
    Frozen(Square),
    /// The move would end on a forbidden square.
    #[error("{0} is a forbidden square")]
    Forbidden(Square),
    /// The move would capture a king; kings are never captured.
    #[error("it would capture the king on {0}")]
    KingCapture(Square),
    /// The truce forbids captures.
    #[error("no captures are allowed during the truce")]
    Truce,
    /// The card's move may not capture.
    #[error("this move may not capture")]
    NoCapture,
    /// A king of the mover would be attacked afterwards.
    #[error("it leaves a king of the mover attacked")]
    LeavesKingAttacked,
}

/// A chess position plus the continuing effects of the cards played so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub(super) pos: Position,
    pub(super) ply: u32,
    pub(super) frozen: Vec<(Square, u32)>,
    pub(super) forbidden: Vec<(Square, u32)>,
    pub(super) truce: bool,
    pub(super) augments: Vec<(Square, Pattern)>,
    pub(super) traps: Vec<Trap>,
    pub(super) captured: [Vec<Kind>; 2],
    pub(super) lost: [Vec<Kind>; 2],
    pub(super) landed: Vec<Square>,
    pub(super) last_mover: Option<Color>,
}

impl Default for Board {
    fn default() -> Board {
        Board::new(Position::startpos())
    }
}

impl Board {
    /// A board on this position with no continuing effect, at ply 0.
    pub fn new(pos: Position) -> Board {
        Board {
            pos,
            ply: 0,
            frozen: Vec::new(),
            forbidden: Vec::new(),
            truce: false,
            augments: Vec::new(),
            traps: Vec::new(),
            captured: [Vec::new(), Vec::new()],
            lost: [Vec::new(), Vec::new()],
            landed: Vec::new(),
            last_mover: None,
        }
    }

    /// A board on a FEN position.
    pub fn from_fen(fen: &str) -> Result<Board, FenError> {
        Ok(Board::new(Position::from_fen(fen)?))
    }

    /// The chess position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// The index of the ply about to be played (0 at the start).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Whether the piece on `sq` is frozen now.
    pub fn is_frozen(&self, sq: Square) -> bool {
        self.frozen
            .iter()
            .any(|&(s, until)| s == sq && self.ply < until)
    }

    /// Whether no piece may enter `sq` now.
    pub fn is_forbidden(&self, sq: Square) -> bool {
        self.forbidden
            .iter()
            .any(|&(s, until)| s == sq && self.ply < until)
    }

    /// The frozen squares with the ply from which each piece moves again.
    pub fn frozen(&self) -> &[(Square, u32)] {
        &self.frozen
    }

    /// The forbidden squares with the ply from which each may be entered again.
    pub fn forbidden(&self) -> &[(Square, u32)] {
        &self.forbidden
    }

    /// Whether the truce (no captures) holds.
    pub fn truce(&self) -> bool {
        self.truce
    }

    /// The extra patterns the piece on `sq` has gained.
    pub fn augments(&self, sq: Square) -> Vec<Pattern> {
        self.augments
            .iter()
            .filter(|(s, _)| *s == sq)
            .map(|(_, p)| *p)
            .collect()
    }

    /// The traps this board knows of.
    pub fn traps(&self) -> &[Trap] {
        &self.traps
    }

    /// Adds a trap to a private board (its owner's own view of the game). The public
    /// board every seat replays never holds an unopened trap: the flow springs traps
    /// with [`Board::spring_trap`] when their owner opens them.
    pub fn add_trap(&mut self, trap: Trap) {
        self.traps.push(trap);
    }

    /// The kinds of `color`'s pieces the opponent has taken (by moves or traps) and that
    /// have not come back.
    pub fn captured(&self, color: Color) -> &[Kind] {
        &self.captured[color.idx()]
    }

    /// The kinds of `color`'s pieces captured by a move in the last ply.
    pub fn lost_last_ply(&self, color: Color) -> &[Kind] {
        &self.lost[color.idx()]
    }

    /// Whether `color` lost a piece other than a pawn to a move in the last ply: when
    /// an after-loss card (57) may be played.
    pub fn lost_non_pawn(&self, color: Color) -> bool {
        self.lost[color.idx()].iter().any(|&k| k != Kind::Pawn)
    }

    /// Every legal move without a card for the side to move, under the continuing
    /// effects (augmented patterns included).
    pub fn plain_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        for from in self.pos.color_squares(self.pos.turn()) {
            for mv in self.piece_moves(from) {
                if self.refusal(&mv).is_none() {
                    out.push(mv);
                }
            }
        }
        out
    }

    /// Whether `side` is mated: a king of it is attacked and it has no legal plain move
    /// (asked as if it were to move). The flow adds "and cannot intercept".
    pub fn is_mated(&self, side: Color) -> bool {
        if !self.pos.king_attacked(side) {
            return false;
        }
        if self.pos.turn() == side {
            return self.plain_moves().is_empty();
        }
        let mut other = self.clone();
        other.pos.set_turn(side);
        other.plain_moves().is_empty()
    }

    // ---- moves under the effects (crate-internal) ----------------------------------

    /// Pseudo-legal moves of the side to move's piece on `from`, castling and gained
    /// patterns included.
    pub(super) fn piece_moves(&self, from: Square) -> Vec<Move> {
        let mut out: Vec<Move> = match self.pos.piece_at(from) {
            Some(p) if p.color == self.pos.turn() => {
                let mut own = self.pos.pseudo_legal_moves_as(from, p.kind);
                if p.kind == Kind::King {
                    // Castling is only generated by the full generator.
                    own.extend(
                        self.pos
                            .pseudo_legal_moves()
                            .into_iter()
                            .filter(|m| m.from == from && m.castle_side().is_some()),
                    );
                }
                own
            }
            _ => return Vec::new(),
        };
        // A move is named by its squares (and promotion): a gained pattern adds only
        // squares the piece could not reach, so a pawn's en passant capture is never
        // shadowed by a sidestep onto the same empty square.
        for pattern in self.augments(from) {
            for mv in self.pattern_moves(from, pattern) {
                if !out
                    .iter()
                    .any(|m| m.to == mv.to && m.promotion == mv.promotion)
                {
                    out.push(mv);
                }
            }
        }
        out
    }

    /// Pseudo-legal moves of the side to move's piece on `from` by a pattern not its
    /// own. A real pawn reaching its last rank this way promotes.
    pub(super) fn pattern_moves(&self, from: Square, pattern: Pattern) -> Vec<Move> {
        let Some(piece) = self
            .pos
            .piece_at(from)
            .filter(|p| p.color == self.pos.turn())
        else {
            return Vec::new();
        };
        let raw = match pattern {
            Pattern::Sidestep => [-1, 1]
                .into_iter()
                .filter_map(|df| from.offset(df, 0))
                .filter(|to| self.pos.piece_at(*to).is_none())
                .map(|to| Move::normal(from, to))
                .collect(),
            Pattern::As(kind) => self.pos.pseudo_legal_moves_as(from, kind),
        };
        with_promotions(piece, raw)
    }

    /// Why `mv` (by the side to move) is refused under the continuing effects, if it is.
    pub(super) fn refusal(&self, mv: &Move) -> Option<Refusal> {
        let us = self.pos.turn();
        if self.is_frozen(mv.from) {
            return Some(Refusal::Frozen(mv.from));
        }
        if let Some(side) = mv.castle_side() {
            if self.is_frozen(mv.to) {
                return Some(Refusal::Frozen(mv.to));
            }
            let rank = mv.from.rank();
            for file in [side.king_target(), side.rook_target()] {
                let sq = Square::new(file, rank);
                if self.is_forbidden(sq) {
                    return Some(Refusal::Forbidden(sq));
                }
            }
        } else {
            if self.is_forbidden(mv.to) {
                return Some(Refusal::Forbidden(mv.to));
            }
            if let Some(p) = self.pos.piece_at(mv.to)
                && p.color != us
                && p.kind == Kind::King
            {
                return Some(Refusal::KingCapture(mv.to));
            }
            if self.truce && self.is_capture(mv) {
                return Some(Refusal::Truce);
            }
        }
        if !self.pos.is_safe(mv) {
            return Some(Refusal::LeavesKingAttacked);
        }
        None
    }

    /// Whether `mv` takes a piece.
    pub(super) fn is_capture(&self, mv: &Move) -> bool {
        match mv.kind {
            MoveKind::EnPassant => true,
            MoveKind::Castle(_) => false,
            _ => self
                .pos
                .piece_at(mv.to)
                .is_some_and(|p| p.color != self.pos.turn()),
        }
    }

    /// Carries out a move the caller has checked, keeping the effects bound to pieces
    /// with them and recording captures and landing squares. `pass` hands the turn over
    /// (the last move of a play), which also opens en passant after a double step.
    pub(super) fn do_move(&mut self, mv: &Move, pass: bool) {
        let Some(piece) = self.pos.piece_at(mv.from) else {
            return;
        };
        let rank = mv.from.rank();
        let victim_sq = match mv.kind {
            MoveKind::Castle(_) => None,
            MoveKind::EnPassant => Some(Square::new(mv.to.file(), rank)),
            _ => Some(mv.to),
        };
        if let Some(sq) = victim_sq
            && let Some(victim) = self.pos.piece_at(sq)
            && victim.color != piece.color
        {
            self.captured[victim.color.idx()].push(victim.kind);
            self.lost[victim.color.idx()].push(victim.kind);
            self.drop_effects(sq);
        }
        match mv.castle_side() {
            Some(side) => {
                let king_to = Square::new(side.king_target(), rank);
                let rook_to = Square::new(side.rook_target(), rank);
                self.relocate(&[(mv.from, king_to), (mv.to, rook_to)]);
                self.landed.extend([king_to, rook_to]);
            }
            None => {
                self.relocate(&[(mv.from, mv.to)]);
                self.landed.push(mv.to);
            }
        }
        self.pos = if pass {
            self.pos.play_unchecked(mv)
        } else {
            self.pos.play_unchecked_keep_turn(mv)
        };
    }

    /// Moves the effects bound to pieces along with them, all pairs at once (a swap is
    /// `[(a, b), (b, a)]`).
    pub(super) fn relocate(&mut self, pairs: &[(Square, Square)]) {
        let map = |sq: Square| {
            pairs
                .iter()
                .find(|(from, _)| *from == sq)
                .map_or(sq, |(_, to)| *to)
        };
        for entry in &mut self.frozen {
            entry.0 = map(entry.0);
        }
        for entry in &mut self.augments {
            entry.0 = map(entry.0);
        }
    }

    /// Forgets the effects bound to the piece on `sq` (it is gone).
    pub(super) fn drop_effects(&mut self, sq: Square) {
        self.frozen.retain(|(s, _)| *s != sq);
        self.augments.retain(|(s, _)| *s != sq);
    }

    /// Whether this piece may be put on `sq` by an edit (swap, jump, return): not on a
    /// forbidden square, and a pawn never on the first or last rank.
    pub(super) fn may_place(&self, piece: Piece, sq: Square) -> bool {
        let pawn_on_edge = piece.kind == Kind::Pawn && pawn_edge(sq);
        !self.is_forbidden(sq) && !pawn_on_edge
    }

    /// The ply index until which something lasting `turns` turns of `color` holds, from
    /// now (`color`'s next turns, counting the current ply if it is `color`'s).
    pub(super) fn until_turns(&self, color: Color, turns: u8) -> u32 {
        let end = self.ply.saturating_add(2 * u32::from(turns));
        if self.pos.turn() == color {
            end.saturating_sub(1)
        } else {
            end
        }
    }
}

/// Whether a square is on the first or the last rank.
pub(super) fn pawn_edge(sq: Square) -> bool {
    matches!(sq.rank().index(), 0 | 7)
}

/// The moves as given, with a real pawn that reaches its last rank promoting (one move
/// per promotion kind).
pub(super) fn with_promotions(piece: Piece, moves: Vec<Move>) -> Vec<Move> {
    if piece.kind != Kind::Pawn {
        return moves;
    }
    let mut out = Vec::with_capacity(moves.len());
    for mv in moves {
        if mv.promotion.is_none() && mv.to.rank() == piece.color.promotion_rank() {
            for promo in Kind::PROMOTIONS {
                out.push(Move {
                    promotion: Some(promo),
                    ..mv
                });
            }
        } else {
            out.push(mv);
        }
    }
    out
}
