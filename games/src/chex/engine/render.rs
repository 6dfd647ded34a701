//! Drawing a position in display coordinates: as text in the seed's diagram style, and
//! as SVG. Only the display area is drawn: the pieces' bounding box plus the border.
//!
//! Square colours belong to absolute squares, so they do not flip as the board grows:
//! a square is dark when x + y is even, which makes the origin dark (and reproduces the
//! seed's diagram when White's first piece is its Knight).

use core::fmt::Write as _;

use super::board::{Color, Square};
use super::notation::{Frame, file_name};
use super::position::{Phase, Position};

fn dark(sq: Square) -> bool {
    (i64::from(sq.x) + i64::from(sq.y)).rem_euclid(2) == 0
}

/// The board as text: [`diagram`], then whose turn it is ([`status`]).
pub fn text(pos: &Position) -> String {
    diagram(pos) + &status(pos)
}

/// The board: files across the top and bottom, ranks down both sides, dark squares
/// `:::`, White pieces plain (`:N:` on a dark square), Black pieces `*P*`; then the
/// stacks.
pub fn diagram(pos: &Position) -> String {
    let frame = Frame::of(&pos.board);
    let w = frame.ranks.to_string().len();
    let indent = " ".repeat(6 + w + 1);
    let rule = format!("{indent}{}+", "+---".repeat(frame.files as usize));
    let mut files = indent.clone();
    for f in 1..=frame.files {
        let _ = write!(files, " {:^3}", file_name(f));
    }
    let files = files.trim_end().to_owned();
    let mut s = String::new();
    let _ = writeln!(s, "{files}");
    let _ = writeln!(s, "{rule}     Black");
    for rank in (1..=frame.ranks).rev() {
        let _ = write!(s, "      {rank:>w$} |");
        for file in 1..=frame.files {
            let sq = Square::new(
                frame.a1.x.saturating_add((file - 1) as i32),
                frame.a1.y.saturating_add((rank - 1) as i32),
            );
            let cell = match pos.board.get(sq) {
                Some(p) if p.color == Color::Black => format!("*{}*", p.kind),
                Some(p) if dark(sq) => format!(":{}:", p.kind),
                Some(p) => format!(" {} ", p.kind),
                None if dark(sq) => ":::".into(),
                None => "   ".into(),
            };
            let _ = write!(s, "{cell}|");
        }
        let _ = writeln!(s, "  {rank}");
        let _ = writeln!(s, "{rule}{}", if rank == 1 { "     White" } else { "" });
    }
    let _ = writeln!(s, "{files}");
    for c in Color::BOTH {
        let _ = writeln!(s, "{c} stack: {}", pos.stack(c));
    }
    s
}

/// One line: how the position ended, or who is to play or place.
pub fn status(pos: &Position) -> String {
    let mut s = String::new();
    match (pos.end, pos.phase) {
        (Some(e), _) => {
            let _ = writeln!(s, "game over: {}", e.reason());
        }
        (None, Phase::Turn) => {
            // The board's full-move count; "ply" is left to the acts `sealed show` counts.
            let _ = writeln!(s, "{} to play, move {}", pos.to_move, pos.ply / 2 + 1);
        }
        (None, Phase::Placing) => {
            let _ = writeln!(
                s,
                "{} has drawn and must place, move {}",
                pos.to_move,
                pos.ply / 2 + 1
            );
        }
    }
    s
}

/// The display area as a standalone SVG document: squares, file letters and rank
/// numbers, White pieces as dark letters on white discs, Black as white on black.
pub fn svg(pos: &Position) -> String {
    const CELL: i64 = 40;
    const MARGIN: i64 = 28;
    let frame = Frame::of(&pos.board);
    let (files, ranks) = (i64::from(frame.files), i64::from(frame.ranks));
    let (width, height) = (CELL * files + 2 * MARGIN, CELL * ranks + 2 * MARGIN);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = write!(
        s,
        r##"<rect width="{width}" height="{height}" fill="#f4f1e8"/>"##
    );
    for file in 0..files {
        for rank in 0..ranks {
            let sq = Square::new(
                frame.a1.x.saturating_add(file as i32),
                frame.a1.y.saturating_add(rank as i32),
            );
            let x = MARGIN + CELL * file;
            let y = MARGIN + CELL * (ranks - 1 - rank);
            let fill = if dark(sq) { "#b58863" } else { "#f0d9b5" };
            let _ = write!(
                s,
                r##"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#888" stroke-width="0.5"/>"##
            );
            if let Some(p) = pos.board.get(sq) {
                let (disc, ink) = match p.color {
                    Color::White => ("#ffffff", "#1a1a1a"),
                    Color::Black => ("#1a1a1a", "#ffffff"),
                };
                let _ = write!(
                    s,
                    r##"<circle cx="{}" cy="{}" r="{}" fill="{disc}" stroke="#1a1a1a" stroke-width="1.5"/>"##,
                    x + CELL / 2,
                    y + CELL / 2,
                    CELL / 2 - 5
                );
                let _ = write!(
                    s,
                    r#"<text x="{}" y="{}" font-size="18" font-weight="bold" text-anchor="middle" fill="{ink}">{}</text>"#,
                    x + CELL / 2,
                    y + CELL / 2 + 6,
                    p.kind
                );
            }
        }
    }
    for file in 0..files {
        let name = file_name((file + 1) as u32);
        let x = MARGIN + CELL * file + CELL / 2;
        for y in [MARGIN - 9, height - MARGIN + 19] {
            let _ = write!(
                s,
                r#"<text x="{x}" y="{y}" font-size="12" text-anchor="middle">{name}</text>"#
            );
        }
    }
    for rank in 0..ranks {
        let y = MARGIN + CELL * (ranks - 1 - rank) + CELL / 2 + 4;
        for x in [MARGIN / 2, width - MARGIN / 2] {
            let _ = write!(
                s,
                r#"<text x="{x}" y="{y}" font-size="12" text-anchor="middle">{}</text>"#,
                rank + 1
            );
        }
    }
    s.push_str("</svg>\n");
    s
}
