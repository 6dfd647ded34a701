//! Why a session refused an input, typed by whose fault it is.

use super::NotNow;
use crate::engine::InsertError;
use crate::fault::Fault;
use crate::ids::Name;
use crate::rules::OptionError;

/// Why the session refused an input. Nothing changed. Each says whose fault: the sender's
/// ([`SessionError::Insert`]), this seat's command ([`SessionError::NotNow`],
/// [`SessionError::Refused`]), the terms ([`SessionError::NotASeat`],
/// [`SessionError::Options`]) or another signer of this seat's key
/// ([`SessionError::PositionTaken`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The bytes were not a validly signed envelope of this game.
    #[error("refused envelope: {0}")]
    Insert(#[from] InsertError),
    /// The command does not fit the current phase.
    #[error("not now: {0}")]
    NotNow(#[from] NotNow),
    /// The command would break a rule; it was not sent.
    #[error("refused: {0}")]
    Refused(#[from] Refusal),
    /// The seat is not in the game.
    #[error("this key holds no seat in the game")]
    NotASeat,
    /// The game's options are not valid.
    #[error(transparent)]
    Options(#[from] OptionError),
    /// The seat's own chain already holds another envelope at the position the new one
    /// would take, and that one comes first: the seat's key signs somewhere else too (a
    /// home copied to a second machine). Sending would be an equivocation.
    #[error(
        "this seat's chain already holds another envelope at seq {0} (is its key in use on \
         another node?): nothing was sent"
    )]
    PositionTaken(u64),
    /// A start commitment has no value in this seat's secrets: a fault of this
    /// implementation (the keys and the values come from the same terms), never of a
    /// peer.
    #[error("not now: a start commitment has no value")]
    NoStartValue,
}

/// Why this seat's command would break a rule, in its phase: the fault of whoever
/// gave the command. Nothing was sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The envelope would be over the message cap.
    #[error("the envelope would be {0} bytes")]
    TooLarge(usize),
    /// This seat's own engine finds the envelope at fault.
    #[error("{}: {}", .0.kind, .0.detail)]
    Fault(Box<Fault>),
    /// A setup shown in the public log.
    #[error("a setup is shown in a private log only")]
    SetupInPublic,
    /// This seat has no setup of that name.
    #[error("this seat has no setup {0}")]
    NoSetup(Name),
    /// Sealing the public log.
    #[error("only a private log is sealed")]
    SealPublic,
    /// An act out of turn.
    #[error("it is not this seat's turn")]
    NotYourTurn,
    /// No draw of this seat's waits to be opened from the pool.
    #[error("no draw to open from {0}")]
    NoDraw(Name),
    /// This seat owns no such slot.
    #[error("no slot {1} in deck {0}")]
    NoSlot(Name, u32),
    /// This seat sealed no such value.
    #[error("no sealed value {0}[{1}]")]
    NoValue(Name, u32),
    /// A withdrawal by a seat that did not propose the game.
    #[error("only the player who proposed a game withdraws it; decline it instead")]
    NotProposer,
    /// A withdrawal of a game of protocol version 1, which has no withdrawal.
    #[error("this game was made under protocol version 1, which cannot take an invitation back")]
    NoWithdrawal,
    /// A slot shown without being spent in a game of protocol version 1, which cannot.
    #[error(
        "this game was made under protocol version 1, which cannot show a card without playing it"
    )]
    NoShow,
    /// A withdrawal after another seat accepted: the proposer is bound from then on.
    #[error("{0} has accepted: the game is on, and only resigning ends it")]
    Accepted(crate::ids::Seat),
}
