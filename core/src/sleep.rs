//! Games that leave memory while nothing happens in them: a finished game idle for
//! `idle_unload_ms` goes dormant (`unload_idle`; `durable.rs` `wake` loads it again),
//! and an unfinished one sleeps (issue 34's idle memory): a game waiting for a person,
//! or for an opponent who is away, needs none of its table until something arrives.
//! After [`CoreConfig::sleep_ms`] with nothing done in it, such a game is put to sleep
//! ([`Asleep`]): its table goes, and the slot keeps
//! only what the core reads of every game on every tick without anything having
//! changed — its line for `sealed games`, the peers to keep reaching, the heads to send
//! them and which of its chains the other seat may see. Those do not change while it
//! sleeps: anything that would change them wakes it first (`rouse`): an envelope, offer
//! or ruling of it from the other seat or a mailbox of it (never an outsider's: a wake
//! replays the game, and is charged by its size, `sync.rs` `cost`), a command or mail
//! that names it, the bots turned on while it is this seat's turn, a peer of it that
//! does not know it.
//!
//! So only a game the ticks have nothing to do for sleeps (`sleepy`): two seats and no
//! referee, no witness and no time control (their clocks, stamps and asks run every
//! tick), no duty due now or later, no bot to move, no write under way, nothing owed,
//! no evidence, no ruling kept. What the other seat and the mailboxes confirm holding
//! while it sleeps updates its line's delivery, as it would the table's (`said`,
//! `acked`); their repair rounds get what they lack from the store, by what the other
//! seat may see (`sync.rs` `served`). A woken game is rebuilt from the store exactly as
//! at a restart (`durable.rs` `restore_game`), which the simulation crashes at every
//! step; this seat signs nothing in it while it sleeps, and nothing of it is being
//! written when it goes, so its table and the store agree.
//!
//! [`CoreConfig::sleep_ms`]: super::CoreConfig::sleep_ms

use sealed_protocol::ids::{ChainId, Seat};

use super::delivery::Acked;
use super::games::{Dormant, Played};
use super::slot::Life;
use super::views::{GameState, GameSummary};
use super::{Core, Durable, GameId, NodeError, PeerKey, Writes};
use crate::clock::TimeControl;
use crate::record::GameStatus;

/// An unfinished game out of memory, its table in the store only.
pub(super) struct Asleep {
    /// Its line for `sealed games`, as it was when it fell asleep.
    pub(super) summary: GameSummary,
    /// The other seat: its key and seat.
    pub(super) other: (PeerKey, Seat),
    /// The game's mailboxes.
    pub(super) mailboxes: Vec<PeerKey>,
    /// What this seat holds of each chain (its heads).
    pub(super) heads: Vec<(ChainId, u64)>,
    /// The chains the other seat may see now.
    pub(super) seen_by_other: Vec<ChainId>,
    /// This seat's chains the other seat should hold, with their counts (`delivery.rs`
    /// `Played::owed`): what its line's delivery is measured against while it sleeps.
    owed: Vec<(ChainId, u64)>,
    /// What peers acknowledged and said they hold, given back to the table when it
    /// wakes (`games.rs` `Played::acked`, `Played::heard`).
    acked: Acked,
    heard: Acked,
}

/// Games in memory and out of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    /// Played or relayed, in memory.
    pub in_memory: usize,
    /// Unfinished and asleep.
    pub asleep: usize,
    /// Woken since the core started.
    pub woken: u64,
}

/// Why a game stays in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Awake {
    /// Not a game this node plays (relayed, finished, set aside).
    NotPlayed,
    /// Used less than `sleep_ms` ago.
    Used,
    /// Not under way: an invitation, a proposal not accepted, a game done.
    NotUnderway,
    /// A write of it under way, an export waiting, its last envelopes owed.
    Writing,
    /// A bot has to look at it, or to move.
    Bot,
    /// Evidence of a fault held, or a ruling kept.
    Evidence,
    /// More than two seats, a referee, a witness or a time control: the ticks look at
    /// its clocks, stamps and asks.
    Watched,
    /// A duty due now or later.
    Duty,
    /// Hosted for a stranger by the bots: counted and its lifetime watched
    /// (`hosted.rs`).
    Hosted,
}

impl Asleep {
    /// Whether `peer` is the other seat (`Some` of it) or a mailbox (`Some(None)`).
    pub(super) fn reader(&self, peer: &PeerKey) -> Option<Option<Seat>> {
        if *peer == self.other.0 {
            Some(Some(self.other.1))
        } else if self.mailboxes.contains(peer) {
            Some(None)
        } else {
            None
        }
    }

    /// Whether `audience` may see `chain` now: this seat's view, which does not change
    /// while the game sleeps.
    pub(super) fn visible(&self, chain: ChainId, audience: Seat) -> bool {
        if audience == self.other.1 {
            self.seen_by_other.contains(&chain)
        } else {
            // This seat itself.
            self.heads.iter().any(|(c, _)| *c == chain)
        }
    }

    /// Notes what `peer` says it holds of each chain (its `Heads`): the line's delivery
    /// follows, as the table's would.
    pub(super) fn said(&mut self, peer: PeerKey, have: &[(ChainId, u64)]) {
        let heard = self.heard.entry(peer).or_default();
        for (c, n) in have {
            if self.heads.iter().any(|(h, _)| h == c) {
                let k = heard.entry(*c).or_default();
                *k = (*k).max(*n);
            }
        }
        self.redeliver();
    }

    /// Notes what `peer` acknowledged holding of this seat's chains (`Played::ack`).
    pub(super) fn acked(&mut self, peer: PeerKey, places: &[(ChainId, u64)]) {
        let me = self.summary.seat.map(Seat);
        let acked = self.acked.entry(peer).or_default();
        for (c, seq) in places.iter().filter(|(c, _)| Some(c.seat) == me) {
            let n = acked.entry(*c).or_default();
            *n = (*n).max(seq + 1);
        }
        self.redeliver();
    }

    /// The line's delivery again, from what the other seat and the mailboxes confirmed
    /// (`players.rs` `Played::delivery`, for the one other seat).
    fn redeliver(&mut self) {
        let reached = super::delivery::reached(
            &self.owed,
            &self.other.0,
            &self.mailboxes,
            &self.acked,
            &self.heard,
        );
        if let Some(d) = self.summary.delivery.as_mut() {
            for s in &mut d.0 {
                s.reached = reached;
            }
        }
    }

    /// Every peer of the game but this node.
    pub(super) fn peers(&self) -> impl Iterator<Item = &PeerKey> {
        std::iter::once(&self.other.0).chain(&self.mailboxes)
    }
}

impl Core {
    /// A finished game asked for by nobody for a while leaves memory (it stays in the
    /// store and wakes when asked for).
    pub(super) fn unload_idle(&mut self) {
        let idle_since = |used: u64| used.saturating_add(self.cfg.idle_unload_ms) <= self.now;
        let idle: Vec<(GameId, Dormant)> = self
            .games
            .slots()
            .filter_map(|(id, slot)| match &slot.life {
                Life::Played(p)
                    if p.settled
                        && p.record.status == GameStatus::Finished
                        && idle_since(p.used)
                        && slot.queue.in_flight.is_none() =>
                {
                    let terms = p.table.terms().clone();
                    let dormant = Dormant::with_terms(
                        p.record.clone(),
                        terms,
                        p.table.result(),
                        p.table
                            .terms()
                            .seats()
                            .map(|s| p.table.session().signed_name(s))
                            .collect(),
                    );
                    Some((*id, dormant))
                }
                _ => None,
            })
            .collect();
        for (id, dormant) in idle {
            self.games.put(id, Life::Dormant(Box::new(dormant)));
        }
        // A relayed game over and idle is finished here too: in the store only, from
        // this start on, until a seat posts to it or its witness is asked.
        let over: Vec<(GameId, Dormant)> = self
            .games
            .slots()
            .filter_map(|(id, slot)| match &slot.life {
                Life::Relayed(r) if r.over() && idle_since(r.used) && slot.queue.idle() => {
                    let record = r.record(*id, GameStatus::Finished);
                    Some((
                        *id,
                        Dormant::with_terms(record, r.terms.clone(), None, vec![]),
                    ))
                }
                _ => None,
            })
            .collect();
        for (id, dormant) in over {
            self.write_writes(Writes {
                statuses: vec![(id, GameStatus::Finished)],
                ..Writes::default()
            });
            self.games.put(id, Life::Dormant(Box::new(dormant)));
        }
    }

    /// Puts every unfinished game that has been idle for `sleep_ms` and needs nothing
    /// from the ticks to sleep.
    pub(super) fn sleep_idle(&mut self) {
        let ids: Vec<GameId> = self
            .games
            .slots()
            .filter(|(id, _)| self.sleepy(id))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let Some(p) = self.games.played(&id) else {
                continue;
            };
            let Some(asleep) = self.asleep_of(&id, p) else {
                continue;
            };
            self.games.put(id, Life::Asleep(Box::new(asleep)));
        }
    }

    /// Whether game `id` may sleep now.
    fn sleepy(&self, id: &GameId) -> bool {
        self.awake_for(id).is_none()
    }

    /// Why game `id` stays in memory now, if it does (see the module documentation).
    pub(super) fn awake_for(&self, id: &GameId) -> Option<Awake> {
        let slot = self.games.slot(id)?;
        let Life::Played(p) = &slot.life else {
            return Some(Awake::NotPlayed);
        };
        let terms = p.table.terms();
        let table = &*p.table;
        let why = if p.used.saturating_add(self.cfg.sleep_ms) > self.now {
            Awake::Used
        // The proposer's record says `Proposed` all game long: the table says whether
        // the other seat accepted.
        } else if !matches!(p.record.status, GameStatus::Proposed | GameStatus::Active)
            || super::commands::status_name(p.record.status, table) != GameState::Active
            || p.settled
            || table.is_done()
        {
            Awake::NotUnderway
        } else if !slot.queue.idle() || !slot.queue.exports.is_empty() || slot.owed.is_some() {
            Awake::Writing
        } else if self.hosted(id) {
            Awake::Hosted
        } else if slot.bot.dirty || ((self.bots.all || slot.bot.on) && table.my_turn()) {
            Awake::Bot
        } else if !p.evidence.is_empty() || table.rulings_waiting() > 0 {
            Awake::Evidence
        } else if terms.seat_count() != 2
            || terms.referee().is_some()
            || terms.witness().is_some()
            || !matches!(TimeControl::of(terms.proposal()), Ok(None))
        {
            Awake::Watched
        } else if table.due_at().is_some() || table.duty(self.now).is_some() {
            Awake::Duty
        } else {
            return None;
        };
        Some(why)
    }

    /// What the slot keeps of a played game that goes to sleep.
    fn asleep_of(&self, id: &GameId, p: &Played) -> Option<Asleep> {
        let terms = p.table.terms();
        let me = p.table.seat();
        let other = terms.seats().find(|s| *s != me)?;
        let key = terms.key(other)?.to_bytes();
        let heads = p.table.session().chain_counts();
        let seen_by_other = heads
            .iter()
            .map(|(c, _)| *c)
            .filter(|c| p.table.session().visible(*c, other))
            .collect();
        Some(Asleep {
            summary: self.summary_of(id, p),
            other: (key, other),
            mailboxes: terms.proposal().mailboxes.iter().map(|m| m.key).collect(),
            heads,
            seen_by_other,
            owed: p.owed(Some(other)),
            acked: p.acked.clone(),
            heard: p.heard.clone(),
        })
    }

    /// Wakes game `id` if it sleeps: rebuilt from the store as at a restart, with what
    /// its peers acknowledged given back. A game whose store does not read is set aside.
    pub(super) fn rouse(&mut self, id: &GameId, store: &dyn Durable) -> Result<(), NodeError> {
        if self.games.asleep(id).is_none() {
            return Ok(());
        }
        let variant = self.games.asleep(id).map(|a| a.summary.variant.clone());
        // A store that fails now (a write failed and it is not reopened yet) sets the
        // game aside as a failed write does: it is rebuilt once the store works.
        let record = match store.game(id) {
            Ok(Some(r)) => Ok(r),
            Ok(None) => Err(super::Halt::Unreadable(
                "its record is gone from the store".into(),
            )),
            Err(e) => Err(super::restore::read_failed("its record", e)),
        };
        let record = match record {
            Ok(r) => r,
            Err(halt) => {
                self.set_aside(*id, variant, halt.clone());
                return Err(NodeError::SetAside(halt));
            }
        };
        match self.restore_game(record, true, store) {
            Ok(super::restore::Loaded::Played(mut p, actions)) => {
                if let Some(Life::Asleep(a)) = self.games.slot(id).map(|s| &s.life) {
                    p.acked = a.acked.clone();
                    p.heard = a.heard.clone();
                }
                p.used = self.now;
                p.settle();
                self.woken += 1;
                self.install(*id, super::restore::Loaded::Played(p, actions), store);
                self.bot_dirty(*id);
                Ok(())
            }
            Ok(other) => {
                self.install(*id, other, store);
                Ok(())
            }
            Err(halt) => {
                self.set_aside(*id, variant, halt.clone());
                Err(NodeError::SetAside(halt))
            }
        }
    }

    /// Wakes every sleeping game in which it is this seat's turn (the bots were just
    /// turned on for every game).
    pub(super) fn rouse_my_turns(&mut self, store: &dyn Durable) {
        let ids: Vec<GameId> = self
            .games
            .all_asleep()
            .filter(|(_, a)| a.summary.my_turn)
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let _ = self.rouse(&id, store);
        }
    }
}
