//! The witness's times of a game with private logs (Secret Stallmate; protocol version
//! 2, spec/PROTOCOL.md §17), as a seat.
//!
//! A seat leaves every private envelope it holds with the witness as a *deposit*,
//! sealed to the other seat of its log, as soon as its store holds it: the mover's
//! attempts as he makes them (the witness then serves them to the referee: the stamp
//! proves the referee could have had them), the referee's answers likewise, and each
//! envelope received (the same bytes: one deposit, one time, whoever leaves it first).
//! The witness answers with a stamp of each; the referee's duty waits for those, so he
//! answers and closes by the witness's time. A seat also fetches the deposits left for
//! it, so an attempt that reached the witness reaches the referee though the direct
//! path failed, and asks for a ledger when a public act it holds has no time yet.
//!
//! After the end each seat posts what it knows in a statements item before it closes;
//! a witness silent for [`GIVE_UP_MS`] leaves the seat posting what it has, so a dead
//! witness never keeps a game from closing.

use sealed_protocol::deposit;
use sealed_protocol::hash::Hash;
use sealed_protocol::session::Command as SessionCommand;
use sealed_protocol::session::StatementsOwed;

use super::game::asking::Asking;
use super::{Core, Durable, GameId};
use crate::message::{MAX_DEPOSITS, Request};

/// How often a seat asks again while deposits are unstamped, fetches deposits left for
/// it, or asks for a ledger a public act's time needs.
const ASK_AGAIN_MS: u64 = 5_000;

/// How often a seat fetches the deposits left for it while its game runs: the path an
/// attempt takes when the direct one fails, so about as often as a repair round.
const FETCH_EVERY_MS: u64 = 2_000;

/// How long a seat that owes its statements item waits for times the witness does not
/// give (silent, or never holding what it should date) before it posts what it has and
/// closes.
const GIVE_UP_MS: u64 = 10 * 60 * 1000;

impl Core {
    /// For each game: leaves the unstamped deposits with the witness, fetches those left
    /// for this seat, asks for a ledger a public act's time needs, and posts the
    /// statements item a finished game owes (at once when everything is known, or after
    /// [`GIVE_UP_MS`] of the witness's silence).
    pub(super) fn stamp_round(&mut self, store: &dyn Durable) {
        let mut ids: Vec<GameId> = self.games.all_played().map(|(id, _)| id).copied().collect();
        ids.sort();
        self.stamp_round_for(&ids, store);
    }

    /// [`Core::stamp_round`] for these games only (those that just changed: an attempt
    /// to deposit at once, so the referee can answer it).
    pub(super) fn stamp_round_for(&mut self, ids: &[GameId], store: &dyn Durable) {
        for &id in ids {
            // Only what the store holds is deposited: an envelope whose write is in
            // flight waits for it (durable before visible).
            if self.games.slot(&id).is_some_and(|s| s.writing()) {
                continue;
            }
            let now = self.now;
            let Some(p) = self.games.played_mut(&id) else {
                continue;
            };
            let terms = p.table().session().terms().clone();
            let Some(w) = super::seats::witness_key(&terms) else {
                continue;
            };
            if p.table().session().phase().is_done() {
                continue;
            }
            let Some(due) = p.table_mut().session_mut().witness_due() else {
                continue;
            };
            let Some(asking) = self.games.slot_mut(&id).map(|s| s.stamps_asking_mut()) else {
                continue;
            };
            let left: Vec<Hash> = due.undeposited.iter().map(|d| d.hash).collect();
            asking.pending.retain(|h, _| left.contains(h));
            if left.is_empty() && !due.wants_ledger {
                asking.wanting = None;
            } else {
                asking.wanting.get_or_insert(now);
            }
            let silent = asking
                .wanting
                .is_some_and(|t| now >= t.saturating_add(GIVE_UP_MS));
            let post = match due.statements {
                StatementsOwed::Ready => true,
                StatementsOwed::Incomplete | StatementsOwed::Waiting => silent,
                StatementsOwed::No => false,
            };
            if post {
                let statements = due.known;
                let n = statements.len();
                match self.apply(id, SessionCommand::Statements(statements), None, store) {
                    Ok(()) => {
                        tracing::info!(game = %hex::encode(id), n, "posted the witness's times")
                    }
                    Err(e) => tracing::warn!(game = %hex::encode(id), "statements refused: {e}"),
                }
                continue;
            }
            let mut requests = vec![];
            // New deposits at once, the unanswered again every few seconds.
            let mut sent: Vec<Vec<u8>> = vec![];
            for d in due.undeposited {
                let last = asking.pending.get(&d.hash).map(|(_, last)| *last);
                if last.is_none_or(|l| now >= l.saturating_add(ASK_AGAIN_MS)) {
                    asking.pending.entry(d.hash).or_insert((now, now)).1 = now;
                    sent.push(d.bytes);
                }
            }
            for chunk in sent.chunks(MAX_DEPOSITS) {
                requests.push(Request::Deposit {
                    game: id,
                    deposits: chunk.to_vec(),
                });
            }
            if due.wants_ledger
                && asking
                    .ledger_asked
                    .is_none_or(|t| now >= t.saturating_add(ASK_AGAIN_MS))
            {
                asking.ledger_asked = Some(now);
                requests.push(Request::Witness { game: id });
            }
            // Deposits left for this seat: an attempt whose direct path failed.
            if now >= asking.fetched.1.saturating_add(FETCH_EVERY_MS) {
                asking.fetched.1 = now;
                requests.push(Request::Deposits {
                    game: id,
                    from: asking.fetched.0,
                });
            }
            for req in requests {
                self.request(w, req);
            }
        }
    }

    /// This seat's dealings over game `game`'s deposits, once it has begun them.
    fn stamps_of(&mut self, game: &GameId) -> Option<&mut Asking> {
        self.games.slot_mut(game)?.stamps_asking_begun()
    }

    /// The witness's statements for deposits came: kept by the seat's session (the
    /// referee's duty may now answer or close), and the round goes on at once.
    pub(super) fn stamped(&mut self, game: GameId, statements: Vec<Vec<u8>>, store: &dyn Durable) {
        // One stamp per deposit left and a ledger: more is not from an honest witness.
        if statements.len() > MAX_DEPOSITS + 1 {
            return;
        }
        if self.stamp_of_lacked(game, &statements, store) {
            return;
        }
        let Some(new) = self.take_statements(game, &statements, store) else {
            return;
        };
        let Some(p) = self.games.played_mut(&game) else {
            return;
        };
        let left: Vec<Hash> = p
            .table_mut()
            .session_mut()
            .witness_due()
            .map(|due| due.undeposited.iter().map(|d| d.hash).collect())
            .unwrap_or_default();
        tracing::debug!(game = %hex::encode(&game.bytes()[..4]), new, left = left.len(), "stamps came");
        if let Some(a) = self.stamps_of(&game) {
            a.pending.retain(|h, _| left.contains(h));
        }
        self.bot_dirty(game);
        self.run_bots(store);
    }

    /// Deposits fetched from the witness: those sealed to this seat are opened and taken
    /// as envelopes from the witness (a mailbox of the game); the rest are others'.
    pub(super) fn fetched(
        &mut self,
        game: GameId,
        deposits: Vec<Vec<u8>>,
        next: u64,
        store: &dyn Durable,
    ) {
        self.fetched_lacked(game, &deposits, next, store);
        let Some(p) = self.games.played(&game) else {
            return;
        };
        let Some(w) = super::seats::witness_key(p.table().session().terms()) else {
            return;
        };
        if let Some(a) = self.stamps_of(&game) {
            a.fetched.0 = a.fetched.0.max(next);
        }
        let envelopes: Vec<Vec<u8>> = deposits
            .iter()
            .filter_map(|d| deposit::open(game, d, &self.key))
            .collect();
        if !envelopes.is_empty() {
            self.take_envelopes(w, Some(game), envelopes, None, store);
        }
    }
}
