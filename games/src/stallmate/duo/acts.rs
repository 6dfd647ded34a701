//! The acts of Secret Stallmate without a referee (spec/GAMES.md §5.15), all public:
//! what the transcript keeps of the two players' computations. The messages themselves
//! travel between the two nodes; their hashes are signed here, each before its receiver
//! may use the message.

use serde::{Deserialize, Serialize};

use sealed_protocol::hash::Hash;
use sealed_protocol::rules::Violation;

use super::super::ending::BoardEnd;

/// The most bytes an act may take.
pub const MAX_ACT: usize = 256;

/// A public act.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Act {
    /// The mover's commitment to his next attempt (`sealed_mpc::play::record::commitment`),
    /// made before its computation starts.
    Attempt(Hash),
    /// The hash of the next message of the computations (`record::step_hash`), by its
    /// sender.
    Step(Hash),
    /// White's hash of the last message of a computation, with what it told: whether a
    /// move was made, whether it captured, and the ending it brought.
    Done(Done),
    /// The seat that owes the next act stops the game instead: a message it received
    /// cannot be used (it does not read, or a returned label is no label), or a `Done`
    /// says what the computation did not tell. The audit decides who deviated; if no
    /// one did, the halt itself is the fault.
    Halt,
    /// Once the game has ended on the board or by a halt, each player in turn — White,
    /// then Black — opens his two setups, army and engine seed, in the envelope of this
    /// act: owed on time like any act, so a player who walks away instead of opening
    /// them loses on time.
    Open,
    /// The seat that owes the next act has not received the other player's last message,
    /// whose hash is signed: the other then owes [`Act::Deposited`], and the wait is his.
    /// Once a message: a sender who signs a hash and withholds the bytes cannot make the
    /// receiver owe the next message (spec/GAMES.md §5.15, "A message withheld").
    Lacking,
    /// The sender of the message lacked leaves it with the witness, sealed to the receiver
    /// as a deposit (spec/PROTOCOL.md §17.10): the bytes of the witness's signed stamp of
    /// it. The receiver fetches it there; the audit checks that it seals that message.
    Deposited(Vec<u8>),
}

/// The last message of a computation, and what the computation told both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Done {
    /// The message's hash.
    pub hash: Hash,
    /// Whether the attempt made a move (false for the start).
    pub made: bool,
    /// Whether that move captured: announced to both.
    pub capture: bool,
    /// The ending the move brought on the board.
    pub ending: Option<BoardEnd>,
}

/// Encodes an act.
pub fn encode(act: &Act) -> Vec<u8> {
    sealed_protocol::wire::encode(act)
}

/// Decodes an act, refusing anything over [`MAX_ACT`] or not canonical.
pub fn decode(bytes: &[u8]) -> Result<Act, Violation> {
    sealed_protocol::wire::decode(bytes, MAX_ACT).map_err(|e| Violation(format!("act: {e}")))
}
