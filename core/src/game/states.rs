//! The states a game can be in, in a core: played (its table in memory), relayed (a
//! mailbox's), dormant (finished, in the store only, loaded when asked for) or set aside.
//! The store's index is the list of every game; memory holds what is active. Each game's
//! state sits in its slot with everything else the core holds of it (`game/mod.rs`).
//!
//! A relayed game is over when a seat declined or every seat closed (`Relayed::over`);
//! then it goes dormant after 5 idle minutes (`sleep.rs` `unload_idle`), is never
//! replayed at start, and is woken — and charged — by a push or a witness's request
//! (`restore_game`).

use std::collections::{BTreeMap, BTreeSet};

use sealed_games::table::Table;
use sealed_protocol::engine::Inserted;
use sealed_protocol::envelope::Signed;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::proposal::Terms;

use crate::clock::{Clocks, TimeControl};
use crate::listed::Listed;
use crate::record::{GameRecord, GameStatus};
use crate::{GameId, Halt, PeerKey};

/// A game this node plays, its table in memory. Its table is changed only through
/// [`Played::table_mut`] and what peers acknowledged only through [`Played::ack`] and
/// [`Played::set_acked`], so that whether it is settled, derived from both, is never
/// stale: it is derived again when the change ends.
pub(crate) struct Played {
    pub(super) table: Box<dyn Table>,
    pub(super) record: GameRecord,
    /// When it was last asked for (a finished game leaves memory when idle).
    pub(super) used: u64,
    /// Done, its verdict final in this seat's view (verified, or a proven fault), and
    /// this seat's last envelopes acknowledged by its peers (`delivery.rs`): nothing more
    /// can come or is owed. A game done but not settled (a published private log not
    /// here yet, a last close no peer acknowledged) keeps being repaired. Derived, never
    /// set: a verdict costs a pass over the game, so it is kept between changes.
    settled: bool,
    /// What peers acknowledged holding of this seat's chains.
    pub(super) acked: Acked,
    /// What peers said they hold in their repair rounds (`Heads`): for telling the
    /// player where a move is after a restart, never for settling (a peer's heads may
    /// run ahead of its store, its acknowledgements may not).
    pub(super) heard: Acked,
    /// Where the invitation came from, as the budgets count it (`held.rs`): the
    /// sender's address, or the one the mailbox that relayed it said; kept in the store
    /// beside the game, so that it is counted there after a restart.
    pub(super) holder: Option<crate::held::Holder>,
    /// Whether the invitation came from an address known not to be global (a LAN,
    /// loopback): the proposal's non-global addresses may then be dialled once accepted.
    /// Not kept in the store: after a restart it is not known, so not local.
    pub(super) from_local: bool,
    /// Positions of which a second envelope is stored, as evidence: a third is not.
    pub(super) evidence: Evidence,
    /// The bytes of its envelopes in the store (as restored, then as taken), against
    /// the bound of a game held for a stranger (`take.rs` `game_room`).
    pub(super) bytes: u64,
}

/// A played game's table borrowed to change; whether the game is settled is derived
/// again when it goes.
pub(crate) struct TableMut<'a>(&'a mut Played);

impl std::ops::Deref for TableMut<'_> {
    type Target = dyn Table;

    fn deref(&self) -> &Self::Target {
        &*self.0.table
    }
}

impl std::ops::DerefMut for TableMut<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut *self.0.table
    }
}

impl Drop for TableMut<'_> {
    fn drop(&mut self) {
        self.0.settle();
    }
}

/// Per peer, per chain of this seat, how many envelopes the peer acknowledged holding.
pub(crate) type Acked = BTreeMap<PeerKey, BTreeMap<ChainId, u64>>;

/// Positions (chain, seq) at which a second, different envelope is stored.
pub(crate) type Evidence = BTreeSet<(ChainId, u64)>;

impl Played {
    /// A game put in memory at `now`.
    pub(crate) fn new(table: Box<dyn Table>, record: GameRecord, now: u64) -> Played {
        let mut p = Played {
            table,
            record,
            used: now,
            settled: false,
            acked: Default::default(),
            heard: Default::default(),
            holder: None,
            from_local: false,
            evidence: Evidence::new(),
            bytes: 0,
        };
        p.settle();
        p
    }

    /// Whether this node proposed the game or its player accepted it (as opposed to an
    /// invitation waiting, or declined).
    pub(crate) fn accepted(&self) -> bool {
        matches!(
            self.record.status,
            GameStatus::Proposed | GameStatus::Active | GameStatus::Finished
        )
    }

    /// Whether this node's seat took the game up: proposed it, or accepted it. An
    /// invitation that ended before any answer (its proposer's fault, a withdrawal) was
    /// not, though it reads finished: what comes for it is still held for a stranger.
    pub(crate) fn taken_up(&self) -> bool {
        match self.record.status {
            GameStatus::Proposed | GameStatus::Active => true,
            GameStatus::Finished => {
                let mine = ChainId::public(self.table.session().seat());
                self.table
                    .session()
                    .envelopes()
                    .counts()
                    .iter()
                    .any(|(c, n)| *c == mine && *n > 0)
            }
            _ => false,
        }
    }

    /// Derives again whether the game is settled, after a change.
    pub(super) fn settle(&mut self) {
        self.settled = self.table.session().phase().is_done()
            && self.table.session().verdict().status
                != sealed_protocol::verdict::Status::Unconfirmed
            && self.undelivered().is_empty();
    }

    /// The game's table.
    pub(crate) fn table(&self) -> &dyn Table {
        &*self.table
    }

    /// The game's table, to change: whether the game is settled is derived again when
    /// the returned guard goes.
    pub(crate) fn table_mut(&mut self) -> TableMut<'_> {
        TableMut(self)
    }

    /// Done, final in this seat's view and delivered: nothing more can come or is owed.
    pub(crate) fn settled(&self) -> bool {
        self.settled
    }

    /// The clocks of a game with a time control that is not done, at `now`, by the
    /// players' own readings alone (the witness's times are the slot's, `slot/time.rs`), and
    /// without asking whether its verdict has an outcome yet (a pass over the whole game):
    /// what a deadline is computed from after every change, where a deadline that comes
    /// for a game already decided only finds nothing to claim.
    pub(super) fn clocks_by_players(&self, now: u64) -> Option<Clocks> {
        let session = self.table.session();
        let terms = session.terms();
        let tc = TimeControl::of(terms.proposal()).ok()??;
        if session.phase().is_done() {
            return None;
        }
        Some(Clocks::compute(
            &tc,
            terms.players(),
            &session.timeline(),
            self.table.turn().to_act,
            now,
        ))
    }

    /// When the seat `c` says is owing runs out of time, unless it is this one or a
    /// claim of this seat's already covers the wait (its clock is later than the wait's
    /// start).
    pub(super) fn runs_out(&self, c: Clocks) -> Option<(Seat, u64)> {
        let owing = Seat(c.owing?);
        if owing == self.table.session().seat() {
            return None;
        }
        let line = self.table.session().timeline();
        let since = line.acts.last().map(|a| a.1).or(line.started)?;
        let claimed = line
            .timeout_claims
            .iter()
            .any(|&(against, at)| against == owing && at >= since);
        if claimed {
            return None;
        }
        // The moment the wait becomes longer than allowed, past or to come: not "now"
        // once it has passed, so the same game gives the same deadline at every look
        // and one that fired is held back until the next round (`deadlines.rs`).
        Some((owing, c.out_at?))
    }

    /// What peers acknowledged holding of this seat's chains.
    pub(crate) fn acked(&self) -> &Acked {
        &self.acked
    }

    /// Takes what peers acknowledged while the game was asleep, as it wakes.
    pub(crate) fn set_acked(&mut self, acked: Acked) {
        self.acked = acked;
        self.settle();
    }
}

// What the core reads and changes of a played game besides its table: each change says
// what happened (asked for, a status for `sealed games`, a peer's heads, an envelope
// taken), never a field set from outside the game's folder.
impl Played {
    /// Its record as the store keeps it.
    pub(crate) fn record(&self) -> &GameRecord {
        &self.record
    }

    /// When it was last asked for.
    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    /// It is asked for at `now` (a command, a move, a peer's envelope): a finished
    /// game leaves memory once idle since.
    pub(crate) fn use_at(&mut self, now: u64) {
        self.used = now;
    }

    /// Its status for `sealed games` becomes `status`, unless it is that already or
    /// finished (nothing follows the end): whether it changed, so the caller writes it.
    pub(crate) fn change_status(&mut self, status: GameStatus) -> bool {
        let changed = self.record.status != status && self.record.status != GameStatus::Finished;
        if changed {
            self.record.status = status;
        }
        changed
    }

    /// Its invitation is declined here: not an open invitation any more for the counts,
    /// while the write that says so is in flight.
    pub(crate) fn decline_invitation(&mut self) {
        self.record.status = GameStatus::Declined;
    }

    /// What peers said they hold in their repair rounds (`Heads`).
    pub(crate) fn heard(&self) -> &Acked {
        &self.heard
    }

    /// `peer` said in its heads that it holds `have` of this game's chains (counts
    /// only grow: a lower one is older news); with nothing, that it knows the game.
    pub(crate) fn hear(&mut self, peer: PeerKey, have: impl IntoIterator<Item = (ChainId, u64)>) {
        let heard = self.heard.entry(peer).or_default();
        for (c, n) in have {
            let k = heard.entry(c).or_default();
            *k = (*k).max(n);
        }
    }

    /// Wakes at `now` with what peers acknowledged and said while it was asleep.
    pub(crate) fn wake(&mut self, acked: Acked, heard: Acked, now: u64) {
        self.heard = heard;
        self.used = now;
        self.set_acked(acked);
    }

    /// Whose the game is, if a stranger brought it (`held.rs`).
    pub(crate) fn holder(&self) -> Option<&crate::held::Holder> {
        self.holder.as_ref()
    }

    /// Whether the invitation came from an address known not to be global.
    pub(crate) fn came_from_local(&self) -> bool {
        self.from_local
    }

    /// The game as a stranger brought it: `holder`, and whether from a local address.
    pub(crate) fn brought_by(
        mut self,
        holder: Option<crate::held::Holder>,
        from_local: bool,
    ) -> Played {
        self.holder = holder;
        self.from_local = from_local;
        self
    }

    /// The game as the store held it: the positions kept as evidence and the bytes of
    /// its envelopes.
    pub(crate) fn with_stored(mut self, evidence: Evidence, bytes: u64) -> Played {
        self.evidence = evidence;
        self.bytes = bytes;
        self
    }

    /// Whether a second envelope at some position is kept as evidence.
    pub(crate) fn has_evidence(&self) -> bool {
        !self.evidence.is_empty()
    }

    /// The bytes of its envelopes in the store.
    pub(crate) fn stored_bytes(&self) -> u64 {
        self.bytes
    }

    /// Gives one envelope to the table at `now`; its bytes and signer are kept in
    /// `keep` to store if the table took it as new, or as the first evidence at its
    /// position (a third envelope at a position is dropped: the second already proves
    /// the fault). The envelope was parsed and its signature verified once, by the
    /// caller: not again.
    pub(crate) fn take_envelope(&mut self, s: Signed, keep: &mut Vec<(Vec<u8>, Seat)>, now: u64) {
        let at = s.at();
        if self.evidence.contains(&(at.chain, at.seq)) {
            return;
        }
        let kept = (s.bytes.clone(), at.chain.seat);
        let size = kept.0.len() as u64;
        let inserted = self.table_mut().session_mut().handle_signed(s, now);
        match inserted {
            Ok(Inserted::Stored(_)) => {
                self.bytes += size;
                keep.push(kept);
            }
            Ok(Inserted::Equivocation(at)) => {
                if self.evidence.insert((at.chain, at.seq)) {
                    self.bytes += size;
                    keep.push(kept);
                }
            }
            Ok(Inserted::Duplicate(_)) | Err(_) => {}
        }
    }
}

/// A game this node only relays; its envelopes are served from the store.
pub(crate) struct Relayed {
    pub(super) terms: Terms,
    /// The seqs held of each public chain (what the heads say we have), with the hash
    /// of the first envelope at each (a copy of it is no evidence).
    pub(super) held: BTreeMap<ChainId, BTreeMap<u64, sealed_protocol::hash::Hash>>,
    /// Positions at which a second envelope is kept, as evidence.
    pub(super) evidence: Evidence,
    /// Seats whose public chain holds a close.
    pub(super) closed: BTreeSet<Seat>,
    /// A seat declined the proposal, or its proposer withdrew it.
    pub(super) declined: bool,
    /// When an envelope of it last arrived, or it was last asked for.
    pub(super) used: u64,
    /// When this node took it.
    pub(super) created: u64,
    /// As the game's witness: what it holds and when it first held each envelope with
    /// its causal past (`witness.rs`), built from the store when first needed.
    pub(super) witness: Option<super::witnessed::Witnessed>,
    /// Whom it is held for, when it is held for a stranger (`held.rs`).
    pub(super) holder: Option<crate::held::Holder>,
    /// When it was taken or an envelope of it last arrived: its lifetime runs from
    /// here (`held.rs`).
    pub(super) renewed: u64,
    /// When its renewal was last written to the store.
    pub(super) renewal_written: u64,
    /// Why a seat refused it when this mailbox offered it, until a seat takes it: its
    /// proposer is told when he asks (`Request::Offer` answered `Refused`).
    pub(super) refused: Option<String>,
    /// What each seat spent of its reserve for the step it owes (`reserve.rs`).
    pub(super) reserve: crate::reserve::Reserve,
}

/// Whether an envelope is worth storing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kept {
    /// The first at its position.
    Fresh,
    /// A second, different one at a taken position: evidence, kept once.
    Evidence,
    /// Held already, a third at a position, or not one of this game's public envelopes.
    No,
}

// What the core reads and changes of a relayed game: reads by getters, each change by
// a method that says what happened to it.
impl Relayed {
    /// Its terms.
    pub(crate) fn terms(&self) -> &Terms {
        &self.terms
    }

    /// The seqs held of each public chain, with the hash of the first envelope at each.
    pub(crate) fn held(&self) -> &BTreeMap<ChainId, BTreeMap<u64, sealed_protocol::hash::Hash>> {
        &self.held
    }

    /// When an envelope of it last arrived, or it was last asked for.
    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    /// An envelope of it arrived, or it was asked for, at `now`.
    pub(crate) fn use_at(&mut self, now: u64) {
        self.used = now;
    }

    /// When this node took it.
    pub(crate) fn created(&self) -> u64 {
        self.created
    }

    /// Whom it is held for, when it is held for a stranger.
    pub(crate) fn holder(&self) -> Option<&crate::held::Holder> {
        self.holder.as_ref()
    }

    /// When its lifetime last started again.
    pub(crate) fn renewed(&self) -> u64 {
        self.renewed
    }

    /// The game as a stranger brought it, held for `holder`.
    pub(crate) fn held_for(mut self, holder: Option<crate::held::Holder>) -> Relayed {
        self.holder = holder;
        self
    }

    /// Whose it is and when it was last renewed, as the store kept them.
    pub(crate) fn restore_holder(&mut self, holder: crate::held::Holder, renewed: u64) {
        self.holder = Some(holder);
        self.renewed = renewed;
        self.renewal_written = renewed;
    }

    /// An envelope arrived at `now`: its lifetime starts again. Its holder, when the
    /// store is to learn it (held for a stranger, and the renewal written last at least
    /// `write_every` ago): the caller writes it with the envelope.
    pub(crate) fn renew(&mut self, now: u64, write_every: u64) -> Option<&crate::held::Holder> {
        self.renewed = now;
        let due = self.renewal_written.saturating_add(write_every) <= now;
        if self.holder.is_some() && due {
            self.renewal_written = now;
        }
        self.holder.as_ref().filter(|_| due)
    }

    /// Why a seat refused it when this mailbox offered it, until a seat takes it.
    pub(crate) fn refused(&self) -> Option<&str> {
        self.refused.as_deref()
    }

    /// A seat refused it, saying `why` (already cut to what is kept), or took it (`None`).
    pub(crate) fn set_refused(&mut self, why: Option<String>) {
        self.refused = why;
    }

    /// What each seat spent of its reserve for the step it owes (`reserve.rs`).
    pub(crate) fn reserve(&self) -> &crate::reserve::Reserve {
        &self.reserve
    }

    /// As [`Relayed::reserve`], to spend from or count on.
    pub(crate) fn reserve_mut(&mut self) -> &mut crate::reserve::Reserve {
        &mut self.reserve
    }

    /// Marks a place held with `hash`, as if its envelope were taken: for tests that
    /// fill a seat's share without signing it.
    #[cfg(test)]
    pub(crate) fn hold_for_test(
        &mut self,
        chain: ChainId,
        seq: u64,
        hash: sealed_protocol::hash::Hash,
    ) {
        self.held.entry(chain).or_default().insert(seq, hash);
    }

    /// As the game's witness: what it holds, built by `load` when first needed.
    pub(crate) fn witnessed(
        &mut self,
        load: impl FnOnce() -> super::witnessed::Witnessed,
    ) -> &mut super::witnessed::Witnessed {
        self.witness.get_or_insert_with(load)
    }
}

impl Relayed {
    /// A game to relay, taken at `created`, with nothing held yet.
    pub(crate) fn new(terms: Terms, created: u64, now: u64) -> Relayed {
        Relayed {
            terms,
            held: BTreeMap::new(),
            evidence: Evidence::new(),
            closed: BTreeSet::new(),
            declined: false,
            used: now,
            created,
            witness: None,
            holder: None,
            renewed: now,
            renewal_written: now,
            refused: None,
            reserve: Default::default(),
        }
    }

    /// Whether a seat other than the proposer has posted to it (accepted, declined,
    /// or more): a game nobody accepted may be evicted (`held.rs`).
    pub(crate) fn accepted(&self) -> bool {
        let proposer = self.terms.proposal().proposer;
        self.held.keys().any(|c| c.seat != proposer)
    }

    /// Its record, as the store holds it, with this status.
    pub(crate) fn record(&self, id: GameId, status: crate::record::GameStatus) -> GameRecord {
        GameRecord {
            id,
            terms: self.terms.bytes().to_vec(),
            variant: self.terms.variant().to_owned(),
            seat: None,
            created: self.created,
            status,
        }
    }

    /// Notes an envelope of this node's store as held (public logs only); what it is.
    /// Its signature was verified before it was stored, and is not again.
    pub(crate) fn keep_stored(&mut self, bytes: &[u8]) -> Kept {
        let Ok(s) = Signed::parse_kept(&self.terms, bytes) else {
            return Kept::No;
        };
        self.keep_signed(&s)
    }

    /// As [`Relayed::keep_stored`], for an envelope already checked.
    pub(crate) fn keep_signed(&mut self, s: &Signed) -> Kept {
        let at = s.at();
        if !at.chain.log.is_public() {
            return Kept::No;
        }
        let chain = self.held.entry(at.chain).or_default();
        match chain.get(&at.seq) {
            Some(h) if *h == s.hash => return Kept::No,
            Some(_) => {
                return if self.evidence.insert((at.chain, at.seq)) {
                    Kept::Evidence
                } else {
                    Kept::No
                };
            }
            None => {
                chain.insert(at.seq, s.hash);
            }
        }
        for item in &s.unsigned().body {
            match item {
                sealed_protocol::body::Item::Close => {
                    self.closed.insert(at.chain.seat);
                }
                // Declined or withdrawn: no game, nothing more is owed.
                sealed_protocol::body::Item::Decline | sealed_protocol::body::Item::Withdraw => {
                    self.declined = true
                }
                _ => {}
            }
        }
        Kept::Fresh
    }

    /// Whether the game is over as far as its public chains show: a seat declined (or
    /// the proposer withdrew), or
    /// every seat has closed. A relayed game over goes dormant once idle (`durable.rs`)
    /// and wakes when a seat posts to it or its witness is asked.
    pub(crate) fn over(&self) -> bool {
        self.declined || self.terms.seats().all(|s| self.closed.contains(&s))
    }

    /// Per chain, how many envelopes are held without a gap from seq 0.
    pub(crate) fn heads(&self) -> Vec<(ChainId, u64)> {
        self.held
            .iter()
            .map(|(c, seqs)| {
                let prefix = seqs.keys().zip(0u64..).take_while(|(k, i)| **k == *i);
                (*c, prefix.count() as u64)
            })
            .collect()
    }
}

/// A finished (or declined) game that is only in the store until asked for.
pub(crate) struct Dormant {
    pub(crate) record: GameRecord,
    /// Its line as stored when it finished (`listed.rs`): its result, acts and the names
    /// its seats signed, which `sealed games` shows without loading it.
    pub(crate) listed: Listed,
    /// Its terms, read when first needed (a peer asks for the game): reading them checks
    /// the proposal's signature, which at start would cost every finished game ever
    /// played (docs/PERFORMANCE.md, start-up). `None` inside when they do not read; the
    /// game is then set aside when woken.
    terms: std::cell::OnceCell<Option<Terms>>,
}

impl Dormant {
    /// A game from its record and stored line alone.
    pub(crate) fn new(record: GameRecord, listed: Listed) -> Dormant {
        Dormant {
            record,
            listed,
            terms: std::cell::OnceCell::new(),
        }
    }

    /// A game whose terms are already read (one that leaves memory).
    pub(crate) fn with_terms(record: GameRecord, terms: Terms, listed: Listed) -> Dormant {
        Dormant {
            record,
            listed,
            terms: std::cell::OnceCell::from(Some(terms)),
        }
    }

    /// Each seat's name ([`crate::players::seat_names`]), from what its seats signed.
    pub(crate) fn names(&self, terms: &Terms) -> Vec<Option<String>> {
        let signed = &self.listed.names;
        crate::players::seat_names(terms, |s| signed.get(s.index()).cloned().flatten())
    }

    /// Its terms, if they read.
    pub(crate) fn terms(&self) -> Option<&Terms> {
        self.terms
            .get_or_init(|| Terms::parse(&self.record.terms).ok())
            .as_ref()
    }
}

/// A game the node knows but does not run now.
pub(crate) struct SetAside {
    /// Its variant, when its record could be read.
    pub(crate) variant: Option<String>,
    /// Why.
    pub(crate) halt: Halt,
    /// What its witness had said to this seat (signed statements), given back to the
    /// table rebuilt once the store works again.
    pub(crate) said: Vec<Vec<u8>>,
}
