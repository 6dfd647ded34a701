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
use crate::witness::{Chains, SignedStatement, Statement, StatementError};

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
    fn hash_at(&self, chain: ChainId, seq: u64) -> Option<Hash> {
        if seq >= self.count(chain) {
            return None;
        }
        self.engine.store.chains.get(&chain)?.processed_hash(seq)
    }

    fn past(&self, chain: ChainId, seq: u64) -> Option<Vec<(ChainId, u64)>> {
        self.hash_at(chain, seq)?;
        let clock = self.engine.store.clock_of(EnvRef { chain, seq })?;
        Some(
            self.engine
                .terms
                .seats()
                .map(ChainId::public)
                .map(|c| (c, self.engine.store.seen_count(clock, c)))
                .collect(),
        )
    }
}

impl<R: Rules> Engine<R> {
    /// The key of the witness the terms name, if any.
    pub(super) fn witness_key(&self) -> Option<PublicKey> {
        self.witness
    }

    /// Reads one signed statement of this game's witness. Bytes this engine has read
    /// before are not verified again: with the game, the witness and the seat count
    /// fixed by the terms, the same bytes always read the same.
    pub(super) fn read_statement(&self, bytes: &[u8]) -> Result<Statement, StatementError> {
        if let Some(s) = self.statements_read.get(bytes) {
            return Ok(s.clone());
        }
        let witness = self.witness_key().ok_or(StatementError::BadSignature)?;
        SignedStatement::from_bytes(bytes, self.terms.game(), &witness, self.terms.seat_count())
            .map(|s| s.statement)
    }

    /// [`Engine::read_statement`], keeping what it read for the next time these bytes
    /// are posted (a judged item's statements).
    pub(super) fn read_statement_once(
        &mut self,
        bytes: &[u8],
    ) -> Result<Statement, StatementError> {
        let s = self.read_statement(bytes)?;
        if !self.statements_read.contains_key(bytes) {
            self.statements_read.insert(bytes.to_vec(), s.clone());
        }
        Ok(s)
    }

    /// The statements of this game's witness among `bytes`, the others dropped.
    pub(super) fn read_statements(&self, bytes: &[Vec<u8>]) -> Vec<Statement> {
        bytes
            .iter()
            .filter_map(|b| self.read_statement(b).ok())
            .collect()
    }

    /// Every statement posted in an accepted `Forfeit` or `Statements` item of the
    /// causal past `clock` (with none, of everything processed).
    pub(super) fn posted_statements(&self, clock: Option<&Clock>) -> Vec<Statement> {
        self.game
            .statements
            .iter()
            .filter(|(at, _)| clock.is_none_or(|c| self.store.seen(c, *at)))
            .flat_map(|(_, s)| s.iter().cloned())
            .collect()
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
        self.witness_key()
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
        let mut own = vec![];
        for (i, b) in f.statements.iter().enumerate() {
            own.push(
                self.read_statement_once(b)
                    .map_err(|e| false_(format!("statement {i}: {e}")))?,
            );
        }
        // What the sender had seen: its own statements and every one posted before in
        // its causal past, by anyone (a long game's ledger takes several envelopes).
        let mut statements = self.posted_statements(Some(clock));
        statements.extend(own.iter().cloned());
        let known = self.knowledge(at, clock);
        // Read first, though judged last: it walks the sender's chain up to the
        // forfeit, which gives `starts` below the steps of that chain too.
        let (running, moves) = self.standing_in_past(at, clock);
        let past = Past {
            engine: self,
            clock: Some(clock),
        };
        let allowance = self.allowance(f.against, &control, &statements, &known, moves.as_ref());
        let starts = self.starts(&known);
        let proven = late(&statements, &starts, &known, f.against, allowance, &past)
            .map_err(|e| false_(e.to_string()))?;
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
        self.game.statements.push((at, own));
        self.game.forfeits.push((at, f.against, proven));
        self.end(at, outcome);
        Ok(())
    }
}
