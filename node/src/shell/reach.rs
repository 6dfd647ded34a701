//! Reaching peers, the transport's half: the core says whom to reach and at which
//! addresses (best first, from its peer book); the shell dials them all at once, tells
//! the core which failed and why, and when the core says so (`sealed_core`'s
//! `lookups.rs` keeps the timing) asks the lookup points the node keeps connected for a
//! peer's record by its peer id (`lookup.rs`); it tells the core which points are
//! connected. It registers this node's own record there (with no address when it
//! does not announce itself: a relay reserves only for peers registered with it), and
//! serves lookups when it is a mailbox or relay.
//!
//! A lookup keeps only a record signed by the peer asked for, and the core dates its
//! addresses by the record's own time, not by when it was read.
//!
//! When AutoNAT
//! finds that no peer can dial this node (`nat_changed`), it listens through every
//! relay among the mailboxes it keeps connected (`reserve`), and a relayed listener
//! that closes is listened on again (`mod.rs` `listen_again`). What AutoNAT found is
//! kept in the store (`REMEMBERED`): a node that was private when it stopped reserves
//! at its relays as soon as it is registered there, without waiting for AutoNAT to
//! decide again (its first probe comes two seconds after the start, and the peers
//! that dialled it meanwhile found no reservation and try again only later), and drops
//! those reservations if AutoNAT then finds it public. Tested over loopback
//! (`node/tests/discovery.rs`) and across network namespaces, behind a NAT router too
//! (`cli/tests/netns.rs`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use libp2p::request_response::{self, OutboundRequestId};
use libp2p::swarm::ConnectionId;
use libp2p::swarm::DialError;
use libp2p::swarm::dial_opts::{DialOpts, PeerCondition};
use libp2p::{Multiaddr, PeerId, autonat, relay};

use super::Shell;
use super::addr::{causes, key_of, relay_of, with_peer};
use crate::core::{Input, SyncCounts};
use crate::lookup::{self, Request, Response};
use crate::origin::Origin;

/// A registration is renewed this often (it lives two hours at the point).
const RENEW_EVERY: Duration = Duration::from_secs(3600);

/// The store's setting that keeps what AutoNAT last decided: `private` or `public`.
pub(super) const REMEMBERED: &str = "reachability";

/// What the shell tracks of reaching peers.
#[derive(Default)]
pub(super) struct Reach {
    /// Dials the core asked for and still under way, by connection: the peer and the
    /// addresses tried. An entry goes when its connection is made or fails: at most one
    /// dial per address the core's book holds for a peer.
    dials: HashMap<ConnectionId, (PeerId, Vec<Multiaddr>)>,
    /// Lookup points (peers that serve lookups and that the node keeps connected, or
    /// relays it listens through), with when it last registered there.
    points: HashMap<PeerId, Option<Instant>>,
    /// Lookup requests in flight: the point, and the peer looked up (none: a
    /// registration).
    asked: HashMap<OutboundRequestId, (PeerId, Option<PeerId>)>,
    /// What each connected peer says it runs (identify's agent version).
    pub(super) agents: HashMap<PeerId, String>,
    /// The sync messages taken from each connected peer, by the way they came.
    pub(super) sync_use: HashMap<PeerId, SyncCounts>,
    /// Where we reached each connected peer we dialled.
    dialled_at: HashMap<PeerId, Multiaddr>,
    /// Relays among the mailboxes the node keeps connected, with where we reached them.
    relays: HashMap<PeerId, Multiaddr>,
    /// Addresses to listen on through a relay once registered there.
    pub(super) via: Vec<Multiaddr>,
    /// Where each connected peer's first connection came from.
    pub(super) origins: HashMap<PeerId, Origin>,
    /// Whether this node can be reached, as AutoNAT last found.
    pub(super) nat: Option<autonat::NatStatus>,
    /// AutoNAT found this node private when it last ran, and has not decided since.
    pub(super) was_private: bool,
    /// The relayed addresses this node listens on (or will) because it is private, as
    /// opposed to those it was told to (`--via`): dropped if it turns out public.
    reserved: Vec<Multiaddr>,
}

impl Shell {
    /// Dials `peer` at every address at once (best first); with none, looks it up.
    pub(super) fn reach(&mut self, peer: PeerId, addrs: Vec<Multiaddr>) {
        if addrs.is_empty() {
            // The core looks it up, told that the dial found nowhere to go.
            let asked = self.has_point(peer);
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
        // A dial under way tries the addresses it was given and no other: an address
        // learned since (one the player just typed, `sealed new --peer ADDR`) would wait
        // for the next repair round's dial, and the failure said would name only the old
        // ones. Such addresses get a dial of their own beside it.
        let trying: Vec<&Multiaddr> = self
            .reach
            .dials
            .values()
            .filter(|(p, _)| *p == peer)
            .flat_map(|(_, a)| a)
            .collect();
        let (condition, addrs) = if trying.is_empty() {
            (PeerCondition::DisconnectedAndNotDialing, addrs)
        } else {
            let new: Vec<Multiaddr> = addrs.into_iter().filter(|a| !trying.contains(&a)).collect();
            if new.is_empty() {
                return;
            }
            (PeerCondition::Disconnected, new)
        };
        let opts = DialOpts::peer_id(peer)
            .addresses(addrs.clone())
            .condition(condition)
            .build();
        let id = opts.connection_id();
        if self.swarm.dial(opts).is_ok() {
            self.reach.dials.insert(id, (peer, addrs));
        }
    }

    /// A connection was made: a dial of ours that made it is over.
    pub(super) fn dial_done(&mut self, id: ConnectionId) {
        self.reach.dials.remove(&id);
    }

    /// A dial the core asked for failed: which addresses, and why, go to the core's book;
    /// then the peer is looked up (it may have moved).
    pub(super) fn dial_failed(&mut self, id: ConnectionId, error: &DialError) {
        let Some((peer, _)) = self.reach.dials.remove(&id) else {
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
        // The core looks it up (it may have moved).
        self.input(Input::DialFailed {
            peer: key,
            addrs,
            why,
        });
    }

    /// The lookup points connected now, other than `but`.
    fn points_but(&self, but: Option<PeerId>) -> Vec<PeerId> {
        self.reach
            .points
            .keys()
            .filter(|p| Some(**p) != but && self.swarm.is_connected(p))
            .copied()
            .collect()
    }

    /// Whether a connected lookup point could be asked for `peer`.
    fn has_point(&self, peer: PeerId) -> bool {
        !self.points_but(Some(peer)).is_empty()
    }

    /// Asks every connected lookup point for `peer`'s record (the core says when,
    /// `Output::LookUp`).
    pub(super) fn look_up(&mut self, peer: PeerId) {
        for point in self.points_but(Some(peer)) {
            let id = self.swarm.behaviour_mut().lookup.send_request(
                &point,
                Request::Lookup {
                    peer: peer.to_bytes(),
                },
            );
            self.reach.asked.insert(id, (point, Some(peer)));
        }
    }

    /// Tells the core which lookup points are connected now; with `ask` (a point just
    /// identified itself), the core asks them for the peers it still wants.
    pub(super) fn points_changed(&mut self, ask: bool) {
        let points = self.points_but(None).iter().filter_map(key_of).collect();
        self.input(Input::LookupPoints { points, ask });
    }

    /// A peer told us what it runs (identify): a lookup point the core keeps connected
    /// (or a relay we listen through) is registered at, and the core told (it asks it
    /// for the peers still wanted).
    pub(super) fn identified(&mut self, peer: PeerId, info: &libp2p::identify::Info) {
        self.reach.agents.insert(peer, info.agent_version.clone());
        let serves = info.protocols.contains(&lookup::PROTOCOL);
        let standing = key_of(&peer).is_some_and(|k| self.core.is_standing(&k));
        let via = self.reach.via.iter().any(|a| relay_of(a) == Some(peer));
        if standing && info.protocols.contains(&relay::HOP_PROTOCOL_NAME) {
            self.relay_known(peer, info.listen_addrs.first());
        }
        if via && !serves {
            // A relay of before the lookup: it reserves for anyone.
            self.listen_via(peer);
        }
        if !(serves && (standing || via)) {
            return;
        }
        self.reach.points.entry(peer).or_insert(None);
        self.register(peer);
        self.points_changed(true);
    }

    /// Registers our record at a lookup point: our addresses if the node announces
    /// itself, none if not (a relay still reserves for it).
    fn register(&mut self, point: PeerId) {
        let addrs: Vec<Multiaddr> = if self.cfg.net.announce {
            self.swarm.external_addresses().cloned().collect()
        } else {
            vec![]
        };
        let Some(record) = lookup::make_record(&self.keypair, addrs) else {
            return;
        };
        let id = self
            .swarm
            .behaviour_mut()
            .lookup
            .send_request(&point, Request::Register { record });
        self.reach.asked.insert(id, (point, None));
    }

    /// Registers again at every connected lookup point (our addresses changed).
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
        self.registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .prune(super::now_ms());
    }

    /// The lookup protocol: what we serve, and the answers to what we asked.
    pub(super) fn lookup_event(&mut self, e: request_response::Event<Request, Response>) {
        match e {
            request_response::Event::Message {
                peer,
                message:
                    request_response::Message::Request {
                        request, channel, ..
                    },
                ..
            } => {
                let resp = self.serve_lookup(peer, request);
                let _ = self
                    .swarm
                    .behaviour_mut()
                    .lookup
                    .send_response(channel, resp);
            }
            request_response::Event::Message {
                message:
                    request_response::Message::Response {
                        request_id,
                        response,
                    },
                ..
            } => {
                if let Some((point, looked)) = self.reach.asked.remove(&request_id) {
                    self.lookup_answered(point, looked, response);
                }
            }
            request_response::Event::OutboundFailure { request_id, .. } => {
                self.reach.asked.remove(&request_id);
            }
            _ => {}
        }
    }

    /// A lookup point's answer.
    fn serve_lookup(&mut self, peer: PeerId, request: Request) -> Response {
        let now = super::now_ms();
        let mut registry = self
            .registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match request {
            Request::Register { record } => {
                let origin = self
                    .reach
                    .origins
                    .get(&peer)
                    .map_or_else(|| peer.to_string(), |o| o.key.clone());
                match registry.register(&peer, &origin, &record, now) {
                    Ok(ttl_ms) => Response::Registered { ttl_ms },
                    Err(why) => {
                        tracing::info!(%peer, "registration refused: {why}");
                        Response::Refused(why.to_string())
                    }
                }
            }
            Request::Lookup { peer: asked } => match PeerId::from_bytes(&asked) {
                Ok(p) => Response::Found(registry.lookup(&p, now)),
                Err(_) => Response::Refused("not a peer id".into()),
            },
        }
    }

    fn lookup_answered(&mut self, point: PeerId, looked: Option<PeerId>, response: Response) {
        match (looked, response) {
            (None, Response::Registered { .. }) => {
                tracing::debug!(%point, "registered");
                self.reach.points.insert(point, Some(Instant::now()));
                self.listen_via(point);
            }
            (None, Response::Refused(why)) => {
                tracing::warn!(%point, "registration refused: {why}");
                self.reach.points.insert(point, None);
                self.failed
                    .push(format!("{point}: registration refused: {why}"));
            }
            (Some(peer), Response::Found(Some(bytes))) => {
                // Only the record of the peer asked for, signed by it.
                let Ok(rec) = lookup::read_record(&bytes) else {
                    return;
                };
                if rec.peer != peer {
                    return;
                }
                let Some(key) = key_of(&peer) else { return };
                tracing::debug!(%peer, addrs = ?rec.addrs, "found at a lookup point");
                // The core dials it there if it still wants it.
                self.input(Input::Found {
                    peer: key,
                    addrs: rec.addrs.iter().map(|a| with_peer(a, peer)).collect(),
                    seen: rec.seq.saturating_mul(1000),
                });
            }
            _ => {}
        }
    }

    /// A peer is connected (at `addr`, if we dialled): nothing more to look up for it.
    pub(super) fn reached(&mut self, peer: &PeerId, addr: Option<&Multiaddr>) {
        if let Some(a) = addr {
            self.reach.dialled_at.insert(*peer, a.clone());
        }
    }

    /// The last connection to a peer closed: what was kept of it while connected goes,
    /// but what it runs if the core keeps it in its book (a proposal names it by it).
    pub(super) fn left(&mut self, peer: &PeerId) {
        if self.reach.points.contains_key(peer) {
            self.points_changed(false);
        }
        self.reach.dialled_at.remove(peer);
        self.reach.origins.remove(peer);
        self.reach.sync_use.remove(peer);
        if !key_of(peer).is_some_and(|k| self.core.knows_peer(&k)) {
            self.reach.agents.remove(peer);
        }
    }

    /// A mailbox the node keeps connected said it relays: noted, and used at once if
    /// this node cannot be reached.
    fn relay_known(&mut self, peer: PeerId, announced: Option<&Multiaddr>) {
        let Some(at) = self.reach.dialled_at.get(&peer).or(announced).cloned() else {
            return;
        };
        self.reach.relays.insert(peer, at);
        if self.private() {
            self.reserve(peer);
        }
    }

    /// Whether this node is taken to be unreachable: AutoNAT says so, or said so when
    /// the node last ran and has not decided since.
    fn private(&self) -> bool {
        match &self.reach.nat {
            Some(autonat::NatStatus::Private) => true,
            Some(autonat::NatStatus::Public(_)) => false,
            Some(autonat::NatStatus::Unknown) | None => self.reach.was_private,
        }
    }

    /// AutoNAT's verdict changed. A node that cannot be reached reserves a slot at every
    /// relay among the mailboxes it keeps connected, so peers reach it through them (and
    /// hole punching may then make the connection direct); a node found public drops
    /// the reservations it made only because it was private (or remembered being so).
    /// The verdict is kept for the next start.
    pub(super) fn nat_changed(&mut self, new: autonat::NatStatus) {
        tracing::info!(?new, "reachability");
        let decided = match new {
            autonat::NatStatus::Private => Some(true),
            autonat::NatStatus::Public(_) => Some(false),
            autonat::NatStatus::Unknown => None,
        };
        self.reach.nat = Some(new);
        match decided {
            Some(true) => {
                let relays: Vec<PeerId> = self.reach.relays.keys().copied().collect();
                for r in relays {
                    self.reserve(r);
                }
            }
            Some(false) => self.unreserve(),
            None => {}
        }
        if let Some(private) = decided
            && private != self.reach.was_private
        {
            self.reach.was_private = private;
            let word: &[u8] = if private { b"private" } else { b"public" };
            self.job(super::writer::Job::Remember(REMEMBERED, word.to_vec()));
        }
    }

    /// Stops listening through the relays this node reserved at only because it was
    /// private; those it was told to listen through stay.
    fn unreserve(&mut self) {
        let gone = std::mem::take(&mut self.reach.reserved);
        if gone.is_empty() {
            return;
        }
        self.reach.via.retain(|a| !gone.contains(a));
        self.relisten.retain(|a| !gone.contains(a));
        let ids: Vec<_> = self
            .listeners
            .iter()
            .filter(|(_, a)| gone.contains(a))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            // Out of `listeners` first: its closing is then not taken for a relay that
            // went away (`events.rs` listens again on those).
            if let Some(addr) = self.listeners.remove(&id) {
                tracing::info!(%addr, "reachable: no longer listening through a relay");
            }
            self.swarm.remove_listener(id);
        }
    }

    /// Listens through `relay` unless it already does (or will again), once registered
    /// there: it reserves only for peers registered with it.
    fn reserve(&mut self, relay: PeerId) {
        let through = |a: &Multiaddr| relay_of(a) == Some(relay);
        if self.listeners.values().any(through)
            || self.relisten.iter().any(through)
            || self.reach.via.iter().any(through)
        {
            return;
        }
        let Some(at) = self.reach.relays.get(&relay) else {
            return;
        };
        let addr = with_peer(at, relay)
            .parse::<Multiaddr>()
            .map(|a| a.with(libp2p::multiaddr::Protocol::P2pCircuit));
        let Ok(addr) = addr else { return };
        self.reach.reserved.push(addr.clone());
        self.reach.via.push(addr);
        if self.reach.points.get(&relay).is_some_and(Option::is_some) {
            self.listen_via(relay);
        }
    }

    /// Listens on the relayed addresses waiting for `relay`.
    pub(super) fn listen_via(&mut self, relay: PeerId) {
        let (now, later): (Vec<Multiaddr>, Vec<Multiaddr>) = std::mem::take(&mut self.reach.via)
            .into_iter()
            .partition(|a| relay_of(a) == Some(relay));
        self.reach.via = later;
        for addr in now {
            match self.swarm.listen_on(addr.clone()) {
                Ok(id) => {
                    tracing::info!(%addr, "listening through a relay");
                    self.listeners.insert(id, addr);
                }
                Err(e) => self.failed.push(format!("{addr}: {}", causes(&e))),
            }
        }
    }
}
