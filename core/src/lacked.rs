//! A computation's message withheld (Secret Stallmate without a referee, spec/GAMES.md
//! §5.15, "A message withheld"), as a seat. The table says what is owed
//! (`Computing::deposits`: the one owed, the one waited for) and posts the acts as
//! duties; this node carries the bytes to and from the game's witness over the sync protocol
//! (spec/PROTOCOL.md §17.11, §17.12):
//!
//! - **The sender**, told its message is lacked, leaves it with the witness — sealed to the
//!   other player, one deposit alone in a `Deposit` request — and asks again every
//!   [`ASK_AGAIN_MS`] until the witness's stamp comes; the table keeps the stamp and its
//!   duty posts `Deposited`.
//! - **The receiver**, once that act is posted, fetches the game's deposits every
//!   [`ASK_AGAIN_MS`], finds the one the stamp names, opens it with this node's key and
//!   takes the message as if the other player had sent it — stored before anything this
//!   seat signs can depend on it. A deposit the stamp names that does not open to the
//!   message signed makes the table halt (the audit proves it against its sender).
//!
//! Nothing here is stored: after a restart the table says again what is owed, and the
//! witness answers again (a deposit is stamped once, with its first time).

use sealed_games::table::{Deposits, Given};
use sealed_protocol::deposit;

use super::{Core, Durable, GameId};
use crate::message::Request;

/// How often a deposit is left again while its stamp has not come, and the deposits
/// fetched again while the one waited for has not.
pub(super) const ASK_AGAIN_MS: u64 = 5_000;

impl Core {
    /// For each game played here with a witness (or only those of `only`): leaves the
    /// deposit this seat owes, and fetches the one it waits for.
    pub(super) fn lacked_round(&mut self, only: Option<&[GameId]>) {
        let ids: Vec<GameId> = match only {
            Some(ids) => ids.to_vec(),
            None => self.games.all_played().map(|(id, _)| *id).collect(),
        };
        let now = self.now;
        let mut requests = vec![];
        for id in ids {
            // Durable before visible: nothing goes while a write of the game is in flight.
            if self.games.slot(&id).is_none_or(|s| s.writing()) {
                continue;
            }
            let Some(p) = self.games.played_mut(&id) else {
                continue;
            };
            let Some(w) = super::seats::witness_key(p.table().session().terms()) else {
                continue;
            };
            let mut table = p.table_mut();
            let Some(c) = table.computing() else {
                continue;
            };
            let Deposits { out, wanted } = c.deposits();
            drop(table);
            if out.is_none() && wanted.is_none() {
                continue;
            }
            let Some(slot) = self.games.slot_mut(&id) else {
                continue;
            };
            let lacked = slot.lacked_mut();
            let due = |t: Option<u64>| t.is_none_or(|t| now >= t.saturating_add(ASK_AGAIN_MS));
            if let Some(bytes) = out
                && due(lacked.left)
            {
                lacked.left = Some(now);
                let deposits = vec![bytes];
                requests.push((w, Request::Deposit { game: id, deposits }));
            }
            if wanted.is_some() && due(lacked.fetched.1) {
                lacked.fetched.1 = Some(now);
                let from = lacked.fetched.0;
                requests.push((w, Request::Deposits { game: id, from }));
            }
        }
        for (w, req) in requests {
            self.request(w, req);
        }
    }

    /// Statements the witness answered to a `Deposit`: the stamp of the deposit this seat
    /// owes, if one is, goes to its table, whose duty posts it. Whether one was taken.
    pub(super) fn stamp_of_lacked(
        &mut self,
        game: GameId,
        statements: &[Vec<u8>],
        store: &dyn Durable,
    ) -> bool {
        let Some(p) = self.games.played_mut(&game) else {
            return false;
        };
        let mut table = p.table_mut();
        let Some(c) = table.computing() else {
            return false;
        };
        let stamped = statements
            .iter()
            .any(|s| matches!(c.handle(Given::Statement(s)), Ok(true)));
        drop(table);
        if !stamped {
            return false;
        }
        self.bot_dirty(game);
        self.run_bots(store);
        true
    }

    /// Deposits fetched from the witness: the one this seat waits for, if among them, is
    /// opened and taken as the other player's message, or found false.
    pub(super) fn fetched_lacked(
        &mut self,
        game: GameId,
        deposits: &[Vec<u8>],
        next: u64,
        store: &dyn Durable,
    ) {
        let Some(slot) = self.games.slot_mut(&game) else {
            return;
        };
        if let Some(l) = slot.lacked_begun() {
            l.fetched.0 = l.fetched.0.max(next);
        }
        let Some(p) = self.games.played_mut(&game) else {
            return;
        };
        let Some((index, hash)) = p.table_mut().computing().and_then(|c| c.deposits().wanted)
        else {
            return;
        };
        let Some(found) = deposits.iter().find(|d| deposit::hash_of(game, d) == hash) else {
            return;
        };
        // A game that wants a message's deposit computes: its variant says how large
        // one may be.
        let Some(cap) = sealed_games::registry::computations(p.table().session().terms().variant())
            .map(|c| c.max_deposit())
        else {
            return;
        };
        let opened = deposit::open_within(game, found, &self.key, cap);
        let Some(p) = self.games.played_mut(&game) else {
            return;
        };
        let refused = match opened {
            None => Some(format!(
                "the deposit left with the witness for message {index} does not open with \
                 this seat's key"
            )),
            Some(bytes) => {
                let taken = match p.table_mut().computing() {
                    Some(c) => c.handle(Given::Message {
                        index,
                        bytes: bytes.clone(),
                    }),
                    None => return,
                };
                match taken {
                    Ok(new) => {
                        if new {
                            self.store_message(game, index, bytes, store);
                        }
                        None
                    }
                    Err(e) => Some(format!(
                        "the deposit left with the witness for message {index} is not it: {e}"
                    )),
                }
            }
        };
        if let Some(why) = refused {
            tracing::warn!(game = %hex::encode(&game.bytes()[..4]), "{why}");
            if let Some(p) = self.games.played_mut(&game)
                && let Some(c) = p.table_mut().computing()
            {
                let _found_false = c.handle(Given::DepositFalse(why));
            }
            self.bot_dirty(game);
            self.run_bots(store);
        }
    }
}
