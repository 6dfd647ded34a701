//! What `sealed games` says of a finished game that is not in memory: its result, how
//! many acts it took and the names its seats signed. Stored beside the game in the write
//! that marks it finished (`auto.rs` `set_status`), so that a node that starts with
//! thousands of finished games lists each with one key read, without replaying it
//! (docs/PERFORMANCE.md, start-up), and lists it the same before and after a restart.
//!
//! A store written before this line existed holds only the result (`result/<id>`): its
//! games are listed with their result, the proposal's names and no count of acts, until
//! `show` loads one.

use sealed_games::table::{Table, result_line};
use serde::{Deserialize, Serialize};

use super::{Durable, GameId};

/// The longest line read back: a result line and the names a proposal may sign (at
/// most a few hundred bytes each) fit many times over. A longer value is not ours.
const MAX_LISTED: usize = 16 * 1024;

/// A finished game's line, as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Listed {
    /// Its result in one line (`None` when the game ended with none).
    pub(super) result: Option<String>,
    /// Acts accepted, as the table counted them when the game finished; `None` for a
    /// game finished by a node that did not store it.
    pub(super) ply: Option<u64>,
    /// The name each seat signed, in seat order (empty: the proposal's names stand).
    pub(super) names: Vec<Option<String>>,
}

/// Where finished games' lines are kept, by game.
pub(super) const LISTED_PREFIX: &str = "listed/";

/// Where nodes of before kept the result line alone, by game.
pub(super) const RESULT_PREFIX: &str = "result/";

/// The store's key of a finished game's line.
pub(super) fn listed_key(id: &GameId) -> String {
    format!("{LISTED_PREFIX}{}", hex::encode(id))
}

/// The key under which nodes of before kept the result line alone.
fn result_key(id: &GameId) -> String {
    format!("{RESULT_PREFIX}{}", hex::encode(id))
}

impl Listed {
    /// The line of a game in memory, as it stands now.
    pub(super) fn of(table: &dyn Table) -> Listed {
        Listed {
            result: result_line(table.session()),
            ply: Some(table.turn().ply as u64),
            names: table
                .session()
                .terms()
                .seats()
                .map(|s| {
                    table
                        .session()
                        .envelopes()
                        .signed_name(s)
                        .map(str::to_owned)
                })
                .collect(),
        }
    }

    /// The value stored under [`listed_key`] (postcard encodes these types whatever
    /// they hold; empty bytes, were it ever not, read back as no line).
    pub(super) fn to_bytes(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    /// The game's line from the store: the line if stored, else the result line a node
    /// of before stored, else nothing known. A value that does not read (a store
    /// damaged by hand) lists the game without it, as nodes of before did with no
    /// result stored: listing never fails for it.
    pub(super) fn read(store: &dyn Durable, id: &GameId) -> Listed {
        let meta = |key: String| store.meta(&key).ok().flatten();
        if let Some(b) = meta(listed_key(id)).filter(|b| b.len() <= MAX_LISTED)
            && let Ok(l) = postcard::from_bytes::<Listed>(&b)
        {
            return l;
        }
        Listed {
            result: meta(result_key(id)).and_then(|b| String::from_utf8(b).ok()),
            ..Listed::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Writes;
    use crate::memory::MemoryStore;

    fn store_with(meta: Vec<(String, Vec<u8>)>) -> MemoryStore {
        let mut s = MemoryStore::default();
        s.commit(&Writes {
            meta,
            ..Writes::default()
        });
        s
    }

    #[test]
    fn a_store_of_before_gives_its_result_line_and_nothing_else() {
        let id = GameId::from([7; 32]);
        let s = store_with(vec![(result_key(&id), b"draw by agreement".to_vec())]);
        let l = Listed::read(&s, &id);
        assert_eq!(l.result.as_deref(), Some("draw by agreement"));
        assert_eq!((l.ply, l.names.len()), (None, 0));
    }

    #[test]
    fn a_line_that_does_not_read_lists_the_game_without_it() {
        let id = GameId::from([7; 32]);
        for junk in [vec![0xff; 40], vec![1; MAX_LISTED + 1], vec![]] {
            let s = store_with(vec![
                (listed_key(&id), junk),
                (result_key(&id), b"seat 1 lost on time".to_vec()),
            ]);
            // Falls back to what a node of before kept.
            assert_eq!(
                Listed::read(&s, &id).result.as_deref(),
                Some("seat 1 lost on time")
            );
        }
        assert_eq!(
            Listed::read(&MemoryStore::default(), &id),
            Listed::default()
        );
    }

    #[test]
    fn a_line_reads_back_as_written() {
        let l = Listed {
            result: Some("alice wins by checkmate".into()),
            ply: Some(41),
            names: vec![Some("alice".into()), None],
        };
        assert_eq!(postcard::from_bytes::<Listed>(&l.to_bytes()).unwrap(), l);
    }
}
