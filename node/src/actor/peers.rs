//! Reaching peers: connections, dialling, per-peer request queues, addresses.

use super::*;

impl Actor {
    /// Queues a request to a connected peer (otherwise dials it: the heads exchanged on
    /// connection catch up) and sends what the in-flight limit allows.
    pub(super) fn request(&mut self, peer: PeerId, req: Request) {
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
    pub(super) fn pump(&mut self, peer: PeerId) {
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
    pub(super) fn answered(&mut self, request_id: OutboundRequestId) {
        if let Some(peer) = self.pending.remove(&request_id) {
            if let Some(n) = self.in_flight.get_mut(&peer) {
                *n = n.saturating_sub(1);
            }
            self.pump(peer);
        }
    }

    /// Learns an address of a peer; those of our games' peers are kept in the store, so
    /// that after a restart the node can still reach them.
    pub(super) fn learn(&mut self, peer: PeerId, addr: Multiaddr) {
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
    pub(super) fn recall(&mut self) {
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

    pub(super) fn mailbox_addrs(&mut self, terms: &Terms) {
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

    pub(super) fn dial(&mut self, peer: PeerId) {
        let addrs = self.addrs.get(&peer).cloned().unwrap_or_default();
        if addrs.is_empty() {
            return;
        }
        let opts = libp2p::swarm::dial_opts::DialOpts::peer_id(peer)
            .addresses(addrs)
            .build();
        let _ = self.swarm.dial(opts);
    }

    pub(super) fn event(&mut self, event: SwarmEvent<BehaviourEvent>) {
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
    pub(super) fn on_connect(&mut self, peer: PeerId) {
        let games = self.heads_for(peer);
        if !games.is_empty() {
            self.request(peer, Request::Heads { games });
        }
    }

    /// Offers `peer` a game it said it does not know, if it holds a seat of it or is
    /// its mailbox: the proposal and every envelope it may see, in one message.
    pub(super) fn offer(&mut self, peer: PeerId, game: [u8; 32]) {
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
}
