//! Drives a core with any sequence of inputs read from bytes, as strangers, seats and the
//! network could make them: proposals of every variant (valid and signed, from keys the
//! driver holds), envelopes chained and signed, equivocations, `Heads` of any size, `Pull`,
//! `Introduce` of any address, connections from global and local addresses, addresses
//! learned, dials failed, lookup points, writes that succeed or fail, answers, time alone
//! (timeouts), restarts, and a person's commands (accept, decline, withdraw, moves in any
//! words, bots on and off, show, transcript, score, PGN, mail out and in, rulings,
//! proposals, standing mailboxes). A game a peer proposes to this node may be played for
//! real: the proposer's seat is a live table (`drive/live.rs`) that takes what the node
//! sends it and pushes what its bot decides. The fuzz target
//! `fuzz/fuzz_targets/core_sync.rs` and the property test `node/drive/tests/drive.rs` run
//! it.
//!
//! Checked after every input (a panic is a finding): nothing is dialled at an address
//! given by an introduction the rules refuse (`core/src/sync.rs` `introduced`); what each
//! proposer and all strangers stored stays within the quotas (`core/src/quota.rs`), in
//! the core and in the store; no more than two envelopes are stored at one position
//! (the first, and one of evidence); writes waiting stay bounded; nothing the node
//! signed is sent or served before its store holds it; no live opponent finds the
//! node's seat at fault, whatever writes failed and however often it restarted.
//!
//! Over 600 lines: the inputs it makes and the checks after them read one world's
//! state (the games made, the chains' heads, the addresses given, what was stored).
//!
//! A crate of its own beside the node (issue 54): it drives the node's core with the
//! node's store in memory and its sync messages, and is no part of the node's public API.
#![forbid(unsafe_code)]

mod commands;
mod live;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use sealed_protocol::body::Item;
use sealed_protocol::envelope::Unsigned;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, LogId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{MailboxSpec, Terms};

use live::Live;
use sealed_node::core::{
    Cmd, CmdId, Core, CoreConfig, Durable, GameId, InId, Input, OutId, Output, PeerKey, Quotas,
    WriteId, Writes,
};
use sealed_node::limit::Limits;
use sealed_node::origin::Origin;
use sealed_node::store::{MemoryStore, Usage};
use sealed_node::sync::{Request, Response};

/// What a run did, for a test to look at.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs given.
    pub inputs: usize,
    /// Requests answered `Ok`.
    pub taken: usize,
    /// Requests refused.
    pub refused: usize,
    /// Dials the core asked for.
    pub dials: usize,
    /// Games in the store at the end.
    pub games: usize,
    /// Envelopes in the store at the end.
    pub envelopes: usize,
}

/// The quotas and limits the driver runs under: small, so that runs reach them.
pub fn config(flags: u8) -> CoreConfig {
    CoreConfig {
        mailbox: flags & 1 != 0,
        referee: flags & 2 != 0,
        witness: flags & 4 != 0,
        strangers: flags & 8 == 0,
        bots: flags & 16 != 0,
        limits: Limits {
            burst: 400.0,
            per_second: 50.0,
        },
        quotas: Quotas {
            per_proposer: Usage {
                games: 3,
                envelopes: 40,
                bytes: 24 << 10,
            },
            per_network: Usage {
                games: 5,
                envelopes: 60,
                bytes: 36 << 10,
            },
            total: Usage {
                games: 6,
                envelopes: 80,
                bytes: 48 << 10,
            },
            open_per_proposer: 2,
            open_total: 4,
        },
        idle_unload_ms: 20_000,
        // Idle games sleep and wake under the fuzzer too (`sleep.rs`).
        sleep_ms: 20_000,
        ..CoreConfig::default()
    }
}

/// A fuzz input read as a stream of choices: past its end every byte reads 0, so any
/// input, however short, drives a whole run (the `session` fuzz target reads its input
/// the same way).
pub struct Bytes<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    /// Reads `b` from its start.
    pub fn new(b: &'a [u8]) -> Self {
        Bytes { b, at: 0 }
    }

    /// The next byte.
    pub fn u8(&mut self) -> u8 {
        let v = self.b.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        v
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.u8() as usize % n }
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u8()).collect()
    }

    /// Whether the input is used up.
    pub fn done(&self) -> bool {
        self.at >= self.b.len()
    }
}

const VARIANTS: [&str; 5] = ["duel", "cardmate", "chex", "tempete", "stallmate"];

/// The driver's world: one core and its store, the keys it plays against.
struct World {
    core: Core,
    store: MemoryStore,
    cfg: CoreConfig,
    me: SecretKey,
    peers: Vec<SecretKey>,
    now: u64,
    games: Vec<Terms>,
    /// Per (game, log, seat): the next seq and the previous envelope's hash.
    chains: HashMap<(usize, u32, u8), (u64, Hash)>,
    writes: VecDeque<(WriteId, Writes)>,
    recover: VecDeque<WriteId>,
    sends: VecDeque<(PeerKey, OutId)>,
    connected: BTreeSet<PeerKey>,
    /// Whether each connected peer came from a global address.
    origins: HashMap<PeerKey, bool>,
    next_in: InId,
    next_port: u32,
    /// Addresses no dial may use: introduced for a game not accepted, a non-seat, or
    /// a non-global address from a global peer.
    forbidden: BTreeSet<String>,
    report: Report,
    /// Games peers proposed to this node, their proposer's seat played for real.
    live: Vec<Live>,
    /// Envelopes the driver signed with this node's key (a thief's).
    stolen: BTreeSet<Vec<u8>>,
    /// Answers prepared for the core's requests to a live opponent (`Behind`).
    answers: HashMap<OutId, Response>,
    /// The last game mail the core exported.
    mail: Option<String>,
    /// Whether the core was told of a lookup point.
    lookups: bool,
}

/// The command number of a mail export, to keep its answer.
const MAIL_EXPORT: CmdId = CmdId(7);

fn key(seed: u8) -> SecretKey {
    SecretKey::from_seed(&[seed; 32])
}

/// Runs the inputs `data` describes; panics if a check fails.
pub fn run(data: &[u8]) -> Report {
    let mut b = Bytes::new(data);
    let cfg = config(b.u8());
    let me = key(1);
    let store = MemoryStore::default();
    let now = 1_700_000_000_000;
    let core =
        Core::start(key(1), cfg.clone(), [7; 32], now, &store).expect("an empty store opens");
    let mut w = World {
        core,
        store,
        cfg,
        me,
        peers: (0..5).map(|i| key(10 + i)).collect(),
        now,
        games: vec![],
        chains: HashMap::new(),
        writes: VecDeque::new(),
        recover: VecDeque::new(),
        sends: VecDeque::new(),
        connected: BTreeSet::new(),
        origins: HashMap::new(),
        next_in: InId(0),
        next_port: 1000,
        forbidden: BTreeSet::new(),
        report: Report::default(),
        live: vec![],
        stolen: BTreeSet::new(),
        answers: HashMap::new(),
        mail: None,
        lookups: false,
    };
    w.drain();
    while !b.done() {
        w.step(&mut b);
        w.drain();
        w.check();
    }
    w.report.games = w.store.game_ids().len();
    w.report.envelopes = w.store.envelope_total();
    w.report
}

impl World {
    fn peer(&self, i: usize) -> PeerKey {
        PeerKey::from(self.peers[i % self.peers.len()].public())
    }

    fn input(&mut self, input: Input) {
        self.report.inputs += 1;
        self.core.handle(self.now, input, &self.store);
    }

    fn request(&mut self, from: usize, req: Request) {
        let id = self.next_in.take_next();
        let peer = self.peer(from);
        self.input(Input::Request { peer, id, req });
    }

    fn step(&mut self, b: &mut Bytes<'_>) {
        match b.below(17) {
            0 => self.propose(b),
            1 | 2 => self.envelopes(b, false),
            3 => self.envelopes(b, true),
            4 => {
                let from = b.below(5);
                let n = b.below(4);
                let games = (0..n)
                    .map(|_| {
                        let game = self.game_id(b);
                        let entries = (0..b.u8() as u32 * 4)
                            .map(|i| {
                                (
                                    ChainId {
                                        log: LogId(i % 7),
                                        seat: Seat((i % 3) as u8),
                                    },
                                    u64::from(b.u8()),
                                )
                            })
                            .collect();
                        (game, entries)
                    })
                    .collect();
                self.request(from, Request::Heads { games });
            }
            5 => {
                let from = b.below(5);
                let game = self.game_id(b);
                self.request(from, Request::Pull { game, have: vec![] });
            }
            6 => self.introduce(b),
            7 => {
                let p = self.peer(b.below(5));
                let origin = match b.below(3) {
                    0 => Some(Origin {
                        key: format!("ip4/9.9.9.{}", b.below(3)),
                        global: true,
                    }),
                    1 => Some(Origin {
                        key: "ip4/10.0.0.1".into(),
                        global: false,
                    }),
                    _ => None,
                };
                // As the core counts it: every connection that says where it comes from
                // sets the peer's origin (one from a private address makes it local).
                self.connected.insert(p);
                if let Some(o) = &origin {
                    self.origins.insert(p, o.global);
                }
                self.input(Input::Connected {
                    peer: p,
                    addr: None,
                    origin,
                });
            }
            8 => {
                let p = self.peer(b.below(5));
                self.connected.remove(&p);
                self.origins.remove(&p);
                self.input(Input::Disconnected { peer: p });
            }
            9 => {
                let ok = b.below(8) != 0;
                if let Some((write, writes)) = self.writes.pop_front() {
                    let result = if ok {
                        Ok(self.store.commit(&writes))
                    } else {
                        Err(sealed_node::core::WriteFailed(
                            "the disk is full (driven)".into(),
                        ))
                    };
                    self.input(Input::Written { write, result });
                } else if let Some(write) = self.recover.pop_front() {
                    self.input(Input::Written {
                        write,
                        result: Ok(0),
                    });
                }
            }
            10 => {
                if let Some((_, id)) = self.sends.pop_front() {
                    let prepared = self.answers.remove(&id);
                    let resp = match b.below(4) {
                        0 if prepared.is_some() => prepared,
                        0 => Some(Response::Ok { new: 0 }),
                        1 => Some(Response::Refused("driven".into())),
                        2 => Some(Response::Behind {
                            envelopes: vec![],
                            unknown: self.games.iter().map(|t| t.game()).take(2).collect(),
                        }),
                        _ => None,
                    };
                    match resp {
                        Some(resp) => self.input(Input::Response { id, resp }),
                        None => self.input(Input::RequestFailed { id }),
                    }
                }
            }
            11 => {
                self.now += 1000 * u64::from(b.u8());
                self.input(Input::Timeout);
            }
            12 => {
                let game = self.game_id(b);
                let g = hex::encode(game);
                let cmd = match b.below(4) {
                    0 => Cmd::Accept(g.into()),
                    1 => Cmd::Decline(g.into()),
                    2 => Cmd::Games,
                    _ => Cmd::Peers,
                };
                self.input(Input::Command { id: CmdId(0), cmd });
            }
            14 => self.live_act(b),
            15 => self.live_push(b),
            16 => self.more(b),
            _ => {
                if b.below(4) == 0 {
                    // A restart: what was not committed is lost.
                    self.writes.clear();
                    self.recover.clear();
                    self.sends.clear();
                    self.connected.clear();
                    self.origins.clear();
                    self.answers.clear();
                    self.lookups = false;
                    self.core = Core::start(
                        SecretKey::from_seed(&self.me.seed()),
                        self.cfg.clone(),
                        [8; 32],
                        self.now,
                        &self.store,
                    )
                    .expect("a store the core wrote opens");
                } else {
                    let from = b.below(5);
                    let game = self.game_id(b);
                    let req = match b.below(3) {
                        0 => Request::Witness { game },
                        // Deposits of any bytes and sizes (a witness keeps them for the
                        // other seat, within the proposer's quota).
                        1 => {
                            let n = b.below(sealed_node::sync::MAX_DEPOSITS + 2);
                            let size = 16 * b.below(300);
                            let fill = b.u8();
                            Request::Deposit {
                                game,
                                deposits: (0..n)
                                    .map(|i| vec![fill.wrapping_add(i as u8); size])
                                    .collect(),
                            }
                        }
                        _ => Request::Deposits {
                            game,
                            from: b.below(8) as u64,
                        },
                    };
                    self.request(from, req);
                }
            }
        }
    }

    /// A game id: mostly one of the games made, sometimes one nobody knows.
    fn game_id(&self, b: &mut Bytes<'_>) -> GameId {
        let i = b.u8() as usize;
        match self.games.get(i % (self.games.len() + 1)) {
            Some(t) => t.game(),
            None => [i as u8; 32].into(),
        }
    }

    fn propose(&mut self, b: &mut Bytes<'_>) {
        let proposer = b.below(5);
        let variant = VARIANTS[b.below(VARIANTS.len())];
        let me = PeerKey::from(self.me.public());
        let opponent = if b.below(2) == 0 {
            me
        } else {
            self.peer(b.below(5))
        };
        let referee = (variant == "stallmate").then(|| {
            if b.below(2) == 0 {
                me
            } else {
                self.peer(b.below(5))
            }
        });
        let mailboxes = match b.below(3) {
            0 => vec![MailboxSpec {
                key: me.to_bytes(),
                addrs: vec![format!(
                    "/ip4/9.9.9.9/tcp/1/p2p/{}",
                    sealed_node::net::peer_id(me.as_bytes()).expect("a key")
                )],
            }],
            1 => vec![MailboxSpec {
                key: self.peer(b.below(5)).to_bytes(),
                addrs: vec!["/ip4/10.9.9.9/tcp/1".into()],
            }],
            _ => vec![],
        };
        let nonce = [self.games.len() as u8; 32];
        let Ok(signed) = sealed_games::table::propose(
            variant,
            &[],
            &self.peers[proposer],
            sealed_games::table::Invitees {
                opponent: opponent.to_bytes(),
                referee: referee.map(PeerKey::to_bytes),
                mailboxes,
                ..Default::default()
            },
            self.now,
            nonce,
        ) else {
            return;
        };
        let Ok(terms) = Terms::from_signed(signed) else {
            return;
        };
        let bytes = terms.bytes().to_vec();
        if opponent == me && referee.is_none() && b.below(2) == 0 {
            let key = SecretKey::from_seed(&self.peers[proposer].seed());
            self.live
                .extend(Live::open(&terms, proposer, key, me.as_bytes(), self.now));
        }
        self.games.push(terms);
        let from = if b.below(2) == 0 {
            proposer
        } else {
            b.below(5)
        };
        if b.below(2) == 0 {
            self.request(from, Request::Propose { proposal: bytes });
        } else {
            let envelopes = self.make(b, self.games.len() - 1, false);
            self.request(
                from,
                Request::Offer {
                    proposal: bytes,
                    envelopes,
                },
            );
        }
    }

    /// Envelopes of a game made so far, chained, signed by the seat's key (the
    /// driver holds every key, this node's too).
    fn make(&mut self, b: &mut Bytes<'_>, game: usize, equivocate: bool) -> Vec<Vec<u8>> {
        let Some(terms) = self.games.get(game).cloned() else {
            return vec![];
        };
        let seats: Vec<Seat> = terms.seats().collect();
        let seat = seats[b.below(seats.len())];
        let Some(k) = terms.key(seat).map(|k| k.to_bytes()) else {
            return vec![];
        };
        let thief = k == self.me.public().to_bytes();
        if thief {
            for l in self.live.iter_mut().filter(|l| l.game == terms.game()) {
                l.thief = true;
            }
        }
        let signer = if thief {
            SecretKey::from_seed(&self.me.seed())
        } else {
            match self.peers.iter().find(|p| p.public().to_bytes() == k) {
                Some(p) => SecretKey::from_seed(&p.seed()),
                None => return vec![],
            }
        };
        let log = if b.below(4) == 0 {
            b.below(3) as u32
        } else {
            0
        };
        let n = 1 + b.below(4);
        let mut out = vec![];
        for _ in 0..n {
            let (seq, prev) = self
                .chains
                .get(&(game, log, seat.0))
                .copied()
                .unwrap_or((0, Hash([0; 32])));
            let (seq, prev) = if equivocate && seq > 0 {
                (seq - 1, prev)
            } else {
                (seq, prev)
            };
            let body = match b.below(7) {
                0 => vec![Item::Accept],
                1 => vec![Item::Decline],
                2 => vec![Item::Close],
                3 => vec![Item::Resign],
                4 => vec![Item::OfferDraw],
                5 => vec![Item::Act(vec![b.u8(); b.below(64) * 32])],
                _ => vec![],
            };
            let s = Unsigned {
                version: terms.version(),
                game: terms.game(),
                log: LogId(log),
                seat,
                seq,
                prev,
                acks: vec![],
                clock: self.now + u64::from(b.u8()),
                body,
            }
            .sign(&signer);
            if !equivocate {
                self.chains.insert((game, log, seat.0), (seq + 1, s.hash));
            }
            if thief {
                self.stolen.insert(s.bytes.clone());
            }
            out.push(s.bytes);
        }
        out
    }

    fn envelopes(&mut self, b: &mut Bytes<'_>, equivocate: bool) {
        if self.games.is_empty() {
            return;
        }
        let game = b.below(self.games.len());
        let from = b.below(5);
        let envelopes = self.make(b, game, equivocate);
        let id = self.games[game].game();
        let req = match b.below(3) {
            0 => Request::Push {
                game: id,
                envelopes,
            },
            1 => Request::PushMany {
                games: vec![(id, envelopes)],
            },
            _ => Request::Offer {
                proposal: self.games[game].bytes().to_vec(),
                envelopes,
            },
        };
        self.request(from, req);
    }

    fn introduce(&mut self, b: &mut Bytes<'_>) {
        let from = b.below(5);
        let game = self.game_id(b);
        let n = b.below(20);
        let from_key = self.peer(from);
        let me = self.me.public().to_bytes();
        let terms = self.games.iter().find(|t| t.game() == game).cloned();
        let accepted = self.core.game_accepted(&game);
        let from_local = self.origins.get(&from_key) == Some(&false);
        let mut addrs = vec![];
        for _ in 0..n {
            let who = self.peer(b.below(5));
            self.next_port += 1;
            let port = self.next_port;
            let global = b.below(2) == 0;
            let ip = if global { "9.8.7.6" } else { "192.168.1.1" };
            let text = match b.below(8) {
                0 => format!("/ip4/{ip}/tcp/{port}"),
                1 => "not an address".to_owned(),
                _ => format!(
                    "/ip4/{ip}/tcp/{port}/p2p/{}",
                    sealed_node::net::peer_id(who.as_bytes()).expect("a key")
                ),
            };
            let seat = terms
                .as_ref()
                .is_some_and(|t| t.seat_of(who.as_bytes()).is_some());
            let introducer = terms.as_ref().is_some_and(|t| {
                t.seat_of(from_key.as_bytes()).is_some()
                    || t.proposal().mailboxes.iter().any(|m| m.key == from_key)
            });
            // What the rules refuse; an address taken may still be dialled.
            if !(accepted && seat && introducer && (global || from_local))
                || who == me
                || who == from_key
            {
                self.forbidden.insert(text.clone());
            }
            addrs.push(
                text.parse::<sealed_node::Multiaddr>()
                    .ok()
                    .and_then(|a| sealed_node::shell::peer_of(&a))
                    .and_then(|p| sealed_node::shell::key_of(&p))
                    .map(|k| (k, text)),
            );
        }
        let id = self.next_in.take_next();
        self.input(Input::Introduced {
            peer: from_key,
            id,
            game,
            addrs,
        });
    }

    /// Carries out what the core asked.
    fn drain(&mut self) {
        while let Some(out) = self.core.poll_output() {
            match out {
                Output::Write { write, writes } => self.writes.push_back((write, writes)),
                Output::Recover { write } => self.recover.push_back(write),
                Output::Send { peer, id, req } => {
                    self.sent(peer, id, &req);
                    self.sends.push_back((peer, id));
                }
                Output::Respond { resp, .. } => match resp {
                    Response::Refused(_) => self.report.refused += 1,
                    Response::Behind { envelopes, .. } => {
                        for (game, envs) in &envelopes {
                            self.durable(Some(*game), envs);
                        }
                        self.report.taken += 1;
                    }
                    Response::Envelopes(envs) => {
                        self.durable(None, &envs);
                        self.report.taken += 1;
                    }
                    _ => self.report.taken += 1,
                },
                // The simulation plays no game whose computations send messages
                // (its VARIANTS); node/tests/duo_nodes.rs plays one between real nodes.
                Output::Message { .. } => {}
                // The core asks a lookup only of the lookup points it was told of.
                Output::LookUp { .. } => {
                    assert!(self.lookups, "a lookup with no lookup point connected")
                }
                Output::Dial { peer, addrs } => {
                    self.report.dials += 1;
                    for a in &addrs {
                        assert!(
                            !self.forbidden.contains(a),
                            "dialled {} at {a}, an address the rules refused",
                            peer.short()
                        );
                    }
                }
                Output::Reply { id, result } => {
                    if id == MAIL_EXPORT
                        && let Ok(sealed_node::core::Answer::Text(t)) = result
                    {
                        self.mail = Some(t);
                    }
                }
            }
        }
    }

    fn check(&self) {
        for l in &self.live {
            l.check();
        }
        let q = self.cfg.quotas;
        let mut stored: BTreeMap<PeerKey, Usage> = BTreeMap::new();
        for (who, used) in self.store.quotas().expect("reads") {
            stored.insert(who, used);
        }
        let mut all = Usage::default();
        for (who, used) in &stored {
            assert!(
                used.within(q.per_proposer),
                "{} stored {used:?}",
                who.short()
            );
            all = all.plus(*used);
        }
        assert!(all.within(q.total), "all strangers stored {all:?}");
        for p in &self.peers {
            let (mine, total) = self.core.used_by(&PeerKey::from(p.public()));
            assert!(mine.within(q.per_proposer), "in memory {mine:?}");
            assert!(total.within(q.total), "in memory, in all {total:?}");
        }
        let me = self.me.public().to_bytes();
        for id in self.store.game_ids() {
            // The node's own chains are left out: besides what it signs, only a holder of
            // its secret key (the driver, playing a thief) can sign there — no stranger.
            let terms = self.games.iter().find(|t| t.game() == id);
            let mine = |seat| terms.and_then(|t| t.key(seat)).map(|k| k.to_bytes()) == Some(me);
            let mut at: BTreeMap<(ChainId, u64), usize> = BTreeMap::new();
            for e in self.store.all_envelopes(&id) {
                // A version 2 envelope travels without its game id: read under this one.
                if let Ok(env) = sealed_protocol::envelope::Envelope::decode(&e, id)
                    && !mine(env.unsigned.at().chain.seat)
                {
                    *at.entry((env.unsigned.at().chain, env.unsigned.seq))
                        .or_default() += 1;
                }
            }
            assert!(
                at.values().all(|n| *n <= 2),
                "three envelopes at one position of {}",
                hex::encode(&id.bytes()[..4])
            );
        }
        assert!(
            self.writes.len() <= sealed_node::core::MAX_QUEUED_WRITES + 64,
            "{} writes waiting",
            self.writes.len()
        );
    }
}
