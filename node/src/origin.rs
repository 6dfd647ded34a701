//! Where a connection comes from, as the budgets see it (ARCHITECTURE.md, *Budgets*):
//! keys cost a stranger nothing, addresses cost him something, so every budget that a
//! stranger could multiply with new keys is also kept per address. An address is
//! counted by its IPv4 address, or its IPv6 /64 (one host's usual share); a relayed
//! connection shows only the relay's address, so it is counted by the relay (whose own
//! budgets count the source's address, `net.rs`).
//!
//! Also here: [`Gate`], the behaviour that refuses an inbound connection from an origin
//! that already holds its share (libp2p's connection limits count per peer and in all,
//! never per address), shares the places of inbound connections between networks by
//! eviction (those being set up, `door.rs`, and those established), and which addresses
//! are global (dialled on a stranger's word
//! only when he is himself on a global address, `core/src/sync.rs`).

use std::collections::HashMap;
use std::task::{Context, Poll};

use libp2p::core::Endpoint;
use libp2p::core::transport::PortUse;
use libp2p::multiaddr::Protocol;
use libp2p::swarm::{
    ConnectionClosed, ConnectionDenied, ConnectionId, FromSwarm, ListenFailure, NetworkBehaviour,
    THandler, THandlerInEvent, THandlerOutEvent, ToSwarm, dummy,
};
use libp2p::{Multiaddr, PeerId};

pub use sealed_core::origin::{Origin, global_v4, global_v6, ip_is_global, is_global_text};

/// The origin of a connection whose remote address is `addr`.
pub fn of(addr: &Multiaddr) -> Origin {
    if addr.iter().any(|p| matches!(p, Protocol::P2pCircuit)) {
        let relay = addr
            .iter()
            .find_map(|p| match p {
                Protocol::P2p(id) => Some(id.to_string()),
                _ => None,
            })
            .unwrap_or_default();
        return Origin {
            key: format!("relay/{relay}"),
            global: is_global(addr),
        };
    }
    match addr.iter().next() {
        Some(Protocol::Ip4(a)) => Origin {
            key: format!("ip4/{a}"),
            global: global_v4(a),
        },
        Some(Protocol::Ip6(a)) => {
            let s = a.segments();
            Origin {
                key: format!("ip6/{:x}:{:x}:{:x}:{:x}", s[0], s[1], s[2], s[3]),
                global: global_v6(a),
            }
        }
        _ => Origin {
            key: addr.to_string(),
            global: is_global(addr),
        },
    }
}

/// Whether an address reaches the internet: its first IP (a relayed address's relay)
/// is global; a DNS name counts as global; an address that does not read does not.
pub fn is_global(addr: &Multiaddr) -> bool {
    for p in addr.iter() {
        match p {
            Protocol::Ip4(a) => return global_v4(a),
            Protocol::Ip6(a) => return global_v6(a),
            Protocol::Dns(_) | Protocol::Dns4(_) | Protocol::Dns6(_) | Protocol::Dnsaddr(_) => {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// Inbound connections one origin may hold at once (a relay's, for everyone behind it).
#[derive(Clone, Copy, Debug)]
pub struct GateLimits {
    /// From one address.
    pub per_address: usize,
    /// Through one relay.
    pub per_relay: usize,
    /// Being set up (handshakes under way) from everyone at once, shared between
    /// networks by eviction (`door.rs`).
    pub pending: usize,
    /// Established from everyone at once, shared between networks the same way: when
    /// all are taken, a newcomer from a network holding fewer closes the oldest
    /// connection of the network holding most (its address holding most).
    pub inbound: usize,
}

impl Default for GateLimits {
    fn default() -> Self {
        GateLimits {
            per_address: 16,
            per_relay: 64,
            pending: crate::door::MAX_PENDING,
            inbound: crate::net::MAX_INCOMING as usize,
        }
    }
}

/// Refuses an inbound connection whose origin holds its share already, and keeps the
/// door (`door.rs`): the connections being set up, shared between networks.
#[derive(Debug, Default)]
pub struct Gate {
    limits: GateLimits,
    /// The handshakes under way, by who would be evicted first.
    waitlist: crate::door::Waitlist<ConnectionId>,
    /// Their cancel handles, filed by the transport.
    handles: crate::door::Handles,
    /// The inbound connections established, by who would be closed first, and their
    /// peers.
    inbound: crate::door::Waitlist<ConnectionId>,
    peers: HashMap<ConnectionId, PeerId>,
    /// Connections to close, evicted for a newcomer; and the swarm's waker, to say so.
    closing: Vec<(PeerId, ConnectionId)>,
    waker: Option<std::task::Waker>,
    /// Connections pending or established, per origin key.
    held: HashMap<String, usize>,
    /// The origin key of each counted connection.
    of: HashMap<ConnectionId, String>,
}

/// Why a connection was refused.
#[derive(Debug, thiserror::Error)]
#[error("{0} connections from {1} already")]
pub struct Crowded(usize, String);

impl Gate {
    /// A gate with these limits, evicting through `handles` (those of the transport,
    /// `door::Evictable`).
    pub fn new(limits: GateLimits, handles: crate::door::Handles) -> Gate {
        Gate {
            limits,
            handles,
            ..Gate::default()
        }
    }

    /// Handshakes under way, evicted and refused at the door so far.
    pub fn door(&self) -> (usize, u64, u64) {
        (
            self.waitlist.len(),
            self.waitlist.evicted,
            self.waitlist.refused,
        )
    }

    /// Inbound connections established, closed for a newcomer and refused so far.
    pub fn inbound(&self) -> (usize, u64, u64) {
        (
            self.inbound.len(),
            self.inbound.evicted,
            self.inbound.refused,
        )
    }

    /// An inbound connection established: given a place, perhaps another's, whose
    /// connection is then closed.
    fn settle(
        &mut self,
        id: ConnectionId,
        peer: PeerId,
        remote: &Multiaddr,
    ) -> Result<(), ConnectionDenied> {
        use crate::door::Admit;
        let origin = of(remote);
        let group = origin.group();
        match self
            .inbound
            .admit(id, remote, &origin.key, &group, self.limits.inbound)
        {
            Admit::Free => {}
            Admit::Evict(victim, _) => {
                if let Some(p) = self.peers.remove(&victim) {
                    self.closing.push((p, victim));
                    if let Some(w) = self.waker.take() {
                        w.wake();
                    }
                }
            }
            Admit::Full => {
                return Err(ConnectionDenied::new(Crowded(
                    self.limits.inbound,
                    format!("inbound, {group} holding most"),
                )));
            }
        }
        self.peers.insert(id, peer);
        Ok(())
    }

    /// A connection being set up: counted for its address, then given a place at the
    /// door, perhaps another's.
    fn wait(&mut self, id: ConnectionId, remote: &Multiaddr) -> Result<(), ConnectionDenied> {
        self.admit(id, remote)?;
        let origin = of(remote);
        if origin.relayed() {
            return Ok(());
        }
        use crate::door::Admit;
        match self.waitlist.admit(
            id,
            remote,
            &origin.key,
            &origin.group(),
            self.limits.pending,
        ) {
            Admit::Free => Ok(()),
            Admit::Evict(_, at) => {
                // Its address's count goes when the swarm reports the handshake failed.
                if !self.handles.evict(&at) {
                    tracing::debug!("no handshake under way from {at} to evict");
                }
                Ok(())
            }
            Admit::Full => {
                self.release(id);
                Err(ConnectionDenied::new(Crowded(
                    self.limits.pending,
                    format!("the door, {} holding most", origin.group()),
                )))
            }
        }
    }

    /// Connections counted now (for tests).
    pub fn counted(&self) -> usize {
        self.of.len()
    }

    fn admit(&mut self, id: ConnectionId, remote: &Multiaddr) -> Result<(), ConnectionDenied> {
        if self.of.contains_key(&id) {
            return Ok(());
        }
        let origin = of(remote);
        let limit = if origin.relayed() {
            self.limits.per_relay
        } else {
            self.limits.per_address
        };
        let n = self.held.get(&origin.key).copied().unwrap_or(0);
        if n >= limit {
            return Err(ConnectionDenied::new(Crowded(n, origin.key)));
        }
        self.held.insert(origin.key.clone(), n + 1);
        self.of.insert(id, origin.key);
        Ok(())
    }

    fn release(&mut self, id: ConnectionId) {
        if let Some(key) = self.of.remove(&id)
            && let Some(n) = self.held.get_mut(&key)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.held.remove(&key);
            }
        }
    }
}

impl NetworkBehaviour for Gate {
    type ConnectionHandler = dummy::ConnectionHandler;
    type ToSwarm = std::convert::Infallible;

    fn handle_pending_inbound_connection(
        &mut self,
        id: ConnectionId,
        _local: &Multiaddr,
        remote: &Multiaddr,
    ) -> Result<(), ConnectionDenied> {
        self.wait(id, remote)
    }

    fn handle_established_inbound_connection(
        &mut self,
        id: ConnectionId,
        peer: PeerId,
        _local: &Multiaddr,
        remote: &Multiaddr,
    ) -> Result<THandler<Self>, ConnectionDenied> {
        // Counted when pending; a relayed connection is only seen established.
        self.waitlist.done(id);
        self.admit(id, remote)?;
        if let Err(e) = self.settle(id, peer, remote) {
            self.release(id);
            return Err(e);
        }
        Ok(dummy::ConnectionHandler)
    }

    fn handle_established_outbound_connection(
        &mut self,
        _id: ConnectionId,
        _peer: PeerId,
        _addr: &Multiaddr,
        _role: Endpoint,
        _port_use: PortUse,
    ) -> Result<THandler<Self>, ConnectionDenied> {
        Ok(dummy::ConnectionHandler)
    }

    fn on_swarm_event(&mut self, event: FromSwarm) {
        match event {
            FromSwarm::ConnectionClosed(ConnectionClosed { connection_id, .. })
            | FromSwarm::ListenFailure(ListenFailure { connection_id, .. }) => {
                self.waitlist.done(connection_id);
                self.inbound.done(connection_id);
                self.peers.remove(&connection_id);
                self.release(connection_id);
            }
            _ => {}
        }
    }

    fn on_connection_handler_event(
        &mut self,
        _peer: PeerId,
        _id: ConnectionId,
        event: THandlerOutEvent<Self>,
    ) {
        libp2p::core::util::unreachable(event)
    }

    fn poll(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<ToSwarm<Self::ToSwarm, THandlerInEvent<Self>>> {
        if let Some((peer_id, id)) = self.closing.pop() {
            return Poll::Ready(ToSwarm::CloseConnection {
                peer_id,
                connection: libp2p::swarm::CloseConnection::One(id),
            });
        }
        self.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> Multiaddr {
        s.parse().expect("an address")
    }

    #[test]
    fn origins_count_addresses_not_ports_nor_keys() {
        let x = of(&a("/ip4/1.2.3.4/tcp/5"));
        assert_eq!(
            x,
            of(&a(
                "/ip4/1.2.3.4/tcp/6/p2p/12D3KooWEutTyBTHJwAyQm2HpzGSFhRHhmkTvBtz2ETpHtiqC6Vw"
            ))
        );
        assert!(x.global);
        let v6 = of(&a("/ip6/2a01:4f8:1:2:aaaa::1/tcp/1"));
        assert_eq!(v6, of(&a("/ip6/2a01:4f8:1:2:bbbb::9/udp/1/quic-v1")));
        assert_ne!(v6, of(&a("/ip6/2a01:4f8:1:3::1/tcp/1")));
        assert!(!of(&a("/ip4/127.0.0.2/tcp/1")).global);
        assert!(!of(&a("/ip4/10.1.0.2/tcp/1")).global);
        assert!(!of(&a("/ip4/100.64.1.1/tcp/1")).global);
        assert!(!of(&a("/ip6/fd00::1/tcp/1")).global);
        let relayed = of(&a(
            "/ip4/1.2.3.4/tcp/5/p2p/12D3KooWEutTyBTHJwAyQm2HpzGSFhRHhmkTvBtz2ETpHtiqC6Vw/p2p-circuit",
        ));
        assert!(relayed.relayed());
        assert!(is_global_text("/dns4/example.org/tcp/1"));
        assert!(!is_global_text("/sim/00"));
    }

    #[test]
    fn the_gate_counts_per_origin_and_forgets_closed_connections() {
        let mut g = Gate::new(
            GateLimits {
                per_address: 2,
                per_relay: 3,
                pending: 128,
                inbound: 128,
            },
            crate::door::Handles::default(),
        );
        let from = a("/ip4/9.9.9.9/tcp/1");
        let ids: Vec<ConnectionId> = (1..=3).map(ConnectionId::new_unchecked).collect();
        let local = a("/ip4/0.0.0.0/tcp/1");
        assert!(
            g.handle_pending_inbound_connection(ids[0], &local, &from)
                .is_ok()
        );
        assert!(
            g.handle_pending_inbound_connection(ids[1], &local, &from)
                .is_ok()
        );
        assert!(
            g.handle_pending_inbound_connection(ids[2], &local, &from)
                .is_err()
        );
        // Another address has its own share.
        let other = a("/ip4/9.9.9.8/tcp/1");
        assert!(
            g.handle_pending_inbound_connection(ConnectionId::new_unchecked(9), &local, &other)
                .is_ok()
        );
        g.release(ids[0]);
        assert!(
            g.handle_pending_inbound_connection(ids[2], &local, &from)
                .is_ok()
        );
        assert_eq!(g.counted(), 3);
    }

    #[test]
    fn a_newcomer_from_another_network_closes_an_established_connection_of_the_crowd() {
        let mut g = Gate::new(
            GateLimits {
                per_address: 4,
                per_relay: 4,
                pending: 128,
                inbound: 4,
            },
            crate::door::Handles::default(),
        );
        let local = a("/ip4/0.0.0.0/tcp/1");
        let establish = |g: &mut Gate, id: usize, from: &str| {
            let id = ConnectionId::new_unchecked(id);
            let remote = a(from);
            g.handle_pending_inbound_connection(id, &local, &remote)?;
            g.handle_established_inbound_connection(id, PeerId::random(), &local, &remote)
                .map(drop)
        };
        for i in 0..4 {
            assert!(
                establish(
                    &mut g,
                    i,
                    &format!("/ip4/10.0.1.{}/tcp/{}", i % 2 + 1, 100 + i)
                )
                .is_ok()
            );
        }
        // The crowd's own network is refused when full.
        assert!(establish(&mut g, 4, "/ip4/10.0.1.9/tcp/1").is_err());
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(g.poll(&mut cx).is_pending(), "nothing to close yet");
        // Another network walks in, and the crowd's oldest is closed.
        assert!(establish(&mut g, 5, "/ip4/10.0.2.1/tcp/1").is_ok());
        match g.poll(&mut cx) {
            Poll::Ready(ToSwarm::CloseConnection { connection, .. }) => {
                assert!(matches!(
                    connection,
                    libp2p::swarm::CloseConnection::One(id) if id == ConnectionId::new_unchecked(0)
                ));
            }
            _ => panic!("the oldest of the crowd is closed"),
        }
        assert_eq!(g.inbound(), (4, 1, 1));
        // Equal networks then: a third one is let in only in place of the larger.
        assert!(establish(&mut g, 6, "/ip4/10.0.3.1/tcp/1").is_ok());
        assert!(establish(&mut g, 7, "/ip4/10.0.4.1/tcp/1").is_ok());
        assert!(
            establish(&mut g, 8, "/ip4/10.0.2.2/tcp/1").is_err(),
            "every network holds one: none holds more than a newcomer's would"
        );
    }
}
