//! Which squares each kind of piece attacks from a square.
//!
//! Leaper tables and slider rays are computed at compile time by `const fn`s; sliders
//! are resolved by the classical ray method (cut each ray at its first blocker). That
//! is slower than magic bitboards but has no start-up cost, no `unsafe` and nothing to
//! get wrong, and the perft tests show it is fast enough for play and verification.

use super::bitboard::Bitboard;
use super::piece::{Color, Kind};
use super::square::Square;

/// Ray directions as (file step, rank step). The first four point to higher square
/// indices, so their nearest blocker is the lowest set bit; the last four the highest.
const DIRECTIONS: [(i8, i8); 8] = [
    (0, 1),   // north
    (1, 0),   // east
    (1, 1),   // north-east
    (-1, 1),  // north-west
    (0, -1),  // south
    (-1, 0),  // west
    (-1, -1), // south-west
    (1, -1),  // south-east
];

const ROOK_DIRS: [usize; 4] = [0, 1, 4, 5];
const BISHOP_DIRS: [usize; 4] = [2, 3, 6, 7];

const fn step(sq: u8, df: i8, dr: i8) -> Option<u8> {
    let f = (sq % 8) as i8 + df;
    let r = (sq / 8) as i8 + dr;
    if f >= 0 && f < 8 && r >= 0 && r < 8 {
        Some((r * 8 + f) as u8)
    } else {
        None
    }
}

const fn rays() -> [[u64; 64]; 8] {
    let mut table = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = DIRECTIONS[d];
        let mut sq = 0;
        while sq < 64 {
            let mut mask = 0u64;
            let mut cur = sq as u8;
            while let Some(next) = step(cur, df, dr) {
                mask |= 1 << next;
                cur = next;
            }
            table[d][sq] = mask;
            sq += 1;
        }
        d += 1;
    }
    table
}

const fn leaper(offsets: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut mask = 0u64;
        let mut i = 0;
        while i < offsets.len() {
            if let Some(to) = step(sq as u8, offsets[i].0, offsets[i].1) {
                mask |= 1 << to;
            }
            i += 1;
        }
        table[sq] = mask;
        sq += 1;
    }
    table
}

const RAYS: [[u64; 64]; 8] = rays();

const KNIGHT: [u64; 64] = leaper(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);

const KING: [u64; 64] = leaper(&[
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
]);

/// Pawn captures per colour: White's go up the board, Black's down. A pawn standing on
/// the rank where it would promote attacks nothing, since its targets are off the board.
const PAWN: [[u64; 64]; 2] = [leaper(&[(-1, 1), (1, 1)]), leaper(&[(-1, -1), (1, -1)])];

fn slide(sq: Square, occupied: Bitboard, dirs: &[usize; 4]) -> Bitboard {
    let mut attacks = 0u64;
    for &d in dirs {
        let ray = RAYS[d][sq.idx()];
        let blockers = ray & occupied.0;
        if blockers == 0 {
            attacks |= ray;
        } else {
            let nearest = if d < 4 {
                blockers.trailing_zeros()
            } else {
                63 - blockers.leading_zeros()
            };
            attacks |= ray ^ RAYS[d][nearest as usize];
        }
    }
    Bitboard(attacks)
}

/// Squares a knight on `sq` attacks.
pub fn knight(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.idx()])
}

/// Squares a king on `sq` attacks.
pub fn king(sq: Square) -> Bitboard {
    Bitboard(KING[sq.idx()])
}

/// Squares a pawn of `color` on `sq` attacks (diagonally forward).
pub fn pawn(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.idx()][sq.idx()])
}

/// Squares a rook on `sq` attacks, given the occupied squares.
pub fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
    slide(sq, occupied, &ROOK_DIRS)
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
pub fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
    slide(sq, occupied, &BISHOP_DIRS)
}

/// Squares a queen on `sq` attacks, given the occupied squares.
pub fn queen(sq: Square, occupied: Bitboard) -> Bitboard {
    rook(sq, occupied) | bishop(sq, occupied)
}

/// Squares a piece of `kind` and `color` on `sq` attacks (for a pawn: its captures,
/// not its pushes).
pub fn of(kind: Kind, color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    match kind {
        Kind::Pawn => pawn(color, sq),
        Kind::Knight => knight(sq),
        Kind::Bishop => bishop(sq, occupied),
        Kind::Rook => rook(sq, occupied),
        Kind::Queen => queen(sq, occupied),
        Kind::King => king(sq),
    }
}

/// The squares strictly between two squares on one line (rank, file or diagonal);
/// empty if they share no line.
pub fn between(a: Square, b: Square) -> Bitboard {
    for (d, rays) in RAYS.iter().enumerate() {
        if rays[a.idx()] & (1 << b.index()) != 0 {
            let opposite = (d + 4) % 8;
            return Bitboard(rays[a.idx()] & RAYS[opposite][b.idx()]);
        }
    }
    Bitboard::EMPTY
}
