//! Witness statements posted for the record (protocol version 2, spec/PROTOCOL.md §17):
//! the `Statements` item. A seat posts the witness's ledgers and stamps — a game with
//! private logs (Secret Stallmate) to place each private act in the witness's time for
//! the end-of-game audit, a victim to show that the witness contradicted the statements
//! of a forfeit against it, an accuser whose ledger does not fit one envelope ahead of
//! its forfeit. Posting is never a claim about anything, so the only fault is a
//! statement that is not one of this game's witness.
//!
//! Every statement posted in the game, in a forfeit that stood or a statements item,
//! makes one record. If two of them cannot both be true the witness lied
//! ([`Engine::witness_lied`]): then no time result stands in the game — no forfeit, no
//! loss on time from the audit — whoever posted what.
//!
//! The contradictions themselves are found across the game's whole record by
//! `crate::witness`; a stamp dates only a deposit, never a public envelope. Tested by
//! `tests/tests/witness_attacks.rs` (one test per attack) and the vectors' twins.

use std::collections::BTreeMap;

use super::Engine;
use super::forfeit::Past;
use super::judge::{Broken, broken};
use crate::deposit;
use crate::fault::FaultKind;
use crate::hash::Hash;
use crate::ids::{EnvRef, Seat};
use crate::keys::PublicKey;
use crate::rules::Rules;
use crate::witness::{Chains, Contradiction, Statement, contradiction, ledgers};

impl<R: Rules> Engine<R> {
    /// Judges a statements item posted in the envelope at `at`.
    pub(super) fn judge_statements(
        &mut self,
        statements: &[Vec<u8>],
        at: EnvRef,
    ) -> Result<(), Broken> {
        if self.witness_key().is_none() {
            return Err(broken(
                FaultKind::OutOfPhase,
                "statements need a witness named in the terms",
            ));
        }
        let mut read = vec![];
        for (i, b) in statements.iter().enumerate() {
            read.push(
                self.read_statement_once(b).map_err(|e| {
                    broken(FaultKind::FalseStatement, format!("statement {i}: {e}"))
                })?,
            );
        }
        self.game.statements.push((at, read));
        Ok(())
    }

    /// Every seat that posted a statements item after the game was over in its view.
    pub fn stamped_by(&self) -> Vec<Seat> {
        let mut seats: Vec<_> = self
            .game
            .statements
            .iter()
            .filter(|(at, _)| self.posted_after_end(*at))
            .map(|(at, _)| at.chain.seat)
            .collect();
        seats.sort_unstable();
        seats.dedup();
        seats
    }

    fn posted_after_end(&self, at: EnvRef) -> bool {
        self.store.clock_of(at).is_some_and(|c| {
            self.game
                .terminal
                .iter()
                .any(|t| *t != at && self.store.seen(c, *t))
        })
    }

    /// The first contradiction among every statement posted in the game, checked
    /// against every envelope processed: the proof that the witness lied, after which
    /// no time result stands. `None` when they can all be true.
    pub fn witness_lied(&self) -> Option<Contradiction> {
        let all = self.posted_statements(None);
        if all.is_empty() {
            return None;
        }
        contradiction(
            &all,
            &Past {
                engine: self,
                clock: None,
            },
        )
    }

    /// The contradiction `extra` (signed statements, as a witness gave them) would prove
    /// together with every statement posted in the game, if any: what a seat a forfeit
    /// stood against posts in its defence.
    pub fn contradicted_by(&self, extra: &[Vec<u8>]) -> Option<Contradiction> {
        let mut all = self.posted_statements(None);
        all.extend(self.read_statements(extra));
        contradiction(
            &all,
            &Past {
                engine: self,
                clock: None,
            },
        )
    }

    /// The witness's time of every envelope the posted statements date, by envelope
    /// hash: a public envelope by a ledger (bound to it through the ledger's head, which
    /// this engine holds), a private-log envelope by the stamp of its deposit for the
    /// other seat of its log (`crate::deposit`). `None` when the terms name no witness,
    /// or when the witness lied (no time result stands).
    pub fn times(&self) -> Option<BTreeMap<Hash, u64>> {
        self.witness_key()?;
        if self.witness_lied().is_some() {
            return None;
        }
        let all = self.posted_statements(None);
        let everything = Past {
            engine: self,
            clock: None,
        };
        let mut times = BTreeMap::new();
        for l in ledgers(&all) {
            for h in l.chains.iter().filter(|h| h.count > 0) {
                if everything.hash_at(h.chain, h.count - 1) != Some(h.head) {
                    continue;
                }
                for (seq, t) in h.places() {
                    if let Some(hash) = everything.hash_at(h.chain, seq) {
                        times.insert(hash, t);
                    }
                }
            }
        }
        let stamps: BTreeMap<Hash, u64> = all
            .iter()
            .filter_map(|s| match s {
                Statement::Stamp(st) => Some((st.deposit, st.at)),
                Statement::Ledger(_) => None,
            })
            .collect();
        if stamps.is_empty() {
            return Some(times);
        }
        for (chain, slots) in &self.store.chains {
            if chain.log.is_public() {
                continue;
            }
            let Some(to) = self.recipient(chain.log, chain.seat) else {
                continue;
            };
            for q in 0..slots.processed {
                let Some(s) = slots.get(q) else { continue };
                let d = deposit::seal(self.terms.game(), &s.bytes, &to);
                if let Some(t) = stamps.get(&d.hash) {
                    times.insert(s.hash, *t);
                }
            }
        }
        Some(times)
    }

    /// The one other seat of a private log's audience, to which `sender` deposits its
    /// envelopes of that log; `None` unless the audience is exactly the sender and one
    /// other seat.
    pub fn recipient(&self, log: crate::ids::LogId, sender: Seat) -> Option<PublicKey> {
        let audience = self.rules.audience(log)?;
        let [a, b] = audience.as_slice() else {
            return None;
        };
        let other = match (*a == sender, *b == sender) {
            (true, false) => *b,
            (false, true) => *a,
            _ => return None,
        };
        self.terms.key(other).copied()
    }
}
