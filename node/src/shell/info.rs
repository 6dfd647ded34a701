//! What the shell says about the node ([`Shell::info`]) and adds to the core's view of
//! its peers ([`Shell::with_agents`]): what only the swarm knows — addresses, what each
//! connected peer runs, the doors' counts, reachability.

use super::addr::with_peer;
use super::{Door, Info, Shell};
use crate::core::PeersView;
use crate::net;

impl Shell {
    /// Adds to the peer book's view each peer's peer id, what each connected peer runs
    /// (identify) and how its sync messages came, which only the shell knows.
    pub(super) fn with_agents(&self, view: &mut PeersView) {
        for p in &mut view.peers {
            let key = hex::decode(&p.key)
                .ok()
                .and_then(|k| <[u8; 32]>::try_from(k).ok());
            let Some(id) = key.and_then(|k| net::peer_id(&k)) else {
                continue;
            };
            p.peer = Some(id.to_string());
            if let Some(agent) = self.reach.agents.get(&id) {
                p.name = net::announced_name(agent);
                p.agent = Some(net::shown_agent(agent));
            }
            p.sync = self.reach.sync_use.get(&id).copied();
        }
    }

    pub(super) fn info(&self) -> Info {
        let peer = *self.swarm.local_peer_id();
        let addrs = self.swarm.listeners().map(|a| with_peer(a, peer)).collect();
        let met = self
            .core
            .met()
            .filter_map(|k| net::peer_id(k.as_bytes()))
            .map(|p| p.to_string())
            .collect();
        let held = self.core.residency();
        let gate = &self.swarm.behaviour().gate;
        let (waiting, evicted, refused) = gate.door();
        let (open, closed, turned) = gate.inbound();
        Info {
            door: Door {
                waiting,
                places: self.cfg.net.gate.pending,
                evicted,
                refused,
            },
            inbound: Door {
                waiting: open,
                places: self.cfg.net.gate.inbound,
                evicted: closed,
                refused: turned,
            },
            games_in_memory: held.in_memory,
            games_asleep: held.asleep,
            games_woken: held.woken,
            games_awake_for: self.core.awake_counts(),
            peer: peer.to_string(),
            addrs,
            met,
            failed: self.failed.clone(),
            reachability: match &self.reach.nat {
                Some(libp2p::autonat::NatStatus::Public(a)) => format!("public {a}"),
                Some(libp2p::autonat::NatStatus::Private) => "private".into(),
                Some(libp2p::autonat::NatStatus::Unknown) | None => "unknown".into(),
            },
            serves: [
                ("mailbox", self.cfg.core.mailbox && !self.cfg.core.witness),
                ("witness", self.cfg.core.witness),
                ("relay", self.cfg.net.relay_server),
                ("referee", self.cfg.core.referee),
            ]
            .into_iter()
            .filter(|(_, on)| *on)
            .map(|(role, _)| role.to_owned())
            .collect(),
        }
    }
}
