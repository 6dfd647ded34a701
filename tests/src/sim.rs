//! A deterministic in-memory network of sessions: a virtual clock, random latency,
//! drops, duplicates and reordering, and a periodic anti-entropy sync standing in for
//! the node's chain sync (without it, a dropped envelope would be lost forever).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use sealed_protocol::hash::{Framed, Hash};
use sealed_protocol::ids::Seat;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::random::Stream;
use sealed_protocol::rules::Rules;
use sealed_protocol::session::{Action, Command, Phase, Session};
use sealed_protocol::transcript::TranscriptFile;

/// How the network misbehaves.
#[derive(Clone, Copy, Debug)]
pub struct NetConfig {
    /// Smallest delivery delay, virtual ms.
    pub min_latency: u64,
    /// Largest delivery delay, virtual ms.
    pub max_latency: u64,
    /// Chance a delivery is dropped, in 1/1000.
    pub drop_per_mille: u32,
    /// Chance a delivery is duplicated, in 1/1000.
    pub dup_per_mille: u32,
    /// Virtual ms between anti-entropy syncs.
    pub sync_every: u64,
}

impl NetConfig {
    /// A perfect network with a fixed 10 ms delay.
    pub fn perfect() -> Self {
        NetConfig {
            min_latency: 10,
            max_latency: 10,
            drop_per_mille: 0,
            dup_per_mille: 0,
            sync_every: 1_000,
        }
    }

    /// A hostile one: 1–500 ms, 20% drops, 20% duplicates.
    pub fn hostile() -> Self {
        NetConfig {
            min_latency: 1,
            max_latency: 500,
            drop_per_mille: 200,
            dup_per_mille: 200,
            sync_every: 700,
        }
    }
}

/// A seat's decision maker.
pub trait Bot<R: Rules> {
    /// What to do now, if anything.
    fn decide(&mut self, session: &Session<R>, pick: u64) -> Option<Command>;
}

/// Bots that accept and then follow a closure.
pub struct FnBot<F>(pub F);

impl<R: Rules, F: FnMut(&Session<R>, u64) -> Option<Command>> Bot<R> for FnBot<F> {
    fn decide(&mut self, session: &Session<R>, pick: u64) -> Option<Command> {
        if matches!(session.phase(), Phase::Decide(_)) {
            return Some(Command::Accept);
        }
        (self.0)(session, pick)
    }
}

/// The fixed test key of a seat.
pub fn test_key(seat: u8) -> SecretKey {
    SecretKey::from_seed(&[seat + 1; 32])
}

/// Terms between the fixed test keys: one seat per role given (players first), seat 0
/// proposing at clock 0, options sorted as a proposal requires.
pub fn test_terms(
    variant: &str,
    options: &[(&str, &str)],
    roles: &[sealed_protocol::proposal::Role],
    nonce: u8,
) -> sealed_protocol::proposal::Terms {
    let p = test_proposal(variant, options, roles, nonce);
    sealed_protocol::proposal::Terms::from_signed(p.sign(&test_key(0))).expect("valid terms")
}

/// The proposal of [`test_terms`], unsigned (a test may change it first).
pub fn test_proposal(
    variant: &str,
    options: &[(&str, &str)],
    roles: &[sealed_protocol::proposal::Role],
    nonce: u8,
) -> sealed_protocol::proposal::Proposal {
    use sealed_protocol::ids::{Name, Seat};
    use sealed_protocol::proposal::{Proposal, SeatSpec, VERSION};
    let seats = roles
        .iter()
        .zip(0u8..)
        .map(|(role, i)| SeatSpec {
            role: *role,
            key: test_key(i).public().to_bytes(),
            name: format!("p{i}"),
        })
        .collect();
    let mut options: Vec<(Name, String)> = options
        .iter()
        .map(|(k, v)| (Name::new(k).expect("valid"), v.to_string()))
        .collect();
    options.sort();
    Proposal {
        version: VERSION,
        variant: Name::new(variant).expect("valid"),
        options,
        seats,
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [nonce; 32],
        witness: None,
    }
}

/// A delivery in flight: (due time, tie-break counter, recipient seat, bytes).
type Delivery = Reverse<(u64, u64, u8, Vec<u8>)>;

/// The simulation.
pub struct Sim<R: Rules> {
    /// The sessions, by seat.
    pub sessions: Vec<Session<R>>,
    bots: Vec<Box<dyn Bot<R>>>,
    queue: BinaryHeap<Delivery>,
    /// Virtual time, ms.
    pub now: u64,
    rng: Stream,
    counter: u64,
    cfg: NetConfig,
    next_sync: u64,
    /// Every envelope each seat sent, in order.
    pub sent: Vec<Vec<Vec<u8>>>,
    /// Commands the sessions refused (a bot's bad decision), with the error.
    pub refused: Vec<String>,
}

impl<R: Rules + 'static> Sim<R> {
    /// Sets up a game from terms, with one bot per seat and a seed for everything
    /// random in the simulation (the seats' entropy included: this is a test).
    pub fn new(terms: Terms, bots: Vec<Box<dyn Bot<R>>>, cfg: NetConfig, seed: u64) -> Self {
        let rng = Stream::new(
            &Framed::new("sealed/test/sim")
                .field(&seed.to_le_bytes())
                .finish(),
        );
        let mut sim = Sim {
            sessions: vec![],
            bots,
            queue: BinaryHeap::new(),
            now: 0,
            rng,
            counter: 0,
            cfg,
            next_sync: cfg.sync_every,
            sent: vec![vec![]; terms.seat_count()],
            refused: vec![],
        };
        for seat in terms.seats() {
            let entropy = Framed::new("sealed/test/entropy")
                .field(&seed.to_le_bytes())
                .field(&[seat.0])
                .finish()
                .0;
            let s = Session::new(terms.clone(), test_key(seat.0), entropy, 0).expect("session");
            sim.sessions.push(s);
        }
        sim.flush();
        sim
    }

    fn pick(&mut self) -> u64 {
        (u64::from(self.rng.next_u32()) << 32) | u64::from(self.rng.next_u32())
    }

    fn chance(&mut self, per_mille: u32) -> bool {
        per_mille > 0 && self.rng.below(1000) < per_mille
    }

    fn post(&mut self, to: Seat, bytes: Vec<u8>) {
        if self.chance(self.cfg.drop_per_mille) {
            return;
        }
        let copies = if self.chance(self.cfg.dup_per_mille) {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let span = self.cfg.max_latency - self.cfg.min_latency + 1;
            let at = self.now + self.cfg.min_latency + u64::from(self.rng.below(span as u32));
            self.counter += 1;
            self.queue
                .push(Reverse((at, self.counter, to.0, bytes.clone())));
        }
    }

    /// Drains every session's actions into the network.
    fn flush(&mut self) {
        for i in 0..self.sessions.len() {
            while let Some(a) = self.sessions[i].poll_action() {
                if let Action::Send { env, to } = a {
                    self.sent[i].push(env.bytes.clone());
                    for t in to {
                        self.post(t, env.bytes.clone());
                    }
                }
            }
        }
    }

    /// Lets each bot act once if it wants to.
    fn let_bots_act(&mut self) {
        for i in 0..self.sessions.len() {
            let pick = self.pick();
            if let Some(cmd) = self.bots[i].decide(&self.sessions[i], pick)
                && let Err(e) = self.sessions[i].handle_command(cmd, self.now)
            {
                self.refused.push(format!("seat {i}: {e}"));
            }
        }
        self.flush();
    }

    /// Resends to every seat what it has not processed of every other seat's chains.
    fn sync(&mut self) {
        for from in 0..self.sessions.len() {
            for to in 0..self.sessions.len() {
                if from == to {
                    continue;
                }
                let have = self.sessions[to]
                    .engine()
                    .processed(sealed_protocol::ids::ChainId::public(Seat(from as u8)));
                let missing: Vec<Vec<u8>> = self.sent[from]
                    .iter()
                    .skip(have as usize)
                    .cloned()
                    .collect();
                for m in missing {
                    self.post(Seat(to as u8), m);
                }
            }
        }
    }

    /// Runs until nothing is in flight and no bot acts, or `max_ms` of virtual time.
    pub fn run(&mut self, max_ms: u64) {
        self.let_bots_act();
        while self.now < max_ms {
            let next = self.queue.peek().map(|Reverse((t, ..))| *t);
            match next {
                Some(t) if t <= self.next_sync => {
                    let Some(Reverse((t, _, to, bytes))) = self.queue.pop() else {
                        break;
                    };
                    self.now = t;
                    // A refused envelope changes nothing; the sim ignores it like a node.
                    let _ = self.sessions[usize::from(to)].handle_envelope(&bytes, self.now);
                    self.flush();
                    self.let_bots_act();
                }
                _ => {
                    if self.quiet() {
                        break;
                    }
                    self.now = self.next_sync;
                    self.next_sync += self.cfg.sync_every;
                    self.sync();
                    self.let_bots_act();
                }
            }
        }
    }

    /// Every session is done and nothing is in flight.
    pub fn quiet(&self) -> bool {
        self.queue.is_empty() && self.sessions.iter().all(|s| s.phase().is_done())
    }

    /// The transcript file each seat would export.
    pub fn transcripts(&self) -> Vec<Vec<u8>> {
        self.sessions
            .iter()
            .map(|s| TranscriptFile::from_engine(s.engine()).to_bytes())
            .collect()
    }

    /// A hash of a transcript, for comparing seats.
    pub fn digest(bytes: &[u8]) -> Hash {
        Framed::new("sealed/test/digest").field(bytes).finish()
    }
}
