//! The accused's clock in a time forfeit (protocol version 2, spec/PROTOCOL.md §17):
//! how much of the time control it had left for the wait the forfeit is about, counted
//! from the witness's ledgers alone — never from anyone's own clock readings.
//!
//! Every figure is a bound in the accused's favour. A past wait is charged only when
//! the ledgers give the time of the accused's answer and of everything that answer had
//! seen, and only when the accused owed a step before it; a wait the statements say
//! nothing of is charged nothing. Its moves are counted from the transcript, so under
//! "N moves in D" none is missed.
//!
//! Whether an envelope starts, ends or delays a wait is decided by its *effect*, never
//! by the kind of its items ([`Engine::is_step`]): an envelope is a *step* when its
//! sender owed something in its causal past and it discharged all of it; every other
//! envelope is idle — a draw accepted with no offer standing, a stray commitment, one
//! of two draw values owed, a timeout claim — so nobody can hold a clock back, or
//! restart it, by sending something that is not the step owed.
//!
//! Tested by `tests/tests/idle_envelopes.rs` (a property test: no idle envelope moves a
//! clock) and `tests/tests/witness_attacks.rs`.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Engine;
use super::forfeit::Past;
use super::store::Clock;
use crate::body::Item;
use crate::ids::{ChainId, EnvRef, Seat};
use crate::lateness::since;
use crate::rules::{Moves, Rules};
use crate::time::TimeControl;
use crate::verdict::{Awaited, awaited};
use crate::witness::{Head, Statement, contradiction, time_of};

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

/// What an envelope changed: who owed what in its causal past without it, and with it,
/// and whether it made an act the rules accepted.
#[derive(Clone, Debug, Default)]
pub(crate) struct Effect {
    pub before: Vec<(Seat, Awaited)>,
    pub after: Vec<(Seat, Awaited)>,
    pub acted: bool,
    /// The game's moves in the past without the envelope, when the game counts moves by
    /// its own rules (§17.7, from draft 10).
    pub moves: Option<Moves>,
}

/// An obligation without its count: one of two draw values, or a deal short by some
/// slots, is still the same obligation.
fn kind(a: &Awaited) -> Awaited {
    match a {
        Awaited::Deal { owner, deck, .. } => Awaited::Deal {
            due: 0,
            owner: *owner,
            deck: deck.clone(),
        },
        Awaited::DrawValue { owner, pool, .. } => Awaited::DrawValue {
            draw: 0,
            owner: *owner,
            pool: pool.clone(),
        },
        other => other.clone(),
    }
}

impl Effect {
    /// Whether the envelope of `sender` with this effect is a step: the sender owed
    /// something before it and discharged all of it — an act owed by an act the rules
    /// accepted (the next act it may owe is a new one), anything else by owing it no
    /// more (one of two draw values, or a deal short of slots, is no discharge).
    pub fn is_step(&self, sender: Seat) -> bool {
        let owed: Vec<Awaited> = self
            .before
            .iter()
            .filter(|(s, _)| *s == sender)
            .map(|(_, a)| kind(a))
            .collect();
        !owed.is_empty()
            && owed.iter().all(|k| {
                (*k == Awaited::Act && self.acted)
                    || !self
                        .after
                        .iter()
                        .any(|(s, a)| *s == sender && kind(a) == *k)
            })
    }

    /// The seats whose clock runs in the state before the envelope: every seat that
    /// owes a step other than an act (a coin seed, a deal, a draw value), or, when none
    /// does, the seat to act. Before every seat accepted there is no game, and no clock.
    pub fn running(&self) -> Vec<Seat> {
        running(&self.before)
    }
}

/// The running seats of an awaited list (see [`Effect::running`]).
fn running(owed: &[(Seat, Awaited)]) -> Vec<Seat> {
    if owed.iter().any(|(_, a)| *a == Awaited::Acceptance) {
        return vec![];
    }
    let automatic: Vec<Seat> = owed
        .iter()
        .filter(|(_, a)| *a != Awaited::Act)
        .map(|(s, _)| *s)
        .collect();
    if automatic.is_empty() {
        owed.iter().map(|(s, _)| *s).collect()
    } else {
        automatic
    }
}

/// Effects computed so far, by envelope: each is what the envelope changed in its own
/// causal past, a fact that never changes once the envelope is processed, so a copy of
/// the engine keeps them. They are computed a chain at a time by one replay that grows
/// along the chain (`walk.rs`); `by_replay` makes the engine compute each by a replay
/// of its own past instead, the rule as written, for tests that compare the two.
#[derive(Default)]
pub(crate) struct Effects {
    map: std::sync::Mutex<BTreeMap<EnvRef, Arc<Effect>>>,
    pub(super) by_replay: bool,
}

impl Effects {
    pub(super) fn get(&self, at: EnvRef) -> Option<Arc<Effect>> {
        self.map.lock().ok()?.get(&at).cloned()
    }

    pub(super) fn put(&self, at: EnvRef, e: Arc<Effect>) {
        if let Ok(mut m) = self.map.lock() {
            m.insert(at, e);
        }
    }

    /// Whether the effects of the first `count` envelopes of `chain` are all known.
    pub(super) fn has_below(&self, chain: ChainId, count: u64) -> bool {
        let Ok(m) = self.map.lock() else {
            return false;
        };
        let from = EnvRef { chain, seq: 0 };
        count == 0
            || m.range(from..)
                .take_while(|(k, _)| k.chain == chain && k.seq < count)
                .count() as u64
                == count
    }
}

impl Clone for Effects {
    fn clone(&self) -> Self {
        Effects {
            map: std::sync::Mutex::new(self.map.lock().map(|m| m.clone()).unwrap_or_default()),
            by_replay: self.by_replay,
        }
    }
}

impl<R: Rules> Engine<R> {
    /// `seat`'s wait in progress by the witness's `statements` (signed bytes, as a
    /// witness answers): what a forfeit posted now would count, for a clock people read.
    /// `None` without a witness or a time control, when the statements contradict each
    /// other or what this engine holds, or when they do not say when the witness held
    /// everything that started the wait. Whether `seat` owes anything is not asked.
    pub fn witness_wait(&self, statements: &[Vec<u8>], seat: Seat) -> Option<WitnessWait> {
        self.witness_key()?;
        let control = TimeControl::of(self.terms.proposal()).ok()??;
        let mut statements = self.read_statements(statements);
        statements.extend(self.posted_statements(None));
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
        let allowance = self.allowance(
            seat,
            &control,
            &statements,
            &known,
            self.moves_now().as_ref(),
        );
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
    pub(super) fn head(&self, chain: ChainId, count: u64) -> Head {
        let head = count
            .checked_sub(1)
            .and_then(|q| self.store.chains.get(&chain)?.processed_hash(q))
            .unwrap_or(crate::hash::Hash::ZERO);
        Head { chain, count, head }
    }

    /// The heads whose arrival started the wait in the state `known` describes:
    /// `known`, each chain cut back to its last step. Only a step changes who owes
    /// what, so the wait began no earlier than the last of those; an idle envelope — the
    /// accused's no-op, the accuser's timeout claim — neither restarts nor delays it.
    pub(super) fn starts(&self, known: &[Head]) -> Vec<Head> {
        known
            .iter()
            .map(|h| {
                let count = (0..h.count)
                    .rev()
                    .find(|q| {
                        self.is_step(EnvRef {
                            chain: h.chain,
                            seq: *q,
                        })
                    })
                    .map_or(0, |q| q + 1);
                self.head(h.chain, count)
            })
            .collect()
    }

    /// Whether the processed envelope at `at` is a step (see the module docs).
    pub fn is_step(&self, at: EnvRef) -> bool {
        self.effect(at).is_some_and(|e| e.is_step(at.chain.seat))
    }

    /// The effect of the processed envelope at `at`, from its causal past (computed
    /// once, with every effect before it in its chain).
    pub(crate) fn effect(&self, at: EnvRef) -> Option<Arc<Effect>> {
        if let Some(e) = self.effects.get(at) {
            return Some(e);
        }
        if self.effects.by_replay {
            return self.effect_by_replay(at);
        }
        self.effects_below(at.chain, at.seq + 1);
        self.effects.get(at)
    }

    /// The effect of `at` by a replay of its causal past alone, as the rule is written
    /// (§17.6): one replay per envelope, so quadratic over a game. The reference the
    /// one-pass walk (`walk.rs`) is tested against.
    fn effect_by_replay(&self, at: EnvRef) -> Option<Arc<Effect>> {
        let clock = self.store.clock_of(at)?.clone();
        let env = self.store.chains.get(&at.chain)?.get(at.seq)?.clone();
        let mut replay = self.replay_past(at, &clock)?;
        let before = awaited(&replay);
        let moves = replay.moves_now();
        let _ = replay.insert_signed(env);
        let e = Arc::new(Effect {
            before,
            after: awaited(&replay),
            acted: replay.main_line().iter().any(|(a, _)| *a == at),
            moves,
        });
        self.effects.put(at, e.clone());
        Some(e)
    }

    /// A fresh engine that has replayed exactly the causal past `clock` of the envelope
    /// at `at`, without that envelope (in ascending `(seq, chain)` order).
    pub(super) fn replay_past(&self, at: EnvRef, clock: &Clock) -> Option<Engine<R>> {
        let mut replay = self.fresh_replay()?;
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
        Some(replay)
    }

    /// The seats whose clock runs in the state of `at`'s causal past without `at`
    /// itself (see [`Effect::running`]), and the game's moves there. Computed by a replay
    /// of that past alone, so that an envelope of the accused the sender had not seen (a
    /// late answer, concurrent with the forfeit) changes nothing.
    pub(super) fn standing_in_past(&self, at: EnvRef, clock: &Clock) -> (Vec<Seat>, Option<Moves>) {
        if let Some(e) = self.effects.get(at) {
            return (e.running(), e.moves.clone());
        }
        let replay = if self.effects.by_replay {
            self.replay_past(at, clock)
        } else {
            self.past_walked(at)
        };
        replay.map_or((vec![], None), |r| (running(&awaited(&r)), r.moves_now()))
    }

    /// The game's moves in this engine's state, when the game counts them (§17.7).
    pub(crate) fn moves_now(&self) -> Option<Moves> {
        self.rules.moves(self.state()?)
    }

    /// The game's moves in the causal past of the envelope at `at` without it, when the
    /// game counts them (§17.7): what the players' clocks group its waits by.
    pub(crate) fn moves_before(&self, at: EnvRef) -> Option<Moves> {
        self.effect(at).and_then(|e| e.moves.clone())
    }

    /// The time `accused` may take over the wait in progress in the state of `known`
    /// (whose game counts `now` moves, if it counts them by its own rules): the
    /// control's allowance for its moves so far, less what its earlier waits are proven
    /// by `statements` to have been charged. From draft 10, in a game that counts its
    /// own moves, the waits of one move of the accused's (while it was the mover) are
    /// charged as one, and the wait in progress continues the move under way.
    pub(super) fn allowance(
        &self,
        accused: Seat,
        control: &TimeControl,
        statements: &[Statement],
        known: &[Head],
        now: Option<&Moves>,
    ) -> u64 {
        let chain = ChainId::public(accused);
        let count = known
            .iter()
            .find(|h| h.chain == chain)
            .map_or(0, |h| h.count);
        // Every effect the loop reads, in one walk of the chain.
        self.effects_below(chain, count);
        let (mut acts, mut charged) = (0u64, 0u64);
        // The proven waits of each of the accused's own moves, by move number.
        let mut own: BTreeMap<u64, u64> = BTreeMap::new();
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
                acts += 1;
            }
            let at = EnvRef { chain, seq };
            let Some(wait) = self.proven_wait(accused, at, statements) else {
                continue;
            };
            let moves = self.effect(at).and_then(|e| e.moves.clone());
            match moves.filter(|m| m.mover == Some(accused)) {
                Some(m) => {
                    let w = own.entry(m.made_by(accused)).or_insert(0);
                    *w = w.saturating_add(wait);
                }
                None => charged = charged.saturating_add(control.charge(wait)),
            }
        }
        let Some(now) = now else {
            return control.allowance(acts, charged);
        };
        let made = now.made_by(accused);
        let spent = if now.mover == Some(accused) {
            own.remove(&made).unwrap_or(0)
        } else {
            0
        };
        for w in own.values() {
            charged = charged.saturating_add(control.charge(*w));
        }
        control.allowance_within(made, charged, spent)
    }

    /// How long the statements prove `accused` waited before its envelope at `at`, if
    /// they do, it was a step, and it owed one then: from when the witness held
    /// everything that started the wait (`at`'s knowledge cut back to steps) to when it
    /// held the envelope.
    fn proven_wait(&self, accused: Seat, at: EnvRef, statements: &[Statement]) -> Option<u64> {
        let effect = self.effect(at)?;
        if !effect.is_step(accused) || !effect.running().contains(&accused) {
            return None;
        }
        let held = time_of(statements, at.chain, at.seq)?;
        let clock = self.store.clock_of(at)?;
        let began = since(statements, &self.starts(&self.knowledge(at, clock))).ok()?;
        Some(held.saturating_sub(began))
    }
}
