//! The world's chaos: after an event, a crash at the boundary where a node stands, a
//! full disk or a partition; and the check, on every message delivered, that no seat
//! takes a private envelope before its game is over in its view (spec/PROTOCOL.md §16.4).

use sealed_core::message::{Request, Response};

use super::*;

impl World {
    /// After an event at node `i`: perhaps a crash there (both players, now and then),
    /// a full disk, or a partition.
    pub(super) fn chaos_after(&mut self, i: usize) {
        if !self.chaos {
            return;
        }
        if self.chance(self.faults.crash) {
            if self.players.contains(&i) && self.chance(self.faults.both) {
                self.tally.both_at_once += 1;
                for p in self.players.clone() {
                    self.crash(p);
                }
            } else {
                self.crash(i);
            }
        }
        if self.chance(self.faults.full) {
            self.tally.disk_full += 1;
            self.nodes[i].store.full = true;
            let t = self.now + self.between((100, MAX_OUTAGE));
            self.at(t, Ev::DiskOk { node: i });
        }
        if self.chance(self.faults.partition) {
            let j = self.rng.below(self.nodes.len() as u32) as usize;
            if j != i {
                self.tally.partitions += 1;
                self.cut.insert(pair(i, j));
                self.disconnect(i, j);
                let t = self.now + self.between((100, MAX_OUTAGE));
                self.at(t, Ev::Heal { a: i, b: j });
            }
        }
    }

    pub(super) fn disconnect(&mut self, a: usize, b: usize) {
        if self.connected.remove(&pair(a, b)) {
            let (ka, kb) = (self.key(a), self.key(b));
            self.input(a, Input::Disconnected { peer: kb });
            self.input(b, Input::Disconnected { peer: ka });
        }
    }

    /// Crashes node `i` where it stands: its core is gone, what its store had not
    /// committed is lost, and it comes back within [`MAX_OUTAGE`].
    pub fn crash(&mut self, i: usize) {
        if !self.up(i) {
            return;
        }
        let n = &self.nodes[i];
        let point = if n.core.as_ref().is_some_and(|c| c.writes_in_flight() >= 2) {
            CrashPoint::ManyGames
        } else if !n.jobs.is_empty() {
            CrashPoint::WriteBegun
        } else if n.committed > 0 {
            CrashPoint::CommittedNotSent
        } else {
            CrashPoint::Idle
        };
        *self.tally.crashes.entry(point).or_default() += 1;
        let n = &mut self.nodes[i];
        n.core = None;
        // The process that comes back opens the file anew (redb's latch is per open).
        n.store.reopen();
        n.jobs.clear();
        n.committed = 0;
        n.inbound.clear();
        n.outbound.clear();
        n.due = None;
        n.life += 1;
        for j in 0..self.nodes.len() {
            if j != i && self.connected.remove(&pair(i, j)) {
                let k = self.key(i);
                self.input(j, Input::Disconnected { peer: k });
            }
        }
        let t = self.now + self.between((10, MAX_OUTAGE));
        self.at(t, Ev::Restart { node: i });
    }

    /// §16.4: a private log's envelope is taken by a seat outside its audience (its
    /// table or its store hold it) only once the game is over in that seat's view, and
    /// never by a mailbox.
    pub(super) fn check_seen(
        &mut self,
        to: usize,
        carried: &[(sealed_core::GameId, sealed_protocol::ids::ChainId)],
    ) {
        for (game, chain) in carried {
            if chain.log.is_public() {
                continue;
            }
            let stored = self.nodes[to]
                .store
                .all_envelopes(game)
                .iter()
                .filter_map(|b| sealed_protocol::envelope::Envelope::decode(b, *game).ok())
                .any(|e| e.unsigned.at().chain == *chain);
            let Some(core) = self.nodes[to].core.as_ref() else {
                return;
            };
            match core.sees(game, *chain) {
                Some(false) if stored || core.holds(game, *chain) => self.violations.push(format!(
                    "{} took {chain:?} of game {} before the game was over in its view",
                    self.nodes[to].name,
                    hex::encode(&game.bytes()[..4])
                )),
                None if self.nodes[to].cfg.mailbox && stored => self.violations.push(format!(
                    "the mailbox {} stored a private envelope",
                    self.nodes[to].name
                )),
                _ => {}
            }
        }
    }
}

/// The (game, chain) of every envelope a request carries.
pub(super) fn carried(req: &Request) -> Vec<(sealed_core::GameId, sealed_protocol::ids::ChainId)> {
    match req {
        Request::Push { game, envelopes } => chains(*game, envelopes),
        Request::Offer {
            proposal,
            envelopes,
        } => {
            let Ok(terms) = sealed_protocol::proposal::Terms::parse(proposal) else {
                return vec![];
            };
            chains(terms.game(), envelopes)
        }
        Request::PushMany { games } => games.iter().flat_map(|(g, e)| chains(*g, e)).collect(),
        _ => vec![],
    }
}

/// The (game, chain) of every envelope an answer carries; `pulled`: the game of the
/// pull it answers.
pub(super) fn carried_resp(
    resp: &Response,
    pulled: Option<sealed_core::GameId>,
) -> Vec<(sealed_core::GameId, sealed_protocol::ids::ChainId)> {
    match resp {
        Response::Envelopes(e) => pulled.map_or_else(Vec::new, |g| chains(g, e)),
        Response::Behind { envelopes, .. } => {
            envelopes.iter().flat_map(|(g, e)| chains(*g, e)).collect()
        }
        _ => vec![],
    }
}

fn chains(
    game: sealed_core::GameId,
    envs: &[Vec<u8>],
) -> Vec<(sealed_core::GameId, sealed_protocol::ids::ChainId)> {
    envs.iter()
        .filter_map(|b| {
            let e = sealed_protocol::envelope::Envelope::decode(b, game).ok()?;
            Some((game, e.unsigned.at().chain))
        })
        .collect()
}
