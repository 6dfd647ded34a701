//! A [`Batch`]: the writes that commit together, gathered by the node before one
//! [`super::Store::commit`] or [`super::Store::commit_all`] (`apply.rs` writes them).

use sealed_core::GameId;

use super::{GameRecord, GameStatus, Usage};

/// Writes that commit together: one transaction, one fsync, all or nothing.
#[derive(Debug, Default)]
pub struct Batch<'a> {
    pub(super) games: Vec<&'a GameRecord>,
    pub(super) statuses: Vec<(GameId, GameStatus)>,
    pub(super) secrets: Vec<(GameId, &'a [u8])>,
    pub(super) envelopes: Vec<(GameId, &'a [u8])>,
    pub(super) messages: Vec<(GameId, u64, &'a [u8])>,
    pub(super) forget_messages: Vec<GameId>,
    pub(super) forget_messages_before: Vec<(GameId, u64)>,
    pub(super) meta: Vec<(&'a str, &'a [u8])>,
    pub(super) forget: Vec<&'a str>,
    pub(super) quota_day: Option<u64>,
    pub(super) charges: Vec<([u8; 32], Usage)>,
    pub(super) drop_games: Vec<GameId>,
    pub(super) forget_under: Vec<&'a str>,
}

impl<'a> Batch<'a> {
    /// An empty batch.
    pub fn new() -> Self {
        Batch::default()
    }

    /// Inserts or replaces a game record.
    pub fn game(&mut self, g: &'a GameRecord) -> &mut Self {
        self.games.push(g);
        self
    }

    /// Changes a stored game's status; a game not stored is skipped (a status only says
    /// where a game stands for `sealed games`).
    pub fn status(&mut self, id: GameId, s: GameStatus) -> &mut Self {
        self.statuses.push((id, s));
        self
    }

    /// Replaces the owner's secrets of a game.
    pub fn secrets(&mut self, id: GameId, bytes: &'a [u8]) -> &mut Self {
        self.secrets.push((id, bytes));
        self
    }

    /// Adds an envelope (its exact bytes) to a game, unless already stored.
    pub fn envelope(&mut self, id: GameId, bytes: &'a [u8]) -> &mut Self {
        self.envelopes.push((id, bytes));
        self
    }

    /// Keeps a message of a game's computations at its position (replacing one kept
    /// there).
    pub fn message(&mut self, id: GameId, index: u64, bytes: &'a [u8]) -> &mut Self {
        self.messages.push((id, index, bytes));
        self
    }

    /// Removes every message of a game (once it is over, none is needed again).
    pub fn forget_messages(&mut self, id: GameId) -> &mut Self {
        self.forget_messages.push(id);
        self
    }

    /// Removes a game's messages before position `before` (the seat's state of its
    /// computations, kept at `sealed_core::io::KEPT_AT`, takes their place).
    pub fn forget_messages_before(&mut self, id: GameId, before: u64) -> &mut Self {
        self.forget_messages_before.push((id, before));
        self
    }

    /// Sets a small node setting.
    pub fn meta(&mut self, key: &'a str, value: &'a [u8]) -> &mut Self {
        self.meta.push((key, value));
        self
    }

    /// Removes a node setting (after the batch's settings are set).
    pub fn forget_meta(&mut self, key: &'a str) -> &mut Self {
        self.forget.push(key);
        self
    }

    /// Starts the quotas' ledger anew for `day` (`quota.rs`), before the charges.
    pub fn quota_day(&mut self, day: u64) -> &mut Self {
        self.quota_day = Some(day);
        self
    }

    /// Adds to what a proposer's games use of its quota (`quota.rs`).
    pub fn charge(&mut self, proposer: crate::core::PeerKey, used: Usage) -> &mut Self {
        self.charges.push((proposer.to_bytes(), used));
        self
    }

    /// Removes a game whole (after the batch's other writes): its record, secrets,
    /// envelopes with their index, and messages.
    pub fn drop_game(&mut self, id: GameId) -> &mut Self {
        self.drop_games.push(id);
        self
    }

    /// Removes every node setting whose key starts with `prefix` (after the batch's
    /// other writes).
    pub fn forget_under(&mut self, prefix: &'a str) -> &mut Self {
        self.forget_under.push(prefix);
        self
    }

    /// Whether the batch writes nothing.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
            && self.statuses.is_empty()
            && self.secrets.is_empty()
            && self.envelopes.is_empty()
            && self.messages.is_empty()
            && self.forget_messages.is_empty()
            && self.forget_messages_before.is_empty()
            && self.meta.is_empty()
            && self.forget.is_empty()
            && self.quota_day.is_none()
            && self.charges.is_empty()
            && self.drop_games.is_empty()
            && self.forget_under.is_empty()
    }
}
