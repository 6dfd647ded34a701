//! The engine: the one deterministic replay of a game's envelopes, used live by every
//! seat and offline by every verifier.
//!
//! About 1,000 lines on purpose: the engine's state and the one replay loop that orders
//! envelopes causally (insertion, readiness, processing, the queries the verdict uses;
//! what each seat committed, opened, was dealt and drew is asked in `holdings.rs`, the
//! board outcome and which endings enter it in `outcome.rs`);
//! judging, the ledger, private logs and the store of envelopes are files of their own.
//! The loop's parts share the engine's private fields at every step; split across files,
//! each would need them all.
//!
//! Envelopes go in as bytes in any order; each is processed once its chain predecessor
//! and everything it acknowledges have been processed, and it is judged against exactly
//! that causal past (its vector clock), never against what happened to arrive first.
//!
//! So results never depend on arrival order: every envelope is judged against its
//! causal past (the vector clocks of `store.rs`); acts must see the last accepted act
//! (the single-chain rule, `crate::rules`); and chain faults are computed from the set
//! of envelopes held (`Engine::chain_faults`), and become part of the causal record
//! when posted as evidence.

mod clock;
pub use clock::WitnessWait;
mod draws;
mod envelopes;
pub use envelopes::Envelopes;
mod first;
mod forfeit;
mod holdings;
mod judge;
mod ledger;
mod outcome;
mod preview;
mod private;
mod show;
mod statements;
mod store;
mod walk;

use std::collections::BTreeMap;

pub use store::{Clock, Inserted, MAX_AHEAD, StoreError};

use crate::body::ClaimKind;
use crate::envelope::{Ack, EnvelopeError, Signed};
use crate::fault::{Fault, FaultKind};
use crate::hash::Hash;
use crate::ids::{ChainId, EnvRef, LogId, Seat};
use crate::outcome::Outcome;
use crate::proof::Proof;
use crate::proposal::Terms;
use crate::rules::{DeckSpec, OptionError, PoolSpec, Rules, SetupSpec};
use ledger::{DeckLedger, Ledger};
use store::{ChainSlots, Store};

/// A claim made in the transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimRecord {
    /// Who claims.
    pub by: Seat,
    /// Against whom.
    pub against: Seat,
    /// Of what.
    pub kind: ClaimKind,
    /// The envelope that makes it.
    pub at: EnvRef,
    /// The claimant's clock reading.
    pub clock: u64,
    /// How many public envelopes of the accused the claimant had acknowledged.
    pub seen_of_accused: u64,
}

/// Something the engine ignored without blaming anyone (e.g. a resignation sent after
/// the game had already ended in the sender's view).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Where.
    pub at: EnvRef,
    /// What and why.
    pub text: String,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct SeatTrack {
    /// The seat's first public envelope, once processed.
    pub first: Option<EnvRef>,
    /// Its first close.
    pub close: Option<EnvRef>,
    /// Its last close.
    pub last_close: Option<EnvRef>,
    /// The name it signed for itself (version 2, a seat that did not propose).
    pub name: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct GameTrack<S> {
    pub state: Option<S>,
    pub coin: Option<Hash>,
    /// Accepted acts, in order; each saw all the previous ones.
    pub main: Vec<(EnvRef, Seat)>,
    pub endings: Vec<(EnvRef, Outcome)>,
    /// Envelopes after which the game is over for whoever has seen them.
    pub terminal: Vec<EnvRef>,
    pub declined: Option<EnvRef>,
    /// Where the proposer withdrew (version 2).
    pub withdrawn: Option<EnvRef>,
    pub offers: Vec<(Seat, EnvRef)>,
    pub claims: Vec<ClaimRecord>,
    /// Chain faults whose proofs an envelope has posted.
    pub posted: Vec<(EnvRef, FaultKind)>,
    /// Time forfeits that stood: where, against whom, and the proof's times.
    pub forfeits: Vec<(EnvRef, Seat, crate::lateness::Late)>,
    /// Accepted private acts, per log, in order.
    pub private: BTreeMap<LogId, Vec<crate::hidden::Posted>>,
    /// Setup seeds shown in private logs.
    pub shown: Vec<crate::hidden::Shown>,
    /// Where each private chain was sealed (its first close).
    pub sealed: BTreeMap<ChainId, EnvRef>,
    /// Witness statements posted (version 2), in forfeits that stood and statements
    /// items: where, and the statements.
    pub statements: Vec<(EnvRef, Vec<crate::witness::Statement>)>,
}

/// Replays one game.
#[derive(Clone)]
pub struct Engine<R: Rules> {
    terms: Terms,
    rules: R,
    setups: Vec<SetupSpec>,
    store: Store,
    ledger: Ledger,
    game: GameTrack<R::State>,
    seats: Vec<SeatTrack>,
    faults: Vec<Fault>,
    notes: Vec<Note>,
    /// Chains holding an acknowledgement of an envelope that is not the one we hold.
    dangling: Vec<EnvRef>,
    /// What each processed envelope changed, computed when a time forfeit asks.
    effects: clock::Effects,
    /// The witness's key the terms name, decoded and validated once (`forfeit.rs`).
    witness: Option<crate::keys::PublicKey>,
    /// Witness statements whose signature this engine has verified, by their exact
    /// bytes: a ledger is posted again in each forfeit and statements item that needs
    /// it, and its signature is checked once (`forfeit.rs`).
    statements_read: BTreeMap<Vec<u8>, crate::witness::Statement>,
    /// Moves at every insertion ([`Engine::revision`]).
    revision: u64,
}

impl<R: Rules> Engine<R> {
    /// A fresh replay of the game these terms create.
    pub fn new(terms: Terms) -> Result<Self, OptionError> {
        let rules = R::from_terms(&terms)?;
        let decks: Vec<DeckSpec> = rules.decks();
        let setups = rules.setups();
        let pools = rules.pools();
        check_specs(&terms, &decks, &setups, &pools)?;
        let mut ledger = Ledger::new(
            decks.into_iter().map(DeckLedger::new).collect(),
            pools.into_iter().map(ledger::PoolLedger::new).collect(),
        );
        for owe in rules.opening_deals() {
            match ledger.deck_index(owe.owner, &owe.deck) {
                Some(d) if ledger.decks[d].spec.dealer == owe.dealer => {
                    ledger.decks[d].owed.push((None, owe.count))
                }
                _ => {
                    return Err(OptionError(format!(
                        "an opening deal names no deck {} that {} deals",
                        owe.deck, owe.dealer
                    )));
                }
            }
        }
        let witness = terms
            .witness()
            .and_then(|w| crate::keys::PublicKey::from_bytes(&w.key).ok());
        Ok(Engine {
            seats: vec![SeatTrack::default(); terms.seat_count()],
            terms,
            rules,
            setups,
            store: Store::default(),
            ledger,
            game: GameTrack {
                state: None,
                coin: None,
                main: vec![],
                endings: vec![],
                terminal: vec![],
                declined: None,
                withdrawn: None,
                offers: vec![],
                claims: vec![],
                posted: vec![],
                forfeits: vec![],
                private: BTreeMap::new(),
                shown: vec![],
                sealed: BTreeMap::new(),
                statements: vec![],
            },
            faults: vec![],
            notes: vec![],
            dangling: vec![],
            effects: Default::default(),
            witness,
            statements_read: BTreeMap::new(),
            revision: 0,
        })
    }

    /// Lifts the bound on how far ahead of its chain an envelope may be stored. A live
    /// session keeps the bound (a peer must not make it hold envelopes it can never
    /// process); a verifier reading a whole file, already bounded in size, does not.
    pub fn unbounded_ahead(&mut self) {
        self.store.max_ahead = u64::MAX;
    }

    /// The slow reference for tests: this engine then computes what each envelope
    /// changed (§17.6) by a replay of that envelope's own causal past, one replay per
    /// envelope, as the rule is written — quadratic over a game — instead of one walk
    /// per chain (`walk.rs`). Call it before inserting anything. Nothing but the tests
    /// that check the two agree (`tests/tests/forfeit_walk.rs`) uses it.
    #[doc(hidden)]
    pub fn reference_effects_by_replay(&mut self) {
        self.effects.by_replay = true;
    }

    /// The engine as it was before the envelopes whose hashes are given: a session's
    /// undo of what it tried and may not send (`session::Session::send_all`).
    ///
    /// Every other envelope held is put back where it was held — each chain's places
    /// first, then the envelopes beside them, never into an empty place — and the
    /// engine then processes them all, already verified. So each place holds what it
    /// held whatever the order envelopes arrived in, and a proof's envelopes held beside
    /// stay beside. Those a proof in one of the given envelopes brought
    /// ([`Store::brought`](store::Store)) go with it: the engine before it did not hold
    /// them.
    pub(crate) fn without(&self, hashes: &[Hash]) -> Self {
        let mut e = Engine {
            store: Store {
                // Put back as held: how far ahead of its processing a chain was filled
                // was checked when each envelope came.
                max_ahead: u64::MAX,
                ..Store::default()
            },
            ..Engine::new(self.terms.clone()).expect("these terms made this engine")
        };
        let brought_by_undone = |h: &Hash| {
            self.store
                .brought
                .iter()
                .any(|(b, by)| b == h && hashes.contains(by))
        };
        let kept = |env: &&Signed| !hashes.contains(&env.hash) && !brought_by_undone(&env.hash);
        let (chains, mut others) = self.stored();
        for env in chains.into_iter().filter(kept) {
            let _ = e.store.insert(env.clone());
        }
        // What an undone envelope displaced goes back first, into the place it held.
        let displaced_by_undone = |h: &Hash| {
            self.store
                .displaced
                .iter()
                .any(|(d, by)| d == h && hashes.contains(by))
        };
        others.sort_by_key(|o| !displaced_by_undone(&o.hash));
        for env in others.into_iter().filter(kept) {
            if self.store.brought.iter().any(|(b, _)| *b == env.hash) {
                e.store.insert_beside(env.clone(), Hash::ZERO);
            } else {
                // Received: back into its place if an envelope undone held it.
                let _ = e.store.insert(env.clone());
            }
        }
        e.store.brought = self
            .store
            .brought
            .iter()
            .filter(|(b, by)| !hashes.contains(b) && !hashes.contains(by))
            .copied()
            .collect();
        e.store.displaced = self
            .store
            .displaced
            .iter()
            .filter(|(d, by)| !hashes.contains(d) && !hashes.contains(by))
            .copied()
            .collect();
        e.store.max_ahead = self.store.max_ahead;
        e.process();
        // Past every revision of the engine it replaces: what was read from that one is
        // not taken for this one's.
        e.revision = self.revision + 1;
        e
    }

    /// Parses, verifies and stores envelope bytes, then processes whatever became ready.
    /// Bytes equal to an envelope held are not verified again: they were when they
    /// first came (or, restored, when the store took them), and the same bytes carry
    /// the same signature. A copy of a held envelope under another signature is
    /// verified, and refused if it does not check (spec/PROTOCOL.md §7.1).
    pub fn insert(&mut self, bytes: &[u8]) -> Result<Inserted, InsertError> {
        let signed = self.parse_once(bytes)?;
        self.insert_signed(signed)
    }

    /// [`Signed::parse`] for this game, its signature verified unless these exact bytes
    /// (signature included) are held already: verified when they first came.
    pub fn parse_once(&self, bytes: &[u8]) -> Result<Signed, EnvelopeError> {
        self.envelopes_view().parse(bytes)
    }

    /// Whether these exact bytes (signature included) are held, in a slot or beside.
    pub fn holds_exact(&self, signed: &Signed) -> bool {
        self.store.holds_exact(signed)
    }

    /// Stores an envelope already verified, then processes whatever became ready.
    pub fn insert_signed(&mut self, signed: Signed) -> Result<Inserted, InsertError> {
        // Chain faults (two envelopes at one position, a broken link) are facts about
        // the set of envelopes held; `chain_faults` computes them from that set, never
        // from the order of arrival.
        let r = self.store.insert(signed)?;
        self.process();
        Ok(r)
    }

    /// Holds every envelope first, then processes what became ready, as a transcript
    /// file is checked (spec/PROTOCOL.md §10.6 step 2): each position's slot is the
    /// file's envelope before anything is processed, so an envelope a proof inside the
    /// file brings beside the chains can never be followed in its place. Each result is
    /// that envelope's holding, in the order given.
    pub fn insert_all_signed(
        &mut self,
        envelopes: impl IntoIterator<Item = Signed>,
    ) -> Vec<Result<Inserted, InsertError>> {
        let held = envelopes
            .into_iter()
            .map(|s| self.store.insert(s).map_err(InsertError::from))
            .collect();
        self.process();
        held
    }

    /// A count that moves whenever what the engine holds may have changed: anything read
    /// from the engine alone (a score, a last move) stays true while it stays the same.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Processes every envelope whose causal past is complete.
    fn process(&mut self) {
        // Every insertion comes through here, whatever it held.
        self.revision += 1;
        loop {
            let mut progress = false;
            let ids: Vec<ChainId> = self.store.chains.keys().copied().collect();
            for id in ids {
                while self.step(id) {
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
    }

    /// Processes the next envelope of one chain if it is ready.
    ///
    /// Asked of every chain after every insertion, so a chain whose next envelope still
    /// waits for what it acknowledges is answered without copying or allocating
    /// anything: the envelope is read where it is held, and copied out (to be judged
    /// while the engine changes) only once it is ready.
    fn step(&mut self, id: ChainId) -> bool {
        let Some(slots) = self.store.chains.get(&id) else {
            return false;
        };
        let k = slots.processed;
        let expected_prev = if k == 0 {
            Hash::ZERO
        } else {
            slots.processed_hash(k - 1).unwrap_or_default()
        };
        let at = EnvRef { chain: id, seq: k };
        // Of everything held at this position (the slot's, then the others: the order
        // of `Store::all_at`), follow the envelope that links; with none, wait (a
        // linking one may still come; a broken one is a chain fault).
        let slot = slots.get(k);
        let Some(link) = slot
            .filter(|e| e.unsigned().prev == expected_prev)
            .or_else(|| {
                self.store
                    .others
                    .iter()
                    .find(|o| o.at() == at && o.unsigned().prev == expected_prev)
            })
            .map(|e| e.hash)
        else {
            return false;
        };
        if slot.map(|s| s.hash) != Some(link) {
            let env = self
                .store
                .others
                .iter()
                .find(|o| o.hash == link)
                .cloned()
                .expect("the linking envelope is among the others");
            let slots = self.store.chains.get_mut(&id).expect("chain exists");
            // The linking envelope may have waited among the others with no slot of
            // its own yet (a twin came first, then went to the others): make its slot.
            let i = usize::try_from(k).expect("a processed count fits memory");
            if slots.envs.len() <= i {
                slots.envs.resize(i + 1, None);
            }
            let old = slots.envs[i].replace(env);
            self.store.others.retain(|o| o.hash != link);
            if let Some(old) = old {
                self.store.displaced.push((old.hash, link));
                self.store.keep_other(old);
            }
        }
        let env = self.store.chains[&id]
            .get(k)
            .expect("the linking envelope is in its slot");

        let malformed = ack_shape(env, &self.terms, &self.rules);
        if malformed.is_none() {
            for ack in &env.unsigned().acks {
                match self.store.chains.get(&ack.chain) {
                    Some(t) if t.processed > ack.seq => {
                        if t.processed_hash(ack.seq) != Some(ack.hash) {
                            if !self.dangling.contains(&at) {
                                self.dangling.push(at);
                            }
                            return false;
                        }
                    }
                    _ => return false,
                }
            }
        }
        let env = env.clone();

        // The causal clock: own predecessor, everything acknowledged, and itself.
        let slots: &ChainSlots = &self.store.chains[&id];
        let mut clock: Clock = if k == 0 {
            vec![]
        } else {
            slots.clocks[(k - 1) as usize].clone()
        };
        let own = slots.index;
        if malformed.is_none() {
            for ack in &env.unsigned().acks {
                if let Some(c) = self.store.clock_of(ack.target()) {
                    store::join(&mut clock, c);
                }
            }
        }
        if clock.len() <= own {
            clock.resize(own + 1, 0);
        }
        clock[own] = k + 1;
        if let Some(s) = self.store.chains.get_mut(&id) {
            s.clocks.push(clock.clone());
            s.processed += 1;
        }
        self.judge(&env, &clock, malformed);
        true
    }

    /// Records a proven fault found in the envelope being judged; that envelope ends the
    /// game for whoever sees it.
    pub(crate) fn fault(
        &mut self,
        seat: Seat,
        at: EnvRef,
        kind: FaultKind,
        detail: impl Into<String>,
    ) {
        self.fault_only(seat, at, kind, detail);
        if !self.game.terminal.contains(&at) {
            self.game.terminal.push(at);
        }
    }

    /// Records a proven fault about an earlier envelope (e.g. deals a seed revealed at
    /// the end does not produce). It changes no one's view of the game.
    pub(crate) fn fault_only(
        &mut self,
        seat: Seat,
        at: EnvRef,
        kind: FaultKind,
        detail: impl Into<String>,
    ) {
        let f = Fault {
            seat,
            role: self.role_of(seat),
            at,
            kind,
            detail: detail.into(),
        };
        if !self.faults.contains(&f) {
            self.faults.push(f);
        }
    }

    fn role_of(&self, seat: Seat) -> crate::proposal::Role {
        self.terms
            .role(seat)
            .unwrap_or(crate::proposal::Role::Player)
    }

    /// A chain fault at a position, worded the one way it is always worded.
    pub(crate) fn chain_fault(&self, at: EnvRef, kind: FaultKind) -> Fault {
        let seat = at.chain.seat;
        Fault {
            seat,
            role: self.role_of(seat),
            at,
            detail: chain_fault_detail(&kind).into(),
            kind,
        }
    }

    /// Chain faults in the set of envelopes held, each with its proof
    /// ([`Envelopes::chain_breaks`]).
    pub fn chain_faults(&self) -> Vec<(Fault, Proof)> {
        self.envelopes_view()
            .chain_breaks()
            .into_iter()
            .map(|(at, kind, proof)| (self.chain_fault(at, kind), proof))
            .collect()
    }

    /// Every proven fault: those found judging envelopes and the chain faults, sorted.
    /// The end-of-game audit's findings are among them once it can run (§10.1).
    pub fn all_faults(&self) -> Vec<Fault> {
        self.faults_and_gaps().0
    }

    /// [`Engine::all_faults`] and the audit's gaps, from one run of the audit.
    pub fn faults_and_gaps(&self) -> (Vec<Fault>, Vec<crate::hidden::Gap>) {
        let (all, audit) = self.faults_and_audit();
        (all, audit.gaps)
    }

    /// [`Engine::all_faults`] and the whole audit they include, from one run of the
    /// audit: the verdict reads its gaps and who it proves out of time as well, and the
    /// audit (which dates every private envelope by its deposit) is the costliest query.
    pub fn faults_and_audit(&self) -> (Vec<Fault>, crate::hidden::Audit) {
        let audit = self.audit();
        let mut all = self.faults.clone();
        all.extend(self.chain_faults().into_iter().map(|(f, _)| f));
        all.extend(audit.findings.iter().map(|f| Fault {
            seat: f.seat,
            role: self.role_of(f.seat),
            at: f.at,
            kind: FaultKind::GameRule,
            detail: f.detail.clone(),
        }));
        all.sort();
        all.dedup();
        (all, audit)
    }

    /// Chain faults whose proof no processed envelope has posted yet.
    pub fn unposted_proofs(&self) -> Vec<Proof> {
        self.chain_faults()
            .into_iter()
            .filter(|(f, _)| {
                !self
                    .game
                    .posted
                    .iter()
                    .any(|(at, kind)| *at == f.at && *kind == f.kind)
            })
            .map(|(_, p)| p)
            .collect()
    }

    pub(crate) fn note(&mut self, at: EnvRef, text: impl Into<String>) {
        self.notes.push(Note {
            at,
            text: text.into(),
        });
    }

    // ----- reading the replay -----

    /// The terms.
    pub fn terms(&self) -> &Terms {
        &self.terms
    }

    /// The game's rules.
    pub fn rules(&self) -> &R {
        &self.rules
    }

    /// The game state, once the coin is known.
    pub fn state(&self) -> Option<&R::State> {
        self.game.state.as_ref()
    }

    /// The joint coin, once every player revealed.
    pub fn coin(&self) -> Option<&Hash> {
        self.game.coin.as_ref()
    }

    /// Proven faults found judging envelopes (see [`Engine::all_faults`] for all).
    pub fn faults(&self) -> &[Fault] {
        &self.faults
    }

    /// Things ignored without blame.
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// Time forfeits that stood (version 2): where each was posted, against whom, and
    /// the times that prove it.
    pub fn forfeits(&self) -> &[(EnvRef, Seat, crate::lateness::Late)] {
        &self.game.forfeits
    }

    /// Players lost on time (version 2): against whom a forfeit stood, and the one the
    /// audit proves out of time from the witness's times (§17); none when the witness
    /// lied ([`Engine::witness_lied`]), for then no time result stands.
    pub fn lost_on_time(&self) -> Vec<Seat> {
        if self.witness_lied().is_some() {
            return vec![];
        }
        let mut seats: Vec<Seat> = self.game.forfeits.iter().map(|f| f.1).collect();
        seats.extend(self.audit().out_of_time.map(|l| l.seat));
        seats
    }

    /// Claims made in the transcript.
    pub fn claims(&self) -> &[ClaimRecord] {
        &self.game.claims
    }

    /// Accepted acts, in order.
    pub fn main_line(&self) -> &[(EnvRef, Seat)] {
        &self.game.main
    }

    /// Whether the game has ended (by result, resignation, agreement, decline, a fault
    /// found in an envelope, or posted evidence) as far as everything processed shows.
    pub fn is_over(&self) -> bool {
        !self.game.terminal.is_empty()
    }

    /// Whether the proposal was declined.
    pub fn declined(&self) -> bool {
        self.game.declined.is_some()
    }

    /// Whether the proposer withdrew the proposal (version 2).
    pub fn withdrawn(&self) -> bool {
        self.game.withdrawn.is_some()
    }

    /// Whether `by`'s public chain holds an envelope that has seen `seat`'s first
    /// public envelope (an acknowledgement of its joining).
    pub fn acknowledged_by(&self, by: Seat, seat: Seat) -> bool {
        let Some(first) = self.seats.get(seat.index()).and_then(|t| t.first) else {
            return false;
        };
        let chain = crate::ids::ChainId::public(by);
        let n = self.processed(chain);
        n > 0
            && self
                .store
                .clock_of(EnvRef { chain, seq: n - 1 })
                .is_some_and(|c| self.store.seen(c, first))
    }

    /// Whether there was no game: declined or withdrawn.
    pub fn called_off(&self) -> bool {
        self.declined() || self.withdrawn()
    }

    /// The name a seat signed for itself: the proposer's in the proposal, any other
    /// seat's in its first envelope (version 2). `None` when it signed none (a version 1
    /// game's other seats: their names in the proposal are the proposer's words).
    pub fn signed_name(&self, seat: Seat) -> Option<&str> {
        self.envelopes_view().signed_name(seat)
    }

    /// The seat whose game act is awaited, if the game is on.
    pub fn to_act(&self) -> Option<Seat> {
        if self.is_over() {
            return None;
        }
        self.rules.to_act(self.game.state.as_ref()?)
    }

    /// Number of processed envelopes of a chain.
    pub fn processed(&self, chain: ChainId) -> u64 {
        self.store.chains.get(&chain).map_or(0, |c| c.processed)
    }

    /// Total number of processed envelopes.
    pub fn processed_total(&self) -> u64 {
        self.store.chains.values().map(|c| c.processed).sum()
    }

    /// The processed envelope at a position.
    pub fn envelope(&self, at: EnvRef) -> Option<&Signed> {
        self.envelopes_view().processed(at)
    }

    /// Every chain with at least one processed envelope.
    pub fn chains(&self) -> impl Iterator<Item = ChainId> + '_ {
        self.store
            .chains
            .iter()
            .filter(|(_, c)| c.processed > 0)
            .map(|(id, _)| *id)
    }

    /// Every stored envelope in chain order (processed or not), then the envelopes
    /// held beside them at filled positions: what a transcript file holds.
    pub fn stored(&self) -> (Vec<&Signed>, Vec<&Signed>) {
        let chains = self
            .store
            .chains
            .values()
            .flat_map(|c| c.envs.iter().flatten())
            .collect();
        (chains, self.store.others.iter().collect())
    }

    /// Envelopes stored but not processable: waiting for a missing predecessor or
    /// acknowledged envelope, or not linking to their predecessor.
    pub fn stuck(&self) -> Vec<EnvRef> {
        let mut out = vec![];
        for (id, c) in &self.store.chains {
            for (seq, e) in c.envs.iter().enumerate() {
                if e.is_some() && seq as u64 >= c.processed {
                    out.push(EnvRef {
                        chain: *id,
                        seq: seq as u64,
                    });
                }
            }
        }
        out
    }

    /// Acknowledgements a new envelope in `log` should carry: the head of every other
    /// chain it may see.
    pub fn heads_for(&self, seat: Seat, log: LogId) -> Vec<Ack> {
        self.store
            .chains
            .iter()
            .filter(|(id, _)| id.seat != seat || id.log != log)
            .filter(|(id, _)| id.log.is_public() || id.log == log)
            .filter(|(id, _)| !(id.seat == seat && id.log == log))
            .filter_map(|(id, c)| c.head(*id))
            .collect()
    }

    /// The last processed envelope of a chain: `(next seq, its hash)`.
    pub fn chain_tip(&self, chain: ChainId) -> (u64, Hash) {
        match self.store.chains.get(&chain) {
            Some(c) if c.processed > 0 => (
                c.processed,
                c.processed_hash(c.processed - 1).unwrap_or_default(),
            ),
            _ => (0, Hash::ZERO),
        }
    }

    /// Whether a seat has processed its first envelope.
    pub fn has_joined(&self, seat: Seat) -> bool {
        self.seats
            .get(seat.index())
            .is_some_and(|s| s.first.is_some())
    }

    /// Whether a seat has closed.
    pub fn has_closed(&self, seat: Seat) -> bool {
        self.seats
            .get(seat.index())
            .is_some_and(|s| s.close.is_some())
    }

    pub(crate) fn seat_track(&self, seat: Seat) -> Option<&SeatTrack> {
        self.seats.get(seat.index())
    }

    pub(crate) fn dangling(&self) -> &[EnvRef] {
        &self.dangling
    }

    /// Whether another player's draw offer stands for `seat` in everything processed.
    pub fn draw_offered_to(&self, seat: Seat) -> bool {
        if self.is_over() || !self.terms.is_player(seat) {
            return false;
        }
        let mut clock: Clock = vec![0; self.store.chains.len()];
        for c in self.store.chains.values() {
            clock[c.index] = c.processed;
        }
        self.standing_offer(seat, &clock)
    }

    /// Whether a seat must close (again): it has closed, but its last close did not
    /// see the first close of every other seat that joined.
    pub fn close_due(&self, seat: Seat) -> bool {
        self.close_due_but(seat, &[])
    }

    /// [`Engine::close_due`], the closes of the seats `unwaited` aside: players lost on
    /// time, whose closes nobody waits for (spec/PROTOCOL.md §17.7).
    pub fn close_due_but(&self, seat: Seat, unwaited: &[Seat]) -> bool {
        let Some(t) = self.seats.get(seat.index()) else {
            return false;
        };
        let Some(last) = t.last_close else {
            return false;
        };
        let Some(clock) = self.store.clock_of(last) else {
            return false;
        };
        self.seats.iter().enumerate().any(|(i, o)| {
            i != seat.index()
                && !unwaited.iter().any(|u| u.index() == i)
                && o.first.is_some()
                && o.close.is_some_and(|c| !self.store.seen(clock, c))
        })
    }

    pub(crate) fn store(&self) -> &Store {
        &self.store
    }
}

/// Why bytes could not be inserted. None of these proves anything about a seat.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InsertError {
    /// Not a validly signed envelope of this game.
    #[error(transparent)]
    Envelope(#[from] EnvelopeError),
    /// Refused by the store.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The one wording of each chain fault, whether found in the envelopes held or posted
/// as evidence (so the two records are the same fault).
pub(crate) fn chain_fault_detail(kind: &FaultKind) -> &'static str {
    match kind {
        FaultKind::Equivocation => "two different envelopes signed at one position",
        _ => "prev does not name the seat's previous envelope",
    }
}

/// Checks acknowledgements' shape: strictly ascending, only of seats of the game and of
/// logs the game has, never the sender's own chain, and a public envelope never
/// acknowledges a private log.
fn ack_shape<R: Rules>(env: &Signed, terms: &Terms, rules: &R) -> Option<&'static str> {
    let u = env.unsigned();
    for a in &u.acks {
        if terms.key(a.chain.seat).is_none() {
            return Some("acknowledges a seat the game does not have");
        }
        if !a.chain.log.is_public() && rules.audience(a.chain.log).is_none() {
            return Some("acknowledges a log the game does not have");
        }
    }
    if u.acks.windows(2).any(|w| w[0].chain >= w[1].chain) {
        return Some("acknowledgements not strictly ascending by chain");
    }
    for a in &u.acks {
        if a.chain.seat == u.seat && a.chain.log == u.log {
            return Some("acknowledges its own chain");
        }
        if u.log.is_public() && !a.chain.log.is_public() {
            return Some("a public envelope acknowledges a private log");
        }
        if !u.log.is_public() && !a.chain.log.is_public() && a.chain.log != u.log {
            return Some("acknowledges another private log");
        }
    }
    None
}

fn check_specs(
    terms: &Terms,
    decks: &[DeckSpec],
    setups: &[SetupSpec],
    pools: &[PoolSpec],
) -> Result<(), OptionError> {
    for (i, p) in pools.iter().enumerate() {
        if !terms.is_player(p.owner) || !terms.is_player(p.contributor) || p.owner == p.contributor
        {
            return Err(OptionError(format!(
                "pool {} has a bad owner or contributor",
                p.name
            )));
        }
        if p.draws == 0 || p.draws > 4096 {
            return Err(OptionError(format!(
                "pool {} must allow 1 to 4096 draws",
                p.name
            )));
        }
        if pools[..i]
            .iter()
            .any(|q| q.owner == p.owner && q.name == p.name)
        {
            return Err(OptionError(format!("pool {} declared twice", p.name)));
        }
    }
    for (i, d) in decks.iter().enumerate() {
        if !terms.is_player(d.owner) || !terms.is_player(d.dealer) || d.owner == d.dealer {
            return Err(OptionError(format!(
                "deck {} has a bad owner or dealer",
                d.name
            )));
        }
        if d.cards.is_empty() || d.cards.len() > crate::body::MAX_COMMITS {
            return Err(OptionError(format!(
                "deck {} must have 1 to 1024 cards",
                d.name
            )));
        }
        let mut sorted = d.cards.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != d.cards.len() {
            return Err(OptionError(format!("deck {} lists a card twice", d.name)));
        }
        if decks[..i]
            .iter()
            .any(|e| e.owner == d.owner && e.name == d.name)
        {
            return Err(OptionError(format!("deck {} declared twice", d.name)));
        }
    }
    // Every start commitment travels in the seat's first envelope, which must fit the
    // message cap: at most 1,800 hashes of 32 bytes (57.6 KiB) leaves room for the rest.
    for seat in terms.player_seats() {
        let owned: usize = decks
            .iter()
            .filter(|d| d.owner == seat)
            .map(|d| d.cards.len())
            .sum();
        let dealt = decks.iter().filter(|d| d.dealer == seat).count();
        let own_setups = setups.iter().filter(|s| s.owner == seat).count();
        let own_pools = pools.iter().filter(|p| p.owner == seat).count();
        if 1 + owned + dealt + own_setups + own_pools > 1800 {
            return Err(OptionError(format!(
                "{seat} would commit more than 1800 values at the start"
            )));
        }
    }
    for s in setups {
        if !terms.is_player(s.owner) || !terms.is_player(s.contributor) || s.owner == s.contributor
        {
            return Err(OptionError(format!(
                "setup {} has a bad owner or contributor",
                s.name
            )));
        }
    }
    Ok(())
}
