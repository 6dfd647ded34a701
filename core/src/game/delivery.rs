//! What a game owes and what reached whom: this seat's last envelopes each other seat
//! still lacks, what peers acknowledged holding of this seat's chains, and the debt a
//! game settled on a mailbox's word keeps in the store until every seat has them. The
//! core's side — offering the debt, settling — is `delivery.rs` above.

use std::collections::BTreeSet;

use sealed_protocol::body::Item;
use sealed_protocol::ids::{ChainId, EnvRef, Seat};

use super::states::{Acked, Played};
use crate::views::{Delivery, SeatDelivery};
use crate::{Durable, GameId, PeerKey};

/// The settings a debt is kept in start with this, then the game id in hex.
pub(crate) const OWED_PREFIX: &str = "owed/";

/// How long a seat that never comes back is owed its last envelopes (30 days, in ms).
pub(crate) const OWED_FOR_MS: u64 = 30 * 24 * 3600 * 1000;

/// A game settled on a mailbox's word: the seats that still lack this seat's last
/// envelopes, kept in its slot (`game/mod.rs`) and in the store.
#[derive(Debug, Default)]
pub(crate) struct Debt {
    /// Since when.
    pub(crate) since: u64,
    /// To whom.
    pub(crate) peers: BTreeSet<PeerKey>,
    /// Those an offer of it is in flight to.
    pub(crate) offered: BTreeSet<PeerKey>,
}

impl Debt {
    /// The debts the store keeps, per game.
    pub(crate) fn load(store: &dyn Durable) -> Vec<(GameId, Debt)> {
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
    pub(crate) fn encode(since: u64, peers: &BTreeSet<PeerKey>) -> Vec<u8> {
        let mut s = format!("sealed-owed 1 {since}\n");
        for p in peers {
            s.push_str(&hex::encode(p));
            s.push('\n');
        }
        s.into_bytes()
    }
}

/// What an answer to an owed offer did to a game's debt.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DebtAnswered {
    /// Nothing changed that the store keeps.
    Unchanged,
    /// Every seat has the envelopes now: the debt is paid.
    Paid,
    /// Seats still lack them: the debt as the store keeps it now.
    Left(Vec<u8>),
}

pub(crate) fn owed_key(game: &GameId) -> String {
    format!("{OWED_PREFIX}{}", hex::encode(game))
}

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
pub(crate) fn reached(
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
    pub(crate) fn owed(&self, seat: Option<Seat>) -> Vec<(ChainId, u64)> {
        let me = self.table.session().seat();
        self.table
            .session()
            .envelopes()
            .counts()
            .into_iter()
            .filter(|(c, n)| c.seat == me && *n > 0)
            .filter(|(c, _)| match seat {
                Some(s) => self.table.session().envelopes().visible(*c, s),
                None => c.log.is_public(),
            })
            .collect()
    }

    /// Whether `peer` acknowledged every chain of `owed`.
    pub(crate) fn holds(&self, peer: &PeerKey, owed: &[(ChainId, u64)]) -> bool {
        holds_all(&self.acked, peer, owed)
    }

    /// The peers that still lack this seat's last envelopes, each with the chains it
    /// lacks: every seat they are owed to ([`Played::owed_seats`]), unless one of the
    /// game's mailboxes holds all it may see (it serves them to that seat).
    pub(crate) fn undelivered(&self) -> Vec<(PeerKey, Option<Seat>)> {
        let terms = self.table.session().terms();
        let mailboxes: Vec<PeerKey> = crate::seats::mailbox_keys(terms).collect();
        let mut out = vec![];
        for s in self.owed_seats() {
            let Some(key) = terms.key(s).map(PeerKey::from) else {
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
    pub(crate) fn owed_directly(&self) -> BTreeSet<PeerKey> {
        let terms = self.table.session().terms();
        self.owed_seats()
            .into_iter()
            .filter_map(|s| {
                let key = PeerKey::from(terms.key(s)?);
                (!self.holds(&key, &self.owed(Some(s)))).then_some(key)
            })
            .collect()
    }

    /// The other seats this seat's last envelopes are owed to: not a player lost on
    /// time (he walked away), nor a seat that declined the game (there was no game, and
    /// its node may keep nothing of it: a stranger's invitation a node declined is
    /// dropped, `held.rs`, and would never acknowledge them).
    fn owed_seats(&self) -> Vec<Seat> {
        let me = self.table.session().seat();
        let gone = self.table.session().lost_on_time();
        self.table
            .session()
            .terms()
            .seats()
            .filter(|s| *s != me && !gone.contains(s) && !self.declined_by(*s))
            .collect()
    }

    /// Whether seat `s` declined the game (its first public envelope says so).
    pub(crate) fn declined_by(&self, s: Seat) -> bool {
        let first = EnvRef {
            chain: ChainId::public(s),
            seq: 0,
        };
        self.table
            .session()
            .envelopes()
            .processed(first)
            .is_some_and(|e| e.unsigned().body.contains(&Item::Decline))
    }

    /// Notes what `peer` acknowledged holding, and whether the game is settled by it.
    pub(crate) fn ack(&mut self, peer: PeerKey, places: &[(ChainId, u64)]) {
        let me = self.table.session().seat();
        let acked = self.acked.entry(peer).or_default();
        for (c, seq) in places.iter().filter(|(c, _)| c.seat == me) {
            let n = acked.entry(*c).or_default();
            *n = (*n).max(seq + 1);
        }
        self.settle();
    }
}

impl Played {
    /// Each seat's name, as [`seat_names`](crate::players::seat_names) gives it for this game's session.
    pub(crate) fn names(&self) -> Vec<Option<String>> {
        let held = self.table.session().envelopes();
        crate::players::seat_names(self.table.session().terms(), |s| {
            held.signed_name(s).map(str::to_owned)
        })
    }

    /// Where this seat's latest messages are, per other seat: acknowledged by it
    /// (durable there) or said held in its repair round, held for it by a mailbox, or
    /// not confirmed yet. `None` before this seat has sent anything, and nothing for a
    /// seat that declined (it is owed nothing, `delivery.rs`).
    pub(crate) fn delivery(&self) -> Option<Delivery> {
        let terms = self.table.session().terms();
        let me = self.table.session().seat();
        let names = self.names();
        let mailboxes: Vec<PeerKey> = crate::seats::mailbox_keys(terms).collect();
        let witness = crate::seats::witness_key(terms);
        let mut parts = vec![];
        for s in terms.seats().filter(|s| *s != me && !self.declined_by(*s)) {
            let owed = self.owed(Some(s));
            let Some(key) = terms.key(s).map(PeerKey::from) else {
                continue;
            };
            if owed.is_empty() {
                continue;
            }
            let to = crate::players::called(terms, &names, s);
            let reached = reached(
                &owed,
                &key,
                &mailboxes,
                witness.as_ref(),
                &self.acked,
                &self.heard,
            );
            parts.push(SeatDelivery { to, reached });
        }
        (!parts.is_empty()).then_some(Delivery(parts))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use sealed_protocol::ids::{ChainId, LogId, Seat};

    use super::*;
    use crate::views::Reached;

    const BOB: PeerKey = PeerKey::from_bytes([2; 32]);
    const MAILBOX: PeerKey = PeerKey::from_bytes([3; 32]);
    const WITNESS: PeerKey = PeerKey::from_bytes([4; 32]);

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
