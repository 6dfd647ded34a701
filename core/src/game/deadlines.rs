//! When each game next has something to do with time alone, in time order: the index
//! behind [`crate::Core::poll_timeout`], as quinn-proto's connection keeps its timers.
//!
//! A game's deadline is computed from the game (its duty's time, its clocks) and is only
//! recomputed when the game may have changed: [`super::Games`] notes every game it hands
//! out for change, and the core refreshes those before it answers `poll_timeout`. So
//! asking costs one look at the first entry, not a pass over thousands of games, and a
//! game nobody touched keeps its deadline.
//!
//! A deadline that fired and is still due after the core acted on it (a duty its session
//! refused, a claim that must wait for the witness) is held back until `retry_at`: time
//! alone never wakes the core in a loop.

use std::collections::{BTreeSet, HashMap};

use crate::GameId;

/// Every game's next deadline.
#[derive(Default)]
pub(crate) struct Deadlines {
    /// Each game's deadline, ms since the Unix epoch, as last computed.
    by_game: HashMap<GameId, u64>,
    /// The same, in time order.
    order: BTreeSet<(u64, GameId)>,
    /// Games whose deadline fired: when it fired, and the moment before which a
    /// deadline no later than that is not reported again.
    held_back: HashMap<GameId, (u64, u64)>,
}

impl Deadlines {
    /// Sets `id`'s deadline (none: it has nothing to do with time alone).
    pub(crate) fn set(&mut self, id: GameId, at: Option<u64>) {
        if let Some(old) = self.by_game.remove(&id) {
            self.order.remove(&(old, id));
        }
        let Some(mut at) = at else {
            self.held_back.remove(&id);
            return;
        };
        match self.held_until(&id, at) {
            Some(retry_at) => at = retry_at,
            None => {
                self.held_back.remove(&id);
            }
        }
        self.by_game.insert(id, at);
        self.order.insert((at, id));
    }

    /// The earliest deadline of any game.
    pub(crate) fn earliest(&self) -> Option<u64> {
        self.order.first().map(|(at, _)| *at)
    }

    /// The games whose deadline is `now` or past, in time order; each is held back until
    /// `retry_at` if it is still due once acted on.
    pub(crate) fn fire(&mut self, now: u64, retry_at: u64) -> Vec<GameId> {
        let mut due = vec![];
        while let Some(&(at, id)) = self.order.first() {
            if at > now {
                break;
            }
            self.order.pop_first();
            self.by_game.remove(&id);
            self.held_back.insert(id, (now, retry_at));
            due.push(id);
        }
        // A hold whose moment passed holds nothing: forgotten, so the map stays as
        // small as the games that fired lately.
        self.held_back.retain(|_, (_, at)| *at > now);
        due
    }

    /// Whether `at`, computed now for `id`, is what is kept for it: the same moment, or
    /// one that fired and is held back until its retry ([`Deadlines::set`]).
    pub(crate) fn agrees(&self, id: &GameId, at: Option<u64>) -> bool {
        let expected = at.map(|at| self.held_until(id, at).unwrap_or(at));
        expected == self.by_game.get(id).copied()
    }

    /// When `id`'s deadline `at` is next reported if it is still due as it was when it
    /// fired (the core acted and nothing moved it): its retry; `None` if it is not held.
    fn held_until(&self, id: &GameId, at: u64) -> Option<u64> {
        let &(fired, retry_at) = self.held_back.get(id)?;
        (at <= fired).then_some(retry_at)
    }

    /// The games that have a deadline.
    pub(crate) fn games(&self) -> impl Iterator<Item = GameId> + '_ {
        self.by_game.keys().copied()
    }

    /// How many games have a deadline.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_game.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sealed_protocol::hash::Hash;

    fn id(n: u8) -> GameId {
        GameId(Hash([n; 32]))
    }

    #[test]
    fn the_earliest_is_first_and_a_new_deadline_replaces_the_old() {
        let mut d = Deadlines::default();
        d.set(id(1), Some(50));
        d.set(id(2), Some(20));
        assert_eq!(d.earliest(), Some(20));
        d.set(id(2), Some(90));
        assert_eq!(d.earliest(), Some(50));
        d.set(id(1), None);
        assert_eq!(d.earliest(), Some(90));
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn a_fired_deadline_still_due_waits_for_its_retry() {
        let mut d = Deadlines::default();
        d.set(id(1), Some(10));
        d.set(id(2), Some(30));
        assert_eq!(d.fire(20, 120), vec![id(1)]);
        // Its duty was refused: the game still says 10, and waits until 120.
        d.set(id(1), Some(10));
        assert_eq!(d.earliest(), Some(30));
        assert_eq!(d.fire(30, 130), vec![id(2)]);
        assert_eq!(d.earliest(), Some(120));
        // Past the hold, a game's own deadline stands again.
        assert_eq!(d.fire(121, 221), vec![id(1)]);
        d.set(id(1), Some(500));
        assert_eq!(d.earliest(), Some(500));
    }

    #[test]
    fn a_deadline_that_moved_on_is_not_held_back() {
        let mut d = Deadlines::default();
        d.set(id(1), Some(10));
        assert_eq!(d.fire(10, 5_000), vec![id(1)]);
        // The duty was done; the next one comes due at 40, before the retry.
        d.set(id(1), Some(40));
        assert_eq!(d.earliest(), Some(40));
    }

    #[test]
    fn a_game_with_nothing_to_do_leaves_no_hold_behind() {
        let mut d = Deadlines::default();
        d.set(id(1), Some(10));
        d.fire(10, 100);
        d.set(id(1), None);
        d.set(id(1), Some(11));
        assert_eq!(d.earliest(), Some(11));
    }
}
