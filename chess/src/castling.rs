//! Castling rights, stored per side as the file of the rook that may castle.
//!
//! Storing the rook's *file* rather than a "king side / queen side" flag is what lets one
//! representation serve standard chess, Chess960 and Secret Stallmate, where White and
//! Black each get their own Chess960 back rank, so their king and rook files differ. The
//! side of the board a right belongs to (short towards h, long towards a) is where its
//! rook stands relative to the king; the king and rook always end on the standard
//! squares (g/f short, c/d long).

use super::piece::Color;
use super::square::File;

/// Which way a castling goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CastleSide {
    /// Towards the a-file (O-O-O): the king ends on c, the rook on d.
    Long,
    /// Towards the h-file (O-O): the king ends on g, the rook on f.
    Short,
}

impl CastleSide {
    /// Both sides, long first.
    pub const ALL: [CastleSide; 2] = [CastleSide::Long, CastleSide::Short];

    /// 0 for long, 1 for short.
    pub const fn idx(self) -> usize {
        match self {
            CastleSide::Long => 0,
            CastleSide::Short => 1,
        }
    }

    /// The file where the king ends.
    pub const fn king_target(self) -> File {
        match self {
            CastleSide::Long => File::C,
            CastleSide::Short => File::G,
        }
    }

    /// The file where the rook ends.
    pub const fn rook_target(self) -> File {
        match self {
            CastleSide::Long => File::D,
            CastleSide::Short => File::F,
        }
    }

    /// The SAN text, `O-O-O` or `O-O`.
    pub const fn san(self) -> &'static str {
        match self {
            CastleSide::Long => "O-O-O",
            CastleSide::Short => "O-O",
        }
    }
}

/// For each colour and side, the file of the rook that may still castle, if any.
///
/// A [`Position`](super::Position) keeps every right it holds meaningful: the rook is on
/// its side's back rank on that file, and the side has exactly one king, on its back
/// rank, on the correct side of the rook. Rights that stop being true (a rook captured,
/// a board edit by a card) are dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CastlingRights {
    rooks: [[Option<File>; 2]; 2],
}

impl CastlingRights {
    /// No rights at all.
    pub const NONE: CastlingRights = CastlingRights {
        rooks: [[None; 2]; 2],
    };

    /// The file of the rook with which `color` may castle to `side`.
    pub const fn rook(&self, color: Color, side: CastleSide) -> Option<File> {
        self.rooks[color.idx()][side.idx()]
    }

    /// Sets or clears one right. A [`Position`](super::Position) checks rights it is
    /// given against its board, so this alone cannot make a position inconsistent.
    pub fn set(&mut self, color: Color, side: CastleSide, rook: Option<File>) {
        self.rooks[color.idx()][side.idx()] = rook;
    }

    /// Clears both rights of one colour (its king moved).
    pub fn clear(&mut self, color: Color) {
        self.rooks[color.idx()] = [None, None];
    }

    /// Whether no right is left for either side.
    pub fn is_empty(&self) -> bool {
        self.rooks.iter().flatten().all(Option::is_none)
    }
}
