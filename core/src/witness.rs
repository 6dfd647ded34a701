//! A node as a game's witness (`sealed node --witness`; protocol version 2,
//! spec/PROTOCOL.md §17): the mailbox of the games that name it their witness, and
//! more.
//!
//! **Times.** The witness dates each public envelope when it first holds it together
//! with its whole public causal past — every earlier envelope of its chain and, through
//! acknowledgements, of the others. So an envelope that acknowledges something nobody
//! sent is never dated, never counted in a ledger, and answers nobody's wait; and a
//! seat cannot date its move by showing the witness anything before the move itself
//! (a deposit's stamp is another statement, never read as a public envelope's time).
//! A time is written in the same durable write as the envelope that completed it
//! (§11.2), and is always later than every ledger signed before it.
//!
//! **Ledgers.** To a seat's `Witness { game }` the witness answers ledgers: what it
//! holds of every public chain now, with every envelope's time — split into several at
//! the same moment when one would be too large, never cut. A ledger states only what is
//! durable, at a moment before every time still being written, so no later statement
//! can contradict it.
//!
//! **Deposits.** A seat of a game with private logs leaves each private envelope with
//! the witness sealed to the other seat of its log (`sealed_protocol::deposit`): the
//! witness stores the bytes, stamps the first time it held them (durable before the
//! answer), and serves every deposit of the game to its seats. It never reads one.
//!
//! **Budgets.** Deposits are charged to the game's proposer as envelopes are
//! (`quota.rs`), at most 65,536 per game, counted in the store, and 64 per request of
//! at most an envelope's size each, or one alone of at most a computation's message
//! (`serve_deposit`; Secret Stallmate without a referee leaves a message its receiver
//! lacks so, spec/GAMES.md §5.15); a ledger is answered per `Witness` request, charged
//! as one more request plus a dormant game's envelopes (`sync.rs` `cost`). An answer to
//! `Deposits` reads only the deposits it carries, from the number asked on, and is paid
//! for before anything is read: the most it can read (a computation's message, or a
//! MiB in 4096 deposits) at a token per KiB, what it did not read given back
//! (`serve_deposits`). How long it then waits to be written is the shell's budget
//! (`sealed_node::sync::owed`).
//!
//! In code: an envelope's time is written with it (`receipts`); a ledger's moment and
//! the ledgers (`ledger_moment`, `ledgers`); a deposit's stamp is written before the
//! answer leaves, and forgotten with a failed write (`written_time`).
//! `core/sim/tests/witness_sim.rs` checks them against the witness's store.
//!
//! About 700 lines, over the ~600 of the style: taking a deposit, stamping it, charging
//! it (to its seat, or past the quotas to its seat's reserve, `reserve.rs`) and serving
//! deposits back share their counts and keys, kept in one place.

use std::collections::{BTreeMap, HashMap};

use sealed_protocol::deposit::{self, MAX_DEPOSIT};
use sealed_protocol::envelope::Signed;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::proposal::Terms;
use sealed_protocol::witness::{Held as HeldChain, Ledger, Stamp, Statement};

use super::game::queue::{Step, Waiter};
use super::game::witnessed::{DepositCount, RECEIPT_PREFIX, Witnessed, receipt_key};
use super::sync::answer_cost;
use super::{Core, Durable, GameId, InId, PeerKey};
use crate::message::{MAX_DEPOSITS, Response};
use crate::record::Usage;
use crate::refusal::PeerRefusal;

/// How every deposit stamp's store key begins.
const STAMP_PREFIX: &str = "stamp/";
/// How every deposit's store key begins (then the game and its number).
const DEPOSIT_PREFIX: &str = "deposit/";
/// The key of a game's count of deposits.
const DEPOSIT_COUNT_PREFIX: &str = "deposits/";

/// Most deposits a witness keeps for one game: a long game's attempts and answers,
/// with room to spare; more is a seat filling the witness's disk. Each seat has its
/// share of it ([`seat_cap`]): a seat that fills its own leaves the others theirs
/// (issue 53: the opponent who filled the game's deposits made the mover's attempts
/// impossible to date, and the mover lose on time).
const MAX_DEPOSITS_PER_GAME: u64 = 65_536;

/// A seat's share of [`MAX_DEPOSITS_PER_GAME`] in a game of `seats` seats.
fn seat_cap(seats: usize) -> u64 {
    MAX_DEPOSITS_PER_GAME / seats.max(1) as u64
}

/// Most deposit bytes in one answer to a fetch (but one deposit alone, which may be
/// larger: a computation's message).
const DEPOSITS_PER_ANSWER: usize = 1024 * 1024;

/// Most deposits in one answer to a fetch: 1 MiB of envelopes of 256 bytes, far inside
/// a message's item cap.
const ENTRIES_PER_ANSWER: usize = 4096;

/// The largest deposit alone in its request the witness takes for a game under
/// `terms`: one of its computations' messages if its players compute together
/// (spec/PROTOCOL.md §17.10, spec/GAMES.md §5.15), else an envelope. The game's limit
/// comes from the registry, so the witness names no game.
fn alone_cap(terms: &Terms) -> usize {
    sealed_games::registry::computations(terms.variant())
        .map_or(MAX_DEPOSIT, |c| c.max_deposit().max(MAX_DEPOSIT))
}

/// The most deposit bytes one answer to a fetch for a game under `terms` reads and
/// carries: a MiB of them, or the largest deposit the game takes alone
/// (`serve_deposit`), which an answer carries whole.
fn most_answered(terms: &Terms) -> usize {
    alone_cap(terms).max(DEPOSITS_PER_ANSWER)
}

fn stamp_key(game: &GameId, deposit: &Hash) -> String {
    format!(
        "{STAMP_PREFIX}{}/{}",
        hex::encode(game),
        hex::encode(deposit.0)
    )
}

fn deposit_key(game: &GameId, n: u64) -> String {
    format!("{DEPOSIT_PREFIX}{}/{n:016x}", hex::encode(game))
}

fn count_key(game: &GameId) -> String {
    format!("{DEPOSIT_COUNT_PREFIX}{}", hex::encode(game))
}

/// The key of one seat's count of deposits in a game (under the game's, so removed with
/// it, `holding.rs`).
fn seat_count_key(game: &GameId, seat: Seat) -> String {
    format!("{DEPOSIT_COUNT_PREFIX}{}/{}", hex::encode(game), seat.0)
}

fn read_u64(store: &dyn Durable, key: &str) -> Option<u64> {
    let bytes = store.meta(key).ok()??;
    <[u8; 8]>::try_from(bytes.as_slice())
        .ok()
        .map(u64::from_le_bytes)
}

/// The stamps and times a witness is writing, in memory until the write is done: an
/// ask that comes while a write is in flight gets the same time (its answer waits
/// behind that write, in the game's order), and no ledger is dated at or after a time
/// not yet durable.
#[derive(Debug, Default)]
pub(super) struct Writing {
    times: HashMap<String, u64>,
}

impl Core {
    /// Whether this node is the witness of a game with these terms.
    pub(super) fn witnesses(&self, terms: &Terms) -> bool {
        self.cfg.witness && terms.witness().is_some_and(|w| w.key == self.key())
    }

    /// A time for something first held now: later than every ledger signed before.
    fn fresh_time(&self) -> u64 {
        self.now.max(self.last_view.saturating_add(1))
    }

    /// The times for envelopes first stored now, if this node witnesses the game: every
    /// envelope they complete (with its causal past) is dated, in the same write.
    pub(super) fn receipts(
        &mut self,
        game: GameId,
        fresh: &[Vec<u8>],
        store: &dyn Durable,
    ) -> Vec<(String, Vec<u8>)> {
        let Some(terms) = self.games.terms(&game).cloned() else {
            return vec![];
        };
        if !self.witnesses(&terms) {
            return vec![];
        }
        let at = self.fresh_time();
        let Some(r) = self.games.relayed_mut(&game) else {
            return vec![];
        };
        let held = r.witnessed(|| Witnessed::load(&terms, &game, store));
        // Verified as they were taken, a moment ago.
        for s in fresh
            .iter()
            .filter_map(|b| Signed::parse_kept(&terms, b).ok())
        {
            held.add(&s);
        }
        let dated = held.complete(at);
        let mut out = vec![];
        for h in dated {
            let key = receipt_key(&game, &h);
            self.writing.times.insert(key.clone(), at);
            out.push((key, at.to_le_bytes().to_vec()));
        }
        out
    }

    /// The write of a time or a stamp is done: it is in the store, or was lost with a
    /// failed write (and was given to no one: the answers waited for the write).
    /// Returns whether `key` is one of the witness's.
    pub(super) fn written_time(&mut self, key: &str, ok: bool) -> bool {
        self.writing.times.remove(key);
        if key.starts_with(DEPOSIT_COUNT_PREFIX) {
            if !ok {
                // Read again from the store: the count written is lost.
                for (_, slot) in self.games.slots_mut() {
                    slot.set_deposit_count(None);
                }
            }
            return true;
        }
        key.starts_with(RECEIPT_PREFIX)
            || key.starts_with(STAMP_PREFIX)
            || key.starts_with(DEPOSIT_PREFIX)
    }

    /// The game and terms a seat `peer` asks its witness about, or why not.
    fn witnessed_game(&self, peer: &PeerKey, game: &GameId) -> Result<Terms, PeerRefusal> {
        let r = self.games.relayed(game).ok_or(PeerRefusal::NotWitnessed)?;
        if !self.witnesses(r.terms()) {
            return Err(PeerRefusal::NotTheWitness);
        }
        if r.terms().seat_of(peer.as_bytes()).is_none() {
            return Err(PeerRefusal::NotWitnessAsker);
        }
        Ok(r.terms().clone())
    }

    /// The moment of a ledger signed now: not before the last one signed, and before
    /// every time still being written for this game (which it cannot state yet).
    fn ledger_moment(&mut self, game: &GameId) -> u64 {
        let prefix = format!("{RECEIPT_PREFIX}{}/", hex::encode(game));
        let pending = self
            .writing
            .times
            .iter()
            .filter(|(k, _)| k.starts_with(&prefix))
            .map(|(_, t)| *t)
            .min();
        let at = self
            .last_view
            .max(pending.map_or(self.now, |p| self.now.min(p.saturating_sub(1))));
        self.last_view = at;
        at
    }

    /// What this witness durably holds of `game` at this moment, as ledgers: one, or a
    /// long game's split at one moment into several, each with every chain's count and
    /// head and the times of a run of envelopes. `with_times` false gives one ledger of
    /// counts alone (it tells the asker the witness's clock).
    pub(super) fn ledgers(
        &mut self,
        peer: &PeerKey,
        game: GameId,
        with_times: bool,
        store: &dyn Durable,
    ) -> Result<Vec<Ledger>, PeerRefusal> {
        let terms = self.witnessed_game(peer, &game)?;
        let at = self.ledger_moment(&game);
        let writing = &self.writing.times;
        // Whether any time of this game is still being written: only then is each place
        // looked up among them (a key formatted per envelope was most of a request's
        // cost in a long game).
        let prefix = format!("{RECEIPT_PREFIX}{}/", hex::encode(game));
        let pending = writing.keys().any(|k| k.starts_with(&prefix));
        let r = self
            .games
            .relayed_mut(&game)
            .ok_or(PeerRefusal::NotWitnessed)?;
        let held = r.witnessed(|| Witnessed::load(&terms, &game, store));
        // Per chain: the dated prefix that is durable and not after the moment.
        let mut chains = vec![];
        for seat in terms.seats() {
            let chain = ChainId::public(seat);
            let all = held.times.get(&chain).cloned().unwrap_or_default();
            let mut times = vec![];
            for (q, t) in all.iter().enumerate() {
                let Some((h, _)) = held.places.get(&(chain, q as u64)) else {
                    break;
                };
                if *t > at || (pending && writing.contains_key(&receipt_key(&game, h))) {
                    break;
                }
                times.push(*t);
            }
            let count = times.len() as u64;
            let head = count
                .checked_sub(1)
                .and_then(|q| held.places.get(&(chain, q)).map(|p| p.0))
                .unwrap_or(Hash::ZERO);
            chains.push((chain, count, head, times));
        }
        // Every chain's count and head, with no times yet (a chain's `first` is its count
        // until a time is given).
        let empty = || -> Vec<HeldChain> {
            chains
                .iter()
                .map(|c| HeldChain {
                    chain: c.0,
                    count: c.1,
                    head: c.2,
                    first: c.1,
                    times: vec![],
                })
                .collect()
        };
        if !with_times {
            return Ok(vec![Ledger {
                game: terms.game(),
                at,
                chains: empty(),
            }]);
        }
        // Every (chain index, seq, time) in order, cut into runs that fit a statement.
        let mut out: Vec<Ledger> = vec![];
        let places: Vec<(usize, u64, u64)> = chains
            .iter()
            .enumerate()
            .flat_map(|(i, c)| c.3.iter().enumerate().map(move |(q, t)| (i, q as u64, *t)))
            .collect();
        for run in places.chunks(self.cfg.places.times_per_ledger()) {
            let mut l = empty();
            for (i, q, t) in run {
                let h = &mut l[*i];
                if h.times.is_empty() {
                    h.first = *q;
                }
                h.times.push(*t);
            }
            out.push(Ledger {
                game: terms.game(),
                at,
                chains: l,
            });
        }
        if out.is_empty() {
            out.push(Ledger {
                game: terms.game(),
                at,
                chains: empty(),
            });
        }
        Ok(out)
    }

    /// Answers a seat's `Witness` request: every ledger of the game now, signed.
    pub(super) fn statements(
        &mut self,
        peer: &PeerKey,
        game: GameId,
        store: &dyn Durable,
    ) -> Response {
        match self.ledgers(peer, game, true, store) {
            Ok(ledgers) => {
                // Paid by its size, as an answer's envelopes are: a ledger's times are
                // read per envelope the game holds, so a long game's answer costs more
                // than the request's flat price (`sync.rs` `cost`).
                let times: usize = ledgers
                    .iter()
                    .flat_map(|l| &l.chains)
                    .map(|c| c.times.len())
                    .sum();
                self.charge_answer(peer, times, 0);
                Response::Statements(
                    ledgers
                        .into_iter()
                        .map(|l| Statement::Ledger(l).sign(&self.key).to_bytes())
                        .collect(),
                )
            }
            Err(why) => why.into(),
        }
    }

    /// The stamp this witness gave (or is writing for) a deposit of `game`, if any.
    fn stamp_time(&self, game: &GameId, deposit: &Hash, store: &dyn Durable) -> Option<u64> {
        let key = stamp_key(game, deposit);
        self.writing
            .times
            .get(&key)
            .copied()
            .or_else(|| read_u64(store, &key))
    }

    /// Answers a seat's `Deposit` request once every new stamp is durable: a stamp of
    /// each deposit (the time it was first held, kept for ever), then a ledger of counts
    /// that tells the witness's clock now.
    pub(super) fn serve_deposit(
        &mut self,
        peer: &PeerKey,
        id: InId,
        game: GameId,
        deposits: Vec<Vec<u8>>,
        store: &dyn Durable,
    ) {
        let refuse = |core: &mut Core, why: PeerRefusal| core.respond(id, why.into());
        // A deposit alone may be a computation's message of a game that has them
        // (spec/GAMES.md §5.15), larger than an envelope; several together are private
        // envelopes. A game that is not witnessed here is refused below, by `ledgers`.
        let cap = match (deposits.len(), self.games.relayed(&game)) {
            (1, Some(r)) => alone_cap(r.terms()),
            _ => MAX_DEPOSIT,
        };
        if deposits.len() > MAX_DEPOSITS || deposits.iter().any(|d| d.len() > cap) {
            return refuse(self, PeerRefusal::TooManyDeposits);
        }
        let ledger = match self.ledgers(peer, game, false, store) {
            Ok(mut l) => l.remove(0),
            Err(why) => return refuse(self, why),
        };
        let Some(seat) = self
            .games
            .terms(&game)
            .and_then(|t| t.seat_of(peer.as_bytes()))
        else {
            return refuse(self, PeerRefusal::NotWitnessAsker);
        };
        let seats = self
            .games
            .terms(&game)
            .map_or(1, |t| t.proposal().seats.len());
        let mut counts = match self
            .games
            .slot(&game)
            .and_then(|s| s.deposit_count().cloned())
        {
            Some(c) => c,
            None => DepositCount {
                all: read_u64(store, &count_key(&game)).unwrap_or(0),
                by_seat: BTreeMap::new(),
            },
        };
        let mut count = counts.all;
        let mut mine = match counts.by_seat.get(&seat) {
            Some(n) => *n,
            None => read_u64(store, &seat_count_key(&game, seat)).unwrap_or(0),
        };
        let at = self.fresh_time();
        let mut writes = vec![];
        let mut statements = vec![];
        for bytes in deposits {
            let hash = deposit::hash_of(ledger.game, &bytes);
            let time = match self.stamp_time(&game, &hash, store) {
                Some(t) => t,
                None => {
                    if count >= MAX_DEPOSITS_PER_GAME || mine >= seat_cap(seats) {
                        for (k, _) in writes.iter().skip(1).step_by(2) {
                            self.writing.times.remove(k);
                        }
                        return refuse(self, PeerRefusal::DepositsFull);
                    }
                    let key = stamp_key(&game, &hash);
                    writes.push((deposit_key(&game, count), bytes));
                    writes.push((key.clone(), at.to_le_bytes().to_vec()));
                    self.writing.times.insert(key, at);
                    count += 1;
                    mine += 1;
                    at
                }
            };
            let stamp = Statement::Stamp(Stamp {
                game: ledger.game,
                deposit: hash,
                at: time,
            });
            statements.push(stamp.sign(&self.key).to_bytes());
        }
        // What a stranger's game makes the witness keep is charged to the seat that
        // deposits it, as the game's envelopes are to the seat that signed them
        // (`quota.rs`): checked before anything is taken, so a seat past its share is
        // refused alone.
        let me = self.key();
        let book = &self.peers.book;
        let charged = self
            .games
            .charged_to(&game, &me, |p| book.is_friend(p))
            .map(|_| *peer);
        let used = Usage {
            games: 0,
            envelopes: (writes.len() / 2) as u64,
            bytes: writes.iter().step_by(2).map(|(_, b)| b.len() as u64).sum(),
        };
        let mut step = Step::default();
        if let Some(p) = charged
            && !used.is_zero()
        {
            let network = self.network_for(peer, &game);
            match self
                .ledger
                .allows(&self.cfg.quotas, self.now, &p, network.as_deref(), used)
            {
                Ok(()) => self.charge_to(&mut step.writes, p, network.as_deref(), used),
                Err(why) => {
                    // Past the day's quotas, from the seat's reserve (`reserve.rs`),
                    // charged to the game's proposer.
                    let each: Vec<u64> = writes
                        .iter()
                        .step_by(2)
                        .map(|(_, b)| b.len() as u64)
                        .collect();
                    let proposer = self.games.terms(&game).and_then(super::seats::proposer);
                    let reserved = self
                        .games
                        .relayed_mut(&game)
                        .is_some_and(|r| r.reserve_mut().deposits(seat, &each));
                    match proposer.filter(|_| reserved) {
                        Some(proposer) => {
                            let network = self.network_of(&game);
                            self.charge_to(&mut step.writes, proposer, network.as_deref(), used);
                        }
                        None => {
                            for (k, _) in writes.iter().skip(1).step_by(2) {
                                self.writing.times.remove(k);
                            }
                            return refuse(self, why);
                        }
                    }
                }
            }
        }
        if !writes.is_empty() {
            writes.push((count_key(&game), count.to_le_bytes().to_vec()));
            writes.push((seat_count_key(&game, seat), mine.to_le_bytes().to_vec()));
            counts.all = count;
            counts.by_seat.insert(seat, mine);
            if let Some(slot) = self.games.slot_mut(&game) {
                slot.set_deposit_count(Some(counts));
            }
        }
        statements.push(Statement::Ledger(ledger).sign(&self.key).to_bytes());
        let w = Waiter::Peer(id);
        self.watch(w);
        if let Some(e) = self.waiting.get_mut(&w) {
            e.resp = Some(Response::Statements(statements));
        }
        step.writes.meta = writes;
        step.answers.push(w);
        self.stage(game, step, store);
        self.let_go(w);
    }

    /// Answers a seat's `Deposits` request: the game's deposits from number `from` on,
    /// as many as one answer carries, and the number to ask from next.
    ///
    /// Nothing is read before it is paid for. The game's count of deposits (8 bytes,
    /// paid by the request's own token) says whether there is anything from `from` on:
    /// if not, the answer is empty and costs nothing more, as a seat's poll every few
    /// seconds mostly is. Otherwise the most an answer can read ([`most_answered`]
    /// bytes in [`ENTRIES_PER_ANSWER`] deposits, charged as `sync.rs` `answer_cost`
    /// says) is spent from the asker's budgets first, or the request is refused and
    /// nothing is read; what the answer did not read is given back. Only the deposits
    /// from `from` on are read (`Durable::metas_from`): a deposit's key ends in its
    /// number as 16 hex digits (`deposit_key`, so since the first store), so key order
    /// is number order.
    pub(super) fn serve_deposits(
        &mut self,
        peer: &PeerKey,
        game: GameId,
        from: u64,
        store: &dyn Durable,
    ) -> Response {
        let terms = match self.witnessed_game(peer, &game) {
            Ok(t) => t,
            Err(why) => return why.into(),
        };
        // Written in the same write as the deposits it counts; a count being written
        // may name deposits not yet durable, which the read then does not find.
        let count = match self.games.slot(&game).and_then(|s| s.deposit_count()) {
            Some(c) => c.all,
            None => read_u64(store, &count_key(&game)).unwrap_or(0),
        };
        if from >= count {
            return Response::Deposits {
                deposits: vec![],
                next: from,
            };
        }
        let most = answer_cost(most_answered(&terms), ENTRIES_PER_ANSWER);
        if let Err(why) = self.spend(peer, most) {
            return why.into();
        }
        let prefix = format!("{DEPOSIT_PREFIX}{}/", hex::encode(game));
        let rows = match store.metas_from(
            &prefix,
            &deposit_key(&game, from),
            ENTRIES_PER_ANSWER,
            DEPOSITS_PER_ANSWER,
        ) {
            Ok(rows) => rows,
            Err(e) => {
                self.give_back(peer, most);
                return PeerRefusal::StoreUnreadable(e).into();
            }
        };
        let (mut deposits, mut bytes, mut next) = (vec![], 0, from);
        for (k, d) in rows {
            let Some(n) = k
                .strip_prefix(&prefix)
                .and_then(|n| u64::from_str_radix(n, 16).ok())
            else {
                continue;
            };
            bytes += d.len();
            deposits.push(d);
            next = n.saturating_add(1);
        }
        self.give_back(peer, most - answer_cost(bytes, deposits.len()));
        Response::Deposits { deposits, next }
    }
}

#[cfg(test)]
mod tests;
