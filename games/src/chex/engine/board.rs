//! Colours, pieces, absolute squares, the sparse board and the stacks.

use core::fmt;
use std::collections::{BTreeMap, BTreeSet};

/// A player. White moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Color {
    /// Moves first; pawns go north (+y).
    White,
    /// Moves second; pawns go south (−y).
    Black,
}

impl Color {
    /// Both colours, White first.
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    /// The opponent.
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The y step of this colour's pawns.
    pub fn forward(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

/// A kind of piece. The declaration order is the order of [`Stack::pool`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// K.
    King,
    /// Q.
    Queen,
    /// R.
    Rook,
    /// B.
    Bishop,
    /// N.
    Knight,
    /// P (never written in moves).
    Pawn,
}

impl Kind {
    /// Every kind in pool order: K, Q, R, B, N, P.
    pub const ALL: [Kind; 6] = [
        Kind::King,
        Kind::Queen,
        Kind::Rook,
        Kind::Bishop,
        Kind::Knight,
        Kind::Pawn,
    ];

    /// The position in [`Kind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The kind at a position in [`Kind::ALL`].
    pub fn from_index(i: usize) -> Option<Kind> {
        Kind::ALL.get(i).copied()
    }

    /// The upper-case letter.
    pub fn letter(self) -> char {
        match self {
            Kind::King => 'K',
            Kind::Queen => 'Q',
            Kind::Rook => 'R',
            Kind::Bishop => 'B',
            Kind::Knight => 'N',
            Kind::Pawn => 'P',
        }
    }

    /// The kind a letter names, in either case.
    pub fn from_letter(c: char) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.letter() == c.to_ascii_uppercase())
    }

    /// The English name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::King => "King",
            Kind::Queen => "Queen",
            Kind::Rook => "Rook",
            Kind::Bishop => "Bishop",
            Kind::Knight => "Knight",
            Kind::Pawn => "Pawn",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A piece on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its owner.
    pub color: Color,
    /// What it is.
    pub kind: Kind,
}

impl Piece {
    /// A piece.
    pub fn new(color: Color, kind: Kind) -> Piece {
        Piece { color, kind }
    }
}

/// An absolute square. White's first piece stands on the origin; y grows northwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square {
    /// Column, growing eastwards.
    pub x: i32,
    /// Row, growing northwards (White's forward direction).
    pub y: i32,
}

impl Square {
    /// (0, 0), where the first piece goes.
    pub const ORIGIN: Square = Square { x: 0, y: 0 };

    /// The square (x, y).
    pub const fn new(x: i32, y: i32) -> Square {
        Square { x, y }
    }

    /// The square `dx`, `dy` away, unless that leaves the i32 range.
    pub fn offset(self, dx: i32, dy: i32) -> Option<Square> {
        Some(Square {
            x: self.x.checked_add(dx)?,
            y: self.y.checked_add(dy)?,
        })
    }

    /// The up to eight squares touching this one.
    pub fn neighbours(self) -> impl Iterator<Item = Square> {
        NEIGHBOURS
            .iter()
            .filter_map(move |&(dx, dy)| self.offset(dx, dy))
    }

    /// Whether the two squares touch (8-adjacency).
    pub fn touches(self, other: Square) -> bool {
        self != other
            && (i64::from(self.x) - i64::from(other.x)).abs() <= 1
            && (i64::from(self.y) - i64::from(other.y)).abs() <= 1
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// The eight king steps.
pub(crate) const NEIGHBOURS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// How many of each kind a side owns, in [`Kind::ALL`] order: K, Q, R×2, B×2, N×2, P×8.
pub const ARMY: [u8; 6] = [1, 1, 2, 2, 2, 8];

/// The pieces a side has not drawn yet. Its content is public; only the order of the
/// draws is random.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stack {
    counts: [u8; 6],
}

impl Stack {
    /// The full army, as at the start.
    pub fn army() -> Stack {
        Stack { counts: ARMY }
    }

    /// Nothing left.
    pub fn empty() -> Stack {
        Stack { counts: [0; 6] }
    }

    /// A stack with these counts in [`Kind::ALL`] order.
    pub fn from_counts(counts: [u8; 6]) -> Stack {
        Stack { counts }
    }

    /// The counts in [`Kind::ALL`] order.
    pub fn counts(&self) -> [u8; 6] {
        self.counts
    }

    /// How many of `kind` are left.
    pub fn count(&self, kind: Kind) -> u8 {
        self.counts[kind.index()]
    }

    /// Whether `kind` is left.
    pub fn contains(&self, kind: Kind) -> bool {
        self.count(kind) > 0
    }

    /// How many pieces are left.
    pub fn total(&self) -> u32 {
        self.counts.iter().map(|&c| u32::from(c)).sum()
    }

    /// Whether nothing is left.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Takes one `kind` out; false if there is none.
    pub fn take(&mut self, kind: Kind) -> bool {
        let c = &mut self.counts[kind.index()];
        if *c == 0 {
            return false;
        }
        *c -= 1;
        true
    }

    /// The pieces left as a list sorted K, Q, R, B, N, P with repeats: a draw picks an
    /// index into it.
    pub fn pool(&self) -> Vec<Kind> {
        Kind::ALL
            .into_iter()
            .flat_map(|k| std::iter::repeat_n(k, usize::from(self.count(k))))
            .collect()
    }
}

impl fmt::Display for Stack {
    /// `K Q R2 B2 N2 P8`, or `empty`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("empty");
        }
        let mut first = true;
        for k in Kind::ALL {
            let n = self.count(k);
            if n == 0 {
                continue;
            }
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{k}")?;
            if n > 1 {
                write!(f, "{n}")?;
            }
        }
        Ok(())
    }
}

/// The pieces on the board: a sparse map, unbounded in every direction.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    squares: BTreeMap<Square, Piece>,
}

impl Board {
    /// An empty board.
    pub fn new() -> Board {
        Board::default()
    }

    /// The piece on `sq`.
    pub fn get(&self, sq: Square) -> Option<Piece> {
        self.squares.get(&sq).copied()
    }

    /// Puts a piece on `sq`; returns what stood there.
    pub fn put(&mut self, sq: Square, piece: Piece) -> Option<Piece> {
        self.squares.insert(sq, piece)
    }

    /// Takes the piece off `sq`.
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        self.squares.remove(&sq)
    }

    /// The pieces, ordered by square (x, then y).
    pub fn iter(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.squares.iter().map(|(s, p)| (*s, *p))
    }

    /// How many pieces stand on the board.
    pub fn len(&self) -> usize {
        self.squares.len()
    }

    /// Whether no piece stands on the board.
    pub fn is_empty(&self) -> bool {
        self.squares.is_empty()
    }

    /// The lower-left and upper-right corners of the pieces' bounding box.
    pub fn bounds(&self) -> Option<(Square, Square)> {
        bounds_of(self.squares.keys().copied())
    }

    /// Where `color`'s King stands.
    pub fn king(&self, color: Color) -> Option<Square> {
        self.iter()
            .find(|(_, p)| *p == Piece::new(color, Kind::King))
            .map(|(s, _)| s)
    }

    /// Whether the pieces form one 8-connected group (an empty board does).
    pub fn is_connected(&self) -> bool {
        connected(&self.squares.keys().copied().collect::<Vec<_>>())
    }

    /// The empty squares where a drawn piece may go: the origin on an empty board,
    /// otherwise every empty square touching a piece of either colour.
    pub fn placement_squares(&self) -> Vec<Square> {
        if self.is_empty() {
            return vec![Square::ORIGIN];
        }
        let set: BTreeSet<Square> = self
            .squares
            .keys()
            .flat_map(|s| s.neighbours())
            .filter(|s| !self.squares.contains_key(s))
            .collect();
        set.into_iter().collect()
    }
}

/// The bounding box of some squares.
pub(crate) fn bounds_of(squares: impl Iterator<Item = Square>) -> Option<(Square, Square)> {
    squares.fold(None, |acc, s| match acc {
        None => Some((s, s)),
        Some((lo, hi)) => Some((
            Square::new(lo.x.min(s.x), lo.y.min(s.y)),
            Square::new(hi.x.max(s.x), hi.y.max(s.y)),
        )),
    })
}

/// Whether some distinct squares are one 8-connected group. A search over the list
/// itself, a flag per square: a board holds a few dozen pieces, and the connectivity
/// rule is asked of every candidate move, so scanning the list for a square's
/// neighbours costs less than building a set and looking each neighbour up in it.
pub(crate) fn connected(squares: &[Square]) -> bool {
    let Some(&first) = squares.first() else {
        return true;
    };
    let mut reached = vec![false; squares.len()];
    reached[0] = true;
    let mut count = 1;
    let mut frontier = vec![first];
    while let Some(s) = frontier.pop() {
        for (r, &other) in reached.iter_mut().zip(squares) {
            if !*r && s.touches(other) {
                *r = true;
                count += 1;
                frontier.push(other);
            }
        }
    }
    count == squares.len()
}
