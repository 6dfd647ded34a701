//! Why Chex notation (`notation.rs`) does not read a token ([`ReadError`]), names no
//! one legal ply of the position ([`ResolveError`]), or both, with the token
//! ([`ParseError`]). Beside the notation rather than in it, which holds the grammar and
//! its writer and would pass 600 lines with them.

use super::board::{Color, Kind};
use super::notation::DisplaySquare;
use super::position::PlayError;

/// Why a token does not read as a move or a placement, before any position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// No reading of the token is a move.
    #[error("{0:?} is not a move")]
    NotAMove(String),
    /// `X@sq` with no piece letter before the `@`.
    #[error("{token:?}: {piece:?} is not a piece letter")]
    NotAPiece {
        /// The token.
        token: String,
        /// The words before the `@` (lower case).
        piece: String,
    },
    /// A square of `X@sq` or `sq-sq` is no square.
    #[error("{token:?}: {square:?} is not a square")]
    NotASquare {
        /// The token.
        token: String,
        /// The words where a square should be (lower case).
        square: String,
    },
}

/// Why a token, read, names no one legal ply of the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// What the position itself refuses: the game is over, a drawn piece waits to be
    /// placed, the stack is empty, no piece of that kind is left.
    #[error(transparent)]
    Play(#[from] PlayError),
    /// The first piece of the game goes on a1 (display coordinates).
    #[error("the first piece goes on a1")]
    FirstOnA1,
    /// The square is not an empty one next to a piece.
    #[error("{0} is not an empty square next to a piece")]
    NotNextToPiece(DisplaySquare),
    /// Several legal moves fit the token.
    #[error("ambiguous: fits {}; disambiguate or write <from>-<to>", .0.join(", "))]
    Ambiguous(
        /// The moves that fit, as `<from>-<to>` in the position's frame.
        Vec<String>,
    ),
    /// No piece of the side to move stands on the from-square.
    #[error("no piece of {color} stands on {from}")]
    NoPieceOn {
        /// The side to move.
        color: Color,
        /// The square written.
        from: DisplaySquare,
    },
    /// `<from>-<to>` is a move of the piece, but it splits the board.
    #[error("{} {from}-{to} would break the board", kind.name())]
    BreaksBoard {
        /// The piece's kind.
        kind: Kind,
        /// Where it stands.
        from: DisplaySquare,
        /// Where it was to go.
        to: DisplaySquare,
    },
    /// `<from>-<to>` is no move of the piece.
    #[error("a {} cannot go from {from} to {to}", kind.name())]
    CannotGo {
        /// The piece's kind.
        kind: Kind,
        /// Where it stands.
        from: DisplaySquare,
        /// Where it was to go.
        to: DisplaySquare,
    },
    /// The short token fits a move that would split the board.
    #[error("that move would break the board")]
    WouldBreak,
    /// The short token is written as a capture of a move that takes nothing.
    #[error("written as a capture but takes nothing")]
    TakesNothing,
    /// A pawn's capture written without its file.
    #[error("a pawn capture must name the pawn's file")]
    PawnFile,
    /// No legal move of the side to move fits the token.
    #[error("no legal move of {0} fits")]
    NoFit(Color),
}

/// Why a token names no legal ply (or move) of a position, with the token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The token does not read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The token reads but names no one legal ply here.
    #[error("{token}: {why}")]
    Resolve {
        /// The token.
        token: String,
        /// Why.
        why: ResolveError,
    },
    /// A placement where a move was asked for.
    #[error("{0}: a placement, not a move")]
    Placement(String),
}
