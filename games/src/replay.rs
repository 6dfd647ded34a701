//! The frame every game's score format plugs into for `sealed replay`.

/// A score that replayed legally to its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// Moves (plies) replayed.
    pub plies: usize,
    /// The final position, as text.
    pub position: String,
    /// The result, if the game ended.
    pub result: Option<String>,
    /// The final position drawn as SVG, for games with a board.
    pub svg: Option<String>,
}

/// Why a score did not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// Not readable as a score of this game (exit 2).
    #[error("unreadable score: {0}")]
    Unreadable(String),
    /// Ply `ply` (from 1) is illegal or names no unique legal move (exit 1).
    #[error("ply {ply}: {reason}")]
    Illegal {
        /// Which ply.
        ply: usize,
        /// Why.
        reason: String,
    },
}

impl ReplayError {
    /// `sealed replay`'s exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            ReplayError::Illegal { .. } => 1,
            ReplayError::Unreadable(_) => 2,
        }
    }
}
