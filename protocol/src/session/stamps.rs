//! The witness's stamps a seat posts before it closes a game with private logs
//! (version 2, spec/PROTOCOL.md §17.8). The game's audit places each private act in the
//! witness's time only from receipts someone posted, so every seat posts what the
//! witness says of the envelopes it holds: the public acts (which start and end Secret
//! Stallmate's periods) and every private envelope (the attempts and answers).
//!
//! The session only says what it wants and waits; the node asks the witness and hands
//! the signed answers back ([`Command::Stamps`]), or an empty list once it gives up, so
//! a silent witness never keeps a seat from closing.
//!
//! During the game the node also stamps every envelope the seat holds as it comes
//! ([`Session::unstamped`], [`Session::note_stamps`]): the mover's attempts as he makes
//! them, and for the referee the attempts he must answer and the closes that start each
//! period, so that he answers and closes by the witness's time (a game's duty reads
//! [`Session::stamp`] and [`Session::witness_now`]). What the witness said is knowledge
//! only, kept in memory; the witness repeats a receipt's time whenever asked.
//!
//! [`Command::Stamps`]: super::Command::Stamps

use std::collections::BTreeMap;

use super::{Session, SessionError};
use crate::body::{Item, MAX_FORFEIT_STATEMENTS};
use crate::hash::Hash;
use crate::ids::LogId;
use crate::keys::PublicKey;
use crate::rules::Rules;
use crate::witness::{SignedStatement, Statement};

/// What a seat has heard from its witness.
#[derive(Clone, Debug, Default)]
pub(super) struct Known {
    /// The witness's time of each envelope hash it receipted, with the signed bytes.
    stamps: BTreeMap<Hash, (u64, Vec<u8>)>,
    /// The least the witness's clock is ahead of this seat's (negative when behind):
    /// a view's time minus this seat's clock when the view arrived, the largest seen.
    /// The witness signed before the answer arrived, so its clock now is at least this
    /// seat's clock plus this.
    ahead: Option<i128>,
}

/// Most envelope hashes a seat asks the witness about: every act of a long game, and
/// its private logs' envelopes up to this many in all.
pub const MAX_STAMPED: usize = 2048;

impl<R: Rules> Session<R> {
    /// The witness's signed statements arrived at this seat's time `now`: receipts are
    /// kept as stamps, a view tells the witness's clock; anything not signed by the
    /// game's witness for this game is ignored. Returns how many stamps were new.
    pub fn note_stamps(&mut self, statements: &[Vec<u8>], now: u64) -> usize {
        let Some(key) = self
            .engine
            .terms()
            .witness()
            .and_then(|w| PublicKey::from_bytes(&w.key).ok())
        else {
            return 0;
        };
        let game = self.engine.terms().game();
        let mut new = 0;
        for b in statements {
            let Ok(s) = SignedStatement::from_bytes(b, game, &key) else {
                continue;
            };
            match &s.statement {
                Statement::Receipt(r) => {
                    if self.witness.stamps.contains_key(&r.envelope) {
                        continue;
                    }
                    self.witness.stamps.insert(r.envelope, (r.at, b.clone()));
                    new += 1;
                }
                // Only a view says what the witness's clock read when it answered: a
                // receipt may be of a stamp made long before.
                Statement::View(v) => {
                    let ahead = i128::from(v.at) - i128::from(now);
                    self.witness.ahead = Some(self.witness.ahead.map_or(ahead, |a| a.max(ahead)));
                }
            }
        }
        new
    }

    /// The witness's time of an envelope, if it has told this seat.
    pub fn stamp(&self, envelope: &Hash) -> Option<u64> {
        self.witness.stamps.get(envelope).map(|(t, _)| *t)
    }

    /// The least the witness's clock can read when this seat's reads `now`; `None`
    /// before the witness has said anything.
    pub fn witness_now(&self, now: u64) -> Option<u64> {
        let t = i128::from(now) + self.witness.ahead?;
        Some(u64::try_from(t.max(0)).unwrap_or(u64::MAX))
    }

    /// The earliest time by this seat's clock at which the witness's clock surely reads
    /// past `t` (the inverse of [`Session::witness_now`]); `None` before the witness
    /// has said anything.
    pub fn witness_past(&self, t: u64) -> Option<u64> {
        let local = i128::from(t) + 1 - self.witness.ahead?;
        Some(u64::try_from(local.max(0)).unwrap_or(u64::MAX))
    }

    /// The envelopes this seat holds that are worth a stamp and have none yet, in a
    /// game with a witness and private logs: every public act and every private-log
    /// envelope, public acts first, at most [`MAX_STAMPED`].
    pub fn unstamped(&self) -> Vec<Hash> {
        self.stampable()
            .into_iter()
            .filter(|h| !self.witness.stamps.contains_key(h))
            .collect()
    }

    fn stampable(&self) -> Vec<Hash> {
        let e = &self.engine;
        if e.terms().witness().is_none() || e.rules().audience(LogId(1)).is_none() {
            return vec![];
        }
        let mut hashes: Vec<Hash> = e
            .main_line()
            .iter()
            .filter_map(|(at, _)| e.envelope(*at).map(|s| s.hash))
            .collect();
        let (chains, _) = e.stored();
        hashes.extend(
            chains
                .into_iter()
                .filter(|s| !s.env.unsigned.log.is_public())
                .map(|s| s.hash),
        );
        hashes.truncate(MAX_STAMPED);
        hashes
    }

    /// Whether this seat still owes its stamps item: the game is over, the terms name a
    /// witness, the game has private logs, and this seat has neither posted one nor
    /// closed.
    pub fn owes_stamps(&self) -> bool {
        let e = &self.engine;
        e.is_over()
            && e.terms().witness().is_some()
            && e.private_logs().next().is_some()
            && !e.has_closed(self.seat)
            && !e.stamped_by().contains(&self.seat)
    }

    /// The envelope hashes to ask the witness about before posting, once this seat
    /// owes its stamps and holds the whole game as its audit will read it (every setup
    /// and every period's log); `None` before. Empty when it knows them all already.
    pub fn stamps_wanted(&self) -> Option<Vec<Hash>> {
        if !self.owes_stamps() {
            return None;
        }
        let e = &self.engine;
        e.revealed()?;
        if !e.audit().gaps.is_empty() {
            return None;
        }
        Some(self.unstamped())
    }

    /// Posts every receipt this seat knows of the envelopes it holds (after the node
    /// asked for [`Session::stamps_wanted`]).
    pub fn stamps_known(&self) -> Vec<Vec<u8>> {
        self.stampable()
            .iter()
            .filter_map(|h| self.witness.stamps.get(h).map(|(_, b)| b.clone()))
            .collect()
    }

    /// Posts the witness's signed receipts, at most 256 to an envelope; an empty list
    /// posts one empty item (this seat has none).
    pub(super) fn post_stamps(
        &mut self,
        statements: Vec<Vec<u8>>,
        now: u64,
    ) -> Result<(), SessionError> {
        if !self.owes_stamps() {
            return Err(SessionError::Refused("no stamps are owed".into()));
        }
        if statements.is_empty() {
            return self.send(LogId::PUBLIC, vec![Item::Stamps(vec![])], now);
        }
        for chunk in statements.chunks(MAX_FORFEIT_STATEMENTS) {
            self.send(LogId::PUBLIC, vec![Item::Stamps(chunk.to_vec())], now)?;
        }
        Ok(())
    }
}
