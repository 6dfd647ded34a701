//! Which check announcement a checking piece makes.
//!
//! Straight lines are named by the king's rank or file. A diagonal check is named
//! *long* or *short* by the whole diagonal line through the **checked king's** square
//! that the checker stands on: of the two diagonals through that square, the one with
//! more squares is the long one. A pawn's check is a diagonal check like a bishop's.
//!
//! **There are never ties** on an 8×8 board. With files and ranks numbered 0..8, the
//! diagonal of slope +1 through (f, r) has 8 − |f − r| squares and the one of slope −1
//! has 8 − |f + r − 7|. Equal lengths need f − r = ±(f + r − 7), i.e. 2r = 7 or 2f = 7,
//! which no whole number meets. So every diagonal check is exactly one of the two, and
//! the centre squares (d4, e5: 8 against 7 squares) are no exception.

use crate::chess::{Kind, Square};

use super::answer::CheckKind;

/// The squares on the slope +1 diagonal (a1–h8 direction) through `sq`.
fn rising_len(sq: Square) -> i8 {
    let (f, r) = (sq.file().index() as i8, sq.rank().index() as i8);
    8 - (f - r).abs()
}

/// The squares on the slope −1 diagonal (a8–h1 direction) through `sq`.
fn falling_len(sq: Square) -> i8 {
    let (f, r) = (sq.file().index() as i8, sq.rank().index() as i8);
    8 - (f + r - 7).abs()
}

/// The announcement for a piece of `kind` on `checker` giving check to the king on
/// `king`. The piece is assumed to attack the king; a king (which never checks) is
/// named like the line it stands on.
pub fn check_kind(king: Square, checker: Square, kind: Kind) -> CheckKind {
    if kind == Kind::Knight {
        return CheckKind::Knight;
    }
    if king.rank() == checker.rank() {
        return CheckKind::Rank;
    }
    if king.file() == checker.file() {
        return CheckKind::File;
    }
    let rising = i16::from(king.file().index()) - i16::from(king.rank().index())
        == i16::from(checker.file().index()) - i16::from(checker.rank().index());
    let (own, other) = if rising {
        (rising_len(king), falling_len(king))
    } else {
        (falling_len(king), rising_len(king))
    };
    if own > other {
        CheckKind::LongDiagonal
    } else {
        CheckKind::ShortDiagonal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_square_has_two_diagonals_of_one_length() {
        for sq in Square::all() {
            assert_ne!(rising_len(sq), falling_len(sq), "{sq}");
        }
    }
}
