//! The redb store as the core reads it (`sealed_core::Durable`): the shell's side of
//! the core's read boundary, with the store's errors told as the core needs them (the
//! store itself failed, or the bytes are bad).

use sealed_core::record::{GameRow as CoreRow, ReadError};
use sealed_core::{Durable, GameId, PeerKey};

use super::{GameRecord, Store, StoreError, Usage};

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

    fn quotas(&self) -> Result<Vec<(PeerKey, Usage)>, ReadError> {
        Store::quotas(self).map_err(ReadError::from)
    }

    fn envelope_count(&self, id: &GameId) -> Result<u64, ReadError> {
        Store::envelope_count(self, id).map_err(ReadError::from)
    }
}
