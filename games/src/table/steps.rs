//! The position after each act of a score, for a page that steps back through a game
//! whose moves it cannot replay itself (Chex's board grows and renames its squares,
//! Cardmate's pieces are cards, Tempête's cards move pieces as no chess program does):
//! each position is the game's own [`Grid`], written
//! compactly so that a long game does not make every view large.
//!
//! The encoding, per position: a piece is one letter of [`ALPHABET`] indexing
//! [`Steps::tokens`]. The start, and any position whose squares are named anew (Chex's
//! box moved), has its pieces as one string, the grid's cells row by row, a run of
//! empty cells as its length in digits, with its files, ranks and shades; any other
//! has only the cells its act changed (index and letter, `.` for none). Then the
//! pieces the act took, as letters, and the squares it moved or placed. A move is
//! about 40 bytes of JSON; a full position at most three characters a piece on its
//! board, plus its labels.

use serde::{Deserialize, Serialize};

use super::grid::{Grid, Shade, Token};

/// The letters that name a piece in [`Step::pieces`]; no digit, which counts empty
/// cells. A game with more kinds of piece than this has no steps.
pub const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&*+-=?@^_~";

/// The positions of a game from its start, one after each act of its score.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Steps {
    /// Each side's name, by seat (`White`, `Forehand`).
    pub sides: Vec<String>,
    /// The pieces the positions name, by their letter's place in [`ALPHABET`].
    pub tokens: Vec<Token>,
    /// The start, then the position after each act.
    pub positions: Vec<Step>,
}

/// One position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The cells' pieces, row by row from the top as this seat sees the board: at the
    /// start, and whenever the squares are named anew.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pieces: Option<String>,
    /// Otherwise the cells that changed since the position before, each as its index
    /// in digits and its piece's letter, or `.` for none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub changed: String,
    /// Column labels, when they differ from the position before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
    /// Row labels, when they differ from the position before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<Vec<String>>,
    /// Each cell's shade (`l` light, `d` dark, `p` palace), or `d~`/`l~` for a chequer
    /// whose top left cell is dark or light, when they differ from the position before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shades: Option<String>,
    /// What the act took, as letters.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub took: String,
    /// The squares the act moved or placed, as this position's grid names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last: Vec<String>,
}

fn shade_letter(s: Shade) -> char {
    match s {
        Shade::Light => 'l',
        Shade::Dark => 'd',
        Shade::Palace => 'p',
    }
}

/// The cells' shades: `d~` or `l~` for a chequer whose top left cell is dark or
/// light (a chess board, however Chex's box moves), else a letter a cell.
fn shades_of(grid: &Grid) -> String {
    let width = grid.files.len().max(1);
    let all: String = grid.cells.iter().map(|c| shade_letter(c.shade)).collect();
    let Some(first) = grid.cells.first().map(|c| c.shade) else {
        return all;
    };
    let other = match first {
        Shade::Light => Shade::Dark,
        Shade::Dark => Shade::Light,
        Shade::Palace => return all,
    };
    let chequer = grid.cells.iter().enumerate().all(|(i, c)| {
        c.shade
            == if (i / width + i % width).is_multiple_of(2) {
                first
            } else {
                other
            }
    });
    if chequer {
        format!("{}~", shade_letter(first))
    } else {
        all
    }
}

/// The steps of `boards` (the start, then each act's board with the squares it moved),
/// each side named as `sides`; `None` when a board is not one the page can rebuild (a
/// cell not named by its file and rank, a row of the wrong length) or the game has
/// more kinds of piece than [`ALPHABET`] names.
pub fn encode(sides: Vec<String>, boards: Vec<(Grid, Vec<String>)>) -> Option<Steps> {
    let mut tokens: Vec<Token> = vec![];
    let mut positions: Vec<Step> = Vec::with_capacity(boards.len());
    // The board before: its labels, shades and each cell's piece.
    let mut before: Option<(&Grid, String, Vec<Option<usize>>)> = None;
    for (grid, last) in &boards {
        let width = grid.files.len();
        if width == 0 || grid.cells.len() != width * grid.ranks.len() {
            return None;
        }
        let mut cells: Vec<Option<usize>> = Vec::with_capacity(grid.cells.len());
        for (i, cell) in grid.cells.iter().enumerate() {
            let file = grid.files.get(i % width)?;
            let rank = grid.ranks.get(i / width)?;
            if cell.square != format!("{file}{rank}") {
                return None;
            }
            // A piece not met before gets the next letter.
            let letter = cell.piece.as_ref().map(|token| {
                tokens.iter().position(|t| t == token).unwrap_or_else(|| {
                    tokens.push(token.clone());
                    tokens.len() - 1
                })
            });
            cells.push(letter);
        }
        let letter = |k: usize| ALPHABET.get(k).map(|b| char::from(*b));
        let shades = shades_of(grid);
        let files = before.as_ref().is_none_or(|(b, ..)| b.files != grid.files);
        let ranks = before.as_ref().is_none_or(|(b, ..)| b.ranks != grid.ranks);
        let shaded = before.as_ref().is_none_or(|(_, s, _)| *s != shades);
        let mut step = Step {
            pieces: None,
            changed: String::new(),
            files: files.then(|| grid.files.clone()),
            ranks: ranks.then(|| grid.ranks.clone()),
            shades: shaded.then(|| shades.clone()),
            took: String::new(),
            last: last.clone(),
        };
        match &before {
            // The same squares: only the cells that changed.
            Some((_, _, was)) if !files && !ranks && !shaded => {
                for (i, (a, b)) in was.iter().zip(&cells).enumerate() {
                    if a != b {
                        step.changed.push_str(&i.to_string());
                        step.changed.push(match b {
                            Some(k) => letter(*k)?,
                            None => '.',
                        });
                    }
                }
            }
            // Squares renamed (Chex's box moved), or the start: every cell.
            _ => {
                let mut pieces = String::new();
                let mut empty = 0usize;
                for c in &cells {
                    match c {
                        None => empty += 1,
                        Some(k) => {
                            if empty > 0 {
                                pieces.push_str(&empty.to_string());
                                empty = 0;
                            }
                            pieces.push(letter(*k)?);
                        }
                    }
                }
                if empty > 0 {
                    pieces.push_str(&empty.to_string());
                }
                step.pieces = Some(pieces);
            }
        }
        // What the act took: the pieces of the board before it that are fewer now.
        if let Some((_, _, was)) = &before {
            let mut left: Vec<usize> = cells.iter().flatten().copied().collect();
            for k in was.iter().flatten() {
                match left.iter().position(|x| x == k) {
                    Some(i) => {
                        left.swap_remove(i);
                    }
                    None => step.took.push(letter(*k)?),
                }
            }
        }
        positions.push(step);
        before = Some((grid, shades, cells));
    }
    Some(Steps {
        sides,
        tokens,
        positions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Color, Position};

    #[test]
    fn a_capture_is_written_as_what_it_took() {
        let start = Position::startpos();
        // White's e-pawn took on d7 (no matter how): e2 and d7's pawn are gone, e2's
        // pawn stands on d7.
        let mut after = start.clone();
        let sq = |i: u8| crate::chess::Square::from_index(i).unwrap();
        let pawn = after.piece_at(sq(12));
        after.set_piece(sq(12), None);
        after.set_piece(sq(51), pawn);
        let g0 = Grid::chess(&start, Color::White, |_| vec![]);
        let g1 = Grid::chess(&after, Color::White, |_| vec![]);
        let steps = encode(
            vec!["White".into(), "Black".into()],
            vec![(g0, vec![]), (g1, vec!["e2".into(), "d7".into()])],
        )
        .unwrap();
        assert_eq!(steps.positions.len(), 2);
        let first = &steps.positions[0];
        assert!(first.files.is_some() && first.shades.is_some());
        assert!(first.took.is_empty());
        // Sixteen pieces, 32 empty squares in two digits, sixteen pieces.
        assert_eq!(first.pieces.as_deref().map(str::len), Some(16 + 2 + 16));
        let second = &steps.positions[1];
        assert!(second.files.is_none() && second.ranks.is_none() && second.shades.is_none());
        // d7 (cell 11) holds White's pawn (G: the seventh kind met, after Black's
        // rnbqk and pawn), e2 (cell 52) is empty.
        assert_eq!(second.pieces, None);
        assert_eq!(second.changed, "11G52.");
        let took: Vec<&Token> = second
            .took
            .bytes()
            .map(|b| &steps.tokens[ALPHABET.iter().position(|x| *x == b).unwrap()])
            .collect();
        assert_eq!(took.len(), 1);
        assert_eq!(took[0].name, "Black pawn");
    }
}
