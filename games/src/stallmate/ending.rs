//! How a game ends, and what each player scores (the seed's table).
//!
//! | ending | White | Black |
//! |---|---|---|
//! | forfeit (time, resignation) | −10 for the forfeiter, 0 for the other | |
//! | checkmate (either side mated) | −5 | −5 |
//! | threefold repetition | −8 | −8 |
//! | both reduced to bare kings | −6 | −6 |
//! | stalemate (either side) | +n | +n, n = pieces left on the board, both armies, kings and pawns included |
//! | ply limit (option, for bots) | 0 | 0 |
//!
//! Apart from a forfeit both players always score the same: the game is a joint
//! venture towards a full-board stalemate, and the forfeit is the one result worth
//! colluding for. Insufficient material ends nothing (seed rule 8); there is no
//! fifty-move rule, which is why bots want the ply limit.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use sealed_protocol::outcome::{Outcome, SeatResult};

use crate::chess::Color;

use crate::chess::wire;

/// An ending the referee finds on the board right after a "yes".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BoardEnd {
    /// The side now to move is checkmated.
    Checkmate,
    /// The side now to move is stalemated, with this many pieces on the board (both
    /// armies, kings and pawns included).
    Stalemate {
        /// Pieces left on the board.
        pieces: u8,
    },
    /// The position (placement, side to move, castling rights, en passant chance)
    /// stands for the third time.
    Repetition,
    /// Only the two kings are left.
    BareKings,
    /// The agreed number of moves has been played (option `ply-limit`).
    PlyLimit,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ending {
    /// On the board, found after a move.
    Board(BoardEnd),
    /// A player forfeited: ran out of his move period without a legal move, or resigned.
    Forfeit {
        /// Who forfeited.
        #[serde(with = "wire::color")]
        by: Color,
    },
}

/// The points of each player for an ending, White first.
pub fn scores(ending: &Ending) -> [i32; 2] {
    match ending {
        Ending::Forfeit { by: Color::White } => [-10, 0],
        Ending::Forfeit { by: Color::Black } => [0, -10],
        Ending::Board(end) => {
            let each = match end {
                BoardEnd::Checkmate => -5,
                BoardEnd::Repetition => -8,
                BoardEnd::BareKings => -6,
                BoardEnd::Stalemate { pieces } => i32::from(*pieces),
                BoardEnd::PlyLimit => 0,
            };
            [each, each]
        }
    }
}

/// The ending as the protocol's per-seat results (seat 0 White, seat 1 Black), each a
/// [`SeatResult::Score`].
pub fn seat_results(ending: &Ending) -> [SeatResult; 2] {
    scores(ending).map(SeatResult::Score)
}

/// The ending as a protocol [`Outcome`], with the ending's words as the reason.
pub fn outcome(ending: &Ending) -> Outcome {
    Outcome {
        results: seat_results(ending).to_vec(),
        reason: ending.to_string(),
    }
}

impl fmt::Display for BoardEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardEnd::Checkmate => f.write_str("checkmate"),
            BoardEnd::Stalemate { pieces } => write!(f, "stalemate with {pieces} pieces"),
            BoardEnd::Repetition => f.write_str("threefold repetition"),
            BoardEnd::BareKings => f.write_str("bare kings"),
            BoardEnd::PlyLimit => f.write_str("ply limit"),
        }
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Board(end) => end.fmt(f),
            Ending::Forfeit { by } => write!(f, "forfeit by {by}"),
        }
    }
}

/// Words that name no ending.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} names no ending")]
pub struct BadEnding(pub String);

impl FromStr for BoardEnd {
    type Err = BadEnding;

    fn from_str(s: &str) -> Result<BoardEnd, BadEnding> {
        let bad = || BadEnding(s.to_owned());
        let words: Vec<&str> = s.split_whitespace().collect();
        match words.as_slice() {
            ["checkmate"] => Ok(BoardEnd::Checkmate),
            ["stalemate", "with", n, "pieces"] => Ok(BoardEnd::Stalemate {
                pieces: n.parse().map_err(|_| bad())?,
            }),
            ["threefold", "repetition"] => Ok(BoardEnd::Repetition),
            ["bare", "kings"] => Ok(BoardEnd::BareKings),
            ["ply", "limit"] => Ok(BoardEnd::PlyLimit),
            _ => Err(bad()),
        }
    }
}

impl FromStr for Ending {
    type Err = BadEnding;

    fn from_str(s: &str) -> Result<Ending, BadEnding> {
        let words: Vec<&str> = s.split_whitespace().collect();
        match words.as_slice() {
            ["forfeit", "by", "white"] => Ok(Ending::Forfeit { by: Color::White }),
            ["forfeit", "by", "black"] => Ok(Ending::Forfeit { by: Color::Black }),
            _ => s.parse().map(Ending::Board),
        }
    }
}
