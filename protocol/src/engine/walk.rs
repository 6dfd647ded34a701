//! What each envelope of a chain changed, in one replay per chain (spec/PROTOCOL.md
//! §17.7, the note on computing the rule).
//!
//! The rule reads, for an envelope, who owed what in its own causal past without it
//! and with it (`clock::Effect`). Replaying each envelope's past from nothing costs a
//! replay per envelope, the square of the game. But the pasts of one chain's envelopes
//! are nested: the clock of a chain's envelope holds the clock of the one before it
//! (`Engine::step` starts it from there), so the past of envelope k of a chain is the
//! past of envelope k − 1, that envelope itself, and what envelope k newly
//! acknowledges. One replay can therefore grow along the chain: before envelope k it
//! takes in exactly what is new in k's past, reads who owes what, takes envelope k,
//! and reads again. It holds at each point the same set of envelopes as the replay of
//! that past alone, and the engine's state depends on the set of envelopes processed,
//! never on the order they came in (module docs of `engine`), so every effect is the
//! same — which `tests/tests/forfeit_walk.rs` checks against the replay per envelope on
//! random forfeits and every vector. The cost is one replay per chain asked about.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Engine;
use super::clock::Effect;
use crate::ids::{ChainId, EnvRef};
use crate::rules::Rules;
use crate::verdict::awaited;

impl<R: Rules> Engine<R> {
    /// A fresh engine to replay part of this one: the same terms, no bound on how far
    /// ahead a chain is filled, and the same way of computing effects.
    pub(super) fn fresh_replay(&self) -> Option<Engine<R>> {
        let mut replay = Engine::<R>::new(self.terms.clone()).ok()?;
        replay.unbounded_ahead();
        replay.effects.by_replay = self.effects.by_replay;
        Some(replay)
    }

    /// Computes (once) the effect of each of the first `count` processed envelopes of
    /// `chain`, in one walk.
    pub(super) fn effects_below(&self, chain: ChainId, count: u64) {
        if self.effects.by_replay {
            return;
        }
        let count = count.min(self.processed(chain));
        if !self.effects.has_below(chain, count) {
            self.walk(chain, count);
        }
    }

    /// A replay of the causal past of the processed envelope at `at`, without it: the
    /// walk of its chain up to it (its earlier envelopes' effects kept on the way).
    pub(super) fn past_walked(&self, at: EnvRef) -> Option<Engine<R>> {
        if at.seq >= self.processed(at.chain) {
            return None;
        }
        self.walk(at.chain, at.seq)
    }

    /// A replay that grows along `chain`: the effect of each of its first `upto`
    /// envelopes is kept, and the replay is returned holding exactly the causal past of
    /// envelope `upto` without it (`None` when that envelope is not processed, or the
    /// terms make no engine).
    fn walk(&self, chain: ChainId, upto: u64) -> Option<Engine<R>> {
        let processed = self.processed(chain);
        let mut replay = self.fresh_replay()?;
        // How many envelopes of each chain the replay holds, from seq 0.
        let mut held: BTreeMap<ChainId, u64> = BTreeMap::new();
        for k in 0..=upto.min(processed) {
            if k == processed {
                return None;
            }
            let at = EnvRef { chain, seq: k };
            let clock = self.store.clock_of(at)?;
            // What is new in envelope k's past, in the order a replay of that past
            // alone takes it (ascending seq, then chain).
            let mut new: Vec<(u64, ChainId)> = vec![];
            for (c, slots) in &self.store.chains {
                let n = if *c == chain {
                    k
                } else {
                    self.store.seen_count(clock, *c).min(slots.processed)
                };
                let h = held.entry(*c).or_insert(0);
                new.extend((*h..n).map(|q| (q, *c)));
                *h = (*h).max(n);
            }
            new.sort_unstable();
            for (q, c) in new {
                if let Some(s) = self.store.chains.get(&c).and_then(|x| x.get(q)) {
                    let _ = replay.insert_signed(s.clone());
                }
            }
            if k == upto {
                return Some(replay);
            }
            let env = self.store.chains.get(&chain)?.get(k)?.clone();
            held.insert(chain, k + 1);
            if self.effects.get(at).is_some() {
                let _ = replay.insert_signed(env);
                continue;
            }
            let before = awaited(&replay);
            let moves = replay.moves_now();
            let main = replay.main_line().len();
            let _ = replay.insert_signed(env);
            let e = Effect {
                before,
                moves,
                after: awaited(&replay),
                // Accepted acts are only ever appended, and only `at` was processed.
                acted: replay.main_line().iter().skip(main).any(|(a, _)| *a == at),
            };
            self.effects.put(at, Arc::new(e));
        }
        None
    }
}
