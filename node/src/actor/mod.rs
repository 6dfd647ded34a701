//! The node actor: one task owns the swarm, the store and every game; the rest of the
//! program talks to it through a bounded channel, a command and a one-shot reply.
//!
//! Rules the actor keeps: durable before visible (spec/PROTOCOL.md §11.2, in
//! `durable.rs`): a secret and every envelope a step signs are committed together before
//! anything is sent, and peers are served from the store (`serve.rs`); a peer may push
//! to a game only if it holds a seat of the game or is one of its mailboxes.

mod auto;
mod by_mail;
mod commands;
mod durable;
mod peers;
mod serve;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Duration;

use futures::StreamExt;
use libp2p::multiaddr::Protocol;
use libp2p::request_response::{self, OutboundRequestId};
use libp2p::swarm::SwarmEvent;
use libp2p::{Multiaddr, PeerId, Swarm};
use tokio::sync::{mpsc, oneshot};

use sealed_games::table::{self, Table};
use sealed_protocol::envelope::Signed;
use sealed_protocol::ids::{ChainId, LogId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Command as SessionCommand, Secrets};

use crate::clock::{Clocks, TimeControl};
use crate::limit::{Limits, RateLimiter};
use crate::mail::{self, Mail};
use crate::net::{self, Behaviour, BehaviourEvent};
use crate::store::{Batch, GameRecord, GameStatus, Store, StoreError};
use crate::sync::{GameHeads, MAX_SYNC_MESSAGE, Request, Response};
use durable::SetAside;

/// What the actor answers with.
pub type Reply<T> = oneshot::Sender<Result<T, String>>;

/// A request to the actor.
pub enum Msg {
    /// Our peer id and listen addresses.
    Info(Reply<Info>),
    /// Dial an address.
    Dial(Multiaddr, Reply<()>),
    /// Propose a game.
    Propose(ProposeArgs, Reply<String>),
    /// Accept an invitation.
    Accept(String, Reply<()>),
    /// Decline an invitation.
    Decline(String, Reply<()>),
    /// Make an action in a game's notation, optionally guarded by the expected ply.
    Act {
        /// Game id (hex, or a unique prefix).
        game: String,
        /// The action text.
        text: String,
        /// Refuse unless the game is at this ply.
        expect: Option<usize>,
        /// Reply.
        reply: Reply<()>,
    },
    /// The games.
    Games(Reply<Vec<GameSummary>>),
    /// One game, as JSON.
    Show(String, Reply<serde_json::Value>),
    /// One game, as text.
    ShowText(String, Reply<String>),
    /// One game's board as SVG.
    Svg(String, Reply<Option<String>>),
    /// The transcript file of a game.
    Transcript(String, Reply<Vec<u8>>),
    /// The score text of a game.
    Score(String, Reply<Option<String>>),
    /// A game as PGN.
    Pgn(String, Reply<Option<String>>),
    /// A game as armored mail.
    MailExport(String, Reply<String>),
    /// Import armored mail; returns the games it touched.
    MailImport(String, Reply<Vec<String>>),
    /// Let a bot decide for this seat in a game (or every game, for `None`).
    Bot(Option<String>, bool, Reply<()>),
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
}

/// The node's identity and addresses.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Info {
    /// Our peer id.
    pub peer: String,
    /// Where we listen (with `/p2p/<peer id>`).
    pub addrs: Vec<String>,
    /// Every peer this node has been connected to since it started.
    pub met: Vec<String>,
}

/// One line of `sealed games`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GameSummary {
    /// Game id, hex.
    pub game: String,
    /// Variant.
    pub variant: String,
    /// Status.
    pub status: String,
    /// Our seat, if we play.
    pub seat: Option<u8>,
    /// Whether we must decide something now.
    pub my_turn: bool,
    /// Accepted acts.
    pub ply: usize,
    /// What the game waits for.
    pub waiting_for: String,
    /// Envelopes this node holds for the game.
    pub held: usize,
    /// The clocks in one line, when the game has a time control.
    pub clock: Option<String>,
}

/// How often the node looks for duties that came due with time alone: checking costs
/// one comparison per game, and a period closes at most this late.
const DUTY_CHECK: Duration = Duration::from_millis(20);

/// How the actor runs.
#[derive(Clone, Debug)]
pub struct ActorConfig {
    /// The network.
    pub net: net::NetConfig,
    /// Where to listen.
    pub listen: Vec<Multiaddr>,
    /// Keep and forward games that name this node as a mailbox.
    pub mailbox: bool,
    /// How often to pull from mailboxes and redial absent peers.
    pub poll_every: Duration,
    /// Let bots decide in every game from the start (the demo).
    pub bots: bool,
    /// Seed of the bots' choices (not of any secret).
    pub bot_seed: u64,
    /// Accept every proposal that seats this node as its referee (`sealed referee`).
    /// A referee's work is all duties, done whoever accepted.
    pub referee: bool,
    /// Per-peer rate limits on what peers ask of this node.
    pub limits: Limits,
}

impl Default for ActorConfig {
    fn default() -> Self {
        ActorConfig {
            net: net::NetConfig::default(),
            listen: vec![],
            mailbox: false,
            poll_every: Duration::from_secs(5),
            bots: false,
            bot_seed: 0,
            referee: false,
            limits: Limits::default(),
        }
    }
}

/// A game this node only relays. Its envelopes are served from the store.
struct Relayed {
    terms: Terms,
    /// The seqs held of each public chain (what the heads say we have).
    held: BTreeMap<ChainId, BTreeSet<u64>>,
}

/// A game this node plays.
struct Played {
    table: Box<dyn Table>,
    record: GameRecord,
}

/// The actor's state.
pub struct Actor {
    key: SecretKey,
    store: Store,
    swarm: Swarm<Behaviour>,
    cfg: ActorConfig,
    played: HashMap<[u8; 32], Played>,
    relayed: HashMap<[u8; 32], Relayed>,
    /// Games known to the store that the node does not run now, and why.
    aside: HashMap<[u8; 32], SetAside>,
    addrs: HashMap<PeerId, Vec<Multiaddr>>,
    connected: HashSet<PeerId>,
    met: HashSet<PeerId>,
    pending: HashMap<OutboundRequestId, PeerId>,
    /// Requests waiting for room, per peer.
    queue: HashMap<PeerId, std::collections::VecDeque<Request>>,
    /// Requests awaiting an answer, per peer.
    in_flight: HashMap<PeerId, usize>,
    bots: HashSet<[u8; 32]>,
    /// Games changed since the bots last looked at them.
    bot_dirty: HashSet<[u8; 32]>,
    bot_all: bool,
    bot_counter: u64,
    limiter: RateLimiter<PeerId>,
}

/// Requests to one peer that may await an answer at once.
const MAX_IN_FLIGHT: usize = 8;

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The ed25519 key a `/p2p/<peer id>` names.
pub fn key_of(peer: &PeerId) -> Option<[u8; 32]> {
    let mh: &libp2p::multihash::Multihash<64> = peer.as_ref();
    if mh.code() != 0 {
        return None;
    }
    let pk = libp2p::identity::PublicKey::try_decode_protobuf(mh.digest()).ok()?;
    Some(pk.try_into_ed25519().ok()?.to_bytes())
}

/// The peer id at the end of an address.
pub fn peer_of(addr: &Multiaddr) -> Option<PeerId> {
    addr.iter()
        .filter_map(|p| {
            if let Protocol::P2p(id) = p {
                Some(id)
            } else {
                None
            }
        })
        .last()
}

impl Actor {
    /// Opens the store, rebuilds every game from it, and starts listening.
    pub fn new(key: SecretKey, store: Store, cfg: ActorConfig) -> Result<Actor, String> {
        let swarm = net::swarm(&net::keypair(&key.seed()), &cfg.net).map_err(|e| e.to_string())?;
        let mut a = Actor {
            key,
            store,
            swarm,
            played: HashMap::new(),
            relayed: HashMap::new(),
            aside: HashMap::new(),
            addrs: HashMap::new(),
            connected: HashSet::new(),
            met: HashSet::new(),
            pending: HashMap::new(),
            queue: HashMap::new(),
            in_flight: HashMap::new(),
            bots: HashSet::new(),
            bot_dirty: HashSet::new(),
            bot_all: cfg.bots,
            bot_counter: cfg.bot_seed,
            limiter: RateLimiter::new(cfg.limits),
            cfg,
        };
        for addr in a.cfg.listen.clone() {
            a.swarm.listen_on(addr).map_err(|e| e.to_string())?;
        }
        a.load()?;
        a.recall();
        Ok(a)
    }

    /// Runs until shut down.
    pub async fn run(mut self, mut rx: mpsc::Receiver<Msg>) {
        let mut tick = tokio::time::interval(self.cfg.poll_every);
        // Duties that come due with time alone (a move period's end) must not wait for
        // the next poll: the node wakes at the earliest such moment.
        let mut due = tokio::time::interval(DUTY_CHECK);
        loop {
            tokio::select! {
                msg = rx.recv() => match msg {
                    None => break,
                    Some(Msg::Shutdown(reply)) => { let _ = reply.send(Ok(())); break; }
                    Some(m) => self.command(m),
                },
                event = self.swarm.select_next_some() => self.event(event),
                _ = tick.tick() => self.periodic(),
                _ = due.tick() => self.due_duties(),
            }
        }
    }

    fn game_id(&self, text: &str) -> Result<[u8; 32], String> {
        let text = text.trim().to_lowercase();
        let all = self
            .played
            .keys()
            .chain(self.relayed.keys())
            .chain(self.aside.keys());
        let hits: Vec<[u8; 32]> = all
            .filter(|id| hex::encode(id).starts_with(&text))
            .copied()
            .collect();
        match hits.as_slice() {
            [one] if !text.is_empty() => Ok(*one),
            [] | [_] => Err(format!("no game {text:?}")),
            _ => Err(format!("{text:?} names more than one game")),
        }
    }

    /// A game this node plays, by id or unique prefix.
    fn played(&self, g: &str) -> Result<&Played, String> {
        let id = self.game_id(g)?;
        if let Some(a) = self.aside.get(&id) {
            return Err(a.halt.why());
        }
        self.played
            .get(&id)
            .ok_or_else(|| "this node only relays that game".to_string())
    }

    fn with_table<T>(&self, g: &str, f: impl FnOnce(&dyn Table) -> T) -> Result<T, String> {
        Ok(f(&*self.played(g)?.table))
    }

    fn terms(&self, id: &[u8; 32]) -> Option<Terms> {
        self.played
            .get(id)
            .map(|p| p.table.terms().clone())
            .or_else(|| self.relayed.get(id).map(|r| r.terms.clone()))
    }

    /// Every peer of a game but us: its seats and its mailboxes.
    fn game_peers(&self, terms: &Terms) -> Vec<PeerId> {
        let me = *self.swarm.local_peer_id();
        let seats = terms.proposal().seats.iter().map(|s| s.key);
        let mailboxes = terms.proposal().mailboxes.iter().map(|m| m.key);
        seats
            .chain(mailboxes)
            .filter_map(|k| net::peer_id(&k))
            .filter(|p| *p != me)
            .collect()
    }

    /// The seat a peer holds in a game, if any.
    fn seat_of(terms: &Terms, peer: &PeerId) -> Option<Seat> {
        key_of(peer).and_then(|k| terms.seat_of(&k))
    }

    fn is_mailbox(terms: &Terms, peer: &PeerId) -> bool {
        key_of(peer).is_some_and(|k| terms.proposal().mailboxes.iter().any(|m| m.key == k))
    }
}

/// Every action a table has queued.
fn drain(t: &mut dyn Table) -> Vec<Action> {
    std::iter::from_fn(|| t.poll_action()).collect()
}

/// Notes a relayed envelope as held (public logs only); returns whether it was new.
fn relay_keep(r: &mut Relayed, bytes: &[u8]) -> bool {
    let Ok(s) = Signed::parse(&r.terms, bytes) else {
        return false;
    };
    s.at().chain.log.is_public() && r.held.entry(s.at().chain).or_default().insert(s.at().seq)
}

fn status_name(s: GameStatus, t: &dyn Table) -> String {
    match s {
        GameStatus::Invited if t.phase() != "terms" => "active".into(),
        GameStatus::Proposed if t.phase() == "terms" || t.phase() == "commit" => "proposed".into(),
        _ if t.is_done() => "finished".into(),
        GameStatus::Proposed | GameStatus::Active => "active".into(),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// An address with the peer id at its end, as introductions carry them.
fn with_peer(addr: &Multiaddr, peer: PeerId) -> String {
    if matches!(addr.iter().last(), Some(Protocol::P2p(_))) {
        addr.to_string()
    } else {
        addr.clone().with(Protocol::P2p(peer)).to_string()
    }
}
