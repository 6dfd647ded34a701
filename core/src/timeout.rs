//! Time alone: when the core next has something to do with no input
//! ([`Core::poll_timeout`], as quinn-proto's connection reports its next timer), and
//! what it does when that moment comes ([`crate::Input::Timeout`]). The shell sleeps
//! until the moment or an input, whichever is first; the core keeps no cadence of the
//! shell's.
//!
//! Two kinds of deadline:
//!
//! - **A game's own**: its duty's time (a Secret Stallmate period's end, `Turn::due_at`)
//!   and the moment the opponent it waits for runs out of time (a timeout claim, or the
//!   witness asked for the proof: `game/slot/time.rs` `Slot::poll_timeout`, the game's own). Kept per game, in time order
//!   (`game/deadlines.rs`), and recomputed only for the games handed out for change
//!   since the last look ([`crate::game::Games::take_touched`]). Acted on when it comes,
//!   to the millisecond the shell's timer gives.
//! - **The repair round** (`auto.rs` `repair`) every
//!   [`crate::CoreConfig::repair_every_ms`]: the work that is a retry by nature.
//!
//! A deadline still due after the core acted on it (a duty refused, a claim that waits
//! for the witness) is next reported at the following repair round, never at once.
//!
//! The core's time never goes back (`Core::handle` keeps the latest reading). When the
//! wall clock is set back, its time stands still until the clock catches up: no game's
//! deadline comes meanwhile, but the repair round still runs each time the shell's
//! steady timer says one went by (the shell never sleeps longer than a round).

use crate::game::Touched;
use crate::{Core, Durable, GameId};

impl Core {
    /// The moment the core next has something to do with time alone, ms since the Unix
    /// epoch: send [`crate::Input::Timeout`] then, unless an input comes first. Asked
    /// after the outputs are drained; a moment already past means at once.
    pub fn poll_timeout(&mut self) -> u64 {
        self.refresh_deadlines();
        self.deadlines
            .earliest()
            .map_or(self.repair_at, |at| at.min(self.repair_at))
    }

    /// The games whose deadline, computed again now, is not the one the index keeps:
    /// none, when every change of a game marks it touched and a deadline depends on the
    /// game alone (its duty's time, the moment its awaited seat runs out). The
    /// simulation asks after every [`Core::poll_timeout`]; a pass over every game, so
    /// for tests only.
    #[doc(hidden)]
    pub fn stale_deadlines(&self) -> Vec<GameId> {
        self.games
            .slots()
            .map(|(id, _)| *id)
            .chain(self.deadlines.games())
            .filter(|id| !self.deadlines.agrees(id, self.deadline_of(id)))
            .collect()
    }

    /// The moment has come: the games whose deadline it is act, and the repair round
    /// runs if it is due.
    pub(super) fn timeout(&mut self, store: &dyn Durable) {
        self.refresh_deadlines();
        // At least a millisecond on: a round of 0 would wake the core again at once.
        let retry_at = self.now.saturating_add(self.cfg.repair_every_ms.max(1));
        let fired = self.deadlines.fire(self.now, retry_at);
        // With the wall clock set back, the core's time stands still; the shell's steady
        // clock still says a round's time went by.
        if self.repair_at <= self.now || self.clock_behind {
            self.repair_at = retry_at;
            // It looks at every game's duties and clocks.
            self.repair(store);
        } else if !fired.is_empty() {
            let duties: Vec<GameId> = fired
                .iter()
                .filter(|id| {
                    self.games
                        .played(id)
                        .and_then(|p| p.table().turn().due_at)
                        .is_some_and(|t| t <= self.now)
                })
                .copied()
                .collect();
            if !duties.is_empty() {
                self.run_duties(duties, store);
                self.run_bots(store);
            }
            let out_of_time = fired.iter().any(|id| {
                self.games
                    .slot(id)
                    .and_then(|s| s.timeout_at(self.now))
                    .is_some_and(|(_, at)| at <= self.now)
            });
            if out_of_time {
                self.claim_timeouts(store);
            }
        }
        // What fired is looked at again, whether or not acting on it touched it: one
        // still due waits for `retry_at` (`deadlines.rs`).
        for id in fired {
            let at = self.deadline_of(&id);
            self.deadlines.set(id, at);
        }
    }

    /// Recomputes the deadlines of the games that may have changed.
    fn refresh_deadlines(&mut self) {
        let ids: Vec<GameId> = match self.games.take_touched() {
            Touched::None => return,
            Touched::Some(ids) => ids.into_iter().collect(),
            // Every game, and every game that had a deadline (it may be gone).
            Touched::Every => {
                let mut ids: Vec<GameId> = self.games.slots().map(|(id, _)| *id).collect();
                ids.extend(self.deadlines.games());
                ids.sort();
                ids.dedup();
                ids
            }
        };
        for id in ids {
            let at = self.deadline_of(&id);
            self.deadlines.set(id, at);
        }
    }

    /// A game's next deadline ([`crate::game::Slot::poll_timeout`]).
    fn deadline_of(&self, id: &GameId) -> Option<u64> {
        self.games.slot(id)?.poll_timeout(self.now)
    }
}

#[cfg(test)]
mod tests {
    use crate::durable::Health;
    use crate::test_kit::{NOW, Node};
    use crate::{CoreConfig, Input, Output};

    /// Hands `n` a timeout at `now` and says whether the repair round ran: with the
    /// store failed, a round asks for it to be reopened.
    fn round_ran(n: &mut Node, now: u64) -> bool {
        n.core.store_health = Health::Failed;
        n.core.handle(now, Input::Timeout, &n.store);
        let mut reopen = false;
        while let Some(out) = n.core.poll_output() {
            reopen |= matches!(out, Output::Recover { .. });
        }
        reopen
    }

    #[test]
    fn a_wall_clock_set_back_still_runs_the_repair_round() {
        let mut n = Node::new(CoreConfig::default());
        assert!(
            round_ran(&mut n, NOW + 10_000),
            "the first round is due at once"
        );
        // Before the next round is due, time alone does not run one.
        assert!(!round_ran(&mut n, NOW + 11_000));
        // The wall clock set back an hour: the core's time stands still, and the
        // shell's steady timer, which says a round went by, still runs one.
        assert!(round_ran(&mut n, NOW + 11_000 - 3_600_000));
        assert!(round_ran(&mut n, NOW + 11_000 - 3_595_000));
    }

    #[test]
    fn the_next_deadline_is_never_now_again_after_a_round() {
        let mut n = Node::new(CoreConfig {
            repair_every_ms: 0,
            ..CoreConfig::default()
        });
        n.core.handle(NOW + 10_000, Input::Timeout, &n.store);
        assert!(n.core.poll_timeout() > NOW + 10_000);
    }
}
