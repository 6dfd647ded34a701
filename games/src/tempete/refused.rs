//! Why Tempête refuses at a table (`table.rs`): a person's words ([`TempeteError`]: they
//! do not read, or the rules refuse the act they name, [`CheckError`]) and an arbiter's
//! ruling from outside the seats ([`RulingError`]). Beside the table rather than in it,
//! which would pass 600 lines with them.

use super::command::CommandError;
use super::holding::NotInHand;

/// Why a person's Tempête words are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TempeteError {
    /// The words do not read as an act.
    #[error(transparent)]
    Command(#[from] CommandError),
    /// The act reads, but the rules refuse it here.
    #[error("{text}: {why}")]
    Refused {
        /// The words.
        text: String,
        /// Why.
        why: CheckError,
    },
}

/// Why the rules refuse a command, judged as its envelope would be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The act's bytes do not decode.
    #[error(transparent)]
    Decode(#[from] sealed_protocol::wire::WireError),
    /// A slot the command opens or shows is not in hand.
    #[error(transparent)]
    NotInHand(#[from] NotInHand),
    /// The rules refuse the act, in their words.
    #[error("{}", .0.0)]
    Rules(sealed_protocol::rules::Violation),
}

/// Why an arbiter's ruling is not taken from outside the seats.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RulingError {
    /// The act is no ruling.
    #[error("only the arbiter's ruling comes from outside the seats")]
    NotARuling,
    /// The terms name no arbiter.
    #[error("this game names no arbiter")]
    NoArbiter,
    /// A game of protocol version 1, where a posted ruling would accept the claims
    /// before it.
    #[error("a node posts a ruling only in games of protocol version 2")]
    Version1,
    /// The signature is not the arbiter's.
    #[error("the ruling on dispute {0} is not signed by the game's arbiter")]
    NotSigned(u32),
    /// The dispute is not open (settled, ruled, lapsed or none).
    #[error("dispute {0} is not open")]
    NotOpen(u32),
}
