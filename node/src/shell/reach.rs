//! Reaching peers, the transport's half: the core says whom to reach and at which
//! addresses (best first, from its peer book); the shell dials them all at once, tells
//! the core which failed and why, and when none answers — or the book holds none — looks
//! the peer up by its peer id at the rendezvous points the node keeps connected. It also
//! registers this node's own addresses there, unless told not to.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use libp2p::swarm::ConnectionId;
use libp2p::swarm::DialError;
use libp2p::swarm::dial_opts::{DialOpts, PeerCondition};
use libp2p::{Multiaddr, PeerId, autonat, relay, rendezvous};

use super::Shell;
use super::addr::{causes, key_of, with_peer};
use crate::core::Input;
use crate::net;

/// A peer not found is looked up again after this long at first (it may register a
/// moment later), then half as often each time, down to once per [`LOOKUP_MAX`].
const LOOKUP_FIRST: Duration = Duration::from_secs(1);
/// The longest wait between two lookups of one peer.
const LOOKUP_MAX: Duration = Duration::from_secs(60);

/// A registration is renewed this often (it lives two hours at the point).
const RENEW_EVERY: Duration = Duration::from_secs(3600);

/// What the shell tracks of reaching peers.
pub(super) struct Reach {
    /// Dials the core asked for, by connection: the peer and the addresses tried.
    dials: HashMap<ConnectionId, PeerId>,
    /// When each peer was last looked up, and how long to wait before the next time.
    looked: HashMap<PeerId, (Instant, Duration)>,
    /// Peers looked up and still to dial once found.
    wanted: HashSet<PeerId>,
    /// Rendezvous points (peers that said they serve rendezvous), with when we last
    /// registered there.
    points: HashMap<PeerId, Option<Instant>>,
    /// What each connected peer says it runs (identify's agent version).
    pub(super) agents: HashMap<PeerId, String>,
    /// Where we reached each peer we dialled.
    dialled_at: HashMap<PeerId, Multiaddr>,
    /// Relays among the mailboxes the node keeps connected, with where we reached them.
    relays: HashMap<PeerId, Multiaddr>,
    /// Whether this node can be reached, as AutoNAT last found.
    pub(super) nat: autonat::NatStatus,
}

impl Default for Reach {
    fn default() -> Self {
        Reach {
            dials: HashMap::new(),
            looked: HashMap::new(),
            wanted: HashSet::new(),
            points: HashMap::new(),
            agents: HashMap::new(),
            dialled_at: HashMap::new(),
            relays: HashMap::new(),
            nat: autonat::NatStatus::Unknown,
        }
    }
}

impl Shell {
    /// Dials `peer` at every address at once (best first); with none, looks it up.
    pub(super) fn reach(&mut self, peer: PeerId, addrs: Vec<Multiaddr>) {
        if addrs.is_empty() {
            let asked = self.lookup(peer);
            if let Some(key) = key_of(&peer) {
                let why = if asked {
                    "no address known for it; asking the mailboxes this node keeps"
                } else {
                    "no address known for it, and no mailbox or relay of this node to ask \
                     (sealed mailbox <address>)"
                };
                self.input(Input::DialFailed {
                    peer: key,
                    addrs: vec![],
                    why: why.into(),
                });
            }
            return;
        }
        let opts = DialOpts::peer_id(peer)
            .addresses(addrs)
            .condition(PeerCondition::DisconnectedAndNotDialing)
            .build();
        let id = opts.connection_id();
        if self.swarm.dial(opts).is_ok() {
            self.reach.dials.insert(id, peer);
        }
    }

    /// A dial the core asked for failed: which addresses, and why, go to the core's book;
    /// then the peer is looked up (it may have moved).
    pub(super) fn dial_failed(&mut self, id: ConnectionId, error: &DialError) {
        let Some(peer) = self.reach.dials.remove(&id) else {
            return;
        };
        let Some(key) = key_of(&peer) else { return };
        let (addrs, why) = match error {
            DialError::Transport(failed) => (
                failed.iter().map(|(a, _)| with_peer(a, peer)).collect(),
                failed
                    .iter()
                    .map(|(a, e)| {
                        let why = causes(e);
                        // Noise checks the key inside the handshake: a wrong peer id
                        // shows only as a failed handshake.
                        let hint = if why.contains("Handshake failed") {
                            format!(" (the node there is not {peer}, or not a sealed node)")
                        } else {
                            String::new()
                        };
                        format!("{a}: {why}{hint}")
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            DialError::WrongPeerId { obtained, address } => (
                vec![with_peer(address, peer)],
                format!("the node at {} is {obtained}, not {peer}", address),
            ),
            // Already connected or dialling: nothing failed.
            DialError::DialPeerConditionFalse(_) => return,
            other => (vec![], causes(other)),
        };
        self.input(Input::DialFailed {
            peer: key,
            addrs,
            why,
        });
        let _ = self.lookup(peer);
    }

    /// Asks every connected rendezvous point the node keeps for `peer`'s registration, at
    /// most as often as [`LOOKUP_FIRST`] and [`LOOKUP_MAX`] say; a point that connects later is asked then. Whether
    /// there is a point to ask.
    pub(super) fn lookup(&mut self, peer: PeerId) -> bool {
        self.reach.wanted.insert(peer);
        let now = Instant::now();
        let points: Vec<PeerId> = self.reach.points.keys().copied().collect();
        let any = points
            .iter()
            .any(|p| *p != peer && self.swarm.is_connected(p));
        if self
            .reach
            .looked
            .get(&peer)
            .is_some_and(|(t, wait)| now.duration_since(*t) < *wait)
        {
            return any;
        }
        let mut asked = false;
        for point in points {
            if point != peer && self.swarm.is_connected(&point) {
                self.swarm.behaviour_mut().rendezvous.discover(
                    Some(net::namespace(&peer)),
                    None,
                    Some(4),
                    point,
                );
                asked = true;
            }
        }
        if asked {
            let wait = self
                .reach
                .looked
                .get(&peer)
                .map_or(LOOKUP_FIRST, |(_, w)| (*w * 2).min(LOOKUP_MAX));
            self.reach.looked.insert(peer, (now, wait));
        }
        any
    }

    /// A peer told us what it runs (identify): a rendezvous point the core keeps
    /// connected is registered at and asked for the peers still wanted.
    pub(super) fn identified(&mut self, peer: PeerId, info: &libp2p::identify::Info) {
        self.reach.agents.insert(peer, info.agent_version.clone());
        let serves = info.protocols.contains(&rendezvous::PROTOCOL_NAME);
        let standing = key_of(&peer).is_some_and(|k| self.core.is_standing(&k));
        if standing && info.protocols.contains(&relay::HOP_PROTOCOL_NAME) {
            self.relay_known(peer, info.listen_addrs.first());
        }
        if !(serves && standing) {
            return;
        }
        self.reach.points.entry(peer).or_insert(None);
        self.register(peer);
        let wanted: Vec<PeerId> = self.reach.wanted.iter().copied().collect();
        for w in wanted {
            let _ = self.lookup(w);
        }
    }

    /// Registers our addresses at a rendezvous point (if the node announces itself).
    fn register(&mut self, point: PeerId) {
        if !self.cfg.net.announce {
            return;
        }
        let me = *self.swarm.local_peer_id();
        match self
            .swarm
            .behaviour_mut()
            .rendezvous
            .register(net::namespace(&me), point, None)
        {
            Ok(()) => {
                self.reach.points.insert(point, Some(Instant::now()));
            }
            // No address yet: registered once the first listener is up.
            Err(e) => tracing::debug!(%point, "not registered: {e}"),
        }
    }

    /// Registers our addresses again at every connected rendezvous point (they
    /// changed).
    pub(super) fn register_everywhere(&mut self) {
        let points: Vec<PeerId> = self
            .reach
            .points
            .keys()
            .filter(|p| self.swarm.is_connected(p))
            .copied()
            .collect();
        for p in points {
            self.register(p);
        }
    }

    /// Renews registrations that are due, and registers where none went through.
    pub(super) fn renew(&mut self) {
        let now = Instant::now();
        let due: Vec<PeerId> = self
            .reach
            .points
            .iter()
            .filter(|(p, at)| {
                self.swarm.is_connected(p)
                    && at.is_none_or(|t| now.duration_since(t) >= RENEW_EVERY)
            })
            .map(|(p, _)| *p)
            .collect();
        for p in due {
            self.register(p);
        }
    }

    /// What a rendezvous point answered.
    pub(super) fn rendezvous_event(&mut self, e: rendezvous::client::Event) {
        match e {
            rendezvous::client::Event::Discovered { registrations, .. } => {
                for r in registrations {
                    let peer = r.record.peer_id();
                    let Some(key) = key_of(&peer) else { continue };
                    let addrs: Vec<Multiaddr> = r.record.addresses().to_vec();
                    tracing::debug!(%peer, ?addrs, "found at a rendezvous point");
                    self.input(Input::Learned {
                        peer: key,
                        addrs: addrs.iter().map(|a| with_peer(a, peer)).collect(),
                    });
                    if self.reach.wanted.remove(&peer) && !self.swarm.is_connected(&peer) {
                        self.reach(peer, addrs);
                    }
                }
            }
            rendezvous::client::Event::RegisterFailed {
                rendezvous_node,
                error,
                ..
            } => {
                tracing::warn!(point = %rendezvous_node, ?error, "registration refused");
                self.reach.points.insert(rendezvous_node, None);
            }
            rendezvous::client::Event::Registered {
                rendezvous_node, ..
            } => {
                tracing::debug!(point = %rendezvous_node, "registered");
            }
            _ => {}
        }
    }

    /// A peer is connected (at `addr`, if we dialled): nothing more to look up for it.
    pub(super) fn reached(&mut self, peer: &PeerId, addr: Option<&Multiaddr>) {
        self.reach.wanted.remove(peer);
        self.reach.looked.remove(peer);
        if let Some(a) = addr {
            self.reach.dialled_at.insert(*peer, a.clone());
        }
    }

    /// A mailbox the node keeps connected said it relays: noted, and used at once if
    /// this node cannot be reached.
    fn relay_known(&mut self, peer: PeerId, announced: Option<&Multiaddr>) {
        let Some(at) = self.reach.dialled_at.get(&peer).or(announced).cloned() else {
            return;
        };
        self.reach.relays.insert(peer, at);
        if self.reach.nat == autonat::NatStatus::Private {
            self.reserve(peer);
        }
    }

    /// AutoNAT's verdict changed. A node that cannot be reached reserves a slot at every
    /// relay among the mailboxes it keeps connected, so peers reach it through them (and
    /// hole punching may then make the connection direct).
    pub(super) fn nat_changed(&mut self, new: autonat::NatStatus) {
        tracing::info!(?new, "reachability");
        self.reach.nat = new;
        if self.reach.nat == autonat::NatStatus::Private {
            let relays: Vec<PeerId> = self.reach.relays.keys().copied().collect();
            for r in relays {
                self.reserve(r);
            }
        }
    }

    /// Listens through `relay` unless it already does (or will again).
    fn reserve(&mut self, relay: PeerId) {
        let through = |a: &Multiaddr| super::addr::relay_of(a) == Some(relay);
        if self.listeners.values().any(through) || self.relisten.iter().any(through) {
            return;
        }
        let Some(at) = self.reach.relays.get(&relay) else {
            return;
        };
        let addr = super::addr::with_peer(at, relay)
            .parse::<Multiaddr>()
            .map(|a| a.with(libp2p::multiaddr::Protocol::P2pCircuit));
        let Ok(addr) = addr else { return };
        match self.swarm.listen_on(addr.clone()) {
            Ok(id) => {
                tracing::info!(%addr, "not reachable: listening through a relay");
                self.listeners.insert(id, addr);
            }
            Err(e) => tracing::warn!(%addr, "cannot listen through the relay: {}", causes(&e)),
        }
    }
}
