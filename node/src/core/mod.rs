//! The node core: everything a node decides, with no IO inside — no sockets, no disk, no
//! clock, no operating-system randomness. Inputs go in ([`Input`], each with the time),
//! outputs come out ([`Output`]), as in quinn-proto. A shell runs it on tokio and libp2p
//! (`crate::shell`); the deterministic simulation (node/tests/sim) runs many cores on one
//! thread with a simulated network and store, and crashes them at every step.
//!
//! **Durable before visible, by construction** (spec/PROTOCOL.md §11.2). Everything a
//! seat's session produces — its envelopes, its secrets, the envelopes it received — goes
//! into a [`Step`]. A step's writes leave as [`Output::Write`]; its sends, answers and
//! replies are held in the core until [`Input::Written`] says the write is durable, and
//! are dropped if it failed (the game is then set aside and rebuilt from the store once
//! writes work). A game has at most one write in flight; steps made meanwhile wait for it
//! and go out together. Peers, mail and exports are read from the store
//! ([`storage::Durable`]), never from a table. So nothing the core emits can carry an
//! envelope the store does not hold.
//!
//! Files: the inputs and outputs `io.rs`; the read side of the store `storage.rs`; typed
//! errors `error.rs`; games in memory, loaded, dormant or set aside `games.rs`; the write
//! path and rebuilding `durable.rs`; commands `commands.rs`; the sync protocol's
//! answers and requests `sync.rs`, what it takes `take.rs`; peers and request queues `peers.rs`; where each peer can be reached
//! `book.rs`; bots, duties, repair
//! rounds and timeout claims `auto.rs`; mail `mail.rs`; what strangers may make this
//! node keep `quota.rs`.

mod accuse;
mod auto;
mod book;
mod commands;
mod delivery;
mod durable;
pub mod error;
mod games;
pub mod io;
mod mail;
mod peers;
pub mod players;
pub mod quota;
mod stamps;
pub mod storage;
mod sync;
mod take;
mod witness;

use std::collections::{HashMap, HashSet, VecDeque};

use sealed_protocol::hash::Framed;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::random::Stream;

use crate::limit::{BudgetLimits, Budgets, Limits};

pub use error::{Halt, NodeError};
pub use io::{
    Answer, Cmd, CmdId, GameSummary, Imported, InId, Input, OutId, Output, ProposeArgs, Writes,
};
pub use players::PlayerView;
pub use quota::Quotas;
pub use storage::Durable;
pub use sync::MAX_QUEUED_WRITES;

use commands::Export;
use durable::{Step, Waiter, Waiting};
use games::Games;
use peers::Peers;

/// A game id.
pub type GameId = [u8; 32];

/// A peer, named by its Ed25519 key (its libp2p peer id is derived from it by the shell).
pub type PeerKey = [u8; 32];

/// A store write, numbered by the core.
pub type WriteId = u64;

/// How a core behaves.
#[derive(Clone, Debug)]
pub struct CoreConfig {
    /// Keep and forward games that name this node as a mailbox.
    pub mailbox: bool,
    /// Be the witness of games that name this node so (protocol version 2): date
    /// every public envelope when first held with its causal past, keep deposits, and
    /// sign ledgers and stamps on request.
    pub witness: bool,
    /// Let bots decide in every game from the start (the demo).
    pub bots: bool,
    /// Seed of the bots' choices (not of any secret).
    pub bot_seed: u64,
    /// Accept every proposal that seats this node as its referee (`sealed referee`).
    pub referee: bool,
    /// Per-peer rate limits on what peers ask of this node (an address's are twice,
    /// everyone's together ten times: `crate::limit`).
    pub limits: Limits,
    /// What strangers may make this node keep (`quota.rs`).
    pub quotas: Quotas,
    /// How long a finished game stays in memory after it was last asked for, in ms.
    pub idle_unload_ms: u64,
    /// Take invitations from peers this node shares no game with (a bounded number at
    /// once); when off, only from peers it has played.
    pub strangers: bool,
    /// Durability windows opened on purpose, for the simulation to show it finds each;
    /// all closed by default, and the shell never opens one.
    pub windows: Windows,
}

/// Test switches that break spec/PROTOCOL.md §11.2 on purpose, one per window a node of
/// before had: with one open, the simulation must find an honest seat blamed or a game
/// that never ends (node/tests/simulation.rs). Never set outside tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Windows {
    /// What a step signed is sent before its write is durable (the restore that sent
    /// without storing).
    pub send_before_durable: bool,
    /// A failed write does not set the game aside: the table, ahead of the store, goes
    /// on and peers are served from it (the write that failed after the engine moved
    /// on).
    pub serve_from_memory: bool,
    /// Only games in memory are known: an offer of a game the store holds but memory
    /// does not is a new invitation (the game that failed to load).
    pub forget_index: bool,
}

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            mailbox: false,
            witness: false,
            bots: false,
            bot_seed: 0,
            referee: false,
            limits: Limits::default(),
            quotas: Quotas::default(),
            idle_unload_ms: 5 * 60 * 1000,
            strangers: true,
            windows: Windows::default(),
        }
    }
}

/// Invitations one peer this node shares no game with may have waiting here.
const STRANGER_OPEN: usize = 8;
/// Invitations all such peers together may have waiting here.
const STRANGERS_OPEN: usize = 64;

/// Bots' state: which games they decide, which changed since they last looked.
#[derive(Default)]
struct Bots {
    all: bool,
    on: HashSet<GameId>,
    dirty: HashSet<GameId>,
    counter: u64,
}

/// The core of one node.
pub struct Core {
    key: SecretKey,
    cfg: CoreConfig,
    /// Entropy for new games: a ChaCha20 stream the shell keys from the operating
    /// system's randomness (the simulation from its seed).
    rng: Stream,
    /// The time of the input being handled, ms since the Unix epoch.
    now: u64,
    games: Games,
    peers: Peers,
    /// Writes in flight, with the game and the step waiting for each (none for a write
    /// of node settings).
    writes: HashMap<WriteId, (Option<GameId>, Step)>,
    /// The store reopen asked for, if any.
    recovering: Option<WriteId>,
    /// A write failed since the store was last (re)opened.
    store_failed: bool,
    /// Node settings whose write failed, by key: written again on a tick.
    unsaved: std::collections::BTreeMap<String, Vec<u8>>,
    /// Pushes and commands waiting for the writes of the games they carried.
    waiting: HashMap<Waiter, Waiting>,
    /// Exports waiting until their game's table and the store agree.
    exports: std::collections::BTreeMap<GameId, Vec<(CmdId, Export)>>,
    /// Per game, the write in flight and the step made since, which goes next.
    in_flight: HashMap<GameId, WriteId>,
    next_step: HashMap<GameId, Step>,
    next_write: WriteId,
    bots: Bots,
    /// What peers may ask of this node: per peer, per address, in all.
    budgets: Budgets<PeerKey>,
    /// What strangers' games hold here (`quota.rs`).
    ledger: quota::Ledger,
    /// Finished games whose last envelopes a seat has not acknowledged itself (a
    /// mailbox did): offered to it whenever it connects (`delivery.rs`).
    owed: delivery::Owed,
    out: VecDeque<Output>,
    /// The moment of the last ledger this node signed as a witness (`witness.rs`).
    last_view: u64,
    /// When this seat last asked each game's witness (`witness.rs`), in memory only.
    witness_asked: HashMap<GameId, u64>,
    /// Since when each game's witness has left this seat's asks unanswered.
    witness_waiting: HashMap<GameId, u64>,
    /// The wait in progress by each game's witness's last answer (`accuse.rs`).
    witness_times: HashMap<GameId, accuse::WitnessTimes>,
    /// As a seat, this node's dealings with each game's witness over its private logs
    /// (`stamps.rs`), in memory only.
    stamp_asking: HashMap<GameId, stamps::Asking>,
    /// As a witness, the times and stamps being written (`witness.rs`).
    writing: witness::Writing,
}

impl Core {
    /// A core for the node whose key is `key`, its games rebuilt from `store`: every
    /// unfinished game in memory (finished ones load when asked for), those that cannot
    /// be read set aside. `seed` keys the stream every new game's entropy comes from.
    pub fn start(
        key: SecretKey,
        cfg: CoreConfig,
        seed: [u8; 32],
        now: u64,
        store: &dyn Durable,
    ) -> Result<Core, NodeError> {
        let rng = Stream::new(&Framed::new("sealed/node/entropy").field(&seed).finish());
        let mut core = Core {
            bots: Bots {
                all: cfg.bots,
                counter: cfg.bot_seed,
                ..Bots::default()
            },
            budgets: Budgets::new(BudgetLimits::from_peer(cfg.limits)),
            ledger: quota::Ledger::load(store.quotas().unwrap_or_else(|e| {
                tracing::warn!("the quotas' ledger cannot be read: {e}");
                vec![]
            })),
            owed: delivery::Owed::load(store),
            key,
            cfg,
            rng,
            now,
            games: Games::default(),
            peers: Peers::default(),
            writes: HashMap::new(),
            recovering: None,
            store_failed: false,
            unsaved: std::collections::BTreeMap::new(),
            waiting: HashMap::new(),
            exports: std::collections::BTreeMap::new(),
            in_flight: HashMap::new(),
            next_step: HashMap::new(),
            next_write: 0,
            out: VecDeque::new(),
            last_view: 0,
            witness_asked: HashMap::new(),
            witness_waiting: HashMap::new(),
            witness_times: HashMap::new(),
            stamp_asking: HashMap::new(),
            writing: witness::Writing::default(),
        };
        core.load(store)?;
        core.recall(store);
        Ok(core)
    }

    /// Takes one input at time `now`; then drain [`Core::poll_output`].
    pub fn handle(&mut self, now: u64, input: Input, store: &dyn Durable) {
        self.now = self.now.max(now);
        match input {
            Input::Command { id, cmd } => self.command(id, cmd, store),
            Input::Written { write, result } => self.written(write, result, store),
            Input::Connected { peer, addr, origin } => self.connected(peer, addr, origin, store),
            Input::Disconnected { peer } => self.disconnected(peer),
            Input::Learned { peer, addrs } => {
                for a in addrs {
                    self.learn(peer, a);
                }
            }
            Input::Found { peer, addrs, seen } => {
                // An address is as fresh as the record it came in, never fresher than
                // now.
                let seen = seen.min(self.now);
                for a in addrs {
                    self.learn_at(peer, a, seen);
                }
            }
            Input::DialFailed { peer, addrs, why } => self.dial_failed(peer, addrs, why),
            Input::Request { peer, id, req } => self.serve(peer, id, req, store),
            Input::Introduced {
                peer,
                id,
                game,
                addrs,
            } => self.introduced(peer, id, game, addrs),
            Input::Response { id, resp } => self.answered(id, Some(resp), store),
            Input::RequestFailed { id } => self.answered(id, None, store),
            Input::Tick => self.tick(store),
            Input::Due => self.due(store),
        }
        // What the peer book learned, in one write at a time (`peers.rs`).
        self.flush_book();
    }

    /// The next thing the shell must do.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    /// The earliest time a duty comes due with time alone (a move period's end), so the
    /// shell can send [`Input::Due`] then.
    pub fn due_at(&self) -> Option<u64> {
        self.games
            .played
            .values()
            .filter_map(|p| p.table.due_at())
            .min()
    }

    /// This node's key.
    pub fn key(&self) -> [u8; 32] {
        self.key.public().to_bytes()
    }

    /// Whether this node's seat of a game it plays may see `chain` now (its own view:
    /// a private log outside its audience only once the game is over), if the game is in
    /// memory. For the simulation's check of §16.4.
    pub fn sees(&self, game: &GameId, chain: sealed_protocol::ids::ChainId) -> Option<bool> {
        let p = self.games.played.get(game)?;
        Some(p.table.session().visible(chain, p.table.seat()))
    }

    /// Whether the game's table holds an envelope of `chain` (for the simulation).
    pub fn holds(&self, game: &GameId, chain: sealed_protocol::ids::ChainId) -> bool {
        self.games.played.get(game).is_some_and(|p| {
            p.table
                .session()
                .chain_counts()
                .iter()
                .any(|(c, n)| *c == chain && *n > 0)
        })
    }

    /// Whether the node holds a game as finished: in memory, done and settled (its verdict
    /// final) in its view, or dormant in its store (only finished games are). `false` for
    /// a game set aside.
    pub fn finished(&self, game: &GameId) -> bool {
        self.games.dormant.contains_key(game)
            || self.games.played.get(game).is_some_and(|p| p.settled)
    }

    /// Whether a game is in memory and done (complete) in this node's view.
    pub fn is_done(&self, game: &GameId) -> Option<bool> {
        self.games.played.get(game).map(|p| p.table.is_done())
    }

    /// Writes in flight, for the simulation's crash classes.
    pub fn writes_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Peers this core has been connected to since it started (the latest
    /// [`peers::MAX_MET`]).
    pub fn met(&self) -> impl Iterator<Item = &PeerKey> {
        self.peers.met.iter()
    }

    /// Whether this node proposed a game or its player accepted it, and it is not
    /// settled: the games for which introductions are taken.
    pub fn game_accepted(&self, game: &GameId) -> bool {
        self.games
            .played
            .get(game)
            .is_some_and(|p| p.accepted() && !p.settled)
    }

    /// Whether the peer book has an entry for a peer.
    pub fn knows_peer(&self, peer: &PeerKey) -> bool {
        self.peers.book.get(peer).is_some()
    }

    /// What strangers' games hold here: per proposer, and in all (for tests and
    /// figures).
    pub fn used_by(&self, proposer: &PeerKey) -> (crate::store::Usage, crate::store::Usage) {
        (self.ledger.of(proposer), self.ledger.all())
    }

    /// Whether a peer is a mailbox or rendezvous point this node keeps connected (the
    /// shell registers its addresses there, and looks peers up there).
    pub fn is_standing(&self, peer: &PeerKey) -> bool {
        self.peers.book.is_standing(peer)
    }

    /// The mailboxes and rendezvous points this node keeps connected.
    pub fn standing(&self) -> impl Iterator<Item = &PeerKey> {
        self.peers.book.standing()
    }

    /// 32 bytes of the entropy stream.
    fn random32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        for chunk in b.chunks_mut(4) {
            chunk.copy_from_slice(&self.rng.next_u32().to_le_bytes());
        }
        b
    }
}
