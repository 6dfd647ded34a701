//! The read side of the store, as the core sees it: only what is durable. Writes never
//! go through here; they leave the core as [`super::Output::Write`].

use crate::record::{GameRecord, GameRow, ReadError, Usage};

use super::{GameId, PeerKey};

/// What a core reads of the durable store. The shell's redb store implements it
/// (`sealed_node::store`); so do the store in memory (`memory.rs`) and the simulation's,
/// which holds only what was committed.
pub trait Durable {
    /// Every game id in the index with its record (or why it does not decode).
    fn game_rows(&self) -> Result<Vec<GameRow>, ReadError>;
    /// The record of a game.
    fn game(&self, id: &GameId) -> Result<Option<GameRecord>, ReadError>;
    /// Whether a game id is in the index, readable or not.
    fn knows(&self, id: &GameId) -> Result<bool, ReadError>;
    /// A game's secrets.
    fn secrets(&self, id: &GameId) -> Result<Option<Vec<u8>>, ReadError>;
    /// Every envelope of a game, in the order first stored.
    fn envelopes(&self, id: &GameId) -> Result<Vec<Vec<u8>>, ReadError>;
    /// A game's envelopes chain by chain: of each chain `(log, seat)` those from the seq
    /// `from` gives on, none of a chain for which it gives `None` (see
    /// `sealed_node::store::Store::chain_envelopes`).
    fn chain_envelopes(
        &self,
        id: &GameId,
        from: &mut dyn FnMut(u32, u8) -> Option<u64>,
    ) -> Result<Vec<Vec<u8>>, ReadError>;
    /// A node setting.
    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, ReadError>;
    /// Every node setting whose key starts with `prefix`, in key order.
    fn metas(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, ReadError>;
    /// The node settings whose key starts with `prefix`, from the key `from` on (one
    /// that starts with `prefix`), in key order: at most `max_entries` of them, and none
    /// that would take their values past `max_bytes` in all but the first (given
    /// whatever its size, so that a reader always gets on). Nothing before `from` is
    /// read, and past what it gives only the one entry found not to fit: a witness's
    /// answer to `Deposits` reads what it sends (`witness.rs` `serve_deposits`).
    fn metas_from(
        &self,
        prefix: &str,
        from: &str,
        max_entries: usize,
        max_bytes: usize,
    ) -> Result<Vec<(String, Vec<u8>)>, ReadError>;
    /// What every proposer's games held for him use (none kept: none).
    fn quotas(&self) -> Result<Vec<(PeerKey, Usage)>, ReadError> {
        Ok(vec![])
    }
    /// The messages of a game's computations taken from the other player, in order of
    /// position (`Writes::messages`); none for the games that send none.
    fn messages(&self, _id: &GameId) -> Result<Vec<(u64, Vec<u8>)>, ReadError> {
        Ok(vec![])
    }
    /// How many envelopes a game has.
    fn envelope_count(&self, id: &GameId) -> Result<u64, ReadError> {
        self.envelopes(id).map(|e| e.len() as u64)
    }
}
