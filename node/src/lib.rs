//! The sealed node: libp2p transport, the durable store, and the actor that drives
//! sessions. The node is the only part of sealed with sockets, clocks and files; it
//! carries any game through the object-safe tables of `sealed_games::table`.

pub mod actor;
pub mod clock;
pub mod control;
pub mod faults;
pub mod handle;
pub mod home;
pub mod limit;
pub mod mail;
pub mod net;
pub mod store;
pub mod sync;

pub use actor::{ActorConfig, GameSummary, Info, ProposeArgs};
pub use handle::{NodeHandle, start};
pub use home::Home;
/// Peer addresses, as the node takes them.
pub use libp2p::Multiaddr;
