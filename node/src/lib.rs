//! The sealed node: a sans-IO core that decides everything a node does (`core`), and the
//! shell that runs it on libp2p and tokio with a durable store (`shell`). The node is the
//! only part of sealed with sockets, clocks and files, and they all live in the shell; the
//! core carries any game through the object-safe tables of `sealed_games::table`.

pub mod checked;
pub mod clock;
pub mod control;
pub mod core;
pub mod drive;
pub mod faults;
pub mod handle;
pub mod home;
pub mod limit;
pub mod lookup;
pub mod mail;
pub mod net;
pub mod offline;
pub mod origin;
pub mod shell;
pub mod store;
pub mod sync;
/// Text from others, made safe to show (in the protocol crate: games print names too).
pub use sealed_protocol::text;

pub use core::GameSummary;
pub use handle::{NodeHandle, start};
pub use home::Home;
/// Peer addresses, as the node takes them.
pub use libp2p::Multiaddr;
/// Their parts.
pub use libp2p::multiaddr;
pub use shell::{Info, NodeConfig, ProposeArgs, StartError};
