//! The sealed node: the shell that runs the sans-IO core (`sealed_core`, re-exported as
//! `core`) on libp2p and tokio with a durable store (`shell`). The node is the only part
//! of sealed with sockets, clocks and files, and they all live in the shell; the core
//! carries any game through the object-safe tables of `sealed_games::table`.

pub mod checked;
pub mod control;
pub mod drive;
pub mod faults;
pub mod handle;
pub mod home;
pub mod lookup;
pub mod net;
pub mod offline;
pub mod origin;
pub mod shell;
pub mod store;
pub mod sync;
/// The core, and the parts of it the shell and the faces name.
pub use sealed_core::{self as core, armor as mail, clock, limit};
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
