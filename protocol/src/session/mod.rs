//! One seat's live session: a state machine that takes envelopes and commands in and
//! gives envelopes to send and secrets to persist out.
//!
//! The session owns an [`Engine`] (the same replay every verifier runs) and adds what
//! only this seat knows: its signing key and its secrets. Each phase is its own type;
//! the session answers every automatic step of the protocol itself (commitments, coin
//! reveal, deals, reveals, closes), so a person only ever acts on real decisions.
//! Inputs are `handle_*`; outputs are drained with [`Session::poll_action`].
//!
//! Over 600 lines on purpose: the session's state with its inputs, outputs and the one
//! `send` every signed envelope goes through stay together; the phases are in
//! `phase.rs`, the secrets in `secrets.rs`, what the witness said and what the seat
//! posts of it in `witness.rs`, the errors in `error.rs`, and the object-safe
//! interface a node holds (with sync and the timeline) in `any.rs`.

mod any;
mod dues;
mod error;
pub mod phase;
mod secrets;
mod witness;

use std::collections::VecDeque;

pub use any::{AnySession, Timeline, take_bytes};
pub use error::{Refusal, SessionError};
pub use phase::{NotNow, Phase, Stage};
pub use secrets::{Secrets, start_keys};
pub use witness::{MAX_STAMPED, StatementsOwed, WitnessDue};

use crate::body::{Commit, Item, Open, Purpose};
use crate::commit::CommitKey;
use crate::engine::{Engine, Inserted};
use crate::envelope::{Signed, Unsigned};
use crate::hash::Hash;
use crate::ids::{ChainId, LogId, Name, Seat};
use crate::keys::SecretKey;
use crate::proposal::Terms;
use crate::rules::{PoolSpec, Rules};
use crate::verdict::{Verdict, verdict};
use phase::Decide;

/// Something the caller must do, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum Action {
    /// Make these secrets durable before doing anything that follows.
    Persist(Secrets),
    /// Make this envelope durable, then deliver it to these seats.
    Send {
        /// The envelope.
        env: Box<Signed>,
        /// Who may receive it (its log's audience, minus the sender).
        to: Vec<Seat>,
    },
    /// The game ended as far as this seat has seen.
    GameOver,
    /// The transcript is complete: every seat closed after seeing the others close.
    Complete,
}

/// A decision of the person (or bot) at this seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Accept the proposal.
    Accept,
    /// Decline the proposal.
    Decline,
    /// Make a game act: its bytes, the deck slots it shows and opens, the sealed values
    /// it commits (name, index, value) and those it opens (name, index).
    Act {
        /// The act, encoded by the game.
        act: Vec<u8>,
        /// Own deck slots to show, kept, in the same envelope, each to a seat or to all
        /// (`None`); version 2 only (spec/PROTOCOL.md §17.16).
        show_slots: Vec<(Name, u32, Option<crate::ids::Seat>)>,
        /// Own deck slots to open in the same envelope.
        open_slots: Vec<(Name, u32)>,
        /// Sealed values to commit in the same envelope.
        commit_values: Vec<(Name, u32, Vec<u8>)>,
        /// Own sealed values to open in the same envelope.
        open_values: Vec<(Name, u32)>,
        /// A pool of this seat whose next draw to open in the same envelope.
        open_draw: Option<Name>,
    },
    /// Make a game act in a private log this seat is in (a referee exchange).
    PrivateAct {
        /// The log.
        log: LogId,
        /// The act, encoded by the game.
        act: Vec<u8>,
    },
    /// Show this seat's setup seed to a private log's audience (its referee), before
    /// the end: the opening is checked against the public commitment at once.
    ShowSetup {
        /// The log.
        log: LogId,
        /// Which of this seat's setups.
        setup: Name,
    },
    /// Seal a private log: this seat posts nothing more to it, and the seal's
    /// acknowledgements fix how much of the log's other chains it covers.
    Seal {
        /// The log.
        log: LogId,
    },
    /// Resign. Before any other seat has accepted, the proposer of a version 2 game
    /// withdraws instead (there is no game to lose yet).
    Resign,
    /// Take the proposal back before any other seat has accepted it (version 2, the
    /// proposer only).
    Withdraw,
    /// Offer a draw.
    OfferDraw,
    /// Accept the opponent's draw offer.
    AcceptDraw,
    /// Claim against another seat.
    Claim(crate::body::Claim),
    /// Post the witness's proof that another player let its time pass (version 2):
    /// the game ends with that player's loss on time if the proof stands.
    Forfeit(crate::body::Forfeit),
    /// Post statements of the game's witness for the record (version 2): after the end
    /// of a game with private logs, what [`Session::stamps_known`] gives (empty when the
    /// witness gave none; the seat closes only after); at any time, statements that
    /// contradict a forfeit's, so that no time result stands.
    Statements(Vec<Vec<u8>>),
}

impl Command {
    /// A plain act with nothing opened or committed.
    pub fn act(bytes: Vec<u8>) -> Self {
        Command::Act {
            act: bytes,
            show_slots: vec![],
            open_slots: vec![],
            commit_values: vec![],
            open_values: vec![],
            open_draw: None,
        }
    }
}

/// One seat's session.
pub struct Session<R: Rules> {
    seat: Seat,
    key: SecretKey,
    engine: Engine<R>,
    /// Where the session stands, with what that phase holds (this seat's secrets).
    phase: Phase,
    outbox: VecDeque<Action>,
    /// What the witness has said of when it held envelopes, and of its clock.
    witness: witness::Known,
    /// The name this seat signs into its first envelope when it accepts (version 2).
    name: Option<String>,
    /// Proofs whose posting was refused, with how many envelopes the engine had
    /// processed then (`post_proofs`).
    refused_proofs: Vec<(crate::proof::Proof, u64)>,
}

impl<R: Rules> Session<R> {
    /// A session for the seat `key` holds in these terms. The proposer's session sends
    /// its commitments at once (using `entropy`); any other seat waits for
    /// [`Command::Accept`].
    pub fn new(
        terms: Terms,
        key: SecretKey,
        entropy: [u8; 32],
        now: u64,
    ) -> Result<Self, SessionError> {
        let seat = terms
            .seat_of(&key.public().to_bytes())
            .ok_or(SessionError::NotASeat)?;
        let terms_version = terms.version();
        let engine = Engine::new(terms)?;
        let mut s = Session {
            seat,
            key,
            engine,
            phase: Phase::Decide(Decide {
                secrets: Secrets::for_version(entropy, terms_version),
            }),
            outbox: VecDeque::new(),
            witness: witness::Known::default(),
            name: None,
            refused_proofs: vec![],
        };
        if s.engine.terms().proposal().proposer == seat {
            let secrets = s.join(entropy, true, now)?;
            s.phase = Phase::from_engine(&s.engine, seat, secrets);
        }
        s.drive(now);
        Ok(s)
    }

    /// Rebuilds a session from stored secrets and stored envelopes (after a restart).
    /// Envelopes may come in any order. They are the seat's own store, each verified
    /// before it was kept, so their signatures are not verified again
    /// ([`Signed::parse_kept`]); every other check is made.
    pub fn restore(
        terms: Terms,
        key: SecretKey,
        secrets: Secrets,
        envelopes: &[Vec<u8>],
        now: u64,
    ) -> Result<Self, SessionError> {
        let seat = terms
            .seat_of(&key.public().to_bytes())
            .ok_or(SessionError::NotASeat)?;
        let mut engine = Engine::new(terms)?;
        for e in envelopes {
            let mut signed =
                Signed::parse_kept(engine.terms(), e).map_err(crate::engine::InsertError::from)?;
            // A chain's first envelope is verified again: a version 2 envelope's bytes do
            // not name its game, so this is what ties what a store kept to this game;
            // every later envelope of the chain is tied to the first by its `prev`, a
            // hash that covers the game id. One signature per chain.
            if signed.at().seq == 0 {
                signed =
                    Signed::parse(engine.terms(), e).map_err(crate::engine::InsertError::from)?;
            }
            engine.insert_signed(signed)?;
        }
        let phase = Phase::from_engine(&engine, seat, secrets);
        let mut s = Session {
            seat,
            key,
            engine,
            phase,
            outbox: VecDeque::new(),
            witness: witness::Known::default(),
            name: None,
            refused_proofs: vec![],
        };
        s.drive(now);
        Ok(s)
    }

    /// The name this seat signs into its acceptance (version 2; spec/PROTOCOL.md
    /// §17.15): set before [`Command::Accept`]. An empty name, one over
    /// [`crate::body::MAX_NAME`] bytes, or a version 1 game sign none.
    pub fn set_name(&mut self, name: &str) {
        let fits = !name.is_empty() && name.len() <= crate::body::MAX_NAME;
        let v2 = crate::proposal::is_version_2(self.engine.terms().version());
        self.name = (fits && v2).then(|| name.to_owned());
    }

    /// Whether this seat may take its proposal back now, else why not: it proposed a
    /// version 2 game and has seen no other seat's first envelope.
    pub fn may_withdraw(&self) -> Result<(), Refusal> {
        let terms = self.engine.terms();
        if terms.proposal().proposer != self.seat {
            return Err(Refusal::NotProposer);
        }
        if !crate::proposal::is_version_2(terms.version()) {
            return Err(Refusal::NoWithdrawal);
        }
        match terms
            .seats()
            .find(|s| *s != self.seat && self.engine.has_joined(*s))
        {
            Some(s) => Err(Refusal::Accepted(s)),
            None => Ok(()),
        }
    }

    /// Whether every other seat's first envelope is acknowledged by an envelope of the
    /// proposer: from then on the proposer cannot withdraw, so this seat may open what
    /// it would not show to a proposer free to walk away (its coin seed, its deals).
    fn proposer_bound(&self) -> bool {
        let proposer = self.engine.terms().proposal().proposer;
        proposer == self.seat || self.engine.acknowledged_by(proposer, self.seat)
    }

    /// Takes an envelope received from the network (or a mailbox, or a file).
    pub fn handle_envelope(&mut self, bytes: &[u8], now: u64) -> Result<Inserted, SessionError> {
        let r = self.engine.insert(bytes)?;
        self.drive(now);
        Ok(r)
    }

    /// As [`Session::handle_envelope`], for an envelope the caller parsed, its signature
    /// verified ([`Signed::parse`]): not verified again.
    pub fn handle_signed(&mut self, signed: Signed, now: u64) -> Result<Inserted, SessionError> {
        let r = self.engine.insert_signed(signed)?;
        self.drive(now);
        Ok(r)
    }

    /// Takes a decision of this seat's person or bot.
    pub fn handle_command(&mut self, cmd: Command, now: u64) -> Result<(), SessionError> {
        // The phase is done on a copy: a refused command leaves the session as it was.
        let next = self.phase.clone().handle(self, cmd, now)?;
        self.phase = next;
        self.drive(now);
        Ok(())
    }

    /// Whether the current phase takes `cmd`, else why not: what `handle_command`
    /// asks first, and what a face asks before it offers or words a command.
    pub fn allowed(&self, cmd: &Command) -> Result<(), NotNow> {
        self.phase.allows(cmd)
    }

    /// The next thing the caller must do.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.outbox.pop_front()
    }

    /// The seat this session plays.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The replay of everything this seat has.
    pub fn engine(&self) -> &Engine<R> {
        &self.engine
    }

    /// The current phase.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The verdict on what this seat has.
    pub fn verdict(&self) -> Verdict {
        verdict(&self.engine)
    }

    /// The secrets to persist: those this seat's commitments bind (before it joins,
    /// those they will).
    pub fn secrets(&self) -> &Secrets {
        self.phase.secrets()
    }

    /// The value of this seat's own private setup `name` (§4.5), from its seed, which
    /// it holds before it opens it, once the contributor's coin seed is known.
    pub fn own_setup_value(&self, name: &Name) -> Option<Hash> {
        let seed = self.secrets().seed(&Purpose::Setup(name.clone()), 0);
        self.engine.setup_value_from(self.seat, name, &seed)
    }

    /// This seat's cards in hand for one of its decks: slots dealt or granted and not
    /// yet used, with the card each holds.
    pub fn hand(&self, deck: &Name) -> Vec<(u32, u32)> {
        let secrets = self.phase.secrets();
        let Some(spec) = self
            .engine
            .decks()
            .into_iter()
            .find(|d| d.owner == self.seat && &d.name == deck)
        else {
            return vec![];
        };
        let order = secrets.deck_order(spec);
        let used = self.engine.used(self.seat, deck);
        let mut slots = self.engine.dealt(self.seat, deck);
        slots.extend(self.engine.granted(self.seat, deck));
        slots
            .into_iter()
            .filter(|s| !used.contains_key(s))
            .filter_map(|s| Some((s, *order.get(s as usize)?)))
            .collect()
    }

    // ----- internals used by the phases -----

    /// Sends the first envelope: acceptance (unless proposer) and start commitments;
    /// returns the secrets they bind.
    fn join(
        &mut self,
        entropy: [u8; 32],
        proposer: bool,
        now: u64,
    ) -> Result<Secrets, SessionError> {
        let secrets = Secrets::for_version(entropy, self.engine.terms().version());
        let decks = self.engine.decks();
        let game = self.engine.terms().game();
        let mut body = vec![];
        if !proposer {
            body.push(Item::Accept);
        }
        let pools: Vec<PoolSpec> = self.engine.pools().into_iter().cloned().collect();
        // Only players commit at the start (spec §6.3): a referee or witness just accepts.
        let keys = if self.engine.terms().is_player(self.seat) {
            start_keys(self.seat, &decks, self.engine.setups(), &pools)
        } else {
            Default::default()
        };
        for (purpose, indices) in keys {
            for run in runs(&indices) {
                let hashes = run
                    .iter()
                    .map(|i| {
                        let key = CommitKey {
                            seat: self.seat,
                            purpose: purpose.clone(),
                            index: *i,
                        };
                        match &purpose {
                            // A draw chain publishes its head as it is.
                            Purpose::DrawChain(name) => {
                                self.chain_value(&secrets, name, 0).map(crate::hash::Hash)
                            }
                            _ => secrets.commitment(game, &key, &decks),
                        }
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or(SessionError::NoStartValue)?;
                for (i, chunk) in hashes.chunks(crate::body::MAX_COMMITS).enumerate() {
                    body.push(Item::Commit(Commit {
                        purpose: purpose.clone(),
                        first: run[0] + (i * crate::body::MAX_COMMITS) as u32,
                        hashes: chunk.to_vec(),
                    }));
                }
            }
        }
        if !proposer && let Some(name) = &self.name {
            body.push(Item::Named(name.clone()));
        }
        // Secrets are durable before the commitments that bind them leave the node.
        self.outbox.push_back(Action::Persist(secrets.clone()));
        self.send(LogId::PUBLIC, body, now)?;
        Ok(secrets)
    }

    /// Signs `body` as this seat's next envelope in `log`, has its engine judge it, and
    /// only then keeps it and queues it for sending ([`Session::send_all`]).
    fn send(&mut self, log: LogId, body: Vec<Item>, now: u64) -> Result<(), SessionError> {
        self.send_all(log, vec![body], now)
    }

    /// Signs one envelope per body, in order, each on the last; sends them all if every
    /// one takes effect at once without a fault of this seat's, and none otherwise.
    ///
    /// Each is judged by the engine itself, as every envelope is: nothing is sent before
    /// it has. One that may not go is undone by replaying the engine without what was
    /// tried (`Engine::without`), which costs what a restore does — a refused command is
    /// rare (the faces check a command first) — where a copy of the engine made for
    /// every envelope cost a move as much as the whole game held.
    fn send_all(
        &mut self,
        log: LogId,
        bodies: Vec<Vec<Item>>,
        now: u64,
    ) -> Result<(), SessionError> {
        let before = self.engine.faults().len();
        let mut signed_all: Vec<(Signed, bool)> = vec![];
        let tried = self.try_all(log, bodies, now, before, &mut signed_all);
        if let Err(e) = tried {
            let fresh: Vec<Hash> = signed_all
                .iter()
                .filter(|(_, new)| *new)
                .map(|(s, _)| s.hash)
                .collect();
            if !fresh.is_empty() {
                self.engine = self.engine.without(&fresh);
            }
            return Err(e);
        }
        let to = self.audience(log);
        for (signed, _) in signed_all {
            self.outbox.push_back(Action::Send {
                env: Box::new(signed),
                to: to.clone(),
            });
        }
        Ok(())
    }

    /// [`Session::send_all`]'s envelopes, signed and judged one after the other; each one
    /// signed is in `signed`, with whether the engine holds it anew (the undo drops those),
    /// whatever the result.
    fn try_all(
        &mut self,
        log: LogId,
        bodies: Vec<Vec<Item>>,
        now: u64,
        faults_before: usize,
        signed: &mut Vec<(Signed, bool)>,
    ) -> Result<(), SessionError> {
        let chain = ChainId {
            log,
            seat: self.seat,
        };
        for body in bodies {
            let e = &mut self.engine;
            let (seq, prev) = e.chain_tip(chain);
            let unsigned = Unsigned {
                version: e.terms().version(),
                game: e.terms().game(),
                log,
                seat: self.seat,
                seq,
                prev,
                acks: e.heads_for(self.seat, log),
                clock: now,
                body,
            };
            let s = unsigned.sign(&self.key);
            if s.bytes.len() > crate::wire::MAX_MESSAGE {
                return Err(Refusal::TooLarge(s.bytes.len()).into());
            }
            signed.push((s.clone(), true));
            let taken = e.insert_signed(s);
            if let Some(last) = signed.last_mut() {
                last.1 = !matches!(taken, Ok(Inserted::Duplicate(_)) | Err(_));
            }
            taken?;
            // An honest envelope acknowledges only what this seat processed, so it takes
            // effect at once — unless another envelope of this seat's key already holds
            // the position. Sending it then would sign two envelopes at one seq; and an
            // automatic step that never takes effect would be owed, and signed, for ever.
            if e.processed(chain) <= seq {
                return Err(SessionError::PositionTaken(seq));
            }
            let mine = e.faults()[faults_before..]
                .iter()
                .find(|f| f.seat == self.seat);
            if let Some(f) = mine {
                return Err(Refusal::Fault(Box::new(f.clone())).into());
            }
        }
        Ok(())
    }

    /// Once the game is over every private log is public (§8.11): sends the envelopes of
    /// the logs this seat is in to the seats outside them. Peers that miss them get them
    /// again from the nodes' repair rounds.
    fn publish_private(&mut self) {
        let (chains, _) = self.engine.stored();
        let mut out = vec![];
        for env in chains {
            let log = env.unsigned().log;
            if log.is_public() {
                continue;
            }
            let members = self.engine.rules().audience(log).unwrap_or_default();
            if !members.contains(&self.seat) {
                continue;
            }
            let to: Vec<Seat> = self
                .engine
                .terms()
                .seats()
                .filter(|s| !members.contains(s))
                .collect();
            if !to.is_empty() {
                out.push(Action::Send {
                    env: Box::new(env.clone()),
                    to,
                });
            }
        }
        self.outbox.extend(out);
    }

    fn audience(&self, log: LogId) -> Vec<Seat> {
        let all: Vec<Seat> = if log.is_public() {
            self.engine.terms().seats().collect()
        } else {
            self.engine.rules().audience(log).unwrap_or_default()
        };
        all.into_iter().filter(|s| *s != self.seat).collect()
    }

    /// A seat that holds proof that another seat broke its chain posts it, so that the
    /// end of the game becomes part of the causal record every verifier replays.
    fn post_proofs(&mut self, now: u64) {
        if self.engine.is_over()
            || !self.engine.has_joined(self.seat)
            || self.engine.has_closed(self.seat)
        {
            return;
        }
        // A proof refused is tried again only once the engine has moved on: a refusal
        // costs a replay (`send_all`), which must not come with every step.
        let at = self.engine.processed_total();
        for proof in self.engine.unposted_proofs() {
            if self
                .refused_proofs
                .iter()
                .any(|(p, n)| *p == proof && *n == at)
            {
                continue;
            }
            if self
                .send(LogId::PUBLIC, vec![Item::Evidence(proof.clone())], now)
                .is_ok()
            {
                return;
            }
            self.refused_proofs.retain(|(p, _)| *p != proof);
            self.refused_proofs.push((proof, at));
        }
    }

    /// Openings of every commitment of this seat not yet opened, but those in
    /// `refused`. With seeded decks (version 2) one `OpenDeck` opens each deck with an
    /// unopened slot; it goes under the key of slot `u32::MAX`, and if its own engine
    /// ever refused it, the deck's slots are opened one by one instead.
    fn reveal_items(&self, secrets: &Secrets, refused: &[CommitKey]) -> Vec<(CommitKey, Item)> {
        let decks = self.engine.decks();
        let whole = |name: &Name| CommitKey {
            seat: self.seat,
            purpose: Purpose::Deck(name.clone()),
            index: u32::MAX,
        };
        let mut out: Vec<(CommitKey, Item)> = vec![];
        for key in self.engine.unopened(self.seat) {
            if refused.contains(&key) {
                continue;
            }
            if let (true, Purpose::Deck(name)) = (secrets.deck_seeds, &key.purpose)
                && !refused.contains(&whole(name))
            {
                if !out.iter().any(|(k, _)| *k == whole(name)) {
                    let item = Item::OpenDeck(crate::body::OpenDeck {
                        deck: name.clone(),
                        seed: secrets.deck_seed(name),
                    });
                    out.push((whole(name), item));
                }
                continue;
            }
            let Some(value) = secrets.value(&key, &decks) else {
                continue;
            };
            let item = Item::Open(Open {
                purpose: key.purpose.clone(),
                index: key.index,
                nonce: secrets.nonce(&key),
                value,
            });
            out.push((key, item));
        }
        out
    }

    /// The opening of one own commitment.
    fn open_item(&self, secrets: &Secrets, purpose: Purpose, index: u32) -> Option<Item> {
        let key = CommitKey {
            seat: self.seat,
            purpose,
            index,
        };
        let value = secrets.value(&key, &self.engine.decks())?;
        Some(Item::Open(Open {
            purpose: key.purpose.clone(),
            index,
            nonce: secrets.nonce(&key),
            value,
        }))
    }

    /// The showing of one own deck slot, kept (version 2).
    fn show_item(
        &self,
        secrets: &Secrets,
        deck: Name,
        slot: u32,
        to: Option<crate::ids::Seat>,
    ) -> Option<Item> {
        let Some(Item::Open(o)) = self.open_item(secrets, Purpose::Deck(deck), slot) else {
            return None;
        };
        Some(Item::Show(crate::body::Show {
            to,
            purpose: o.purpose,
            index: o.index,
            nonce: o.nonce,
            value: o.value,
        }))
    }

    /// Runs every automatic step the current state calls for.
    fn drive(&mut self, now: u64) {
        self.post_proofs(now);
        loop {
            let (next, progressed) = self.phase.clone().advance(self, now);
            self.phase = next;
            if !progressed {
                break;
            }
        }
    }
}

/// Splits sorted indices into runs of consecutive numbers.
fn runs(indices: &[u32]) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = vec![];
    for &i in indices {
        match out.last_mut() {
            Some(run) if run.last().is_some_and(|l| l.checked_add(1) == Some(i)) => run.push(i),
            _ => out.push(vec![i]),
        }
    }
    out
}
