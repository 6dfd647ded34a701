//! The sealed node: the shell that runs the sans-IO core (`sealed_core`, re-exported as
//! `core`) on libp2p and tokio with a durable store (`shell`). The node is the only part
//! of sealed with sockets, clocks and files, and they all live in the shell; the core
//! carries any game through the object-safe tables of `sealed_games::table`.
//!
//! Files: the shell `shell/` (its files in `shell/mod.rs`); the libp2p swarm and its
//! budgets `net.rs`; where a connection comes from and the per-address gate
//! `origin.rs`; the lookup of a peer by peer id `lookup.rs`; the sync messages on
//! libp2p `sync/` (spec/PROTOCOL.md §16: framing under a memory budget `codec.rs`,
//! items counted before decoding `shape.rs`; the messages are the core's,
//! `sealed_core::message`); the handle `handle.rs`, with a count of committed
//! writes that the web board's live stream waits on; the durable redb store `store/`
//! (the API and batches `mod.rs`, tables, layout versions and migration `schema.rs`,
//! the record's one encoding `record.rs`, the strangers' ledger `quota.rs`, the core's
//! read side `impl Durable for Store` `durable.rs`, errors `error.rs`, the file and
//! folder `fs.rs`, the file backend with fault points `backend.rs`); fault points for
//! crash tests `faults.rs`; one transcript checked as `sealed verify` checks it, with
//! its JSON document, for the command line and the web board alike `checked.rs`; the
//! home folder `home.rs`; the control socket `control/` (which requests are core
//! commands, answered alike by a running node and by `offline.rs`, which runs one core
//! over the store when no node runs, so that the game commands and mail work with the
//! node stopped; the hand-over of the store between a starting node and such a command,
//! each waiting for the other, `handover.rs`). Game clocks, rate limits and armored mail are the core's (`clock`,
//! `limit`, `mail` below), and so are the store's record types and the store in memory.
//! The deterministic simulation of many cores is in `core/sim/`; the driver of a
//! core from any bytes, for the fuzz target and the property test, is a crate of its own
//! beside the node (`node/drive/`, `sealed-drive`), no part of this API.

pub mod checked;
pub mod control;
pub mod door;
pub mod faults;
pub mod fresh_port;
pub mod handle;
pub mod handover;
pub mod home;
pub mod journal;
pub mod lookup;
pub mod memory;
pub mod net;
pub mod offline;
pub mod origin;
pub mod reservations;
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
