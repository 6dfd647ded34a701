//! Judging draws from public pools (spec/PROTOCOL.md §8.17): the contributor's fresh
//! value for a declared draw, and the owner's next chain value that opens it.
//!
//! A contribution counts only after the declaration it answers, and an opening only
//! after the contribution, its chain value hashing to the one before: nobody sees a
//! draw before choosing to draw, and nobody steers it (Chex's rules then check the
//! placed piece is the pick, `sealed_games::chex`).

use super::judge::{Broken, Scratch, broken};
use super::{Engine, store::Clock};
use crate::body::{DrawContribute, DrawOpen};
use crate::derive;
use crate::fault::FaultKind;
use crate::ids::{EnvRef, Seat};
use crate::rules::{DrawResult, Rules};

impl<R: Rules> Engine<R> {
    pub(super) fn judge_contribute(
        &mut self,
        c: &DrawContribute,
        at: EnvRef,
        seat: Seat,
        clock: &Clock,
    ) -> Result<(), Broken> {
        let Some(p) = self.ledger.pool_index(c.owner, &c.pool) else {
            return Err(broken(
                FaultKind::OutOfPhase,
                format!("{} has no pool {}", c.owner, c.pool),
            ));
        };
        let pool = &self.ledger.pools[p];
        if pool.spec.contributor != seat {
            return Err(broken(
                FaultKind::OutOfPhase,
                format!("{seat} does not contribute to {}'s {}", c.owner, c.pool),
            ));
        }
        if c.index as usize != pool.contributed.len() + 1 {
            return Err(broken(
                FaultKind::OutOfPhase,
                format!(
                    "value for draw {} where draw {} is next",
                    c.index,
                    pool.contributed.len() + 1
                ),
            ));
        }
        // The value must be chosen after the draw was declared: before, the owner could
        // still decide not to draw once it knew the value.
        if !pool
            .declared
            .get(c.index as usize - 1)
            .is_some_and(|d| self.store.seen(clock, *d))
        {
            return Err(broken(
                FaultKind::DrawValueEarly,
                format!(
                    "value for draw {} of {} sent before the draw was declared",
                    c.index, c.pool
                ),
            ));
        }
        self.ledger.pools[p].contributed.push((c.value, at));
        Ok(())
    }

    pub(super) fn judge_draw_open(
        &mut self,
        o: &DrawOpen,
        at: EnvRef,
        seat: Seat,
        clock: &Clock,
        scratch: &mut Scratch,
    ) -> Result<(), Broken> {
        let Some(p) = self.ledger.pool_index(seat, &o.pool) else {
            return Err(broken(
                FaultKind::OutOfPhase,
                format!("{seat} has no pool {}", o.pool),
            ));
        };
        let pool = &self.ledger.pools[p];
        if o.index as usize != pool.opened.len() + 1 {
            return Err(broken(
                FaultKind::OutOfPhase,
                format!(
                    "draw {} opened where draw {} is next",
                    o.index,
                    pool.opened.len() + 1
                ),
            ));
        }
        // Opened only once the contributor's value is seen: then neither could steer it.
        let Some((contribution, c_at)) = pool.contributed.get(o.index as usize - 1) else {
            return Err(broken(
                FaultKind::PrematureReveal,
                format!(
                    "draw {} of {} opened before its value came",
                    o.index, o.pool
                ),
            ));
        };
        if !self.store.seen(clock, *c_at) {
            return Err(broken(
                FaultKind::PrematureReveal,
                format!(
                    "draw {} of {} opened before its value came",
                    o.index, o.pool
                ),
            ));
        }
        let previous = match o.index {
            1 => pool.head.unwrap_or_default(),
            i => pool.opened[i as usize - 2].0,
        };
        let game = self.terms.game();
        if derive::draw_chain_step(game, seat, &o.pool, o.index, &o.value).0 != previous {
            return Err(broken(
                FaultKind::DrawChainBroken,
                format!(
                    "draw {} of {}: the value does not hash to the one before",
                    o.index, o.pool
                ),
            ));
        }
        let pick = derive::draw_pick(game, seat, &o.pool, o.index, &o.value, contribution);
        self.ledger.pools[p].opened.push((o.value, at));
        scratch.draws.push(DrawResult {
            pool: o.pool.clone(),
            index: o.index,
            pick,
        });
        Ok(())
    }
}
