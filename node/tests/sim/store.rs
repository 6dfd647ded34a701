//! The simulation's store: only what was committed survives a crash. A commit is
//! all-or-nothing, like redb's; a full disk fails commits, and like redb the store then
//! refuses every read and write until it is reopened.

use std::collections::{BTreeMap, BTreeSet};

use sealed_node::core::{Durable, GameId, Writes};
use sealed_node::store::{GameRecord, GameRow, StoreError};
use sha2::{Digest, Sha256};

/// One node's durable state.
#[derive(Default)]
pub struct SimStore {
    games: BTreeMap<GameId, GameRecord>,
    secrets: BTreeMap<GameId, Vec<u8>>,
    /// Per game, envelopes in first-stored order.
    envelopes: BTreeMap<GameId, Vec<Vec<u8>>>,
    hashes: BTreeSet<(GameId, [u8; 32])>,
    /// (game, log, seat, seq, position).
    chains: BTreeSet<(GameId, u32, u8, u64, u64)>,
    meta: BTreeMap<String, Vec<u8>>,
    /// The disk is full: commits fail.
    pub full: bool,
    /// A commit failed and the store was not reopened since.
    failed: bool,
    /// Commits that took effect.
    pub commits: u64,
}

impl SimStore {
    /// Commits `w` at once, or nothing of it.
    pub fn commit(&mut self, w: &Writes) -> Result<usize, String> {
        if self.failed {
            return Err("the store failed earlier and is not reopened yet".into());
        }
        if self.full {
            self.failed = true;
            return Err("no space left on device (simulated)".into());
        }
        for g in &w.games {
            self.games.insert(g.id, g.clone());
        }
        for (id, s) in &w.statuses {
            if let Some(g) = self.games.get_mut(id) {
                g.status = *s;
            }
        }
        for (id, s) in &w.secrets {
            self.secrets.insert(*id, s.clone());
        }
        for (k, v) in &w.meta {
            self.meta.insert(k.clone(), v.clone());
        }
        for k in &w.forget {
            self.meta.remove(k);
        }
        let mut new = 0;
        for (id, e) in &w.envelopes {
            let h: [u8; 32] = Sha256::digest(e).into();
            if !self.hashes.insert((*id, h)) {
                continue;
            }
            let list = self.envelopes.entry(*id).or_default();
            let pos = list.len() as u64;
            list.push(e.clone());
            if let Ok(env) = sealed_protocol::wire::decode::<sealed_protocol::envelope::Envelope>(
                e,
                sealed_protocol::wire::MAX_MESSAGE,
            ) {
                let u = &env.unsigned;
                self.chains.insert((*id, u.log.0, u.seat.0, u.seq, pos));
            }
            new += 1;
        }
        self.commits += 1;
        Ok(new)
    }

    /// Reopens after a failure; fails while the disk is still full.
    pub fn recover(&mut self) -> Result<usize, String> {
        if self.full {
            return Err("no space left on device (simulated)".into());
        }
        self.failed = false;
        Ok(0)
    }

    /// What a new process opening the file finds: the failure latch is gone (the disk
    /// may still be full).
    pub fn reopen(&mut self) {
        self.failed = false;
    }

    fn check(&self) -> Result<(), StoreError> {
        if self.failed {
            Err(StoreError::Failed("a commit failed".into()))
        } else {
            Ok(())
        }
    }

    /// Every game id committed, for the checks (whatever the failure state).
    pub fn game_ids(&self) -> Vec<GameId> {
        self.games.keys().copied().collect()
    }

    /// A meta value committed, whatever state the store is in (a test reads what
    /// survived, even from a store failed and not reopened yet).
    pub fn committed_meta(&self, key: &str) -> Option<Vec<u8>> {
        self.meta.get(key).cloned()
    }

    /// Every envelope of a game, for the checks (whatever the failure state).
    pub fn all_envelopes(&self, id: &GameId) -> Vec<Vec<u8>> {
        self.envelopes.get(id).cloned().unwrap_or_default()
    }
}

impl Durable for SimStore {
    fn game_rows(&self) -> Result<Vec<GameRow>, StoreError> {
        self.check()?;
        Ok(self
            .games
            .iter()
            .map(|(id, g)| (*id, Ok(g.clone())))
            .collect())
    }

    fn game(&self, id: &GameId) -> Result<Option<GameRecord>, StoreError> {
        self.check()?;
        Ok(self.games.get(id).cloned())
    }

    fn knows(&self, id: &GameId) -> Result<bool, StoreError> {
        self.check()?;
        Ok(self.games.contains_key(id))
    }

    fn secrets(&self, id: &GameId) -> Result<Option<Vec<u8>>, StoreError> {
        self.check()?;
        Ok(self.secrets.get(id).cloned())
    }

    fn envelopes(&self, id: &GameId) -> Result<Vec<Vec<u8>>, StoreError> {
        self.check()?;
        Ok(self.all_envelopes(id))
    }

    fn chain_envelopes(
        &self,
        id: &GameId,
        from: &mut dyn FnMut(u32, u8) -> Option<u64>,
    ) -> Result<Vec<Vec<u8>>, StoreError> {
        self.check()?;
        let list = self.envelopes.get(id);
        let mut out = vec![];
        let mut chain: Option<(u32, u8, Option<u64>)> = None;
        for &(_, log, seat, seq, pos) in self
            .chains
            .range((*id, 0, 0, 0, 0)..=(*id, u32::MAX, u8::MAX, u64::MAX, u64::MAX))
        {
            let start = match chain {
                Some((l, s, start)) if l == log && s == seat => start,
                _ => {
                    let start = from(log, seat);
                    chain = Some((log, seat, start));
                    start
                }
            };
            if start.is_some_and(|start| seq >= start)
                && let Some(e) = list.and_then(|l| l.get(pos as usize))
            {
                out.push(e.clone());
            }
        }
        Ok(out)
    }

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.check()?;
        Ok(self.meta.get(key).cloned())
    }

    fn metas(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.check()?;
        Ok(self
            .meta
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }
}
