//! Witness receipts posted for the end-of-game audit (protocol version 2,
//! spec/PROTOCOL.md §17.8). A game with private logs (Secret Stallmate's attempts)
//! times what no public chain shows: the witness receipts the hash of each private
//! envelope it is asked about (a stamp) and the public envelopes it holds; after the
//! end, the seats post the receipts, and the game's audit reads them (through
//! [`crate::hidden::Revealed::stamps`]) to place each private act in witness time.
//!
//! Posting is never a claim about anything, so the only fault is a statement that is
//! not a receipt signed by the game's witness for this game. Receipts that contradict
//! each other (one envelope at two times) prove the witness lied: then the audit gets
//! no times at all, and no time result stands.

use std::collections::BTreeMap;

use super::Engine;
use super::judge::{Broken, broken};
use crate::fault::FaultKind;
use crate::hash::Hash;
use crate::ids::EnvRef;
use crate::rules::Rules;
use crate::witness::{Receipt, SignedStatement, Statement};

impl<R: Rules> Engine<R> {
    /// Judges a stamps item posted in the envelope at `at`.
    pub(super) fn judge_stamps(
        &mut self,
        statements: &[Vec<u8>],
        at: EnvRef,
    ) -> Result<(), Broken> {
        let witness = self.witness_key().ok_or_else(|| {
            broken(
                FaultKind::OutOfPhase,
                "stamps need a witness named in the terms",
            )
        })?;
        let game = self.terms.game();
        let mut receipts = vec![];
        for (i, b) in statements.iter().enumerate() {
            let s = SignedStatement::from_bytes(b, game, &witness)
                .map_err(|e| broken(FaultKind::FalseStamp, format!("statement {i}: {e}")))?;
            match s.statement {
                Statement::Receipt(r) => receipts.push(r),
                Statement::View(_) => {
                    return Err(broken(
                        FaultKind::FalseStamp,
                        format!("statement {i} is a view; a stamps item holds receipts"),
                    ));
                }
            }
        }
        self.game.stamps.push((at, receipts));
        Ok(())
    }

    /// Every seat that posted a stamps item.
    pub fn stamped_by(&self) -> Vec<crate::ids::Seat> {
        let mut seats: Vec<_> = self
            .game
            .stamps
            .iter()
            .map(|(at, _)| at.chain.seat)
            .collect();
        seats.sort_unstable();
        seats.dedup();
        seats
    }

    /// The witness's time of every envelope hash a posted receipt names; `None` when
    /// the terms name no witness, or when two receipts give one hash two times (the
    /// witness lied, and no time result stands).
    pub fn stamps(&self) -> Option<BTreeMap<Hash, u64>> {
        self.witness_key()?;
        let mut times = BTreeMap::new();
        let all = self.game.stamps.iter().flat_map(|(_, r)| r.iter());
        for Receipt { envelope, at, .. } in all {
            if *times.entry(*envelope).or_insert(*at) != *at {
                return None;
            }
        }
        Some(times)
    }
}
