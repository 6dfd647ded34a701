//! Games that leave memory while nothing happens in them: a finished game idle for
//! `idle_unload_ms` goes dormant (`unload_idle`; `durable.rs` `wake` loads it again),
//! and an unfinished one sleeps (issue 34's idle memory): a game waiting for a person,
//! or for an opponent who is away, needs none of its table until something arrives.
//! After [`CoreConfig::sleep_ms`] with nothing done in it, such a game is put to sleep
//! ([`Asleep`]): its table goes, and the slot keeps
//! only what the core reads of every game on every repair round without anything having
//! changed — its line for `sealed games`, the peers to keep reaching, the heads to send
//! them and which of its chains the other seat may see. Those do not change while it
//! sleeps: anything that would change them wakes it first (`rouse`): an envelope, offer
//! or ruling of it from the other seat or a mailbox of it (never an outsider's: a wake
//! replays the game, and is charged by its size, `sync.rs` `cost`), a command or mail
//! that names it, the bots turned on while it is this seat's turn, a peer of it that
//! does not know it.
//!
//! So only a game the repair rounds have nothing to do for sleeps (`sleepy`): two seats and
//! no referee, no witness and no time control (their clocks, stamps and asks run every
//! round), no duty due now or later, no bot to move, no write under way, nothing owed, no
//! evidence, no ruling kept. What the other seat and the mailboxes confirm holding while it
//! sleeps updates its line's delivery, as it would the table's (`said`, `acked`); their
//! repair rounds get what they lack from the store, by what the other seat may see
//! (`sync.rs` `served`). A woken game is rebuilt from the store exactly as at a restart
//! (`durable.rs` `restore_game`), which the simulation crashes at every step; this seat
//! signs nothing in it while it sleeps, and nothing of it is being written when it goes, so
//! its table and the store agree.
//!
//! **A game this node referees that no other player has joined** sleeps at the first repair
//! round after its acceptance is durable, whatever its seats, witness or time terms (issue
//! 52: a stranger's proposal bought 10.7 KB of memory for its 7-day lifetime at a public
//! referee, docs/RELIABILITY.md). Nothing runs in it before its other player posts: no
//! clock has started, and the referee's only choice, to accept, is made. What the count of
//! games held for strangers reads of it stays in the slot ([`HeldAsleep`]: owner, proposer,
//! when taken, when it expires), so it is counted, evicted and expired asleep as awake
//! (`holding.rs`). Its other player's first envelope wakes it, and from then it stays in
//! memory as any refereed game. Attacks on it:
//! - *the proposer wakes his games* by pushing to them: each push is charged as a wake
//!   (`sync.rs` `cost`, a replay of the game's few envelopes), and the game sleeps again
//!   at the next repair round, since still nobody joined;
//! - *a stranger* cannot wake one: only a seat or mailbox of it can (`reader`);
//! - *fresh keys* hold no more asleep than awake: the same shares per key, address and
//!   network, and the network holding most yields (`held.rs`).
//!
//! [`CoreConfig::sleep_ms`]: super::CoreConfig::sleep_ms

use super::PeerKey;
use super::game::Life;
use super::game::asleep::{Asleep, HeldAsleep, Reader};
use super::game::{Dormant, Played};
use super::listed::Listed;
use super::views::GameState;
use super::{Core, Durable, GameId, NodeError, Writes};
use crate::clock::TimeControl;
use crate::record::GameStatus;

/// Games in memory and out of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Residency {
    /// Played or relayed, in memory.
    pub in_memory: usize,
    /// Unfinished and asleep.
    pub asleep: usize,
    /// Woken since the core started.
    pub woken: u64,
}

/// Why a game stays in memory.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
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
    /// More than two seats, a referee, a witness or a time control: the repair rounds look
    /// at its clocks, stamps and asks.
    Watched,
    /// A duty due now or later.
    Duty,
    /// Hosted for a stranger by the bots: counted and its lifetime watched
    /// (`hosted.rs`).
    Hosted,
}

impl Core {
    /// A finished game asked for by nobody for a while leaves memory (it stays in the
    /// store and wakes when asked for).
    pub(super) fn unload_idle(&mut self) {
        let idle_since = |used: u64| used.saturating_add(self.cfg.idle_unload_ms) <= self.now;
        let idle: Vec<(GameId, Dormant)> = self
            .games
            .slots()
            .filter_map(|(id, slot)| match slot.life() {
                Life::Played(p)
                    if p.settled()
                        && p.record().status == GameStatus::Finished
                        && idle_since(p.used())
                        && !slot.writing() =>
                {
                    let terms = p.table().session().terms().clone();
                    let dormant = Dormant::with_terms(
                        p.record().clone(),
                        terms,
                        super::listed::Listed::of(p.table()),
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
            .filter_map(|(id, slot)| match slot.life() {
                Life::Relayed(r) if r.over() && idle_since(r.used()) && slot.idle() => {
                    let record = r.record(*id, GameStatus::Finished);
                    Some((
                        *id,
                        Dormant::with_terms(record, r.terms().clone(), Listed::default()),
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
    /// from the repair rounds to sleep.
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
            let asleep = self.asleep_of(&id, p);
            self.games.put(id, Life::Asleep(Box::new(asleep)));
        }
    }

    /// Puts game `id` to sleep at once if this node referees it, no other player has joined
    /// it and nothing keeps it awake: called as each of its writes becomes durable and as
    /// it is restored. Waiting for the repair round (every 5 s) held the tables of every
    /// game a flood of proposals made in those seconds, and a restart held the tables of
    /// all of them together; freed in a heap where each left a small sleeping line behind,
    /// that memory stayed with the process (issue 52: 11 KiB resident per game after a
    /// restart with 4,096 of them, docs/RELIABILITY.md).
    pub(super) fn sleep_unjoined(&mut self, id: &GameId) {
        let Some(p) = self.games.played(id) else {
            return;
        };
        if !self.unjoined(p) || !self.sleepy(id) {
            return;
        }
        let asleep = self.asleep_of(id, p);
        self.games.put(*id, Life::Asleep(Box::new(asleep)));
    }

    /// Whether `p` is a game this node referees that no other player has joined.
    fn unjoined(&self, p: &Played) -> bool {
        super::seats::referees(p.table().session().terms(), &self.key())
            && !super::holding::refereed_accepted(p)
    }

    /// Whether game `id` may sleep now.
    fn sleepy(&self, id: &GameId) -> bool {
        self.awake_for(id).is_none()
    }

    /// Why game `id` stays in memory now, if it does (see the module documentation).
    pub(super) fn awake_for(&self, id: &GameId) -> Option<Awake> {
        let slot = self.games.slot(id)?;
        let Life::Played(p) = slot.life() else {
            return Some(Awake::NotPlayed);
        };
        let terms = p.table().session().terms();
        let table = p.table();
        // A game this node referees that no other player has joined sleeps as soon as
        // its acceptance is durable: a stranger's proposal must not buy a table in
        // memory for its lifetime (issue 52), and nothing runs in it until its other
        // player's first envelope, which wakes it.
        let unjoined = self.unjoined(p);
        let why = if !unjoined && p.used().saturating_add(self.cfg.sleep_ms) > self.now {
            Awake::Used
        // The proposer's record says `Proposed` all game long: the table says whether
        // the other seat accepted.
        } else if !matches!(p.record().status, GameStatus::Proposed | GameStatus::Active)
            || p.standing() != GameState::Active
            || p.settled()
            || table.session().phase().is_done()
        {
            Awake::NotUnderway
        } else if !slot.idle() || slot.exports_wait() || slot.debt().is_some() {
            Awake::Writing
        } else if self.hosted(id) {
            Awake::Hosted
        // A referee that accepted has nothing for its bot to look at until another
        // player joins, which wakes the game: a game just restored, marked for the
        // bots as every restored game is, sleeps at once.
        } else if (self.games.is_for_bots(id) && !(unjoined && super::holding::signed_here(p)))
            || ((self.bots.all || slot.bot()) && table.turn().my_turn)
        {
            Awake::Bot
        } else if p.has_evidence() || table.turn().rulings_waiting > 0 {
            Awake::Evidence
        } else if !unjoined
            && (terms.seat_count() != 2
                || terms.referee().is_some()
                || terms.witness().is_some()
                || !matches!(TimeControl::of(terms.proposal()), Ok(None)))
        {
            Awake::Watched
        } else if table.turn().due_at.is_some() || table.duty(self.now).is_some() {
            Awake::Duty
        } else {
            return None;
        };
        Some(why)
    }

    /// What the slot keeps of a played game that goes to sleep.
    fn asleep_of(&self, id: &GameId, p: &Played) -> Asleep {
        let terms = p.table().session().terms();
        let me = p.table().session().seat();
        let heads = p.table().session().envelopes().counts();
        let others = terms
            .seats()
            .filter(|s| *s != me)
            .filter_map(|seat| {
                Some(Reader {
                    key: PeerKey::from(terms.key(seat)?),
                    seat,
                    sees: heads
                        .iter()
                        .map(|(c, _)| *c)
                        .filter(|c| p.table().session().envelopes().visible(*c, seat))
                        .collect(),
                    owed: p.owed(Some(seat)),
                })
            })
            .collect();
        let held = super::seats::referees(terms, &self.key()).then(|| HeldAsleep {
            holder: p.holder().cloned(),
            proposer: super::seats::proposer(terms),
            taken: p.record().created,
            expires: self.expires_at(id),
        });
        Asleep {
            summary: self.summary_of(id, p),
            others,
            mailboxes: crate::seats::mailbox_keys(terms).collect(),
            witness: super::seats::witness_key(terms),
            heads,
            acked: p.acked().clone(),
            heard: p.heard().clone(),
            held,
        }
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
                if let Some(Life::Asleep(a)) = self.games.slot(id).map(|s| s.life()) {
                    p.wake(a.acked.clone(), a.heard.clone(), self.now);
                } else {
                    p.use_at(self.now);
                }
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
