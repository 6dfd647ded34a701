//! One game's slot: everything the core holds of one game in one value ([`Slot`]),
//! where it stands ([`Life`]) and what the core asks of it. The parts are the `game`
//! folder's other files, each a small machine with its own rules — its writes under way
//! (`queue.rs`), its last computation message on its way (`sending.rs`), this seat's
//! dealings with its witness (`asking.rs`), the debt of a game settled on a mailbox's
//! word (`delivery.rs`), a witness's count of deposits (`witnessed.rs`) — and what the
//! game does with time alone is this folder's `time.rs` (its clocks, its own next
//! deadline `Slot::poll_timeout`, when it asks its witness). The slot's fields are
//! private: the core above changes a game only through the methods here, which say what
//! happened to it, never by reaching into its parts. Over 400 lines: the one place a
//! game's state is read and changed, grouped by part below.

use std::collections::BTreeSet;

use super::asking::{Asking, Lacked, PastDeadline, WithWitness, WitnessTimes, ledgers, processed};
use super::asleep::Asleep;
use super::delivery::{Debt, DebtAnswered, OWED_FOR_MS};
use super::queue::{Export, Queue, Step};
use super::sending::{AfterLoss, Sending};
use super::states::{Dormant, Played, Relayed, SetAside};
use super::witnessed::DepositCount;
use crate::io::CmdId;
use crate::places::READ_LEDGERS;
use crate::seats::other_player;
use crate::{PeerKey, WriteId};

mod time;

/// Where a game stands in this core.
pub(crate) enum Life {
    /// Played by this node, its table in memory.
    Played(Box<Played>),
    /// Relayed as a mailbox (or kept as a witness).
    Relayed(Box<Relayed>),
    /// Finished, in the store only until asked for.
    Dormant(Box<Dormant>),
    /// Unfinished and idle, its table in the store only until something happens in
    /// it (`sleep.rs`).
    Asleep(Box<Asleep>),
    /// Known but not run now.
    Aside(Box<SetAside>),
}

/// Everything the core holds of one game.
pub(crate) struct Slot {
    /// Where it stands.
    life: Life,
    /// Its writes under way.
    queue: Queue,
    /// This seat's dealings with its witness.
    witness: WithWitness,
    /// Whether a bot decides it (`sealed bot on`, a referee's invitations); whether the
    /// bots have looked since it changed is [`Games`]'s (`for_bots`).
    bot: bool,
    /// Why a peer refused its last offer, until one is taken (`sealed games` says it
    /// while the invitation is not delivered).
    refused: Option<String>,
    /// The seats owed this seat's last envelopes, once it settled on a mailbox's word
    /// (`delivery.rs`).
    owed: Option<Debt>,
    /// As the game's witness: the deposits it holds, durable or being written
    /// (`witness.rs`), once counted.
    deposits: Option<DepositCount>,
    /// This seat's last message of the game's computations on its way, and when it goes
    /// again (`sending.rs`).
    sending: Sending,
}

impl Slot {
    /// A game the core did not hold, in `life`, with nothing else held of it yet.
    pub(super) fn new(life: Life) -> Slot {
        Slot {
            life,
            queue: Queue::default(),
            witness: WithWitness::default(),
            bot: false,
            refused: None,
            owed: None,
            deposits: None,
            sending: Sending::default(),
        }
    }

    /// Where it stands, to change: only [`Games`](super::Games)' accessors hand it
    /// out, marking the game changed.
    pub(super) fn life_mut(&mut self) -> &mut Life {
        &mut self.life
    }

    /// Where it stands. It changes only through [`Games::put`](super::Games::put) and
    /// the states' own accessors ([`Games::played_mut`](super::Games::played_mut) and the
    /// like), which mark it changed.
    pub(crate) fn life(&self) -> &Life {
        &self.life
    }

    /// Whether a bot decides it for this seat (whatever the node's setting for all).
    pub(crate) fn bot(&self) -> bool {
        self.bot
    }

    /// A bot decides it from now on, or no longer.
    pub(crate) fn set_bot(&mut self, on: bool) {
        self.bot = on;
    }

    /// Why a peer refused the last offer of a game played here, until one is taken.
    pub(crate) fn offer_refused(&self) -> Option<&str> {
        self.refused.as_deref()
    }

    /// A peer refused an offer of the game, saying `why` (already cut to what is kept):
    /// kept for a game played here, which `sealed games` lists with it.
    pub(crate) fn refuse_offer(&mut self, why: String) {
        if matches!(self.life, Life::Played(_)) {
            self.refused = Some(why);
        }
    }

    /// A peer took an offer of the game: no refusal stands.
    pub(crate) fn offer_taken(&mut self) {
        self.refused = None;
    }
}

// Its writes under way (`queue.rs`).
impl Slot {
    /// Whether nothing of the game is being written or waits to be.
    pub(crate) fn idle(&self) -> bool {
        self.queue.idle()
    }

    /// Whether a write of the game is in flight.
    pub(crate) fn writing(&self) -> bool {
        self.queue.in_flight.is_some()
    }

    /// `step` goes with the next write when one is in flight (merged into what waits,
    /// `None`); else it is handed back to be written or released now.
    pub(crate) fn wait_behind(&mut self, step: Step) -> Option<Step> {
        if self.writing() {
            self.queue.next.get_or_insert_default().merge(step);
            return None;
        }
        Some(step)
    }

    /// `write` carries `step`'s writes; the step is released once it is durable.
    pub(crate) fn begin_write(&mut self, write: WriteId, step: Step) {
        self.queue.in_flight = Some((write, Box::new(step)));
    }

    /// `write` ended: the step it made visible, if it is the game's write in flight
    /// (anything else leaves the flight as it was).
    pub(crate) fn end_write(&mut self, write: WriteId) -> Option<Step> {
        match self.queue.in_flight.take() {
            Some((w, step)) if w == write => Some(*step),
            other => {
                self.queue.in_flight = other;
                None
            }
        }
    }

    /// The step made while the write was in flight, which goes next.
    pub(crate) fn take_next(&mut self) -> Option<Step> {
        self.queue.next.take().map(|b| *b)
    }

    /// An export waits until nothing of the game is being written.
    pub(crate) fn wait_export(&mut self, cmd: CmdId, what: Export) {
        self.queue.exports.push((cmd, what));
    }

    /// The exports that waited, once nothing of the game is being written (none while
    /// something is).
    pub(crate) fn take_exports_if_idle(&mut self) -> Vec<(CmdId, Export)> {
        if self.idle() {
            std::mem::take(&mut self.queue.exports)
        } else {
            vec![]
        }
    }

    /// Bytes of the writes under way: the one in flight and the step merged behind it.
    pub(crate) fn queued_bytes(&self) -> u64 {
        let q = &self.queue;
        q.in_flight.as_ref().map_or(0, |(_, st)| st.writes.size())
            + q.next.as_ref().map_or(0, |st| st.writes.size())
    }

    /// Whether exports wait.
    pub(crate) fn exports_wait(&self) -> bool {
        !self.queue.exports.is_empty()
    }

    /// What waited of a game being forgotten: the step behind its write, and its
    /// exports, whose askers are told.
    pub(crate) fn into_waiting(self) -> (Option<Step>, Vec<(CmdId, Export)>) {
        (self.queue.next.map(|b| *b), self.queue.exports)
    }
}

// Its last computation message on its way (`sending.rs`).
impl Slot {
    /// This seat's message at `index` went to the other player at `now`.
    pub(crate) fn message_went(&mut self, index: u64, now: u64) {
        self.sending.went(index, now);
    }

    /// The stream of the message at `index` to `peer` ended without the receiver's
    /// answer byte: the bytes to send again now, if the report names the message this
    /// seat last sent and still owes `peer` (the game's other player) and it is the
    /// first loss of it (later copies wait for a repair round, [`Sending::lost`]).
    /// Anything else changes nothing: what the report names comes from a stream a peer
    /// may have cut at will.
    pub(crate) fn message_lost(&mut self, peer: PeerKey, index: u64) -> Option<Vec<u8>> {
        if !self.sending.is_last(index) {
            return None;
        }
        let (_, owed, bytes) = self.message_owed(Some(peer))?;
        if owed != index {
            return None;
        }
        (self.sending.lost() == AfterLoss::SendNow).then_some(bytes)
    }

    /// The message this seat owes its other player, to send again: to `peer` alone
    /// when it has just connected, else once its wait is over at `now`. Only what is
    /// durable: nothing while a write of the game is under way or waits.
    pub(crate) fn message_again(
        &mut self,
        peer: Option<PeerKey>,
        now: u64,
    ) -> Option<(PeerKey, u64, Vec<u8>)> {
        if !self.idle() || (peer.is_none() && !self.sending.due(now)) {
            return None;
        }
        let (to, index, bytes) = self.message_owed(peer)?;
        if peer.is_none() {
            self.sending.copied(index);
        }
        Some((to, index, bytes))
    }

    /// The message this seat owes the game's other player (to `peer` only, if named):
    /// to whom, its position and its bytes.
    fn message_owed(&mut self, peer: Option<PeerKey>) -> Option<(PeerKey, u64, Vec<u8>)> {
        let Life::Played(p) = &mut self.life else {
            return None;
        };
        let session = p.table().session();
        let to = other_player(session.terms(), session.seat())?;
        if peer.is_some_and(|k| k != to) {
            return None;
        }
        let (index, bytes) = p.table_mut().computing()?.message_out(true)?;
        Some((to, index, bytes))
    }
}

// This seat's dealings with its witness (`asking.rs`).
impl Slot {
    /// When this seat last asked the witness for its ledgers (0: never).
    pub(crate) fn witness_asked_at(&self) -> u64 {
        self.witness.asked.last()
    }

    /// Since when the witness has left this seat's asks unanswered, if it has.
    pub(crate) fn witness_unanswered_since(&self) -> Option<u64> {
        self.witness.asked.unanswered_since()
    }

    /// This seat asks the witness for its ledgers at `now`.
    pub(crate) fn ask_witness(&mut self, now: u64) {
        self.witness.asked = self.witness.asked.ask(now);
    }

    /// The witness answered this seat's ask with `statements`: whether the answer shows
    /// it is not silent, and if so it counts as answered. Only an answer this seat can
    /// use counts: at most [`READ_LEDGERS`] statements (more are not read), holding a
    /// ledger of this game signed by its witness later than any it answered with
    /// before, that holds everything this seat gave it after its last answer
    /// ([`Slot::witness_given`]). Else a witness in league with a walker could keep
    /// this seat from ever falling back to a timeout claim by answering with junk, with
    /// too much, with its first ledger again and again, or with fresh ledgers that
    /// never hold this seat's last move (so the walker's wait never starts): none of
    /// them proves anyone late, and each would have reset the silence that lets the
    /// claim go (`slot/time.rs` `witness_silent`). A witness that refuses this seat's
    /// envelopes by its own limits is silent in the same way, and rightly: it can date
    /// nothing of the walker's wait. A witness signs every ledger at a moment no earlier than the
    /// last (`witness.rs` `ledger_moment`); one that gives the same moment twice, as an
    /// honest one can while a time of the game is being written, loses one answer's
    /// count, which at worst lets a timeout claim go against an opponent overdue by the
    /// players' own readings.
    pub(crate) fn witness_replied(&mut self, statements: &[Vec<u8>]) -> bool {
        let Life::Played(p) = &self.life else {
            return false;
        };
        if statements.len() > READ_LEDGERS {
            return false;
        }
        let Some(latest) = ledgers(p, statements).into_iter().max_by_key(|l| l.at) else {
            return false;
        };
        let at = latest.at;
        if self.witness.answered_at.is_some_and(|last| at <= last) {
            return false;
        }
        if self
            .witness
            .given
            .iter()
            .any(|(c, n)| latest.count(*c) < *n)
        {
            return false;
        }
        self.witness.answered_at = Some(at);
        self.witness.asked = self.witness.asked.answered();
        true
    }

    /// This seat gave the witness everything its last answer lacked: `counts` of each
    /// public chain, which every later answer must hold to count as one.
    pub(crate) fn witness_given(&mut self, counts: Vec<(sealed_protocol::ids::ChainId, u64)>) {
        self.witness.given = counts;
    }

    /// The wait in progress by the witness's last answer, if it was counted in the
    /// state the game is in now (as many envelopes processed, the same seat to act).
    pub(crate) fn witness_times(&self) -> Option<WitnessTimes> {
        let Life::Played(p) = &self.life else {
            return None;
        };
        let t = self.witness.times.as_ref()?;
        (t.held == processed(p) && p.table().turn().to_act == Some(t.seat)).then_some(*t)
    }

    /// The witness answered this seat's ask with `statements` (already taken by the
    /// session): the wait they show is kept for the clock, and the first answer signed
    /// past another seat's deadline is kept for that wait, as the ledger a forfeit
    /// needs. The answers worth posting as forfeits, the kept one first; none when the
    /// game is done or not played here.
    pub(crate) fn take_witness_answer(&mut self, statements: Vec<Vec<u8>>) -> Vec<Vec<Vec<u8>>> {
        let Life::Played(p) = &self.life else {
            return vec![];
        };
        let w = &mut self.witness;
        if p.table().session().phase().is_done() {
            w.times = None;
            return vec![];
        }
        let me = p.table().session().seat();
        if let Some(seat) = p.table().turn().to_act
            && let Some(wait) = p.table().session().witness_wait(&statements, seat)
        {
            w.times = Some(WitnessTimes {
                held: processed(p),
                seat,
                wait,
            });
            let past = ledgers(p, &statements)
                .iter()
                .any(|l| l.at > wait.deadline());
            let same_wait = |k: &PastDeadline| k.seat == seat && k.since == wait.since;
            if seat != me && past && !w.past_deadline.as_ref().is_some_and(same_wait) {
                w.past_deadline = Some(PastDeadline {
                    seat,
                    since: wait.since,
                    statements: statements.clone(),
                });
            }
        }
        // The first answer past the deadline, then this one. A witness's counts only
        // grow, so the first ledger past the deadline is the likeliest silent one: an
        // accused who keeps sending idle envelopes to the witness a little before this
        // seat gets them makes every later answer hold one more than this seat knows
        // ("answered"), never the first once this seat has caught up with it (issue 53).
        let kept = w.past_deadline.as_ref().map(|k| k.statements.clone());
        let mut answers: Vec<Vec<Vec<u8>>> =
            kept.into_iter().filter(|k| *k != statements).collect();
        answers.push(statements);
        answers
    }

    /// A forfeit was posted: the answer kept for the wait has done its work.
    pub(crate) fn forfeit_posted(&mut self) {
        self.witness.past_deadline = None;
    }

    /// Why the witness refused this seat's last push of the game, until it takes one.
    pub(crate) fn witness_refusal(&self) -> Option<&str> {
        self.witness.refused.as_deref()
    }

    /// What the witness said of this seat's last push of the game: why it refused it
    /// (already cut to what is kept), or nothing when it took it.
    pub(crate) fn witness_refused(&mut self, why: Option<String>) {
        self.witness.refused = why;
    }

    /// This seat's dealings with the witness over its private logs, to change, begun
    /// when there were none.
    pub(crate) fn stamps_asking_mut(&mut self) -> &mut Asking {
        self.witness.stamps.get_or_insert_default()
    }

    /// As [`Slot::stamps_asking_mut`], if begun.
    pub(crate) fn stamps_asking_begun(&mut self) -> Option<&mut Asking> {
        self.witness.stamps.as_mut()
    }

    /// This seat's dealings with the witness over the game's lacked messages, begun
    /// when there were none.
    pub(crate) fn lacked_mut(&mut self) -> &mut Lacked {
        self.witness.lacked.get_or_insert_default()
    }

    /// As [`Slot::lacked_mut`], if begun.
    pub(crate) fn lacked_begun(&mut self) -> Option<&mut Lacked> {
        self.witness.lacked.as_mut()
    }
}

// The debt of a game settled on a mailbox's word (`delivery.rs`).
impl Slot {
    /// The game settled at `now` with `peers` lacking this seat's last envelopes: the
    /// debt, and the setting that keeps it. Offers in flight stay counted.
    pub(crate) fn owe(&mut self, now: u64, peers: BTreeSet<PeerKey>) -> Vec<u8> {
        let value = Debt::encode(now, &peers);
        let offered = self.owed.take().map(|d| d.offered).unwrap_or_default();
        self.owed = Some(Debt {
            since: now,
            peers,
            offered,
        });
        value
    }

    /// The debt the store kept, taken back at a start.
    pub(crate) fn restore_debt(&mut self, debt: Debt) {
        self.owed = Some(debt);
    }

    /// The game's debt, if some seat lacks this seat's last envelopes.
    pub(crate) fn debt(&self) -> Option<&Debt> {
        self.owed.as_ref()
    }

    /// Whether the debt is older than [`OWED_FOR_MS`] at `now`: a seat that never
    /// came back is owed nothing more.
    pub(crate) fn debt_expired(&self, now: u64) -> bool {
        self.owed
            .as_ref()
            .is_some_and(|d| d.since.saturating_add(OWED_FOR_MS) <= now)
    }

    /// The debt is dropped (expired).
    pub(crate) fn forget_debt(&mut self) {
        self.owed = None;
    }

    /// An offer of the debt went to `peer`.
    pub(crate) fn debt_offered(&mut self, peer: PeerKey) {
        if let Some(d) = self.owed.as_mut() {
            d.offered.insert(peer);
        }
    }

    /// `peer` answered an offer of the debt: durable there (`ok`) or not.
    pub(crate) fn debt_answered(&mut self, peer: PeerKey, ok: bool) -> DebtAnswered {
        let Some(debt) = self.owed.as_mut() else {
            return DebtAnswered::Unchanged;
        };
        debt.offered.remove(&peer);
        if !ok || !debt.peers.remove(&peer) {
            return DebtAnswered::Unchanged;
        }
        if debt.peers.is_empty() {
            self.owed = None;
            DebtAnswered::Paid
        } else {
            DebtAnswered::Left(Debt::encode(debt.since, &debt.peers))
        }
    }
}

// As the game's witness: its count of deposits (`witnessed.rs`).
impl Slot {
    /// As the game's witness: the deposits it holds, once counted.
    pub(crate) fn deposit_count(&self) -> Option<&DepositCount> {
        self.deposits.as_ref()
    }

    /// As the game's witness: the deposits it holds are counted so now, or to be
    /// counted again from the store (`None`).
    pub(crate) fn set_deposit_count(&mut self, count: Option<DepositCount>) {
        self.deposits = count;
    }
}
