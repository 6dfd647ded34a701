//! The sync protocol `/sealed/sync/1`: what two nodes say to each other about a game.
//!
//! Envelopes are facts signed by seats; nodes only move them around. A node offers
//! what it has (`Push`), asks for what it lacks (`Pull`, with the counts it holds of
//! each chain), and hands over a new game's signed proposal (`Propose`). Every message
//! is idempotent: a duplicate changes nothing, so delivery may repeat or reorder freely.
//!
//! Files: the messages in the core (`sealed_core::message`, re-exported here); framing
//! under a memory budget `codec.rs`; counting a message's items before decoding it
//! `shape.rs`.

mod codec;
mod shape;

pub use codec::{
    Budget, FREE_PER_CONNECTION, Held, Hold, MAX_HELD, MAX_HELD_PER_CONNECTION, SyncCodec,
};
pub(crate) use codec::{read_small, write_framed};
pub use shape::{BadShape, ITEM_COST, MAX_ITEMS, request_items, response_items};

use libp2p::StreamProtocol;

pub use sealed_core::message::*;

/// The protocol name.
pub const PROTOCOL: StreamProtocol = StreamProtocol::new("/sealed/sync/1");
