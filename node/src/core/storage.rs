//! The read side of the store, as the core sees it: only what is durable. Writes never
//! go through here; they leave the core as [`super::Output::Write`].

use crate::store::{GameRecord, GameRow, Store, StoreError, Usage};

use super::GameId;

/// What a core reads of the durable store. The real store implements it; so does the
/// simulation's, which holds only what was committed.
pub trait Durable {
    /// Every game id in the index with its record (or why it does not decode).
    fn game_rows(&self) -> Result<Vec<GameRow>, StoreError>;
    /// The record of a game.
    fn game(&self, id: &GameId) -> Result<Option<GameRecord>, StoreError>;
    /// Whether a game id is in the index, readable or not.
    fn knows(&self, id: &GameId) -> Result<bool, StoreError>;
    /// A game's secrets.
    fn secrets(&self, id: &GameId) -> Result<Option<Vec<u8>>, StoreError>;
    /// Every envelope of a game, in the order first stored.
    fn envelopes(&self, id: &GameId) -> Result<Vec<Vec<u8>>, StoreError>;
    /// A game's envelopes chain by chain: of each chain `(log, seat)` those from the seq
    /// `from` gives on, none of a chain for which it gives `None` (see
    /// [`Store::chain_envelopes`]).
    fn chain_envelopes(
        &self,
        id: &GameId,
        from: &mut dyn FnMut(u32, u8) -> Option<u64>,
    ) -> Result<Vec<Vec<u8>>, StoreError>;
    /// A node setting.
    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// Every node setting whose key starts with `prefix`, in key order.
    fn metas(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError>;
    /// What every proposer's games held for him use (none kept: none).
    fn quotas(&self) -> Result<Vec<(GameId, Usage)>, StoreError> {
        Ok(vec![])
    }
    /// How many envelopes a game has.
    fn envelope_count(&self, id: &GameId) -> Result<u64, StoreError> {
        self.envelopes(id).map(|e| e.len() as u64)
    }
}

impl Durable for Store {
    fn game_rows(&self) -> Result<Vec<GameRow>, StoreError> {
        Store::game_rows(self)
    }

    fn game(&self, id: &GameId) -> Result<Option<GameRecord>, StoreError> {
        Store::game(self, id)
    }

    fn knows(&self, id: &GameId) -> Result<bool, StoreError> {
        Store::knows(self, id)
    }

    fn secrets(&self, id: &GameId) -> Result<Option<Vec<u8>>, StoreError> {
        Store::secrets(self, id)
    }

    fn envelopes(&self, id: &GameId) -> Result<Vec<Vec<u8>>, StoreError> {
        Store::envelopes(self, id)
    }

    fn chain_envelopes(
        &self,
        id: &GameId,
        from: &mut dyn FnMut(u32, u8) -> Option<u64>,
    ) -> Result<Vec<Vec<u8>>, StoreError> {
        Store::chain_envelopes(self, id, from)
    }

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Store::meta(self, key)
    }

    fn metas(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        Store::metas(self, prefix)
    }

    fn quotas(&self) -> Result<Vec<(GameId, Usage)>, StoreError> {
        Store::quotas(self)
    }

    fn envelope_count(&self, id: &GameId) -> Result<u64, StoreError> {
        Store::envelope_count(self, id)
    }
}
