//! The shell: runs a [`Core`] on tokio and libp2p. It owns what the core may not touch —
//! the swarm, the clock, the operating system's randomness, the store's writer thread —
//! turns what happens into the core's inputs and carries out its outputs. It decides
//! nothing about games: that is all in `crate::core`.

mod reach;
mod writer;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use libp2p::multiaddr::Protocol;
use libp2p::request_response::{self, OutboundRequestId, ResponseChannel};
use libp2p::swarm::SwarmEvent;
use libp2p::swarm::dial_opts::DialOpts;
use libp2p::{Multiaddr, PeerId, Swarm};
use tokio::sync::{mpsc, oneshot};

use crate::core::{Answer, Cmd, CmdId, Core, CoreConfig, InId, Input, NodeError, OutId, Output};
use crate::limit::Limits;
use crate::net::{self, Behaviour, BehaviourEvent};
use crate::store::Store;
use crate::sync::{Request, Response};

/// Why a node did not start, saying which part failed.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The home's key cannot be read.
    #[error("the key: {0}")]
    Key(crate::home::HomeError),
    /// The store cannot be opened (its file, a lock held by another node, a layout
    /// this version cannot read).
    #[error("the store: {0}")]
    Store(crate::store::StoreError),
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
    /// Listen addresses that failed since it started (a relay that refused a
    /// reservation or could not be reached), each with why.
    pub failed: Vec<String>,
}

/// How often the node looks for duties that came due with time alone: checking costs
/// one comparison per game, and a period closes at most this late.
const DUTY_CHECK: Duration = Duration::from_millis(20);

/// How a node runs.
#[derive(Clone, Debug)]
pub struct NodeConfig {
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

impl Default for NodeConfig {
    fn default() -> Self {
        NodeConfig {
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

/// The time, ms since the Unix epoch: the one clock reading of a node, given to the core
/// with every input.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The Ed25519 key a peer id names.
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
        .filter_map(|p| match p {
            Protocol::P2p(id) => Some(id),
            _ => None,
        })
        .last()
}

/// The relay of a relayed listen address (`…/p2p/<relay>/p2p-circuit`).
fn relay_of(addr: &Multiaddr) -> Option<PeerId> {
    let mut relay = None;
    for p in addr.iter() {
        match p {
            Protocol::P2p(id) => relay = Some(id),
            Protocol::P2pCircuit => return relay,
            _ => {}
        }
    }
    None
}

/// An address with the peer id at its end, as the core keeps them.
fn with_peer(addr: &Multiaddr, peer: PeerId) -> String {
    if matches!(addr.iter().last(), Some(Protocol::P2p(_))) {
        addr.to_string()
    } else {
        addr.clone().with(Protocol::P2p(peer)).to_string()
    }
}

/// A running node's shell.
pub struct Shell {
    core: Core,
    store: Arc<Store>,
    swarm: Swarm<Behaviour>,
    cfg: NodeConfig,
    /// The writer's jobs; `None` once the shell is dropped.
    jobs: Option<std::sync::mpsc::Sender<writer::Job>>,
    written: writer::Done,
    writer: Option<std::thread::JoinHandle<()>>,
    outbound: HashMap<OutboundRequestId, OutId>,
    inbound: HashMap<InId, ResponseChannel<Response>>,
    next_in: InId,
    replies: HashMap<CmdId, Reply<Answer>>,
    next_cmd: CmdId,
    /// `sealed dial`s waiting for their connection to open or fail, with the address.
    dials: HashMap<libp2p::swarm::ConnectionId, (Multiaddr, Reply<()>)>,
    /// Dials, lookups and registrations (`reach.rs`).
    reach: reach::Reach,
    /// Listen addresses that failed (a relay that refused a reservation), with why.
    failed: Vec<String>,
    /// The listen addresses asked for, by listener.
    listeners: HashMap<libp2p::core::transport::ListenerId, Multiaddr>,
    /// `sealed peers` commands, whose answer gets what each peer runs.
    peer_cmds: std::collections::HashSet<CmdId>,
}

impl Shell {
    /// Opens the node: the core rebuilt from the store, the swarm listening.
    pub fn new(
        key: sealed_protocol::keys::SecretKey,
        store: Store,
        cfg: NodeConfig,
    ) -> Result<Shell, StartError> {
        // Mailboxes and relays are where peers meet: they serve lookups by peer id.
        let mut net_cfg = cfg.net.clone();
        net_cfg.rendezvous_server |= cfg.mailbox || net_cfg.relay_server;
        let swarm = net::swarm(&net::keypair(&key.seed()), &net_cfg)
            .map_err(|e| StartError::Network(e.to_string()))?;
        let core_cfg = CoreConfig {
            mailbox: cfg.mailbox,
            bots: cfg.bots,
            bot_seed: cfg.bot_seed,
            referee: cfg.referee,
            limits: cfg.limits,
            ..CoreConfig::default()
        };
        let seed = crate::home::random32().map_err(StartError::Random)?;
        let store = Arc::new(store);
        let core = Core::start(key, core_cfg, seed, now_ms(), &*store).map_err(StartError::Core)?;
        let (jobs, written, thread) = writer::start(store.clone());
        let mut shell = Shell {
            core,
            store,
            swarm,
            cfg,
            jobs: Some(jobs),
            written,
            writer: Some(thread),
            outbound: HashMap::new(),
            inbound: HashMap::new(),
            next_in: 0,
            replies: HashMap::new(),
            next_cmd: 0,
            dials: HashMap::new(),
            reach: reach::Reach::default(),
            failed: vec![],
            listeners: HashMap::new(),
            peer_cmds: Default::default(),
        };
        for addr in shell.cfg.listen.clone() {
            probe(&addr).map_err(|why| StartError::Listen {
                addr: addr.clone(),
                why,
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
        shell.perform();
        Ok(shell)
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
                    Some(m) => self.message(m),
                },
                Some((write, result)) = self.written.recv() => {
                    self.input(Input::Written { write, result });
                }
                event = self.swarm.select_next_some() => self.event(event),
                _ = tick.tick() => {
                    self.input(Input::Tick);
                    self.renew();
                }
                _ = due.tick() => {
                    if self.core.due_at().is_some_and(|t| t <= now_ms()) {
                        self.input(Input::Due);
                    }
                }
            }
        }
    }

    fn input(&mut self, input: Input) {
        self.core.handle(now_ms(), input, &*self.store);
        self.perform();
    }

    /// Carries out everything the core asks.
    fn perform(&mut self) {
        while let Some(out) = self.core.poll_output() {
            match out {
                Output::Write { write, writes } => self.job(writer::Job::Write(write, writes)),
                Output::Recover { write } => self.job(writer::Job::Recover(write)),
                Output::Send { peer, id, req } => {
                    let Some(p) = net::peer_id(&peer) else {
                        continue;
                    };
                    let rid = self.swarm.behaviour_mut().sync.send_request(&p, req);
                    self.outbound.insert(rid, id);
                }
                Output::Respond { id, resp } => {
                    if let Some(channel) = self.inbound.remove(&id) {
                        let _ = self.swarm.behaviour_mut().sync.send_response(channel, resp);
                    }
                }
                Output::Dial { peer, addrs } => {
                    let Some(p) = net::peer_id(&peer) else {
                        continue;
                    };
                    let addrs: Vec<Multiaddr> =
                        addrs.iter().filter_map(|a| a.parse().ok()).collect();
                    self.reach(p, addrs);
                }
                Output::Reply { id, mut result } => {
                    if self.peer_cmds.remove(&id)
                        && let Ok(Answer::Json(doc)) = &mut result
                    {
                        self.with_agents(doc);
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
                Ok(a) => self.command(Cmd::Propose(a), r),
                Err(e) => {
                    let _ = r.send(Err(e));
                }
            },
            Msg::Core(cmd, r) => self.command(cmd, r),
            Msg::Shutdown(_) => {}
        }
    }

    fn command(&mut self, cmd: Cmd, reply: Reply<Answer>) {
        let id = self.next_cmd;
        if cmd == Cmd::Peers {
            self.peer_cmds.insert(id);
        }
        self.next_cmd += 1;
        self.replies.insert(id, reply);
        self.input(Input::Command { id, cmd });
    }

    /// The peer book's document with each peer's peer id, and what each connected peer
    /// runs.
    fn with_agents(&self, doc: &mut serde_json::Value) {
        let Some(peers) = doc.get_mut("peers").and_then(|p| p.as_array_mut()) else {
            return;
        };
        for p in peers {
            let Some(id) = p
                .get("key")
                .and_then(|k| k.as_str())
                .and_then(|k| hex::decode(k).ok())
                .and_then(|k| <[u8; 32]>::try_from(k).ok())
                .and_then(|k| net::peer_id(&k))
            else {
                continue;
            };
            p["peer"] = id.to_string().into();
            if let Some(agent) = self.reach.agents.get(&id) {
                p["agent"] = agent.clone().into();
            }
        }
    }

    fn info(&self) -> Info {
        let peer = *self.swarm.local_peer_id();
        let addrs = self.swarm.listeners().map(|a| with_peer(a, peer)).collect();
        let met = self
            .core
            .met()
            .filter_map(net::peer_id)
            .map(|p| p.to_string())
            .collect();
        Info {
            peer: peer.to_string(),
            addrs,
            met,
            failed: self.failed.clone(),
        }
    }

    fn event(&mut self, event: SwarmEvent<BehaviourEvent>) {
        match event {
            SwarmEvent::ConnectionEstablished {
                peer_id,
                endpoint,
                num_established,
                connection_id,
                ..
            } => {
                if let Some((_, r)) = self.dials.remove(&connection_id) {
                    let _ = r.send(Ok(()));
                }
                self.reached(&peer_id);
                let Some(peer) = key_of(&peer_id) else { return };
                let addr = endpoint
                    .is_dialer()
                    .then(|| with_peer(endpoint.get_remote_address(), peer_id));
                if num_established.get() == 1 {
                    self.input(Input::Connected { peer, addr });
                } else if let Some(a) = addr {
                    self.input(Input::Learned {
                        peer,
                        addrs: vec![a],
                    });
                }
            }
            SwarmEvent::OutgoingConnectionError {
                connection_id,
                peer_id,
                error,
            } => {
                if let Some((addr, r)) = self.dials.remove(&connection_id) {
                    let why = format!("{addr}: {}", causes(&error));
                    let _ = r.send(Err(NodeError::Address(why)));
                }
                self.dial_failed(connection_id, &error);
                // The relay client forgets a reservation whose relay it cannot reach
                // and says nothing: the listener through it would wait for ever.
                let relayed: Vec<String> = self
                    .listeners
                    .values()
                    .filter(|a| peer_id.is_some() && relay_of(a) == peer_id)
                    .map(ToString::to_string)
                    .collect();
                for at in relayed {
                    self.failed.push(format!("{at}: {}", causes(&error)));
                }
            }
            SwarmEvent::ConnectionClosed {
                peer_id,
                num_established: 0,
                ..
            } => {
                if let Some(peer) = key_of(&peer_id) {
                    self.input(Input::Disconnected { peer });
                }
            }
            // A relay grants reservations only with an address to put in them: a relay
            // is run where its listen addresses are reachable, so they are its
            // external addresses.
            // A player's listen addresses (and the relayed ones it reserved) are what it
            // registers at rendezvous points: the rendezvous client registers external
            // addresses only.
            SwarmEvent::NewListenAddr { address, .. }
                if self.cfg.net.relay_server || self.cfg.net.announce =>
            {
                self.swarm.add_external_address(address);
            }
            SwarmEvent::ExpiredListenAddr { address, .. } => {
                self.swarm.remove_external_address(&address);
            }
            SwarmEvent::ListenerClosed {
                listener_id,
                reason: Err(e),
                ..
            } => {
                let at = self.listeners.get(&listener_id).map(ToString::to_string);
                self.failed
                    .push(format!("{}: {}", at.unwrap_or_default(), causes(&e)));
            }
            SwarmEvent::ListenerError { listener_id, error } => {
                let at = self.listeners.get(&listener_id).map(ToString::to_string);
                self.failed
                    .push(format!("{}: {}", at.unwrap_or_default(), causes(&error)));
            }
            SwarmEvent::Behaviour(BehaviourEvent::Rendezvous(e)) => self.rendezvous_event(e),
            SwarmEvent::Behaviour(BehaviourEvent::Sync(e)) => self.sync_event(e),
            SwarmEvent::Behaviour(BehaviourEvent::Mdns(libp2p::mdns::Event::Discovered(found))) => {
                for (p, addr) in found {
                    if let Some(peer) = key_of(&p) {
                        let addrs = vec![with_peer(&addr, p)];
                        self.input(Input::Learned { peer, addrs });
                    }
                }
            }
            SwarmEvent::Behaviour(BehaviourEvent::Identify(
                libp2p::identify::Event::Received { peer_id, info, .. },
            )) => {
                self.identified(peer_id, &info);
                if let Some(peer) = key_of(&peer_id) {
                    let addrs = info
                        .listen_addrs
                        .iter()
                        .map(|a| with_peer(a, peer_id))
                        .collect();
                    self.input(Input::Learned { peer, addrs });
                }
            }
            _ => {}
        }
    }

    fn sync_event(&mut self, e: request_response::Event<Request, Response>) {
        match e {
            request_response::Event::Message { peer, message, .. } => {
                let Some(key) = key_of(&peer) else { return };
                match message {
                    request_response::Message::Request {
                        request, channel, ..
                    } => {
                        let id = self.next_in;
                        self.next_in += 1;
                        self.inbound.insert(id, channel);
                        let input = match request {
                            // The addresses are read here: the core knows keys, not
                            // libp2p's peer ids.
                            Request::Introduce { game, addrs } => Input::Introduced {
                                peer: key,
                                id,
                                game,
                                addrs: introduced(addrs),
                            },
                            req => Input::Request { peer: key, id, req },
                        };
                        self.input(input);
                    }
                    request_response::Message::Response {
                        request_id,
                        response,
                    } => {
                        if let Some(id) = self.outbound.remove(&request_id) {
                            self.input(Input::Response { id, resp: response });
                        }
                    }
                }
            }
            request_response::Event::OutboundFailure { request_id, .. } => {
                if let Some(id) = self.outbound.remove(&request_id) {
                    self.input(Input::RequestFailed { id });
                }
            }
            _ => {}
        }
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

/// The addresses of an introduction with the keys they end in (`None` for one that
/// names no key); the core judges how many there are.
fn introduced(addrs: Vec<String>) -> Vec<Option<(crate::core::PeerKey, String)>> {
    addrs
        .into_iter()
        .map(|text| {
            let addr: Multiaddr = text.parse().ok()?;
            let key = key_of(&peer_of(&addr)?)?;
            Some((key, text))
        })
        .collect()
}

/// Refuses a listen address whose port another program holds. libp2p listens with
/// SO_REUSEPORT (dials from the listening port are what hole punching needs), so a
/// second node on a busy port would start and take half the first one's connections;
/// a plain bind, without SO_REUSEPORT, fails on such a port.
fn probe(addr: &Multiaddr) -> Result<(), String> {
    if relay_of(addr).is_some() {
        return Ok(());
    }
    let mut ip: Option<std::net::IpAddr> = None;
    for p in addr.iter() {
        let busy = match (p, ip) {
            (Protocol::Ip4(a), _) => {
                ip = Some(a.into());
                None
            }
            (Protocol::Ip6(a), _) => {
                ip = Some(a.into());
                None
            }
            (Protocol::Tcp(port), Some(ip)) if port != 0 => std::net::TcpListener::bind((ip, port))
                .err()
                .map(|e| ("TCP", port, e)),
            (Protocol::Udp(port), Some(ip)) if port != 0 => std::net::UdpSocket::bind((ip, port))
                .err()
                .map(|e| ("UDP", port, e)),
            _ => None,
        };
        if let Some((proto, port, e)) = busy {
            return Err(if e.kind() == std::io::ErrorKind::AddrInUse {
                format!("{proto} port {port} is in use by another program (another sealed node?)")
            } else {
                format!("{proto} port {port}: {e}")
            });
        }
    }
    Ok(())
}

/// An error with every cause under it: libp2p's transport errors say nothing
/// themselves (an address the system does not have is only in the cause).
fn causes(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut next = e.source();
    while let Some(cause) = next {
        parts.push(cause.to_string());
        next = cause.source();
    }
    // libp2p nests its dial errors as lists ("Multiple dial errors occurred:\n - …")
    // that repeat at each level: one line, each reason once.
    let mut segments: Vec<String> = vec![];
    for p in parts {
        let flat = p
            .replace("Multiple dial errors occurred:", "")
            .replace("\n - ", " ")
            .replace('\n', " ");
        for seg in flat.split(": ").map(str::trim).filter(|s| !s.is_empty()) {
            if !segments.iter().any(|s| s == seg) {
                segments.push(seg.to_owned());
            }
        }
    }
    segments.join(": ")
}

/// A proposal's addresses read into keys and address strings.
fn propose_args(args: ProposeArgs) -> Result<crate::core::ProposeArgs, NodeError> {
    let key = |addr: &Multiaddr, what: &str| -> Result<([u8; 32], Option<String>), NodeError> {
        let p = peer_of(addr).ok_or_else(|| {
            NodeError::Address(format!("the {what} address must end in /p2p/<peer id>"))
        })?;
        let k = key_of(&p).ok_or_else(|| {
            NodeError::Address(format!("the {what} peer id does not hold an Ed25519 key"))
        })?;
        // An address that is only `/p2p/<id>` says who, not where: the game then goes
        // through the mailbox alone.
        let at = addr
            .iter()
            .any(|x| !matches!(x, Protocol::P2p(_)))
            .then(|| with_peer(addr, p));
        Ok((k, at))
    };
    let opponent = key(&args.peer, "peer")?;
    let mailbox = match &args.mailbox {
        Some(m) => match key(m, "mailbox")? {
            (k, Some(at)) => Some((k, at)),
            (_, None) => {
                return Err(NodeError::Address(
                    "the mailbox address must say where it is".into(),
                ));
            }
        },
        None => None,
    };
    let referee = args
        .referee
        .as_ref()
        .map(|r| key(r, "referee"))
        .transpose()?;
    Ok(crate::core::ProposeArgs {
        variant: args.variant,
        options: args.options,
        opponent,
        mailbox,
        referee,
    })
}
