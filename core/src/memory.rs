//! A store in memory with the real one's semantics for a core ([`Durable`]): a
//! commit is all or nothing, envelopes are known by their hash and placed in their
//! chains, settings are set then removed, quotas added up. For what drives cores
//! without a disk: the deterministic simulation and the fuzz targets.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use crate::record::{GameRecord, GameRow, ReadError, Usage};
use crate::{Durable, GameId, PeerKey, Writes};

/// Everything committed.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    games: BTreeMap<GameId, GameRecord>,
    secrets: BTreeMap<GameId, Vec<u8>>,
    /// Per game, envelopes in first-stored order.
    envelopes: BTreeMap<GameId, Vec<Vec<u8>>>,
    hashes: BTreeSet<(GameId, [u8; 32])>,
    /// (game, log, seat, seq, position).
    chains: BTreeSet<(GameId, u32, u8, u64, u64)>,
    meta: BTreeMap<String, Vec<u8>>,
    quotas: BTreeMap<PeerKey, Usage>,
    /// The computations' messages, by game and position.
    messages: BTreeMap<(GameId, u64), Vec<u8>>,
}

impl MemoryStore {
    /// Commits `w`; how many of its envelopes were new.
    pub fn commit(&mut self, w: &Writes) -> usize {
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
        if let Some(day) = w.quota_day {
            self.quotas.clear();
            self.meta
                .insert(crate::QUOTA_DAY_KEY.to_owned(), day.to_le_bytes().to_vec());
        }
        for (who, used) in &w.charges {
            let e = self.quotas.entry(*who).or_default();
            *e = e.plus(*used);
        }
        for (id, index, bytes) in &w.messages {
            self.messages.insert((*id, *index), bytes.clone());
        }
        for id in &w.forget_messages {
            self.messages.retain(|(g, _), _| g != id);
        }
        for (id, before) in &w.forget_messages_before {
            self.messages.retain(|(g, i), _| g != id || i >= before);
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
            if let Some((log, seat, seq)) = crate::record::chain_place(e) {
                self.chains.insert((*id, log, seat, seq, pos));
            }
            new += 1;
        }
        for id in &w.drop_games {
            self.games.remove(id);
            self.secrets.remove(id);
            self.envelopes.remove(id);
            self.hashes.retain(|(g, _)| g != id);
            self.chains.retain(|(g, ..)| g != id);
            self.messages.retain(|(g, _), _| g != id);
        }
        for prefix in &w.forget_under {
            self.meta.retain(|k, _| !k.starts_with(prefix.as_str()));
        }
        new
    }

    /// Every game id stored.
    pub fn game_ids(&self) -> Vec<GameId> {
        self.games.keys().copied().collect()
    }

    /// Every envelope of a game.
    pub fn all_envelopes(&self, id: &GameId) -> Vec<Vec<u8>> {
        self.envelopes.get(id).cloned().unwrap_or_default()
    }

    /// A setting.
    pub fn setting(&self, key: &str) -> Option<Vec<u8>> {
        self.meta.get(key).cloned()
    }

    /// The settings whose key starts with `prefix`.
    pub fn settings(&self, prefix: &str) -> usize {
        self.meta.keys().filter(|k| k.starts_with(prefix)).count()
    }

    /// Every envelope stored, of every game.
    pub fn envelope_total(&self) -> usize {
        self.envelopes.values().map(Vec::len).sum()
    }
}

impl Durable for MemoryStore {
    fn game_rows(&self) -> Result<Vec<GameRow>, ReadError> {
        Ok(self
            .games
            .iter()
            .map(|(id, g)| (*id, Ok(g.clone())))
            .collect())
    }

    fn game(&self, id: &GameId) -> Result<Option<GameRecord>, ReadError> {
        Ok(self.games.get(id).cloned())
    }

    fn knows(&self, id: &GameId) -> Result<bool, ReadError> {
        Ok(self.games.contains_key(id))
    }

    fn secrets(&self, id: &GameId) -> Result<Option<Vec<u8>>, ReadError> {
        Ok(self.secrets.get(id).cloned())
    }

    fn envelopes(&self, id: &GameId) -> Result<Vec<Vec<u8>>, ReadError> {
        Ok(self.all_envelopes(id))
    }

    fn messages(&self, id: &GameId) -> Result<Vec<(u64, Vec<u8>)>, ReadError> {
        Ok(self
            .messages
            .range((*id, 0)..=(*id, u64::MAX))
            .map(|((_, i), b)| (*i, b.clone()))
            .collect())
    }

    fn chain_envelopes(
        &self,
        id: &GameId,
        from: &mut dyn FnMut(u32, u8) -> Option<u64>,
    ) -> Result<Vec<Vec<u8>>, ReadError> {
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

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, ReadError> {
        Ok(self.meta.get(key).cloned())
    }

    fn metas(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
        Ok(self
            .meta
            .range(prefix.to_owned()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    fn metas_from(
        &self,
        prefix: &str,
        from: &str,
        max_entries: usize,
        max_bytes: usize,
    ) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
        let rows = self
            .meta
            .range(from.max(prefix).to_owned()..)
            .take_while(|(k, _)| k.starts_with(prefix));
        Ok(bounded(rows, max_entries, max_bytes)
            .into_iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    fn quotas(&self) -> Result<Vec<(PeerKey, Usage)>, ReadError> {
        Ok(self.quotas.iter().map(|(k, v)| (*k, *v)).collect())
    }
}

/// The first of `rows` that [`Durable::metas_from`] gives: at most `max_entries`, none
/// that would take the values past `max_bytes` but the first.
fn bounded<'a>(
    rows: impl Iterator<Item = (&'a String, &'a Vec<u8>)>,
    max_entries: usize,
    max_bytes: usize,
) -> Vec<(&'a String, &'a Vec<u8>)> {
    let mut out = vec![];
    let mut bytes = 0usize;
    for (k, v) in rows.take(max_entries) {
        if !out.is_empty() && bytes.saturating_add(v.len()) > max_bytes {
            break;
        }
        bytes = bytes.saturating_add(v.len());
        out.push((k, v));
    }
    out
}
