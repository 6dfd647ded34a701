//! Colours, piece kinds and coloured pieces, with their FEN and SAN letters.

use std::fmt;
use std::ops::Not;

use super::square::Rank;

/// A side: White or Black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Color {
    /// The side that moves first from the standard setup; its back rank is rank 1.
    White,
    /// The other side; its back rank is rank 8.
    Black,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black: the index into per-colour tables.
    pub const fn idx(self) -> usize {
        match self {
            Color::White => 0,
            Color::Black => 1,
        }
    }

    /// The side's own back rank (rank 1 for White, 8 for Black).
    pub const fn back_rank(self) -> Rank {
        match self {
            Color::White => Rank::FIRST,
            Color::Black => Rank::EIGHTH,
        }
    }

    /// The rank where this side's pawns promote (the opponent's back rank).
    pub const fn promotion_rank(self) -> Rank {
        match self {
            Color::White => Rank::EIGHTH,
            Color::Black => Rank::FIRST,
        }
    }

    /// The rank from which this side's pawns may step two squares.
    pub const fn double_step_rank(self) -> Rank {
        match self {
            Color::White => Rank::SECOND,
            Color::Black => Rank::SEVENTH,
        }
    }

    /// +1 for White (pawns go up the board), −1 for Black.
    pub const fn forward(self) -> i8 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    /// The FEN side-to-move letter, `w` or `b`.
    pub const fn fen_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl Not for Color {
    type Output = Color;

    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// A kind of piece, whatever its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Pawn.
    Pawn,
    /// Knight.
    Knight,
    /// Bishop.
    Bishop,
    /// Rook.
    Rook,
    /// Queen.
    Queen,
    /// King.
    King,
}

impl Kind {
    /// All kinds, pawn first.
    pub const ALL: [Kind; 6] = [
        Kind::Pawn,
        Kind::Knight,
        Kind::Bishop,
        Kind::Rook,
        Kind::Queen,
        Kind::King,
    ];

    /// The kinds a pawn may promote to, strongest first (the order SAN tools list them).
    pub const PROMOTIONS: [Kind; 4] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight];

    /// 0..6 in the order of [`Kind::ALL`]: the index into per-kind tables.
    pub const fn idx(self) -> usize {
        match self {
            Kind::Pawn => 0,
            Kind::Knight => 1,
            Kind::Bishop => 2,
            Kind::Rook => 3,
            Kind::Queen => 4,
            Kind::King => 5,
        }
    }

    /// The upper-case letter (`P`, `N`, `B`, `R`, `Q`, `K`), as SAN and White's FEN write it.
    pub const fn upper(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
            Kind::Queen => 'Q',
            Kind::King => 'K',
        }
    }

    /// The kind named by a letter, in either case.
    pub fn from_char(c: char) -> Option<Kind> {
        match c.to_ascii_uppercase() {
            'P' => Some(Kind::Pawn),
            'N' => Some(Kind::Knight),
            'B' => Some(Kind::Bishop),
            'R' => Some(Kind::Rook),
            'Q' => Some(Kind::Queen),
            'K' => Some(Kind::King),
            _ => None,
        }
    }
}

/// A piece on the board: a kind and a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// What kind it is.
    pub kind: Kind,
}

impl Piece {
    /// The piece of this colour and kind.
    pub const fn new(color: Color, kind: Kind) -> Piece {
        Piece { color, kind }
    }

    /// The FEN letter: upper case for White, lower case for Black.
    pub fn fen_char(self) -> char {
        match self.color {
            Color::White => self.kind.upper(),
            Color::Black => self.kind.upper().to_ascii_lowercase(),
        }
    }

    /// The piece named by a FEN letter (`PNBRQK` White, `pnbrqk` Black).
    pub fn from_fen_char(c: char) -> Option<Piece> {
        let kind = Kind::from_char(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, kind })
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.fen_char())
    }
}
