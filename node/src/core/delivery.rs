//! Delivery of a finished game's last envelopes. The last envelope of a game (a seat's
//! second close) is acknowledged by nobody, so a seat whose game is over in its own
//! view cannot tell from the game whether its peers hold it; if it stopped there, a peer
//! that lost the push (or reaches it only through a mailbox) would wait for ever. So a
//! game is settled only once every other seat — or, for public chains, one of its
//! mailboxes — has answered an `Offer` carrying the last envelope of each of this seat's
//! chains: an answer that is sent only once what it carried is durable at the peer
//! (spec/PROTOCOL.md §11.2). Until then the game stays in memory, is not marked finished
//! in the store, and every tick offers those envelopes again to the peers that lack
//! them, dialling them as for any unfinished game.

use std::collections::BTreeMap;

use sealed_protocol::ids::{ChainId, LogId, Seat};

use super::games::Played;
use super::{Core, Durable, GameId, PeerKey};
use crate::store::GameStatus;
use crate::sync::Request;

/// Per peer, per chain of this seat, how many envelopes the peer acknowledged holding.
pub(super) type Acked = BTreeMap<PeerKey, BTreeMap<ChainId, u64>>;

impl Played {
    /// This seat's chains that `peer` should hold, with how many envelopes each has:
    /// those its seat may see (a mailbox: the public ones).
    pub(super) fn owed(&self, seat: Option<Seat>) -> Vec<(ChainId, u64)> {
        let me = self.table.seat();
        self.table
            .chain_counts()
            .into_iter()
            .filter(|(c, n)| c.seat == me && *n > 0)
            .filter(|(c, _)| match seat {
                Some(s) => self.table.visible(*c, s),
                None => c.log.is_public(),
            })
            .collect()
    }

    /// Whether `peer` acknowledged every chain of `owed`.
    pub(super) fn holds(&self, peer: &PeerKey, owed: &[(ChainId, u64)]) -> bool {
        let acked = self.acked.get(peer);
        owed.iter()
            .all(|(c, n)| acked.and_then(|a| a.get(c)).is_some_and(|k| k >= n))
    }

    /// The peers that still lack this seat's last envelopes, each with the chains it
    /// lacks: every other seat but a player lost on time, unless one of the game's
    /// mailboxes holds all it may see (it serves them to that seat).
    pub(super) fn undelivered(&self) -> Vec<(PeerKey, Option<Seat>)> {
        let terms = self.table.terms();
        let me = self.table.seat();
        let mailboxes: Vec<PeerKey> = terms.proposal().mailboxes.iter().map(|m| m.key).collect();
        // A player lost on time is owed nothing more: he walked away.
        let gone = self.table.lost_on_time();
        let mut out = vec![];
        for s in terms.seats().filter(|s| *s != me && !gone.contains(s)) {
            let Some(key) = terms.key(s).map(|k| k.to_bytes()) else {
                continue;
            };
            let owed = self.owed(Some(s));
            if self.holds(&key, &owed) {
                continue;
            }
            // What a mailbox may carry (public chains), held by a mailbox, leaves only
            // the private chains to deliver directly.
            let public: Vec<(ChainId, u64)> = owed
                .iter()
                .filter(|(c, _)| c.log.is_public())
                .copied()
                .collect();
            let private: Vec<(ChainId, u64)> = owed
                .iter()
                .filter(|(c, _)| !c.log.is_public())
                .copied()
                .collect();
            let relayed = mailboxes.iter().any(|m| self.holds(m, &public));
            if relayed && self.holds(&key, &private) {
                continue;
            }
            out.push((key, Some(s)));
            if !relayed {
                out.extend(mailboxes.iter().map(|m| (*m, None)));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Notes what `peer` acknowledged holding.
    pub(super) fn ack(&mut self, peer: PeerKey, places: &[(ChainId, u64)]) {
        let me = self.table.seat();
        let acked = self.acked.entry(peer).or_default();
        for (c, seq) in places.iter().filter(|(c, _)| c.seat == me) {
            let n = acked.entry(*c).or_default();
            *n = (*n).max(seq + 1);
        }
    }
}

impl Core {
    /// Offers every game over in this seat's view whose last envelopes some peer has not
    /// acknowledged, to each such peer: read from the store (only what is durable leaves).
    pub(super) fn deliver_finals(&mut self, store: &dyn Durable) {
        let mut offers = vec![];
        for (id, p) in &self.games.played {
            if !p.table.is_done() || p.settled {
                continue;
            }
            for (peer, seat) in p.undelivered() {
                let owed: BTreeMap<ChainId, u64> = p.owed(seat).into_iter().collect();
                let Ok(envelopes) = store.chain_envelopes(id, &mut |log, s| {
                    let c = ChainId {
                        log: LogId(log),
                        seat: Seat(s),
                    };
                    owed.get(&c).map(|n| n - 1)
                }) else {
                    continue;
                };
                if !envelopes.is_empty() {
                    offers.push((peer, p.table.terms().bytes().to_vec(), envelopes));
                }
            }
        }
        for (peer, proposal, envelopes) in offers {
            self.request(
                peer,
                Request::Offer {
                    proposal,
                    envelopes,
                },
            );
        }
    }

    /// An offer's answer said it is durable at `peer`: what it carried is acknowledged,
    /// and a game that is now settled is marked finished in the store.
    pub(super) fn acknowledged(
        &mut self,
        peer: PeerKey,
        game: GameId,
        places: &[(ChainId, u64)],
        store: &dyn Durable,
    ) {
        let Some(p) = self.games.played.get_mut(&game) else {
            return;
        };
        p.ack(peer, places);
        p.settle();
        if p.settled {
            self.set_status(game, GameStatus::Finished, store);
        }
    }
}
