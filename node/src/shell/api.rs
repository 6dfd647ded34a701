//! What a node's handle and the shell say to each other: the messages a running node
//! takes ([`Msg`], each with its [`Reply`]), what it answers about itself ([`Info`],
//! [`Door`]), how it is configured ([`NodeConfig`]) and why it did not start
//! ([`StartError`]). The loop that answers them is `mod.rs`.

use libp2p::Multiaddr;
use tokio::sync::oneshot;

use crate::core::{Answer, Cmd, CoreConfig, NodeError};
use crate::net;

/// Why a node did not start, saying which part failed.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The home's key cannot be read.
    #[error("the key: {0}")]
    Key(crate::home::HomeError),
    /// The store cannot be opened (its file, a layout this version cannot read, held
    /// by a command for longer than the node waits).
    #[error(transparent)]
    Store(crate::handover::HandoverError),
    /// Another node already runs for this home (it answers on the control socket).
    #[error("a node already runs for this home: it answers on {}", .0.display())]
    Running(std::path::PathBuf),
    /// The operating system gave no randomness for new games.
    #[error("randomness: {0}")]
    Random(crate::home::HomeError),
    /// The libp2p swarm cannot be built.
    #[error("the network: {0}")]
    Network(String),
    /// An address to listen on is refused.
    #[error("cannot listen on {addr}: {why}")]
    Listen {
        /// The address.
        addr: Multiaddr,
        /// Why.
        why: String,
    },
    /// The games cannot be rebuilt from the store.
    #[error(transparent)]
    Core(NodeError),
}

/// What the shell answers with.
pub type Reply<T> = oneshot::Sender<Result<T, NodeError>>;

/// A request to a running node.
pub enum Msg {
    /// Our peer id and listen addresses.
    Info(Reply<Info>),
    /// Dial an address.
    Dial(Multiaddr, Reply<()>),
    /// Propose a game.
    Propose(ProposeArgs, Reply<Answer>),
    /// Any other command, for the core.
    Core(Cmd, Reply<Answer>),
    /// Stop.
    Shutdown(Reply<()>),
}

/// Arguments of a proposal.
#[derive(Clone, Debug)]
pub struct ProposeArgs {
    /// Variant name.
    pub variant: String,
    /// Options `(key, value)`.
    pub options: Vec<(String, String)>,
    /// The opponent's address, ending in `/p2p/<peer id>` (the peer id gives its key).
    pub peer: Multiaddr,
    /// A mailbox's address, ending in `/p2p/<peer id>`.
    pub mailbox: Option<Multiaddr>,
    /// The referee's address, ending in `/p2p/<peer id>`, for a game that has one
    /// (Secret Stallmate).
    pub referee: Option<Multiaddr>,
    /// A witness's address, ending in `/p2p/<peer id>`: the game is then of protocol
    /// version 2, and the witness is also its mailbox.
    pub witness: Option<Multiaddr>,
}

/// The node's identity and addresses.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Info {
    /// Our peer id.
    pub peer: String,
    /// Where we listen (with `/p2p/<peer id>`).
    pub addrs: Vec<String>,
    /// Every peer this node has been connected to since it started.
    pub met: Vec<String>,
    /// Listen addresses that failed since it started (a relay that refused a
    /// reservation or could not be reached), each with why.
    pub failed: Vec<String>,
    /// Whether peers can dial this node, as AutoNAT found: `public <address>`,
    /// `private` (then it listens through the relays among its mailboxes) or `unknown`.
    pub reachability: String,
    /// What this node serves others, as set when it started: `mailbox`, `witness`,
    /// `relay`, `referee` (none for a player's node that serves only its own games).
    pub serves: Vec<String>,
    /// Games held in memory now: played or relayed.
    pub games_in_memory: usize,
    /// Unfinished games asleep, in the store only until something happens in them.
    pub games_asleep: usize,
    /// Games woken from sleep since the node started.
    pub games_woken: u64,
    /// Why the games this node plays stay in memory, counted by reason.
    pub games_awake_for: std::collections::BTreeMap<crate::core::sleep::Awake, usize>,
    /// The door (`door.rs`): inbound handshakes under way now, and those evicted or
    /// refused since the node started.
    pub door: Door,
    /// The inbound connections established, shared between networks the same way
    /// (`origin.rs` `Gate`): now, and those closed for a newcomer or refused since the
    /// start.
    pub inbound: Door,
}

/// The figures of places shared between networks (the door's, or the inbound
/// connections'), for `sealed peers`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Door {
    /// Places taken now.
    pub waiting: usize,
    /// Places there are.
    pub places: usize,
    /// Connections ended to give their place to a newcomer from a network holding fewer.
    pub evicted: u64,
    /// Newcomers refused because every place was taken and their network held most.
    pub refused: u64,
}

/// How a node runs.
#[derive(Clone, Debug, Default)]
pub struct NodeConfig {
    /// The network.
    pub net: net::NetConfig,
    /// Where to listen.
    pub listen: Vec<Multiaddr>,
    /// What the core does (`sealed_core::CoreConfig`): mailbox, witness, referee, bots,
    /// rate limits, quotas, strangers. A witness is a mailbox too: it keeps the public
    /// envelopes it dates.
    pub core: CoreConfig,
    /// How long a starting node waits for a command that holds the store, and where it
    /// says so (`handover.rs`).
    pub store_wait: crate::handover::StoreWait,
    /// The start journal's file (`journal.rs`); none: no journal (the simulation).
    pub journal: Option<std::path::PathBuf>,
}
