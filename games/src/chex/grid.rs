//! The Chex board for a page that draws and clicks it: the display area (the pieces'
//! bounding box plus the border where a piece may be placed), named in display
//! coordinates as the notation and the choices name it, turned for Black. Square
//! colours belong to absolute squares, as in the engine's own drawings.

use crate::chess;
use crate::table::grid::{Cell, Grid, Shade, Token, figurine};

use super::engine::{Color, Frame, Kind, Position, Square, file_name};

fn chess_kind(k: Kind) -> chess::Kind {
    match k {
        Kind::King => chess::Kind::King,
        Kind::Queen => chess::Kind::Queen,
        Kind::Rook => chess::Kind::Rook,
        Kind::Bishop => chess::Kind::Bishop,
        Kind::Knight => chess::Kind::Knight,
        Kind::Pawn => chess::Kind::Pawn,
    }
}

/// The display area seen from `from`'s side.
pub(super) fn grid(pos: &Position, from: Color) -> Grid {
    let frame = Frame::of(&pos.board);
    let turned = from == Color::Black;
    let (files, ranks) = (frame.files, frame.ranks);
    // Display file and rank (1-based) of the n-th column and row as shown.
    let file_at = |col: u32| if turned { files - col } else { col + 1 };
    let rank_at = |row: u32| if turned { row + 1 } else { ranks - row };
    let mut cells = Vec::with_capacity((files * ranks) as usize);
    for row in 0..ranks {
        for col in 0..files {
            let sq = Square::new(
                frame.a1.x.saturating_add((file_at(col) - 1) as i32),
                frame.a1.y.saturating_add((rank_at(row) - 1) as i32),
            );
            let dark = (i64::from(sq.x) + i64::from(sq.y)).rem_euclid(2) == 0;
            let piece = pos.board.get(sq).map(|p| Token {
                glyph: figurine(
                    if p.color == Color::White {
                        chess::Color::White
                    } else {
                        chess::Color::Black
                    },
                    chess_kind(p.kind),
                )
                .to_string(),
                side: u8::from(p.color == Color::Black),
                name: format!("{} {}", p.color, p.kind.name()),
                red: false,
            });
            cells.push(Cell {
                square: frame.name(sq).unwrap_or_default(),
                shade: if dark { Shade::Dark } else { Shade::Light },
                piece,
                marks: vec![],
            });
        }
    }
    Grid {
        files: (0..files).map(|c| file_name(file_at(c))).collect(),
        ranks: (0..ranks).map(|r| rank_at(r).to_string()).collect(),
        cells,
        divides: vec![],
        note: Some(
            "Chex has no fixed board: squares are named within the smallest box holding \
             every piece plus a one-square border, a1 at its lower left corner as White \
             sees it. When the pieces spread or draw back, the box moves and every \
             square's name shifts with it; each move and the score use the names of \
             their moment."
                .into(),
        ),
    }
}
