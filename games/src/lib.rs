//! Rule engines of the games sealed plays, and how each uses the protocol.
//!
//! A variant is one struct implementing [`sealed_protocol::rules::Rules`] plus one arm
//! of the dispatch in [`variant`].

pub mod cardmate;
pub mod chess;
pub mod chex;
pub mod duel;
pub mod registry;
pub mod replay;
pub mod seat;
pub mod stallmate;
pub mod table;
pub mod tempete;
pub mod variant;
