//! What this node tells a peer it holds (`Heads`): every unfinished game the peer holds a
//! seat of or is a mailbox of, and every game relayed here that it plays, each with the
//! count of each chain, in requests of at most [`HEADS_PER_REQUEST`] entries. Sent on
//! connect and at every repair round (`peers.rs`, `auto.rs`); the answer is what the peer
//! lacks.

use std::collections::{BTreeMap, BTreeSet};

use sealed_protocol::ids::ChainId;
use sealed_protocol::proposal::Terms;

use super::sync::HEADS_PER_REQUEST;
use super::{Core, GameId, PeerKey};
use crate::message::GameHeads;
use crate::record::GameStatus;

impl Core {
    /// What we hold of every unfinished game `peer` holds a seat of or relays, and of
    /// every game we relay that it plays, in requests of at most [`HEADS_PER_REQUEST`]
    /// entries.
    pub(super) fn heads_for(&self, peer: &PeerKey) -> Vec<Vec<GameHeads>> {
        self.heads_for_each(std::slice::from_ref(peer))
            .remove(peer)
            .unwrap_or_default()
    }

    /// [`Core::heads_for`] of each of `peers`, in one pass over the games: a repair round
    /// asks it of every connected peer, and a pass a peer cost a public node its peers
    /// times its games (1,000 players and 10,000 games: ten million looks a round,
    /// docs/PERFORMANCE.md, *A public node under honest load*).
    pub(super) fn heads_for_each(
        &self,
        peers: &[PeerKey],
    ) -> BTreeMap<PeerKey, Vec<Vec<GameHeads>>> {
        let wanted: BTreeSet<&PeerKey> = peers.iter().collect();
        let mut by_peer: BTreeMap<PeerKey, Vec<GameHeads>> = BTreeMap::new();
        // Each game once to each of its peers asked about, however many parts it has.
        let mut add =
            |id: &GameId, keys: &mut Vec<PeerKey>, heads: &dyn Fn() -> Vec<(ChainId, u64)>| {
                keys.retain(|k| wanted.contains(k));
                keys.sort_unstable();
                keys.dedup();
                if keys.is_empty() {
                    return;
                }
                let heads = heads();
                for k in keys.iter() {
                    by_peer.entry(*k).or_default().push((*id, heads.clone()));
                }
            };
        for (id, p) in self.games.all_played() {
            if p.settled() && p.record().status != GameStatus::Proposed {
                continue;
            }
            let mut keys = game_keys(p.table().session().terms());
            add(id, &mut keys, &|| p.table().session().envelopes().counts());
        }
        for (id, a) in self.games.all_asleep() {
            let mut keys: Vec<PeerKey> = a.readers().collect();
            add(id, &mut keys, &|| a.heads.clone());
        }
        for (id, r) in self.games.all_relayed() {
            let mut keys: Vec<PeerKey> = crate::seats::seat_keys(r.terms()).collect();
            add(id, &mut keys, &|| r.heads());
        }
        by_peer
            .into_iter()
            .map(|(peer, mut games)| {
                // A stable order: the simulation replays from its seed.
                games.sort_by_key(|g| g.0);
                (peer, in_requests(games))
            })
            .collect()
    }
}

/// A game's seats and mailboxes: the peers [`Core::heads_for`] tells of it.
fn game_keys(terms: &Terms) -> Vec<PeerKey> {
    crate::seats::seat_keys(terms)
        .chain(crate::seats::mailbox_keys(terms))
        .collect()
}

/// Games' heads in requests of at most [`HEADS_PER_REQUEST`] entries, in their order.
fn in_requests(games: Vec<GameHeads>) -> Vec<Vec<GameHeads>> {
    let mut out: Vec<Vec<GameHeads>> = vec![];
    let mut items = usize::MAX;
    for g in games {
        let n = g.1.len() + 1;
        if items.saturating_add(n) > HEADS_PER_REQUEST {
            out.push(vec![]);
            items = 0;
        }
        items += n;
        out.last_mut().expect("one pushed").push(g);
    }
    out
}
