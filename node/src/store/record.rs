//! The one encoding of the record a node keeps of each game (the record itself is the
//! core's, `sealed_core::record`).

use super::error::{Hex, StoreError};
pub use sealed_core::record::{GameRecord, GameStatus};

pub(super) fn encode(g: &GameRecord) -> Result<Vec<u8>, StoreError> {
    postcard::to_allocvec(g).map_err(|e| StoreError::Corrupt {
        table: "games",
        reason: format!("cannot encode: {e}"),
    })
}

/// Decodes a game record, refusing trailing bytes and a record filed under another id.
pub(super) fn decode(key: &[u8; 32], bytes: &[u8]) -> Result<GameRecord, StoreError> {
    let corrupt = |reason: String| StoreError::Corrupt {
        table: "games",
        reason,
    };
    let (g, rest) = postcard::take_from_bytes::<GameRecord>(bytes)
        .map_err(|e| corrupt(format!("game {}: {e}", Hex(key))))?;
    if !rest.is_empty() {
        return Err(corrupt(format!(
            "game {}: {} trailing bytes",
            Hex(key),
            rest.len()
        )));
    }
    if g.id.bytes() != key {
        return Err(corrupt(format!(
            "game {} filed under {}",
            Hex(g.id.bytes()),
            Hex(key)
        )));
    }
    Ok(g)
}
