//! What a stranger may make this node keep. A public mailbox, witness or referee takes
//! games from anyone (that is its job), and a player's node takes invitations from
//! strangers; keys cost nothing, so each stranger has a share, each network a larger
//! one, and all strangers together a total:
//!
//! - games held open at once for one proposer and for all ([`Quotas::open_per_proposer`],
//!   [`Quotas::open_total`]): relayed games not over, refereed games not settled;
//! - what is stored on their behalf **in one day** (UTC), per proposer, per network
//!   (an IPv4 /24 or IPv6 /48, `origin.rs`) and in total: games, envelopes, bytes
//!   ([`Quotas::per_proposer`], [`Quotas::per_network`], [`Quotas::total`]).
//!
//! The stored totals are windows that come back, not totals ever: a stranger who spent
//! everyone's share for today has shut the door until midnight, not for good (the
//! disk itself is given back as held games expire, `held.rs`). The counts per proposer
//! and in total are kept in the store (`store/quota.rs`) with the day they are of, so
//! that a restart forgets nothing of today; those per network are kept in memory only,
//! because the total bounds what a restart could give back.
//!
//! What a game held for someone else stores is charged when this node relays it,
//! referees it, or holds it as an invitation from a stranger not accepted yet (games
//! this node proposed or its player accepted are its own): the game to its proposer, each
//! envelope to the seat that signed it, each deposit to the seat that left it
//! (`witness.rs` `serve_deposit`), so that within a game one seat never spends another's
//! share, and a seat past its share is refused alone (`take.rs` `within_shares`). Only
//! what is stored is charged: fresh envelopes, and one envelope of evidence per position.

use std::collections::HashMap;

use super::game::Games;
use super::seats::{proposer, referees};
use super::{GameId, PeerKey};
use crate::record::Usage;
use crate::refusal::PeerRefusal;

/// The quotas; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quotas {
    /// Stored for one proposer in a day.
    pub per_proposer: Usage,
    /// Stored for the proposers of one network in a day.
    pub per_network: Usage,
    /// Stored for all strangers together in a day.
    pub total: Usage,
    /// Games held open at once for one proposer (relayed or refereed).
    pub open_per_proposer: usize,
    /// Games held open at once for all strangers together.
    pub open_total: usize,
}

impl Default for Quotas {
    fn default() -> Self {
        // A game of any variant is a few hundred envelopes of a few hundred bytes: a
        // proposer's share holds hundreds of games a day, a network's sixteen times
        // that (a university or a carrier-grade NAT has many players), and the total a
        // busy public mailbox's months, which a disk of a few GiB holds. It takes
        // sixteen networks to spend the total, and it comes back the next day.
        Quotas {
            per_proposer: Usage {
                games: 1024,
                envelopes: 262_144,
                bytes: 64 << 20,
            },
            per_network: Usage {
                games: 16_384,
                envelopes: 1 << 20,
                bytes: 256 << 20,
            },
            total: Usage {
                games: 262_144,
                envelopes: 16 << 20,
                bytes: 4 << 30,
            },
            open_per_proposer: 16,
            open_total: 4096,
        }
    }
}

/// The part of everyone's day total kept for networks that stored little, as
/// (denominator, numerator): its last quarter, shared by the networks that stored anything
/// today ([`Ledger::allows`]).
const RESERVE: (u64, u64) = (4, 1);

/// The day (UTC, days since the Unix epoch) of a moment in ms.
pub(super) fn day_of(now_ms: u64) -> u64 {
    now_ms / crate::held::DAY_MS
}

/// What strangers have stored here today, per proposer, per network and in all.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    /// The day the counts are of.
    day: u64,
    by: HashMap<PeerKey, Usage>,
    networks: HashMap<String, Usage>,
    all: Usage,
    /// Whether the store still holds an earlier day's counts: the next charge written
    /// clears them first ([`Ledger::add`]).
    unsaved_day: bool,
}

impl Ledger {
    /// The ledger as the store holds it: counts of `day` (`None` for a store that never
    /// noted one, whose counts are of an earlier day), read at `now`.
    pub(super) fn load(day: Option<u64>, rows: Vec<(PeerKey, Usage)>, now: u64) -> Ledger {
        let today = day_of(now);
        let mut l = Ledger {
            day: today,
            unsaved_day: day != Some(today),
            ..Ledger::default()
        };
        if day == Some(today) {
            for (who, u) in rows {
                l.count(who, None, u);
            }
        }
        l
    }

    /// The counts as of `now`: none of an earlier day.
    fn today(&self, now: u64) -> Option<&Ledger> {
        (day_of(now) == self.day).then_some(self)
    }

    /// Whether `who`, of network `network` (`None`: not known, a friend's relay), may
    /// store `more` at `now`; why not, if not.
    pub(super) fn allows(
        &self,
        q: &Quotas,
        now: u64,
        who: &PeerKey,
        network: Option<&str>,
        more: Usage,
    ) -> Result<(), PeerRefusal> {
        let today = self.today(now);
        let mine = today.map_or_else(Usage::default, |l| l.of(who));
        if !mine.plus(more).within(q.per_proposer) {
            return Err(PeerRefusal::ProposerQuota(q.per_proposer));
        }
        if let Some(n) = network {
            let ours = today
                .and_then(|l| l.networks.get(n).copied())
                .unwrap_or_default();
            if !ours.plus(more).within(q.per_network) {
                return Err(PeerRefusal::NetworkQuota(q.per_network));
            }
        }
        // Everyone's total keeps a reserve shared by network, as everyone's token
        // bucket does (`limit.rs`): the networks that spent the rest cannot spend it for a
        // network that stored little today (issue 53: a player's envelopes in a game whose
        // opponent spent the total from networks of his own are still taken).
        let all = today.map_or_else(Usage::default, |l| l.all).plus(more);
        if all.within(q.total.part(RESERVE.0 - RESERVE.1, RESERVE.0)) {
            return Ok(());
        }
        if all.within(q.total)
            && let Some(n) = network
        {
            let spending = today.map_or(0, |l| {
                l.networks.len() + usize::from(!l.networks.contains_key(n))
            });
            let ours = today
                .and_then(|l| l.networks.get(n).copied())
                .unwrap_or_default();
            let share = q.total.part(RESERVE.1, RESERVE.0 * spending.max(1) as u64);
            if ours.plus(more).within(share) {
                return Ok(());
            }
        }
        Err(PeerRefusal::StrangersQuota)
    }

    /// Notes what `who`, of `network`, stored at `now`. Returns the day to note in the
    /// store, with every earlier count removed, when this is the first charge written
    /// since the day began (`Writes::quota_day`).
    pub(super) fn add(
        &mut self,
        now: u64,
        who: PeerKey,
        network: Option<&str>,
        more: Usage,
    ) -> Option<u64> {
        let today = day_of(now);
        if today != self.day {
            *self = Ledger {
                day: today,
                unsaved_day: true,
                ..Ledger::default()
            };
        }
        self.count(who, network, more);
        std::mem::take(&mut self.unsaved_day).then_some(today)
    }

    fn count(&mut self, who: PeerKey, network: Option<&str>, more: Usage) {
        let e = self.by.entry(who).or_default();
        *e = e.plus(more);
        if let Some(n) = network {
            let e = self.networks.entry(n.to_owned()).or_default();
            *e = e.plus(more);
        }
        self.all = self.all.plus(more);
    }

    /// What `who` has stored on the ledger's day.
    pub(super) fn of(&self, who: &PeerKey) -> Usage {
        self.by.get(who).copied().unwrap_or_default()
    }

    /// What all have, on the ledger's day.
    pub(super) fn all(&self) -> Usage {
        self.all
    }

    /// What `network` stored at `now`'s day.
    pub(super) fn of_network(&self, now: u64, network: &str) -> Usage {
        self.today(now)
            .and_then(|l| l.networks.get(network).copied())
            .unwrap_or_default()
    }

    /// The networks that stored anything at `now`'s day.
    pub(super) fn networks(&self, now: u64) -> impl Iterator<Item = &str> {
        self.today(now)
            .into_iter()
            .flat_map(|l| l.networks.keys().map(String::as_str))
    }
}

impl Games {
    /// The proposer a known game's storage is charged to, if this node holds it for
    /// someone else (see the module documentation); `friend` says who is not a stranger.
    pub(super) fn charged_to(
        &self,
        id: &GameId,
        me: &PeerKey,
        friend: impl Fn(&PeerKey) -> bool,
    ) -> Option<PeerKey> {
        if let Some(r) = self.relayed(id) {
            return proposer(r.terms()).filter(|p| !friend(p));
        }
        let p = self.played(id)?;
        let terms = p.table().session().terms();
        let who = proposer(terms)?;
        if who == *me {
            return None;
        }
        if referees(terms, me) || (!p.taken_up() && !friend(&who)) {
            return Some(who);
        }
        None
    }
}

/// Why a game may not be opened for `who` now, if it may not: his share of games open
/// here (`mine`), and what he stored. The total open for all is [`crate::held::room`]'s
/// to decide: when full, the network holding most yields.
pub(super) fn may_open(
    q: &Quotas,
    ledger: &Ledger,
    now: u64,
    mine: usize,
    who: &PeerKey,
    network: Option<&str>,
) -> Result<(), PeerRefusal> {
    if mine >= q.open_per_proposer {
        return Err(PeerRefusal::OpenForProposer(mine));
    }
    ledger.allows(
        q,
        now,
        who,
        network,
        Usage {
            games: 1,
            ..Usage::default()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: u64 = crate::held::DAY_MS;

    fn small() -> Quotas {
        Quotas {
            per_proposer: Usage {
                games: 2,
                envelopes: 10,
                bytes: 1000,
            },
            per_network: Usage {
                games: 3,
                envelopes: 12,
                bytes: 1200,
            },
            // Three quarters of it are anyone's: 4 games, 15 envelopes, 1500 bytes.
            total: Usage {
                games: 6,
                envelopes: 20,
                bytes: 2000,
            },
            open_per_proposer: 1,
            open_total: 2,
        }
    }

    const GAME: Usage = Usage {
        games: 1,
        envelopes: 0,
        bytes: 0,
    };

    fn env(n: u64) -> Usage {
        Usage {
            games: 0,
            envelopes: n,
            bytes: n * 100,
        }
    }

    #[test]
    fn a_proposer_a_network_and_all_strangers_have_their_shares() {
        let q = small();
        let now = 3 * DAY + 5;
        let mut l = Ledger::load(Some(3), vec![], now);
        let (a, b, c, d) = (
            PeerKey::from_bytes([1; 32]),
            PeerKey::from_bytes([2; 32]),
            PeerKey::from_bytes([3; 32]),
            PeerKey::from_bytes([4; 32]),
        );
        let (n1, n2) = (Some("ip4/10.0.0/24"), Some("ip4/10.0.1/24"));
        assert!(may_open(&q, &l, now, 0, &a, n1).is_ok());
        assert!(
            may_open(&q, &l, now, 1, &a, n1).is_err(),
            "one open game each"
        );
        l.add(now, a, n1, GAME);
        l.add(now, a, n1, GAME);
        assert!(may_open(&q, &l, now, 0, &a, n1).is_err(), "two games a day");
        l.add(now, b, n1, GAME);
        assert_eq!(
            may_open(&q, &l, now, 0, &c, n1),
            Err(PeerRefusal::NetworkQuota(q.per_network)),
            "three games a day from one network, whatever the keys"
        );
        assert!(may_open(&q, &l, now, 0, &c, n2).is_ok());
        l.add(now, c, n2, GAME);
        assert_eq!(
            may_open(&q, &l, now, 0, &d, Some("ip4/10.0.2/24")),
            Err(PeerRefusal::StrangersQuota),
            "four games a day in all, and a third network's share of the reserve is none"
        );
        assert!(l.allows(&q, now, &c, n2, env(10)).is_ok());
        assert!(l.allows(&q, now, &c, n2, env(11)).is_err());
        l.add(now, c, n2, env(10));
        assert!(
            l.allows(&q, now, &d, None, env(6)).is_err(),
            "fifteen envelopes in all"
        );
        assert_eq!(
            l.of(&c),
            Usage {
                games: 1,
                envelopes: 10,
                bytes: 1000
            }
        );
        assert_eq!(l.all().games, 4);
    }

    #[test]
    fn networks_that_spent_the_total_leave_the_reserve_to_a_network_that_stored_little() {
        let q = Quotas {
            per_network: Usage {
                games: 1000,
                envelopes: 1000,
                bytes: 1 << 20,
            },
            per_proposer: Usage {
                games: 1000,
                envelopes: 1000,
                bytes: 1 << 20,
            },
            total: Usage {
                games: 1000,
                envelopes: 1000,
                bytes: 4000,
            },
            ..small()
        };
        let now = 3 * DAY;
        let mut l = Ledger::load(Some(3), vec![], now);
        let bytes = |n| Usage {
            games: 0,
            envelopes: 1,
            bytes: n,
        };
        // Three networks of one attacker store three quarters of the day's total.
        for (i, n) in ["ip4/10.0.1/24", "ip4/10.0.2/24", "ip4/10.0.3/24"]
            .into_iter()
            .enumerate()
        {
            l.add(
                now,
                PeerKey::from_bytes([i as u8; 32]),
                Some(n),
                bytes(1000),
            );
        }
        assert_eq!(
            l.allows(
                &q,
                now,
                &PeerKey::from_bytes([0; 32]),
                Some("ip4/10.0.1/24"),
                bytes(1)
            ),
            Err(PeerRefusal::StrangersQuota),
            "a network that stored its share of the reserve and more is refused there"
        );
        assert_eq!(
            l.allows(&q, now, &PeerKey::from_bytes([9; 32]), None, bytes(1)),
            Err(PeerRefusal::StrangersQuota),
            "what has no network has no share of the reserve"
        );
        // A fourth network's share: the reserve (1000) over four networks.
        let clean = Some("ip4/10.9.9/24");
        assert!(
            l.allows(&q, now, &PeerKey::from_bytes([9; 32]), clean, bytes(250))
                .is_ok()
        );
        assert!(
            l.allows(&q, now, &PeerKey::from_bytes([9; 32]), clean, bytes(251))
                .is_err()
        );
        l.add(now, PeerKey::from_bytes([9; 32]), clean, bytes(200));
        assert!(
            l.allows(&q, now, &PeerKey::from_bytes([9; 32]), clean, bytes(50))
                .is_ok(),
            "it stores up to its share"
        );
        assert!(
            l.allows(&q, now, &PeerKey::from_bytes([9; 32]), clean, bytes(51))
                .is_err()
        );
        // The total is the hard bound: no network passes it.
        l.add(
            now,
            PeerKey::from_bytes([8; 32]),
            Some("ip4/10.8.8/24"),
            bytes(800),
        );
        assert_eq!(
            l.allows(
                &q,
                now,
                &PeerKey::from_bytes([7; 32]),
                Some("ip4/10.7.7/24"),
                bytes(1)
            ),
            Err(PeerRefusal::StrangersQuota)
        );
    }

    #[test]
    fn the_shares_come_back_the_next_day_and_the_store_is_told_once() {
        let q = small();
        let now = 7 * DAY + 1;
        let mut l = Ledger::load(Some(7), vec![], now);
        let a = PeerKey::from_bytes([1; 32]);
        let n = Some("ip4/10.0.0/24");
        assert_eq!(
            l.add(now, a, n, GAME),
            None,
            "the store holds today's counts"
        );
        l.add(now, a, n, GAME);
        assert!(may_open(&q, &l, now, 0, &a, n).is_err());
        let tomorrow = 8 * DAY;
        assert!(
            may_open(&q, &l, tomorrow, 0, &a, n).is_ok(),
            "yesterday's counts do not refuse today"
        );
        assert_eq!(
            l.add(tomorrow, a, n, GAME),
            Some(8),
            "the first charge of a day clears the store's"
        );
        assert_eq!(l.add(tomorrow + 1, a, n, env(1)), None);
        assert_eq!(
            l.of(&a),
            Usage {
                games: 1,
                envelopes: 1,
                bytes: 100
            }
        );
    }

    #[test]
    fn a_restart_keeps_today_and_forgets_an_earlier_day() {
        let a = PeerKey::from_bytes([1; 32]);
        let used = Usage {
            games: 2,
            envelopes: 3,
            bytes: 4,
        };
        let now = 9 * DAY + 10;
        let mut same = Ledger::load(Some(9), vec![(a, used)], now);
        assert_eq!(same.of(&a), used);
        assert_eq!(same.all(), used);
        assert_eq!(same.add(now, a, None, GAME), None);
        let mut later = Ledger::load(Some(8), vec![(a, used)], now);
        assert_eq!(later.all(), Usage::default());
        assert_eq!(
            later.add(now, a, None, GAME),
            Some(9),
            "the store's old day is cleared"
        );
        let mut never = Ledger::load(None, vec![(a, used)], now);
        assert_eq!(
            never.of(&a),
            Usage::default(),
            "counts of a store before days are of no day"
        );
        assert_eq!(never.add(now, a, None, GAME), Some(9));
    }
}
