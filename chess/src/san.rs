//! Standard Algebraic Notation, written and read against a position.
//!
//! Writing gives the form PGN expects: `O-O`/`O-O-O`, the piece letter, the minimal
//! disambiguation (file if that suffices, else rank, else both), `x` for captures, the
//! pawn's file on pawn captures, `=Q` for promotions, and `+` or `#`.
//!
//! Reading is tolerant of what people write: `0-0` for castling, `e8Q` without `=`,
//! over-disambiguation (`Ngf3`, `Qh4e1`), a missing `x`, `e.p.` after an en passant
//! capture, and trailing `+`, `#`, `!` and `?`, which are ignored (a check mark names no
//! move, and a wrong one in a hand-written score should not make a legal move
//! unreadable). What it does not do is guess: text that matches no legal move is
//! [`SanError::Illegal`], text that matches several is [`SanError::Ambiguous`], and text
//! that does not fit the grammar is [`SanError::Malformed`]. It never panics on any
//! input.

use super::moves::{Move, MoveKind};
use super::piece::Kind;
use super::play::IllegalMove;
use super::position::Position;
use super::square::{File, Rank, Square};
use super::{Bitboard, CastleSide};

/// Why a SAN text names no move in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SanError {
    /// The text does not fit the SAN grammar.
    #[error("{san:?} is not SAN: {reason}")]
    Malformed {
        /// The text read.
        san: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The text is SAN, but no legal move fits it.
    #[error("{san:?} names no legal move here")]
    Illegal {
        /// The text read.
        san: String,
    },
    /// The text fits more than one legal move.
    #[error("{san:?} is ambiguous: it fits {} legal moves", candidates.len())]
    Ambiguous {
        /// The text read.
        san: String,
        /// Every legal move it fits.
        candidates: Vec<Move>,
    },
}

/// The parts of a non-castling SAN move.
struct Parsed {
    kind: Kind,
    file: Option<File>,
    rank: Option<Rank>,
    capture: bool,
    to: Square,
    promotion: Option<Kind>,
    en_passant: bool,
}

enum Shape {
    Castle(CastleSide),
    Move(Parsed),
}

/// Longer than any SAN with annotations (`Qh4xe1=Q+!?` and the like); refusing longer
/// text early keeps garbage cheap.
const MAX_LEN: usize = 24;

impl Position {
    /// The SAN of a legal move, with `+` or `#` when it checks or mates.
    pub fn san(&self, mv: &Move) -> Result<String, IllegalMove> {
        let legal = self.legal_moves();
        if !legal.contains(mv) {
            return Err(IllegalMove {
                mv: *mv,
                fen: self.fen(),
            });
        }
        let mut out = self.san_body(mv, &legal);
        let after = self.play_unchecked(mv);
        if after.is_check() {
            out.push(if after.legal_moves().is_empty() {
                '#'
            } else {
                '+'
            });
        }
        Ok(out)
    }

    /// Reads a SAN move.
    pub fn parse_san(&self, san: &str) -> Result<Move, SanError> {
        let malformed = |reason| SanError::Malformed {
            san: san.to_owned(),
            reason,
        };
        let shape = parse_shape(san).map_err(malformed)?;
        let legal = self.legal_moves();
        let candidates: Vec<Move> = match shape {
            Shape::Castle(side) => legal
                .into_iter()
                .filter(|m| m.castle_side() == Some(side))
                .collect(),
            Shape::Move(p) => legal.into_iter().filter(|m| self.fits(m, &p)).collect(),
        };
        match candidates.len() {
            0 => Err(SanError::Illegal {
                san: san.to_owned(),
            }),
            1 => Ok(candidates[0]),
            _ => Err(SanError::Ambiguous {
                san: san.to_owned(),
                candidates,
            }),
        }
    }

    fn is_capture(&self, mv: &Move) -> bool {
        mv.kind == MoveKind::EnPassant || (mv.castle_side().is_none() && self.occupied().has(mv.to))
    }

    fn fits(&self, mv: &Move, p: &Parsed) -> bool {
        let Some(piece) = self.piece_at(mv.from) else {
            return false;
        };
        mv.castle_side().is_none()
            && piece.kind == p.kind
            && mv.to == p.to
            // Without a promotion letter every promotion fits, so `e8` is ambiguous.
            && p.promotion.is_none_or(|k| mv.promotion == Some(k))
            && p.file.is_none_or(|f| mv.from.file() == f)
            && p.rank.is_none_or(|r| mv.from.rank() == r)
            // A pawn named without its file is pushed straight ahead.
            && (p.kind != Kind::Pawn || p.file.is_some() || mv.from.file() == mv.to.file())
            && (!p.capture || self.is_capture(mv))
            && (!p.en_passant || mv.kind == MoveKind::EnPassant)
    }

    fn san_body(&self, mv: &Move, legal: &[Move]) -> String {
        if let Some(side) = mv.castle_side() {
            return side.san().to_owned();
        }
        let kind = self.piece_at(mv.from).map_or(Kind::Pawn, |p| p.kind);
        let capture = self.is_capture(mv);
        let mut out = String::with_capacity(8);
        if kind == Kind::Pawn {
            if capture {
                out.push(mv.from.file().to_char());
            }
        } else {
            out.push(kind.upper());
            let rivals: Bitboard = legal
                .iter()
                .filter(|m| {
                    m.to == mv.to
                        && m.from != mv.from
                        && m.castle_side().is_none()
                        && self.piece_at(m.from).map(|p| p.kind) == Some(kind)
                })
                .map(|m| m.from)
                .collect();
            if !rivals.is_empty() {
                let same_file = rivals.into_iter().any(|s| s.file() == mv.from.file());
                let same_rank = rivals.into_iter().any(|s| s.rank() == mv.from.rank());
                if !same_file {
                    out.push(mv.from.file().to_char());
                } else if !same_rank {
                    out.push(mv.from.rank().to_char());
                } else {
                    out.push_str(&mv.from.to_string());
                }
            }
        }
        if capture {
            out.push('x');
        }
        out.push_str(&mv.to.to_string());
        if let Some(promo) = mv.promotion {
            out.push('=');
            out.push(promo.upper());
        }
        out
    }
}

/// Splits SAN text into its parts, or says why it cannot.
fn parse_shape(san: &str) -> Result<Shape, &'static str> {
    let mut s = san.trim();
    if s.len() > MAX_LEN {
        return Err("too long");
    }
    if !s.is_ascii() {
        return Err("not ASCII");
    }
    // Peel off annotations, check marks and an e.p. mark, in any order.
    let mut en_passant = false;
    loop {
        let before = s.len();
        s = s.trim_end_matches(['!', '?', '+', '#']).trim_end();
        for mark in ["e.p.", "ep"] {
            if let Some(rest) = s.strip_suffix(mark) {
                s = rest.trim_end();
                en_passant = true;
            }
        }
        if s.len() == before {
            break;
        }
    }
    if s.is_empty() {
        return Err("empty");
    }
    let castle = s.replace(['0', 'o'], "O");
    match castle.as_str() {
        "O-O" => return Ok(Shape::Castle(CastleSide::Short)),
        "O-O-O" => return Ok(Shape::Castle(CastleSide::Long)),
        _ => {}
    }

    let bytes = s.as_bytes();
    let (kind, mut rest) = match bytes[0] {
        b'N' | b'B' | b'R' | b'Q' | b'K' => (
            Kind::from_char(bytes[0] as char).ok_or("bad piece")?,
            &bytes[1..],
        ),
        b'a'..=b'h' => (Kind::Pawn, bytes),
        _ => return Err("must start with a piece letter (NBRQK), a file (a-h) or O-O"),
    };

    let promo_kind = |c: u8| match c.to_ascii_uppercase() {
        b'N' => Some(Kind::Knight),
        b'B' => Some(Kind::Bishop),
        b'R' => Some(Kind::Rook),
        b'Q' => Some(Kind::Queen),
        _ => None,
    };
    let mut promotion = None;
    if let [head @ .., b'=', c] = rest {
        promotion = Some(promo_kind(*c).ok_or("'=' must be followed by N, B, R or Q")?);
        rest = head;
    } else if let [head @ .., d, c] = rest
        && d.is_ascii_digit()
        && let Some(k) = promo_kind(*c)
    {
        promotion = Some(k);
        rest = &rest[..head.len() + 1];
    }
    if promotion.is_some() && kind != Kind::Pawn {
        return Err("only pawns promote");
    }

    let [head @ .., f, r] = rest else {
        return Err("no destination square");
    };
    let to = match (File::from_char(*f as char), Rank::from_char(*r as char)) {
        (Some(f), Some(r)) => Square::new(f, r),
        _ => return Err("no destination square"),
    };
    let mut head = head;
    let mut capture = false;
    if let [h @ .., b'x' | b':'] = head {
        capture = true;
        head = h;
    }
    let (file, rank) = match head {
        [] => (None, None),
        [c] => match (File::from_char(*c as char), Rank::from_char(*c as char)) {
            (Some(f), _) => (Some(f), None),
            (_, Some(r)) => (None, Some(r)),
            _ => return Err("bad disambiguation (expected a file, a rank or a square)"),
        },
        [f, r] => match (File::from_char(*f as char), Rank::from_char(*r as char)) {
            (Some(f), Some(r)) => (Some(f), Some(r)),
            _ => return Err("bad disambiguation (expected a file, a rank or a square)"),
        },
        _ => return Err("too much before the destination square"),
    };
    if kind == Kind::Pawn && (rank.is_some() || (capture && file.is_none())) {
        return Err("a pawn move names only its file, and only when capturing");
    }
    Ok(Shape::Move(Parsed {
        kind,
        file,
        rank,
        capture,
        to,
        promotion,
        en_passant,
    }))
}
