//! Delivery of a finished game's last envelopes. The last envelope of a game (a seat's
//! second close) is acknowledged by nobody, so a seat whose game is over in its own
//! view cannot tell from the game whether its peers hold it; if it stopped there, a peer
//! that lost the push (or reaches it only through a mailbox) would wait for ever. So a
//! game is settled only once every other seat — or, for public chains, one of its
//! mailboxes — has answered an `Offer` carrying the last envelope of each of this seat's
//! chains: an answer that is sent only once what it carried is durable at the peer
//! (spec/PROTOCOL.md §11.2). Until then the game stays in memory, is not marked finished
//! in the store, and every repair round offers those envelopes again to the peers that lack
//! them, dialling them as for any unfinished game.
//!
//! A mailbox's acknowledgement is enough to settle (the seat may be gone for good), but a
//! mailbox could acknowledge and drop, and a seat with no direct path would never see the
//! end. So a game settled while some seat had not acknowledged this seat's last envelopes
//! itself is *owed* to that seat ([`Debt`], kept in its slot and in the store): they are
//! offered straight to it whenever it is connected, and it is dialled on every repair
//! round, until it acknowledges them (or [`OWED_FOR_MS`], 30 days, passes). So a mailbox
//! that acknowledges and drops cannot leave a seat short (attack 8 of
//! `cli/tests/hostile.rs`).

use std::collections::{BTreeMap, BTreeSet};

use sealed_protocol::ids::{ChainId, LogId, Seat};

use super::game::delivery::{DebtAnswered, owed_key};
use super::seats::seat_of;
use super::{Core, Durable, GameId, PeerKey};
use crate::message::{MAX_ITEMS, MAX_SYNC_MESSAGE, Request};
use crate::record::GameStatus;

impl Core {
    /// Offers every game over in this seat's view whose last envelopes some peer has not
    /// acknowledged, to each such peer: read from the store (only what is durable leaves).
    pub(super) fn deliver_finals(&mut self, store: &dyn Durable) {
        let mut offers = vec![];
        for (id, p) in self.games.all_played() {
            if !p.table().session().phase().is_done() || p.settled() {
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
                    offers.push((
                        peer,
                        p.table().session().terms().bytes().to_vec(),
                        envelopes,
                    ));
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

    /// The setting that records a debt for a game that settles now, if some seat has
    /// not acknowledged this seat's last envelopes itself.
    pub(super) fn owe(&mut self, id: GameId) -> Option<(String, Vec<u8>)> {
        let p = self.games.played(&id)?;
        let peers = p.owed_directly();
        if peers.is_empty() {
            return None;
        }
        let now = self.now;
        let value = self.games.slot_mut(&id)?.owe(now, peers);
        Some((owed_key(&id), value))
    }

    /// Offers the last envelopes of every game owed to a connected peer (only to
    /// `only`, if given), and dials the others (on a repair round, when `only` is `None`).
    pub(super) fn offer_owed(&mut self, only: Option<PeerKey>, store: &dyn Durable) {
        let now = self.now;
        let expired: Vec<GameId> = self
            .games
            .slots()
            .filter(|(_, s)| s.debt_expired(now))
            .map(|(g, _)| *g)
            .collect();
        for g in expired {
            if let Some(s) = self.games.slot_mut(&g) {
                s.forget_debt();
            }
            self.forget_meta(owed_key(&g));
        }
        let mut dial = BTreeSet::new();
        let mut offers = vec![];
        for (game, slot) in self.games.slots() {
            let Some(debt) = slot.debt() else {
                continue;
            };
            for peer in &debt.peers {
                if only.is_some_and(|o| o != *peer) {
                    continue;
                }
                if !self.peers.connected.contains(peer) {
                    dial.insert(*peer);
                } else if !debt.offered.contains(peer) {
                    offers.push((*game, *peer));
                }
            }
        }
        for (game, peer) in offers {
            let Some(terms) = self.games.terms(&game).cloned() else {
                continue;
            };
            let me = self.key();
            // This seat's chains: the other seat may see them all, the game being over.
            let (Some(mine), Some(_)) = (seat_of(&terms, &me), seat_of(&terms, &peer)) else {
                continue;
            };
            let Ok(mut envelopes) =
                store.chain_envelopes(&game, &mut |_, s| (s == mine.0).then_some(0))
            else {
                continue;
            };
            // The last ones are the debt: past the caps, the first go.
            let mut bytes = 0;
            let keep = envelopes
                .iter()
                .rev()
                .take(MAX_ITEMS / 2)
                .take_while(|e| {
                    bytes += e.len();
                    bytes <= MAX_SYNC_MESSAGE / 2
                })
                .count();
            envelopes.drain(..envelopes.len() - keep);
            if envelopes.is_empty() {
                continue;
            }
            if let Some(s) = self.games.slot_mut(&game) {
                s.debt_offered(peer);
            }
            self.request(
                peer,
                Request::Offer {
                    proposal: terms.bytes().to_vec(),
                    envelopes,
                },
            );
        }
        if only.is_none() {
            for peer in dial {
                self.dial(peer);
            }
        }
    }

    /// An owed offer was answered (`ok`: durable at `peer`) or failed.
    pub(super) fn owed_answered(&mut self, peer: PeerKey, game: GameId, ok: bool) {
        let Some(slot) = self.games.slot_mut(&game) else {
            return;
        };
        match slot.debt_answered(peer, ok) {
            DebtAnswered::Unchanged => {}
            DebtAnswered::Paid => self.forget_meta(owed_key(&game)),
            DebtAnswered::Left(value) => self.write_meta(owed_key(&game), value),
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
        if let Some(a) = self.games.asleep_mut(&game) {
            // Not done, so not settled by it: only its line says it (`sleep.rs`).
            return a.acked(peer, places);
        }
        let Some(p) = self.games.played_mut(&game) else {
            return;
        };
        p.ack(peer, places);
        if p.settled() {
            self.set_status(game, GameStatus::Finished, store);
        }
    }
}
