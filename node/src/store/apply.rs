//! Writing one [`Batch`] into an open write transaction: the body of every commit
//! ([`super::Store::commit_all`] applies its batches in order, then commits once).

use redb::{ReadableTable, WriteTransaction};
use sha2::{Digest, Sha256};

use super::schema::{
    self, CHAINS, ENVELOPE_COUNTS, ENVELOPE_HASHES, ENVELOPES, GAMES, MESSAGES, META, SECRETS,
};
use super::{Batch, StoreError, quota, record};
use sealed_core::GameId;

/// Writes one batch into an open transaction; returns how many of its envelopes were new
/// and whether it changed anything.
pub(super) fn apply(tx: &WriteTransaction, batch: &Batch<'_>) -> Result<(usize, bool), StoreError> {
    let mut changed = false;
    {
        let mut games = tx.open_table(GAMES)?;
        for g in &batch.games {
            games.insert(g.id.bytes(), record::encode(g)?.as_slice())?;
            changed = true;
        }
        for (id, s) in &batch.statuses {
            let id = id.bytes();
            let mut g = match games.get(id)? {
                Some(v) => record::decode(id, v.value())?,
                None => continue,
            };
            if g.status != *s {
                g.status = *s;
                games.insert(id, record::encode(&g)?.as_slice())?;
                changed = true;
            }
        }
    }
    {
        let mut secrets = tx.open_table(SECRETS)?;
        for (id, bytes) in &batch.secrets {
            secrets.insert(id.bytes(), *bytes)?;
            changed = true;
        }
        let mut meta = tx.open_table(META)?;
        for (key, value) in &batch.meta {
            meta.insert(*key, *value)?;
            changed = true;
        }
        for key in &batch.forget {
            changed |= meta.remove(*key)?.is_some();
        }
    }
    {
        let mut messages = tx.open_table(MESSAGES)?;
        for (id, index, bytes) in &batch.messages {
            messages.insert((*id.bytes(), *index), *bytes)?;
            changed = true;
        }
        for id in &batch.forget_messages {
            let id = id.bytes();
            messages.retain_in((*id, 0)..=(*id, u64::MAX), |_, _| false)?;
            changed = true;
        }
        for (id, before) in &batch.forget_messages_before {
            let id = id.bytes();
            messages.retain_in((*id, 0)..(*id, *before), |_, _| false)?;
            changed = true;
        }
    }
    if let Some(day) = batch.quota_day {
        quota::new_day(tx, day)?;
        changed = true;
    }
    changed |= quota::charge(tx, &batch.charges)?;
    let new = add_envelopes(tx, &batch.envelopes)?;
    for id in &batch.drop_games {
        remove_game(tx, id)?;
        changed = true;
    }
    if !batch.forget_under.is_empty() {
        let mut meta = tx.open_table(META)?;
        for prefix in &batch.forget_under {
            let keys: Vec<String> = meta
                .range(*prefix..)?
                .map_while(|row| match row {
                    Ok((k, _)) if k.value().starts_with(*prefix) => Some(Ok(k.value().to_owned())),
                    Ok(_) => None,
                    Err(e) => Some(Err(e)),
                })
                .collect::<Result<_, _>>()?;
            for k in keys {
                changed |= meta.remove(k.as_str())?.is_some();
            }
        }
    }
    Ok((new, changed || new > 0))
}

/// Removes game `id` whole in `tx`: its record, secrets, envelopes with their index,
/// and messages.
pub(super) fn remove_game(tx: &WriteTransaction, id: &GameId) -> Result<(), StoreError> {
    let id = id.bytes();
    tx.open_table(GAMES)?.remove(id)?;
    tx.open_table(SECRETS)?.remove(id)?;
    tx.open_table(ENVELOPE_COUNTS)?.remove(id)?;
    tx.open_table(MESSAGES)?
        .retain_in((*id, 0)..=(*id, u64::MAX), |_, _| false)?;
    tx.open_table(ENVELOPES)?
        .retain_in((*id, 0)..=(*id, u64::MAX), |_, _| false)?;
    tx.open_table(ENVELOPE_HASHES)?
        .retain_in((*id, [0u8; 32])..=(*id, [0xff; 32]), |_, _| false)?;
    tx.open_table(CHAINS)?.retain_in(
        (*id, 0, 0, 0, 0)..=(*id, u32::MAX, u8::MAX, u64::MAX, u64::MAX),
        |_, _| false,
    )?;
    Ok(())
}

/// Adds the envelopes of `envs` not yet stored, in order, with their chain places;
/// returns how many were new.
fn add_envelopes(tx: &WriteTransaction, envs: &[(GameId, &[u8])]) -> Result<usize, StoreError> {
    if envs.is_empty() {
        return Ok(0);
    }
    let mut envelopes = tx.open_table(ENVELOPES)?;
    let mut hashes = tx.open_table(ENVELOPE_HASHES)?;
    let mut counts = tx.open_table(ENVELOPE_COUNTS)?;
    let mut chains = tx.open_table(CHAINS)?;
    let mut new = 0;
    for (id, env) in envs {
        let id = id.bytes();
        let h: [u8; 32] = Sha256::digest(env).into();
        if hashes.get((*id, h))?.is_some() {
            continue;
        }
        let next = counts.get(id)?.map_or(0, |v| v.value());
        hashes.insert((*id, h), next)?;
        envelopes.insert((*id, next), *env)?;
        if let Some((log, seat, seq)) = schema::chain_place(env) {
            chains.insert((*id, log, seat, seq, next), ())?;
        }
        counts.insert(id, next + 1)?;
        new += 1;
    }
    Ok(new)
}
