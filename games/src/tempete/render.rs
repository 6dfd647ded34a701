//! Drawing a Tempête state: as text (a Unicode board, White at the bottom, then the
//! continuing effects, the hands and whose act it is), as SVG (the board with the
//! effects marked), and the marks of each square for a page's board.
//!
//! Only what is public is drawn: sealed trap squares stay secret until their owner opens
//! them, and a hand's cards are listed only when the caller (its owner) passes them.

use core::fmt::Write as _;

use crate::chess::{Color, File, Piece, Rank, Square};
use crate::table::grid::{Mark, figurine};

use super::board::Trap;
use super::card::{FlowEffect, Pattern};
use super::state::{Pending, State};

fn glyph(p: Piece) -> char {
    figurine(p.color, p.kind)
}

fn name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn square(file: u8, rank: u8) -> Option<Square> {
    Some(Square::new(File::new(file)?, Rank::new(rank)?))
}

fn dark(sq: Square) -> bool {
    (sq.file().index() + sq.rank().index()).is_multiple_of(2)
}

fn pattern_word(p: Pattern) -> String {
    p.to_string()
}

/// The board's own count, as a chess player reads it: "move 12" is White's and Black's
/// twelfth. "ply" is kept for the acts of the game as `sealed show` and `move --expect`
/// count them, so the board never prints a second ply number.
fn move_number(plies: u32) -> String {
    format!("move {}", plies / 2 + 1)
}

/// How long a continuing effect lasts, counted from now.
fn half_moves_left(until: u32, now: u32) -> String {
    match until.saturating_sub(now) {
        1 => "for 1 more half-move".into(),
        n => format!("for {n} more half-moves"),
    }
}

/// The continuing effects, one line each (empty when there are none).
fn effect_lines(s: &State) -> Vec<String> {
    let b = &s.board;
    let mut out = vec![];
    let frozen: Vec<String> = b
        .frozen()
        .iter()
        .filter(|(sq, _)| b.is_frozen(*sq))
        .map(|(sq, until)| format!("{sq} ({})", half_moves_left(*until, b.ply)))
        .collect();
    if !frozen.is_empty() {
        out.push(format!("frozen: {}", frozen.join(", ")));
    }
    let forbidden: Vec<String> = b
        .forbidden()
        .iter()
        .filter(|(sq, _)| b.is_forbidden(*sq))
        .map(|(sq, until)| format!("{sq} ({})", half_moves_left(*until, b.ply)))
        .collect();
    if !forbidden.is_empty() {
        out.push(format!("forbidden: {}", forbidden.join(", ")));
    }
    if b.truce() {
        out.push("truce: no captures until a king is attacked".into());
    }
    let augmented: Vec<String> = Square::all()
        .filter_map(|sq| {
            let a = b.augments(sq);
            (!a.is_empty()).then(|| {
                let words: Vec<String> = a.into_iter().map(pattern_word).collect();
                format!("{sq} +{}", words.join(" +"))
            })
        })
        .collect();
    if !augmented.is_empty() {
        out.push(format!("augmented: {}", augmented.join(", ")));
    }
    for t in b.traps() {
        out.push(format!(
            "{}'s trap on {} ({})",
            name(t.owner),
            t.square,
            t.effect
        ));
    }
    out
}

/// What lies on `sq` besides its piece, for a page's board: the continuing effects, the
/// opened traps, and `own`, this seat's traps still sealed (known to it alone).
pub fn marks(state: &State, sq: Square, own: &[Trap]) -> Vec<Mark> {
    let b = &state.board;
    let mut v = vec![];
    let lasting = |list: &[(Square, u32)]| {
        list.iter()
            .find(|(s, _)| *s == sq)
            .map(|(_, until)| half_moves_left(*until, b.ply))
    };
    if b.is_frozen(sq)
        && let Some(left) = lasting(b.frozen())
    {
        v.push(Mark::new("frozen", format!("frozen {left}")));
    }
    if b.is_forbidden(sq)
        && let Some(left) = lasting(b.forbidden())
    {
        v.push(Mark::new("forbidden", format!("forbidden {left}")));
    }
    let augments = b.augments(sq);
    if !augments.is_empty() {
        let words: Vec<String> = augments.into_iter().map(pattern_word).collect();
        v.push(Mark::new(
            "augmented",
            format!("also moves as {}", words.join(", ")),
        ));
    }
    for t in b.traps().iter().filter(|t| t.square == sq) {
        v.push(Mark::new(
            "trap",
            format!("{}'s trap ({})", name(t.owner), t.effect),
        ));
    }
    for t in own.iter().filter(|t| t.square == sq) {
        v.push(Mark::new(
            "own-trap",
            format!("your sealed trap ({})", t.effect),
        ));
    }
    v
}

/// The board as text: ranks 8 to 1 down, files a to h across, White's pieces hollow
/// glyphs, Black's filled, empty squares `·`, a forbidden empty square `×`; a frozen
/// piece is followed by `*`, an augmented one by `+`. Then the continuing effects, the
/// pieces taken, the hands (and `hand`'s cards, `(number, name)`, if given), and who
/// acts.
pub fn text(state: &State, hand: Option<&[(u32, String)]>) -> String {
    let b = &state.board;
    let mut s = String::new();
    let files = "    a  b  c  d  e  f  g  h";
    let _ = writeln!(s, "{files}");
    for rank in (0..8u8).rev() {
        let _ = write!(s, " {} ", rank + 1);
        for file in 0..8u8 {
            let Some(sq) = square(file, rank) else {
                continue;
            };
            let (c, mark) = match b.position().piece_at(sq) {
                Some(p) => {
                    let mark = if b.is_frozen(sq) {
                        '*'
                    } else if !b.augments(sq).is_empty() {
                        '+'
                    } else {
                        ' '
                    };
                    (glyph(p), mark)
                }
                None if b.is_forbidden(sq) => ('×', ' '),
                None => ('·', ' '),
            };
            let _ = write!(s, " {c}{mark}");
        }
        let _ = writeln!(s, " {}", rank + 1);
    }
    let _ = writeln!(s, "{files}");
    for line in effect_lines(state) {
        let _ = writeln!(s, "{line}");
    }
    for c in [Color::White, Color::Black] {
        let taken: Vec<String> = b
            .captured(c)
            .iter()
            .map(|k| k.upper().to_string())
            .collect();
        if !taken.is_empty() {
            let _ = writeln!(s, "{} has lost: {}", name(c), taken.join(" "));
        }
    }
    for c in [Color::White, Color::Black] {
        let h = state.hand(c);
        let _ = write!(
            s,
            "{}: {} card{}",
            name(c),
            h.size,
            if h.size == 1 { "" } else { "s" }
        );
        if !h.taken.is_empty() {
            let t: Vec<String> = h.taken.iter().map(u32::to_string).collect();
            let _ = write!(s, ", known (taken or kept): {}", t.join(" "));
        }
        let waiting = h.traps.len().saturating_sub(h.sprung as usize);
        if waiting > 0 {
            let plural = if waiting == 1 { "" } else { "s" };
            let _ = write!(s, ", {waiting} trap{plural} sealed");
        }
        if h.sprung > 0 {
            let _ = write!(s, ", {} sprung", h.sprung);
        }
        s.push('\n');
    }
    if let Some(cards) = hand {
        let list: Vec<String> = cards.iter().map(|(n, t)| format!("{n} {t}")).collect();
        let _ = writeln!(s, "your hand: {}", list.join(", "));
    }
    let who = name(state.to_act);
    match (&state.end, &state.pending) {
        (Some(end), _) => {
            let _ = writeln!(s, "game over: {}", end.reason);
        }
        (None, Pending::Answer { by, second, .. }) => {
            let what = match by {
                FlowEffect::CancelCard => "the turn's card is cancelled",
                _ if *second => "the second move must be replaced",
                _ => "the move must be replaced",
            };
            let _ = writeln!(
                s,
                "{who} answers the interception ({what}), {}",
                move_number(state.plies)
            );
        }
        (None, Pending::Turn(Some(_))) => {
            let _ = writeln!(
                s,
                "{who} to play (or intercept {}'s turn), {}",
                name(!state.to_act),
                move_number(state.plies)
            );
        }
        (None, Pending::Turn(None)) => {
            let _ = writeln!(s, "{who} to play, {}", move_number(state.plies));
        }
    }
    s
}

/// The board as a standalone SVG document: squares with file letters and rank numbers,
/// pieces as Unicode glyphs; a frozen piece framed in blue, an augmented one with a green
/// dot, a forbidden square crossed in red, an opened trap circled; who acts below.
pub fn svg(state: &State) -> String {
    const CELL: i32 = 44;
    const MARGIN: i32 = 26;
    const FOOT: i32 = 24;
    let b = &state.board;
    let size = CELL * 8 + 2 * MARGIN;
    let height = size + FOOT;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{height}" viewBox="0 0 {size} {height}" font-family="sans-serif">"#
    );
    let _ = write!(
        s,
        r##"<rect width="{size}" height="{height}" fill="#f4f1e8"/>"##
    );
    for rank in 0..8u8 {
        for file in 0..8u8 {
            let Some(sq) = square(file, rank) else {
                continue;
            };
            let x = MARGIN + CELL * i32::from(file);
            let y = MARGIN + CELL * (7 - i32::from(rank));
            let fill = if dark(sq) { "#b58863" } else { "#f0d9b5" };
            let _ = write!(
                s,
                r#"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}"/>"#
            );
            if b.is_forbidden(sq) {
                let (x2, y2) = (x + CELL - 4, y + CELL - 4);
                let _ = write!(
                    s,
                    r##"<path d="M{} {} L{x2} {y2} M{x2} {} L{} {y2}" stroke="#c0392b" stroke-width="3" opacity="0.7"/>"##,
                    x + 4,
                    y + 4,
                    y + 4,
                    x + 4
                );
            }
            if b.traps().iter().any(|t| t.square == sq) {
                let _ = write!(
                    s,
                    r##"<circle cx="{}" cy="{}" r="{}" fill="none" stroke="#6c3483" stroke-width="2" stroke-dasharray="4 3"/>"##,
                    x + CELL / 2,
                    y + CELL / 2,
                    CELL / 2 - 3
                );
            }
            if let Some(p) = b.position().piece_at(sq) {
                if b.is_frozen(sq) {
                    let _ = write!(
                        s,
                        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#2e86c1" stroke-width="3"/>"##,
                        x + 2,
                        y + 2,
                        CELL - 4,
                        CELL - 4
                    );
                }
                if !b.augments(sq).is_empty() {
                    let _ = write!(
                        s,
                        r##"<circle cx="{}" cy="{}" r="5" fill="#27ae60"/>"##,
                        x + CELL - 8,
                        y + 8
                    );
                }
                let _ = write!(
                    s,
                    r##"<text x="{}" y="{}" font-size="34" text-anchor="middle" fill="#111">{}</text>"##,
                    x + CELL / 2,
                    y + CELL / 2 + 12,
                    glyph(p)
                );
            }
        }
    }
    for i in 0..8u8 {
        let x = MARGIN + CELL * i32::from(i) + CELL / 2;
        let file = char::from(b'a' + i);
        for y in [MARGIN - 8, MARGIN + 8 * CELL + 17] {
            let _ = write!(
                s,
                r#"<text x="{x}" y="{y}" font-size="13" text-anchor="middle">{file}</text>"#
            );
        }
        let y = MARGIN + CELL * (7 - i32::from(i)) + CELL / 2 + 5;
        for x in [MARGIN / 2, size - MARGIN / 2] {
            let _ = write!(
                s,
                r#"<text x="{x}" y="{y}" font-size="13" text-anchor="middle">{}</text>"#,
                i + 1
            );
        }
    }
    let status = match &state.end {
        Some(end) => format!("game over: {}", end.reason),
        None => format!(
            "{} to act, {}{}",
            name(state.to_act),
            move_number(state.plies),
            if state.board.truce() {
                " — truce"
            } else {
                ""
            }
        ),
    };
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" font-size="13" text-anchor="middle">{}</text>"#,
        size / 2,
        height - 6,
        xml_escape(&status)
    );
    s.push_str("</svg>\n");
    s
}

fn xml_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
