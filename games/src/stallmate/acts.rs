//! The acts of Secret Stallmate on the wire (postcard), public and private.
//!
//! Only the referee acts in public: he starts the clock and closes each move period
//! with the digest of its private log and what the opponent hears. Attempts and the
//! answers to them travel in the period's private log, between the mover and the
//! referee alone (spec/GAMES.md §5.9).

use serde::{Deserialize, Serialize};

use sealed_protocol::hash::Hash;
use sealed_protocol::rules::Violation;

use super::announce::Heard;
use super::answer::Answer;
use super::attempt::Attempt;
use super::ending::Ending;

/// The most bytes an act may take: a period's announcements are a few hundred at most.
pub const MAX_ACT: usize = 16 * 1024;

/// The most announcements one period may report.
pub const MAX_HEARD: usize = 1024;

/// An act in a move period's private log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Private {
    /// The mover tries a move or asks "Any?".
    Attempt(Attempt),
    /// The referee answers the attempt just made.
    Answer(Answer),
}

/// The close of one move period, posted by the referee in public.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodEnd {
    /// Which period, from 0 (White's first).
    pub period: u32,
    /// The digest of the period's private log as the referee sealed it
    /// (spec/PROTOCOL.md §2.3): it stands for the exchange without telling its length.
    pub digest: Hash,
    /// What the opponent hears, in order.
    pub heard: Vec<Heard>,
    /// How the game ended, if it did: on the board after the period's move, or by the
    /// mover's forfeit when the period passed without one.
    pub ending: Option<Ending>,
}

/// A public act (the referee's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Public {
    /// The first move period starts now (the envelope's clock).
    Begin,
    /// A move period ends.
    Period(PeriodEnd),
}

/// Encodes an act.
pub fn encode<T: Serialize>(act: &T) -> Vec<u8> {
    sealed_protocol::wire::encode(act)
}

/// Decodes an act, refusing anything over [`MAX_ACT`] or not canonical.
pub fn decode<T: Serialize + serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Violation> {
    sealed_protocol::wire::decode(bytes, MAX_ACT).map_err(|e| Violation(format!("act: {e}")))
}
