//! Stamps (protocol version 2, spec/PROTOCOL.md §17.8): the witness's receipts of the
//! envelopes of a game with private logs (Secret Stallmate), on both sides.
//!
//! **As a witness**, a node answers a seat's [`Request::Stamp`] with a signed receipt
//! of each hash: the time it first held that envelope (a public one) or was first
//! asked about it (a private one, of which it only ever sees the hash). A new time is
//! written durably before the answer leaves, and the same time is given to whoever
//! asks again, so the witness never states two times for one envelope. A view at the
//! moment of answering comes last: it tells the seat what the witness's clock reads
//! now (an old stamp's receipt does not).
//!
//! **As a seat**, a node stamps every envelope worth it as soon as its store holds it: the
//! mover's attempts as he makes them, the referee's attempts to answer and the closes
//! that start each period. The referee's duty waits for those stamps, so he answers
//! and closes by the witness's time. After the end, each seat posts what it knows in a
//! stamps item before it closes; a witness silent for [`GIVE_UP_MS`] leaves the seat
//! posting what it has, so a dead witness never keeps a game from closing.

use std::collections::HashMap;

use sealed_protocol::hash::Hash;
use sealed_protocol::session::Command as SessionCommand;
use sealed_protocol::witness::{Receipt, Statement};

use super::durable::{Step, Waiter};
use super::witness::{receipt_key, stored_time};
use super::{Core, Durable, GameId, InId, PeerKey};
use crate::sync::{MAX_STAMP_HASHES, Request, Response};

/// How often a seat asks again while hashes are still unstamped.
const ASK_AGAIN_MS: u64 = 5_000;

/// How long a seat that owes its stamps item waits for a silent witness before it
/// posts what it has and closes.
const GIVE_UP_MS: u64 = 10 * 60 * 1000;

/// Most envelopes a witness stamps for one game: a long game's attempts and acts, with
/// room to spare; more is a seat filling the witness's disk.
const MAX_STAMPS_PER_GAME: usize = 65_536;

/// A seat's asks about one game: each hash asked about and not yet answered, with
/// when it was first and last asked.
#[derive(Clone, Debug, Default)]
pub(super) struct Asking {
    pending: std::collections::BTreeMap<Hash, (u64, u64)>,
}

impl Asking {
    /// Since when the witness has left an ask unanswered, if it has.
    fn unanswered_since(&self) -> Option<u64> {
        self.pending.values().map(|(first, _)| *first).min()
    }
}

/// The stamps a witness is writing, in memory until the write is done: a second ask
/// that comes while the first one's write is in flight gets the same time (and its
/// answer waits behind that write, in the game's order).
#[derive(Debug, Default)]
pub(super) struct Stamped {
    times: HashMap<String, u64>,
    per_game: HashMap<GameId, usize>,
}

impl Core {
    /// The time this witness gave (or is writing for) an envelope of `game`, if any.
    pub(super) fn stamp_time(&self, game: &GameId, h: &Hash, store: &dyn Durable) -> Option<u64> {
        let key = receipt_key(game, h);
        (self.stamped.times.get(&key).copied()).or_else(|| stored_time(store, game, h))
    }

    /// Keeps a time being written, so that an ask before the write lands gets it too.
    pub(super) fn remember_stamp(&mut self, key: String, at: u64) {
        self.stamped.times.insert(key, at);
    }

    /// The write of a time is done: it is in the store, or was lost with a failed
    /// write (and was given to no one: the answers waited for the write).
    /// Returns whether `key` is a receipt's.
    pub(super) fn forget_stamp(&mut self, key: &str) -> bool {
        self.stamped.times.remove(key);
        key.starts_with(super::witness::RECEIPT_PREFIX)
    }

    /// Answers a seat's [`Request::Stamp`], once every new time is durable.
    pub(super) fn serve_stamp(
        &mut self,
        peer: &PeerKey,
        id: InId,
        game: GameId,
        hashes: Vec<[u8; 32]>,
        store: &dyn Durable,
    ) {
        let refuse = |core: &mut Core, why: &str| core.respond(id, Response::Refused(why.into()));
        if hashes.len() > MAX_STAMP_HASHES {
            return refuse(self, "too many hashes in one stamp request");
        }
        // The checks, and a view at this moment: the answer says what the witness's
        // clock reads now, which the receipts of older stamps do not.
        let view = match self.held_now(peer, game, store) {
            Ok((_, view)) => view,
            Err(why) => return refuse(self, why),
        };
        let mut writes = vec![];
        let mut statements = vec![];
        for h in hashes.into_iter().map(Hash) {
            let key = receipt_key(&game, &h);
            let at = match self.stamp_time(&game, &h, store) {
                Some(at) => at,
                None => {
                    let n = self.stamped.per_game.entry(game).or_default();
                    if *n >= MAX_STAMPS_PER_GAME {
                        return refuse(self, "this game has all the stamps it may have");
                    }
                    *n += 1;
                    writes.push((key.clone(), self.now.to_le_bytes().to_vec()));
                    self.remember_stamp(key, self.now);
                    self.now
                }
            };
            let receipt = Statement::Receipt(Receipt {
                game: view.game,
                envelope: h,
                at,
            });
            statements.push(receipt.sign(&self.key).to_bytes());
        }
        statements.push(Statement::View(view).sign(&self.key).to_bytes());
        let w = Waiter::Peer(id);
        self.wait_for(w, 1, None);
        if let Some(e) = self.waiting.get_mut(&w) {
            e.resp = Some(Response::Statements(statements));
        }
        let mut step = Step::default();
        step.writes.meta = writes;
        step.answers.push(w);
        self.stage(game, step, store);
    }

    /// Asks each game's witness about the envelopes this seat holds unstamped, and
    /// posts the stamps item a finished game owes (at once when everything is known,
    /// or after [`GIVE_UP_MS`] of the witness's silence).
    pub(super) fn stamp_round(&mut self, store: &dyn Durable) {
        let mut ids: Vec<GameId> = self.games.played.keys().copied().collect();
        ids.sort();
        self.stamp_round_for(&ids, store);
    }

    /// [`Core::stamp_round`] for these games only (those that just changed: an
    /// attempt to stamp at once, so the referee can answer it).
    pub(super) fn stamp_round_for(&mut self, ids: &[GameId], store: &dyn Durable) {
        for &id in ids {
            // Only what the store holds is stamped: a hash of an envelope whose write
            // is in flight waits for it (durable before visible, even as a hash).
            if self.in_flight.contains_key(&id)
                || !self
                    .games
                    .played
                    .get(&id)
                    .is_some_and(|p| p.table.terms().witness().is_some() && !p.table.is_done())
            {
                continue;
            }
            let Some(p) = self.games.played.get(&id) else {
                continue;
            };
            let Some(w) = p.table.terms().witness().map(|w| w.key) else {
                continue;
            };
            let owes = p.table.owes_stamps();
            let wanted = p.table.stamps_wanted();
            let unstamped = p.table.unstamped();
            let now = self.now;
            let asking = self.stamp_asking.entry(id).or_default();
            asking.pending.retain(|h, _| unstamped.contains(h));
            let silent = asking
                .unanswered_since()
                .is_some_and(|t| now >= t.saturating_add(GIVE_UP_MS));
            if owes && (wanted.as_ref().is_some_and(Vec::is_empty) || silent) {
                let statements = p.table.stamps_known();
                let n = statements.len();
                match self.apply(id, SessionCommand::Stamps(statements), None, store) {
                    Ok(()) => {
                        tracing::info!(game = %hex::encode(id), n, "posted the witness's stamps")
                    }
                    Err(e) => tracing::warn!(game = %hex::encode(id), "stamps refused: {e}"),
                }
                continue;
            }
            // New hashes at once, the unanswered again every few seconds.
            let ask: Vec<Hash> = unstamped
                .into_iter()
                .filter(|h| {
                    asking
                        .pending
                        .get(h)
                        .is_none_or(|(_, last)| now >= last.saturating_add(ASK_AGAIN_MS))
                })
                .collect();
            for h in &ask {
                asking.pending.entry(*h).or_insert((now, now)).1 = now;
            }
            if !ask.is_empty() {
                tracing::debug!(
                    game = %hex::encode(&id[..4]),
                    n = ask.len(),
                    connected = self.peers.connected.contains(&w),
                    "asking the witness for stamps"
                );
            }
            for chunk in ask.chunks(MAX_STAMP_HASHES) {
                let hashes = chunk.iter().map(|h| h.0).collect();
                self.request(w, Request::Stamp { game: id, hashes });
            }
        }
    }

    /// The witness's receipts came: kept by the seat's session (the referee's duty may
    /// now answer or close), and the round goes on at once.
    pub(super) fn stamped(&mut self, game: GameId, statements: Vec<Vec<u8>>, store: &dyn Durable) {
        // One receipt per hash asked and a view: more is not from an honest witness.
        if statements.len() > MAX_STAMP_HASHES + 1 {
            return;
        }
        let now = self.now;
        let Some(p) = self.games.played.get_mut(&game) else {
            return;
        };
        let new = p.table.note_stamps(&statements, now);
        let unstamped = p.table.unstamped();
        tracing::debug!(game = %hex::encode(&game[..4]), new, left = unstamped.len(), "stamps came");
        if let Some(a) = self.stamp_asking.get_mut(&game) {
            a.pending.retain(|h, _| unstamped.contains(h));
        }
        self.bots.dirty.insert(game);
        self.run_bots(store);
    }
}
