//! What a seat hears from its game's witness and posts of it (version 2,
//! spec/PROTOCOL.md §17).
//!
//! The session keeps what the witness said — the time of every public envelope its
//! ledgers give, the stamps of deposits, how far the witness's clock is ahead — and
//! says what it wants: the deposits of the private-log envelopes it holds without a
//! stamp ([`Session::undeposited`]; the node leaves them with the witness, which
//! stamps each), a fresh ledger when a public envelope it must date has no time yet.
//! The referee's duty reads [`Session::witness_time`] and [`Session::witness_now`] to
//! answer and close by the witness's time.
//!
//! After the end of a game with private logs, each seat posts what it knows in a
//! statements item before it closes: the latest ledger it holds (the times of the
//! public acts that start and end Secret Stallmate's periods) and the stamps of the
//! deposits of every private envelope it holds; with a silent witness, the node gives
//! up and the seat posts what it has, so a dead witness never keeps a seat from
//! closing. What the witness said is knowledge only, kept in memory: it repeats each
//! time whenever asked.

use std::collections::BTreeMap;

use super::{Session, SessionError};
use crate::body::{Forfeit, Item, MAX_FORFEIT_STATEMENTS};
use crate::deposit::{self, Deposit};
use crate::hash::Hash;
use crate::ids::{ChainId, EnvRef, LogId};
use crate::keys::PublicKey;
use crate::rules::Rules;
use crate::witness::{SignedStatement, Statement};

/// What a seat has heard from its witness.
#[derive(Clone, Debug, Default)]
pub(super) struct Known {
    /// The witness's stamp of each deposit hash, with the signed bytes.
    stamps: BTreeMap<Hash, (u64, Vec<u8>)>,
    /// The time of each public envelope a ledger dated, by place.
    times: BTreeMap<(ChainId, u64), u64>,
    /// The latest ledgers heard that date envelopes (all signed at the latest such
    /// moment), as signed bytes: what this seat posts, and its defence.
    latest: (u64, Vec<Vec<u8>>),
    /// The least the witness's clock is ahead of this seat's (negative when behind):
    /// a ledger's time minus this seat's clock when it arrived, the largest seen. The
    /// witness signed before the answer arrived, so its clock now is at least this
    /// seat's clock plus this.
    ahead: Option<i128>,
    /// The deposit of each private envelope this seat holds, once computed.
    deposits: BTreeMap<EnvRef, Deposit>,
}

/// What a seat owes with its witness now, in a game that times its private logs with
/// one ([`Session::witness_due`]): the one answer a node reads to know what to ask the
/// witness for and whether to post what it heard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessDue {
    /// The deposits of private-log envelopes held that the witness has not stamped yet
    /// ([`Session::undeposited`]).
    pub undeposited: Vec<Deposit>,
    /// Whether a public act held has no time from the witness yet: the node asks for a
    /// fresh ledger ([`Session::wants_ledger`]).
    pub wants_ledger: bool,
    /// Where this seat stands with its statements item.
    pub statements: StatementsOwed,
    /// What it posts in that item once it does ([`Session::stamps_known`]): the latest
    /// ledgers heard and the stamps of the private envelopes held; empty while
    /// `statements` is [`StatementsOwed::No`].
    pub known: Vec<Vec<u8>>,
}

/// Where a seat stands with the statements item it posts after the end of a game with
/// private logs (spec/PROTOCOL.md §17.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatementsOwed {
    /// Not owed: the game is on, or this seat has posted one since the end, or closed.
    No,
    /// Owed, but this seat does not hold the whole game as its audit will read it yet
    /// (every setup and every period's log).
    Incomplete,
    /// Owed, the whole game held, but a deposit or a public act has no time yet: the
    /// node posts anyway once the witness has been silent too long.
    Waiting,
    /// Owed, and every time is known: the seat posts at once.
    Ready,
}

/// Most private envelopes a seat has the witness stamp: every attempt and answer of a
/// long game.
pub const MAX_STAMPED: usize = 2048;

/// Most bytes of statements in one envelope: room below the envelope cap for the rest.
const STATEMENT_BYTES_PER_ENVELOPE: usize = crate::wire::MAX_MESSAGE - 4096;

impl<R: Rules> Session<R> {
    fn witness_key(&self) -> Option<PublicKey> {
        PublicKey::from_bytes(&self.engine.terms().witness()?.key).ok()
    }

    /// The witness's signed statements arrived at this seat's time `now`: a ledger
    /// dates public envelopes and tells the witness's clock, a stamp dates a deposit;
    /// anything not of the game's witness is ignored. Returns how many times were new.
    pub fn note_witness(&mut self, statements: &[Vec<u8>], now: u64) -> usize {
        let Some(key) = self.witness_key() else {
            return 0;
        };
        let terms = self.engine.terms();
        let (game, seats) = (terms.game(), terms.seat_count());
        let mut new = 0;
        for b in statements {
            let Ok(s) = SignedStatement::from_bytes(b, game, &key, seats) else {
                continue;
            };
            match &s.statement {
                Statement::Stamp(st) => {
                    if let std::collections::btree_map::Entry::Vacant(e) =
                        self.witness.stamps.entry(st.deposit)
                    {
                        e.insert((st.at, b.clone()));
                        new += 1;
                    }
                }
                Statement::Ledger(l) => {
                    for h in &l.chains {
                        for (seq, t) in h.places() {
                            if self.witness.times.insert((h.chain, seq), t).is_none() {
                                new += 1;
                            }
                        }
                    }
                    // A ledger of counts alone (a deposit's answer) tells the clock but
                    // dates nothing: it is not what this seat posts.
                    let dates = l.chains.iter().any(|h| !h.times.is_empty());
                    let latest = &mut self.witness.latest;
                    if dates && l.at > latest.0 {
                        *latest = (l.at, vec![]);
                    }
                    if dates && l.at == latest.0 && !latest.1.contains(b) {
                        latest.1.push(b.clone());
                    }
                    let ahead = i128::from(l.at) - i128::from(now);
                    self.witness.ahead = Some(self.witness.ahead.map_or(ahead, |a| a.max(ahead)));
                }
            }
        }
        new
    }

    /// The witness's time of the envelope at `at`, if it has told this seat: a public
    /// one's from a ledger, a private one's from the stamp of its deposit.
    pub fn witness_time(&self, at: EnvRef) -> Option<u64> {
        if at.chain.log.is_public() {
            return self.witness.times.get(&(at.chain, at.seq)).copied();
        }
        let hash = match self.witness.deposits.get(&at) {
            Some(d) => d.hash,
            None => self.seal(at)?.hash,
        };
        self.witness.stamps.get(&hash).map(|(t, _)| *t)
    }

    /// The deposit of the private envelope at `at` for the other seat of its log.
    fn seal(&self, at: EnvRef) -> Option<Deposit> {
        let to = self.engine.recipient(at.chain.log, at.chain.seat)?;
        let env = self.engine.envelope(at)?;
        Some(deposit::seal(self.engine.terms().game(), &env.bytes, &to))
    }

    /// [`Session::seal`], kept: sealing costs two X25519 operations.
    fn deposit_of(&mut self, at: EnvRef) -> Option<Deposit> {
        if let Some(d) = self.witness.deposits.get(&at) {
            return Some(d.clone());
        }
        let d = self.seal(at)?;
        self.witness.deposits.insert(at, d.clone());
        Some(d)
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

    /// Everything the witness said to this seat that it keeps: the stamps and the
    /// latest dated ledgers, as signed bytes (fact, whatever happens to the session).
    pub fn witness_said(&self) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = self
            .witness
            .stamps
            .values()
            .map(|(_, b)| b.clone())
            .collect();
        out.extend(self.witness.latest.1.iter().cloned());
        out
    }

    /// Whether this game times private logs with the witness: it names one and has
    /// private logs.
    pub fn times_private(&self) -> bool {
        let e = &self.engine;
        e.terms().witness().is_some() && e.rules().audience(LogId(1)).is_some()
    }

    /// The private-log envelopes this seat holds (its own and those it received), at
    /// most [`MAX_STAMPED`].
    fn private_held(&self) -> Vec<EnvRef> {
        let (chains, _) = self.engine.stored();
        let mut out: Vec<EnvRef> = chains
            .into_iter()
            .filter(|s| !s.env.unsigned.log.is_public())
            .map(|s| s.at())
            .filter(|at| self.engine.processed(at.chain) > at.seq)
            .collect();
        out.truncate(MAX_STAMPED);
        out
    }

    /// The deposits of the private-log envelopes this seat holds that the witness has
    /// not stamped yet, in a game with a witness and private logs: what the node leaves
    /// with the witness (for its own envelopes, the delivery that proves the other seat
    /// could have had them; for received ones, the stamp the referee's duty waits for).
    pub fn undeposited(&mut self) -> Vec<Deposit> {
        if !self.times_private() {
            return vec![];
        }
        let mut out = vec![];
        for at in self.private_held() {
            if let Some(d) = self.deposit_of(at)
                && !self.witness.stamps.contains_key(&d.hash)
            {
                out.push(d);
            }
        }
        out
    }

    /// Whether a public act this seat holds has no time from the witness yet, in a game
    /// with a witness and private logs: then the node asks for a fresh ledger.
    pub fn wants_ledger(&self) -> bool {
        self.times_private()
            && self
                .engine
                .main_line()
                .iter()
                .any(|(at, _)| !self.witness.times.contains_key(&(at.chain, at.seq)))
    }

    /// Whether this seat still owes its statements item: the game is over, the terms
    /// name a witness, the game has private logs, and this seat has neither posted one
    /// since the end nor closed.
    pub fn owes_stamps(&self) -> bool {
        let e = &self.engine;
        e.is_over()
            && e.terms().witness().is_some()
            && e.private_logs().next().is_some()
            && !e.has_closed(self.seat)
            && !e.stamped_by().contains(&self.seat)
    }

    /// Whether this seat owes its statements item and holds the whole game as its audit
    /// will read it (every setup and every period's log) with every time from the
    /// witness: then it posts at once. `None` before it holds the whole game.
    pub fn stamps_ready(&mut self) -> Option<bool> {
        if !self.owes_stamps() {
            return None;
        }
        self.engine.revealed()?;
        if !self.engine.audit().gaps.is_empty() {
            return None;
        }
        Some(self.undeposited().is_empty() && !self.wants_ledger())
    }

    /// What this seat owes with its witness now, or `None` in a game that does not time
    /// its private logs with a witness ([`Session::times_private`]).
    pub fn witness_due(&mut self) -> Option<WitnessDue> {
        if !self.times_private() {
            return None;
        }
        let statements = match (self.owes_stamps(), self.stamps_ready()) {
            (false, _) => StatementsOwed::No,
            (true, None) => StatementsOwed::Incomplete,
            (true, Some(false)) => StatementsOwed::Waiting,
            (true, Some(true)) => StatementsOwed::Ready,
        };
        let known = match statements {
            StatementsOwed::No => vec![],
            _ => self.stamps_known(),
        };
        Some(WitnessDue {
            undeposited: self.undeposited(),
            wants_ledger: self.wants_ledger(),
            statements,
            known,
        })
    }

    /// What this seat posts before it closes: the latest ledgers it heard and the stamp
    /// of every deposit of a private envelope it holds.
    pub fn stamps_known(&mut self) -> Vec<Vec<u8>> {
        let mut out = self.witness.latest.1.clone();
        for at in self.private_held() {
            if let Some(d) = self.deposit_of(at)
                && let Some((_, b)) = self.witness.stamps.get(&d.hash)
            {
                out.push(b.clone());
            }
        }
        out
    }

    /// What this seat posts in its defence when a forfeit stood against it: the latest
    /// ledgers the witness gave it, when they contradict the statements posted in the
    /// game (a witness that signed a ledger dated past this seat's answer, lacking it).
    /// Then no time result stands. `None` when there is nothing to show.
    pub(super) fn defence(&self) -> Option<Vec<Vec<u8>>> {
        let e = &self.engine;
        if !e.forfeits().iter().any(|f| f.1 == self.seat) || e.witness_lied().is_some() {
            return None;
        }
        let mine = &self.witness.latest.1;
        (!mine.is_empty() && e.contradicted_by(mine).is_some()).then(|| mine.clone())
    }

    /// Posts statements of the witness for the record, as many statements items as
    /// they need (an empty list posts one empty item: this seat has none).
    pub(super) fn post_statements(
        &mut self,
        statements: Vec<Vec<u8>>,
        now: u64,
    ) -> Result<(), SessionError> {
        let bodies: Vec<Vec<Item>> = if statements.is_empty() {
            vec![vec![Item::Statements(vec![])]]
        } else {
            chunks(statements)
                .into_iter()
                .map(|c| vec![Item::Statements(c)])
                .collect()
        };
        self.send_all(LogId::PUBLIC, bodies, now)
    }

    /// Posts a forfeit; statements that do not fit its envelope go in statements items
    /// before it (the forfeit reads every statement of its causal past). Nothing is
    /// sent unless the forfeit, after them, stands.
    pub(super) fn post_forfeit(
        &mut self,
        secrets: &super::Secrets,
        f: Forfeit,
        now: u64,
    ) -> Result<(), SessionError> {
        let mut parts = chunks(f.statements);
        let last = parts.pop().unwrap_or_default();
        let mut bodies: Vec<Vec<Item>> = parts
            .into_iter()
            .map(|c| vec![Item::Statements(c)])
            .collect();
        let mut body = self.due_items(secrets);
        body.push(Item::Forfeit(Forfeit {
            against: f.against,
            statements: last,
        }));
        bodies.push(body);
        self.send_all(LogId::PUBLIC, bodies, now)
    }
}

/// Statements in groups that each fit one item and one envelope, in order.
fn chunks(statements: Vec<Vec<u8>>) -> Vec<Vec<Vec<u8>>> {
    let mut out: Vec<Vec<Vec<u8>>> = vec![];
    let mut bytes = 0;
    for s in statements {
        let fits = out.last().is_some_and(|c| {
            c.len() < MAX_FORFEIT_STATEMENTS && bytes + s.len() + 8 <= STATEMENT_BYTES_PER_ENVELOPE
        });
        if !fits {
            out.push(vec![]);
            bytes = 0;
        }
        bytes += s.len() + 8;
        out.last_mut().expect("pushed").push(s);
    }
    out
}
