//! The deterministic simulation of node cores (as FoundationDB and TigerBeetle test
//! theirs): several `sealed_core::Core`s on one thread and one virtual clock, a
//! simulated network that drops, duplicates, delays, reorders and partitions, and a
//! simulated store that keeps only what was committed. The scheduler crashes nodes at
//! action boundaries — a write handed to the store but not committed, a write committed
//! but its result not yet back (so nothing it allows was sent), several games' writes
//! in flight at once — both players at once, and fills disks for a while. Everything
//! random comes from one seed, so a failing seed replays exactly.
//!
//! Over 800 lines, kept whole on purpose: the world's event loop (`run` and `event`, one match
//! over every event) and the plumbing of each node's inputs and outputs (`input`,
//! `drain`, `output`) read and change the same private state — the event queue, the
//! links in flight, each node's life and pending deadline — and split across files they
//! would need that state opened to the whole crate. What stands apart already has its
//! own file: the faults, the store, the chaos, the records and the witnessed scenarios.

mod chaos;
mod faults;
pub mod record;
pub mod store;
pub mod witnessed;

use chaos::{carried, carried_resp};
pub use faults::{CrashPoint, Faults, Tally};
pub use record::Record;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};

use sealed_core::message::{Request, Response};
use sealed_core::{
    Answer, Cmd, CmdId, Core, CoreConfig, InId, Input, NodeError, OutId, Output, PeerKey,
    ProposeArgs, WriteId, Writes,
};
use sealed_protocol::hash::Framed;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::random::Stream;

use store::SimStore;

/// A node of the world.
pub struct Node {
    /// Its name in the world's lines.
    pub name: String,
    /// Its key.
    pub key: SecretKey,
    /// What its core is started with.
    pub cfg: CoreConfig,
    /// Its core, none while it is down.
    pub core: Option<Core>,
    /// Its store: what was committed.
    pub store: SimStore,
    /// Writes handed to the store's writer, oldest first, not committed yet.
    jobs: VecDeque<(WriteId, Option<Writes>)>,
    /// Writes committed whose result has not reached the core.
    committed: usize,
    /// A peer's request: which node and its number there.
    inbound: BTreeMap<InId, (usize, OutId)>,
    next_in: InId,
    /// Our requests: to which node.
    /// Where each request went, and for a pull the game it asked for (a version 2
    /// envelope does not name its game).
    outbound: BTreeMap<OutId, (usize, Option<sealed_core::GameId>)>,
    /// Bumped at every crash: what was in flight to the dead process is dropped.
    life: u64,
    /// The moment of the `Deadline` that stands: the core's next deadline.
    due: Option<u64>,
    /// How many times it was started again.
    pub restarts: u64,
}

/// A message between nodes.
#[derive(Clone, Debug)]
enum Msg {
    Request {
        from: usize,
        out: OutId,
        req: Request,
    },
    Response {
        out: OutId,
        resp: Response,
    },
    /// A message of a game's computations, on its own stream.
    Message {
        from: usize,
        /// The sender's life when it sent it: a stream that does not arrive whole is
        /// reported to that process only (the shell's `MessageLost`).
        from_life: u64,
        game: sealed_core::GameId,
        index: u64,
        bytes: Vec<u8>,
    },
}

#[derive(Clone, Debug)]
enum Ev {
    Deliver {
        to: usize,
        life: u64,
        msg: Msg,
    },
    /// The requester's request got nothing back in time.
    Timeout {
        node: usize,
        life: u64,
        out: OutId,
    },
    Commit {
        node: usize,
        life: u64,
    },
    Written {
        node: usize,
        life: u64,
        write: WriteId,
        result: Result<usize, sealed_core::WriteFailed>,
    },
    /// The moment the node's core last gave as its next deadline.
    Deadline {
        node: usize,
        life: u64,
    },
    /// A computation's message `node` sent did not arrive whole: its stream ended
    /// without the receiver's answer byte (spec/PROTOCOL.md §16.7).
    Lost {
        node: usize,
        life: u64,
        to: usize,
        game: sealed_core::GameId,
        index: u64,
    },
    Connect {
        a: usize,
        b: usize,
    },
    Restart {
        node: usize,
    },
    DiskOk {
        node: usize,
    },
    Heal {
        a: usize,
        b: usize,
    },
}

/// Latency of a message, ms.
const LATENCY: (u64, u64) = (1, 40);
/// How long a commit takes, ms.
const COMMIT: (u64, u64) = (1, 8);
/// A request unanswered for this long fails, ms.
const TIMEOUT: u64 = 3_000;
/// Request numbers of [`World::ask`]: far above any the world gives its own peers.
const OUTSIDE: InId = InId(1 << 40);
/// The nodes' repair round, ms (`CoreConfig::repair_every_ms`, set for every node).
const REPAIR: u64 = 500;
/// The longest outage: a crashed node is back within this, ms.
pub const MAX_OUTAGE: u64 = 1_500;

/// The world.
pub struct World {
    /// Its nodes.
    pub nodes: Vec<Node>,
    queue: BinaryHeap<Reverse<(u64, u64, usize)>>,
    events: Vec<Option<Ev>>,
    /// The virtual clock, ms.
    pub now: u64,
    rng: Stream,
    seq: u64,
    /// What goes wrong, and how often.
    pub faults: Faults,
    /// Node pairs that can reach each other now.
    pub connected: BTreeSet<(usize, usize)>,
    cut: BTreeSet<(usize, usize)>,
    /// Nodes that are players (both-at-once crashes pick them).
    pub players: Vec<usize>,
    /// Pairs a person keeps connected (`sealed dial <mailbox>`): dialled whenever either
    /// side (re)starts.
    pub standing: Vec<(usize, usize)>,
    /// Crashes are allowed (off while the world settles at the end).
    pub chaos: bool,
    /// What it counted.
    pub tally: Tally,
    /// Replies to commands, by number.
    pub replies: BTreeMap<CmdId, Result<Answer, NodeError>>,
    next_cmd: CmdId,
    /// Everything wrong the world saw while running (§16.4 violations).
    pub violations: Vec<String>,
    /// Answers to requests a test put to a node as an outside peer ([`World::ask`]).
    pub answers: BTreeMap<InId, Response>,
    /// A scripted adversary's hand on every message a node puts on the wire (the
    /// adversarial simulation): it may rewrite it, drop it or hold it back.
    pub filter: Option<Box<Filter>>,
    /// The receivers of the computations' messages answer nothing (nodes of document
    /// 2.8, spec/PROTOCOL.md §16.7): every message taken is also reported lost to its
    /// sender.
    pub unanswered: bool,
    /// Every byte the nodes put on the wire and hand to their stores, in order
    /// (`record.rs`): what the golden tests compare.
    pub record: Record,
}

/// What an adversary does with a message: its time, sender, receiver and contents.
pub type Filter = dyn FnMut(u64, usize, usize, &mut Payload<'_>) -> Fate;

/// A message's contents, for a [`Filter`] to read and rewrite.
pub enum Payload<'a> {
    /// A request.
    Request(&'a mut Request),
    /// A response.
    Response(&'a mut Response),
    /// A message of a game's computations (its game and position): a hand may drop or
    /// hold it, not rewrite it (its hash is signed in the transcript).
    Message {
        /// Its game.
        game: sealed_core::GameId,
        /// Its position among the game's messages.
        index: u64,
    },
}

/// What becomes of a message a [`Filter`] saw.
pub enum Fate {
    /// It goes on as it is now.
    Pass,
    /// It is lost (a computation's message: its sender hears so, as from a stream that
    /// ended unanswered).
    Drop,
    /// It is lost, and its sender hears nothing of it (a computation's message on a
    /// stream the receiver holds open and never answers).
    Vanish,
    /// It arrives this many ms later than it would have.
    Hold(u64),
}

fn pair(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

/// The address the world gives a node: its key, readable back.
pub fn addr_of(key: &PeerKey) -> String {
    format!("/sim/{}", hex::encode(key))
}

impl World {
    /// A world of nodes with these names and configurations; `seed` drives everything.
    pub fn new(seed: u64, faults: Faults, nodes: Vec<(&str, u8, CoreConfig)>) -> World {
        let rng = Stream::new(
            &Framed::new("sealed/test/node-sim")
                .field(&seed.to_le_bytes())
                .finish(),
        );
        let mut w = World {
            nodes: vec![],
            queue: BinaryHeap::new(),
            events: vec![],
            now: 1_800_000_000_000,
            rng,
            seq: 0,
            faults,
            connected: BTreeSet::new(),
            cut: BTreeSet::new(),
            players: vec![],
            standing: vec![],
            chaos: true,
            tally: Tally::default(),
            replies: BTreeMap::new(),
            next_cmd: CmdId(0),
            violations: vec![],
            answers: BTreeMap::new(),
            filter: None,
            unanswered: false,
            record: Record::default(),
        };
        for (name, seed_byte, mut cfg) in nodes {
            cfg.repair_every_ms = REPAIR;
            w.nodes.push(Node {
                name: name.to_owned(),
                key: SecretKey::from_seed(&[seed_byte; 32]),
                cfg,
                core: None,
                store: SimStore::default(),
                jobs: VecDeque::new(),
                committed: 0,
                inbound: BTreeMap::new(),
                next_in: InId(0),
                outbound: BTreeMap::new(),
                life: 0,
                due: None,
                restarts: 0,
            });
        }
        for i in 0..w.nodes.len() {
            w.boot(i);
        }
        w
    }

    fn chance(&mut self, per_mille: u32) -> bool {
        per_mille > 0 && self.rng.below(1000) < per_mille
    }

    fn between(&mut self, (lo, hi): (u64, u64)) -> u64 {
        lo + u64::from(self.rng.below((hi - lo + 1) as u32))
    }

    fn at(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.events.push(Some(ev));
        self.queue
            .push(Reverse((t, self.seq, self.events.len() - 1)));
    }

    /// The key of node `i`.
    pub fn key(&self, i: usize) -> PeerKey {
        PeerKey::from(self.nodes[i].key.public())
    }

    fn node_of(&self, key: &PeerKey) -> Option<usize> {
        (0..self.nodes.len()).find(|i| self.key(*i) == *key)
    }

    fn up(&self, i: usize) -> bool {
        self.nodes[i].core.is_some()
    }

    /// Starts node `i` from what its store holds.
    fn boot(&mut self, i: usize) {
        let n = &mut self.nodes[i];
        let seed = Framed::new("sealed/test/node-sim/entropy")
            .field(&[i as u8])
            .field(&n.life.to_le_bytes())
            .finish()
            .0;
        let key = SecretKey::from_seed(&n.key.seed());
        match Core::start(key, n.cfg.clone(), seed, self.now, &n.store) {
            Ok(core) => n.core = Some(core),
            Err(e) => self
                .violations
                .push(format!("{} did not start: {e}", n.name)),
        }
        self.nodes[i].due = None;
        self.drain(i);
        // Whoever it knows, it dials on its ticks; a standing link a person made is
        // dialled at once.
        for (a, b) in self.standing.clone() {
            if a == i || b == i {
                let t = self.now + self.between(LATENCY);
                self.at(t, Ev::Connect { a, b });
            }
        }
    }

    /// `a` and `b` can never reach each other (both behind NATs, say): what passes
    /// between them goes through a mailbox.
    pub fn sever(&mut self, a: usize, b: usize) {
        self.cut.insert(pair(a, b));
        self.disconnect(a, b);
    }

    /// Lets `a` and `b` reach each other again after [`World::sever`]; they connect
    /// when one next dials.
    pub fn mend(&mut self, a: usize, b: usize) {
        self.cut.remove(&pair(a, b));
    }

    /// Keeps `a` and `b` connected, as a person who dialled one from the other.
    pub fn link(&mut self, a: usize, b: usize) {
        self.standing.push((a, b));
        let t = self.now + self.between(LATENCY);
        self.at(t, Ev::Connect { a, b });
    }

    /// Hands node `i` an input and carries out its outputs.
    pub fn input(&mut self, i: usize, input: Input) {
        let now = self.now;
        let n = &mut self.nodes[i];
        let Some(core) = n.core.as_mut() else { return };
        core.handle(now, input, &n.store);
        self.drain(i);
    }

    /// A request to node `i` from `peer`, a party outside the world (a test's scripted
    /// seat): its number, whose answer lands in `answers`.
    pub fn ask(&mut self, i: usize, peer: PeerKey, req: Request) -> InId {
        let id = InId(OUTSIDE.0 + self.next_cmd.take_next().0);
        self.input(i, Input::Request { peer, id, req });
        id
    }

    /// Node `from` sends `to` a request its core never made (an adversary's own): its
    /// answer comes back to the core as one to a request it does not know, and is
    /// dropped there.
    pub fn inject(&mut self, from: usize, to: usize, req: Request) {
        let out = OutId(OUTSIDE.0 + self.next_cmd.take_next().0);
        let life = self.nodes[to].life;
        self.send(from, to, life, Msg::Request { from, out, req });
    }

    /// A command to node `i`; its number, whose reply lands in `replies`.
    pub fn command(&mut self, i: usize, cmd: Cmd) -> CmdId {
        let id = self.next_cmd.take_next();
        self.input(i, Input::Command { id, cmd });
        id
    }

    /// Proposes a game from node `from` to `to` (with a referee or mailbox): the
    /// command's number.
    pub fn propose(
        &mut self,
        from: usize,
        to: usize,
        variant: &str,
        options: &[(&str, &str)],
        referee: Option<usize>,
        mailbox: Option<usize>,
    ) -> CmdId {
        let key = |w: &World, i: usize| w.key(i);
        let args = ProposeArgs {
            variant: variant.into(),
            options: options
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            opponent: (
                key(self, to),
                mailbox.is_none().then(|| addr_of(&key(self, to))),
            ),
            mailbox: mailbox.map(|m| (key(self, m), addr_of(&key(self, m)))),
            referee: referee.map(|r| (key(self, r), Some(addr_of(&key(self, r))))),
            names: [format!("player {from}"), format!("player {to}")],
            witness: None,
        };
        self.command(from, Cmd::Propose(Box::new(args)))
    }

    fn drain(&mut self, i: usize) {
        while let Some(out) = self.nodes[i].core.as_mut().and_then(Core::poll_output) {
            self.output(i, out);
        }
        // The core's next deadline, as the shell sleeps until it: one event each time
        // it moves earlier than the one set (a later one is set when that fires).
        let t = self.nodes[i].core.as_mut().map(Core::poll_timeout);
        // Every game's deadline as the index keeps it is the one computed from the game
        // now: a change that did not mark its game, or a deadline that moves with the
        // clock alone, would leave a game waiting for the wrong moment.
        if let Some(core) = self.nodes[i].core.as_ref() {
            let stale = core.stale_deadlines();
            assert!(stale.is_empty(), "node {i}: stale deadlines {stale:?}");
        }
        if let Some(t) = t
            && self.nodes[i].due.is_none_or(|d| t < d)
        {
            let at = t.max(self.now);
            self.nodes[i].due = Some(at);
            let life = self.nodes[i].life;
            self.at(at, Ev::Deadline { node: i, life });
        }
    }

    fn output(&mut self, i: usize, out: Output) {
        let life = self.nodes[i].life;
        match out {
            Output::Write { write, writes } => {
                self.record.write(i, &writes);
                let idle = self.nodes[i].jobs.is_empty();
                self.nodes[i].jobs.push_back((write, Some(writes)));
                if idle {
                    let t = self.now + self.between(COMMIT);
                    self.at(t, Ev::Commit { node: i, life });
                }
            }
            Output::Recover { write } => {
                let idle = self.nodes[i].jobs.is_empty();
                self.nodes[i].jobs.push_back((write, None));
                if idle {
                    let t = self.now + self.between(COMMIT);
                    self.at(t, Ev::Commit { node: i, life });
                }
            }
            Output::Message {
                peer,
                game,
                index,
                bytes,
            } => {
                self.tally
                    .computation_sends
                    .push((self.now, i, game, index));
                if let Some(to) = self.node_of(&peer) {
                    let to_life = self.nodes[to].life;
                    let msg = Msg::Message {
                        from: i,
                        from_life: life,
                        game,
                        index,
                        bytes,
                    };
                    self.send(i, to, to_life, msg);
                }
            }
            Output::Send { peer, id, req } => {
                self.record.request(i, &req);
                let Some(to) = self.node_of(&peer) else {
                    return;
                };

                let pulled = match &req {
                    Request::Pull { game, .. } => Some(*game),
                    _ => None,
                };
                self.nodes[i].outbound.insert(id, (to, pulled));
                let timeout = self.now + TIMEOUT;
                self.at(
                    timeout,
                    Ev::Timeout {
                        node: i,
                        life,
                        out: id,
                    },
                );
                let to_life = self.nodes[to].life;
                self.send(
                    i,
                    to,
                    to_life,
                    Msg::Request {
                        from: i,
                        out: id,
                        req,
                    },
                );
            }
            Output::Respond { id, resp } => {
                self.record.response(i, &resp);
                let Some((to, out)) = self.nodes[i].inbound.remove(&id) else {
                    if id >= OUTSIDE {
                        self.answers.insert(id, resp);
                    }
                    return;
                };
                let to_life = self.nodes[to].life;
                self.send(i, to, to_life, Msg::Response { out, resp });
            }
            Output::Dial { peer, .. } => {
                let Some(to) = self.node_of(&peer) else {
                    return;
                };
                if self.up(to)
                    && !self.cut.contains(&pair(i, to))
                    && !self.connected.contains(&pair(i, to))
                {
                    let t = self.now + self.between(LATENCY);
                    self.at(t, Ev::Connect { a: i, b: to });
                }
            }
            // The world has no lookup points, so the core never asks one.
            Output::LookUp { .. } => self.violations.push(format!(
                "{} looked a peer up with no lookup point",
                self.nodes[i].name
            )),
            Output::Reply { id, result } => {
                self.replies.insert(id, result);
            }
        }
    }

    /// Puts a message on the wire (lost, duplicated or delayed as the faults say).
    fn send(&mut self, from: usize, to: usize, life: u64, mut msg: Msg) {
        self.tally.messages += 1;
        let mut held = 0;
        let filtered = self.filter.as_mut().zip(match &mut msg {
            Msg::Request { req, .. } => Some(Payload::Request(req)),
            Msg::Response { resp, .. } => Some(Payload::Response(resp)),
            Msg::Message { game, index, .. } => Some(Payload::Message {
                game: *game,
                index: *index,
            }),
        });
        let fate = filtered.map(|(f, mut payload)| f(self.now, from, to, &mut payload));
        match fate {
            None | Some(Fate::Pass) => {}
            Some(Fate::Drop) => {
                self.lost(to, &msg);
                return;
            }
            Some(Fate::Vanish) => return,
            Some(Fate::Hold(ms)) => held = ms,
        }
        if !self.connected.contains(&pair(from, to)) || self.chance(self.faults.drop) {
            self.tally.dropped += 1;
            self.lost(to, &msg);
            return;
        }
        let copies = if self.chance(self.faults.dup) { 2 } else { 1 };
        for _ in 0..copies {
            let t = self.now + held + self.between(LATENCY);
            self.at(
                t,
                Ev::Deliver {
                    to,
                    life,
                    msg: msg.clone(),
                },
            );
        }
    }

    /// A computation's message to `to` that does not arrive whole: its sender learns it
    /// a moment later, as the shell does when the stream ends without the answer byte.
    /// Anything else lost says nothing (requests time out).
    fn lost(&mut self, to: usize, msg: &Msg) {
        let Msg::Message {
            from,
            from_life,
            game,
            index,
            ..
        } = msg
        else {
            return;
        };
        self.tally
            .computation_losses
            .push((self.now, *from, *game, *index));
        let t = self.now + self.between(LATENCY);
        self.at(
            t,
            Ev::Lost {
                node: *from,
                life: *from_life,
                to,
                game: *game,
                index: *index,
            },
        );
    }

    /// Runs until every game in `games` is done on every node of `seats` and nothing is
    /// in flight, or until `until` (virtual ms from now). Returns whether it settled.
    pub fn run(&mut self, until: u64, done: &dyn Fn(&World) -> bool) -> bool {
        let end = self.now + until;
        while let Some(Reverse((t, _, idx))) = self.queue.pop() {
            if t > end {
                self.queue.push(Reverse((t, 0, idx)));
                return false;
            }
            self.now = self.now.max(t);
            let Some(ev) = self.events[idx].take() else {
                continue;
            };
            self.tally.events += 1;
            let node = self.event(ev);
            if let Some(i) = node {
                self.chaos_after(i);
            }
            if done(self) {
                return true;
            }
        }
        done(self)
    }

    /// Lets `ms` virtual ms pass: every event due by then happens, and the clock then
    /// reads the end even when nothing was due (where [`World::run`] stops at the last
    /// event, so that a loop of short runs while every node is down, its restart further
    /// off, would never reach it).
    pub fn wait(&mut self, ms: u64) {
        let end = self.now + ms;
        self.run(ms, &|_| false);
        self.now = self.now.max(end);
    }

    /// One event; the node it happened at, if any.
    fn event(&mut self, ev: Ev) -> Option<usize> {
        match ev {
            Ev::Deliver { to, life, msg } => {
                if self.nodes[to].life != life || !self.up(to) {
                    self.lost(to, &msg);
                    return None;
                }
                // A computation's message: lost between nodes not connected, and
                // reported lost though taken by receivers that never answer.
                if let Msg::Message { from, .. } = &msg {
                    if !self.connected.contains(&pair(*from, to)) {
                        self.lost(to, &msg);
                        return None;
                    }
                    if self.unanswered {
                        self.lost(to, &msg);
                    }
                }
                match msg {
                    Msg::Request { from, out, req } => {
                        if !self.connected.contains(&pair(from, to)) {
                            return None;
                        }
                        let id = self.nodes[to].next_in.take_next();
                        self.nodes[to].inbound.insert(id, (from, out));
                        let peer = self.key(from);
                        let carried = carried(&req);
                        let input = match req {
                            Request::Introduce { game, addrs } => Input::Introduced {
                                peer,
                                id,
                                game,
                                addrs: addrs.iter().map(|a| read_addr(a)).collect(),
                            },
                            req => Input::Request { peer, id, req },
                        };
                        self.input(to, input);
                        self.check_seen(to, &carried);
                    }
                    Msg::Message {
                        from,
                        game,
                        index,
                        bytes,
                        ..
                    } => {
                        let peer = self.key(from);
                        self.input(
                            to,
                            Input::Message {
                                peer,
                                game,
                                index,
                                bytes,
                            },
                        );
                    }
                    Msg::Response { out, resp } => {
                        let (_, pulled) = self.nodes[to].outbound.remove(&out)?;
                        let carried = carried_resp(&resp, pulled);
                        self.input(to, Input::Response { id: out, resp });
                        self.check_seen(to, &carried);
                    }
                }
                Some(to)
            }
            Ev::Timeout { node, life, out } => {
                if self.nodes[node].life != life || self.nodes[node].outbound.remove(&out).is_none()
                {
                    return None;
                }
                self.input(node, Input::RequestFailed { id: out });
                Some(node)
            }
            Ev::Commit { node, life } => {
                if self.nodes[node].life != life {
                    return None;
                }
                let (write, job) = self.nodes[node].jobs.pop_front()?;
                let result = match job {
                    Some(w) => self.nodes[node].store.commit(&w),
                    None => self.nodes[node].store.recover(),
                };

                if result.is_err() {
                    self.tally.failed_writes += 1;
                }
                self.nodes[node].committed += 1;
                // The result reaches the core a moment later: a crash in between loses
                // nothing durable, and nothing the write allowed was sent.
                let t = self.now + 1;
                self.at(
                    t,
                    Ev::Written {
                        node,
                        life,
                        write,
                        result,
                    },
                );
                if !self.nodes[node].jobs.is_empty() {
                    let t = self.now + self.between(COMMIT);
                    self.at(t, Ev::Commit { node, life });
                }
                Some(node)
            }
            Ev::Written {
                node,
                life,
                write,
                result,
            } => {
                if self.nodes[node].life != life {
                    return None;
                }
                self.nodes[node].committed = self.nodes[node].committed.saturating_sub(1);
                self.input(node, Input::Written { write, result });
                Some(node)
            }
            Ev::Lost {
                node,
                life,
                to,
                game,
                index,
            } => {
                if self.nodes[node].life != life || !self.up(node) {
                    return None;
                }
                let peer = self.key(to);
                self.input(node, Input::MessageLost { peer, game, index });
                Some(node)
            }
            Ev::Deadline { node, life } => {
                // Only the latest one set stands.
                if self.nodes[node].life != life || self.nodes[node].due != Some(self.now) {
                    return None;
                }
                self.nodes[node].due = None;
                self.input(node, Input::Timeout);
                if let Some(core) = &self.nodes[node].core {
                    let ids = self.nodes[node].store.game_ids();
                    self.tally.asleep += ids.iter().filter(|g| core.asleep(g)).count() as u64;
                }
                Some(node)
            }
            Ev::Connect { a, b } => {
                if !self.up(a) || !self.up(b) || self.cut.contains(&pair(a, b)) {
                    return None;
                }
                if self.connected.insert(pair(a, b)) {
                    let (ka, kb) = (self.key(a), self.key(b));
                    self.input(
                        a,
                        Input::Connected {
                            peer: kb,
                            addr: Some(addr_of(&kb)),
                            origin: None,
                        },
                    );
                    self.input(
                        b,
                        Input::Connected {
                            peer: ka,
                            addr: None,
                            origin: None,
                        },
                    );
                    // What identify tells each side: the other's listen address.
                    self.input(
                        b,
                        Input::Learned {
                            peer: ka,
                            addrs: vec![addr_of(&ka)],
                        },
                    );
                }
                None
            }
            Ev::Restart { node } => {
                if !self.up(node) {
                    self.nodes[node].restarts += 1;
                    self.boot(node);
                }
                None
            }
            Ev::DiskOk { node } => {
                self.nodes[node].store.full = false;
                None
            }
            Ev::Heal { a, b } => {
                self.cut.remove(&pair(a, b));
                None
            }
        }
    }
}

/// A world address read back into the key it names.
fn read_addr(a: &str) -> Option<(PeerKey, String)> {
    let hex_key = a.strip_prefix("/sim/")?;
    let key: PeerKey = hex::decode(hex_key).ok()?.try_into().ok()?;
    Some((key, a.to_owned()))
}
