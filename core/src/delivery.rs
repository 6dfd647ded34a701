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
//!
//! A mailbox's acknowledgement is enough to settle (the seat may be gone for good), but
//! a mailbox could acknowledge and drop, and a seat with no direct path would never see
//! the end. So a game settled while some seat had not acknowledged this seat's last
//! envelopes itself is *owed* to that seat ([`Debt`], kept in its slot and in the store): they are
//! offered straight to it whenever it is connected, and it is dialled on every tick,
//! until it acknowledges them (or [`OWED_FOR_MS`], 30 days, passes). So a mailbox that
//! acknowledges and drops cannot leave a seat short (attack 8 of `cli/tests/hostile.rs`).

use std::collections::{BTreeMap, BTreeSet};

use sealed_protocol::body::Item;
use sealed_protocol::ids::{ChainId, EnvRef, LogId, Seat};

use super::games::{Played, seat_of};
use super::{Core, Durable, GameId, PeerKey};
use crate::message::{MAX_ITEMS, MAX_SYNC_MESSAGE, Request};
use crate::record::GameStatus;

/// The settings a debt is kept in start with this, then the game id in hex.
pub(super) const OWED_PREFIX: &str = "owed/";

/// How long a seat that never comes back is owed its last envelopes (30 days, in ms).
pub(super) const OWED_FOR_MS: u64 = 30 * 24 * 3600 * 1000;

/// A game settled on a mailbox's word: the seats that still lack this seat's last
/// envelopes, kept in its slot (`slot.rs`) and in the store.
#[derive(Debug, Default)]
pub(super) struct Debt {
    /// Since when.
    since: u64,
    /// To whom.
    peers: BTreeSet<PeerKey>,
    /// Those an offer of it is in flight to.
    offered: BTreeSet<PeerKey>,
}

impl Debt {
    /// The debts the store keeps, per game.
    pub(super) fn load(store: &dyn Durable) -> Vec<(GameId, Debt)> {
        let mut owed = vec![];
        for (key, value) in store.metas(OWED_PREFIX).unwrap_or_default() {
            let Some(game) = key
                .strip_prefix(OWED_PREFIX)
                .and_then(|h| hex::decode(h).ok())
                .and_then(|b| <[u8; 32]>::try_from(b).ok())
                .map(GameId::from)
            else {
                continue;
            };
            let text = String::from_utf8_lossy(&value);
            let mut lines = text.lines();
            let Some(since) = lines
                .next()
                .and_then(|l| l.strip_prefix("sealed-owed 1 "))
                .and_then(|t| t.parse().ok())
            else {
                continue;
            };
            let peers: BTreeSet<PeerKey> = lines
                .take(16)
                .filter_map(|l| hex::decode(l).ok())
                .filter_map(|b| PeerKey::try_from(b).ok())
                .collect();
            if !peers.is_empty() {
                owed.push((
                    game,
                    Debt {
                        since,
                        peers,
                        offered: BTreeSet::new(),
                    },
                ));
            }
        }
        owed
    }

    /// The setting a debt is kept in.
    fn encode(since: u64, peers: &BTreeSet<PeerKey>) -> Vec<u8> {
        let mut s = format!("sealed-owed 1 {since}\n");
        for p in peers {
            s.push_str(&hex::encode(p));
            s.push('\n');
        }
        s.into_bytes()
    }
}

fn owed_key(game: &GameId) -> String {
    format!("{OWED_PREFIX}{}", hex::encode(game))
}

/// Per peer, per chain of this seat, how many envelopes the peer acknowledged holding.
pub(super) type Acked = BTreeMap<PeerKey, BTreeMap<ChainId, u64>>;

/// Whether `by` says `peer` holds every chain of `owed`.
fn holds_all(by: &Acked, peer: &PeerKey, owed: &[(ChainId, u64)]) -> bool {
    let got = by.get(peer);
    owed.iter()
        .all(|(c, n)| got.and_then(|g| g.get(c)).is_some_and(|k| k >= n))
}

/// How far this seat's `owed` envelopes got toward the seat `to`: acknowledged or said
/// held by it, held for it by one of the game's mailboxes (public chains only; the
/// witness, a mailbox of its game too, named as the witness when it is the one that
/// holds them), or not confirmed yet. For a game's line, in memory (`players.rs`) or
/// asleep (`sleep.rs`).
pub(super) fn reached(
    owed: &[(ChainId, u64)],
    to: &PeerKey,
    mailboxes: &[PeerKey],
    witness: Option<&PeerKey>,
    acked: &Acked,
    heard: &Acked,
) -> crate::views::Reached {
    use crate::views::Reached;
    let public = owed.iter().all(|(c, _)| c.log.is_public());
    let holds = |m: &PeerKey| public && holds_all(acked, m, owed);
    if holds_all(acked, to, owed) || holds_all(heard, to, owed) {
        Reached::Seat
    } else if mailboxes.iter().any(|m| Some(m) != witness && holds(m)) {
        Reached::Mailbox
    } else if witness.is_some_and(holds) {
        Reached::Witness
    } else {
        // All this node can say: the peer has not confirmed it since the node started
        // (with the node stopped, it knows nothing of peers at all).
        Reached::NotYet
    }
}

impl Played {
    /// This seat's chains that `peer` should hold, with how many envelopes each has:
    /// those its seat may see (a mailbox: the public ones).
    pub(super) fn owed(&self, seat: Option<Seat>) -> Vec<(ChainId, u64)> {
        let me = self.table.seat();
        self.table
            .session()
            .chain_counts()
            .into_iter()
            .filter(|(c, n)| c.seat == me && *n > 0)
            .filter(|(c, _)| match seat {
                Some(s) => self.table.session().visible(*c, s),
                None => c.log.is_public(),
            })
            .collect()
    }

    /// Whether `peer` acknowledged every chain of `owed`.
    pub(super) fn holds(&self, peer: &PeerKey, owed: &[(ChainId, u64)]) -> bool {
        holds_all(&self.acked, peer, owed)
    }

    /// The peers that still lack this seat's last envelopes, each with the chains it
    /// lacks: every seat they are owed to ([`Played::owed_seats`]), unless one of the
    /// game's mailboxes holds all it may see (it serves them to that seat).
    pub(super) fn undelivered(&self) -> Vec<(PeerKey, Option<Seat>)> {
        let terms = self.table.terms();
        let mailboxes: Vec<PeerKey> = terms.proposal().mailboxes.iter().map(|m| m.key).collect();
        let mut out = vec![];
        for s in self.owed_seats() {
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

    /// The seats they are owed to ([`Played::owed_seats`]) that have not acknowledged
    /// this seat's last envelopes themselves.
    pub(super) fn owed_directly(&self) -> BTreeSet<PeerKey> {
        let terms = self.table.terms();
        self.owed_seats()
            .into_iter()
            .filter_map(|s| {
                let key = terms.key(s)?.to_bytes();
                (!self.holds(&key, &self.owed(Some(s)))).then_some(key)
            })
            .collect()
    }

    /// The other seats this seat's last envelopes are owed to: not a player lost on
    /// time (he walked away), nor a seat that declined the game (there was no game, and
    /// its node may keep nothing of it: a stranger's invitation a node declined is
    /// dropped, `held.rs`, and would never acknowledge them).
    fn owed_seats(&self) -> Vec<Seat> {
        let me = self.table.seat();
        let gone = self.table.session().lost_on_time();
        self.table
            .terms()
            .seats()
            .filter(|s| *s != me && !gone.contains(s) && !self.declined_by(*s))
            .collect()
    }

    /// Whether seat `s` declined the game (its first public envelope says so).
    pub(super) fn declined_by(&self, s: Seat) -> bool {
        let first = EnvRef {
            chain: ChainId::public(s),
            seq: 0,
        };
        self.table
            .session()
            .processed_at(first)
            .is_some_and(|e| e.unsigned().body.contains(&Item::Decline))
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
        for (id, p) in self.games.all_played() {
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

    /// The setting that records a debt for a game that settles now, if some seat has
    /// not acknowledged this seat's last envelopes itself.
    pub(super) fn owe(&mut self, id: GameId) -> Option<(String, Vec<u8>)> {
        let p = self.games.played(&id)?;
        let peers = p.owed_directly();
        if peers.is_empty() {
            return None;
        }
        let value = Debt::encode(self.now, &peers);
        let slot = self.games.slot_mut(&id)?;
        let offered = slot.owed.take().map(|d| d.offered).unwrap_or_default();
        slot.owed = Some(Debt {
            since: self.now,
            peers,
            offered,
        });
        Some((owed_key(&id), value))
    }

    /// Offers the last envelopes of every game owed to a connected peer (only to
    /// `only`, if given), and dials the others (on a tick, when `only` is `None`).
    pub(super) fn offer_owed(&mut self, only: Option<PeerKey>, store: &dyn Durable) {
        let now = self.now;
        let expired: Vec<GameId> = self
            .games
            .slots()
            .filter(|(_, s)| {
                let since = s.owed.as_ref().map(|d| d.since);
                since.is_some_and(|t| t.saturating_add(OWED_FOR_MS) <= now)
            })
            .map(|(g, _)| *g)
            .collect();
        for g in expired {
            if let Some(s) = self.games.slot_mut(&g) {
                s.owed = None;
            }
            self.forget_meta(owed_key(&g));
        }
        let mut dial = BTreeSet::new();
        let mut offers = vec![];
        for (game, slot) in self.games.slots() {
            let Some(debt) = &slot.owed else {
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
            if let Some(debt) = self.games.slot_mut(&game).and_then(|s| s.owed.as_mut()) {
                debt.offered.insert(peer);
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
        let Some(debt) = slot.owed.as_mut() else {
            return;
        };
        debt.offered.remove(&peer);
        if !ok || !debt.peers.remove(&peer) {
            return;
        }
        if debt.peers.is_empty() {
            slot.owed = None;
            self.forget_meta(owed_key(&game));
        } else {
            let value = Debt::encode(debt.since, &debt.peers);
            self.write_meta(owed_key(&game), value);
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
        p.settle();
        if p.settled {
            self.set_status(game, GameStatus::Finished, store);
        }
    }
}

#[cfg(test)]
mod tests {
    use sealed_protocol::ids::{ChainId, LogId, Seat};

    use super::*;
    use crate::views::Reached;

    const BOB: PeerKey = [2; 32];
    const MAILBOX: PeerKey = [3; 32];
    const WITNESS: PeerKey = [4; 32];

    fn holding(peers: &[PeerKey], log: u32) -> Acked {
        let chain = ChainId {
            log: LogId(log),
            seat: Seat(0),
        };
        peers
            .iter()
            .map(|p| (*p, BTreeMap::from([(chain, 3)])))
            .collect()
    }

    /// The line names who holds this seat's envelopes for the other seat: the seat
    /// itself, else a plain mailbox, else the witness as the witness (issue 55 item 4:
    /// a game with a witness said "delivered to the mailbox", naming no mailbox the
    /// players chose), and never a helper for a private chain, which only the seat
    /// may read.
    #[test]
    fn the_witness_is_named_as_the_witness_and_a_mailbox_as_a_mailbox() {
        let public = [(
            ChainId {
                log: LogId::PUBLIC,
                seat: Seat(0),
            },
            3,
        )];
        let both = [MAILBOX, WITNESS];
        let none = Acked::new();
        let at = |acked: &Acked, mailboxes: &[PeerKey], witness: Option<&PeerKey>| {
            reached(&public, &BOB, mailboxes, witness, acked, &none)
        };
        assert_eq!(
            at(&holding(&[WITNESS], 0), &both, Some(&WITNESS)),
            Reached::Witness
        );
        assert_eq!(
            at(&holding(&[WITNESS], 0), &[WITNESS], Some(&WITNESS)),
            Reached::Witness
        );
        assert_eq!(
            at(&holding(&[MAILBOX], 0), &both, Some(&WITNESS)),
            Reached::Mailbox
        );
        assert_eq!(
            at(&holding(&both, 0), &both, Some(&WITNESS)),
            Reached::Mailbox
        );
        assert_eq!(
            at(&holding(&[BOB, WITNESS], 0), &both, Some(&WITNESS)),
            Reached::Seat
        );
        assert_eq!(at(&none, &both, Some(&WITNESS)), Reached::NotYet);
        // A game without a witness: its mailbox, as before.
        assert_eq!(
            at(&holding(&[MAILBOX], 0), &[MAILBOX], None),
            Reached::Mailbox
        );
        // A private chain: no helper holds it for the seat.
        let private = [(
            ChainId {
                log: LogId(1),
                seat: Seat(0),
            },
            3,
        )];
        let acked = holding(&both, 1);
        let r = reached(&private, &BOB, &both, Some(&WITNESS), &acked, &none);
        assert_eq!(r, Reached::NotYet);
    }
}
