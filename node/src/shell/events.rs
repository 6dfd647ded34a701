//! What the swarm says, turned into the core's inputs.

use libp2p::request_response;
use libp2p::swarm::SwarmEvent;

use super::Shell;
use super::addr::{causes, introduced, key_of, relay_of, with_peer};
use super::link::Event;
use super::streams::Delivered;
use crate::core::PeerKey;
use crate::core::{Input, NodeError};
use crate::net::BehaviourEvent;
use crate::sync::{Budgeted, Request, Response};

/// A peer's request as the core takes it. The addresses of an introduction are read
/// here: the core knows keys, not libp2p's peer ids.
fn request_input(peer: PeerKey, id: crate::core::InId, request: Request) -> Input {
    match request {
        Request::Introduce { game, addrs } => Input::Introduced {
            peer,
            id,
            game,
            addrs: introduced(addrs),
        },
        req => Input::Request { peer, id, req },
    }
}

impl Shell {
    pub(super) fn event(&mut self, event: SwarmEvent<BehaviourEvent>) {
        match event {
            SwarmEvent::ConnectionEstablished {
                peer_id,
                endpoint,
                num_established,
                connection_id,
                ..
            } => {
                if self.relisten.iter().any(|a| relay_of(a) == Some(peer_id)) {
                    self.listen_again(Some(peer_id));
                }
                if let Some((_, r)) = self.dials.remove(&connection_id) {
                    let _ = r.send(Ok(()));
                }
                self.dial_done(connection_id);
                self.reached(
                    &peer_id,
                    endpoint.is_dialer().then(|| endpoint.get_remote_address()),
                );
                let Some(peer) = key_of(&peer_id) else { return };
                let addr = endpoint
                    .is_dialer()
                    .then(|| with_peer(endpoint.get_remote_address(), peer_id));
                if num_established.get() == 1 {
                    // Where the peer comes from, for the budgets kept per address.
                    let origin = crate::origin::of(endpoint.get_remote_address());
                    self.reach.origins.insert(peer_id, origin.clone());
                    self.input(Input::Connected {
                        peer,
                        addr,
                        origin: Some(origin),
                    });
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
                // So does a relay to listen through that we dial first to register.
                let relayed: Vec<String> = self
                    .listeners
                    .values()
                    .chain(&self.reach.via)
                    .filter(|a| peer_id.is_some() && relay_of(a) == peer_id)
                    .map(ToString::to_string)
                    .collect();
                for at in relayed {
                    self.failed.push(format!("{at}: {}", causes(&error)));
                }
            }
            SwarmEvent::ConnectionClosed {
                peer_id,
                connection_id,
                num_established,
                ..
            } if num_established > 0 => self.boot_closed(connection_id, peer_id, num_established),
            SwarmEvent::ConnectionClosed {
                peer_id,
                connection_id,
                ..
            } => {
                self.boot_closed(connection_id, peer_id, 0);
                self.left(&peer_id);
                self.streams.disconnected(&peer_id);
                if let Some(peer) = key_of(&peer_id) {
                    self.input(Input::Disconnected { peer });
                }
            }
            // A relay grants reservations only with an address to put in them: a relay
            // is run where its listen addresses are reachable, so they are its
            // external addresses.
            // A player's listen addresses (and the relayed ones it reserved) are what it
            // registers at lookup points: its external addresses.
            SwarmEvent::NewListenAddr { address, .. }
                if self.cfg.net.relay_server || self.cfg.net.announce =>
            {
                self.swarm.add_external_address(address);
                // A relayed address that comes up after the first registration would be
                // missing until the next renewal.
                self.register_everywhere();
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
            // A relayed listener closes quietly when the relay client's dial to the relay
            // lost a race with one of ours, or the relay went away: listened on again once
            // the relay is connected, and on every repair round until then.
            SwarmEvent::ListenerClosed {
                listener_id,
                reason: Ok(()),
                ..
            } => {
                if let Some(addr) = self.listeners.remove(&listener_id)
                    && let Some(relay) = relay_of(&addr)
                {
                    self.relisten.push(addr);
                    if self.swarm.is_connected(&relay) {
                        self.listen_again(Some(relay));
                    }
                }
            }
            SwarmEvent::ListenerError { listener_id, error } => {
                let at = self.listeners.get(&listener_id).map(ToString::to_string);
                self.failed
                    .push(format!("{}: {}", at.unwrap_or_default(), causes(&error)));
            }
            SwarmEvent::Behaviour(BehaviourEvent::Lookup(e)) => self.lookup_event(e),
            SwarmEvent::Behaviour(BehaviourEvent::Autonat(
                libp2p::autonat::Event::StatusChanged { new, .. },
            )) => self.nat_changed(new),
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
                libp2p::identify::Event::Received {
                    peer_id,
                    info,
                    connection_id,
                },
            )) => {
                self.boot_seen(connection_id, peer_id, &info.agent_version);
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

    /// What a stream's task says (`streams.rs`).
    pub(super) fn stream_event(&mut self, e: Event) {
        match e {
            Event::Opened { peer, result } => self.streams.opened(peer, result),
            Event::Closed { link } => self.streams.close(link),
            Event::Frame { link, frame } => {
                match self.streams.frame(link, frame, &mut self.next_in) {
                    Some(Delivered::Request { peer, id, req }) => {
                        let Some(key) = key_of(&peer) else { return };
                        self.reach.sync_use.entry(peer).or_default().stream += 1;
                        // Its hold of the read budget is given back once the core has
                        // taken it.
                        let (req, _hold) = req.into_parts();
                        self.input(request_input(key, id, req));
                        return;
                    }
                    Some(Delivered::Response { peer, id, resp }) => {
                        self.reach.sync_use.entry(peer).or_default().stream += 1;
                        let (resp, _hold) = resp.into_parts();
                        self.input(Input::Response { id, resp });
                        return;
                    }
                    None => {}
                }
            }
        }
        // What a stream's end failed.
        self.drain();
    }

    fn sync_event(&mut self, e: request_response::Event<Budgeted<Request>, Budgeted<Response>>) {
        match e {
            request_response::Event::Message { peer, message, .. } => {
                let Some(key) = key_of(&peer) else { return };
                self.reach
                    .sync_use
                    .entry(peer)
                    .or_default()
                    .request_response += 1;
                match message {
                    request_response::Message::Request {
                        request, channel, ..
                    } => {
                        let id = self.next_in.take_next();
                        self.inbound.insert(id, (peer, channel));
                        // What the request holds of the read budget is given back once
                        // the core has taken it.
                        let (request, _hold) = request.into_parts();
                        self.input(request_input(key, id, request));
                    }
                    request_response::Message::Response {
                        request_id,
                        response,
                    } => {
                        let (resp, _hold) = response.into_parts();
                        if let Some(id) = self.outbound.remove(&request_id) {
                            self.input(Input::Response { id, resp });
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
