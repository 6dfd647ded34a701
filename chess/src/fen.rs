//! FEN in and out, with X-FEN and Shredder-FEN castling letters.
//!
//! One constructor, [`Position::from_fen`], turns text into a [`Position`] or says why
//! it cannot. Castling letters may be `KQkq` (the *outermost* rook on that side of the
//! king, as X-FEN reads them, so they also work for Chess960), Shredder's rook files
//! (`HAha`, `BGbg`), or a mix. Output is X-FEN by default (`KQkq` where that names the
//! rook, a file letter where an inner rook castles) or Shredder-FEN on request.
//!
//! What is accepted is the [`Position`] contract, not standard chess: any number of
//! kings, the side not to move in check, pawns on back ranks. The last two fields may be
//! left out (they default to `0 1`), as EPD and many hand-written FENs do.

use std::fmt;
use std::str::FromStr;

use super::castling::CastleSide;
use super::piece::{Color, Kind, Piece};
use super::position::Position;
use super::square::{File, Rank, Square};

/// Why a text is not a FEN we accept.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FenError {
    /// Not 4 to 6 space-separated fields.
    #[error("a FEN has 4 to 6 fields separated by spaces; this one has {0}")]
    FieldCount(usize),
    /// The placement field does not have 8 ranks.
    #[error("the placement has {0} ranks separated by '/', not 8")]
    RankCount(usize),
    /// A rank does not describe exactly 8 squares.
    #[error("rank {0} does not describe exactly 8 squares")]
    RankLength(char),
    /// A character in the placement that is neither a piece letter nor a digit 1-8.
    #[error("{0:?} in the placement is neither a piece letter nor a digit 1-8")]
    PlacementChar(char),
    /// The side-to-move field is not `w` or `b`.
    #[error("the side to move must be 'w' or 'b', not {0:?}")]
    SideToMove(String),
    /// A castling letter that is not K, Q, A-H (either case) or `-`.
    #[error("{0:?} is not a castling letter (K, Q, A-H, either case, or '-')")]
    CastlingChar(char),
    /// A castling letter that names no rook that could castle.
    #[error("castling letter {letter:?}: {reason}")]
    CastlingRook {
        /// The letter.
        letter: char,
        /// Why it names no castling rook.
        reason: &'static str,
    },
    /// Two letters give the same side the same castling right.
    #[error("castling letter {0:?} repeats a right already given")]
    CastlingRepeated(char),
    /// The en passant field is not a square or `-`.
    #[error("{0:?} is not an en passant square or '-'")]
    EnPassantSyntax(String),
    /// The en passant square is not behind an enemy pawn that just stepped two squares.
    #[error("{0} cannot be the en passant square: no enemy pawn could just have stepped over it")]
    EnPassantSquare(Square),
    /// The half-move clock is not a non-negative integer.
    #[error("the half-move clock must be a non-negative integer, not {0:?}")]
    HalfmoveClock(String),
    /// The move number is not a non-negative integer.
    #[error("the move number must be a non-negative integer, not {0:?}")]
    FullmoveNumber(String),
}

impl Position {
    /// Parses a FEN, X-FEN or Shredder-FEN.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let mut pos = Position::empty();
        parse_placement(&mut pos, fields[0])?;
        pos.turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::SideToMove(other.to_owned())),
        };
        parse_castling(&mut pos, fields[2])?;
        if fields[3] != "-" {
            let sq: Square = fields[3]
                .parse()
                .map_err(|_| FenError::EnPassantSyntax(fields[3].to_owned()))?;
            if !pos.en_passant_holds(sq) {
                return Err(FenError::EnPassantSquare(sq));
            }
            pos.en_passant = Some(sq);
        }
        if let Some(s) = fields.get(4) {
            pos.halfmove_clock = s
                .parse()
                .map_err(|_| FenError::HalfmoveClock((*s).to_owned()))?;
        }
        if let Some(s) = fields.get(5) {
            pos.fullmove_number = s
                .parse()
                .map_err(|_| FenError::FullmoveNumber((*s).to_owned()))?;
        }
        Ok(pos)
    }

    /// The position as X-FEN: identical to standard FEN for standard castling, with a
    /// rook's file letter only where an inner rook holds the right.
    pub fn fen(&self) -> String {
        self.write_fen(false)
    }

    /// The position as Shredder-FEN: every castling right by its rook's file (`HAha`).
    pub fn shredder_fen(&self) -> String {
        self.write_fen(true)
    }

    fn write_fen(&self, shredder: bool) -> String {
        let mut out = String::with_capacity(90);
        for rank in Rank::ALL.into_iter().rev() {
            let mut empty = 0;
            for file in File::ALL {
                match self.piece_at(Square::new(file, rank)) {
                    Some(p) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(p.fen_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank != Rank::FIRST {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(self.turn.fen_char());
        out.push(' ');
        let before = out.len();
        for color in Color::ALL {
            for side in [CastleSide::Short, CastleSide::Long] {
                if let Some(file) = self.castling.rook(color, side) {
                    let letter = if !shredder && self.outermost_rook(color, side) == Some(file) {
                        match side {
                            CastleSide::Short => 'K',
                            CastleSide::Long => 'Q',
                        }
                    } else {
                        file.to_char().to_ascii_uppercase()
                    };
                    out.push(match color {
                        Color::White => letter,
                        Color::Black => letter.to_ascii_lowercase(),
                    });
                }
            }
        }
        if out.len() == before {
            out.push('-');
        }
        out.push(' ');
        match self.en_passant {
            Some(sq) => out.push_str(&sq.to_string()),
            None => out.push('-'),
        }
        out.push_str(&format!(
            " {} {}",
            self.halfmove_clock, self.fullmove_number
        ));
        out
    }

    /// The rook of `color` farthest from its king on `side`, on the back rank: the one
    /// `K`/`Q` names.
    fn outermost_rook(&self, color: Color, side: CastleSide) -> Option<File> {
        let king = self.castling_king(color)?;
        let rooks = self.pieces(color, Kind::Rook);
        let back = color.back_rank();
        let mut files: Vec<File> = match side {
            CastleSide::Short => File::ALL.into_iter().rev().collect(),
            CastleSide::Long => File::ALL.into_iter().collect(),
        };
        files.retain(|&f| match side {
            CastleSide::Short => f > king.file(),
            CastleSide::Long => f < king.file(),
        });
        files.into_iter().find(|&f| rooks.has(Square::new(f, back)))
    }
}

fn parse_placement(pos: &mut Position, field: &str) -> Result<(), FenError> {
    let rows: Vec<&str> = field.split('/').collect();
    if rows.len() != 8 {
        return Err(FenError::RankCount(rows.len()));
    }
    for (row, rank) in rows.iter().zip(Rank::ALL.into_iter().rev()) {
        let mut file = 0u32;
        for c in row.chars() {
            if let Some(n @ 1..=8) = c.to_digit(10) {
                file += n;
            } else if let Some(piece) = Piece::from_fen_char(c) {
                let sq = File::new(file as u8)
                    .filter(|_| file < 8)
                    .map(|f| Square::new(f, rank))
                    .ok_or(FenError::RankLength(rank.to_char()))?;
                pos.set_square(sq, Some(piece));
                file += 1;
            } else {
                return Err(FenError::PlacementChar(c));
            }
            if file > 8 {
                return Err(FenError::RankLength(rank.to_char()));
            }
        }
        if file != 8 {
            return Err(FenError::RankLength(rank.to_char()));
        }
    }
    Ok(())
}

fn parse_castling(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    for letter in field.chars() {
        let color = if letter.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let rook_err = |reason| FenError::CastlingRook { letter, reason };
        let (side, file) = match letter.to_ascii_uppercase() {
            'K' => (
                CastleSide::Short,
                pos.outermost_rook(color, CastleSide::Short)
                    .ok_or(rook_err("no rook on the king's h-side of the back rank"))?,
            ),
            'Q' => (
                CastleSide::Long,
                pos.outermost_rook(color, CastleSide::Long)
                    .ok_or(rook_err("no rook on the king's a-side of the back rank"))?,
            ),
            'A'..='H' => {
                let file = File::from_char(letter.to_ascii_lowercase())
                    .ok_or(FenError::CastlingChar(letter))?;
                let king = pos.castling_king(color).ok_or(rook_err(
                    "the side has not exactly one king, on its back rank",
                ))?;
                let side = if file > king.file() {
                    CastleSide::Short
                } else {
                    CastleSide::Long
                };
                (side, file)
            }
            _ => return Err(FenError::CastlingChar(letter)),
        };
        if pos.castling.rook(color, side).is_some() {
            return Err(FenError::CastlingRepeated(letter));
        }
        if !pos.castle_right_holds(color, side, file) {
            return Err(rook_err(
                "no rook of that side on that file of its back rank, beside its only king",
            ));
        }
        pos.castling.set(color, side, Some(file));
    }
    Ok(())
}

impl FromStr for Position {
    type Err = FenError;

    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::from_fen(s)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}
