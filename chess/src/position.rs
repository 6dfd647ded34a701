//! The position: where the pieces stand, whose turn it is, castling rights, the en
//! passant square and the two move counters; attacks and checks on it; and the board
//! edits that card effects need.
//!
//! What a [`Position`] promises is deliberately less than what a standard chess library
//! promises, because Tempête's cards make positions such libraries refuse:
//!
//! - a side may have any number of kings, zero included;
//! - the side *not* to move may be in check (between the two moves of a "move twice"
//!   card, for instance);
//! - pawns may stand on either back rank. A pawn on its own back rank steps one square
//!   forward (two only from its usual starting rank); a pawn on the rank where it would
//!   promote has no move and attacks nothing, because every square it could reach is
//!   off the board. It only promotes by *reaching* that rank.
//!
//! What it does promise, and keeps after every move and edit, is that the castling rights
//! and the en passant square mean something: a castling right names a rook of its colour
//! on its back rank, on the correct side of that colour's only king, which stands on its
//! back rank; an en passant square lies behind an enemy pawn that could just have made a
//! two-square step. Rights that stop holding are dropped rather than kept stale.

use super::attacks;
use super::bitboard::Bitboard;
use super::castling::{CastleSide, CastlingRights};
use super::piece::{Color, Kind, Piece};
use super::square::{File, Rank, Square};

/// A chess position with everything needed to generate moves and write a FEN.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    by_color: [Bitboard; 2],
    by_kind: [Bitboard; 6],
    pub(super) turn: Color,
    pub(super) castling: CastlingRights,
    pub(super) en_passant: Option<Square>,
    pub(super) halfmove_clock: u32,
    pub(super) fullmove_number: u32,
}

/// Why a castling right or an en passant square cannot be set on a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The castling right names no rook of that colour on its back rank at that file,
    /// or the side has not exactly one king on its back rank on the correct side.
    #[error("{color} cannot hold a {side:?} castling right with the rook on the {file}-file")]
    Castling {
        /// The side the right was for.
        color: Color,
        /// Short or long.
        side: CastleSide,
        /// The rook file named.
        file: File,
    },
    /// The square is not behind an enemy pawn that could just have stepped two squares.
    #[error("{0} cannot be the en passant square here")]
    EnPassant(Square),
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

/// The back ranks of Chess960 by Scharnagl number: where the knights go among the five
/// squares left after the bishops and the queen.
const KNIGHT_PLACEMENTS: [(usize, usize); 10] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (1, 2),
    (1, 3),
    (1, 4),
    (2, 3),
    (2, 4),
    (3, 4),
];

/// The Chess960 back rank with Scharnagl number `n` (0..960; 518 is the standard one),
/// from the a-file to the h-file.
pub fn chess960_back_rank(n: u16) -> Option<[Kind; 8]> {
    if n >= 960 {
        return None;
    }
    let mut n = n as usize;
    let mut rank: [Option<Kind>; 8] = [None; 8];
    // Light-squared bishop on b, d, f or h; dark-squared on a, c, e or g.
    rank[2 * (n % 4) + 1] = Some(Kind::Bishop);
    n /= 4;
    rank[2 * (n % 4)] = Some(Kind::Bishop);
    n /= 4;
    let place = |rank: &mut [Option<Kind>; 8], nth_empty: usize, kind: Kind| {
        if let Some(slot) = rank.iter_mut().filter(|s| s.is_none()).nth(nth_empty) {
            *slot = Some(kind);
        }
    };
    place(&mut rank, n % 6, Kind::Queen);
    n /= 6;
    let (first, second) = KNIGHT_PLACEMENTS[n];
    // Place the later knight first so the earlier index still counts the same squares.
    place(&mut rank, second, Kind::Knight);
    place(&mut rank, first, Kind::Knight);
    place(&mut rank, 0, Kind::Rook);
    place(&mut rank, 0, Kind::King);
    place(&mut rank, 0, Kind::Rook);
    let mut out = [Kind::Pawn; 8];
    for (o, k) in out.iter_mut().zip(rank) {
        *o = k?;
    }
    Some(out)
}

impl Position {
    /// An empty board, White to move, no rights, move 1.
    pub fn empty() -> Position {
        Position {
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 6],
            turn: Color::White,
            castling: CastlingRights::NONE,
            en_passant: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    /// The standard starting position.
    pub fn startpos() -> Position {
        Position::chess960_pair(518, 518).unwrap_or_else(Position::empty)
    }

    /// The Chess960 starting position with Scharnagl number `n` (0..960) for both sides.
    pub fn chess960(n: u16) -> Option<Position> {
        Position::chess960_pair(n, n)
    }

    /// A starting position where White's back rank is Chess960 number `white` and
    /// Black's is number `black`, with all four castling rights: Secret Stallmate's
    /// setup, where each side draws its own.
    pub fn chess960_pair(white: u16, black: u16) -> Option<Position> {
        let mut pos = Position::empty();
        for (color, n) in [(Color::White, white), (Color::Black, black)] {
            let back = chess960_back_rank(n)?;
            let pawn_rank = color.double_step_rank();
            for (file, kind) in File::ALL.into_iter().zip(back) {
                pos.set_square(
                    Square::new(file, color.back_rank()),
                    Some(Piece::new(color, kind)),
                );
                pos.set_square(
                    Square::new(file, pawn_rank),
                    Some(Piece::new(color, Kind::Pawn)),
                );
            }
            let king = back.iter().position(|&k| k == Kind::King)?;
            for (i, &kind) in back.iter().enumerate() {
                if kind == Kind::Rook {
                    let side = if i < king {
                        CastleSide::Long
                    } else {
                        CastleSide::Short
                    };
                    pos.castling.set(color, side, File::new(i as u8));
                }
            }
        }
        Some(pos)
    }

    // ---- reading -------------------------------------------------------------------

    /// The piece on a square, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = if self.by_color[0].has(sq) {
            Color::White
        } else if self.by_color[1].has(sq) {
            Color::Black
        } else {
            return None;
        };
        let kind = Kind::ALL
            .into_iter()
            .find(|k| self.by_kind[k.idx()].has(sq))?;
        Some(Piece::new(color, kind))
    }

    /// The squares of one colour's pieces.
    pub fn color_squares(&self, color: Color) -> Bitboard {
        self.by_color[color.idx()]
    }

    /// The squares of one kind's pieces, both colours.
    pub fn kind_squares(&self, kind: Kind) -> Bitboard {
        self.by_kind[kind.idx()]
    }

    /// The squares of one colour's pieces of one kind.
    pub fn pieces(&self, color: Color, kind: Kind) -> Bitboard {
        self.by_color[color.idx()] & self.by_kind[kind.idx()]
    }

    /// Every occupied square.
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The squares of one colour's kings (zero, one or several).
    pub fn kings(&self, color: Color) -> Bitboard {
        self.pieces(color, Kind::King)
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The castling rights.
    pub fn castling(&self) -> &CastlingRights {
        &self.castling
    }

    /// The square a pawn may capture en passant on, if any.
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    /// Half-moves since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The move number, starting at 1 and growing after each Black move.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    // ---- attacks and checks --------------------------------------------------------

    /// The pieces of `by` that attack `sq`, with the board as it is.
    pub fn attackers(&self, sq: Square, by: Color) -> Bitboard {
        self.attackers_with(sq, by, self.occupied())
    }

    /// The pieces of `by` that attack `sq` if `occupied` were the occupied squares
    /// (used to look through a king that is about to move).
    pub(super) fn attackers_with(&self, sq: Square, by: Color, occupied: Bitboard) -> Bitboard {
        let theirs = self.by_color[by.idx()];
        let k = &self.by_kind;
        let diagonal = k[Kind::Bishop.idx()] | k[Kind::Queen.idx()];
        let straight = k[Kind::Rook.idx()] | k[Kind::Queen.idx()];
        // A pawn of `by` attacks `sq` exactly when a pawn of the other colour on `sq`
        // would attack the pawn's square.
        let hits = (attacks::pawn(!by, sq) & k[Kind::Pawn.idx()])
            | (attacks::knight(sq) & k[Kind::Knight.idx()])
            | (attacks::king(sq) & k[Kind::King.idx()])
            | (attacks::bishop(sq, occupied) & diagonal)
            | (attacks::rook(sq, occupied) & straight);
        hits & theirs
    }

    /// Whether any piece of `by` attacks `sq`.
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        !self.attackers(sq, by).is_empty()
    }

    /// The enemy pieces giving check to any king of the side to move.
    pub fn checkers(&self) -> Bitboard {
        self.kings(self.turn).fold(Bitboard::EMPTY, |acc, k| {
            acc | self.attackers(k, !self.turn)
        })
    }

    /// Whether any king of the side to move is attacked. A side without a king is never
    /// in check.
    pub fn is_check(&self) -> bool {
        self.king_attacked(self.turn)
    }

    /// Whether any king of `color` is attacked, whoever is to move: a card engine asks
    /// this about the side that just moved.
    pub fn king_attacked(&self, color: Color) -> bool {
        self.kings(color).any(|k| self.is_attacked(k, !color))
    }

    // ---- edits ---------------------------------------------------------------------

    /// Puts `piece` on `sq` (or empties it with `None`), replacing what was there.
    ///
    /// Castling rights and the en passant square that no longer hold afterwards are
    /// dropped (see the module documentation); the counters are left alone.
    pub fn set_piece(&mut self, sq: Square, piece: Option<Piece>) {
        self.set_square(sq, piece);
        self.drop_stale_rights();
    }

    /// Sets the side to move. The en passant square is dropped if it no longer fits.
    pub fn set_turn(&mut self, color: Color) {
        self.turn = color;
        self.drop_stale_rights();
    }

    /// Passes the turn without a move (a null move): the other side is to move, the
    /// en passant chance lapses, and the move number grows if Black passed. For a card
    /// that gives the opponent the move, or to ask what the other side attacks.
    pub fn pass_turn(&mut self) {
        if self.turn == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.turn = !self.turn;
        self.en_passant = None;
    }

    /// Grants or removes one castling right. `Some(file)` must name a rook that can hold
    /// it (see [`CastlingRights`]).
    pub fn set_castling(
        &mut self,
        color: Color,
        side: CastleSide,
        rook: Option<File>,
    ) -> Result<(), SetupError> {
        if let Some(file) = rook
            && !self.castle_right_holds(color, side, file)
        {
            return Err(SetupError::Castling { color, side, file });
        }
        self.castling.set(color, side, rook);
        Ok(())
    }

    /// Sets or clears the en passant square; it must lie behind an enemy pawn that could
    /// just have stepped two squares.
    pub fn set_en_passant(&mut self, sq: Option<Square>) -> Result<(), SetupError> {
        if let Some(sq) = sq
            && !self.en_passant_holds(sq)
        {
            return Err(SetupError::EnPassant(sq));
        }
        self.en_passant = sq;
        Ok(())
    }

    /// Sets the half-move clock.
    pub fn set_halfmove_clock(&mut self, n: u32) {
        self.halfmove_clock = n;
    }

    /// Sets the move number.
    pub fn set_fullmove_number(&mut self, n: u32) {
        self.fullmove_number = n;
    }

    // ---- internals -----------------------------------------------------------------

    /// Writes one square without re-checking rights: move making calls this several
    /// times and checks once at the end.
    pub(super) fn set_square(&mut self, sq: Square, piece: Option<Piece>) {
        let bit = Bitboard::from_square(sq);
        for bb in self.by_color.iter_mut().chain(self.by_kind.iter_mut()) {
            *bb &= !bit;
        }
        if let Some(p) = piece {
            self.by_color[p.color.idx()] |= bit;
            self.by_kind[p.kind.idx()] |= bit;
        }
    }

    /// The one king of `color` on its back rank, if it has exactly one king and that
    /// king stands there: the only king that may castle.
    pub(super) fn castling_king(&self, color: Color) -> Option<Square> {
        let kings = self.kings(color);
        let king = kings.first()?;
        (kings.len() == 1 && king.rank() == color.back_rank()).then_some(king)
    }

    pub(super) fn castle_right_holds(&self, color: Color, side: CastleSide, file: File) -> bool {
        let Some(king) = self.castling_king(color) else {
            return false;
        };
        let rook = Square::new(file, color.back_rank());
        let on_side = match side {
            CastleSide::Short => king.file() < file,
            CastleSide::Long => file < king.file(),
        };
        on_side && self.pieces(color, Kind::Rook).has(rook)
    }

    pub(super) fn en_passant_holds(&self, sq: Square) -> bool {
        let them = !self.turn;
        let fwd = them.forward();
        // The enemy pawn stepped from `sq - fwd` over `sq` to `sq + fwd`.
        let third = match them {
            Color::White => Rank::new(2),
            Color::Black => Rank::new(5),
        };
        let (Some(pawn), Some(origin)) = (sq.offset(0, fwd), sq.offset(0, -fwd)) else {
            return false;
        };
        Some(sq.rank()) == third
            && !self.occupied().has(sq)
            && !self.occupied().has(origin)
            && self.pieces(them, Kind::Pawn).has(pawn)
    }

    /// Drops every castling right and en passant square that no longer holds.
    pub(super) fn drop_stale_rights(&mut self) {
        for color in Color::ALL {
            for side in CastleSide::ALL {
                if let Some(file) = self.castling.rook(color, side)
                    && !self.castle_right_holds(color, side, file)
                {
                    self.castling.set(color, side, None);
                }
            }
        }
        if let Some(ep) = self.en_passant
            && !self.en_passant_holds(ep)
        {
            self.en_passant = None;
        }
    }
}
