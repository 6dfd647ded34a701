//! A move as people write it: the one reader and the one writer of move text.
//!
//! The grammar is the union of what the games read. SAN (`Nf3`, `exd6`, `e8=Q+`,
//! `O-O`), long algebraic (`Ng1-f3`, `Bc1xh6`, `e7-e8=Q`) and coordinate notation
//! (`g1f3`, `e7e8q`) are all one shape: an optional piece letter, as much of the
//! from-square as is written, `x` (or `:`) for a capture or `-` between two squares, the
//! target square, an optional promotion (`=Q`, or `Q` right after the rank), an optional
//! `e.p.`, and trailing `+ # ! ?`, which name no move and are dropped. Castling is `O-O`
//! or `O-O-O`, also spelled with `0` or `o`.
//!
//! What a caller accepts of it is the caller's: [`Position::parse_san`] refuses what is
//! not SAN (a `P`, a `-`, a pawn's from-rank), Tempête's score reads every form, and a
//! Secret Stallmate attempt must name both squares. Reading never looks at a position and
//! never panics; [`MoveText::fits`] says whether a move of a position is the one meant.
//!
//! Writing is [`fmt::Display`]: what [`MoveText::read`] gives back prints as text that
//! reads back as the same value, so the SAN and long-algebraic writers of every game build
//! a `MoveText` and print it.
//!
//! [`Position::parse_san`]: crate::Position::parse_san

use core::fmt;

use super::castling::CastleSide;
use super::moves::{Move, MoveKind};
use super::piece::Kind;
use super::position::Position;
use super::square::{File, Rank, Square};

/// Longer than any move with its annotations (`Qh4xe1=Q+!?`, `e5xd6e.p.+`); refusing
/// longer text early keeps garbage cheap.
pub const MAX_MOVE_TEXT: usize = 24;

/// A move as written, before any position gives it meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveText {
    /// `O-O` or `O-O-O`.
    Castle(CastleSide),
    /// Any other move.
    Piece(PieceText),
}

/// The parts of a move that is not written as castling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PieceText {
    /// The piece letter written, if any (`P` included). Without one the piece is a pawn,
    /// unless both squares are written (coordinate notation names any piece).
    pub letter: Option<Kind>,
    /// The from-square's file, if written.
    pub file: Option<File>,
    /// The from-square's rank, if written.
    pub rank: Option<Rank>,
    /// `x` or `:` was written.
    pub capture: bool,
    /// `-` was written between the two squares (long algebraic).
    pub dash: bool,
    /// The target square.
    pub to: Square,
    /// The promotion written, of any kind (whether the kind may be promoted to is the
    /// rules' question).
    pub promotion: Option<Kind>,
    /// `e.p.` (or `ep`) was written.
    pub en_passant: bool,
}

/// Why text is not a move: a reason fit to follow "is not a move: ".
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Malformed(pub &'static str);

impl MoveText {
    /// Reads move text (see the module docs for the grammar).
    pub fn read(text: &str) -> Result<MoveText, Malformed> {
        let mut s = text.trim();
        if s.len() > MAX_MOVE_TEXT {
            return Err(Malformed("too long"));
        }
        if !s.is_ascii() {
            return Err(Malformed("not ASCII"));
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
            return Err(Malformed("empty"));
        }
        match s.replace(['0', 'o'], "O").as_str() {
            "O-O" => return Ok(MoveText::Castle(CastleSide::Short)),
            "O-O-O" => return Ok(MoveText::Castle(CastleSide::Long)),
            _ => {}
        }
        let b = s.as_bytes();
        let (letter, mut rest) = match b[0] {
            c @ (b'N' | b'B' | b'R' | b'Q' | b'K' | b'P') => (Kind::from_char(c as char), &b[1..]),
            b'a'..=b'h' => (None, b),
            _ => {
                return Err(Malformed(
                    "it must start with a piece letter (NBRQK), a file (a-h) or O-O",
                ));
            }
        };
        let mut promotion = None;
        if let [head @ .., b'=', c] = rest {
            let kind = Kind::from_char(*c as char)
                .ok_or(Malformed("'=' must be followed by a piece letter"))?;
            promotion = Some(kind);
            rest = head;
        } else if let [head @ .., d, c] = rest
            && d.is_ascii_digit()
            && !head.is_empty()
            && let Some(kind) = Kind::from_char(*c as char).filter(|k| *k != Kind::Pawn)
        {
            promotion = Some(kind);
            rest = &rest[..rest.len() - 1];
        }
        let [head @ .., f, r] = rest else {
            return Err(Malformed("no destination square"));
        };
        let to = square_of(*f, *r).ok_or(Malformed("no destination square"))?;
        let (mut head, mut capture, mut dash) = (head, false, false);
        match head {
            [h @ .., b'x' | b':'] => (head, capture) = (h, true),
            [h @ .., b'-'] => (head, dash) = (h, true),
            _ => {}
        }
        let bad_from = Malformed("bad disambiguation (expected a file, a rank or a square)");
        let (file, rank) = match head {
            [] => (None, None),
            [c] => match (File::from_char(*c as char), Rank::from_char(*c as char)) {
                (Some(f), _) => (Some(f), None),
                (_, Some(r)) => (None, Some(r)),
                _ => return Err(bad_from),
            },
            [f, r] => match (File::from_char(*f as char), Rank::from_char(*r as char)) {
                (Some(f), Some(r)) => (Some(f), Some(r)),
                _ => return Err(bad_from),
            },
            _ => return Err(Malformed("too much before the destination square")),
        };
        if dash && (file.is_none() || rank.is_none()) {
            return Err(Malformed("'-' needs a from-square before it"));
        }
        Ok(MoveText::Piece(PieceText {
            letter,
            file,
            rank,
            capture,
            dash,
            to,
            promotion,
            en_passant,
        }))
    }

    /// Both squares and the promotion, when the text names the from-square in full.
    pub fn squares(&self) -> Option<(Square, Square, Option<Kind>)> {
        match self {
            MoveText::Piece(PieceText {
                file: Some(f),
                rank: Some(r),
                to,
                promotion,
                ..
            }) => Some((Square::new(*f, *r), *to, *promotion)),
            _ => None,
        }
    }

    /// The piece letter written, if any.
    pub fn letter(&self) -> Option<Kind> {
        match self {
            MoveText::Piece(p) => p.letter,
            MoveText::Castle(_) => None,
        }
    }

    /// Why the text is not SAN, if it is not: SAN writes no `P`, no `-`, names a pawn's
    /// file only and only when it captures, and promotes only pawns, to N, B, R or Q.
    pub fn san_form(&self) -> Result<(), Malformed> {
        let MoveText::Piece(p) = self else {
            return Ok(());
        };
        if p.letter == Some(Kind::Pawn) {
            return Err(Malformed(
                "it must start with a piece letter (NBRQK), a file (a-h) or O-O",
            ));
        }
        if p.dash {
            return Err(Malformed("SAN writes no '-' between squares"));
        }
        if p.promotion
            .is_some_and(|k| matches!(k, Kind::Pawn | Kind::King))
        {
            return Err(Malformed("'=' must be followed by N, B, R or Q"));
        }
        let pawn = p.letter.is_none();
        if p.promotion.is_some() && !pawn {
            return Err(Malformed("only pawns promote"));
        }
        if pawn && (p.rank.is_some() || (p.capture && p.file.is_none())) {
            return Err(Malformed(
                "a pawn move names only its file, and only when capturing",
            ));
        }
        Ok(())
    }

    /// Whether `mv`, a move of `pos`, is one the text names; `capture` says whether it
    /// takes a piece (the caller's rules decide, e.g. en passant or a card's capture).
    /// Checks and annotations written are ignored; a missing promotion fits every one.
    pub fn fits(&self, pos: &Position, mv: &Move, capture: bool) -> bool {
        let p = match self {
            MoveText::Castle(side) => return mv.castle_side() == Some(*side),
            MoveText::Piece(p) => p,
        };
        let Some(piece) = pos.piece_at(mv.from) else {
            return false;
        };
        let coordinates = p.letter.is_none() && p.file.is_some() && p.rank.is_some();
        let kind = p.letter.unwrap_or(Kind::Pawn);
        mv.castle_side().is_none()
            && (coordinates || piece.kind == kind)
            && mv.to == p.to
            && p.promotion.is_none_or(|k| mv.promotion == Some(k))
            && p.file.is_none_or(|f| mv.from.file() == f)
            && p.rank.is_none_or(|r| mv.from.rank() == r)
            // A pawn named without its file is pushed straight ahead.
            && (coordinates || kind != Kind::Pawn || p.file.is_some() || mv.from.file() == mv.to.file())
            && (!p.capture || capture)
            && (!p.en_passant || mv.kind == MoveKind::EnPassant)
    }

    /// Long algebraic text of a move: the piece letter (none for a pawn), both squares,
    /// `x` for a capture or `-`, and the promotion: `Ng1-f3`, `e7xd8=Q`.
    pub fn long(
        kind: Option<Kind>,
        from: Square,
        to: Square,
        capture: bool,
        promotion: Option<Kind>,
    ) -> MoveText {
        MoveText::Piece(PieceText {
            letter: kind.filter(|k| *k != Kind::Pawn),
            file: Some(from.file()),
            rank: Some(from.rank()),
            capture,
            dash: !capture,
            to,
            promotion,
            en_passant: false,
        })
    }
}

fn square_of(f: u8, r: u8) -> Option<Square> {
    Some(Square::new(
        File::from_char(f as char)?,
        Rank::from_char(r as char)?,
    ))
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = match self {
            MoveText::Castle(side) => return f.write_str(side.san()),
            MoveText::Piece(p) => p,
        };
        if let Some(k) = p.letter {
            write!(f, "{}", k.upper())?;
        }
        if let Some(file) = p.file {
            write!(f, "{}", file.to_char())?;
        }
        if let Some(rank) = p.rank {
            write!(f, "{}", rank.to_char())?;
        }
        if p.capture {
            f.write_str("x")?;
        } else if p.dash {
            f.write_str("-")?;
        }
        write!(f, "{}", p.to)?;
        if let Some(k) = p.promotion {
            write!(f, "={}", k.upper())?;
        }
        if p.en_passant {
            f.write_str("e.p.")?;
        }
        Ok(())
    }
}
