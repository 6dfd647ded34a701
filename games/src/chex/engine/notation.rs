//! Display coordinates and the move notation.
//!
//! Squares are written relative to the board as it stands: display `a1` is one square
//! below and left of the pieces' bounding box (the one-square border), files run `a` …
//! `z`, `aa`, `ab` … (bijective base 26), ranks `1`, `2` … northwards. On an empty
//! board `a1` is the origin.
//!
//! A chess move is `[piece][file][rank][x]<to>` or `<from>-<to>`, read without regard
//! to case. A pawn is not named (`P` is accepted) and a pawn capture names its origin
//! file. Because letters are both piece names and files, and `x` is both the capture
//! mark and a file, a token can be read several ways (`bc4`: bishop to c4, pawn from
//! file b to c4, pawn to bc4); every reading is tried, and the token stands iff exactly
//! one legal move fits any of them. A placement is `<Piece>@<square>` (`N@c4`). Why a
//! token does not read or resolve: `notation_error.rs`.

use core::fmt;

use super::board::{Board, Kind, Square};
use super::moves::{self, Move};
use super::notation_error::{ParseError, ReadError, ResolveError};
use super::position::{Phase, PlayError, Ply, Position};

/// A square in display coordinates: file and rank, both counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DisplaySquare {
    /// 1 is `a`, 26 is `z`, 27 is `aa`.
    pub file: u32,
    /// 1 is the bottom (border) rank.
    pub rank: u32,
}

impl DisplaySquare {
    /// Reads a file and a rank, like `c4` or `ab12`, in either case.
    pub fn parse(s: &str) -> Option<DisplaySquare> {
        let split = s.find(|c: char| c.is_ascii_digit())?;
        Some(DisplaySquare {
            file: parse_file(&s[..split])?,
            rank: parse_rank(&s[split..])?,
        })
    }
}

impl fmt::Display for DisplaySquare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", file_name(self.file), self.rank)
    }
}

/// The letters of file `n` (1 → `a`, 26 → `z`, 27 → `aa`, 703 → `aaa`); empty for 0.
pub fn file_name(mut n: u32) -> String {
    let mut letters = vec![];
    while n > 0 {
        n -= 1;
        letters.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
    }
    letters.iter().rev().collect()
}

/// The number of a file written in letters of either case.
pub fn parse_file(s: &str) -> Option<u32> {
    if s.is_empty() {
        return None;
    }
    s.bytes().try_fold(0u32, |n, b| {
        let b = b.to_ascii_lowercase();
        if !b.is_ascii_lowercase() {
            return None;
        }
        n.checked_mul(26)?.checked_add(u32::from(b - b'a') + 1)
    })
}

/// A rank: digits without a leading zero, at least 1.
fn parse_rank(s: &str) -> Option<u32> {
    if s.is_empty() || s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// How display coordinates map onto absolute squares for one board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    /// The absolute square shown as `a1`.
    pub a1: Square,
    /// Files shown: the box's width plus the border on both sides.
    pub files: u32,
    /// Ranks shown: the box's height plus the border on both sides.
    pub ranks: u32,
}

impl Frame {
    /// The frame of a board: the pieces' bounding box plus a one-square border; on an
    /// empty board only `a1`, at the origin.
    pub fn of(board: &Board) -> Frame {
        match board.bounds() {
            None => Frame {
                a1: Square::ORIGIN,
                files: 1,
                ranks: 1,
            },
            Some((lo, hi)) => {
                let span = |a: i32, b: i32| (i64::from(b) - i64::from(a) + 3) as u32;
                Frame {
                    a1: Square::new(lo.x.saturating_sub(1), lo.y.saturating_sub(1)),
                    files: span(lo.x, hi.x),
                    ranks: span(lo.y, hi.y),
                }
            }
        }
    }

    /// The display coordinates of `sq`; `None` left of file `a` or below rank 1.
    pub fn to_display(&self, sq: Square) -> Option<DisplaySquare> {
        let file = i64::from(sq.x) - i64::from(self.a1.x) + 1;
        let rank = i64::from(sq.y) - i64::from(self.a1.y) + 1;
        Some(DisplaySquare {
            file: u32::try_from(file).ok().filter(|&f| f > 0)?,
            rank: u32::try_from(rank).ok().filter(|&r| r > 0)?,
        })
    }

    /// The absolute square shown at `d`; `None` past the i32 range.
    pub fn to_absolute(&self, d: DisplaySquare) -> Option<Square> {
        let x = i64::from(self.a1.x) + i64::from(d.file) - 1;
        let y = i64::from(self.a1.y) + i64::from(d.rank) - 1;
        Some(Square::new(i32::try_from(x).ok()?, i32::try_from(y).ok()?))
    }

    /// The name of `sq`, like `c4`.
    pub fn name(&self, sq: Square) -> Option<String> {
        self.to_display(sq).map(|d| d.to_string())
    }

    /// The absolute square a name like `c4` shows.
    pub fn square(&self, name: &str) -> Option<Square> {
        self.to_absolute(DisplaySquare::parse(name)?)
    }

    /// Whether `sq` is inside the area shown (box plus border).
    pub fn contains(&self, sq: Square) -> bool {
        self.to_display(sq)
            .is_some_and(|d| d.file <= self.files && d.rank <= self.ranks)
    }
}

/// One way of reading a short move token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reading {
    /// The moving kind (a pawn when no piece letter is read).
    pub kind: Kind,
    /// The origin file, if written.
    pub file: Option<u32>,
    /// The origin rank, if written.
    pub rank: Option<u32>,
    /// `x` was read as the capture mark.
    pub capture: bool,
    /// The destination.
    pub to: DisplaySquare,
}

impl Reading {
    /// Whether the legal move `m` (of a `kind` piece) fits this reading.
    fn fits(&self, frame: &Frame, kind: Kind, m: &Move, capture: bool) -> bool {
        let Some(from) = frame.to_display(m.from) else {
            return false;
        };
        self.kind == kind
            && frame.to_display(m.to) == Some(self.to)
            && self.file.is_none_or(|f| f == from.file)
            && self.rank.is_none_or(|r| r == from.rank)
            && (capture || !self.capture)
            // The seed: a pawn capture must name the pawn's file.
            && !(kind == Kind::Pawn && capture && self.file.is_none())
    }
}

/// A token as read, before it is matched against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// `N@c4`: the drawn piece and where it goes.
    Place {
        /// The drawn kind.
        kind: Kind,
        /// Where it goes.
        at: DisplaySquare,
    },
    /// `b3-d4`.
    FromTo {
        /// The origin.
        from: DisplaySquare,
        /// The destination.
        to: DisplaySquare,
    },
    /// Every reading of a short token like `Nf3` or `bxc4`.
    Short(Vec<Reading>),
}

/// Reads a token (a move or a placement) without looking at any position.
pub fn read(token: &str) -> Result<Written, ReadError> {
    let t = token.to_ascii_lowercase();
    if !t.is_ascii() {
        return Err(ReadError::NotAMove(token.to_owned()));
    }
    if let Some((piece, at)) = t.split_once('@') {
        let mut cs = piece.chars();
        let kind = match (cs.next(), cs.next()) {
            (Some(c), None) => Kind::from_letter(c),
            _ => None,
        }
        .ok_or_else(|| ReadError::NotAPiece {
            token: token.to_owned(),
            piece: piece.to_owned(),
        })?;
        let at = DisplaySquare::parse(at).ok_or_else(|| ReadError::NotASquare {
            token: token.to_owned(),
            square: at.to_owned(),
        })?;
        return Ok(Written::Place { kind, at });
    }
    if let Some((from, to)) = t.split_once('-') {
        let sq = |s: &str| {
            DisplaySquare::parse(s).ok_or_else(|| ReadError::NotASquare {
                token: token.to_owned(),
                square: s.to_owned(),
            })
        };
        return Ok(Written::FromTo {
            from: sq(from)?,
            to: sq(to)?,
        });
    }
    let readings = readings(&t);
    if readings.is_empty() {
        return Err(ReadError::NotAMove(token.to_owned()));
    }
    Ok(Written::Short(readings))
}

/// Every reading of a lower-case short token.
fn readings(t: &str) -> Vec<Reading> {
    let b = t.as_bytes();
    if !b.iter().all(|c| c.is_ascii_alphanumeric()) {
        return vec![];
    }
    let digits = b.len() - b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let letters = digits
        - b[..digits]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
    let Some(rank) = parse_rank(&t[digits..]) else {
        return vec![];
    };
    let mut out = vec![];
    // The destination's file is any non-empty tail of the letters before its rank.
    for split in letters..digits {
        let Some(file) = parse_file(&t[split..digits]) else {
            continue;
        };
        let to = DisplaySquare { file, rank };
        let prefix = &t[..split];
        let mut pieces = vec![(Kind::Pawn, prefix)];
        if let Some(kind) = prefix.chars().next().and_then(Kind::from_letter) {
            pieces.push((kind, &prefix[1..]));
        }
        for (kind, rest) in pieces {
            let mut marks = vec![(false, rest)];
            if let Some(r) = rest.strip_suffix('x') {
                marks.push((true, r));
            }
            for (capture, rest) in marks {
                let cut = rest
                    .find(|c: char| c.is_ascii_digit())
                    .unwrap_or(rest.len());
                let (f, r) = rest.split_at(cut);
                let file = if f.is_empty() {
                    Some(None)
                } else {
                    parse_file(f).map(Some)
                };
                let rank = if r.is_empty() {
                    Some(None)
                } else {
                    parse_rank(r).map(Some)
                };
                if let (Some(file), Some(rank)) = (file, rank) {
                    let reading = Reading {
                        kind,
                        file,
                        rank,
                        capture,
                        to,
                    };
                    if !out.contains(&reading) {
                        out.push(reading);
                    }
                }
            }
        }
    }
    out
}

/// The one legal ply a written token names in `pos`.
pub fn resolve(pos: &Position, w: &Written) -> Result<Ply, ResolveError> {
    if let Some(end) = pos.end {
        return Err(PlayError::Over(end).into());
    }
    let frame = Frame::of(&pos.board);
    match w {
        Written::Place { kind, at } => resolve_place(pos, &frame, *kind, *at),
        _ if pos.phase == Phase::Placing => Err(PlayError::MustPlace(pos.to_move).into()),
        Written::FromTo { from, to } => resolve_from_to(pos, &frame, *from, *to),
        Written::Short(readings) => resolve_short(pos, &frame, readings),
    }
}

fn resolve_place(
    pos: &Position,
    frame: &Frame,
    kind: Kind,
    at: DisplaySquare,
) -> Result<Ply, ResolveError> {
    let color = pos.to_move;
    if pos.phase == Phase::Turn && !pos.can_draw() {
        return Err(PlayError::StackEmpty(color).into());
    }
    if !pos.stack(color).contains(kind) {
        return Err(PlayError::NoneLeft { color, kind }.into());
    }
    let sq = frame
        .to_absolute(at)
        .filter(|s| pos.placement_squares().contains(s))
        .ok_or_else(|| {
            if pos.board.is_empty() {
                ResolveError::FirstOnA1
            } else {
                ResolveError::NotNextToPiece(at)
            }
        })?;
    Ok(Ply::Place { kind, at: sq })
}

fn resolve_short(pos: &Position, frame: &Frame, readings: &[Reading]) -> Result<Ply, ResolveError> {
    let fitting: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| fits_any(pos, frame, readings, m, |r| r))
        .collect();
    match fitting.as_slice() {
        [m] => Ok(Ply::Move(*m)),
        [] => Err(why_none(pos, frame, readings)),
        many => Err(ResolveError::Ambiguous(
            many.iter().map(|m| from_to(frame, m)).collect(),
        )),
    }
}

fn resolve_from_to(
    pos: &Position,
    frame: &Frame,
    from: DisplaySquare,
    to: DisplaySquare,
) -> Result<Ply, ResolveError> {
    let color = pos.to_move;
    let m = frame
        .to_absolute(from)
        .zip(frame.to_absolute(to))
        .map(|(f, t)| Move::new(f, t));
    let Some((m, piece)) = m
        .and_then(|m| pos.board.get(m.from).map(|p| (m, p)))
        .filter(|(_, p)| p.color == color)
    else {
        return Err(ResolveError::NoPieceOn { color, from });
    };
    let kind = piece.kind;
    if pos.legal_moves().contains(&m) {
        Ok(Ply::Move(m))
    } else if moves::pseudo_moves_from(&pos.board, m.from).contains(&m) {
        Err(ResolveError::BreaksBoard { kind, from, to })
    } else {
        Err(ResolveError::CannotGo { kind, from, to })
    }
}

/// Whether `m` fits some reading, each first passed through `relax`.
fn fits_any(
    pos: &Position,
    frame: &Frame,
    readings: &[Reading],
    m: &Move,
    relax: fn(Reading) -> Reading,
) -> bool {
    let Some(kind) = pos.board.get(m.from).map(|p| p.kind) else {
        return false;
    };
    let capture = pos.board.get(m.to).is_some();
    readings
        .iter()
        .any(|r| relax(*r).fits(frame, kind, m, capture))
}

/// Why no legal move fits any reading.
fn why_none(pos: &Position, frame: &Frame, readings: &[Reading]) -> ResolveError {
    let any = |list: Vec<Move>, relax: fn(Reading) -> Reading| {
        list.iter()
            .any(|m| fits_any(pos, frame, readings, m, relax))
    };
    if any(pos.pseudo_moves(), |r| r) {
        return ResolveError::WouldBreak;
    }
    if any(pos.legal_moves(), |r| Reading {
        capture: false,
        ..r
    }) {
        return ResolveError::TakesNothing;
    }
    let pawn_capture = pos.legal_moves().iter().any(|m| {
        pos.board.get(m.from).is_some_and(|p| p.kind == Kind::Pawn)
            && pos.board.get(m.to).is_some()
            && readings.iter().any(|r| {
                r.kind == Kind::Pawn && r.file.is_none() && frame.to_display(m.to) == Some(r.to)
            })
    });
    if pawn_capture {
        return ResolveError::PawnFile;
    }
    ResolveError::NoFit(pos.to_move)
}

fn from_to(frame: &Frame, m: &Move) -> String {
    let name = |s| frame.name(s).unwrap_or_else(|| "?".into());
    format!("{}-{}", name(m.from), name(m.to))
}

/// Reads a token and resolves it in `pos`; errors name the token.
pub fn parse_ply(pos: &Position, token: &str) -> Result<Ply, ParseError> {
    let w = read(token)?;
    resolve(pos, &w).map_err(|why| ParseError::Resolve {
        token: token.to_owned(),
        why,
    })
}

/// Reads a chess move (not a placement) and resolves it in `pos`.
pub fn parse_move(pos: &Position, token: &str) -> Result<Move, ParseError> {
    match parse_ply(pos, token)? {
        Ply::Move(m) => Ok(m),
        Ply::Place { .. } => Err(ParseError::Placement(token.to_owned())),
    }
}

/// The shortest usual form of a legal move of the side to move that reads back to
/// exactly that move: the piece letter (none for a pawn), then the origin file, rank,
/// or both only if needed, `x` for a capture, and the destination; `<from>-<to>` if
/// nothing shorter is unique. Squares are in the frame of `pos`.
pub fn write_move(pos: &Position, m: &Move) -> String {
    let frame = Frame::of(&pos.board);
    let (Some(from), Some(to)) = (frame.to_display(m.from), frame.to_display(m.to)) else {
        return from_to(&frame, m);
    };
    let kind = pos.board.get(m.from).map_or(Kind::Pawn, |p| p.kind);
    let x = if pos.board.get(m.to).is_some() {
        "x"
    } else {
        ""
    };
    let (file, rank) = (file_name(from.file), from.rank.to_string());
    let letter = if kind == Kind::Pawn {
        String::new()
    } else {
        kind.letter().to_string()
    };
    let forms = [
        format!("{letter}{x}{to}"),
        format!("{letter}{file}{x}{to}"),
        format!("{letter}{rank}{x}{to}"),
        format!("{letter}{file}{rank}{x}{to}"),
    ];
    forms
        .into_iter()
        .find(|f| parse_ply(pos, f) == Ok(Ply::Move(*m)))
        .unwrap_or_else(|| format!("{from}-{to}"))
}

/// `N@c4`: a placement of `kind` on `at`, in the frame of the board before it.
pub fn write_place(pos: &Position, kind: Kind, at: Square) -> String {
    let frame = Frame::of(&pos.board);
    format!(
        "{}@{}",
        kind.letter(),
        frame.name(at).unwrap_or_else(|| "?".into())
    )
}

/// A ply of the side to move in `pos`, written as in scores.
pub fn write_ply(pos: &Position, ply: &Ply) -> String {
    match ply {
        Ply::Move(m) => write_move(pos, m),
        Ply::Place { kind, at } => write_place(pos, *kind, *at),
    }
}
