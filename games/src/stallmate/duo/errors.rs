//! Why a player's side of the computations (`player.rs`, `table.rs`) refuses or stops:
//! a message of the other's it does not take ([`MessageRefused`]), a kept state that
//! does not resume ([`ResumeError`]), a step it cannot make ([`StepError`], which halts
//! the side). Beside the player rather than in it, which is past 600 lines already.

use sealed_mpc::play::game::PlayError;

use super::circuits::CircuitsError;
use super::player::MAX_MESSAGE;

/// Why a message of the other player's is refused; nothing changed, and its sender may
/// send the right one again.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MessageRefused {
    /// A message this side sends, not the other.
    #[error("message {0} is this side's own to send")]
    OwnToSend(u64),
    /// Larger than any message may be.
    #[error("message {index} takes {len} bytes, more than the {MAX_MESSAGE} a message may")]
    TooLarge {
        /// Its position.
        index: u64,
        /// Its length in bytes.
        len: usize,
    },
    /// Not the next message this side takes.
    #[error("message {index} is not the next one (message {next} is)")]
    NotNext {
        /// Its position.
        index: u64,
        /// The position of the next one.
        next: u64,
    },
    /// Not the message whose hash its sender signed.
    #[error("message {0} is not the one whose hash its sender signed")]
    NotSigned(u64),
    /// Before this side's game started, only the other's first message is kept.
    #[error("message {0} is not the first, and this side's game has not started")]
    NotFirst(u64),
}

/// Why a kept state of the computations does not resume.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// The bytes do not read as a kept state.
    #[error("the kept state of the computations does not read")]
    Unreadable,
    /// This seat's game has not started: there is no player to resume.
    #[error("the game has not started at this seat")]
    NotStarted,
    /// The side's own state does not resume.
    #[error("the kept state of the computations: {0:?}")]
    Side(PlayError),
}

/// Why this side cannot make or take a step of the computations: it halts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// No commitment of the attempt was posted before the computation.
    #[error("no commitment before computation {0}")]
    NoCommitment(u64),
    /// This side's own commitment does not open under its seed.
    #[error("this side's commitment of computation {0} opens to nothing")]
    OpensToNothing(u64),
    /// The message needs the other's message before it, which this side does not hold.
    #[error("message {} needs the other's message {} first", .0, .0.wrapping_sub(1))]
    NeedsOther(u64),
    /// The computation refused (a fault of the other side's, or a circuit).
    #[error("message {index}: {why:?}")]
    Computation {
        /// The message's position.
        index: u64,
        /// Why.
        why: PlayError,
    },
    /// The message is the other side's to make.
    #[error("message {0} is the other side's")]
    OthersMessage(u64),
    /// White's `Done` does not say what the computation told Black.
    #[error("White's Done of computation {0} says what the computation did not tell")]
    FalseDone(u64),
    /// The circuit files of this build do not read.
    #[error(transparent)]
    Circuits(#[from] CircuitsError),
}
