//! Drawing a position: as text (the seed's diagram style), as SVG, and as the cells of a
//! board a page draws.

use std::fmt::Write as _;

use super::board::{Side, Square};
use super::card::Suit;
use super::position::Position;
use crate::table::grid::{Cell, Grid, Shade, Token};

/// The board as text, rank 9 at the top; Rearhand's cards in lower case.
pub fn text(pos: &Position) -> String {
    let mut s = String::new();
    for rank in (0..10).rev() {
        let _ = write!(s, "{rank} ");
        for file in 0..10 {
            let sq = Square::new(file, rank).expect("on board");
            match pos.board.get(sq) {
                Some(p) if p.side == Side::Forehand => {
                    let _ = write!(s, " {}", p.card);
                }
                Some(p) => {
                    let _ = write!(s, " {}", p.card.to_string().to_lowercase());
                }
                None if Side::Forehand.palace().contains(&sq)
                    || Side::Rearhand.palace().contains(&sq) =>
                {
                    s.push_str(" ==")
                }
                None => s.push_str(" --"),
            }
        }
        s.push('\n');
        if rank == 5 {
            s.push_str("  ------------------------------\n");
        }
    }
    s.push_str("   a  b  c  d  e  f  g  h  i  j\n");
    match pos.end {
        Some(e) => {
            let _ = writeln!(s, "game over: {}", e.reason());
        }
        None => {
            // The board's full-move count; "ply" is left to the acts `sealed show` counts.
            let _ = writeln!(s, "{:?} to move, move {}", pos.to_move, pos.ply / 2 + 1);
        }
    }
    s
}

/// The board as a standalone SVG document: palaces shaded, the middle line drawn,
/// Forehand's cards striped blue, Rearhand's brown, red suits in red.
pub fn svg(pos: &Position) -> String {
    const CELL: i32 = 48;
    const MARGIN: i32 = 24;
    let size = CELL * 10 + 2 * MARGIN;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" font-family="sans-serif">"#
    );
    let _ = write!(
        s,
        r##"<rect width="{size}" height="{size}" fill="#f4f1e8"/>"##
    );
    for sq in Square::all() {
        let x = MARGIN + CELL * i32::from(sq.file());
        let y = MARGIN + CELL * (9 - i32::from(sq.rank()));
        let palace = Side::Forehand.palace().contains(&sq) || Side::Rearhand.palace().contains(&sq);
        let fill = if palace {
            "#e8d18a"
        } else if (sq.file() + sq.rank()) % 2 == 0 {
            "#c9d6c3"
        } else {
            "#eef2ea"
        };
        let _ = write!(
            s,
            r##"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#888" stroke-width="0.5"/>"##
        );
        if let Some(p) = pos.board.get(sq) {
            let stripe = if p.side == Side::Forehand {
                "#7fc8d8"
            } else {
                "#9a6a3a"
            };
            let ink = if p.card.suit.is_red() {
                "#c0202a"
            } else {
                "#1a1a1a"
            };
            let (cx, cy) = (x + 4, y + 4);
            let w = CELL - 8;
            let _ = write!(
                s,
                r##"<rect x="{cx}" y="{cy}" width="{w}" height="{w}" rx="4" fill="white" stroke="{stripe}" stroke-width="3"/>"##
            );
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" font-size="18" text-anchor="middle" fill="{ink}">{}</text>"#,
                x + CELL / 2,
                y + CELL / 2 + 6,
                p.card
            );
        }
    }
    let mid = MARGIN + CELL * 5;
    let _ = write!(
        s,
        r##"<line x1="{MARGIN}" y1="{mid}" x2="{}" y2="{mid}" stroke="#333" stroke-width="2"/>"##,
        MARGIN + CELL * 10
    );
    for i in 0..10 {
        let file = (b'a' + i as u8) as char;
        let x = MARGIN + CELL * i + CELL / 2;
        let _ = write!(
            s,
            r#"<text x="{x}" y="{}" font-size="12" text-anchor="middle">{file}</text>"#,
            size - 8
        );
        let y = MARGIN + CELL * (9 - i) + CELL / 2 + 4;
        let _ = write!(
            s,
            r#"<text x="10" y="{y}" font-size="12" text-anchor="middle">{i}</text>"#
        );
    }
    s.push_str("</svg>\n");
    s
}

/// The board for a page that draws and clicks it, seen from `from`'s side (Rearhand's
/// turned): palaces shaded, the middle line after the fifth row, each card as its rank
/// and suit symbol (`9♥`), red suits in red.
pub fn grid(pos: &Position, from: Side) -> Grid {
    let turned = from == Side::Rearhand;
    let order = |i: i8| if turned { i } else { 9 - i };
    let mut cells = Vec::with_capacity(100);
    for row in 0..10 {
        for col in 0..10 {
            let Some(sq) = Square::new(9 - order(col), order(row)) else {
                continue;
            };
            let palace =
                Side::Forehand.palace().contains(&sq) || Side::Rearhand.palace().contains(&sq);
            let shade = if palace {
                Shade::Palace
            } else if (sq.file() + sq.rank()) % 2 == 0 {
                Shade::Dark
            } else {
                Shade::Light
            };
            let piece = pos.board.get(sq).map(|p| Token {
                glyph: format!("{}{}", p.card.rank.letter(), suit_symbol(p.card.suit)),
                side: p.side.index() as u8,
                name: format!("{:?} {}", p.side, p.card),
                red: p.card.suit.is_red(),
            });
            cells.push(Cell {
                square: sq.to_string(),
                shade,
                piece,
                marks: vec![],
            });
        }
    }
    Grid {
        files: (0..10)
            .map(|c| char::from(b'a' + (9 - order(c)) as u8).to_string())
            .collect(),
        ranks: (0..10).map(|r| order(r).to_string()).collect(),
        cells,
        divides: vec![4],
        note: None,
    }
}

fn suit_symbol(s: Suit) -> char {
    match s {
        Suit::Clubs => '♣',
        Suit::Diamonds => '♦',
        Suit::Hearts => '♥',
        Suit::Spades => '♠',
    }
}
