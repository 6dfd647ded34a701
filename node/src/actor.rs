//! The node actor: one task owns the swarm, the store and every game; the rest of the
//! program talks to it through a bounded channel, a command and a one-shot reply.
//!
//! Ordering rules this file keeps: a secret is stored before any envelope that commits
//! to it leaves; an envelope (ours or received) is stored before it is sent or
//! acknowledged; a peer may push to a game only if it holds a seat of the game or is
//! one of its mailboxes.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use futures::StreamExt;
use libp2p::multiaddr::Protocol;
use libp2p::request_response::{self, OutboundRequestId};
use libp2p::swarm::SwarmEvent;
use libp2p::{Multiaddr, PeerId, Swarm};
use tokio::sync::{mpsc, oneshot};

use sealed_games::table::{self, Table};
use sealed_protocol::envelope::Signed;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Command as SessionCommand, Secrets};

use crate::clock::{Clocks, TimeControl};
use crate::limit::{Limits, RateLimiter};
use crate::mail::{self, Mail};
use crate::net::{self, Behaviour, BehaviourEvent};
use crate::store::{GameRecord, GameStatus, Store};
use crate::sync::{GameHeads, MAX_SYNC_MESSAGE, Request, Response};

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

/// A game this node only relays.
struct Relayed {
    terms: Terms,
    /// Envelopes by chain and seq (public logs only).
    chains: BTreeMap<ChainId, BTreeMap<u64, Vec<u8>>>,
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

    /// Rebuilds games from the store (after a restart, nothing lost or duplicated: the
    /// sessions replay exactly the envelopes that were durable).
    fn load(&mut self) -> Result<(), String> {
        for record in self.store.games().map_err(|e| e.to_string())? {
            let terms = Terms::parse(&record.terms).map_err(|e| e.to_string())?;
            let envelopes = self
                .store
                .envelopes(&record.id)
                .map_err(|e| e.to_string())?;
            if record.seat.is_none() {
                let mut r = Relayed {
                    terms,
                    chains: BTreeMap::new(),
                };
                for e in envelopes {
                    relay_keep(&mut r, e);
                }
                self.relayed.insert(record.id, r);
                continue;
            }
            let secrets: Option<Secrets> = self
                .store
                .secrets(&record.id)
                .map_err(|e| e.to_string())?
                .and_then(|b| {
                    sealed_protocol::wire::decode(&b, sealed_protocol::wire::MAX_MESSAGE).ok()
                });
            let key = SecretKey::from_seed(&self.key.seed());
            let mut table = match secrets {
                Some(s) => table::restore(terms, key, s, &envelopes, now_ms())
                    .map_err(|e| e.to_string())?,
                None => {
                    // Nothing was committed yet (an invitation not accepted): fresh
                    // entropy is safe.
                    let entropy = crate::home::random32().map_err(|e| e.to_string())?;
                    let mut t =
                        table::open(terms, key, entropy, now_ms()).map_err(|e| e.to_string())?;
                    for e in &envelopes {
                        let _ = t.handle_envelope(e, now_ms());
                    }
                    t
                }
            };
            let id = record.id;
            // Actions a restore produces are envelopes already stored or due now.
            let actions = drain(&mut *table);
            self.played.insert(id, Played { table, record });
            self.perform(id, actions);
        }
        Ok(())
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
        let all = self.played.keys().chain(self.relayed.keys());
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

    fn command(&mut self, msg: Msg) {
        match msg {
            Msg::Info(r) => {
                let peer = *self.swarm.local_peer_id();
                let addrs = self
                    .swarm
                    .listeners()
                    .map(|a| {
                        // A relayed listen address already ends in our peer id.
                        if matches!(a.iter().last(), Some(Protocol::P2p(_))) {
                            a.to_string()
                        } else {
                            a.clone().with(Protocol::P2p(peer)).to_string()
                        }
                    })
                    .collect();
                let met = self.met.iter().map(ToString::to_string).collect();
                let _ = r.send(Ok(Info {
                    peer: peer.to_string(),
                    addrs,
                    met,
                }));
            }
            Msg::Dial(addr, r) => {
                if let Some(p) = peer_of(&addr) {
                    self.learn(p, addr.clone());
                }
                let _ = r.send(self.swarm.dial(addr).map_err(|e| e.to_string()));
            }
            Msg::Propose(args, r) => {
                let _ = r.send(self.propose(args));
            }
            Msg::Accept(g, r) => {
                let _ = r.send(self.decide(&g, SessionCommand::Accept));
            }
            Msg::Decline(g, r) => {
                let _ = r.send(self.decide(&g, SessionCommand::Decline));
            }
            Msg::Act {
                game,
                text,
                expect,
                reply,
            } => {
                let _ = reply.send(self.act(&game, &text, expect));
            }
            Msg::Games(r) => {
                let _ = r.send(Ok(self.summaries()));
            }
            Msg::Show(g, r) => {
                let _ = r.send(self.show_json(&g));
            }
            Msg::ShowText(g, r) => {
                let _ = r.send(self.show_text(&g));
            }
            Msg::Svg(g, r) => {
                let _ = r.send(self.with_table(&g, |t| t.svg()));
            }
            Msg::Transcript(g, r) => {
                let _ = r.send(self.with_table(&g, |t| t.transcript()));
            }
            Msg::Score(g, r) => {
                let _ = r.send(self.with_table(&g, |t| t.score()));
            }
            Msg::Pgn(g, r) => {
                let _ = r.send(self.with_table(&g, |t| t.pgn()));
            }
            Msg::MailExport(g, r) => {
                let _ = r.send(self.mail_export(&g));
            }
            Msg::MailImport(text, r) => {
                let _ = r.send(self.mail_import(&text));
            }
            Msg::Bot(g, on, r) => {
                let res = match g {
                    None => {
                        self.bot_all = on;
                        Ok(())
                    }
                    Some(g) => self.game_id(&g).map(|id| {
                        if on {
                            self.bots.insert(id);
                        } else {
                            self.bots.remove(&id);
                        }
                    }),
                };
                self.bot_dirty.extend(self.played.keys().copied());
                self.run_bots();
                let _ = r.send(res);
            }
            Msg::Shutdown(_) => {}
        }
    }

    /// A game this node plays, by id or unique prefix.
    fn played(&self, g: &str) -> Result<&Played, String> {
        let id = self.game_id(g)?;
        self.played
            .get(&id)
            .ok_or_else(|| "this node only relays that game".to_string())
    }

    fn with_table<T>(&self, g: &str, f: impl FnOnce(&dyn Table) -> T) -> Result<T, String> {
        Ok(f(&*self.played(g)?.table))
    }

    fn summaries(&self) -> Vec<GameSummary> {
        let mut out: Vec<GameSummary> = self
            .played
            .iter()
            .map(|(id, p)| GameSummary {
                game: hex::encode(id),
                variant: p.table.variant().to_owned(),
                status: status_name(p.record.status, &*p.table),
                seat: Some(p.table.seat().0),
                my_turn: p.table.my_turn(),
                ply: p.table.ply(),
                waiting_for: p.table.waiting_for(),
                held: p.table.held(),
                clock: self.clocks(p).map(|c| c.line()),
            })
            .collect();
        out.extend(self.relayed.iter().map(|(id, r)| {
            let held = r.chains.values().map(BTreeMap::len).sum::<usize>();
            GameSummary {
                game: hex::encode(id),
                variant: r.terms.variant().to_owned(),
                status: "relayed".into(),
                seat: None,
                my_turn: false,
                ply: 0,
                waiting_for: format!("{held} envelopes held"),
                held,
                clock: None,
            }
        }));
        out.sort_by(|a, b| a.game.cmp(&b.game));
        out
    }

    fn propose(&mut self, args: ProposeArgs) -> Result<String, String> {
        let peer = peer_of(&args.peer).ok_or("the peer address must end in /p2p/<peer id>")?;
        let opponent = key_of(&peer).ok_or("the peer id does not hold an Ed25519 key")?;
        let mut mailboxes = vec![];
        if let Some(m) = &args.mailbox {
            let mp = peer_of(m).ok_or("the mailbox address must end in /p2p/<peer id>")?;
            let key = key_of(&mp).ok_or("the mailbox peer id does not hold an Ed25519 key")?;
            mailboxes.push(sealed_protocol::proposal::MailboxSpec {
                key,
                addrs: vec![m.to_string()],
            });
            self.learn(mp, m.clone());
        }
        // An address that is only `/p2p/<id>` says who, not where: the game then goes
        // through the mailbox alone.
        if args.peer.iter().any(|p| !matches!(p, Protocol::P2p(_))) {
            self.learn(peer, args.peer.clone());
        }
        let referee = match &args.referee {
            Some(r) => {
                let rp = peer_of(r).ok_or("the referee address must end in /p2p/<peer id>")?;
                let key = key_of(&rp).ok_or("the referee peer id does not hold an Ed25519 key")?;
                if r.iter().any(|p| !matches!(p, Protocol::P2p(_))) {
                    self.learn(rp, r.clone());
                }
                Some(key)
            }
            None => None,
        };
        let nonce = crate::home::random32().map_err(|e| e.to_string())?;
        let signed = table::propose(
            &args.variant,
            &args.options,
            &self.key,
            table::Invitees {
                opponent,
                referee,
                mailboxes,
            },
            now_ms(),
            nonce,
        )?;
        TimeControl::of(&signed.proposal)?;
        let terms = Terms::from_signed(signed).map_err(|e| e.to_string())?;
        let entropy = crate::home::random32().map_err(|e| e.to_string())?;
        let mut t = table::open(
            terms.clone(),
            SecretKey::from_seed(&self.key.seed()),
            entropy,
            now_ms(),
        )
        .map_err(|e| e.to_string())?;
        let id = terms.game().0.0;
        let record = GameRecord {
            id,
            terms: terms.bytes().to_vec(),
            variant: args.variant.clone(),
            seat: Some(t.seat().0),
            created: now_ms(),
            status: GameStatus::Proposed,
        };
        // Secrets, then our first envelope, then the record: a crash before the record
        // leaves a game nobody else has heard of.
        let actions = drain(&mut *t);
        self.persist(id, &actions)?;
        self.store.put_game(&record).map_err(|e| e.to_string())?;
        self.played.insert(id, Played { table: t, record });
        // The proposal and our first envelope travel in one message: sent apart, the
        // envelope could arrive first and be refused as a stranger's.
        self.bot_dirty.insert(id);
        for peer in self.game_peers(&terms) {
            self.offer(peer, id);
        }
        self.run_bots();
        Ok(hex::encode(id))
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

    fn decide(&mut self, g: &str, cmd: SessionCommand) -> Result<(), String> {
        let id = self.game_id(g)?;
        let decline = cmd == SessionCommand::Decline;
        self.apply(id, cmd)?;
        if let Some(p) = self.played.get_mut(&id) {
            p.record.status = if decline {
                GameStatus::Declined
            } else {
                GameStatus::Active
            };
            self.store
                .set_status(&id, p.record.status)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn act(&mut self, g: &str, text: &str, expect: Option<usize>) -> Result<(), String> {
        let id = self.game_id(g)?;
        let p = self.played(g)?;
        if let Some(want) = expect
            && p.table.ply() != want
        {
            return Err(format!(
                "the game is at ply {}, not {want}: nothing sent",
                p.table.ply()
            ));
        }
        let cmd = p.table.parse_action(text)?;
        self.apply(id, cmd)
    }

    /// Hands a decision to a game's session and carries out what it asks.
    fn apply(&mut self, id: [u8; 32], cmd: SessionCommand) -> Result<(), String> {
        let p = self.played.get_mut(&id).ok_or("no such game")?;
        p.table
            .handle_command(cmd, now_ms())
            .map_err(|e| e.to_string())?;
        let actions = drain(&mut *p.table);
        self.persist(id, &actions)?;
        self.perform(id, actions);
        self.run_bots();
        Ok(())
    }

    /// Makes every secret and envelope of `actions` durable, in order: the envelopes
    /// between two secrets in one transaction (one fsync), a secret before anything
    /// that follows it.
    fn persist(&mut self, id: [u8; 32], actions: &[Action]) -> Result<(), String> {
        let mut batch: Vec<&[u8]> = vec![];
        for a in actions {
            match a {
                Action::Persist(secrets) => {
                    self.flush(id, &mut batch)?;
                    self.store
                        .put_secrets(&id, &sealed_protocol::wire::encode(secrets))
                        .map_err(|e| e.to_string())?;
                }
                Action::Send { env, .. } => batch.push(&env.bytes),
                _ => {}
            }
        }
        self.flush(id, &mut batch)
    }

    fn flush(&self, id: [u8; 32], batch: &mut Vec<&[u8]>) -> Result<(), String> {
        if !batch.is_empty() {
            self.store
                .put_envelopes(&id, batch)
                .map_err(|e| e.to_string())?;
            batch.clear();
        }
        Ok(())
    }

    /// Sends what `actions` ask (after `persist`), and notes a finished game.
    fn perform(&mut self, id: [u8; 32], actions: Vec<Action>) {
        self.bot_dirty.insert(id);
        let Some(terms) = self.terms(&id) else { return };
        let mut batch: HashMap<PeerId, Vec<Vec<u8>>> = HashMap::new();
        for a in actions {
            match a {
                Action::Send { env, to } => {
                    for seat in to {
                        if let Some(peer) =
                            terms.key(seat).and_then(|k| net::peer_id(&k.to_bytes()))
                        {
                            batch.entry(peer).or_default().push(env.bytes.clone());
                        }
                    }
                    if env.unsigned().log.is_public() {
                        for m in &terms.proposal().mailboxes {
                            if let Some(peer) = net::peer_id(&m.key) {
                                batch.entry(peer).or_default().push(env.bytes.clone());
                            }
                        }
                    }
                }
                Action::Complete | Action::GameOver => {
                    if let Some(p) = self.played.get_mut(&id)
                        && p.record.status != GameStatus::Finished
                        && p.table.is_done()
                    {
                        p.record.status = GameStatus::Finished;
                        let _ = self.store.set_status(&id, GameStatus::Finished);
                    }
                }
                Action::Persist(_) => {}
            }
        }
        for (peer, envelopes) in batch {
            self.request(
                peer,
                Request::Push {
                    game: id,
                    envelopes,
                },
            );
        }
        if let Some(p) = self.played.get_mut(&id)
            && p.table.is_done()
            && p.record.status != GameStatus::Finished
        {
            p.record.status = GameStatus::Finished;
            let _ = self.store.set_status(&id, GameStatus::Finished);
        }
    }

    /// Queues a request to a connected peer (otherwise dials it: the heads exchanged on
    /// connection catch up) and sends what the in-flight limit allows.
    fn request(&mut self, peer: PeerId, req: Request) {
        if self.connected.contains(&peer) {
            self.queue.entry(peer).or_default().push_back(req);
            self.pump(peer);
        } else {
            self.dial(peer);
        }
    }

    /// Sends queued requests to `peer` while fewer than [`MAX_IN_FLIGHT`] await an
    /// answer. Every push waiting in the queue leaves in one `PushMany`: a node playing
    /// hundreds of games at once would otherwise open a stream per move and hit the
    /// muxer's stream limit, which drops requests.
    fn pump(&mut self, peer: PeerId) {
        loop {
            let in_flight = self.in_flight.get(&peer).copied().unwrap_or(0);
            if in_flight >= MAX_IN_FLIGHT {
                return;
            }
            let Some(queue) = self.queue.get_mut(&peer) else {
                return;
            };
            let Some(first) = queue.pop_front() else {
                self.queue.remove(&peer);
                return;
            };
            let req = match first {
                Request::Push { game, envelopes } => {
                    let mut games: Vec<([u8; 32], Vec<Vec<u8>>)> = vec![(game, envelopes)];
                    let mut size: usize = games[0].1.iter().map(Vec::len).sum();
                    let mut rest = std::collections::VecDeque::new();
                    while let Some(r) = queue.pop_front() {
                        match r {
                            Request::Push { game, envelopes } if size < MAX_SYNC_MESSAGE / 2 => {
                                size += envelopes.iter().map(Vec::len).sum::<usize>();
                                match games.iter_mut().find(|(g, _)| *g == game) {
                                    Some((_, e)) => e.extend(envelopes),
                                    None => games.push((game, envelopes)),
                                }
                            }
                            other => rest.push_back(other),
                        }
                    }
                    *queue = rest;
                    match games.len() {
                        1 => {
                            let (game, envelopes) = games.remove(0);
                            Request::Push { game, envelopes }
                        }
                        _ => Request::PushMany { games },
                    }
                }
                other => other,
            };
            let id = self.swarm.behaviour_mut().sync.send_request(&peer, req);
            self.pending.insert(id, peer);
            *self.in_flight.entry(peer).or_default() += 1;
        }
    }

    /// An answer (or a failure) to a request to `peer`: room for the next one.
    fn answered(&mut self, request_id: OutboundRequestId) {
        if let Some(peer) = self.pending.remove(&request_id) {
            if let Some(n) = self.in_flight.get_mut(&peer) {
                *n = n.saturating_sub(1);
            }
            self.pump(peer);
        }
    }

    /// Learns an address of a peer; those of our games' peers are kept in the store, so
    /// that after a restart the node can still reach them.
    fn learn(&mut self, peer: PeerId, addr: Multiaddr) {
        let known = self.addrs.entry(peer).or_default();
        if known.contains(&addr) {
            return;
        }
        known.push(addr);
        if known.len() > 16 {
            known.remove(0);
        }
        let text: Vec<String> = known.iter().map(ToString::to_string).collect();
        let _ = self
            .store
            .put_meta(&format!("addrs/{peer}"), text.join("\n").as_bytes());
    }

    /// Addresses the store remembers, and the mailboxes' addresses of every game.
    fn recall(&mut self) {
        let peers: Vec<PeerId> = self
            .played
            .values()
            .map(|p| p.table.terms().clone())
            .chain(self.relayed.values().map(|r| r.terms.clone()))
            .flat_map(|t| self.game_peers(&t))
            .collect();
        for peer in peers {
            if let Ok(Some(bytes)) = self.store.meta(&format!("addrs/{peer}")) {
                for a in String::from_utf8_lossy(&bytes)
                    .lines()
                    .filter_map(|l| l.parse().ok())
                {
                    self.addrs.entry(peer).or_default().push(a);
                }
            }
        }
        let terms: Vec<Terms> = self
            .played
            .values()
            .map(|p| p.table.terms().clone())
            .collect();
        for t in terms {
            self.mailbox_addrs(&t);
        }
    }

    fn mailbox_addrs(&mut self, terms: &Terms) {
        for m in &terms.proposal().mailboxes {
            if let Some(peer) = net::peer_id(&m.key) {
                for a in m.addrs.iter().filter_map(|a| a.parse::<Multiaddr>().ok()) {
                    let known = self.addrs.entry(peer).or_default();
                    if !known.contains(&a) {
                        known.push(a);
                    }
                }
            }
        }
    }

    fn dial(&mut self, peer: PeerId) {
        let addrs = self.addrs.get(&peer).cloned().unwrap_or_default();
        if addrs.is_empty() {
            return;
        }
        let opts = libp2p::swarm::dial_opts::DialOpts::peer_id(peer)
            .addresses(addrs)
            .build();
        let _ = self.swarm.dial(opts);
    }

    /// Lets the bots act in the games that changed since they last looked (a bot's
    /// own act changes its game, so a bot that can go on does, up to 64 acts a call).
    fn run_bots(&mut self) {
        let dirty: Vec<[u8; 32]> = self.bot_dirty.iter().copied().collect();
        self.run_duties(dirty);
        for _ in 0..64 {
            let ids: Vec<[u8; 32]> = self
                .bot_dirty
                .drain()
                .filter(|id| {
                    (self.bot_all || self.bots.contains(id))
                        && self.played.get(id).is_some_and(|p| p.table.my_turn())
                })
                .collect();
            if ids.is_empty() {
                break;
            }
            for id in ids {
                self.bot_counter = self
                    .bot_counter
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let pick = self.bot_counter >> 33;
                let Some(cmd) = self.played.get(&id).and_then(|p| p.table.bot_action(pick)) else {
                    continue;
                };
                let is_accept = cmd == SessionCommand::Accept;
                if self.apply_bot(id, cmd).is_ok()
                    && is_accept
                    && let Some(p) = self.played.get_mut(&id)
                {
                    p.record.status = GameStatus::Active;
                    let _ = self.store.set_status(&id, GameStatus::Active);
                }
            }
        }
    }

    /// Runs the duties of the games whose time-bound duty has come due.
    fn due_duties(&mut self) {
        let now = now_ms();
        let ids: Vec<[u8; 32]> = self
            .played
            .iter()
            .filter(|(_, p)| p.table.due_at().is_some_and(|t| t <= now))
            .map(|(id, _)| *id)
            .collect();
        if !ids.is_empty() {
            self.run_duties(ids);
            self.run_bots();
        }
    }

    /// Applies the duties the games give this node's seats (a referee's answers and
    /// period closes, a player's setup shown to the referee), whoever decides the
    /// seat's moves: a duty is never a choice. At most 64 per game per call.
    fn run_duties(&mut self, ids: Vec<[u8; 32]>) {
        for id in ids {
            for _ in 0..64 {
                let now = now_ms();
                let Some(cmd) = self.played.get(&id).and_then(|p| p.table.duty(now)) else {
                    break;
                };
                if let Err(e) = self.apply_bot(id, cmd) {
                    tracing::warn!(game = %hex::encode(&id[..4]), "duty refused: {e}");
                    break;
                }
                self.bot_dirty.insert(id);
            }
        }
    }

    fn apply_bot(&mut self, id: [u8; 32], cmd: SessionCommand) -> Result<(), String> {
        let p = self.played.get_mut(&id).ok_or("no such game")?;
        p.table
            .handle_command(cmd, now_ms())
            .map_err(|e| e.to_string())?;
        let actions = drain(&mut *p.table);
        self.persist(id, &actions)?;
        self.perform(id, actions);
        Ok(())
    }

    fn periodic(&mut self) {
        self.limiter.prune(now_ms());
        // Reach every peer of every unfinished game we are not connected to, and send
        // each connected one the heads of every unfinished game we share: one request
        // per peer that repairs whatever a lost or refused push left behind, and pulls
        // from mailboxes (they cannot reach us while we are offline).
        let mut want: HashSet<PeerId> = HashSet::new();
        for p in self.played.values() {
            if p.table.is_done() && p.record.status != GameStatus::Proposed {
                continue;
            }
            for peer in self.game_peers(p.table.terms()) {
                if !self.connected.contains(&peer) {
                    want.insert(peer);
                }
            }
        }
        for peer in want {
            self.dial(peer);
        }
        let peers: Vec<PeerId> = self.connected.iter().copied().collect();
        for peer in peers {
            let games = self.heads_for(peer);
            if !games.is_empty() {
                self.request(peer, Request::Heads { games });
            }
        }
        self.claim_timeouts();
        // Duties can come due with time alone (a move period ends), so every game is
        // looked at on each tick.
        let ids: Vec<[u8; 32]> = self
            .played
            .iter()
            .filter(|(_, p)| !p.table.is_done())
            .map(|(id, _)| *id)
            .collect();
        self.run_duties(ids);
        self.run_bots();
    }

    /// Offers `peer` a game it said it does not know, if it holds a seat of it or is
    /// its mailbox: the proposal and every envelope it may see, in one message.
    fn offer(&mut self, peer: PeerId, game: [u8; 32]) {
        let Some(terms) = self.terms(&game) else {
            return;
        };
        let seat = Self::seat_of(&terms, &peer);
        if seat.is_none() && !Self::is_mailbox(&terms, &peer) {
            return;
        }
        let Ok(envelopes) = self.lacking(&peer, &game, &[]) else {
            return;
        };
        self.request(
            peer,
            Request::Offer {
                proposal: terms.bytes().to_vec(),
                envelopes,
            },
        );
        // The other seats' addresses, so that the peer can reach them directly.
        let addrs: Vec<String> = self
            .game_peers(&terms)
            .into_iter()
            .filter(|p| *p != peer)
            .flat_map(|p| {
                self.addrs
                    .get(&p)
                    .into_iter()
                    .flatten()
                    .map(move |a| with_peer(a, p))
            })
            .take(crate::sync::MAX_INTRODUCED)
            .collect();
        if !addrs.is_empty() {
            self.request(peer, Request::Introduce { game, addrs });
        }
    }

    /// The clocks of a game with a time control, now.
    fn clocks(&self, p: &Played) -> Option<Clocks> {
        let terms = p.table.terms();
        let tc = TimeControl::of(terms.proposal()).ok()??;
        let owing = if p.table.is_done() {
            None
        } else {
            p.table.to_act()
        };
        Some(Clocks::compute(
            &tc,
            terms.players(),
            &p.table.timeline(),
            owing,
            now_ms(),
        ))
    }

    /// Files a timeout claim against each opponent whose time has passed, once per
    /// wait: a claim whose clock is later than the wait's start already covers it.
    fn claim_timeouts(&mut self) {
        let due: Vec<([u8; 32], Seat)> = self
            .played
            .iter()
            .filter_map(|(id, p)| {
                let c = self.clocks(p).filter(|c| c.overdue)?;
                let owing = Seat(c.owing?);
                if owing == p.table.seat() {
                    return None;
                }
                let line = p.table.timeline();
                let since = line.acts.last().map(|a| a.1).or(line.started)?;
                let claimed = line
                    .timeout_claims
                    .iter()
                    .any(|&(against, at)| against == owing && at >= since);
                (!claimed).then_some((*id, owing))
            })
            .collect();
        for (id, against) in due {
            tracing::info!(game = %hex::encode(id), %against, "claiming a timeout");
            let claim = SessionCommand::Claim(sealed_protocol::body::Claim {
                against,
                kind: sealed_protocol::body::ClaimKind::Timeout,
            });
            if let Err(e) = self.apply(id, claim) {
                tracing::warn!(game = %hex::encode(id), "timeout claim refused: {e}");
            }
        }
    }

    /// A game as JSON, with its clocks when it has a time control.
    fn show_json(&self, g: &str) -> Result<serde_json::Value, String> {
        let p = self.played(g)?;
        let mut v = p.table.show_json();
        if let serde_json::Value::Object(m) = &mut v {
            let clocks = self.clocks(p).map(|c| {
                let mut j = serde_json::to_value(&c).unwrap_or_default();
                if let serde_json::Value::Object(o) = &mut j {
                    o.insert("text".into(), c.line().into());
                }
                j
            });
            m.insert("clock".into(), clocks.unwrap_or_default());
        }
        Ok(v)
    }

    /// A game as text, with a clock line when it has a time control.
    fn show_text(&self, g: &str) -> Result<String, String> {
        let p = self.played(g)?;
        let mut text = p.table.show_text();
        if let Some(c) = self.clocks(p) {
            text.push_str(&format!("clock: {}\n", c.line()));
        }
        Ok(text)
    }

    fn event(&mut self, event: SwarmEvent<BehaviourEvent>) {
        match event {
            SwarmEvent::ConnectionEstablished {
                peer_id, endpoint, ..
            } => {
                if endpoint.is_dialer() {
                    self.learn(peer_id, endpoint.get_remote_address().clone());
                }
                self.met.insert(peer_id);
                if self.connected.insert(peer_id) {
                    self.on_connect(peer_id);
                }
            }
            SwarmEvent::ConnectionClosed {
                peer_id,
                num_established: 0,
                ..
            } => {
                self.connected.remove(&peer_id);
                // Requests in flight fail on their own; what is queued is repaired by the
                // heads exchanged on the next connection.
                self.queue.remove(&peer_id);
            }
            // A relay grants reservations only with an address to put in them: a relay
            // is run where its listen addresses are reachable, so they are its
            // external addresses.
            SwarmEvent::NewListenAddr { address, .. } if self.cfg.net.relay_server => {
                self.swarm.add_external_address(address);
            }
            SwarmEvent::Behaviour(BehaviourEvent::Sync(e)) => self.sync_event(e),
            SwarmEvent::Behaviour(BehaviourEvent::Mdns(libp2p::mdns::Event::Discovered(found))) => {
                for (peer, addr) in found {
                    self.learn(peer, addr);
                }
            }
            SwarmEvent::Behaviour(BehaviourEvent::Identify(
                libp2p::identify::Event::Received { peer_id, info, .. },
            )) => {
                for a in info.listen_addrs {
                    self.learn(peer_id, a);
                }
            }
            _ => {}
        }
    }

    /// On a new connection: the heads of every game we share, so that each side learns
    /// at once what it lacks (the peer does the same from its side) and which games the
    /// peer has never heard of (we then offer them).
    fn on_connect(&mut self, peer: PeerId) {
        let games = self.heads_for(peer);
        if !games.is_empty() {
            self.request(peer, Request::Heads { games });
        }
    }

    /// What we hold of every unfinished game `peer` holds a seat of or relays, and of
    /// every game we relay that it plays.
    fn heads_for(&self, peer: PeerId) -> Vec<GameHeads> {
        let mut games = vec![];
        for (id, p) in &self.played {
            if p.table.is_done() && p.record.status != GameStatus::Proposed {
                continue;
            }
            let terms = p.table.terms();
            if Self::seat_of(terms, &peer).is_some() || Self::is_mailbox(terms, &peer) {
                games.push((*id, p.table.chain_counts()));
            }
        }
        for (id, r) in &self.relayed {
            if Self::seat_of(&r.terms, &peer).is_some() {
                // Held without a gap from seq 0: what we can say we have.
                let have = r
                    .chains
                    .iter()
                    .map(|(c, m)| {
                        let prefix = m.keys().zip(0u64..).take_while(|(k, i)| **k == *i).count();
                        (*c, prefix as u64)
                    })
                    .collect();
                games.push((*id, have));
            }
        }
        games
    }

    fn sync_event(&mut self, e: request_response::Event<Request, Response>) {
        match e {
            request_response::Event::Message { peer, message, .. } => match message {
                request_response::Message::Request {
                    request, channel, ..
                } => {
                    let response = self.serve(peer, request);
                    let _ = self
                        .swarm
                        .behaviour_mut()
                        .sync
                        .send_response(channel, response);
                }
                request_response::Message::Response {
                    request_id,
                    response,
                } => {
                    self.answered(request_id);
                    match response {
                        Response::Envelopes(envs) => {
                            self.take_envelopes(peer, None, envs);
                        }
                        Response::Behind { envelopes, unknown } => {
                            for (game, envs) in envelopes {
                                self.take_envelopes(peer, Some(game), envs);
                            }
                            for game in unknown {
                                self.offer(peer, game);
                            }
                        }
                        Response::Refused(why) => {
                            tracing::debug!(%peer, "request refused: {why}");
                        }
                        Response::Ok { .. } => {}
                    }
                }
            },
            request_response::Event::OutboundFailure { request_id, .. } => {
                // Lost: the next heads round repairs what it carried.
                self.answered(request_id);
            }
            _ => {}
        }
    }

    /// Answers a request from `peer`.
    fn serve(&mut self, peer: PeerId, req: Request) -> Response {
        let cost = 1.0
            + match &req {
                Request::Push { envelopes, .. } | Request::Offer { envelopes, .. } => {
                    envelopes.len() as f64
                }
                Request::PushMany { games } => games.iter().map(|(_, e)| e.len() as f64).sum(),
                Request::Heads { games } => games.len() as f64 / 64.0,
                _ => 0.0,
            };
        if !self.limiter.spend(&peer, cost, now_ms()) {
            tracing::warn!(%peer, "refused a request over the peer's rate limit");
            return Response::Refused("rate limit: slow down".into());
        }
        match req {
            Request::Propose { proposal } => self.take_proposal(peer, &proposal),
            Request::Introduce { game, addrs } => self.introduced(peer, game, addrs),
            Request::Push { game, envelopes } => match self.take_push(peer, game, envelopes) {
                Ok(new) => Response::Ok { new },
                Err(why) => Response::Refused(why),
            },
            Request::PushMany { games } => {
                let mut new = 0;
                for (game, envelopes) in games {
                    // One game refused (an outsider's) does not stop the others.
                    new += self.take_push(peer, game, envelopes).unwrap_or(0);
                }
                Response::Ok { new }
            }
            Request::Pull { game, have } => match self.lacking(&peer, &game, &have) {
                Ok(envs) => Response::Envelopes(envs),
                Err(why) => Response::Refused(why),
            },
            Request::Heads { games } => {
                let mut envelopes = vec![];
                let mut unknown = vec![];
                let mut bytes = 0;
                for (game, have) in games {
                    if self.terms(&game).is_none() {
                        unknown.push(game);
                        continue;
                    }
                    // Half the message cap: the rest comes in the next round.
                    if bytes > MAX_SYNC_MESSAGE / 2 {
                        break;
                    }
                    if let Ok(envs) = self.lacking(&peer, &game, &have)
                        && !envs.is_empty()
                    {
                        bytes += envs.iter().map(Vec::len).sum::<usize>();
                        envelopes.push((game, envs));
                    }
                }
                Response::Behind { envelopes, unknown }
            }
            Request::Offer {
                proposal,
                envelopes,
            } => match self.take_proposal(peer, &proposal) {
                Response::Ok { .. } => {
                    let game = Terms::parse(&proposal).map(|t| t.game().0.0).ok();
                    let new = self.take_envelopes(peer, game, envelopes);
                    Response::Ok { new }
                }
                refused => refused,
            },
        }
    }

    /// Addresses of a game's other seats from a peer that knows them: learned and
    /// dialled. Once the game is known only its seats' addresses are kept; before (the
    /// introduction can overtake the offer) every one, as the address book is bounded.
    fn introduced(&mut self, from: PeerId, game: [u8; 32], addrs: Vec<String>) -> Response {
        if addrs.len() > crate::sync::MAX_INTRODUCED {
            return Response::Refused("too many addresses".into());
        }
        let terms = self.terms(&game);
        let me = *self.swarm.local_peer_id();
        for text in addrs {
            let Ok(addr) = text.parse::<Multiaddr>() else {
                continue;
            };
            let Some(peer) = peer_of(&addr) else { continue };
            if peer == me || peer == from {
                continue;
            }
            if terms
                .as_ref()
                .is_some_and(|t| Self::seat_of(t, &peer).is_none())
            {
                continue;
            }
            self.learn(peer, addr);
            if !self.connected.contains(&peer) {
                self.dial(peer);
            }
        }
        Response::Ok { new: 0 }
    }

    /// A push of `peer`'s: taken if `peer` holds a seat of the game or is its mailbox.
    fn take_push(
        &mut self,
        peer: PeerId,
        game: [u8; 32],
        envelopes: Vec<Vec<u8>>,
    ) -> Result<u32, String> {
        let terms = self.terms(&game).ok_or("unknown game")?;
        if Self::seat_of(&terms, &peer).is_none() && !Self::is_mailbox(&terms, &peer) {
            tracing::warn!(%peer, "refused a push from a peer that holds no seat of the game");
            return Err("only the game's seats and mailboxes may post to it".into());
        }
        Ok(self.take_envelopes(peer, Some(game), envelopes))
    }

    /// The envelopes of `game` that `peer`, holding `have`, lacks and may see; an error
    /// when the game is unknown or `peer` holds no seat of it and is not its mailbox.
    fn lacking(
        &self,
        peer: &PeerId,
        game: &[u8; 32],
        have: &[(ChainId, u64)],
    ) -> Result<Vec<Vec<u8>>, String> {
        let terms = self.terms(game).ok_or("unknown game")?;
        let seat = Self::seat_of(&terms, peer);
        if seat.is_none() && !Self::is_mailbox(&terms, peer) {
            return Err("only the game's seats and mailboxes may read it".into());
        }
        if let Some(p) = self.played.get(game) {
            let envs = p.table.envelopes_after(have, seat.unwrap_or(Seat(u8::MAX)));
            return Ok(envs
                .into_iter()
                .filter(|e| seat.is_some() || is_public(e))
                .collect());
        }
        let r = self.relayed.get(game).ok_or("unknown game")?;
        let have: BTreeMap<ChainId, u64> = have.iter().copied().collect();
        Ok(r.chains
            .iter()
            .flat_map(|(c, seqs)| {
                let from = have.get(c).copied().unwrap_or(0);
                seqs.range(from..).map(|(_, b)| b.clone())
            })
            .collect())
    }

    /// A proposal, from a proposer or a mailbox: a game to play if it names us, to relay
    /// if we are a mailbox it names.
    fn take_proposal(&mut self, peer: PeerId, bytes: &[u8]) -> Response {
        let terms = match Terms::parse(bytes) {
            Ok(t) => t,
            Err(e) => return Response::Refused(format!("proposal: {e}")),
        };
        let id = terms.game().0.0;
        if self.played.contains_key(&id) || self.relayed.contains_key(&id) {
            return Response::Ok { new: 0 };
        }
        let me = self.key.public().to_bytes();
        if let Some(seat) = terms.seat_of(&me) {
            if let Err(e) = TimeControl::of(terms.proposal()) {
                return Response::Refused(format!("proposal: {e}"));
            }
            let entropy = match crate::home::random32() {
                Ok(e) => e,
                Err(e) => return Response::Refused(e.to_string()),
            };
            let t = match table::open(
                terms.clone(),
                SecretKey::from_seed(&self.key.seed()),
                entropy,
                now_ms(),
            ) {
                Ok(t) => t,
                Err(e) => return Response::Refused(e.to_string()),
            };
            let record = GameRecord {
                id,
                terms: bytes.to_vec(),
                variant: terms.variant().to_owned(),
                seat: Some(seat.0),
                created: now_ms(),
                status: GameStatus::Invited,
            };
            if let Err(e) = self.store.put_game(&record) {
                return Response::Refused(e.to_string());
            }
            tracing::info!(game = %hex::encode(id), %peer, "invited to a game");
            self.mailbox_addrs(&terms);
            self.played.insert(id, Played { table: t, record });
            if self.cfg.referee
                && terms.role(seat) == Some(sealed_protocol::proposal::Role::Referee)
            {
                // The only choice a referee seat makes is to accept: the bot does that.
                self.bots.insert(id);
            }
            self.bot_dirty.insert(id);
            self.run_bots();
            return Response::Ok { new: 0 };
        }
        if self.cfg.mailbox && terms.proposal().mailboxes.iter().any(|m| m.key == me) {
            let record = GameRecord {
                id,
                terms: bytes.to_vec(),
                variant: terms.variant().to_owned(),
                seat: None,
                created: now_ms(),
                status: GameStatus::Relayed,
            };
            if let Err(e) = self.store.put_game(&record) {
                return Response::Refused(e.to_string());
            }
            self.relayed.insert(
                id,
                Relayed {
                    terms,
                    chains: BTreeMap::new(),
                },
            );
            return Response::Ok { new: 0 };
        }
        Response::Refused("this node holds no seat of that game and is not its mailbox".into())
    }

    /// Envelopes received (pushed, pulled or mailed): stored before anything is
    /// acknowledged or sent, then given to the game. Returns how many were new.
    fn take_envelopes(&mut self, from: PeerId, game: Option<[u8; 32]>, envs: Vec<Vec<u8>>) -> u32 {
        let Some(game) = game.or_else(|| self.game_of(&envs)) else {
            return 0;
        };
        let Some(terms) = self.terms(&game) else {
            return 0;
        };
        // Keep only validly signed envelopes of this game: a peer cannot make us store
        // anything a seat did not sign.
        let valid: Vec<Vec<u8>> = envs
            .into_iter()
            .filter(|b| Signed::parse(&terms, b).is_ok())
            .collect();
        let refs: Vec<&[u8]> = valid.iter().map(Vec::as_slice).collect();
        let new = match self.store.put_envelopes(&game, &refs) {
            Ok(n) => n as u32,
            Err(e) => {
                tracing::error!("store: {e}");
                return 0;
            }
        };
        if let Some(r) = self.relayed.get_mut(&game) {
            let mut fresh = vec![];
            for b in valid {
                if relay_keep(r, b.clone()) {
                    fresh.push(b);
                }
            }
            // Forward what is new to the other seats that are connected.
            if !fresh.is_empty() {
                let peers: Vec<PeerId> = self
                    .game_peers(&terms)
                    .into_iter()
                    .filter(|p| *p != from && self.connected.contains(p))
                    .collect();
                for p in peers {
                    self.request(
                        p,
                        Request::Push {
                            game,
                            envelopes: fresh.clone(),
                        },
                    );
                }
            }
            return new;
        }
        let Some(p) = self.played.get_mut(&game) else {
            return new;
        };
        for b in &valid {
            let _ = p.table.handle_envelope(b, now_ms());
        }
        let actions = drain(&mut *p.table);
        if let Err(e) = self.persist(game, &actions) {
            tracing::error!("store: {e}");
            return new;
        }
        self.perform(game, actions);
        self.run_bots();
        new
    }

    fn game_of(&self, envs: &[Vec<u8>]) -> Option<[u8; 32]> {
        let first = envs.first()?;
        let env: sealed_protocol::envelope::Envelope =
            sealed_protocol::wire::decode(first, sealed_protocol::wire::MAX_MESSAGE).ok()?;
        Some(env.unsigned.game.0.0)
    }

    fn mail_export(&self, g: &str) -> Result<String, String> {
        let id = self.game_id(g)?;
        let terms = self.terms(&id).ok_or("no such game")?;
        // Mail goes to the other player: only what that seat may see (a private log
        // outside its audience never leaves). With several other seats the mail could
        // reach any of them, so only the public logs go.
        let envelopes = match self.played.get(&id) {
            Some(p) => {
                let me = p.table.seat();
                let others: Vec<Seat> = (0..terms.proposal().seats.len() as u8)
                    .map(Seat)
                    .filter(|s| *s != me)
                    .collect();
                match others.as_slice() {
                    [one] => p.table.envelopes_after(&[], *one),
                    _ => p
                        .table
                        .envelopes()
                        .into_iter()
                        .filter(|e| is_public(e))
                        .collect(),
                }
            }
            None => self.store.envelopes(&id).map_err(|e| e.to_string())?,
        };
        Ok(mail::armor(
            &id,
            &Mail {
                proposal: terms.bytes().to_vec(),
                envelopes,
            },
        ))
    }

    fn mail_import(&mut self, text: &str) -> Result<Vec<String>, String> {
        let mails = mail::dearmor(text)?;
        let mut touched = vec![];
        let me = *self.swarm.local_peer_id();
        for m in mails {
            let terms = Terms::parse(&m.proposal).map_err(|e| format!("mail: {e}"))?;
            let id = terms.game().0.0;
            if let Response::Refused(why) = self.take_proposal(me, &m.proposal) {
                return Err(why);
            }
            self.take_envelopes(me, Some(id), m.envelopes);
            touched.push(hex::encode(id));
        }
        Ok(touched)
    }
}

/// Every action a table has queued.
fn drain(t: &mut dyn Table) -> Vec<Action> {
    std::iter::from_fn(|| t.poll_action()).collect()
}

fn is_public(bytes: &[u8]) -> bool {
    sealed_protocol::wire::decode::<sealed_protocol::envelope::Envelope>(
        bytes,
        sealed_protocol::wire::MAX_MESSAGE,
    )
    .is_ok_and(|e| e.unsigned.log.is_public())
}

/// Keeps a relayed envelope (public logs only); returns whether it was new.
fn relay_keep(r: &mut Relayed, bytes: Vec<u8>) -> bool {
    let Ok(s) = Signed::parse(&r.terms, &bytes) else {
        return false;
    };
    if !s.at().chain.log.is_public() {
        return false;
    }
    let chain = r.chains.entry(s.at().chain).or_default();
    if chain.contains_key(&s.at().seq) {
        return false;
    }
    chain.insert(s.at().seq, bytes);
    true
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
