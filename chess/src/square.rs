//! Files, ranks and squares of the 8×8 board, and their algebraic names ("e4").
//!
//! A square is an index 0..64 with a1 = 0, b1 = 1, …, h8 = 63, so that its bit in a
//! [`Bitboard`](super::Bitboard) is `1 << index`. The types hold their range as an
//! invariant: every constructor that takes a raw number returns an `Option`.

use std::fmt;
use std::str::FromStr;

/// A file (column) a..h, stored as 0..8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct File(u8);

impl File {
    /// The a-file.
    pub const A: File = File(0);
    /// The b-file.
    pub const B: File = File(1);
    /// The c-file: where the king ends after castling long.
    pub const C: File = File(2);
    /// The d-file: where the rook ends after castling long.
    pub const D: File = File(3);
    /// The e-file.
    pub const E: File = File(4);
    /// The f-file: where the rook ends after castling short.
    pub const F: File = File(5);
    /// The g-file: where the king ends after castling short.
    pub const G: File = File(6);
    /// The h-file.
    pub const H: File = File(7);
    /// All files from a to h.
    pub const ALL: [File; 8] = [
        File(0),
        File(1),
        File(2),
        File(3),
        File(4),
        File(5),
        File(6),
        File(7),
    ];

    /// The file with this index (0 = a), if it is on the board.
    pub const fn new(index: u8) -> Option<File> {
        if index < 8 { Some(File(index)) } else { None }
    }

    /// The file's index, 0 (a) to 7 (h).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The file named by a lower-case letter `a`..`h`.
    pub fn from_char(c: char) -> Option<File> {
        match c {
            'a'..='h' => Some(File(c as u8 - b'a')),
            _ => None,
        }
    }

    /// The file's lower-case letter.
    pub fn to_char(self) -> char {
        (b'a' + self.0) as char
    }
}

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

/// A rank (row) 1..8, stored as 0..8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

impl Rank {
    /// The first rank: White's back rank.
    pub const FIRST: Rank = Rank(0);
    /// The second rank: White's pawns double-step from here.
    pub const SECOND: Rank = Rank(1);
    /// The seventh rank: Black's pawns double-step from here.
    pub const SEVENTH: Rank = Rank(6);
    /// The eighth rank: Black's back rank.
    pub const EIGHTH: Rank = Rank(7);
    /// All ranks from 1 to 8.
    pub const ALL: [Rank; 8] = [
        Rank(0),
        Rank(1),
        Rank(2),
        Rank(3),
        Rank(4),
        Rank(5),
        Rank(6),
        Rank(7),
    ];

    /// The rank with this index (0 = first rank), if it is on the board.
    pub const fn new(index: u8) -> Option<Rank> {
        if index < 8 { Some(Rank(index)) } else { None }
    }

    /// The rank's index, 0 (first) to 7 (eighth).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The rank named by a digit `1`..`8`.
    pub fn from_char(c: char) -> Option<Rank> {
        match c {
            '1'..='8' => Some(Rank(c as u8 - b'1')),
            _ => None,
        }
    }

    /// The rank's digit.
    pub fn to_char(self) -> char {
        (b'1' + self.0) as char
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

/// One of the 64 squares; a1 = 0, h1 = 7, a8 = 56, h8 = 63.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The square at this file and rank.
    pub const fn new(file: File, rank: Rank) -> Square {
        Square(rank.0 * 8 + file.0)
    }

    /// The square with this index (a1 = 0), if it is on the board.
    pub const fn from_index(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square's index, 0 (a1) to 63 (h8).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The square's index as a `usize`, for table look-ups.
    pub const fn idx(self) -> usize {
        self.0 as usize
    }

    /// The square's file.
    pub const fn file(self) -> File {
        File(self.0 % 8)
    }

    /// The square's rank.
    pub const fn rank(self) -> Rank {
        Rank(self.0 / 8)
    }

    /// The square `df` files and `dr` ranks away, if that is still on the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = (self.0 % 8) as i8 + df;
        let r = (self.0 / 8) as i8 + dr;
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            Some(Square((r * 8 + f) as u8))
        } else {
            None
        }
    }

    /// Every square, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), self.rank())
    }
}

/// A string that does not name a square.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a square: {0:?} (expected a file a-h and a rank 1-8, like \"e4\")")]
pub struct SquareParseError(pub String);

impl FromStr for Square {
    type Err = SquareParseError;

    fn from_str(s: &str) -> Result<Square, SquareParseError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(f), Some(r), None) => match (File::from_char(f), Rank::from_char(r)) {
                (Some(file), Some(rank)) => Ok(Square::new(file, rank)),
                _ => Err(SquareParseError(s.to_owned())),
            },
            _ => Err(SquareParseError(s.to_owned())),
        }
    }
}
