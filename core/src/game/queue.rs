//! A game's writes under way (spec/PROTOCOL.md §11.2, durable before visible): what one
//! decision or delivery made the game do ([`Step`]: what to write, then what to show),
//! the write in flight and the steps made meanwhile ([`Queue`]), and the exports that
//! wait for the table and the store to agree. The core's write path, which stages steps
//! and releases them once durable, is `durable.rs` above.

use sealed_games::table::Table;
use sealed_protocol::session::Action;

use crate::io::{Answer, CmdId, InId, Writes};
use crate::message::Request;
use crate::{NodeError, PeerKey, WriteId};

/// What one decision or delivery made a game do: what to write, then what to show.
#[derive(Debug, Default)]
pub(crate) struct Step {
    pub(crate) writes: Writes,
    /// Requests to peers.
    pub(crate) sends: Vec<(PeerKey, Request)>,
    /// Peers' pushes and commands waiting for this step (with others) to be durable.
    pub(crate) answers: Vec<Waiter>,
    /// Replies to commands.
    pub(crate) replies: Vec<(CmdId, Result<Answer, NodeError>)>,
    /// Offer the game to its peers once durable (a new proposal).
    pub(crate) offer: bool,
    /// Messages of the game's computations to send once durable: to whom, at what
    /// position (`computations.rs`).
    pub(crate) messages: Vec<(PeerKey, u64, Vec<u8>)>,
    /// The write drops the game (a declined invitation, `holding.rs`): once it is
    /// durable and released, the game leaves memory too.
    pub(crate) then_forget: bool,
}

impl Step {
    pub(crate) fn merge(&mut self, other: Step) {
        self.then_forget |= other.then_forget;
        self.writes.extend(other.writes);
        self.sends.extend(other.sends);
        self.answers.extend(other.answers);
        self.replies.extend(other.replies);
        self.offer |= other.offer;
        self.messages.extend(other.messages);
    }
}

/// Something that waits for the steps of one or more games to be durable: a peer's push
/// (`PushMany` carries several games) or a command (mail carries several games).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Waiter {
    /// A peer's request, answered `Ok` with the count of new envelopes.
    Peer(InId),
    /// A command, answered with what was set aside for it.
    Command(CmdId),
}

/// Every action a table has queued.
pub(crate) fn drain(t: &mut dyn Table) -> Vec<Action> {
    std::iter::from_fn(|| t.session_mut().poll_action()).collect()
}

/// What an export reads, once the game's table and the store agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Export {
    Transcript,
    Document(sealed_games::table::Document),
}

/// A game's writes: at most one in flight, the steps made meanwhile, the exports that
/// wait for the table and the store to agree (`durable.rs`). The steps are boxed: a
/// step is 400 bytes, and most games, most of the time, have none under way, so the
/// slot of every game held (thousands asleep at a public referee) stays small.
#[derive(Default)]
pub(crate) struct Queue {
    /// The write in flight and the step it makes visible once durable.
    pub(super) in_flight: Option<(WriteId, Box<Step>)>,
    /// Steps made since, merged: they go with the next write.
    pub(super) next: Option<Box<Step>>,
    /// Exports waiting until nothing of the game is being written.
    pub(super) exports: Vec<(CmdId, Export)>,
}

impl Queue {
    /// Whether nothing of the game is being written or waits to be.
    pub(super) fn idle(&self) -> bool {
        self.in_flight.is_none() && self.next.is_none()
    }
}
