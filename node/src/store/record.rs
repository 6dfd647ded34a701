//! The record a node keeps of each game, and its one encoding.

use serde::{Deserialize, Serialize};

use super::error::{Hex, StoreError};

/// What the node knows about one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game id.
    pub id: [u8; 32],
    /// The signed proposal's bytes.
    pub terms: Vec<u8>,
    /// The variant's name.
    pub variant: String,
    /// Our seat; `None` when this node only relays the game (mailbox).
    pub seat: Option<u8>,
    /// When this node first stored the game, in ms since the Unix epoch.
    pub created: u64,
    /// Where the game stands.
    pub status: GameStatus,
}

/// Where a game stands, as far as this node is concerned.
///
/// Stored by variant position (postcard): add new variants at the end only, or records
/// written by an older node would be misread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameStatus {
    /// We proposed it; the opponent has not accepted yet.
    Proposed,
    /// We were invited; we have not accepted yet.
    Invited,
    /// Being played.
    Active,
    /// Over; kept for verification and export.
    Finished,
    /// One side declined the proposal.
    Declined,
    /// We hold it for others as a mailbox; we have no seat.
    Relayed,
}

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
    if g.id != *key {
        return Err(corrupt(format!(
            "game {} filed under {}",
            Hex(&g.id),
            Hex(key)
        )));
    }
    Ok(g)
}
