//! The core's side of `held.rs`: counting the games held for strangers by their owners,
//! making room by eviction, and dropping (or, at a player, declining) what expired or was
//! evicted, on the repair round. What the rules are, and why, is in `held.rs`.

use sealed_protocol::session::Command as SessionCommand;

use super::held::{
    self, Counted, Crowd, GONE, Gone, HeldRow, Holder, RENEW_WRITE_MS, Room, Tombstone,
};
use super::io::Writes;
use super::quota::may_open;
use super::{Core, Durable, GameId, PeerKey};
use std::collections::{BTreeSet, HashMap};

use crate::record::{GameStatus, Usage};
use crate::refusal::PeerRefusal;
use crate::views::{NetworkView, STRANGERS_SHOWN};

/// How often the repair round looks for games whose lifetime ran out, at most (a lifetime
/// shorter than ten of these is looked at ten times in it).
const EXPIRY_EVERY_MS: u64 = 60_000;

/// Distinct reasons [`Core::note_refused`] counts; later ones are counted as "other".
const REASONS: usize = 64;

impl Core {
    /// Counts a refusal by its reason, numbers read as `N` (for `sealed peers`).
    pub(super) fn note_refused(&mut self, words: &str) {
        let mut reason = String::new();
        for c in words.chars().take(160) {
            if !c.is_ascii_digit() {
                reason.push(c);
            } else if !reason.ends_with('N') {
                reason.push('N');
            }
        }
        let reason = if self.refused.len() >= REASONS && !self.refused.contains_key(&reason) {
            "other".to_owned()
        } else {
            reason
        };
        *self.refused.entry(reason).or_default() += 1;
    }

    /// What strangers hold here by network, those holding most first (`sealed peers`).
    pub(super) fn strangers_view(&self) -> Vec<NetworkView> {
        // The same sum a proposal is weighed against.
        let open: HashMap<String, usize> = self.with_crowd(|c| {
            c.networks()
                .map(|(n, count)| (if n.is_empty() { "unknown" } else { n }.to_owned(), count))
                .collect()
        });
        let mut networks: BTreeSet<&str> = open.keys().map(String::as_str).collect();
        networks.extend(self.ledger.networks(self.now));
        let mut all: Vec<NetworkView> = networks
            .into_iter()
            .map(|n| NetworkView {
                network: n.to_owned(),
                open: open.get(n).copied().unwrap_or(0),
                today: self.ledger.of_network(self.now, n),
            })
            .collect();
        all.sort_by(|a, b| {
            (b.open, b.today.bytes, &a.network).cmp(&(a.open, a.today.bytes, &b.network))
        });
        all.truncate(STRANGERS_SHOWN);
        all
    }

    /// The network a game held here came from, as its charges are counted
    /// (`quota.rs`): `None` for a game with no known origin.
    pub(super) fn network_of(&self, id: &GameId) -> Option<String> {
        let holder = match (self.games.relayed(id), self.games.asleep(id)) {
            (Some(r), _) => r.holder(),
            (None, Some(a)) => a.held.as_ref()?.holder.as_ref(),
            (None, None) => self.games.played(id)?.holder(),
        };
        holder.map(|h| h.group.clone())
    }

    /// The network what `peer` brings to a game held for a stranger is charged to in the
    /// day's quotas: the peer's own, where its connection comes from, so that a seat
    /// spends its own network's share and never that of the network the game came from
    /// (issue 53: an opponent who proposed the game from his network, and spent its
    /// share with other games, does not stop this seat's envelopes); the game's when the
    /// peer's is not known (a command, mail).
    pub(super) fn network_for(&self, peer: &PeerKey, game: &GameId) -> Option<String> {
        self.origin_of(peer)
            .map(|o| o.group())
            .or_else(|| self.network_of(game))
    }

    /// Charges `used` to `who`, of `network`, in the ledger and in `writes` (which
    /// start the ledger's day anew in the store when it is the day's first charge).
    pub(super) fn charge_to(
        &mut self,
        writes: &mut Writes,
        who: PeerKey,
        network: Option<&str>,
        used: Usage,
    ) {
        if let Some(day) = self.ledger.add(self.now, who, network, used) {
            writes.quota_day = Some(day);
        }
        writes.charges.push((who, used));
    }
}

/// The write that drops a game held here for a stranger, for `why`, leaving its
/// tombstone (with the seat's decline, at a player).
fn dropped(id: GameId, why: Gone, at: u64, declined: Vec<Vec<u8>>) -> Writes {
    Writes {
        drop_games: vec![id],
        forget_under: settings_of(&id),
        meta: vec![(
            held::tombstone_key(&id),
            Tombstone { why, at, declined }.encode(),
        )],
        ..Writes::default()
    }
}

/// Settings of a game, by prefix: removed with it when it is dropped.
fn settings_of(id: &GameId) -> Vec<String> {
    let hex = hex::encode(id);
    [
        super::game::witnessed::RECEIPT_PREFIX,
        "stamp/",
        "deposit/",
        "deposits/",
        super::listed::RESULT_PREFIX,
        super::listed::LISTED_PREFIX,
        "ruling/",
        super::game::delivery::OWED_PREFIX,
        "held/",
    ]
    .iter()
    .map(|p| format!("{p}{hex}"))
    .collect()
}

impl Core {
    /// The store's row of a held game's owner, taken now.
    pub(super) fn held_row(&self, id: &GameId, h: &Holder) -> (String, Vec<u8>) {
        let row = HeldRow {
            holder: h.clone(),
            renewed: self.now,
        };
        (held::row_key(id), row.encode())
    }

    /// Why a game of `id` dropped here lately is not taken anew, if it was.
    pub(super) fn tombstone(&self, id: &GameId, store: &dyn Durable) -> Option<Gone> {
        self.standing_tombstone(id, store).map(|t| t.why)
    }

    /// The decline a dropped invitation's tombstone keeps, while it stands (`held.rs`):
    /// empty if none.
    pub(super) fn kept_decline(&self, id: &GameId, store: &dyn Durable) -> Vec<Vec<u8>> {
        self.standing_tombstone(id, store)
            .map(|t| t.declined)
            .unwrap_or_default()
    }

    /// A dropped game's tombstone, while it stands.
    fn standing_tombstone(&self, id: &GameId, store: &dyn Durable) -> Option<Tombstone> {
        let bytes = store.meta(&held::tombstone_key(id)).ok()??;
        Tombstone::decode(&bytes).filter(|t| t.until() > self.now)
    }

    /// The games a mailbox, witness or referee holds open for strangers, as
    /// [`held::room`] counts them, one by one with their terms: relayed games in memory
    /// and refereed games not settled (a game with a write under way is not evicted: its
    /// write is in flight). One pass over the slots with no lookup per game; whether a
    /// game may be evicted is read only when `evictable` is asked (it reads the game's
    /// chains), else it is `false`.
    fn each_open_held<'a>(
        &'a self,
        evictable: bool,
        mut f: impl FnMut(Counted<'a>, Option<PeerKey>),
    ) {
        let me = self.key();
        for (id, slot) in self.games.slots() {
            let idle = slot.idle();
            match slot.life() {
                super::game::Life::Relayed(r) => f(
                    Counted {
                        id: *id,
                        holder: r.holder(),
                        taken: r.created(),
                        evictable: evictable && idle && !r.accepted(),
                    },
                    super::seats::proposer(r.terms()),
                ),
                super::game::Life::Played(p)
                    if !p.settled() && super::seats::referees(p.table().session().terms(), &me) =>
                {
                    f(
                        Counted {
                            id: *id,
                            holder: p.holder(),
                            taken: p.record().created,
                            evictable: evictable && idle && !refereed_accepted(p),
                        },
                        super::seats::proposer(p.table().session().terms()),
                    )
                }
                // A refereed game asleep is one nobody else joined (`sleep.rs`).
                super::game::Life::Asleep(a) => {
                    if let Some(h) = &a.held {
                        f(
                            Counted {
                                id: *id,
                                holder: h.holder.as_ref(),
                                taken: h.taken,
                                evictable: evictable && idle,
                            },
                            h.proposer,
                        )
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether a game may be held for `proposer`, who came from `holder`: within his
    /// share of open games and of the ledger, and with room in all (`held.rs`).
    pub(super) fn may_hold(
        &self,
        proposer: &PeerKey,
        holder: Option<&Holder>,
    ) -> Result<Room, PeerRefusal> {
        let group = holder.map_or("", |h| h.group.as_str());
        let (mine, room) = self.with_crowd(|c| {
            let mine = c.by_proposer.get(proposer).copied().unwrap_or(0);
            (mine, c.room(self.cfg.quotas.open_total, group))
        });
        may_open(
            &self.cfg.quotas,
            &self.ledger,
            self.now,
            mine,
            proposer,
            holder.map(|h| h.group.as_str()),
        )?;
        match room {
            Room::Full => Err(PeerRefusal::OpenForAll),
            room => Ok(room),
        }
    }

    /// `f` of the games held open for strangers summed up ([`Crowd`], kept while no slot
    /// changes: `game/mod.rs` `Games::kept_sum`).
    fn with_crowd<T>(&self, f: impl FnOnce(&Crowd) -> T) -> T {
        let sum = || {
            let mut held = vec![];
            self.each_open_held(false, |c, proposer| held.push((c, proposer)));
            // Who would yield matters only once the node is full.
            if held.len() >= self.cfg.quotas.open_total {
                held.clear();
                self.each_open_held(true, |c, proposer| held.push((c, proposer)));
            }
            Crowd::of(held)
        };
        self.games.kept_sum(&self.games.crowd, sum, f)
    }

    /// Makes room: a mailbox's, witness's or referee's game is dropped, a player's
    /// invitation declined.
    pub(super) fn evict(&mut self, victim: GameId, store: &dyn Durable) {
        tracing::info!(game = %hex::encode(victim), "evicted: a newcomer from a smaller network takes its place");
        self.let_go_of(victim, Gone::Evicted, store);
    }

    /// Drops a game held for a stranger (a mailbox's, witness's or referee's) or
    /// declines an invitation (a player's), for `why`.
    fn let_go_of(&mut self, id: GameId, why: Gone, store: &dyn Durable) {
        let invitation = self.games.played(&id).is_some_and(|p| {
            p.record().status == GameStatus::Invited
                && !super::seats::referees(p.table().session().terms(), &self.key())
        });
        if invitation {
            self.decline_and_drop(id, why, store);
            return;
        }
        // A game the bots accepted for a stranger is resigned, not dropped: it is this
        // seat's game (`hosted.rs`).
        if self.hosted(&id) {
            let _ = self.resign_hosted(id, store);
            return;
        }
        self.games.forget(&id);
        self.write_writes(dropped(id, why, self.now, vec![]));
    }

    /// Declines a stranger's invitation as the player would, and drops it in the write
    /// that makes the decline durable: its tombstone keeps the decline, which goes to
    /// the proposer (and the game's mailboxes) once durable, and again when they ask
    /// (`held.rs`). The caller saw its write queue idle.
    fn decline_and_drop(&mut self, id: GameId, why: Gone, store: &dyn Durable) {
        let now = self.now;
        let mut step = match self.command_step(id, SessionCommand::Decline) {
            Ok(step) => step,
            Err(e) => {
                // Nothing signed: dropped as a mailbox drops a game.
                tracing::warn!(game = %hex::encode(id), "an invitation not declined ({e}): dropped");
                self.games.forget(&id);
                self.write_writes(dropped(id, why, now, vec![]));
                return;
            }
        };
        // Not an open invitation any more, for the counts, while the write is in flight.
        if let Some(p) = self.games.played_mut(&id) {
            p.decline_invitation();
        }
        let declined: Vec<Vec<u8>> = step
            .writes
            .envelopes
            .drain(..)
            .filter(|(g, _)| *g == id)
            .map(|(_, e)| e)
            .collect();
        // The game's own writes go with it: only the tombstone and the ledger stay.
        let charges = std::mem::take(&mut step.writes.charges);
        let quota_day = step.writes.quota_day.take();
        step.writes = Writes {
            charges,
            quota_day,
            ..dropped(id, why, now, declined)
        };
        step.then_forget = true;
        self.stage(id, step, store);
    }

    /// When a game held here for a stranger expires, if it does (`held.rs`).
    pub(super) fn expires_at(&self, id: &GameId) -> Option<u64> {
        let me = self.key();
        let lifetime = &self.cfg.lifetime;
        if let Some(r) = self.games.relayed(id) {
            super::seats::proposer(r.terms()).filter(|p| !self.peers.book.is_friend(p))?;
            return Some(lifetime.expires(r.terms(), r.accepted() || r.over(), r.renewed()));
        }
        // Nothing renews a game asleep: anything that would wakes it first.
        if let Some(a) = self.games.asleep(id) {
            return a.held.as_ref()?.expires;
        }
        let p = self.games.played(id)?;
        let terms = p.table().session().terms();
        let proposer = super::seats::proposer(terms)?;
        if proposer == me || self.vouched(&proposer) {
            return None;
        }
        if super::seats::referees(terms, &me) && !p.settled() {
            return Some(lifetime.expires(terms, refereed_accepted(p), p.used()));
        }
        if self.hosted(id) {
            return Some(lifetime.expires(terms, true, p.used()));
        }
        (p.record().status == GameStatus::Invited)
            .then(|| lifetime.expires(terms, false, p.record().created))
    }

    /// On the repair round, at most once a minute: every game held for a stranger whose
    /// lifetime ran out is dropped (or declined), and old tombstones go.
    pub(super) fn expire_held(&mut self, store: &dyn Durable) {
        if self.now < self.next_expiry {
            return;
        }
        let every = EXPIRY_EVERY_MS.min(self.cfg.lifetime.open_ms / 10).max(1);
        self.next_expiry = self.now.saturating_add(every);
        let due: Vec<GameId> = self
            .games
            .slots()
            .filter(|(_, s)| s.idle())
            .filter_map(|(id, _)| {
                self.expires_at(id)
                    .filter(|at| *at <= self.now)
                    .map(|_| *id)
            })
            .collect();
        for id in due {
            tracing::info!(game = %hex::encode(id), "expired: held for a stranger past its lifetime");
            self.let_go_of(id, Gone::Expired, store);
        }
        // Tombstones past their time, once a day.
        let day = self.now / held::DAY_MS;
        if self.tombstones_swept != Some(day) {
            self.tombstones_swept = Some(day);
            let old: Vec<String> = store
                .metas(GONE)
                .unwrap_or_default()
                .into_iter()
                .filter(|(_, v)| Tombstone::decode(v).is_none_or(|t| t.until() <= self.now))
                .map(|(k, _)| k)
                .collect();
            if !old.is_empty() {
                self.write_writes(Writes {
                    forget: old,
                    ..Writes::default()
                });
            }
        }
    }

    /// A relayed game's envelope arrived: its lifetime starts again, and the store
    /// learns it with the envelope's write when what it holds is an hour old.
    pub(super) fn renew(&mut self, id: &GameId, writes: &mut Writes) {
        let now = self.now;
        let Some(r) = self.games.relayed_mut(id) else {
            return;
        };
        if let Some(h) = r.renew(now, RENEW_WRITE_MS) {
            let row = HeldRow {
                holder: h.clone(),
                renewed: now,
            };
            writes.meta.push((held::row_key(id), row.encode()));
        }
    }

    /// What the store says of a held game's owner, read when the game is rebuilt.
    pub(super) fn held_of(&self, id: &GameId, store: &dyn Durable) -> Option<HeldRow> {
        store
            .meta(&held::row_key(id))
            .ok()
            .flatten()
            .and_then(|b| HeldRow::decode(&b))
    }
}

/// Whether a seat other than the proposer and the referee (this node) has posted to a
/// refereed game: the opponent accepted or declined it.
pub(super) fn refereed_accepted(p: &super::game::Played) -> bool {
    let terms = p.table().session().terms();
    let proposer = terms.proposal().proposer;
    let me = p.table().session().seat();
    p.table()
        .session()
        .envelopes()
        .counts()
        .iter()
        .any(|(c, n)| *n > 0 && c.seat != proposer && c.seat != me)
}

/// Whether this node has signed into its own chain of the game: for a referee, its
/// acceptance, the one choice it makes before another player joins.
pub(super) fn signed_here(p: &super::game::Played) -> bool {
    let me = p.table().session().seat();
    p.table()
        .session()
        .envelopes()
        .counts()
        .iter()
        .any(|(c, n)| *n > 0 && c.seat == me)
}
