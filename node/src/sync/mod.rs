//! The sync protocol: what two nodes say to each other about a game, on one long-lived
//! stream per peer and direction (`/sealed/sync-stream/1`, `frame.rs`), or as one
//! request per substream for peers that speak only `/sealed/sync/1` (`codec.rs`).
//!
//! Envelopes are facts signed by seats; nodes only move them around. A node offers
//! what it has (`Push`), asks for what it lacks (`Pull`, with the counts it holds of
//! each chain), and hands over a new game's signed proposal (`Propose`). Every message
//! is idempotent: a duplicate changes nothing, so delivery may repeat or reorder freely.
//!
//! Files: the messages in the core (`sealed_core::message`, re-exported here); framing
//! under a memory budget `codec.rs`; the stream protocol's frames `frame.rs`; counting a
//! message's items before decoding it `shape.rs`; the budget of answers waiting to be
//! written `owed.rs`.

mod codec;
mod frame;
pub mod owed;
mod shape;

pub use codec::{
    Budget, Budgeted, FREE_PER_CONNECTION, Hold, MAX_HELD, MAX_HELD_PER_CONNECTION, SyncCodec,
};
pub(crate) use codec::{read_small, write_all, write_framed};
pub(crate) use frame::{FRAME_HEAD, request_frame, response_frame};
pub use frame::{Frame, StreamRequestId, read_frame, write_request, write_response};
pub use shape::{BadShape, ITEM_COST, MAX_ITEMS, request_items, response_items};

use libp2p::StreamProtocol;

pub use sealed_core::message::*;

/// The request-response protocol: one request per substream (every node answers it;
/// a node sends on it to peers that do not speak [`STREAM_PROTOCOL`]).
pub const PROTOCOL: StreamProtocol = StreamProtocol::new("/sealed/sync/1");

/// The stream protocol: one long-lived stream per peer and direction, its messages
/// framed with a request id (`frame.rs`).
pub const STREAM_PROTOCOL: StreamProtocol = StreamProtocol::new("/sealed/sync-stream/1");
