//! The redb store as the core reads it (`sealed_core::Durable`): the shell's side of
//! the core's read boundary, with the store's errors told as the core needs them (the
//! store itself failed, or the bytes are bad). Here too the bounded read of settings
//! that only the core asks for (`Store::metas_from`).

use redb::ReadableDatabase;
use sealed_core::record::{GameRow as CoreRow, ReadError};
use sealed_core::{Durable, GameId, PeerKey};

use super::{GameRecord, META, Store, StoreError, Usage};

impl Store {
    /// The node settings whose key starts with `prefix`, from the key `from` on, in key
    /// order: at most `max_entries`, and none that would take the values past
    /// `max_bytes` but the first (`sealed_core::Durable::metas_from`). The range starts
    /// at `from`: nothing before it is read, and past what is given only the one entry
    /// found not to fit.
    pub fn metas_from(
        &self,
        prefix: &str,
        from: &str,
        max_entries: usize,
        max_bytes: usize,
    ) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(META)?;
            let mut out: Vec<(String, Vec<u8>)> = vec![];
            let mut bytes = 0usize;
            for row in table.range(from.max(prefix)..)? {
                let (k, v) = row?;
                if out.len() >= max_entries || !k.value().starts_with(prefix) {
                    break;
                }
                let v = v.value();
                if !out.is_empty() && bytes.saturating_add(v.len()) > max_bytes {
                    break;
                }
                bytes = bytes.saturating_add(v.len());
                out.push((k.value().to_owned(), v.to_vec()));
            }
            Ok(out)
        })
    }
}

impl From<StoreError> for ReadError {
    fn from(e: StoreError) -> ReadError {
        ReadError {
            storage: e.is_storage(),
            text: e.to_string(),
        }
    }
}

impl Durable for Store {
    fn game_rows(&self) -> Result<Vec<CoreRow>, ReadError> {
        Ok(Store::game_rows(self)?
            .into_iter()
            .map(|(id, row)| (id, row.map_err(ReadError::from)))
            .collect())
    }

    fn game(&self, id: &GameId) -> Result<Option<GameRecord>, ReadError> {
        Store::game(self, id).map_err(ReadError::from)
    }

    fn knows(&self, id: &GameId) -> Result<bool, ReadError> {
        Store::knows(self, id).map_err(ReadError::from)
    }

    fn secrets(&self, id: &GameId) -> Result<Option<Vec<u8>>, ReadError> {
        Store::secrets(self, id).map_err(ReadError::from)
    }

    fn envelopes(&self, id: &GameId) -> Result<Vec<Vec<u8>>, ReadError> {
        Store::envelopes(self, id).map_err(ReadError::from)
    }

    fn messages(&self, id: &GameId) -> Result<Vec<(u64, Vec<u8>)>, ReadError> {
        Store::messages(self, id).map_err(ReadError::from)
    }

    fn chain_envelopes(
        &self,
        id: &GameId,
        from: &mut dyn FnMut(u32, u8) -> Option<u64>,
    ) -> Result<Vec<Vec<u8>>, ReadError> {
        Store::chain_envelopes(self, id, from).map_err(ReadError::from)
    }

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, ReadError> {
        Store::meta(self, key).map_err(ReadError::from)
    }

    fn metas(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
        Store::metas(self, prefix).map_err(ReadError::from)
    }

    fn metas_from(
        &self,
        prefix: &str,
        from: &str,
        max_entries: usize,
        max_bytes: usize,
    ) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
        Store::metas_from(self, prefix, from, max_entries, max_bytes).map_err(ReadError::from)
    }

    fn quotas(&self) -> Result<Vec<(PeerKey, Usage)>, ReadError> {
        Store::quotas(self).map_err(ReadError::from)
    }

    fn envelope_count(&self, id: &GameId) -> Result<u64, ReadError> {
        Store::envelope_count(self, id).map_err(ReadError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Batch, MemoryStore};

    /// The redb store's bounded read gives what the store in memory gives (the
    /// simulation's, the fuzz targets'), whatever the bounds.
    #[test]
    fn a_bounded_read_of_settings_is_the_same_in_redb_and_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.redb")).unwrap();
        let mut memory = MemoryStore::default();
        let rows: Vec<(String, Vec<u8>)> = (0..40u64)
            .map(|n| {
                (
                    format!("deposit/ab/{n:016x}"),
                    vec![n as u8; 10 + n as usize],
                )
            })
            .chain([
                ("deposit/aa/0000000000000001".to_owned(), vec![1; 5]),
                ("deposit/ac".to_owned(), vec![2; 5]),
                ("deposits/ab".to_owned(), vec![3; 8]),
            ])
            .collect();
        let mut batch = Batch::new();
        for (k, v) in &rows {
            batch.meta(k, v);
        }
        store.commit(&batch).unwrap();
        memory.commit(&sealed_core::Writes {
            meta: rows.clone(),
            ..Default::default()
        });
        let prefix = "deposit/ab/";
        for from in [0u64, 1, 17, 39, 40] {
            let from = format!("{prefix}{from:016x}");
            for (entries, bytes) in [
                (usize::MAX, usize::MAX),
                (3, usize::MAX),
                (100, 50),
                (100, 0),
            ] {
                let redb = Store::metas_from(&store, prefix, &from, entries, bytes).unwrap();
                let mem = Durable::metas_from(&memory, prefix, &from, entries, bytes).unwrap();
                assert_eq!(redb, mem, "from {from}, {entries} entries, {bytes} bytes");
                assert!(redb.len() <= entries);
                assert!(
                    redb.iter()
                        .all(|(k, _)| k.starts_with(prefix) && *k >= from)
                );
                let total: usize = redb.iter().map(|(_, v)| v.len()).sum();
                assert!(redb.len() <= 1 || total <= bytes);
            }
        }
        // From the start, unbounded: every key of the prefix, in order.
        let all = Store::metas_from(&store, prefix, prefix, usize::MAX, usize::MAX).unwrap();
        assert_eq!(all, store.metas(prefix).unwrap());
        assert_eq!(all.len(), 40);
    }
}
