//! The node core: everything a node decides, with no IO inside — no sockets, no disk, no
//! clock, no operating-system randomness. Inputs go in ([`Input`], each with the time),
//! outputs come out ([`Output`]), as in quinn-proto. A crate of its own, with no
//! dependency on libp2p, tokio or redb, so the compiler keeps it pure. A shell runs it on
//! tokio and libp2p with a redb store (`sealed_node::shell`); the deterministic
//! simulation (core/sim/) runs many cores on one thread with a simulated network and
//! store, and crashes them at every step.
//!
//! **Durable before visible, by construction** (spec/PROTOCOL.md §11.2). Everything a
//! seat's session produces — its envelopes, its secrets, the envelopes it received — goes
//! into a [`Step`](game::queue::Step). A step's writes leave as [`Output::Write`]; its
//! sends, answers and replies are held in the core until [`Input::Written`] says the write
//! is durable, and are dropped if it failed (the game is then set aside and rebuilt from
//! the store once writes work). A game has at most one write in flight; steps made
//! meanwhile wait for it and go out together. Peers, mail and exports are read from the
//! store ([`storage::Durable`]), never from a table. So nothing the core emits can carry an
//! envelope the store does not hold.
//!
//! Files, in three layers, each importing only from the layers below it (no file of the
//! core imports one that imports it back; ARCHITECTURE.md, "the core's layers"):
//!
//! - **Values and questions of the terms**, which know no `Core` and no game held: the
//!   inputs, outputs and commands `io.rs`; the sync protocol's messages `message.rs`; the
//!   read side of the store `storage.rs`, its records `record.rs`, a store in memory
//!   `memory.rs`; typed errors `error.rs`; what the faces are shown `views.rs`, the
//!   players' names `players.rs`, who is who in a game's terms `seats.rs`; clocks
//!   `clock.rs`; whose each game held for a stranger is, how long it lives and who yields
//!   when the node is full `held.rs`; rate limits `limit.rs`; where a connection comes
//!   from `origin.rs`; peer ids as text `peer_id.rs`; a finished game's line `listed.rs`;
//!   mail's armored text `armor.rs`.
//! - **One game**, `game/`: everything the core holds of a game in one slot
//!   (`game/mod.rs`, and the map of them all), the states it is in (`game/states.rs`),
//!   asleep (`game/asleep.rs`), where it stands as the faces say it (`game/standing.rs`),
//!   its writes under way (`game/queue.rs`), what it owes and
//!   what reached whom (`game/delivery.rs`), this seat's dealings with its witness
//!   (`game/asking.rs`) and what this node holds of it as its witness
//!   (`game/witnessed.rs`).
//! - **The core's work**, `impl Core` by job: the write path and rebuilding `durable.rs`,
//!   `restore.rs`; commands `commands.rs`; the sync protocol's answers and requests
//!   `sync.rs`, what it takes `take.rs`; peers, their queues, the requests in flight
//!   (`Asked`), introductions and which invitations to take `peers.rs`; where each peer
//!   can be reached `book.rs`; bots, duties, repair rounds and timeout claims `auto.rs`;
//!   mail `mail.rs`; what strangers may make this node keep `quota.rs`, `holding.rs`;
//!   idle games out of memory `sleep.rs`; the witness `witness.rs`; a seat's asking,
//!   forfeits and giving the witness what it lacks `accuse.rs`, its deposits, fetches
//!   and posted times for private logs `stamps.rs`; the computations' messages of a game
//!   without a referee `computations.rs`, and a message withheld, through the witness,
//!   `lacked.rs`; delivery of the last envelopes `delivery.rs`.
#![forbid(unsafe_code)]

mod accuse;
pub mod armor;
mod auto;
mod book;
pub mod clock;
mod commands;
pub mod crashed;
mod delivery;
mod durable;
pub mod error;
mod game;

mod computations;
mod heads;
pub mod held;
#[cfg(test)]
mod held_tests;
mod holding;
mod hosted;
pub mod io;
mod lacked;
pub mod limit;
mod listed;
mod lookups;
mod mail;
pub mod memory;
pub mod message;
pub mod origin;
pub mod peer_id;
mod peer_key;
mod peers;
pub mod places;
pub mod players;
pub mod quota;
pub mod record;
#[cfg(test)]
mod refereed_tests;
pub mod refusal;
pub mod reserve;
pub mod resident;
#[cfg(test)]
mod resident_tests;
mod restore;
mod rulings;
mod seats;
pub mod sleep;

mod stamps;
pub mod storage;
#[cfg(test)]
mod strangers_tests;
mod sync;
mod take;
#[cfg(test)]
mod test_kit;
mod timeout;
pub mod views;
mod witness;

use std::collections::{HashMap, VecDeque};

use sealed_protocol::hash::Framed;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::random::Stream;

use crate::limit::{BudgetLimits, Budgets, Limits};

pub use error::{Fault, Halt, NodeError, WriteFailed};
pub use io::{
    Answer, Cmd, CmdId, GameRef, Imported, InId, Input, OutId, Output, ProposeArgs, QUOTA_DAY_KEY,
    ShowFormat, WriteId, Writes,
};
pub use players::PlayerView;
pub use quota::Quotas;
/// A game's phase as its view shows it ([`GameView`]).
pub use sealed_protocol::session::Stage;
pub use storage::Durable;
pub use sync::{MAX_QUEUED_BYTES, MAX_QUEUED_WRITES};
pub use views::{
    AddrView, ClockView, Delivery, GameState, GameSummary, GameView, Invitation, NetworkView,
    PeerView, PeersView, Reached, SeatDelivery, SyncCounts, witness_refused_line,
};

use durable::{Waiting, Written};
use game::Games;
use game::queue::Waiter;
use peers::Peers;

/// A game id: the protocol's, one type from the proposal's hash to the store's key.
pub use sealed_protocol::ids::GameId;

pub use peer_key::PeerKey;

/// How a core behaves.
#[derive(Clone, Debug)]
pub struct CoreConfig {
    /// The name this node's player signs into each game it accepts (protocol version 2,
    /// spec/PROTOCOL.md §17.15): the home's name; empty signs none.
    pub name: String,
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
    /// How much of a game's public chains this node keeps as a mailbox or witness, and
    /// how it cuts a witness's answer into ledgers (`places.rs`).
    pub places: places::Places,
    /// How often the repair round runs, in ms (`auto.rs` `repair`): it redials the
    /// peers of unfinished games, pulls from mailboxes, sends heads, and retries what
    /// failed. A game's own deadlines (a duty's time, an opponent's clock) do not wait
    /// for it (`timeout.rs`).
    pub repair_every_ms: u64,
    /// How long a finished game stays in memory after it was last asked for, in ms.
    pub idle_unload_ms: u64,
    /// How long an unfinished game with nothing to do stays in memory after it was last
    /// used, in ms (`sleep.rs`).
    pub sleep_ms: u64,
    /// Take invitations from peers this node shares no game with (a bounded number at
    /// once); when off, only from peers it has played.
    pub strangers: bool,
    /// How long a game held for a stranger lives with nothing new in it (`held.rs`).
    pub lifetime: held::Lifetime,
    /// Bytes of strangers' envelopes the games in memory may hold before a network past
    /// its share is refused; twice it at most (`resident.rs`).
    pub resident_for_strangers: u64,
    /// Durability windows opened on purpose, for the simulation to show it finds each;
    /// all closed by default, and the shell never opens one.
    pub windows: Windows,
}

/// Test switches that break spec/PROTOCOL.md §11.2 on purpose, one per window a node of
/// before had: with one open, the simulation must find an honest seat blamed or a game
/// that never ends (core/sim/tests/simulation.rs). Never set outside tests.
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
            name: String::new(),
            mailbox: false,
            witness: false,
            bots: false,
            bot_seed: 0,
            referee: false,
            limits: Limits::default(),
            quotas: Quotas::default(),
            places: places::Places::REFERENCE,
            repair_every_ms: 5_000,
            idle_unload_ms: 5 * 60 * 1000,
            sleep_ms: 5 * 60 * 1000,
            strangers: true,
            lifetime: held::Lifetime::default(),
            resident_for_strangers: resident::RESIDENT_FOR_STRANGERS,
            windows: Windows::default(),
        }
    }
}

/// Invitations one peer this node shares no game with may have waiting here.
const STRANGER_OPEN: usize = 8;
/// Invitations all such peers together may have waiting here.
const STRANGERS_OPEN: usize = 64;

/// Bots' state for every game (each game's own is in its slot, `game/mod.rs` `Bot`).
#[derive(Default)]
struct Bots {
    /// Bots decide every game.
    all: bool,
    /// The bots' choices' generator.
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
    /// Writes in flight: a game's (its step waits in its slot) or node settings.
    writes: HashMap<WriteId, Written>,
    /// Whether writes work, failed, or a reopen is under way (`durable.rs`).
    store_health: durable::Health,
    /// Node settings whose write failed, by key: written again by the repair round.
    unsaved: std::collections::BTreeMap<String, Vec<u8>>,
    /// Pushes and commands waiting for the writes of the games they carried.
    waiting: HashMap<Waiter, Waiting>,
    next_write: WriteId,
    bots: Bots,
    /// What peers may ask of this node: per peer, per address, in all.
    budgets: Budgets<PeerKey>,
    /// What strangers' games hold here (`quota.rs`).
    ledger: quota::Ledger,
    /// What was refused to peers since the start, by reason (`holding.rs` `note_refused`).
    refused: std::collections::BTreeMap<String, u64>,
    out: VecDeque<Output>,
    /// The moment of the last ledger this node signed as a witness (`witness.rs`).
    last_view: u64,
    /// As a witness, the times and stamps being written (`witness.rs`).
    writing: witness::Writing,
    /// When to look peers up at the lookup points (`lookups.rs`).
    lookups: lookups::Lookups,
    /// Games woken from sleep since the core started (`sleep.rs`).
    woken: u64,
    /// When the repair round next looks for games held for strangers that expired
    /// (`held.rs`).
    next_expiry: u64,
    /// Each game's next deadline (`game/deadlines.rs`, `timeout.rs`).
    deadlines: game::deadlines::Deadlines,
    /// When the next repair round is due (`timeout.rs`).
    repair_at: u64,
    /// Repair rounds run so far: which share of the connected peers a round sends its
    /// heads to when there are more than a round sends at once (`auto.rs`).
    rounds: u64,
    /// The input being handled came with a clock reading earlier than the core's time
    /// (the wall clock was set back): the core's time stands still meanwhile.
    clock_behind: bool,
    /// The day old tombstones were last swept (`held.rs`).
    tombstones_swept: Option<u64>,
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
        Core::start_watched(key, cfg, seed, now, store, &mut |_| {})
    }

    /// As [`Core::start`], telling `restoring` each game's id before its restore starts:
    /// the shell keeps it in a journal that outlives a crash, so that a game whose
    /// restore stopped the node is set aside at the next start (`crashed.rs`).
    pub fn start_watched(
        key: SecretKey,
        cfg: CoreConfig,
        seed: [u8; 32],
        now: u64,
        store: &dyn Durable,
        restoring: &mut dyn FnMut(&GameId),
    ) -> Result<Core, NodeError> {
        let rng = Stream::new(&Framed::new("sealed/node/entropy").field(&seed).finish());
        let mut core = Core {
            bots: Bots {
                all: cfg.bots,
                counter: cfg.bot_seed,
            },
            budgets: Budgets::new(BudgetLimits::from_peer(cfg.limits)),
            ledger: quota::Ledger::load(
                store
                    .meta(QUOTA_DAY_KEY)
                    .ok()
                    .flatten()
                    .and_then(|b| Some(u64::from_le_bytes(b.try_into().ok()?))),
                store.quotas().unwrap_or_else(|e| {
                    tracing::warn!("the quotas' ledger cannot be read: {e}");
                    vec![]
                }),
                now,
            ),
            refused: Default::default(),
            key,
            cfg,
            rng,
            now,
            games: Games::default(),
            peers: Peers::default(),
            writes: HashMap::new(),
            store_health: durable::Health::Working,
            unsaved: std::collections::BTreeMap::new(),
            waiting: HashMap::new(),
            next_write: WriteId(0),
            woken: 0,
            next_expiry: 0,
            deadlines: Default::default(),
            repair_at: now,
            rounds: 0,
            clock_behind: false,
            tombstones_swept: None,
            out: VecDeque::new(),
            last_view: 0,
            writing: witness::Writing::default(),
            lookups: lookups::Lookups::default(),
        };
        core.load(store, restoring)?;
        // Finished games whose last envelopes a seat has not acknowledged itself (a
        // mailbox did): offered to it whenever it connects (`delivery.rs`).
        for (id, debt) in game::delivery::Debt::load(store) {
            if let Some(slot) = core.games.slot_mut(&id) {
                slot.restore_debt(debt);
            }
        }
        core.recall(store);
        Ok(core)
    }

    /// Takes one input at time `now`; then drain [`Core::poll_output`].
    pub fn handle(&mut self, now: u64, input: Input, store: &dyn Durable) {
        self.clock_behind = now < self.now;
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
                for a in &addrs {
                    self.learn_at(peer, a.clone(), seen);
                }
                self.found(peer, addrs);
            }
            Input::LookupPoints { points, ask } => self.lookup_points(points, ask),
            Input::DialFailed { peer, addrs, why } => {
                self.dial_failed(peer, addrs, why);
                // It may have moved: looked up.
                self.look_up(peer);
            }
            Input::Request { peer, id, req } => self.serve(peer, id, req, store),
            Input::Introduced {
                peer,
                id,
                game,
                addrs,
            } => self.introduced(peer, id, game, addrs),
            Input::Response { id, resp } => self.answered(id, Some(resp), store),
            Input::RequestFailed { id } => self.answered(id, None, store),
            Input::Message {
                peer,
                game,
                index,
                bytes,
            } => self.message(peer, game, index, bytes, store),
            Input::MessageLost { peer, game, index } => self.message_lost(peer, game, index),
            Input::Timeout => self.timeout(store),
        }
        // What the peer book learned, in one write at a time (`peers.rs`).
        self.flush_book();
    }

    /// The next thing the shell must do.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    /// This node's key.
    pub fn key(&self) -> PeerKey {
        PeerKey::from(self.key.public().to_bytes())
    }

    /// Whether this node's seat of a game it plays may see `chain` now (its own view:
    /// a private log outside its audience only once the game is over), if the game is in
    /// memory. For the simulation's check of §16.4.
    pub fn sees(&self, game: &GameId, chain: sealed_protocol::ids::ChainId) -> Option<bool> {
        let p = self.games.played(game)?;
        Some(
            p.table()
                .session()
                .envelopes()
                .visible(chain, p.table().session().seat()),
        )
    }

    /// Whether the game's table holds an envelope of `chain` (for the simulation).
    pub fn holds(&self, game: &GameId, chain: sealed_protocol::ids::ChainId) -> bool {
        self.games.played(game).is_some_and(|p| {
            p.table()
                .session()
                .envelopes()
                .counts()
                .iter()
                .any(|(c, n)| *c == chain && *n > 0)
        })
    }

    /// Whether the node holds a game as finished: in memory, done and settled (its verdict
    /// final) in its view, or dormant in its store (only finished games are). `false` for
    /// a game set aside.
    pub fn finished(&self, game: &GameId) -> bool {
        self.games.dormant(game).is_some() || self.games.played(game).is_some_and(|p| p.settled())
    }

    /// Whether a game is in memory and done (complete) in this node's view.
    pub fn is_done(&self, game: &GameId) -> Option<bool> {
        self.games
            .played(game)
            .map(|p| p.table().session().phase().is_done())
    }

    /// How many games are in memory and asleep, and how many woke (`sleep.rs`).
    pub fn residency(&self) -> sleep::Residency {
        sleep::Residency {
            in_memory: self.games.all_played().count() + self.games.all_relayed().count(),
            asleep: self.games.all_asleep().count(),
            woken: self.woken,
        }
    }

    /// Why each game in memory that is not asleep stays so, counted (`sleep.rs`).
    pub fn awake_counts(&self) -> std::collections::BTreeMap<sleep::Awake, usize> {
        let mut out = std::collections::BTreeMap::new();
        for (id, _) in self.games.all_played() {
            if let Some(why) = self.awake_for(id) {
                *out.entry(why).or_default() += 1;
            }
        }
        out
    }

    /// Whether an unfinished game is asleep, out of memory (`sleep.rs`), for tests.
    pub fn asleep(&self, game: &GameId) -> bool {
        self.games.asleep(game).is_some()
    }

    /// Writes in flight, for the simulation's crash classes.
    pub fn writes_in_flight(&self) -> usize {
        self.games.writes_in_flight()
    }

    /// Peers this core has been connected to since it started (the latest
    /// [`peers::MAX_MET`]).
    pub fn met(&self) -> impl Iterator<Item = &PeerKey> {
        self.peers.met.iter()
    }

    /// Whether this node proposed a game or its player accepted it, and it is not
    /// settled: the games for which introductions are taken.
    pub fn game_accepted(&self, game: &GameId) -> bool {
        // A game asleep is accepted and unfinished (`sleep.rs`).
        self.games.asleep(game).is_some()
            || self
                .games
                .played(game)
                .is_some_and(|p| p.accepted() && !p.settled())
    }

    /// Whether the peer book has an entry for a peer.
    pub fn knows_peer(&self, peer: &PeerKey) -> bool {
        self.peers.book.get(peer).is_some()
    }

    /// What strangers' games hold here: per proposer, and in all (for tests and
    /// figures).
    pub fn used_by(&self, proposer: &PeerKey) -> (crate::record::Usage, crate::record::Usage) {
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
