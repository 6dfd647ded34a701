//! Games held for strangers: whose each is, how long it lives, and who yields when
//! the node is full (issue 52). Keys are free and addresses are not, so a game held for
//! someone else — relayed at a mailbox or witness, refereed, or an invitation waiting at
//! a player — is owned by the origin it came from (`origin.rs`: its address key, and the
//! network it is in, [`Origin::group`]), recorded when it is taken and kept in the store
//! beside it (a `held/<game>` setting), so that after a restart it is counted where it
//! was. The per-key bounds stay (`quota.rs`, `peers.rs` `may_invite`); what changes is
//! the total:
//!
//! - **When full, the group holding most yields** ([`room`]), as Bitcoin Core evicts
//!   inbound peers by network group: a game from a group holding fewer games than the
//!   group holding most takes the place of the oldest game of that group's address
//!   holding most, among games nobody accepted (an accepted game is never evicted; a
//!   largest group holding only accepted games refuses the newcomer). No fixed cap per
//!   network: a university behind one /24 has the whole node while nobody else wants it,
//!   and fresh keys from a few networks can no longer fill a public mailbox for good.
//!   A mailbox, witness or referee drops the game it evicts (its bytes leave the store,
//!   `Writes::drop_games`); a player declines the invitation it evicts, so its
//!   proposer learns it as from a person's refusal, and drops it in the write that
//!   keeps the decline (below). A friend's game is neither counted nor evicted.
//! - **A lifetime** ([`Lifetime`], announced in `sealed peers --json` as `held`): a game
//!   nobody accepted lives [`Lifetime::open_ms`] (7 days) after it was taken or its last
//!   envelope; an accepted one as long as its time terms let one wait last, plus
//!   [`Lifetime::grace_ms`] (7 days) for a forfeit to be claimed and dated by the
//!   witness, or [`Lifetime::idle_ms`] (30 days) with no envelope when it has no time
//!   terms. Any envelope renews a game. (A relayed game over goes dormant, in the store
//!   only, after 5 idle minutes, `sleep.rs`, and is not expired: it keeps no renewal
//!   time there. Its bytes stay, as they did before lifetimes.)
//!   An expired game at a mailbox, witness or referee is dropped with its bytes and
//!   leaves a tombstone (`gone/<game>`, kept [`TOMBSTONE_MS`]) so that the same
//!   proposal offered again is refused as expired, not taken anew; at a player a
//!   stranger's invitation that expired is declined. A friend's invitation never
//!   expires unasked.
//! - **A declined invitation is not kept.** A stranger's invitation a player's node
//!   declines (evicted or expired) is dropped in the same write that makes the decline
//!   durable, and its tombstone keeps the signed decline for [`DECLINE_KEPT_MS`]: the
//!   node pushes it to the proposer (and the game's mailboxes) once it is durable, and
//!   again whenever one of them offers or asks for the game, so a proposer who was away
//!   still learns it, signed. Nothing else of the game stays — no table in memory, no
//!   line in `sealed games`, no chains in the store — so a flood of fresh keys costs a
//!   player a tombstone of about 200 bytes an invitation, for a week, within the day's
//!   quota of games (`quota.rs`), where it cost a whole game in memory and in the store
//!   for good. An invitation the person declines is his game, and stays.
//!
//! Why these times: a person who does not answer an invitation for a week is not going
//! to, and a week keeps the slots of never-started games from being held long; a
//! correspondence game paced by days keeps its mailbox for as long as its terms let a
//! player think, and one with no pace for a month of silence, which no game that is
//! still being played reaches.

use sealed_protocol::proposal::Terms;
use serde::{Deserialize, Serialize};

use std::collections::{BTreeMap, HashMap};

use super::{GameId, PeerKey};
use crate::origin::{Origin, group_of};

/// Where a game held for a stranger came from: its owner, as the budgets count it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// The address key (`ip4/<address>`, `ip6/<first 64 bits>`, `relay/<id>`, …).
    pub key: String,
    /// Its network ([`Origin::group`]).
    pub group: String,
}

/// Longest address key a peer may say a proposal came from (`Request::OfferFrom`).
pub const MAX_ORIGIN: usize = 128;

/// How long a tombstone of a dropped game is kept: a re-proposal of it within this is
/// refused as expired or evicted; after it, it would be taken (and charged) anew.
pub const TOMBSTONE_MS: u64 = 30 * DAY_MS;

/// A day, in ms.
pub const DAY_MS: u64 = 86_400_000;

impl Holder {
    /// The owner of what comes from `o`.
    pub fn of(o: &Origin) -> Holder {
        Holder {
            key: o.key.clone(),
            group: o.group(),
        }
    }

    /// The owner of what a mailbox says came from `key` (`Request::OfferFrom`): its
    /// group is read here, not taken from the mailbox. `None` for an empty or too long
    /// key.
    pub fn said(key: &str) -> Option<Holder> {
        (!key.is_empty() && key.len() <= MAX_ORIGIN).then(|| Holder {
            key: key.to_owned(),
            group: group_of(key),
        })
    }
}

/// What the store keeps of a game held for a stranger, beside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct HeldRow {
    /// Its owner.
    pub(super) holder: Holder,
    /// When it was taken or last renewed by an envelope (ms since the Unix epoch),
    /// written again at most every [`RENEW_WRITE_MS`].
    pub(super) renewed: u64,
}

/// How stale the stored renewal of a game may be: an envelope rewrites it only when
/// the stored one is older (the write goes with the envelope's, no fsync of its own).
pub(super) const RENEW_WRITE_MS: u64 = 3_600_000;

/// The store key of a held game's row.
pub(super) fn row_key(id: &GameId) -> String {
    format!("held/{}", hex::encode(id))
}

/// The store key of a dropped game's tombstone.
pub(super) fn tombstone_key(id: &GameId) -> String {
    format!("{GONE}{}", hex::encode(id))
}

/// The prefix of tombstones.
pub(super) const GONE: &str = "gone/";

impl HeldRow {
    pub(super) fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    pub(super) fn decode(bytes: &[u8]) -> Option<HeldRow> {
        postcard::from_bytes(bytes).ok()
    }
}

/// Why a game was dropped, as its tombstone keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Gone {
    /// Its lifetime ran out.
    Expired,
    /// A newcomer from a smaller network took its place.
    Evicted,
}

/// A tombstone: why and when, and at a player what the seat signed in declining the
/// invitation it stands for (its decline, served to the proposer and the game's
/// mailboxes when they ask for the game again: `take.rs`, `sync.rs` `behind`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Tombstone {
    pub(super) why: Gone,
    pub(super) at: u64,
    /// The seat's envelopes that declined it (at a player; empty elsewhere).
    pub(super) declined: Vec<Vec<u8>>,
}

/// How long a tombstone that keeps a declined invitation's decline is kept: as long as
/// an invitation waits unanswered ([`Lifetime::open_ms`]'s default), so that a proposer
/// away for that long still gets the signed decline; not [`TOMBSTONE_MS`], because it
/// is a few hundred bytes and a stranger's flood may leave a day's quota of them.
pub const DECLINE_KEPT_MS: u64 = 7 * DAY_MS;

/// Most envelopes a tombstone keeps of a decline (one, in every session today).
const MAX_DECLINED: usize = 4;

impl Tombstone {
    /// `(why, at)` in postcard, then, when the seat declined, the envelopes that did
    /// (a tombstone of before them is the first part alone, and still reads).
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut bytes = postcard::to_allocvec(&(self.why, self.at)).unwrap_or_default();
        if !self.declined.is_empty() {
            bytes.extend(postcard::to_allocvec(&self.declined).unwrap_or_default());
        }
        bytes
    }

    pub(super) fn decode(bytes: &[u8]) -> Option<Tombstone> {
        let ((why, at), rest) = postcard::take_from_bytes::<(Gone, u64)>(bytes).ok()?;
        let declined: Vec<Vec<u8>> = if rest.is_empty() {
            vec![]
        } else {
            postcard::from_bytes(rest).ok()?
        };
        (declined.len() <= MAX_DECLINED).then_some(Tombstone { why, at, declined })
    }

    /// Until when it stands.
    pub(super) fn until(&self) -> u64 {
        let keep = if self.declined.is_empty() {
            TOMBSTONE_MS
        } else {
            DECLINE_KEPT_MS
        };
        self.at.saturating_add(keep)
    }
}

/// How long a game held for a stranger lives with nothing new in it (see the module
/// documentation); the node announces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lifetime {
    /// A game nobody accepted.
    pub open_ms: u64,
    /// An accepted game without time terms, and a relayed game over.
    pub idle_ms: u64,
    /// Beyond what an accepted game's time terms let one wait last.
    pub grace_ms: u64,
}

impl Default for Lifetime {
    fn default() -> Self {
        Lifetime {
            open_ms: 7 * DAY_MS,
            idle_ms: 30 * DAY_MS,
            grace_ms: 7 * DAY_MS,
        }
    }
}

impl Lifetime {
    /// When a game renewed at `renewed` expires: `accepted` says whether a seat other
    /// than the proposer has accepted it (or it is over).
    pub fn expires(&self, terms: &Terms, accepted: bool, renewed: u64) -> u64 {
        if !accepted {
            return renewed.saturating_add(self.open_ms);
        }
        let wait = match crate::clock::TimeControl::of(terms.proposal()) {
            Ok(Some(tc)) => match tc.pace {
                crate::clock::Pace::PerMove(ms) => ms.saturating_add(tc.leave_ms),
                // A player ahead of the pace may wait longer than one period: two
                // periods, and the leave, are what the terms let a player who kept to
                // the pace wait.
                crate::clock::Pace::Period { period_ms, .. } => {
                    period_ms.saturating_mul(2).saturating_add(tc.leave_ms)
                }
            }
            .saturating_add(self.grace_ms),
            _ => self.idle_ms,
        };
        renewed.saturating_add(wait)
    }
}

/// A game counted against the total held for strangers, as [`room`] sees it.
#[derive(Clone, Debug)]
pub struct Counted<'a> {
    /// The game.
    pub id: GameId,
    /// Its owner (`None`: not known, counted as one group of its own).
    pub holder: Option<&'a Holder>,
    /// When it was taken, for "oldest".
    pub taken: u64,
    /// Nobody accepted it: it may be evicted.
    pub evictable: bool,
}

/// Whether a newcomer has room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Room {
    /// Below the total.
    Free,
    /// At the total: this game yields its place.
    Evict(GameId),
    /// At the total, and the newcomer's group holds as many as the largest, or the
    /// largest holds only accepted games.
    Full,
}

/// Whether a game from `group` may be taken with `held` counted against `limit`, and
/// whose place it takes (see the module documentation).
pub fn room(held: &[Counted<'_>], limit: usize, group: &str) -> Room {
    if held.len() < limit {
        return Room::Free;
    }
    Crowd::of(held.iter().map(|c| (c.clone(), None))).room(limit, group)
}

/// What [`room`] reads of the games held, summed up in one pass so that it can be kept
/// while the games do not change: a full node is asked at every stranger's proposal,
/// and a pass over thousands of games each time was most of what a flood of proposals
/// cost it (issue 52).
#[derive(Clone, Debug, Default)]
pub struct Crowd {
    /// Games counted.
    pub total: usize,
    /// Games counted per proposer.
    pub by_proposer: HashMap<PeerKey, usize>,
    /// Games per network (`""`: not known).
    groups: HashMap<String, usize>,
    /// Games per address key (`""`: not known).
    by_key: HashMap<String, usize>,
    /// The network holding most and how many; of equals, the first in order (any fixed
    /// order will do).
    largest: Option<(String, usize)>,
    /// The game that yields first: of the largest network's games nobody accepted, the
    /// oldest of its address holding most.
    victim: Option<GameId>,
}

impl Crowd {
    /// The sum of `held`, each with its proposer if known.
    pub fn of<'a>(held: impl IntoIterator<Item = (Counted<'a>, Option<PeerKey>)>) -> Crowd {
        let held: Vec<(Counted<'a>, Option<PeerKey>)> = held.into_iter().collect();
        let group_of = |c: &Counted<'a>| -> &'a str { c.holder.map_or("", |h| h.group.as_str()) };
        let mut crowd = Crowd {
            total: held.len(),
            ..Crowd::default()
        };
        let mut groups: BTreeMap<&str, usize> = BTreeMap::new();
        for (c, proposer) in &held {
            *groups.entry(group_of(c)).or_default() += 1;
            *crowd
                .by_key
                .entry(c.holder.map_or("", |h| h.key.as_str()).to_owned())
                .or_default() += 1;
            if let Some(p) = proposer {
                *crowd.by_proposer.entry(*p).or_default() += 1;
            }
        }
        let largest = groups
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(g, n)| (*g, *n));
        crowd.groups = groups.iter().map(|(g, n)| ((*g).to_owned(), *n)).collect();
        let Some((largest, most)) = largest else {
            return crowd;
        };
        crowd.largest = Some((largest.to_owned(), most));
        // Of the largest group's games nobody accepted, the address holding most, and its
        // oldest game.
        let victims: Vec<&Counted> = held
            .iter()
            .map(|(c, _)| c)
            .filter(|c| c.evictable && group_of(c) == largest)
            .collect();
        let mut by_key: BTreeMap<&str, usize> = BTreeMap::new();
        for c in &victims {
            *by_key
                .entry(c.holder.map_or("", |h| h.key.as_str()))
                .or_default() += 1;
        }
        let key = by_key
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(k, _)| *k);
        crowd.victim = key.and_then(|key| {
            victims
                .iter()
                .filter(|c| c.holder.map_or("", |h| h.key.as_str()) == key)
                .min_by_key(|c| (c.taken, c.id))
                .map(|c| c.id)
        });
        crowd
    }

    /// Games from the address `key`.
    pub fn of_key(&self, key: &str) -> usize {
        self.by_key.get(key).copied().unwrap_or(0)
    }

    /// Games per network, `""` for those whose network is not known.
    pub fn networks(&self) -> impl Iterator<Item = (&str, usize)> {
        self.groups.iter().map(|(g, n)| (g.as_str(), *n))
    }

    /// [`room`] for a game from `group`.
    pub fn room(&self, limit: usize, group: &str) -> Room {
        if self.total < limit {
            return Room::Free;
        }
        let Some((_, most)) = &self.largest else {
            return Room::Full;
        };
        if self.groups.get(group).copied().unwrap_or(0) >= *most {
            return Room::Full;
        }
        self.victim.map_or(Room::Full, Room::Evict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sealed_protocol::hash::Hash;

    fn id(n: u8) -> GameId {
        GameId(Hash([n; 32]))
    }

    /// A duel's terms with these options.
    fn terms(options: &[(&str, &str)]) -> Terms {
        use sealed_games::table::{self, Invitees};
        use sealed_protocol::keys::SecretKey;
        let options: Vec<(String, String)> = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let signed = table::propose(
            "duel",
            &options,
            &SecretKey::from_seed(&[1; 32]),
            Invitees {
                opponent: SecretKey::from_seed(&[2; 32]).public().to_bytes(),
                referee: None,
                mailboxes: vec![],
                witness: None,
                names: ["alice".into(), "bob".into()],
            },
            1_000,
            [7; 32],
        )
        .unwrap();
        Terms::from_signed(signed).unwrap()
    }

    fn h(key: &str) -> Holder {
        Holder {
            key: key.into(),
            group: group_of(key),
        }
    }

    #[test]
    fn below_the_total_there_is_room() {
        let a = h("ip4/1.1.1.1");
        let held = vec![Counted {
            id: id(1),
            holder: Some(&a),
            taken: 0,
            evictable: true,
        }];
        assert_eq!(room(&held, 2, "ip4/1.1.1/24"), Room::Free);
    }

    #[test]
    fn the_largest_group_yields_its_busiest_address_oldest_game() {
        let (a1, a2, b) = (h("ip4/1.1.1.1"), h("ip4/1.1.1.2"), h("ip4/2.2.2.2"));
        // Group 1.1.1/24 holds 3 (two from .1, one from .2), 2.2.2/24 holds 1.
        let held = vec![
            Counted {
                id: id(1),
                holder: Some(&a2),
                taken: 1,
                evictable: true,
            },
            Counted {
                id: id(2),
                holder: Some(&a1),
                taken: 5,
                evictable: true,
            },
            Counted {
                id: id(3),
                holder: Some(&a1),
                taken: 3,
                evictable: true,
            },
            Counted {
                id: id(4),
                holder: Some(&b),
                taken: 0,
                evictable: true,
            },
        ];
        // A newcomer from a clean network takes the place of .1's oldest game.
        assert_eq!(room(&held, 4, "ip4/9.9.9/24"), Room::Evict(id(3)));
        // So does one from the smaller group.
        assert_eq!(room(&held, 4, "ip4/2.2.2/24"), Room::Evict(id(3)));
        // The largest group itself gets no room.
        assert_eq!(room(&held, 4, "ip4/1.1.1/24"), Room::Full);
    }

    #[test]
    fn an_accepted_game_is_never_evicted() {
        let (a, b) = (h("ip4/1.1.1.1"), h("ip4/2.2.2.2"));
        let held = vec![
            Counted {
                id: id(1),
                holder: Some(&a),
                taken: 0,
                evictable: false,
            },
            Counted {
                id: id(2),
                holder: Some(&a),
                taken: 1,
                evictable: false,
            },
            Counted {
                id: id(3),
                holder: Some(&b),
                taken: 2,
                evictable: true,
            },
        ];
        // The largest group holds only accepted games: the newcomer is refused, and
        // the smaller group's game is not touched.
        assert_eq!(room(&held, 3, "ip4/9.9.9/24"), Room::Full);
        let held = vec![
            Counted {
                id: id(1),
                holder: Some(&a),
                taken: 0,
                evictable: false,
            },
            Counted {
                id: id(2),
                holder: Some(&a),
                taken: 1,
                evictable: true,
            },
            Counted {
                id: id(3),
                holder: Some(&b),
                taken: 2,
                evictable: true,
            },
        ];
        assert_eq!(room(&held, 3, "ip4/9.9.9/24"), Room::Evict(id(2)));
    }

    #[test]
    fn equal_groups_do_not_evict_each_other() {
        let (a, b) = (h("ip4/1.1.1.1"), h("ip4/2.2.2.2"));
        let held = vec![
            Counted {
                id: id(1),
                holder: Some(&a),
                taken: 0,
                evictable: true,
            },
            Counted {
                id: id(2),
                holder: Some(&b),
                taken: 1,
                evictable: true,
            },
        ];
        // A group holding one more than the newcomer's own, no fewer: no churn between
        // two equal groups.
        assert_eq!(room(&held, 2, "ip4/2.2.2/24"), Room::Full);
        assert_eq!(room(&held, 2, "ip4/9.9.9/24"), Room::Evict(id(1)));
    }

    #[test]
    fn a_game_lives_by_whether_it_was_accepted_and_its_terms() {
        let l = Lifetime::default();
        let plain = terms(&[]);
        assert_eq!(l.expires(&plain, false, 1000), 1000 + 7 * DAY_MS);
        assert_eq!(l.expires(&plain, true, 1000), 1000 + 30 * DAY_MS);
        let timed = terms(&[("time-per-move", "1d"), ("time-leave", "2d")]);
        assert_eq!(l.expires(&timed, true, 1000), 1000 + (1 + 2 + 7) * DAY_MS);
        assert_eq!(l.expires(&timed, false, 1000), 1000 + 7 * DAY_MS);
    }

    #[test]
    fn rows_and_tombstones_read_back() {
        let r = HeldRow {
            holder: h("ip6/2a01:4f8:1:2"),
            renewed: 77,
        };
        assert_eq!(HeldRow::decode(&r.encode()), Some(r));
        let t = Tombstone {
            why: Gone::Expired,
            at: 5,
            declined: vec![],
        };
        assert_eq!(Tombstone::decode(&t.encode()), Some(t.clone()));
        // A tombstone of before declines were kept is `(why, at)` alone, as postcard
        // wrote the struct of two fields then: it still reads.
        assert_eq!(t.encode(), [0, 5]);
        assert_eq!(t.until(), 5 + TOMBSTONE_MS);
        let d = Tombstone {
            why: Gone::Evicted,
            at: 9,
            declined: vec![vec![1, 2, 3]],
        };
        assert_eq!(Tombstone::decode(&d.encode()), Some(d.clone()));
        assert_eq!(d.until(), 9 + DECLINE_KEPT_MS);
        // Bytes past the envelopes, or too many envelopes, do not read.
        let many = Tombstone {
            declined: vec![vec![]; MAX_DECLINED + 1],
            ..d
        };
        assert_eq!(Tombstone::decode(&many.encode()), None);
        assert_eq!(HeldRow::decode(b"\xff\xff"), None);
        assert!(Holder::said("").is_none());
        assert!(Holder::said(&"x".repeat(MAX_ORIGIN + 1)).is_none());
        assert_eq!(Holder::said("ip4/1.2.3.4").unwrap().group, "ip4/1.2.3/24");
    }
}
