//! A peer that restarted: the connections to the process before it are dead, but
//! nothing says so at once. A QUIC connection to a process that was killed stays "up"
//! until its idle timeout (10 s of silence), and a TCP one behind a NAT or a firewall
//! that drops instead of resetting much longer. Meanwhile the peer's new process
//! connects (or we reach it), and our requests kept going out on the old connection's
//! stream into the void: an invitation sent 1 s after the peer's restart waited 11 to
//! 30 s (issue 57).
//!
//! Every node announces a boot in identify's agent version, random at each start
//! (spec/PROTOCOL.md §16.5, `net.rs` `agent_version`). Identify runs on every
//! connection as it opens, so a connection that identifies under a new boot of a peer
//! tells us that the peer's connections identified under another boot go to a process
//! that is gone: they are closed at once. Once one is closed, the peer is to the core
//! what it is: one process left and another came. Our sync stream to it is dropped
//! (its requests fail, the core's to send again), and the core is told the peer
//! disconnected and connected, so it offers the new process what it lacks as at any
//! first connection (`core/src/peers.rs` `connected`), not at the next repair round.
//!
//! What it holds: one entry per connection identified under a boot, gone when the
//! connection closes (so at most the node's connection limit, `net.rs`); the set of
//! connections being closed for it, a subset. A node of before boots announces none
//! and is never judged. A key run by two processes at once (a mistake of its owner)
//! makes each new connection close the other process's: the two then take turns, and
//! each turn is logged.

use std::collections::{HashMap, HashSet};

use libp2p::PeerId;
use libp2p::swarm::ConnectionId;

use super::Shell;
use super::addr::key_of;
use crate::core::Input;

/// The boots peers announced on each connection, and the connections closed as stale.
#[derive(Default)]
pub(super) struct Boots {
    by_connection: HashMap<ConnectionId, (PeerId, u64)>,
    stale: HashSet<ConnectionId>,
}

impl Shell {
    /// A connection identified with `agent`: if it names a new boot of the peer, the
    /// peer's connections identified under another are closed.
    pub(super) fn boot_seen(&mut self, conn: ConnectionId, peer: PeerId, agent: &str) {
        let Some(boot) = crate::net::announced_boot(agent) else {
            return;
        };
        let boots = &mut self.boots;
        boots.by_connection.insert(conn, (peer, boot));
        let gone: Vec<ConnectionId> = boots
            .by_connection
            .iter()
            .filter(|(c, (p, b))| *p == peer && *b != boot && !boots.stale.contains(*c))
            .map(|(c, _)| *c)
            .collect();
        for c in gone {
            tracing::info!(%peer, "the peer restarted: closing a connection to its process before");
            boots.stale.insert(c);
            self.swarm.close_connection(c);
        }
    }

    /// A connection closed; `remaining` are the peer's connections still open. When it
    /// was closed as stale and the peer is still connected (its new process), the core
    /// is told the peer left and came back.
    pub(super) fn boot_closed(&mut self, conn: ConnectionId, peer: PeerId, remaining: u32) {
        self.boots.by_connection.remove(&conn);
        if !self.boots.stale.remove(&conn) || remaining == 0 {
            // With none left, the usual disconnection says it (`events.rs`).
            return;
        }
        self.streams.drop_ours(&peer);
        let Some(key) = key_of(&peer) else { return };
        let origin = self.reach.origins.get(&peer).cloned();
        self.input(Input::Disconnected { peer: key });
        self.input(Input::Connected {
            peer: key,
            addr: None,
            origin,
        });
    }
}
