//! The 10×10 board, squares and positions, and the two setups.

use core::fmt;

use super::card::{Card, Rank, Suit};

/// A square: file `a`–`j` (0–9), rank `0`–`9`; Forehand sits at rank 0.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The square at file and rank, if on the board.
    pub fn new(file: i8, rank: i8) -> Option<Square> {
        ((0..10).contains(&file) && (0..10).contains(&rank))
            .then(|| Square((rank * 10 + file) as u8))
    }

    /// From an index 0–99 (`rank · 10 + file`).
    pub fn from_index(i: u8) -> Option<Square> {
        (i < 100).then_some(Square(i))
    }

    /// The index.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The file, 0–9.
    pub fn file(self) -> i8 {
        (self.0 % 10) as i8
    }

    /// The rank, 0–9.
    pub fn rank(self) -> i8 {
        (self.0 / 10) as i8
    }

    /// The square `df` files and `dr` ranks away, if on the board.
    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        Square::new(self.file() + df, self.rank() + dr)
    }

    /// Reads `a0` … `j9`.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 || !(b'a'..=b'j').contains(&b[0]) || !b[1].is_ascii_digit() {
            return None;
        }
        Square::new((b[0] - b'a') as i8, (b[1] - b'0') as i8)
    }

    /// Every square, a0 to j9.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..100).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A player: Forehand (seat 0, moves first, ranks 0–4 are its half) or Rearhand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// Moves first; sits at rank 0.
    Forehand,
    /// Sits at rank 9.
    Rearhand,
}

impl Side {
    /// The other player.
    pub fn other(self) -> Side {
        match self {
            Side::Forehand => Side::Rearhand,
            Side::Rearhand => Side::Forehand,
        }
    }

    /// The rank direction of "forwards".
    pub fn forward(self) -> i8 {
        match self {
            Side::Forehand => 1,
            Side::Rearhand => -1,
        }
    }

    /// Whether a rank lies in this side's own half.
    pub fn own_half(self, rank: i8) -> bool {
        match self {
            Side::Forehand => rank <= 4,
            Side::Rearhand => rank >= 5,
        }
    }

    /// This side's palace.
    pub fn palace(self) -> [Square; 2] {
        let r = if self == Side::Forehand { 0 } else { 9 };
        [Square(r * 10 + 4), Square(r * 10 + 5)]
    }

    /// 0 for Forehand, 1 for Rearhand.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A card on the board, with its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The card.
    pub card: Card,
    /// Whose it is.
    pub side: Side,
}

/// The predefined setup of the seed, rank 9 first, `--` for an empty square.
const PREDEFINED: [&str; 6] = [
    "9 XD 8C 9S QC KS KD QS 9D 8S XH",
    "8 7H -- 6C JH 5C 5S JC 6H -- 7D",
    "7 4D 2C 3H 1S -- -- 4S 3D 2H 1C",
    "2 1D 2S 3C 4H -- -- 1H 3S 2D 4C",
    "1 7C -- 6S JD 5H 5D JS 6D -- 7S",
    "0 XS 8H 9C QH KC KH QD 9H 8D XC",
];

/// The cards on the board: what sits on each square.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    squares: [Option<Piece>; 100],
}

impl Board {
    /// An empty board.
    pub fn empty() -> Self {
        Board {
            squares: [None; 100],
        }
    }

    /// The seed's predefined setup: ranks 0–2 Forehand's, ranks 7–9 Rearhand's.
    pub fn predefined() -> Self {
        let mut b = Board::empty();
        for row in PREDEFINED {
            let mut cells = row.split_whitespace();
            let rank: i8 = cells
                .next()
                .and_then(|r| r.parse().ok())
                .expect("static diagram");
            let side = if rank <= 4 {
                Side::Forehand
            } else {
                Side::Rearhand
            };
            for (file, cell) in cells.enumerate() {
                if let Some(card) = Card::parse(cell) {
                    b.set(
                        Square::new(file as i8, rank).expect("on board"),
                        Some(Piece { card, side }),
                    );
                }
            }
        }
        b
    }

    /// The piece on a square.
    pub fn get(&self, s: Square) -> Option<Piece> {
        self.squares[usize::from(s.0)]
    }

    /// Puts (or clears) a square.
    pub fn set(&mut self, s: Square, p: Option<Piece>) {
        self.squares[usize::from(s.0)] = p;
    }

    /// Where a card stands, if on the board.
    pub fn find(&self, card: Card) -> Option<Square> {
        Square::all().find(|s| self.get(*s).is_some_and(|p| p.card == card))
    }

    /// Every occupied square with its piece.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|s| self.get(s).map(|p| (s, p)))
    }

    /// The suit-shuffled setup: every square keeps the rank and owner of the predefined
    /// setup; for each rank (Kings only when `kings` is set), the four suits are dealt
    /// to that rank's four squares, in square order a0…j9, by `shuffle`.
    pub fn suit_shuffled(kings: bool, mut shuffle: impl FnMut(&mut [Suit])) -> Self {
        let mut b = Board::predefined();
        for rank in Rank::ALL {
            if rank == Rank::Ace || (rank == Rank::King && !kings) {
                continue;
            }
            let squares: Vec<Square> = Square::all()
                .filter(|s| b.get(*s).is_some_and(|p| p.card.rank == rank))
                .collect();
            let mut suits = Suit::ALL;
            shuffle(&mut suits);
            for (s, suit) in squares.into_iter().zip(suits) {
                if let Some(p) = b.get(s) {
                    b.set(
                        s,
                        Some(Piece {
                            card: Card::new(rank, suit),
                            side: p.side,
                        }),
                    );
                }
            }
        }
        b
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..10).rev() {
            write!(f, "{rank} ")?;
            for file in 0..10 {
                match Square::new(file, rank).and_then(|s| self.get(s)) {
                    Some(p) => write!(f, " {}", p.card)?,
                    None => f.write_str(" --")?,
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_setup_has_the_seeds_properties() {
        let b = Board::predefined();
        for side in [Side::Forehand, Side::Rearhand] {
            let mine: Vec<Card> = b
                .pieces()
                .filter(|(_, p)| p.side == side)
                .map(|(_, p)| p.card)
                .collect();
            assert_eq!(mine.len(), 26, "half of the 52 cards");
            for rank in Rank::ALL {
                let n = mine.iter().filter(|c| c.rank == rank).count();
                assert_eq!(
                    n,
                    if rank == Rank::Ace { 0 } else { 2 },
                    "{side:?} {rank:?}"
                );
            }
        }
        // Kings in the palaces, centrally symmetric ranks, Ones on different files.
        assert!(
            Side::Forehand
                .palace()
                .iter()
                .all(|s| b.get(*s).unwrap().card.rank == Rank::King)
        );
        assert!(
            Side::Rearhand
                .palace()
                .iter()
                .all(|s| b.get(*s).unwrap().card.rank == Rank::King)
        );
        for s in Square::all() {
            let mirror = Square::new(9 - s.file(), 9 - s.rank()).unwrap();
            assert_eq!(
                b.get(s).map(|p| p.card.rank),
                b.get(mirror).map(|p| p.card.rank),
                "{s}"
            );
        }
        let ones: Vec<i8> = b
            .pieces()
            .filter(|(_, p)| p.card.rank == Rank::One)
            .map(|(s, _)| s.file())
            .collect();
        let mut files = ones.clone();
        files.dedup();
        assert_eq!(files.len(), 4);
    }

    #[test]
    fn suit_shuffle_keeps_ranks_and_deals_each_card_once() {
        let b = Board::suit_shuffled(false, |s| s.reverse());
        let mut seen = std::collections::BTreeSet::new();
        for (sq, p) in b.pieces() {
            assert!(seen.insert(p.card), "{} twice", p.card);
            assert_eq!(
                Board::predefined().get(sq).map(|q| (q.card.rank, q.side)),
                Some((p.card.rank, p.side))
            );
        }
        assert_eq!(seen.len(), 52);
        // Kings keep their predefined cards unless asked.
        for s in Side::Forehand
            .palace()
            .into_iter()
            .chain(Side::Rearhand.palace())
        {
            assert_eq!(b.get(s), Board::predefined().get(s));
        }
    }

    #[test]
    fn squares_parse_and_print() {
        assert_eq!(Square::parse("e0").unwrap().to_string(), "e0");
        assert_eq!(Square::parse("j9").unwrap().index(), 99);
        assert!(Square::parse("k1").is_none() && Square::parse("a10").is_none());
    }
}
