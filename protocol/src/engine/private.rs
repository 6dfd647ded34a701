//! Private logs: acts, setup openings and seals posted to a log's audience only
//! (spec §8.11), and the end-of-game audit that re-judges them (§10.1).
//!
//! Live, a private act is judged by what every member of its log knows: the log's
//! earlier acts. The acts of one log form a single line, each seeing the last, so their
//! order (and with it the audit) never depends on arrival order.

use std::collections::BTreeMap;

use super::judge::{Broken, broken};
use super::{Engine, store::Clock};
use crate::body::{Item, Open, Purpose};
use crate::commit::{CommitKey, commitment, seed_from_value};
use crate::derive;
use crate::envelope::Signed;
use crate::fault::FaultKind;
use crate::hash::Hash;
use crate::hidden::{Audit, Posted, Revealed, Shown};
use crate::ids::{ChainId, EnvRef, LogId, Name, Seat};
use crate::rules::Rules;

impl<R: Rules> Engine<R> {
    /// Judges an envelope of a private log that passed the envelope-level checks.
    pub(super) fn judge_private(&mut self, env: &Signed, clock: &Clock) -> Result<(), Broken> {
        let u = env.unsigned();
        let at = env.at();
        let mut sealed = self.game.sealed.contains_key(&at.chain);
        for item in &u.body {
            if sealed && !matches!(item, Item::Close) {
                return Err(broken(
                    FaultKind::AfterClose,
                    format!("only closes may follow a seal of log {}", u.log.0),
                ));
            }
            match item {
                Item::Close => {
                    self.game.sealed.entry(at.chain).or_insert(at);
                    sealed = true;
                }
                Item::Open(o) => self.show_setup(o, at, clock)?,
                Item::Act(bytes) => self.judge_private_act(bytes, at, u.clock, clock)?,
                _ => {
                    return Err(broken(
                        FaultKind::OutOfPhase,
                        "a private log holds acts, setup openings and closes only",
                    ));
                }
            }
        }
        Ok(())
    }

    /// A setup seed shown to a private log's audience: checked against the owner's public
    /// commitment at once, so a mismatch is the owner's proven fault before anyone
    /// answers anything that depends on it.
    fn show_setup(&mut self, o: &Open, at: EnvRef, clock: &Clock) -> Result<(), Broken> {
        let seat = at.chain.seat;
        let Purpose::Setup(name) = &o.purpose else {
            return Err(broken(
                FaultKind::OutOfPhase,
                "only a setup seed may be opened in a private log",
            ));
        };
        if o.index != 0
            || !self
                .setups
                .iter()
                .any(|s| s.owner == seat && &s.name == name)
        {
            return Err(broken(
                FaultKind::OpeningWithoutCommitment,
                format!("{seat} owns no setup {name}"),
            ));
        }
        let key = CommitKey {
            seat,
            purpose: o.purpose.clone(),
            index: 0,
        };
        // Judged against the sender's causal past only: the commitment must be in it.
        let Some((hash, _)) = self
            .ledger
            .commits()
            .get(&key)
            .filter(|(_, c)| self.store.seen(clock, *c))
        else {
            return Err(broken(
                FaultKind::OpeningWithoutCommitment,
                format!("setup {name} shown before its commitment was seen"),
            ));
        };
        if commitment(self.terms.game(), &key, &o.nonce, &o.value) != *hash {
            return Err(broken(
                FaultKind::OpeningMismatch,
                format!(
                    "setup {name} shown in log {} does not open its commitment",
                    at.chain.log.0
                ),
            ));
        }
        let seed = seed_from_value(&o.value)
            .ok_or_else(|| broken(FaultKind::OpeningMismatch, "a seed is 32 bytes"))?;
        if !self
            .game
            .shown
            .iter()
            .any(|s| s.owner == seat && &s.name == name && s.at.chain.log == at.chain.log)
        {
            self.game.shown.push(Shown {
                at,
                owner: seat,
                name: name.clone(),
                seed,
            });
        }
        Ok(())
    }

    fn judge_private_act(
        &mut self,
        bytes: &[u8],
        at: EnvRef,
        sender_clock: u64,
        clock: &Clock,
    ) -> Result<(), Broken> {
        let log = at.chain.log;
        if self.over_in(clock) {
            self.note(
                at,
                "private act after the game had ended in the sender's view",
            );
            return Ok(());
        }
        if self
            .game
            .sealed
            .iter()
            .any(|(c, s)| c.log == log && self.store.seen(clock, *s))
        {
            self.note(at, format!("act after log {} was sealed ignored", log.0));
            return Ok(());
        }
        let earlier = self
            .game
            .private
            .get(&log)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if let Some(last) = earlier.last()
            && !self.store.seen(clock, last.at)
        {
            return Err(broken(
                FaultKind::OutOfTurn,
                format!(
                    "an act in log {} made without seeing the log's last act",
                    log.0
                ),
            ));
        }
        self.rules
            .private_act(log, at.chain.seat, bytes, earlier)
            .map_err(|v| broken(FaultKind::IllegalAct, v.0))?;
        self.game.private.entry(log).or_default().push(Posted {
            at,
            seat: at.chain.seat,
            clock: sender_clock,
            bytes: bytes.to_vec(),
        });
        Ok(())
    }

    // ----- reading -----

    /// Accepted acts of a private log, in order (empty for a log this engine never saw).
    pub fn private_acts(&self, log: LogId) -> &[Posted] {
        self.game
            .private
            .get(&log)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Every private log with at least one accepted act.
    pub fn private_logs(&self) -> impl Iterator<Item = LogId> + '_ {
        self.game.private.keys().copied()
    }

    /// Setup seeds shown in private logs this engine holds.
    pub fn shown(&self) -> &[Shown] {
        &self.game.shown
    }

    /// Where a seat sealed a private log, if it did.
    pub fn seal(&self, chain: ChainId) -> Option<EnvRef> {
        self.game.sealed.get(&chain).copied()
    }

    /// A setup's derived value (§4.5), once the owner's seed (opened in public or shown
    /// to this seat) and the contributor's coin seed are both known.
    pub fn setup_value(&self, owner: Seat, name: &Name) -> Option<Hash> {
        let seed = self
            .ledger
            .opened_value(owner, Purpose::Setup(name.clone()), 0)
            .and_then(seed_from_value)
            .or_else(|| {
                self.game
                    .shown
                    .iter()
                    .find(|s| s.owner == owner && &s.name == name)
                    .map(|s| s.seed)
            })?;
        self.setup_value_from(owner, name, &seed)
    }

    /// A setup's derived value from its owner's seed — a seat's own, which it holds
    /// before it opens it — once the contributor's coin seed is known.
    pub fn setup_value_from(&self, owner: Seat, name: &Name, seed: &[u8; 32]) -> Option<Hash> {
        let spec = self
            .setups
            .iter()
            .find(|s| s.owner == owner && &s.name == name)?;
        let (contribution, _) = self.ledger.coin_seeds.get(&spec.contributor)?;
        Some(derive::setup(
            self.terms.game(),
            owner,
            name,
            seed,
            contribution,
        ))
    }

    /// What the end-of-game audit reads, once the game is over and every setup's value
    /// is known from public openings; `None` before.
    pub fn revealed(&self) -> Option<Revealed<'_>> {
        if !self.is_over() {
            return None;
        }
        // In version 2 a seed shown in a private log counts as opened: it was checked
        // against the owner's commitment when shown, and the log is public now. So a
        // player who walks away and never opens it in public cannot keep the game
        // unaudited (§17). Version 1 waits for every public opening.
        let shown_counts = crate::proposal::is_version_2(self.terms.version());
        let mut setups = vec![];
        for s in &self.setups {
            if !shown_counts {
                self.ledger
                    .opened_value(s.owner, Purpose::Setup(s.name.clone()), 0)?;
            }
            setups.push((s.clone(), self.setup_value(s.owner, &s.name)?));
        }
        let public = self
            .game
            .main
            .iter()
            .filter_map(|(at, seat)| {
                let env = self.envelope(*at)?;
                let bytes = env.unsigned().body.iter().find_map(|i| match i {
                    Item::Act(b) => Some(b.clone()),
                    _ => None,
                })?;
                Some(Posted {
                    at: *at,
                    seat: *seat,
                    clock: env.unsigned().clock,
                    bytes,
                })
            })
            .collect();
        let mut chains: BTreeMap<ChainId, Vec<Hash>> = BTreeMap::new();
        let mut saw_public = BTreeMap::new();
        for (id, c) in &self.store.chains {
            if !id.log.is_public() {
                let hashes = (0..c.processed)
                    .filter_map(|k| c.processed_hash(k))
                    .collect();
                chains.insert(*id, hashes);
                for seq in 0..c.processed {
                    let at = EnvRef { chain: *id, seq };
                    let Some(clock) = self.store.clock_of(at) else {
                        continue;
                    };
                    let counts = self
                        .terms
                        .seats()
                        .map(|s| self.store.seen_count(clock, ChainId::public(s)))
                        .collect();
                    saw_public.insert(at, counts);
                }
            }
        }
        let mut seal_saw = BTreeMap::new();
        for (chain, at) in &self.game.sealed {
            let Some(env) = self.envelope(*at) else {
                continue;
            };
            let saw: BTreeMap<ChainId, u64> = env
                .unsigned()
                .acks
                .iter()
                .filter(|a| a.chain.log == chain.log)
                .map(|a| (a.chain, a.seq + 1))
                .collect();
            seal_saw.insert(*chain, saw);
        }
        Some(Revealed {
            game: self.terms.game(),
            setups,
            public,
            private: &self.game.private,
            sealed: &self.game.sealed,
            seal_saw,
            chains,
            saw_public,
            public_hashes: self
                .game
                .main
                .iter()
                .filter_map(|(at, _)| Some((*at, self.envelope(*at)?.hash)))
                .collect(),
            stamps: self.times(),
        })
    }

    /// The audit's findings, once there is something to audit.
    pub fn audit(&self) -> Audit {
        if self.game.private.is_empty() && self.game.shown.is_empty() && self.setups.is_empty() {
            return Audit::default();
        }
        self.revealed()
            .map(|r| self.rules.audit(&r))
            .unwrap_or_default()
    }
}
