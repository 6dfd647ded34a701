//! Two (or more) seats wired directly together, delivering in lock-step rounds, with a
//! hand on every envelope: adversarial tests pause an honest game, forge what a cheater
//! would send, and watch how the honest seat and the offline verifier judge it.
//!
//! The rounds are [`Lockstep`], over any [`Peer`]: bare protocol sessions ([`Pair`],
//! with what forging needs) or whole game tables (the table tests).

use sealed_protocol::body::{Item, Open, Purpose};
use sealed_protocol::commit::CommitKey;
use sealed_protocol::envelope::{Signed, Unsigned};
use sealed_protocol::hash::Framed;
use sealed_protocol::ids::{ChainId, LogId, Seat};
use sealed_protocol::proposal::Terms;
use sealed_protocol::rules::Rules;
use sealed_protocol::session::{Action, Command, Session};
use sealed_protocol::transcript::TranscriptFile;

use crate::peer::Peer;
use crate::sim::test_key;

/// A seat's decision function.
pub type Decide<R> = DecideFor<Session<R>>;

/// A seat's decision function, for any peer.
pub type DecideFor<P> = Box<dyn FnMut(&P) -> Option<Command>>;

/// How a run advances: settle when nothing moves, or let time pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// One decision per seat and round; the run ends when nothing moves.
    Once,
    /// Decisions until none is due; an idle round lets this many milliseconds pass.
    Clocked(u64),
}

/// A seat's decision function that is told the time (milliseconds).
pub type DecideAt<R> = DecideAtFor<Session<R>>;

/// A seat's decision function that is told the time, for any peer.
pub type DecideAtFor<P> = Box<dyn FnMut(&P, u64) -> Option<Command>>;

/// Protocol sessions in lock-step.
pub type Pair<R> = Lockstep<Session<R>>;

/// Seats delivering to each other at once, in a fixed order.
pub struct Lockstep<P> {
    /// The seats, in seat order.
    pub sessions: Vec<P>,
    /// Envelopes waiting for delivery: (recipient, bytes).
    pub pending: Vec<(Seat, Vec<u8>)>,
    /// Virtual time.
    pub now: u64,
    /// Seats whose outgoing envelopes are held back (a seat that went silent).
    pub silent: Vec<Seat>,
    /// Seats that play on but hold back their reveals and closes.
    pub withhold: Vec<Seat>,
    /// Seats whose incoming envelopes are held back, in `held`.
    pub deaf: Vec<Seat>,
    /// Envelopes held back from deaf seats: (recipient, bytes).
    pub held: Vec<(Seat, Vec<u8>)>,
    /// Envelopes a seat refused, with why (an honest game refuses none).
    pub refused: Vec<String>,
    /// Whether a round delivers until nothing more is sent (seats wired directly,
    /// answering within the same instant) rather than one batch (each answer waits for
    /// the next round, so a test can stop between any two deliveries).
    pub settle: bool,
}

impl<R: Rules> Pair<R> {
    /// Sessions for every seat of the terms, with entropy derived from `seed`.
    pub fn new(terms: Terms, seed: u64) -> Self {
        let sessions = terms
            .seats()
            .map(|s| {
                let entropy = Framed::new("sealed/test/entropy")
                    .field(&seed.to_le_bytes())
                    .field(&[s.0])
                    .finish()
                    .0;
                Session::new(terms.clone(), test_key(s.0), entropy, 0).expect("session")
            })
            .collect();
        Lockstep::from_peers(sessions)
    }
}

impl<P: Peer> Lockstep<P> {
    /// The seats, in seat order, at time 0; what they have to send is collected.
    pub fn from_peers(sessions: Vec<P>) -> Self {
        let mut p = Lockstep {
            sessions,
            pending: vec![],
            now: 0,
            silent: vec![],
            withhold: vec![],
            deaf: vec![],
            held: vec![],
            refused: vec![],
            settle: false,
        };
        p.collect();
        p
    }

    /// Hands an envelope to seat `to`, or holds it back if the seat is deaf.
    fn hand(&mut self, to: Seat, bytes: Vec<u8>) {
        if self.deaf.contains(&to) {
            self.held.push((to, bytes));
        } else if let Err(e) = self.sessions[to.index()].handle_envelope(&bytes, self.now) {
            self.refused.push(format!("seat {}: {e}", to.0));
        }
    }

    /// Takes every action the sessions queued: envelopes to send go pending.
    pub fn collect(&mut self) {
        for i in 0..self.sessions.len() {
            while let Some(a) = self.sessions[i].poll_action() {
                if let Action::Send { env, to } = a {
                    if self.silent.contains(&Seat(i as u8)) {
                        continue;
                    }
                    if self.withhold.contains(&Seat(i as u8))
                        && is_reveal_or_close(&env.unsigned().body)
                    {
                        continue;
                    }
                    for t in to {
                        self.pending.push((t, env.bytes.clone()));
                    }
                }
            }
        }
    }

    /// Delivers what is pending, once, with no decisions.
    pub fn deliver(&mut self) {
        for (to, bytes) in std::mem::take(&mut self.pending) {
            self.hand(to, bytes);
        }
        self.collect();
    }

    /// Delivers until nothing more is sent (what the seats have queued included), with
    /// no decisions.
    pub fn deliver_all(&mut self) {
        self.collect();
        while !self.pending.is_empty() {
            self.deliver();
        }
    }

    /// Delivers an envelope to one seat only, deaf or not.
    pub fn deliver_to(&mut self, to: Seat, env: &Signed) {
        self.deliver_bytes(to, &env.bytes);
    }

    /// Delivers bytes to one seat only, deaf or not.
    pub fn deliver_bytes(&mut self, to: Seat, bytes: &[u8]) {
        if let Err(e) = self.sessions[to.index()].handle_envelope(bytes, self.now) {
            self.refused.push(format!("seat {}: {e}", to.0));
        }
        self.collect();
    }

    /// Delivers everything and lets the deciders act, until nothing moves.
    pub fn run(&mut self, deciders: &mut [DecideFor<P>]) {
        assert!(
            self.run_until(deciders, |_| false),
            "the pair did not settle"
        );
    }

    /// Runs until `stop` holds (checked before each round of decisions) or nothing
    /// moves; returns false if neither happened within the step budget.
    pub fn run_until(
        &mut self,
        deciders: &mut [DecideFor<P>],
        stop: impl FnMut(&Self) -> bool,
    ) -> bool {
        self.rounds(
            deciders.len(),
            |i, s, _| deciders.get_mut(i).and_then(|d| d(s)),
            Pace::Once,
            stop,
        )
    }

    /// Like [`Pair::run_until`], for games whose seats act on time as well as on
    /// messages (a referee closing move periods): each decider is told the time and is
    /// asked again until it has nothing more to do at that time (as a node applies
    /// duties), and a round in which nothing moves lets `idle_step` milliseconds pass
    /// instead of ending the run. Returns whether `stop` held within the step budget.
    pub fn run_clocked(
        &mut self,
        deciders: &mut [DecideAtFor<P>],
        idle_step: u64,
        stop: impl FnMut(&Self) -> bool,
    ) -> bool {
        self.rounds(
            deciders.len(),
            |i, s, now| deciders.get_mut(i).and_then(|d| d(s, now)),
            Pace::Clocked(idle_step),
            stop,
        )
    }

    /// The loop both runs share: rounds (see [`Lockstep::round`]) until `stop` holds
    /// (checked before each) or, at [`Pace::Once`], a round moves nothing. Returns
    /// whether one of them happened within the step budget.
    pub fn rounds(
        &mut self,
        count: usize,
        mut decide: impl FnMut(usize, &P, u64) -> Option<Command>,
        pace: Pace,
        mut stop: impl FnMut(&Self) -> bool,
    ) -> bool {
        for _ in 0..100_000 {
            if stop(self) {
                return true;
            }
            if !self.round(count, &mut decide, pace) && pace == Pace::Once {
                return true;
            }
        }
        false
    }

    /// One round, a millisecond after the last: the first `count` seats decide (a seat
    /// asked to accept the proposal accepts), then everything sent is delivered, once
    /// (or, when [`Lockstep::settle`], until nothing more is sent).
    /// Returns whether anything moved; at [`Pace::Clocked`] a round in which nothing
    /// did lets its milliseconds pass.
    pub fn round(
        &mut self,
        count: usize,
        mut decide: impl FnMut(usize, &P, u64) -> Option<Command>,
        pace: Pace,
    ) -> bool {
        self.now += 1;
        let mut moved = false;
        for i in 0..count.min(self.sessions.len()) {
            let s = &mut self.sessions[i];
            if s.asked_to_accept() {
                s.handle_command(Command::Accept, self.now).expect("accept");
                moved = true;
                continue;
            }
            // A clocked seat does whatever is due now, one thing after another, as
            // a node applies duties.
            let times = if pace == Pace::Once { 1 } else { 64 };
            for _ in 0..times {
                let Some(cmd) = decide(i, s, self.now) else {
                    break;
                };
                if let Err(e) = s.handle_command(cmd.clone(), self.now) {
                    panic!("an honest decision is accepted: seat {i} {cmd:?}: {e}");
                }
                moved = true;
            }
        }
        self.collect();
        loop {
            let batch = std::mem::take(&mut self.pending);
            moved |= !batch.is_empty();
            for (to, bytes) in batch {
                self.hand(to, bytes);
            }
            self.collect();
            if !self.settle || self.pending.is_empty() {
                break;
            }
        }
        if !moved && let Pace::Clocked(step) = pace {
            self.now += step;
        }
        moved
    }

    /// Delivers a forged envelope to every seat, the forger's own included (so its
    /// later envelopes chain on from it).
    pub fn inject(&mut self, env: &Signed) {
        for i in 0..self.sessions.len() {
            let _ = self.sessions[i].handle_envelope(&env.bytes, self.now);
        }
        self.collect();
    }
}

impl<R: Rules> Pair<R> {
    /// Drops every envelope `seat` has waiting for delivery and holds back all it
    /// sends from now on.
    pub fn silence(&mut self, seat: Seat) {
        let from_seat: Vec<Vec<u8>> = self.sessions[seat.index()]
            .engine()
            .stored()
            .0
            .iter()
            .filter(|e| e.at().chain.seat == seat)
            .map(|e| e.bytes.clone())
            .collect();
        self.pending.retain(|(_, b)| !from_seat.contains(b));
        self.silent.push(seat);
    }

    /// The next envelope `seat` would sign in its public chain, with an arbitrary body:
    /// correct seq, prev and acknowledgements, signed with the seat's key.
    pub fn forge(&self, seat: Seat, body: Vec<Item>) -> Signed {
        self.forge_after(seat, seat, body)
    }

    /// The envelope `seat` would sign next after the last of its envelopes that
    /// `viewer` holds (not after what `seat` itself holds): how a cheater rewrites what
    /// it has not yet delivered.
    pub fn forge_after(&self, seat: Seat, viewer: Seat, body: Vec<Item>) -> Signed {
        let v = self.sessions[viewer.index()].engine();
        let chain = ChainId::public(seat);
        let (seq, prev) = v.chain_tip(chain);
        let s = &self.sessions[seat.index()];
        let unsigned = Unsigned {
            version: s.engine().terms().version(),
            game: s.engine().terms().game(),
            log: LogId::PUBLIC,
            seat,
            seq,
            prev,
            acks: s.engine().heads_for(seat, LogId::PUBLIC),
            clock: self.now,
            body,
        };
        unsigned.sign(&test_key(seat.0))
    }

    /// Signs any unsigned envelope as `seat`.
    pub fn sign(seat: Seat, unsigned: Unsigned) -> Signed {
        unsigned.sign(&test_key(seat.0))
    }

    /// The true opening of one of `seat`'s commitments.
    pub fn opening(&self, seat: Seat, purpose: Purpose, index: u32) -> Item {
        let s = &self.sessions[seat.index()];
        let secrets = s.secrets();
        let key = CommitKey {
            seat,
            purpose: purpose.clone(),
            index,
        };
        let value = secrets.value(&key, &s.engine().decks()).expect("value");
        Item::Open(Open {
            purpose,
            index,
            nonce: secrets.nonce(&key),
            value,
        })
    }

    /// The transcript file seat `seat` holds.
    pub fn transcript(&self, seat: Seat) -> Vec<u8> {
        TranscriptFile::from_engine(self.sessions[seat.index()].engine()).to_bytes()
    }
}

/// An envelope that reveals (opens something other than the coin, with no act) or
/// closes: what a seat that withholds its reveal keeps back.
fn is_reveal_or_close(body: &[Item]) -> bool {
    let act = body.iter().any(|i| matches!(i, Item::Act(_)));
    let reveal = body
        .iter()
        .any(|i| matches!(i, Item::Open(o) if o.purpose != Purpose::Coin));
    let close = body.iter().any(|i| matches!(i, Item::Close));
    (!act && reveal) || close
}

/// Every envelope a session has queued to send, in order, its other actions dropped: a
/// test that wires two sessions by hand.
pub fn sent<R: Rules>(s: &mut Session<R>) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| s.poll_action())
        .filter_map(|a| match a {
            Action::Send { env, .. } => Some(env.bytes.clone()),
            _ => None,
        })
        .collect()
}
