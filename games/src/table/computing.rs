//! What a node sees of a game whose two players compute together beside the transcript
//! ([`Computing`]; Secret Stallmate without a referee, spec/GAMES.md §5.15): the messages
//! of the computations, whose hashes the transcript signs, the state kept across a
//! restart, and the deposit with the witness of a message the other player says he
//! lacks. A table hands it out ([`crate::table::Table::computing`]) only when its game
//! has computations, so every other game's table carries none of it.

use sealed_protocol::hash::Hash;

use super::Refusal;

/// One seat's side of the computations between the players. They are under way from the
/// proposal until the session's phase is done: the node reads a message's bytes only
/// then, from the game's other player (spec/PROTOCOL.md §16.7), and closes anyone else's
/// stream after its header.
pub trait Computing {
    /// Takes what the node hands the computations ([`Given`]). `Ok(true)`: taken and
    /// new — a message the node stores before anything this seat does next can depend
    /// on it (durable before visible), the stamp this seat waited for, a state resumed
    /// or a deposit found false; `Ok(false)`: nothing new (a message held already, a
    /// statement that is not the stamp). Refused with the reason, changing nothing,
    /// when a message is not the next or not the one signed, or a kept state does not
    /// read.
    fn handle(&mut self, given: Given<'_>) -> Result<bool, Refusal>;
    /// This seat's last message for the other player, once the act that signs its hash
    /// is accepted and while the other has not answered it: only if not handed out yet,
    /// or `again` (the other reconnected, or has waited). With its position.
    fn message_out(&mut self, again: bool) -> Option<(u64, Vec<u8>)>;
    /// This seat's state of the computations once one is finished and the act ending it
    /// signed, if newer than the last handed out: the position of the first message it
    /// does not cover, and its bytes. The node stores the bytes with that act or after
    /// it, and in the same write forgets the other player's messages before that
    /// position: nothing here reads them again ([`Given::Resume`] takes their place).
    fn kept_out(&mut self) -> Option<(u64, Vec<u8>)>;
    /// Where this seat stands with the deposits of messages withheld ([`Deposits`]).
    fn deposits(&mut self) -> Deposits;
}

/// Where one seat stands with the deposits left with the game's witness for a message
/// the other player says he lacks (spec/GAMES.md §5.15, "A message withheld"): the one
/// it owes and the one it waits for; both `None` in a game going its way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deposits {
    /// This seat's message that the other player said he lacks, sealed to him as a
    /// deposit for the witness, while the deposit is owed and the witness's stamp of it
    /// has not come.
    pub out: Option<Vec<u8>>,
    /// The deposit this seat waits for, for a message it lacks: the message's position
    /// and the deposit's hash the sender's stamp names.
    pub wanted: Option<(u64, Hash)>,
}

/// What a node hands one seat's computations ([`Computing::handle`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Given<'a> {
    /// A message the other player's node sent beside the transcript, at its position.
    Message {
        /// The message's position in the computations.
        index: u64,
        /// Its bytes, as they came.
        bytes: Vec<u8>,
    },
    /// The state [`Computing::kept_out`] handed out, taken back after a restart before
    /// the messages stored since.
    Resume(&'a [u8]),
    /// A statement of the witness (its bytes): kept when it is the stamp of the deposit
    /// this seat owes, which the table's duty then posts.
    Statement(&'a [u8]),
    /// The deposit the stamp names does not open, with this seat's key, to the message
    /// whose hash was signed (why, in words): this seat halts (the table's duty), and
    /// the audit proves the deposit against its sender.
    DepositFalse(String),
}
