//! The board outcome (spec/PROTOCOL.md §8.14): which recorded endings enter it — a
//! forfeit's only while the witness is not proven to have lied, and none that holds an
//! act the seat lost on time made after the forfeit's knowledge of it — and how they
//! combine.

use super::Engine;
use crate::ids::EnvRef;
use crate::outcome::Outcome;
use crate::rules::Rules;

impl<R: Rules> Engine<R> {
    /// The board result: the combined endings, before faults are weighed
    /// (spec/PROTOCOL.md §8.14). A forfeit's ending counts only while the witness is not
    /// proven to have lied; while it counts, a loss on time stays a loss: an ending
    /// whose past holds an envelope of the seat lost on time that the forfeit's past did
    /// not hold (a late act, signed after the silent ledger) is left out.
    pub fn board_outcome(&self) -> Option<Outcome> {
        let void = !self.game.forfeits.is_empty() && self.witness_lied().is_some();
        let is_forfeit = |at: &EnvRef| self.game.forfeits.iter().any(|f| f.0 == *at);
        let endings: Vec<Outcome> = self
            .game
            .endings
            .iter()
            .filter(|(at, _)| {
                if is_forfeit(at) {
                    !void
                } else {
                    void || !self.after_a_loss_on_time(*at)
                }
            })
            .map(|(_, o)| o.clone())
            .collect();
        if endings.is_empty() {
            None
        } else {
            Some(self.rules.combine(self.terms.players(), &endings))
        }
    }

    /// Whether the envelope at `at` holds in its past an envelope of a seat lost on time
    /// that the forfeit against it did not hold (§8.14): an act made late.
    fn after_a_loss_on_time(&self, at: EnvRef) -> bool {
        let Some(clock) = self.store.clock_of(at) else {
            return false;
        };
        self.game.forfeits.iter().any(|(f, against, _)| {
            let Some(known) = self.store.clock_of(*f) else {
                return false;
            };
            self.store
                .chains
                .keys()
                .filter(|c| c.seat == *against)
                .any(|c| self.store.seen_count(clock, *c) > self.store.seen_count(known, *c))
        })
    }
}
