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
use crate::witness::{Chains, SignedStatement, Statement};

/// The envelopes of one causal past (or, with no clock, everything processed), as the
/// statements are checked against them.
pub(super) struct Past<'a, R: Rules> {
    pub(super) engine: &'a Engine<R>,
    pub(super) clock: Option<&'a Clock>,
}

impl<R: Rules> Past<'_, R> {
    /// How many envelopes of `chain` the past holds.
    fn count(&self, chain: ChainId) -> u64 {
        let processed = self
            .engine
            .store
            .chains
            .get(&chain)
            .map_or(0, |c| c.processed);
        self.clock.map_or(processed, |c| {
            self.engine.store.seen_count(c, chain).min(processed)
        })
    }
}

impl<R: Rules> Chains for Past<'_, R> {
    fn place(&self, envelope: &Hash) -> Option<(ChainId, u64)> {
        self.engine.store.chains.iter().find_map(|(c, slots)| {
            (0..self.count(*c))
                .find(|q| slots.processed_hash(*q) == Some(*envelope))
                .map(|q| (*c, q))
        })
    }

    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash> {
        if seq >= self.count(chain) {
            return None;
        }
        self.engine.store.chains.get(&chain)?.processed_hash(seq)
    }
}

impl<R: Rules> Engine<R> {
    /// The key of the witness the terms name, if any.
    pub(super) fn witness_key(&self) -> Option<PublicKey> {
        PublicKey::from_bytes(&self.terms.witness()?.key).ok()
    }

    /// The statements an honest sender may put in a forfeit now: all of them but the
    /// receipts of envelopes it has not processed (which the rule refuses: they are
    /// about a state its envelope will not acknowledge). A witness serves receipts of
    /// everything it holds, which may be ahead of this seat.
    pub fn forfeit_statements(&self, statements: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let Some(witness) = self.witness_key() else {
            return statements;
        };
        let game = self.terms.game();
        let everything = Past {
            engine: self,
            clock: None,
        };
        let held = |h: &Hash| everything.place(h).is_some();
        // (bytes, whether a receipt)
        let mut kept: Vec<(Vec<u8>, bool)> = statements
            .into_iter()
            .filter_map(|b| match SignedStatement::from_bytes(&b, game, &witness) {
                Ok(s) => match s.statement {
                    Statement::Receipt(r) => held(&r.envelope).then_some((b, true)),
                    Statement::View(_) => Some((b, false)),
                },
                Err(_) => Some((b, false)),
            })
            .collect();
        // Too many for one forfeit: the oldest receipts go first (they count the
        // accused's earliest waits only; views and the last receipts prove the lateness).
        while kept.len() > crate::body::MAX_FORFEIT_STATEMENTS {
            match kept.iter().position(|(_, receipt)| *receipt) {
                Some(i) => kept.remove(i),
                None => kept.remove(0),
            };
        }
        kept.into_iter().map(|(b, _)| b).collect()
    }

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
            .witness_key()
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
            clock: Some(clock),
        };
        // Every receipt is of an envelope the sender had seen: one of anything else
        // would be evidence about a state it does not claim (the accused's answer, even).
        if let Some(i) = statements.iter().position(|s| match s {
            Statement::Receipt(r) => past.place(&r.envelope).is_none(),
            Statement::View(_) => false,
        }) {
            return Err(false_(format!(
                "statement {i} receipts an envelope outside the sender's causal past"
            )));
        }
        let allowance = self.allowance(f.against, &control, &statements, &known);
        let starts = self.starts(&known);
        let proven = late(&statements, &starts, &known, f.against, allowance, &past)
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

    /// The seats whose clock runs in the state of `at`'s causal past without `at`
    /// itself: every seat that owes a step other than an act (a coin seed, a deal, a
    /// draw value), or, when none does, the seat to act. A seat to act that waits for
    /// another's deal or draw value is not the one late. Computed by a replay of that
    /// past alone, so that an envelope of the accused the sender had not seen (a late
    /// answer, concurrent with the forfeit) changes nothing.
    pub(super) fn running_in_past(&self, at: EnvRef, clock: &Clock) -> Vec<Seat> {
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
