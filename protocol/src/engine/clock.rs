//! The accused's clock in a time forfeit (protocol version 2, spec/PROTOCOL.md §17):
//! how much of the time control it had left for the wait the forfeit is about, counted
//! from the witness's receipts alone — never from anyone's own clock readings.
//!
//! Every figure is a bound in the accused's favour. A past wait is charged only when
//! the forfeit carries the receipt of the accused's answer and a time for everything
//! that answer had seen, and only when the accused owed a step before it; a wait the
//! statements say nothing of is charged nothing. Its moves are counted from the
//! transcript, so under "N moves in D" none is missed.
//!
//! An *idle* envelope — one carrying only draw offers, claims, evidence or forfeits —
//! changes nobody's obligations, so it neither starts nor ends a wait, whoever sent it:
//! a player cannot hold his clock back by sending something that is not a move, and an
//! accuser's timeout claim does not put off his forfeit.

use super::Engine;
use super::forfeit::Past;
use super::store::Clock;
use crate::body::Item;
use crate::envelope::Signed;
use crate::hash::Hash;
use crate::ids::{ChainId, EnvRef, Seat};
use crate::lateness::{receipt_of, since};
use crate::rules::Rules;
use crate::time::TimeControl;
use crate::witness::{Head, SignedStatement, Statement, contradiction};

/// A seat's wait in progress by the witness's times, as the forfeit rule would count it
/// in the state an engine holds now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WitnessWait {
    /// When the witness held everything that started the wait (its clock, ms).
    pub since: u64,
    /// How long the wait may last: the pace's time and the leave the seat has left.
    pub allowance: u64,
}

impl WitnessWait {
    /// After this instant of the witness's clock the seat is out of time.
    pub fn deadline(&self) -> u64 {
        self.since.saturating_add(self.allowance)
    }
}

/// Whether an envelope is idle: every item a draw offer, claim, evidence, forfeit or
/// stamps.
pub(super) fn idle(s: &Signed) -> bool {
    s.env.unsigned.body.iter().all(|i| {
        matches!(
            i,
            Item::OfferDraw
                | Item::Claim(_)
                | Item::Evidence(_)
                | Item::Forfeit(_)
                | Item::Stamps(_)
        )
    })
}

impl<R: Rules> Engine<R> {
    /// `seat`'s wait in progress by the witness's `statements` (signed bytes, as a
    /// witness answers): what a forfeit posted now would count, for a clock people read.
    /// `None` without a witness or a time control, when the statements contradict each
    /// other or what this engine holds, or when they do not say when the witness held
    /// everything that started the wait. Whether `seat` owes anything is not asked.
    pub fn witness_wait(&self, statements: &[Vec<u8>], seat: Seat) -> Option<WitnessWait> {
        let witness = self.witness_key()?;
        let control = TimeControl::of(self.terms.proposal()).ok()??;
        let game = self.terms.game();
        let statements: Vec<Statement> = statements
            .iter()
            .filter_map(|b| SignedStatement::from_bytes(b, game, &witness).ok())
            .map(|s| s.statement)
            .collect();
        let everything = Past {
            engine: self,
            clock: None,
        };
        if contradiction(&statements, &everything).is_some() {
            return None;
        }
        let known: Vec<Head> = self
            .terms
            .seats()
            .map(|s| {
                let chain = ChainId::public(s);
                self.head(
                    chain,
                    self.store.chains.get(&chain).map_or(0, |c| c.processed),
                )
            })
            .collect();
        let since = since(&statements, &self.starts(&known)).ok()?;
        let allowance = self.allowance(seat, &control, &statements, &known);
        Some(WitnessWait { since, allowance })
    }

    /// What the envelope at `at` (causal past `clock`) had seen of every public chain:
    /// its clock's counts, its own chain up to the envelope before it.
    pub(super) fn knowledge(&self, at: EnvRef, clock: &Clock) -> Vec<Head> {
        self.terms
            .seats()
            .map(|seat| {
                let chain = ChainId::public(seat);
                let count = if chain == at.chain {
                    at.seq
                } else {
                    self.store.seen_count(clock, chain)
                };
                self.head(chain, count)
            })
            .collect()
    }

    /// The head of the first `count` envelopes of `chain`.
    fn head(&self, chain: ChainId, count: u64) -> Head {
        let head = count
            .checked_sub(1)
            .and_then(|q| self.store.chains.get(&chain)?.processed_hash(q))
            .unwrap_or(Hash::ZERO);
        Head { chain, count, head }
    }

    /// The heads whose arrival started the wait in the state `known` describes:
    /// `known`, each chain cut back to its last envelope that is not idle. Only a step
    /// of the game changes who owes what, so the wait began no earlier than the last
    /// of those; an idle envelope — the accused's draw offer, the accuser's timeout
    /// claim — neither restarts nor delays it.
    pub(super) fn starts(&self, known: &[Head]) -> Vec<Head> {
        known
            .iter()
            .map(|h| {
                let slots = self.store.chains.get(&h.chain);
                let count = (0..h.count)
                    .rev()
                    .find(|q| slots.and_then(|c| c.get(*q)).is_some_and(|s| !idle(s)))
                    .map_or(0, |q| q + 1);
                self.head(h.chain, count)
            })
            .collect()
    }

    /// The time `accused` may take over the wait in progress in the state of `known`:
    /// the control's allowance for its moves so far, less what its earlier waits are
    /// proven by `statements` to have been charged.
    pub(super) fn allowance(
        &self,
        accused: Seat,
        control: &TimeControl,
        statements: &[Statement],
        known: &[Head],
    ) -> u64 {
        let chain = ChainId::public(accused);
        let count = known
            .iter()
            .find(|h| h.chain == chain)
            .map_or(0, |h| h.count);
        let (mut moves, mut charged) = (0u64, 0u64);
        for seq in 0..count {
            let Some(s) = self.store.chains.get(&chain).and_then(|c| c.get(seq)) else {
                continue;
            };
            if s.env
                .unsigned
                .body
                .iter()
                .any(|i| matches!(i, Item::Act(_)))
            {
                moves += 1;
            }
            if let Some(wait) = self.proven_wait(accused, s, statements) {
                charged = charged.saturating_add(control.charge(wait));
            }
        }
        control.allowance(moves, charged)
    }

    /// How long the statements prove `accused` waited before sending `s`, if they do
    /// and it owed a step then: from when the witness held everything `s` had seen
    /// (every chain cut back past idle envelopes) to the receipt of `s`.
    fn proven_wait(&self, accused: Seat, s: &Signed, statements: &[Statement]) -> Option<u64> {
        if idle(s) {
            return None;
        }
        let received = receipt_of(statements, &s.hash)?;
        let at = s.at();
        let clock = self.store.clock_of(at)?;
        let began = since(statements, &self.starts(&self.knowledge(at, clock))).ok()?;
        // Only a wait the accused owed counts: one replay of that past, for the
        // answers whose receipts the forfeit carries.
        self.running_in_past(at, clock)
            .contains(&accused)
            .then(|| received.saturating_sub(began))
    }
}
