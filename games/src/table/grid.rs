//! The board as a front end draws it: squares in rows, each with its name, its shade,
//! what stands on it and what marks it — built by each game from its own engine, so a
//! page that draws boards knows no game's rules or geometry. The square names are the
//! ones the game's [`Choice`](super::Choice)s use: a click on a cell is a click on the
//! squares those choices name.
//!
//! Rows come top to bottom and cells left to right **as this seat sees the board**: a
//! chess board is turned for Black, Cardmate's for Rearhand.

use serde::{Deserialize, Serialize};

use crate::chess::{Color, Kind, Position, Square};

/// A board, drawn from this seat's side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grid {
    /// Column labels, left to right as shown.
    pub files: Vec<String>,
    /// Row labels, top to bottom as shown.
    pub ranks: Vec<String>,
    /// The cells, row by row from the top, `files.len()` a row.
    pub cells: Vec<Cell>,
    /// Rows after which the board has a dividing line (Cardmate's middle): indices into
    /// `ranks`.
    pub divides: Vec<usize>,
    /// What a player should know to read the board, if anything (Chex: why its squares
    /// are renamed as it grows).
    pub note: Option<String>,
}

/// One square.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// Its name in the game's notation, as choices name it.
    pub square: String,
    /// How it is shaded.
    pub shade: Shade,
    /// What stands on it.
    pub piece: Option<Token>,
    /// What lies on it besides, in the game's words (a continuing effect, a trap).
    pub marks: Vec<Mark>,
}

/// A square's ground.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shade {
    /// A light square.
    Light,
    /// A dark square.
    Dark,
    /// A palace square (Cardmate).
    Palace,
}

/// A piece or a card on a square.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    /// What is drawn: a chess figurine (`♘`), a card (`9H`).
    pub glyph: String,
    /// Whose: the seat whose side it is (0 or 1).
    pub side: u8,
    /// In words, for a tooltip and for readers of the page: `White knight`.
    pub name: String,
    /// Drawn in red ink (Cardmate's hearts and diamonds).
    pub red: bool,
}

/// Something on a square besides its piece.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// Which kind, for the page's style: `frozen`, `augmented`, `forbidden`, `trap`,
    /// `own-trap` (owned once read back from JSON; the games name it by a constant).
    pub kind: std::borrow::Cow<'static, str>,
    /// In words, for a tooltip.
    pub words: String,
}

impl Mark {
    /// A mark of this kind, in these words.
    pub fn new(kind: &'static str, words: impl Into<String>) -> Mark {
        Mark {
            kind: kind.into(),
            words: words.into(),
        }
    }
}

/// A chess figurine.
pub fn figurine(color: Color, kind: Kind) -> char {
    let white = match kind {
        Kind::King => '♔',
        Kind::Queen => '♕',
        Kind::Rook => '♖',
        Kind::Bishop => '♗',
        Kind::Knight => '♘',
        Kind::Pawn => '♙',
    };
    match color {
        Color::White => white,
        // The black figurines follow the white ones six code points later.
        Color::Black => char::from_u32(white as u32 + 6).unwrap_or(white),
    }
}

fn kind_word(kind: Kind) -> &'static str {
    match kind {
        Kind::King => "king",
        Kind::Queen => "queen",
        Kind::Rook => "rook",
        Kind::Bishop => "bishop",
        Kind::Knight => "knight",
        Kind::Pawn => "pawn",
    }
}

impl Grid {
    /// An 8×8 chess board seen from `from`'s side (Black's turned), with the pieces of
    /// `pos` and each square's marks.
    pub fn chess(pos: &Position, from: Color, marks: impl Fn(Square) -> Vec<Mark>) -> Grid {
        let turned = from == Color::Black;
        let order = |i: u8| if turned { i } else { 7 - i };
        let mut cells = Vec::with_capacity(64);
        for row in 0..8u8 {
            let rank = order(row);
            for col in 0..8u8 {
                let file = 7 - order(col);
                let Some(sq) = Square::from_index(rank * 8 + file) else {
                    continue;
                };
                let piece = pos.piece_at(sq).map(|p| Token {
                    glyph: figurine(p.color, p.kind).to_string(),
                    side: p.color.idx() as u8,
                    name: format!(
                        "{} {}",
                        if p.color == Color::White {
                            "White"
                        } else {
                            "Black"
                        },
                        kind_word(p.kind)
                    ),
                    red: false,
                });
                cells.push(Cell {
                    square: sq.to_string(),
                    shade: if (rank + file) % 2 == 0 {
                        Shade::Dark
                    } else {
                        Shade::Light
                    },
                    piece,
                    marks: marks(sq),
                });
            }
        }
        let files: Vec<String> = (0..8u8)
            .map(|c| char::from(b'a' + (7 - order(c))).to_string())
            .collect();
        let ranks = (0..8u8)
            .map(|r| char::from(b'1' + order(r)).to_string())
            .collect();
        Grid {
            files,
            ranks,
            cells,
            divides: vec![],
            note: None,
        }
    }

    /// The cell named `square`, if the board has it.
    pub fn cell(&self, square: &str) -> Option<&Cell> {
        self.cells.iter().find(|c| c.square == square)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_sees_a8_top_left_and_black_sees_h1_top_left() {
        let pos = Position::startpos();
        let w = Grid::chess(&pos, Color::White, |_| vec![]);
        assert_eq!(w.cells[0].square, "a8");
        assert_eq!(w.cells[63].square, "h1");
        assert_eq!(w.files.concat(), "abcdefgh");
        assert_eq!(w.ranks.concat(), "87654321");
        let b = Grid::chess(&pos, Color::Black, |_| vec![]);
        assert_eq!(b.cells[0].square, "h1");
        assert_eq!(b.cells[63].square, "a8");
        assert_eq!(b.files.concat(), "hgfedcba");
        assert_eq!(b.ranks.concat(), "12345678");
        // a1 is dark, and holds White's rook.
        let a1 = w.cell("a1").unwrap();
        assert_eq!(a1.shade, Shade::Dark);
        assert_eq!(a1.piece.as_ref().unwrap().glyph, "♖");
        assert_eq!(w.cell("e8").unwrap().piece.as_ref().unwrap().glyph, "♚");
        assert_eq!(w.cell("e8").unwrap().piece.as_ref().unwrap().side, 1);
        assert_eq!(w.cell("h1").unwrap().shade, Shade::Light);
    }
}
