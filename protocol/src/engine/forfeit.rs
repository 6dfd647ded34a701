//! Judging a time forfeit (protocol version 2, spec/PROTOCOL.md §17): the sender posts
//! the witness's statements proving another player out of time. It stands when the
//! statements prove the accused silent past its deadline against what the sender had
//! seen ([`crate::lateness`]), and the accused owed a step in that state; then the game
//! ends with the accused's loss on time. Anything else is the sender's fault: a forfeit
//! is a signed accusation, and an honest node posts one only after checking exactly
//! this.
//!
//! Everything is read from the sender's causal past, never from what happened to arrive
//! first (§7.6): the knowledge is the sender's vector clock, the statements are checked
//! against the envelopes of that past, and what was owed is computed by replaying that
//! past alone.

use super::judge::{Broken, broken};
use super::{Engine, store::Clock};
use crate::body::Forfeit;
use crate::fault::FaultKind;
use crate::hash::Hash;
use crate::ids::{ChainId, EnvRef, Seat};
use crate::keys::PublicKey;
use crate::lateness::late;
use crate::rules::Rules;
use crate::time::TimeControl;
use crate::witness::{Chains, Head, SignedStatement};

/// The envelopes of one causal past, as the statements are checked against them.
struct Past<'a, R: Rules> {
    engine: &'a Engine<R>,
    clock: &'a Clock,
}

impl<R: Rules> Chains for Past<'_, R> {
    fn place(&self, envelope: &Hash) -> Option<(ChainId, u64)> {
        self.engine.store.chains.iter().find_map(|(c, slots)| {
            let n = self.engine.store.seen_count(self.clock, *c);
            (0..n.min(slots.processed))
                .find(|q| slots.processed_hash(*q) == Some(*envelope))
                .map(|q| (*c, q))
        })
    }

    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash> {
        if seq >= self.engine.store.seen_count(self.clock, chain) {
            return None;
        }
        self.engine.store.chains.get(&chain)?.processed_hash(seq)
    }
}

impl<R: Rules> Engine<R> {
    /// Judges `f`, posted by `seat` in the envelope at `at` whose causal past is `clock`.
    pub(super) fn judge_forfeit(
        &mut self,
        f: &Forfeit,
        at: EnvRef,
        seat: Seat,
        clock: &Clock,
    ) -> Result<(), Broken> {
        let phase = |why: &str| broken(FaultKind::OutOfPhase, why);
        let witness = self
            .terms
            .witness()
            .and_then(|w| PublicKey::from_bytes(&w.key).ok())
            .ok_or_else(|| phase("a time forfeit needs a witness named in the terms"))?;
        let control = TimeControl::of(self.terms.proposal())
            .ok()
            .flatten()
            .ok_or_else(|| phase("a time forfeit needs a time control in the terms"))?;
        if self.terms.seats().any(|s| !self.terms.is_player(s)) {
            return Err(phase(
                "a time forfeit is for games whose seats are all players",
            ));
        }
        if f.against == seat || !self.terms.is_player(f.against) {
            return Err(phase("a time forfeit names another player"));
        }
        if self.over_in(clock) {
            self.note(
                at,
                "time forfeit after the game had ended in the sender's view",
            );
            return Ok(());
        }
        let false_ = |why: String| broken(FaultKind::FalseForfeit, why);
        let game = self.terms.game();
        let mut statements = vec![];
        for (i, b) in f.statements.iter().enumerate() {
            let s = SignedStatement::from_bytes(b, game, &witness)
                .map_err(|e| false_(format!("statement {i}: {e}")))?;
            statements.push(s.statement);
        }
        let known = self.knowledge(at, clock);
        let past = Past {
            engine: self,
            clock,
        };
        let allowance = control.per_move_ms.saturating_add(control.leave_ms);
        let proven = late(&statements, &known, f.against, allowance, &past)
            .map_err(|e| false_(e.to_string()))?;
        let running = self.running_in_past(at, clock);
        if running.contains(&seat) {
            return Err(false_(format!("{seat} itself owed a step in its own view")));
        }
        if !running.contains(&f.against) {
            return Err(false_(format!(
                "{} owed nothing in the sender's view",
                f.against
            )));
        }
        let outcome = self.rules.on_time(self.terms.players(), f.against);
        self.game.forfeits.push((at, f.against, proven));
        self.end(at, outcome);
        Ok(())
    }

    /// What the envelope at `at` had seen of every public chain of the game: its
    /// clock's counts, its own chain up to the envelope before it.
    fn knowledge(&self, at: EnvRef, clock: &Clock) -> Vec<Head> {
        let mut out = vec![];
        for seat in self.terms.seats() {
            let chain = ChainId::public(seat);
            let count = if chain == at.chain {
                at.seq
            } else {
                self.store.seen_count(clock, chain)
            };
            let head = count
                .checked_sub(1)
                .and_then(|q| self.store.chains.get(&chain)?.processed_hash(q))
                .unwrap_or(Hash::ZERO);
            out.push(Head { chain, count, head });
        }
        out
    }

    /// The seats whose clock runs in the state of `at`'s causal past without `at`
    /// itself: every seat that owes a step other than an act (a coin seed, a deal, a
    /// draw value), or, when none does, the seat to act. A seat to act that waits for
    /// another's deal or draw value is not the one late. Computed by a replay of that
    /// past alone, so that an envelope of the accused the sender had not seen (a late
    /// answer, concurrent with the forfeit) changes nothing.
    fn running_in_past(&self, at: EnvRef, clock: &Clock) -> Vec<Seat> {
        let Ok(mut replay) = Engine::<R>::new(self.terms.clone()) else {
            return vec![];
        };
        replay.unbounded_ahead();
        let mut envelopes: Vec<(u64, ChainId)> = vec![];
        for (chain, slots) in &self.store.chains {
            let mut n = self.store.seen_count(clock, *chain).min(slots.processed);
            if *chain == at.chain {
                n = at.seq;
            }
            envelopes.extend((0..n).map(|q| (q, *chain)));
        }
        envelopes.sort_unstable();
        for (q, chain) in envelopes {
            if let Some(s) = self.store.chains.get(&chain).and_then(|c| c.get(q)) {
                let _ = replay.insert_signed(s.clone());
            }
        }
        let owed = crate::verdict::awaited(&replay);
        // Before every seat accepted there is no game, and no clock.
        if owed
            .iter()
            .any(|(_, a)| *a == crate::verdict::Awaited::Acceptance)
        {
            return vec![];
        }
        let automatic: Vec<Seat> = owed
            .iter()
            .filter(|(_, a)| *a != crate::verdict::Awaited::Act)
            .map(|(s, _)| *s)
            .collect();
        if automatic.is_empty() {
            owed.into_iter().map(|(s, _)| s).collect()
        } else {
            automatic
        }
    }
}
