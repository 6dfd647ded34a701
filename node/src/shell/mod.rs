//! The shell: runs a [`Core`] on tokio and libp2p. It owns what the core may not touch —
//! the swarm, the clock, the operating system's randomness, the store's writer thread —
//! turns what happens into the core's inputs and carries out its outputs. It decides
//! nothing about games: that is all in `crate::core`.
//!
//! Files: the loop and the core's outputs here; the messages a node's handle sends, its
//! configuration and why it did not start `api.rs`; what it says about itself `info.rs`;
//! the swarm's events `events.rs`; dialling, lookups and registrations at lookup points
//! `reach.rs`; a peer's restart seen by the boot it announces `restarts.rs`; addresses, the listen probe and error causes `addr.rs`; the
//! store's writer thread `writer.rs`; the sync protocol's long-lived streams `streams.rs`,
//! each run by a task of `link.rs`; the messages of a game's computations on their own
//! stream protocol `computations.rs`.

mod addr;
mod api;
mod computations;
mod events;
mod fresh;
mod info;
mod link;
mod memory;
mod reach;
mod restarts;
mod streams;
mod writer;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use libp2p::request_response::{OutboundRequestId, ResponseChannel};
use libp2p::swarm::dial_opts::DialOpts;
use libp2p::{Multiaddr, PeerId, Swarm};
use tokio::sync::{mpsc, watch};

use crate::core::{Answer, Cmd, CmdId, Core, CoreConfig, InId, Input, NodeError, OutId, Output};

use crate::lookup::Registry;
use crate::net::{self, Behaviour};
use crate::store::Store;
use crate::sync::Response;
pub(crate) use addr::point;
pub use addr::{ProbeError, Transport, key_of, peer_of, probe, read_peer, read_point};
use addr::{causes, propose_args, with_peer};
pub use api::{Door, Info, Msg, NodeConfig, ProposeArgs, Reply, StartError};
pub(crate) use writer::commit;

/// The time, ms since the Unix epoch: the one clock reading of a node, given to the core
/// with every input.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A running node's shell.
pub struct Shell {
    core: Core,
    store: Arc<Store>,
    swarm: Swarm<Behaviour>,
    /// The node's libp2p key: it signs the record registered at lookup points.
    keypair: libp2p::identity::Keypair,
    /// The records peers registered here, when this node answers lookups; its relay
    /// reserves only for them.
    registry: Arc<Mutex<Registry>>,
    cfg: NodeConfig,
    /// The writer's jobs; `None` once the shell is dropped.
    jobs: Option<std::sync::mpsc::Sender<writer::Job>>,
    written: writer::Done,
    writer: Option<std::thread::JoinHandle<()>>,
    outbound: HashMap<OutboundRequestId, OutId>,
    /// Requests that came by request-response, with their peer (whose share of the
    /// answers' budget the answer holds, `streams.rs` `owe_held`).
    inbound: HashMap<InId, (PeerId, ResponseChannel<crate::sync::Budgeted<Response>>)>,
    next_in: InId,
    replies: HashMap<CmdId, Reply<Answer>>,
    next_cmd: CmdId,
    /// `sealed dial`s waiting for their connection to open or fail, with the address.
    dials: HashMap<libp2p::swarm::ConnectionId, (Multiaddr, Reply<()>)>,
    /// Dials, lookups and registrations (`reach.rs`).
    reach: reach::Reach,
    /// The boots peers announced per connection (`restarts.rs`).
    boots: restarts::Boots,
    /// Listen addresses that failed (a relay that refused a reservation), with why.
    failed: Vec<String>,
    /// The listen addresses asked for, by listener.
    listeners: HashMap<libp2p::core::transport::ListenerId, Multiaddr>,
    /// Relayed listen addresses whose listener closed: listened on again.
    relisten: Vec<Multiaddr>,
    /// The start journal, kept for `sealed resume` (`journal.rs`).
    journal: Option<crate::journal::Journal>,
    /// `sealed peers` commands, whose answer gets what each peer runs.
    peer_cmds: std::collections::HashSet<CmdId>,
    /// Counts the committed writes, for those who show the games (`NodeHandle::changes`).
    changed: watch::Sender<u64>,
    /// The sync protocol's streams (`streams.rs`).
    streams: streams::Streams,
    computations: computations::Computations,
    /// Inputs waiting for the core, taken in order by [`Shell::input`]'s one loop: an
    /// input that arises while an output is carried out (a dial that fails at once) is
    /// queued here, never handed to the core from inside that output, so no chain of
    /// outputs and inputs grows the stack (issue 52: 1,123 unreachable players, one
    /// stack level each, overflowed it).
    queued: std::collections::VecDeque<Input>,
    /// Whether [`Shell::input`]'s loop is running further up this stack.
    draining: bool,
}

impl Shell {
    /// Opens the node: the core rebuilt from the store, the swarm listening.
    pub fn new(
        key: sealed_protocol::keys::SecretKey,
        store: Store,
        cfg: NodeConfig,
        changed: watch::Sender<u64>,
    ) -> Result<Shell, StartError> {
        // Mailboxes and relays are where peers meet: they serve lookups by peer id.
        let mut net_cfg = cfg.net.clone();
        net_cfg.lookup_server |= cfg.core.mailbox || cfg.core.witness || net_cfg.relay_server;
        let keypair = net::keypair(&key.seed());
        let registry = Arc::new(Mutex::new(Registry::default()));
        // One read budget for both sync protocols.
        let budget = net::sync_budget();
        let swarm = net::swarm_with_budget(&keypair, &net_cfg, registry.clone(), budget.clone())
            .map_err(|e| StartError::Network(causes(&*e)))?;
        let streams = streams::Streams::new(
            swarm.behaviour().stream.new_control(),
            budget,
            net_cfg.request_timeout,
            net_cfg.idle_timeout,
        );
        let computations = computations::Computations::new(swarm.behaviour().stream.new_control());
        let core_cfg = CoreConfig {
            // A witness keeps the public envelopes it dates, as a mailbox does.
            mailbox: cfg.core.mailbox || cfg.core.witness,
            ..cfg.core.clone()
        };
        let seed = crate::home::random32().map_err(StartError::Random)?;
        // What AutoNAT found when the node last ran (`reach.rs`): unreadable, unknown.
        let was_private = matches!(
            store.meta(reach::REMEMBERED),
            Ok(Some(v)) if v == b"private"
        );
        // A game the last start stopped in is marked before this start restores
        // anything (`journal.rs`), durably: it stays aside if this start stops too.
        let mut journal = cfg.journal.clone().map(crate::journal::Journal::at);
        if let Some(id) = journal.as_ref().and_then(crate::journal::Journal::left) {
            tracing::warn!(
                game = %hex::encode(id),
                "the node stopped while restoring this game: it is set aside (sealed resume)"
            );
            let why = format!(
                "its restore at a start did not finish; set aside at the start at {} ms",
                now_ms()
            );
            store
                .put_meta(&crate::core::crashed::key(&id), why.as_bytes())
                .map_err(|e| StartError::Core(NodeError::Store(e.to_string())))?;
        }
        let store = Arc::new(store);
        let core = Core::start_watched(key, core_cfg, seed, now_ms(), &*store, &mut |id| {
            if let Some(j) = &mut journal {
                j.restoring(id);
            }
            crate::faults::crash_restoring(id);
        })
        .map_err(StartError::Core)?;
        if let Some(j) = &mut journal {
            j.done();
        }
        let (jobs, written, thread) = writer::start(store.clone());
        let mut shell = Shell {
            core,
            store,
            swarm,
            keypair,
            registry,
            cfg,
            jobs: Some(jobs),
            written,
            writer: Some(thread),
            outbound: HashMap::new(),
            inbound: HashMap::new(),
            next_in: InId::default(),
            replies: HashMap::new(),
            next_cmd: CmdId::default(),
            dials: HashMap::new(),
            reach: reach::Reach::default(),
            boots: restarts::Boots::default(),
            failed: vec![],
            listeners: HashMap::new(),
            relisten: vec![],
            journal,
            peer_cmds: Default::default(),
            changed,
            streams,
            computations,
            queued: Default::default(),
            draining: false,
        };
        shell.reach.was_private = was_private;
        for addr in shell.cfg.listen.clone() {
            // Through a relay: once registered there (it reserves only for peers
            // registered with it), so the relay is dialled first.
            if let Some(relay) = addr::relay_of(&addr) {
                let at: Multiaddr = addr
                    .iter()
                    .take_while(|p| !matches!(p, libp2p::multiaddr::Protocol::P2pCircuit))
                    .collect();
                shell.reach.via.push(addr.clone());
                if let Err(e) = shell
                    .swarm
                    .dial(DialOpts::peer_id(relay).addresses(vec![at]).build())
                {
                    return Err(StartError::Listen {
                        addr,
                        why: causes(&e),
                    });
                }
                continue;
            }
            probe(&addr).map_err(|e| StartError::Listen {
                addr: addr.clone(),
                why: e.to_string(),
            })?;
            let id = shell
                .swarm
                .listen_on(addr.clone())
                .map_err(|e| StartError::Listen {
                    addr: addr.clone(),
                    why: causes(&e),
                })?;
            shell.listeners.insert(id, addr);
        }
        shell.drain();
        Ok(shell)
    }

    /// Runs until shut down.
    pub async fn run(mut self, mut rx: mpsc::Receiver<Msg>) {
        // The shell's own upkeep (idle streams closed, lookup records renewed, relayed
        // addresses listened on again), as often as the core's repair round.
        let mut upkeep =
            tokio::time::interval(Duration::from_millis(self.cfg.core.repair_every_ms.max(1)));
        self.streams.start();
        self.computations.start();
        memory::give_back_freed_memory();
        loop {
            // What an event settled in the streams (a stream that failed to open or
            // closed with requests on it) reaches the core before the shell sleeps.
            if self.streams.settled_any() {
                self.drain();
            }
            // Asked after every event, once the core's outputs are carried out.
            let core_at = self.wake_for_core();
            let wake = match self.streams.next_deadline() {
                Some(at) => core_at.min(tokio::time::Instant::from_std(at)),
                None => core_at,
            };
            tokio::select! {
                msg = rx.recv() => match msg {
                    None => break,
                    Some(Msg::Shutdown(reply)) => { let _ = reply.send(Ok(())); break; }
                    Some(m) => self.message(m),
                },
                Some((write, result)) = self.written.recv() => {
                    let committed = result.is_ok();
                    self.input(Input::Written { write, result });
                    // After the core took it: what it shows now is what was committed.
                    if committed {
                        self.changed.send_modify(|n| *n = n.wrapping_add(1));
                    }
                }
                event = self.swarm.select_next_some() => self.event(event),
                Some(event) = self.streams.events.recv() => self.stream_event(event),
                Some((peer, stream)) = self.streams.accepted.recv() => {
                    self.streams.accept(peer, stream);
                }
                Some(arrived) = self.computations.arrived.recv() => {
                    let (peer, game, index, bytes) = arrived.take();
                    if let Some(peer) = key_of(&peer) {
                        let game = crate::core::GameId(sealed_protocol::hash::Hash(game));
                        self.input(Input::Message { peer, game, index, bytes });
                    }
                }
                Some((peer, game, index)) = self.computations.lost.recv() => {
                    if let Some(peer) = key_of(&peer) {
                        let game = crate::core::GameId(sealed_protocol::hash::Hash(game));
                        self.input(Input::MessageLost { peer, game, index });
                    }
                }
                _ = upkeep.tick() => {
                    self.streams.close_idle(std::time::Instant::now());
                    self.renew();
                    self.listen_again(None);
                }
                // The core's next deadline or a request's, whichever is first.
                _ = tokio::time::sleep_until(wake) => {
                    self.streams.expire(std::time::Instant::now());
                    if core_at <= tokio::time::Instant::now() {
                        self.input(Input::Timeout);
                    } else {
                        // What expired reaches the core.
                        self.drain();
                    }
                }
            }
        }
    }

    /// When the core's next deadline comes, by this node's steady clock: at most a
    /// repair round away, so that a wall clock set back (the core's time then stands
    /// still until it catches up) never stops the repair rounds (`timeout.rs`).
    fn wake_for_core(&mut self) -> tokio::time::Instant {
        let wait = self.core.poll_timeout().saturating_sub(now_ms());
        let most = self.cfg.core.repair_every_ms.max(1);
        tokio::time::Instant::now() + Duration::from_millis(wait.min(most))
    }

    /// Listens again on the relayed addresses whose listener closed (those through
    /// `relay` only, if one is given).
    fn listen_again(&mut self, relay: Option<PeerId>) {
        let (now, later): (Vec<Multiaddr>, Vec<Multiaddr>) = std::mem::take(&mut self.relisten)
            .into_iter()
            .partition(|a| relay.is_none() || addr::relay_of(a) == relay);
        self.relisten = later;
        for addr in now {
            match self.swarm.listen_on(addr.clone()) {
                Ok(id) => {
                    self.listeners.insert(id, addr);
                }
                Err(e) => self.failed.push(format!("{addr}: {}", causes(&e))),
            }
        }
    }

    /// Gives the core an input and carries out what it asks, then every input that
    /// arose meanwhile, in order (`drain`).
    fn input(&mut self, input: Input) {
        self.queued.push_back(input);
        self.drain();
    }

    /// Carries out what the core asks and hands it the queued inputs, one at a time,
    /// until neither is left. Called again from inside an output (`reach` with no
    /// address queues a failed dial), it returns at once: the loop further up the stack
    /// takes what was queued next, so the stack never grows with the queue.
    fn drain(&mut self) {
        if self.draining {
            return;
        }
        self.draining = true;
        loop {
            self.perform();
            let Some(input) = self.queued.pop_front() else {
                break;
            };
            self.core.handle(now_ms(), input, &*self.store);
        }
        self.draining = false;
    }

    /// Carries out everything the core asks, and gives it what the streams settled;
    /// then tells the message streams whose messages to read now (`computations.rs`).
    /// Only `drain` calls it.
    fn perform(&mut self) {
        loop {
            self.perform_outputs();
            let failed = std::mem::take(&mut self.streams.failed);
            let legacy = std::mem::take(&mut self.streams.legacy);
            if failed.is_empty() && legacy.is_empty() {
                let pairs = self
                    .core
                    .computing()
                    .map(|(peer, game, cap)| ((peer, *game.bytes()), cap));
                self.computations.allow(pairs);
                return;
            }
            for (p, id, req) in legacy {
                let rid = self.swarm.behaviour_mut().sync.send_request(&p, req.into());
                self.outbound.insert(rid, id);
            }
            for id in failed {
                self.core
                    .handle(now_ms(), Input::RequestFailed { id }, &*self.store);
            }
        }
    }

    fn perform_outputs(&mut self) {
        while let Some(out) = self.core.poll_output() {
            match out {
                Output::Write { write, writes } => {
                    self.job(writer::Job::Write(write, Box::new(writes)))
                }
                Output::Recover { write } => self.job(writer::Job::Recover(write)),
                Output::Send { peer, id, req } => {
                    let Some(p) = net::peer_id(peer.as_bytes()) else {
                        continue;
                    };
                    self.streams.send(p, id, req);
                }
                Output::Respond { id, resp } => {
                    let Err(resp) = self.streams.respond(id, resp) else {
                        continue;
                    };
                    if let Some((peer, channel)) = self.inbound.remove(&id) {
                        let resp = self.streams.owe_held(peer, resp);
                        let _ = self.swarm.behaviour_mut().sync.send_response(channel, resp);
                    }
                }
                Output::Message {
                    peer,
                    game,
                    index,
                    bytes,
                } => {
                    if let Some(p) = net::peer_id(peer.as_bytes()) {
                        self.computations.send(p, *game.bytes(), index, bytes);
                    }
                }
                Output::Dial { peer, addrs } => {
                    let Some(p) = net::peer_id(peer.as_bytes()) else {
                        continue;
                    };
                    let addrs: Vec<Multiaddr> =
                        addrs.iter().filter_map(|a| a.parse().ok()).collect();
                    self.reach(p, addrs);
                }
                Output::LookUp { peer } => {
                    if let Some(p) = net::peer_id(peer.as_bytes()) {
                        self.look_up(p);
                    }
                }
                Output::Reply { id, mut result } => {
                    if self.peer_cmds.remove(&id)
                        && let Ok(Answer::Peers(view)) = &mut result
                    {
                        self.with_agents(view);
                    }
                    if let Some(r) = self.replies.remove(&id) {
                        let _ = r.send(result);
                    }
                }
            }
        }
    }

    fn job(&self, job: writer::Job) {
        if let Some(j) = &self.jobs {
            let _ = j.send(job);
        }
    }

    fn message(&mut self, msg: Msg) {
        match msg {
            Msg::Info(r) => {
                let _ = r.send(Ok(self.info()));
            }
            Msg::Dial(addr, r) => {
                if peer_of(&addr) == Some(*self.swarm.local_peer_id()) {
                    let why = format!("{addr}: that is this node's own address");
                    let _ = r.send(Err(NodeError::Address(why)));
                    return;
                }
                if let Some(p) = peer_of(&addr)
                    && let Some(k) = key_of(&p)
                {
                    self.input(Input::Learned {
                        peer: k,
                        addrs: vec![with_peer(&addr, p)],
                    });
                }
                // Answered once the connection is open (or failed): a dead address, a
                // wrong peer id or this node itself is an error the person sees.
                let opts = DialOpts::from(addr.clone());
                let id = opts.connection_id();
                match self.swarm.dial(opts) {
                    Ok(()) => {
                        self.dials.insert(id, (addr, r));
                    }
                    Err(e) => {
                        let _ = r.send(Err(NodeError::Address(format!("{addr}: {e}"))));
                    }
                }
            }
            Msg::Propose(args, r) => match propose_args(args) {
                Ok(mut a) => {
                    // This player's name, and the opponent's as its node announced it
                    // (known once identify has run on a connection to it).
                    let theirs = net::peer_id(a.opponent.0.as_bytes())
                        .and_then(|p| self.reach.agents.get(&p))
                        .and_then(|agent| net::announced_name(agent))
                        .unwrap_or_default();
                    a.names = [self.cfg.net.name.clone(), theirs];
                    self.command(Cmd::Propose(Box::new(a)), r)
                }
                Err(e) => {
                    let _ = r.send(Err(e));
                }
            },
            Msg::Core(Cmd::Resume(g), r) => {
                // Journalled as a start's restore is: if it stops the node again, the
                // game is set aside again at the next start.
                let id = self.core.crashed_game(&g);
                if let (Some(j), Some(id)) = (&mut self.journal, id) {
                    j.restoring(&id);
                }
                if let Some(id) = id {
                    crate::faults::crash_restoring(&id);
                }
                self.command(Cmd::Resume(g), r);
                if let Some(j) = &mut self.journal {
                    j.done();
                }
            }
            Msg::Core(cmd, r) => self.command(cmd, r),
            Msg::Shutdown(_) => {}
        }
    }

    fn command(&mut self, cmd: Cmd, reply: Reply<Answer>) {
        let id = self.next_cmd.take_next();
        if cmd == Cmd::Peers {
            self.peer_cmds.insert(id);
        }
        self.replies.insert(id, reply);
        self.input(Input::Command { id, cmd });
    }
}

impl Drop for Shell {
    /// Stops the writer after the writes it has (it holds the store open): a node
    /// started on the same home next finds the store free.
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(t) = self.writer.take() {
            let _ = t.join();
        }
    }
}
