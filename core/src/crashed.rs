//! Games set aside because the node stopped while restoring them (issue 52). A stack
//! overflow or an abort cannot be caught, so a game whose restore kills the process
//! would kill it again at every start, and with it every other game of the node. The
//! shell keeps a journal that outlives the process (`sealed_node`'s `journal.rs`): the
//! id of the game being restored, cleared once the start is over. At the next start a
//! game named there is marked in the store (`crashed/<id hex>` → what happened); the
//! core sets every marked game aside as it is — nothing of it is read, rebuilt or
//! signed, and its id stays known, so nothing is ever signed for it anew — and starts
//! without it. `sealed games` lists it (`crashed`, with why); `sealed resume <game>`
//! takes it up again ([`Core::resume_crashed`]), the shell journalling that restore as
//! it did the start's.

use std::collections::HashMap;

use super::error::Halt;
use super::io::{Answer, CmdId, GameRef};
use super::{Core, Durable, GameId, NodeError};

/// The store's settings that mark a game set aside this way.
pub const PREFIX: &str = "crashed/";

/// The setting that marks `id`.
pub fn key(id: &GameId) -> String {
    format!("{PREFIX}{}", hex::encode(id))
}

/// The marked games, with what happened to each. A setting that does not read as a
/// game id is ignored (nothing else writes under the prefix); an unreadable store
/// marks nothing, and the games are then restored as usual.
pub(super) fn marked(store: &dyn Durable) -> HashMap<GameId, String> {
    let rows = store.metas(PREFIX).unwrap_or_else(|e| {
        tracing::warn!("the games set aside after a crash cannot be read: {e}");
        vec![]
    });
    rows.into_iter()
        .filter_map(|(k, v)| {
            let bytes = hex::decode(k.strip_prefix(PREFIX)?).ok()?;
            let id = GameId::from(<[u8; 32]>::try_from(bytes).ok()?);
            Some((id, String::from_utf8_lossy(&v).into_owned()))
        })
        .collect()
}

impl Core {
    /// The game `g` names, if it is set aside after a crash (the shell journals its
    /// restore before [`super::Cmd::Resume`] runs).
    pub fn crashed_game(&self, g: &GameRef) -> Option<GameId> {
        let id = self.games.find(g).ok()?;
        self.games
            .aside(&id)
            .is_some_and(|a| matches!(a.halt, Halt::Crashed(_)))
            .then_some(id)
    }

    /// `sealed resume <game>`: a game set aside after a crash is restored and put to
    /// work, and its mark removed from the store. If it cannot be restored (its store
    /// does not read), it stays aside with the new reason.
    pub(super) fn resume_crashed(&mut self, cmd: CmdId, g: &GameRef, store: &dyn Durable) {
        let Some(id) = self.crashed_game(g) else {
            let why = match self.games.find(g) {
                Ok(_) => NodeError::NotCrashed,
                Err(e) => e,
            };
            return self.reply(cmd, Err(why));
        };
        match self.take_up(id, Halt::Unreadable, store) {
            Ok(()) => {
                tracing::info!(game = %hex::encode(id), "game taken up again after a crash");
                self.forget_meta(key(&id));
                self.reply(cmd, Ok(Answer::Game(hex::encode(id))));
            }
            Err(halt) => {
                if let Some(a) = self.games.aside_mut(&id) {
                    a.halt = halt.clone();
                }
                self.forget_meta(key(&id));
                self.reply(cmd, Err(NodeError::SetAside(halt)));
            }
        }
    }
}
