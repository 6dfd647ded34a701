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
use sealed_protocol::envelope::Signed;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::proposal::Terms;

use crate::listed::Listed;
use crate::record::{GameRecord, GameStatus};
use crate::{GameId, Halt, PeerKey};

/// A game this node plays, its table in memory. Its table is changed only through
/// [`Played::table_mut`] and what peers acknowledged only through [`Played::ack`] and
/// [`Played::set_acked`], so that whether it is settled, derived from both, is never
/// stale: it is derived again when the change ends.
pub(crate) struct Played {
    pub(super) table: Box<dyn Table>,
    pub(crate) record: GameRecord,
    /// When it was last asked for (a finished game leaves memory when idle).
    pub(crate) used: u64,
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
    pub(crate) heard: Acked,
    /// Where the invitation came from, as the budgets count it (`held.rs`): the
    /// sender's address, or the one the mailbox that relayed it said; kept in the store
    /// beside the game, so that it is counted there after a restart.
    pub(crate) holder: Option<crate::held::Holder>,
    /// Whether the invitation came from an address known not to be global (a LAN,
    /// loopback): the proposal's non-global addresses may then be dialled once accepted.
    /// Not kept in the store: after a restart it is not known, so not local.
    pub(crate) from_local: bool,
    /// Positions of which a second envelope is stored, as evidence: a third is not.
    pub(crate) evidence: Evidence,
    /// The bytes of its envelopes in the store (as restored, then as taken), against
    /// the bound of a game held for a stranger (`take.rs` `game_room`).
    pub(crate) bytes: u64,
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

/// A game this node only relays; its envelopes are served from the store.
pub(crate) struct Relayed {
    pub(crate) terms: Terms,
    /// The seqs held of each public chain (what the heads say we have), with the hash
    /// of the first envelope at each (a copy of it is no evidence).
    pub(crate) held: BTreeMap<ChainId, BTreeMap<u64, sealed_protocol::hash::Hash>>,
    /// Positions at which a second envelope is kept, as evidence.
    pub(crate) evidence: Evidence,
    /// Seats whose public chain holds a close.
    pub(crate) closed: BTreeSet<Seat>,
    /// A seat declined the proposal, or its proposer withdrew it.
    pub(crate) declined: bool,
    /// When an envelope of it last arrived, or it was last asked for.
    pub(crate) used: u64,
    /// When this node took it.
    pub(crate) created: u64,
    /// As the game's witness: what it holds and when it first held each envelope with
    /// its causal past (`witness.rs`), built from the store when first needed.
    pub(crate) witness: Option<super::witnessed::Witnessed>,
    /// Whom it is held for, when it is held for a stranger (`held.rs`).
    pub(crate) holder: Option<crate::held::Holder>,
    /// When it was taken or an envelope of it last arrived: its lifetime runs from
    /// here (`held.rs`).
    pub(crate) renewed: u64,
    /// When its renewal was last written to the store.
    pub(crate) renewal_written: u64,
    /// Why a seat refused it when this mailbox offered it, until a seat takes it: its
    /// proposer is told when he asks (`Request::Offer` answered `Refused`).
    pub(crate) refused: Option<String>,
    /// What each seat spent of its reserve for the step it owes (`reserve.rs`).
    pub(crate) reserve: crate::reserve::Reserve,
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
