//! The world of the `session` fuzz target: every seat of one game, each a table (the
//! protocol session behind the game's notation, bot and duties, as a node holds it) with
//! a store of its own (the secrets it persisted, the envelopes it sent or took), the
//! envelopes in flight, and a clock.
//!
//! Checked after every step (a panic is a finding):
//! - a command or an envelope that is refused leaves the session as it was (the same
//!   envelopes held, the same phase);
//! - every envelope a session gives to send is one its own engine holds;
//! - bytes changed in flight and not signed again are never taken as a new envelope;
//! - no seat's verdict finds at fault a seat whose key signed nothing but what its own
//!   session signed (an honest seat), whatever the order, loss, repetition or
//!   forgeries of the others, and whatever crash and restore it went through;
//! - a seat restores from what it stored (its secrets and envelopes).
//!
//! At the end every seat takes what it has to send out, and the seats repair each other
//! until nothing moves; then each seat's transcript is checked offline
//! (`check_transcript`): it checks, every byte in it is validly signed, every evidence
//! entry is confirmed, and no honest seat is at fault. When no key was used by the
//! forger and the seats hold the same chains, their verdicts agree.
//!
//! A little over 600 lines: the steps and the checks after them read one world's state
//! (the seats, their stores, what is in flight, which keys the forger used).

use sealed_conformance::sim::test_key;
use sealed_drive::Bytes;
use sealed_games::table::{self, Asked, Invitees, Table};
use sealed_games::variant::check_transcript;
use sealed_protocol::body::{Claim, ClaimKind, Item};
use sealed_protocol::engine::Inserted;
use sealed_protocol::envelope::{Envelope, Signed};
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{LogId, Seat};
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Command, Secrets, take_bytes};

/// At most this many steps per input: a longer input is cut (a run stays quick).
const MAX_STEPS: usize = 400;

const GAMES: [(&str, &[(&str, &str)]); 5] = [
    ("duel", &[("hand", "2"), ("cards", "6")]),
    ("tempete", &[("ply-limit", "24")]),
    ("cardmate", &[("setup", "random"), ("ply-limit", "24")]),
    ("chex", &[("ply-limit", "24")]),
    ("stallmate", &[("ply-limit", "12"), ("period", "50ms")]),
];

/// One seat: its table and its store.
struct Node {
    table: Box<dyn Table>,
    /// The secrets last persisted.
    secrets: Option<Secrets>,
    /// The envelopes stored: sent by this seat, or taken from another.
    stored: Vec<Vec<u8>>,
    /// How many times this seat restarted (for messages).
    restarts: usize,
}

struct World {
    terms: Terms,
    nodes: Vec<Node>,
    /// Envelopes in flight: (recipient, bytes), in the order sent.
    wire: Vec<(usize, Vec<u8>)>,
    /// Every envelope any seat sent, in order: (sender, bytes).
    sent: Vec<(usize, Vec<u8>)>,
    /// Seats whose key signed something their session did not: not honest.
    forged: Vec<bool>,
    now: u64,
    entropy: u8,
}

pub fn run(data: &[u8]) {
    let mut b = Bytes::new(data);
    let (variant, options) = GAMES[b.below(GAMES.len())];
    let options: Vec<(String, String)> = options
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let signed = table::propose(
        variant,
        &options,
        &test_key(0),
        Invitees {
            opponent: test_key(1).public().to_bytes(),
            referee: (variant == "stallmate").then(|| test_key(2).public().to_bytes()),
            ..Default::default()
        },
        1_000,
        [b.u8(); 32],
    )
    .expect("a valid proposal");
    let terms = Terms::from_signed(signed).expect("valid terms");
    let now = 1_000;
    let nodes: Vec<Node> = terms
        .seats()
        .map(|s| Node {
            table: table::open(terms.clone(), test_key(s.0), "", entropy(s.0, 0), now)
                .expect("a seat opens"),
            secrets: None,
            stored: vec![],
            restarts: 0,
        })
        .collect();
    let mut w = World {
        forged: vec![false; nodes.len()],
        terms,
        nodes,
        wire: vec![],
        sent: vec![],
        now,
        entropy: 1,
    };
    // A node persists what a new game asks at once.
    for i in 0..w.nodes.len() {
        w.flush(i);
    }
    let mut steps = 0;
    while !b.done() && steps < MAX_STEPS {
        w.step(&mut b);
        w.check();
        steps += 1;
    }
    w.settle();
    w.final_check();
}

fn entropy(seat: u8, n: u8) -> [u8; 32] {
    let mut e = [n; 32];
    e[0] = 0xE0 + seat;
    e
}

impl World {
    fn seats(&self) -> usize {
        self.nodes.len()
    }

    /// What a seat holds, for "nothing changed".
    fn snapshot(&self, i: usize) -> (Vec<Vec<u8>>, &'static str) {
        let s = self.nodes[i].table.session();
        (s.envelopes().all(), s.phase().name())
    }

    fn step(&mut self, b: &mut Bytes<'_>) {
        match b.below(16) {
            // The next envelope in flight, or any one of them.
            0..=3 => {
                if self.wire.is_empty() {
                    return;
                }
                let k = if b.below(3) == 0 {
                    b.below(self.wire.len())
                } else {
                    0
                };
                let (to, bytes) = self.wire.remove(k);
                self.deliver(to, &bytes);
            }
            // An envelope sent earlier, again, to any seat (its sender's included).
            4 => {
                if self.sent.is_empty() {
                    return;
                }
                let (_, bytes) = self.sent[b.below(self.sent.len())].clone();
                let to = b.below(self.seats());
                self.deliver(to, &bytes);
            }
            // An envelope in flight is lost.
            5 => {
                if !self.wire.is_empty() {
                    let k = b.below(self.wire.len());
                    self.wire.remove(k);
                }
            }
            // Repair: a seat sends another what it lacks, as nodes' sync does.
            6 => {
                let from = b.below(self.seats());
                let to = b.below(self.seats());
                self.repair(from, to);
            }
            7 => self.forge(b),
            8 => self.tamper(b),
            9..=11 => self.command(b),
            12 => {
                let i = b.below(self.seats());
                if b.below(2) == 0 {
                    self.flush(i);
                } else {
                    self.poll_one(i);
                }
            }
            13 => {
                let i = b.below(self.seats());
                self.restart(i);
            }
            14 => {
                let t = u64::from(b.u8());
                self.now += match b.below(3) {
                    0 => t,
                    1 => t * 1_000,
                    _ => t * 600_000,
                };
            }
            // Every seat takes out what it has to send, and everything in flight arrives.
            _ => {
                for i in 0..self.seats() {
                    self.flush(i);
                }
                for (to, bytes) in std::mem::take(&mut self.wire) {
                    self.deliver(to, &bytes);
                }
            }
        }
    }

    /// Hands bytes to a seat; what it takes, its node stores.
    fn deliver(&mut self, to: usize, bytes: &[u8]) {
        let before = self.snapshot(to);
        let now = self.now;
        let node = &mut self.nodes[to];
        match hand(&mut *node.table, bytes, now) {
            Ok(_) => node.stored.push(bytes.to_vec()),
            Err(e) => {
                let after = self.snapshot(to);
                assert!(
                    before == after,
                    "seat {to}: a refused envelope changed the session ({e})"
                );
            }
        }
    }

    /// Takes one action out of a seat's session, as its node does.
    fn poll_one(&mut self, i: usize) -> bool {
        let Some(a) = self.nodes[i].table.session_mut().poll_action() else {
            return false;
        };
        match a {
            Action::Persist(s) => self.nodes[i].secrets = Some(s),
            Action::Send { env, to } => {
                assert!(
                    self.nodes[i]
                        .table
                        .session()
                        .envelopes()
                        .all()
                        .contains(&env.bytes),
                    "seat {i} sends an envelope its engine does not hold"
                );
                // Durable before visible.
                self.nodes[i].stored.push(env.bytes.clone());
                for t in to {
                    assert!(t.index() != i && t.index() < self.seats(), "sent to {t:?}");
                    self.wire.push((t.index(), env.bytes.clone()));
                }
                self.sent.push((i, env.bytes.clone()));
            }
            Action::GameOver | Action::Complete => {}
        }
        true
    }

    fn flush(&mut self, i: usize) {
        let mut n = 0;
        while self.poll_one(i) {
            n += 1;
            assert!(n < 100_000, "seat {i} gives actions without end");
        }
    }

    fn repair(&mut self, from: usize, to: usize) {
        if from == to {
            return;
        }
        // A node takes out what its session gives after every input: it serves nothing
        // its session has not given out (and it stored).
        self.flush(from);
        let have = self.nodes[to].table.session().envelopes().counts();
        let lacks = self.nodes[from]
            .table
            .session()
            .envelopes()
            .after(&have, Seat(to as u8));
        for bytes in lacks {
            self.deliver(to, &bytes);
        }
    }

    /// A crash and restart of seat `i`: what it had not taken out of its session is
    /// lost; it comes back from its store, as a node does (`core/src/durable.rs`).
    fn restart(&mut self, i: usize) {
        let seat = Seat(i as u8);
        let node = &mut self.nodes[i];
        node.restarts += 1;
        self.entropy = self.entropy.wrapping_add(1);
        let key = test_key(seat.0);
        node.table = match node.secrets.clone() {
            Some(s) => table::restore(self.terms.clone(), key, "", s, &node.stored, self.now)
                .unwrap_or_else(|e| panic!("seat {i} does not restore from its store: {e}")),
            None => {
                // No secrets: nothing it stored of its own binds any (its commitments
                // come after them); a refusal (a decline) binds none.
                let own: Vec<Signed> = node
                    .stored
                    .iter()
                    .filter_map(|b| Signed::parse_kept(&self.terms, b).ok())
                    .filter(|s| s.at().chain.seat == seat)
                    .collect();
                assert!(
                    self.forged[i]
                        || own.iter().all(|s| {
                            !s.unsigned()
                                .body
                                .iter()
                                .any(|it| matches!(it, Item::Commit(_)))
                        }),
                    "seat {i} stored commitments before the secrets they bind"
                );
                let fresh = entropy(seat.0, self.entropy);
                if own.is_empty() {
                    let mut t = table::open(self.terms.clone(), key, "", fresh, self.now)
                        .expect("a seat opens");
                    for e in &node.stored {
                        let _ = hand(&mut *t, e, self.now);
                    }
                    t
                } else {
                    table::restore(
                        self.terms.clone(),
                        key,
                        "",
                        Secrets::new(fresh),
                        &node.stored,
                        self.now,
                    )
                    .unwrap_or_else(|e| panic!("seat {i} does not restore from its store: {e}"))
                }
            }
        };
    }

    /// A forgery: an envelope sent (or about to be) decoded, changed, and signed with
    /// the key of the seat it names; that seat is no longer honest.
    fn forge(&mut self, b: &mut Bytes<'_>) {
        if self.sent.is_empty() {
            return;
        }
        let (_, bytes) = self.sent[b.below(self.sent.len())].clone();
        // A version 2 envelope travels without its game id: read under this world's game.
        let Ok(mut env) = Envelope::decode(&bytes, self.terms.game()) else {
            panic!("a sent envelope decodes");
        };
        let u = &mut env.unsigned;
        for _ in 0..1 + b.below(3) {
            match b.below(12) {
                0 => u.seq = u.seq.wrapping_add(b.u8() as u64).wrapping_sub(2),
                1 => u.prev = Hash([b.u8(); 32]),
                2 => {
                    let n = b.below(u.acks.len() + 1);
                    u.acks.truncate(n);
                }
                3 => {
                    if let Some(a) = u.acks.first_mut() {
                        a.seq = a.seq.wrapping_add(1);
                    }
                }
                4 => u.clock = u.clock.wrapping_add(b.u8() as u64 * 60_000).wrapping_sub(1),
                5 => {
                    if !u.body.is_empty() {
                        let k = b.below(u.body.len());
                        u.body.remove(k);
                    }
                }
                6 => {
                    if let Some(item) = u.body.first().cloned() {
                        u.body.push(item);
                    }
                }
                7 => {
                    let n = b.below(48);
                    u.body.push(Item::Act(b.take(n)));
                }
                8 => u.body.push(match b.below(8) {
                    0 => Item::Resign,
                    1 => Item::OfferDraw,
                    2 => Item::AcceptDraw,
                    3 => Item::Close,
                    4 => Item::Withdraw,
                    5 => Item::Accept,
                    6 => Item::Decline,
                    _ => Item::Claim(Claim {
                        against: Seat(b.below(3) as u8),
                        kind: if b.below(2) == 0 {
                            ClaimKind::Timeout
                        } else {
                            ClaimKind::Abandoned
                        },
                    }),
                }),
                9 => {
                    // An item of another envelope.
                    let (_, other) = self.sent[b.below(self.sent.len())].clone();
                    if let Ok(o) = Envelope::decode(&other, self.terms.game())
                        && !o.unsigned.body.is_empty()
                    {
                        let item = o.unsigned.body[b.below(o.unsigned.body.len())].clone();
                        u.body.push(item);
                    }
                }
                10 => u.log = LogId(b.below(3) as u32),
                _ => u.seat = Seat(b.below(self.seats()) as u8),
            }
        }
        let seat = u.seat;
        if seat.index() >= self.seats() {
            return;
        }
        let signed = env.unsigned.sign(&test_key(seat.0));
        self.forged[seat.index()] = true;
        let to = b.below(self.seats());
        self.deliver(to, &signed.bytes);
    }

    /// Bytes changed in flight, not signed again: never taken as a new envelope.
    fn tamper(&mut self, b: &mut Bytes<'_>) {
        if self.sent.is_empty() {
            return;
        }
        let (_, mut bytes) = self.sent[b.below(self.sent.len())].clone();
        let original = bytes.clone();
        match b.below(3) {
            0 => {
                let k = b.below(bytes.len());
                bytes[k] ^= 1 << b.below(8);
            }
            1 => {
                let n = b.below(bytes.len());
                bytes.truncate(n);
            }
            _ => {
                let n = b.below(8);
                bytes.extend(b.take(n));
            }
        }
        if bytes == original {
            return;
        }
        let to = b.below(self.seats());
        let before = self.snapshot(to);
        let now = self.now;
        let r = hand(&mut *self.nodes[to].table, &bytes, now);
        match r {
            Err(_) => assert!(before == self.snapshot(to), "a refusal changed seat {to}"),
            Ok(Inserted::Duplicate(_)) => {}
            Ok(r) => panic!("seat {to} took changed bytes that were not signed again: {r:?}"),
        }
    }

    /// A decision of the person (or bot) at a seat.
    fn command(&mut self, b: &mut Bytes<'_>) {
        let i = b.below(self.seats());
        let now = self.now;
        let t = &self.nodes[i].table;
        let cmd = match b.below(12) {
            0..=3 => t.bot_action(u64::from(b.u8())),
            4 => {
                let choices = t.view().choices;
                if choices.is_empty() {
                    None
                } else {
                    let c = &choices[b.below(choices.len())];
                    t.command(Asked::Words(&c.text.replace("{}", "a1"))).ok()
                }
            }
            5 => {
                let n = b.below(12);
                let text = String::from_utf8_lossy(&b.take(n)).into_owned();
                t.command(Asked::Words(&text)).ok()
            }
            6 => t.duty(now),
            7 => Some(match b.below(6) {
                0 => Command::Resign,
                1 => Command::OfferDraw,
                2 => Command::AcceptDraw,
                3 => Command::Withdraw,
                4 => Command::Decline,
                _ => Command::Accept,
            }),
            8 => Some(Command::Claim(Claim {
                against: Seat(b.below(self.seats()) as u8),
                kind: if b.below(2) == 0 {
                    ClaimKind::Timeout
                } else {
                    ClaimKind::Abandoned
                },
            })),
            9 => Some(Command::Seal {
                log: LogId(b.below(3) as u32),
            }),
            10 => {
                let n = b.below(40);
                Some(Command::act(b.take(n)))
            }
            _ => t
                .command(Asked::Words(match b.below(6) {
                    0 => "resign",
                    1 => "offer draw",
                    2 => "accept draw",
                    3 => "accept",
                    4 => "decline",
                    _ => "claim timeout",
                }))
                .ok(),
        };
        let Some(cmd) = cmd else { return };
        let before = self.snapshot(i);
        if let Err(e) = self.nodes[i].table.session_mut().handle_command(cmd, now) {
            assert!(
                before == self.snapshot(i),
                "seat {i}: a refused command changed the session ({e})"
            );
        }
    }

    /// No honest seat at fault in any seat's view.
    fn check(&self) {
        for (i, n) in self.nodes.iter().enumerate() {
            let v = n.table.session().verdict();
            for f in &v.faults {
                assert!(
                    self.forged[f.seat.index()],
                    "seat {i} (restarted {}) finds honest seat {} at fault: {:?} {}",
                    n.restarts,
                    f.seat.0,
                    f.kind,
                    f.detail
                );
            }
        }
    }

    /// Everything out and delivered, and the seats repair each other, until nothing
    /// moves (bounded); the duties that come due are done.
    fn settle(&mut self) {
        for _ in 0..64 {
            let held: Vec<usize> = self
                .nodes
                .iter()
                .map(|n| n.table.session().envelopes().len())
                .collect();
            for i in 0..self.seats() {
                self.flush(i);
            }
            for (to, bytes) in std::mem::take(&mut self.wire) {
                self.deliver(to, &bytes);
            }
            for from in 0..self.seats() {
                for to in 0..self.seats() {
                    self.repair(from, to);
                }
            }
            for i in 0..self.seats() {
                self.flush(i);
            }
            let moved = self.wire.len()
                + self
                    .nodes
                    .iter()
                    .zip(&held)
                    .filter(|(n, h)| n.table.session().envelopes().len() != **h)
                    .count();
            self.check();
            if moved == 0 {
                break;
            }
        }
    }

    fn final_check(&self) {
        for (i, n) in self.nodes.iter().enumerate() {
            let s = n.table.session();
            let checked = check_transcript(&s.envelopes().transcript().to_bytes())
                .unwrap_or_else(|e| panic!("seat {i}'s transcript does not check: {e}"));
            assert!(
                checked.unsigned.is_empty(),
                "seat {i}'s transcript holds bytes not validly signed: {:?}",
                checked.unsigned
            );
            assert!(
                checked.unconfirmed_evidence.is_empty(),
                "seat {i}'s transcript holds evidence not confirmed: {:?}",
                checked.unconfirmed_evidence
            );
            for f in &checked.verdict.faults {
                assert!(
                    self.forged[f.seat.index()],
                    "offline, seat {i}'s transcript finds honest seat {} at fault: {:?} {}",
                    f.seat.0,
                    f.kind,
                    f.detail
                );
            }
        }
        if !self.forged.iter().any(|f| *f) {
            let counts: Vec<_> = self
                .nodes
                .iter()
                .map(|n| n.table.session().envelopes().counts())
                .collect();
            if counts.windows(2).all(|w| w[0] == w[1]) {
                let v: Vec<_> = self
                    .nodes
                    .iter()
                    .map(|n| n.table.session().verdict())
                    .collect();
                for x in &v[1..] {
                    assert_eq!(
                        (&x.outcome, &x.faults, x.declined, x.withdrawn),
                        (&v[0].outcome, &v[0].faults, v[0].declined, v[0].withdrawn),
                        "seats holding the same chains disagree"
                    );
                }
            }
        }
    }
}

/// Hands envelope bytes to a seat as its node does: parsed and verified once, then taken.
fn hand(t: &mut dyn Table, bytes: &[u8], now: u64) -> Result<Inserted, String> {
    take_bytes(t.session_mut(), bytes, now).map_err(|e| e.to_string())
}
