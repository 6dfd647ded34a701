//! Reaching peers: who is connected, where each can be reached, and the per-peer queue
//! of requests with its in-flight limit.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use super::games::game_peers;
use super::io::{OutId, Output};
use super::{Core, Durable, GameId, PeerKey};
use crate::sync::{MAX_SYNC_MESSAGE, Request};
use sealed_protocol::ids::ChainId;

/// Requests to one peer that may await an answer at once.
const MAX_IN_FLIGHT: usize = 8;

/// Addresses kept per peer, newest last.
const MAX_ADDRS: usize = 16;

/// What the core knows of its peers.
#[derive(Default)]
pub(super) struct Peers {
    /// Addresses per peer, each ending in `/p2p/<peer id>`, oldest first.
    pub(super) addrs: HashMap<PeerKey, Vec<String>>,
    pub(super) connected: HashSet<PeerKey>,
    pub(super) met: BTreeSet<PeerKey>,
    /// Requests waiting for room, per peer.
    queue: HashMap<PeerKey, VecDeque<Request>>,
    /// Requests awaiting an answer, per peer.
    in_flight: HashMap<PeerKey, usize>,
    pending: HashMap<OutId, PeerKey>,
    /// Offers awaiting an answer: the game and the places of what they carry, which an
    /// answer acknowledges (`delivery.rs`).
    pub(super) offered: HashMap<OutId, (GameId, Vec<(ChainId, u64)>)>,
    next_out: OutId,
}

impl Core {
    /// Queues a request to a connected peer (otherwise dials it: the heads exchanged on
    /// connection catch up) and sends what the in-flight limit allows.
    pub(super) fn request(&mut self, peer: PeerKey, req: Request) {
        if self.peers.connected.contains(&peer) {
            self.peers.queue.entry(peer).or_default().push_back(req);
            self.pump(peer);
        } else {
            self.dial(peer);
        }
    }

    /// Sends queued requests to `peer` while fewer than [`MAX_IN_FLIGHT`] await an
    /// answer. Every push waiting in the queue leaves in one `PushMany`: a node playing
    /// hundreds of games at once would otherwise open a stream per move and hit the
    /// muxer's stream limit, which drops requests.
    fn pump(&mut self, peer: PeerKey) {
        loop {
            let in_flight = self.peers.in_flight.get(&peer).copied().unwrap_or(0);
            if in_flight >= MAX_IN_FLIGHT {
                return;
            }
            let Some(queue) = self.peers.queue.get_mut(&peer) else {
                return;
            };
            let Some(first) = queue.pop_front() else {
                self.peers.queue.remove(&peer);
                return;
            };
            let req = match first {
                Request::Push { game, envelopes } => merge_pushes(queue, game, envelopes),
                other => other,
            };
            let id = self.peers.next_out;
            self.peers.next_out += 1;
            if let Request::Offer { envelopes, .. } = &req {
                let places = super::sync::places(envelopes);
                if let Some(game) = super::sync::game_of(envelopes) {
                    self.peers.offered.insert(id, (game, places));
                }
            }
            self.peers.pending.insert(id, peer);
            *self.peers.in_flight.entry(peer).or_default() += 1;
            self.out.push_back(Output::Send { peer, id, req });
        }
    }

    /// An answer (or a failure) to one of our requests: room for the next one. Returns
    /// the peer it went to.
    pub(super) fn room(&mut self, id: OutId) -> Option<PeerKey> {
        let peer = self.peers.pending.remove(&id)?;
        if let Some(n) = self.peers.in_flight.get_mut(&peer) {
            *n = n.saturating_sub(1);
        }
        self.pump(peer);
        Some(peer)
    }

    /// Learns an address of a peer; those of our games' peers are kept in the store, so
    /// that after a restart the node can still reach them.
    pub(super) fn learn(&mut self, peer: PeerKey, addr: String) {
        if let Some((key, value)) = self.remember(peer, addr) {
            self.write_meta(key, value);
        }
    }

    /// Learns an address in memory; the setting to store if it was new.
    pub(super) fn remember(&mut self, peer: PeerKey, addr: String) -> Option<(String, Vec<u8>)> {
        let known = self.peers.addrs.entry(peer).or_default();
        if known.contains(&addr) {
            return None;
        }
        known.push(addr);
        if known.len() > MAX_ADDRS {
            known.remove(0);
        }
        Some((addr_key(&peer), known.join("\n").into_bytes()))
    }

    /// Addresses the store remembers of every game's peers, and the mailboxes' addresses
    /// the proposals give.
    pub(super) fn recall(&mut self, store: &dyn Durable) {
        let me = self.key();
        let terms: Vec<_> = self
            .games
            .played
            .values()
            .map(|p| p.table.terms().clone())
            .chain(self.games.relayed.values().map(|r| r.terms.clone()))
            .collect();
        for t in &terms {
            for peer in game_peers(t, &me) {
                if let Ok(Some(bytes)) = store.meta(&addr_key(&peer)) {
                    let known = self.peers.addrs.entry(peer).or_default();
                    for a in String::from_utf8_lossy(&bytes).lines() {
                        if !known.iter().any(|k| k == a) {
                            known.push(a.to_owned());
                        }
                    }
                }
            }
            self.mailbox_addrs(t);
        }
    }

    /// The mailboxes' addresses a proposal gives.
    pub(super) fn mailbox_addrs(&mut self, terms: &sealed_protocol::proposal::Terms) {
        for m in &terms.proposal().mailboxes {
            let known = self.peers.addrs.entry(m.key).or_default();
            for a in &m.addrs {
                if !known.contains(a) {
                    known.push(a.clone());
                }
            }
        }
    }

    /// Asks the shell to reach a peer at every address we know, newest first.
    pub(super) fn dial(&mut self, peer: PeerKey) {
        let mut addrs = self.peers.addrs.get(&peer).cloned().unwrap_or_default();
        if addrs.is_empty() {
            return;
        }
        addrs.reverse();
        self.out.push_back(Output::Dial { peer, addrs });
    }

    /// A first connection to a peer: what we hold of every game we share, so that each
    /// side learns at once what it lacks (the peer does the same from its side).
    pub(super) fn connected(&mut self, peer: PeerKey, addr: Option<String>, store: &dyn Durable) {
        if let Some(a) = addr {
            self.learn(peer, a);
        }
        self.peers.met.insert(peer);
        if self.peers.connected.insert(peer) {
            let games = self.heads_for(&peer);
            if !games.is_empty() {
                self.request(peer, Request::Heads { games });
            }
            self.reintroduce(peer);
        }
        let _ = store;
    }

    /// The last connection to a peer closed: requests in flight fail on their own, and
    /// what is queued is repaired by the heads of the next connection.
    pub(super) fn disconnected(&mut self, peer: PeerKey) {
        self.peers.connected.remove(&peer);
        self.peers.queue.remove(&peer);
    }

    /// Offers a game to every peer of it (a new proposal, once durable).
    pub(super) fn offer_all(&mut self, id: GameId, store: &dyn Durable) {
        let Some(terms) = self.games.terms(&id).cloned() else {
            return;
        };
        for peer in game_peers(&terms, &self.key()) {
            self.offer(peer, id, store);
        }
    }
}

/// Merges every push waiting in `queue` behind a first push into one request, up to
/// half the message cap; other requests keep their order.
fn merge_pushes(queue: &mut VecDeque<Request>, game: GameId, envelopes: Vec<Vec<u8>>) -> Request {
    let mut games: Vec<(GameId, Vec<Vec<u8>>)> = vec![(game, envelopes)];
    let mut size: usize = games[0].1.iter().map(Vec::len).sum();
    let mut rest = VecDeque::new();
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

/// Where the store keeps a peer's addresses.
fn addr_key(peer: &PeerKey) -> String {
    format!("addrs/{}", hex::encode(peer))
}
