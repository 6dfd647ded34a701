//! What the core keeps of each game in the store, and reads back: the record, its
//! status, what strangers' games use, and why a read failed — the store's own types,
//! without the store (the shell's redb store encodes them, `sealed_node::store`).

use serde::{Deserialize, Serialize};

use sealed_protocol::ids::GameId;

/// What the node knows about one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game id.
    pub id: GameId,
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

/// Games, envelopes and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// Games.
    pub games: u64,
    /// Envelopes.
    pub envelopes: u64,
    /// Bytes of envelopes.
    pub bytes: u64,
}

impl Usage {
    /// The sum, saturating.
    pub fn plus(self, o: Usage) -> Usage {
        Usage {
            games: self.games.saturating_add(o.games),
            envelopes: self.envelopes.saturating_add(o.envelopes),
            bytes: self.bytes.saturating_add(o.bytes),
        }
    }

    /// Whether every part is at most `limit`'s.
    pub fn within(self, limit: Usage) -> bool {
        self.games <= limit.games && self.envelopes <= limit.envelopes && self.bytes <= limit.bytes
    }

    /// `num / den` of each part, rounded down.
    pub fn part(self, num: u64, den: u64) -> Usage {
        let f = |x: u64| (u128::from(x) * u128::from(num) / u128::from(den.max(1))) as u64;
        Usage {
            games: f(self.games),
            envelopes: f(self.envelopes),
            bytes: f(self.bytes),
        }
    }

    /// Nothing.
    pub fn is_zero(self) -> bool {
        self == Usage::default()
    }
}

/// Why a read of the store failed, as the core needs to know it: the store itself
/// failed (a latched I/O error: the game waits until the store is reopened), or the
/// bytes are bad (the game stays set aside).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text}")]
pub struct ReadError {
    /// The store itself failed (not the bytes it holds).
    pub storage: bool,
    /// What failed, in words.
    pub text: String,
}

/// A game id in the store's index, with its record or why it does not read.
pub type GameRow = (GameId, Result<GameRecord, ReadError>);

/// An envelope's place in its chain, read from its header: `(log, seat, seq)`. `None`
/// for bytes that are not an envelope (the store keeps them, but serves no chain with
/// them).
pub fn chain_place(bytes: &[u8]) -> Option<(u32, u8, u64)> {
    let env = envelope_header(bytes)?;
    let u = &env.unsigned;
    Some((u.log.0, u.seat.0, u.seq))
}

/// Decodes an envelope's bytes for its header only (chain, seq, body), whichever game it
/// is of: a version 2 envelope travels without its game id (spec/PROTOCOL.md §1.6), so
/// it is read with a zero game id put in its place. Never for anything signed or judged.
pub fn envelope_header(bytes: &[u8]) -> Option<sealed_protocol::envelope::Envelope> {
    let zero = sealed_protocol::ids::GameId(sealed_protocol::hash::Hash::ZERO);
    sealed_protocol::envelope::Envelope::decode(bytes, zero).ok()
}
