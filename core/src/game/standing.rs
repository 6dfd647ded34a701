//! Where a game stands, as every face says it (`sealed games`, the board's list, the
//! line a game asleep keeps, kept as it stood when it fell asleep): one derivation per
//! state the game is in, from what the core holds of it (`standing` of [`Played`],
//! [`Relayed`], [`Dormant`], [`SetAside`]). A played game's standing is read from its
//! session first and its stored status second, so a stored status that lags the session
//! (an invitation whose session is past its decision, a game done but not yet marked
//! finished) never shows.

use sealed_games::table::Table;
use sealed_protocol::session::Phase;

use super::{Dormant, Played, Relayed, SetAside};
use crate::record::GameStatus;
use crate::views::GameState;

impl Played {
    /// Where the game stands now.
    pub(crate) fn standing(&self) -> GameState {
        of_table(self.record.status, &*self.table)
    }
}

impl Relayed {
    /// Where the game stands for this node: relayed, whatever its seats do.
    pub(crate) fn standing(&self) -> GameState {
        GameState::Relayed
    }
}

impl Dormant {
    /// Where the game stands: as stored when it was last in memory.
    pub(crate) fn standing(&self) -> GameState {
        stored(self.record.status)
    }
}

impl SetAside {
    /// Where the game stands: set aside, and why.
    pub(crate) fn standing(&self) -> GameState {
        self.halt.status()
    }
}

/// A played game's standing: its session's word first, its stored status second.
fn of_table(s: GameStatus, t: &dyn Table) -> GameState {
    let phase = t.session().phase();
    if t.session().envelopes().withdrawn() {
        return GameState::Withdrawn;
    }
    match s {
        GameStatus::Invited if !matches!(phase, Phase::Decide(_)) => GameState::Active,
        GameStatus::Proposed if matches!(phase, Phase::Decide(_) | Phase::Commit(_)) => {
            GameState::Proposed
        }
        _ if t.session().phase().is_done() => GameState::Finished,
        GameStatus::Proposed | GameStatus::Active => GameState::Active,
        other => stored(other),
    }
}

/// The stored status as `sealed games` says it.
fn stored(s: GameStatus) -> GameState {
    match s {
        GameStatus::Proposed => GameState::Proposed,
        GameStatus::Invited => GameState::Invited,
        GameStatus::Active => GameState::Active,
        GameStatus::Finished => GameState::Finished,
        GameStatus::Declined => GameState::Declined,
        GameStatus::Relayed => GameState::Relayed,
    }
}
