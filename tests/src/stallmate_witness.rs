//! Secret Stallmate with a witness (protocol version 2, spec/GAMES.md §5.14) for
//! tests and vectors: version 2 terms naming the test witness, a witness that stamps
//! what each seat holds between rounds (as a witness node answers the seats' stamp
//! requests), and the scenarios: a walk-away, late attempts (with an honest and a
//! careless referee), an attempt left out of the seal, a self-contradicting witness, a
//! forged stamp.

use std::collections::BTreeMap;

use sealed_games::stallmate::VARIANT;
use sealed_games::stallmate::peer::Stallmate;
use sealed_protocol::body::Item;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::Seat;
use sealed_protocol::ids::{ChainId, EnvRef};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{Role, Terms, VERSION_2, WitnessSpec};
use sealed_protocol::session::{Command, Session, StatementsOwed};
use sealed_protocol::witness::{Held, Ledger, Stamp, Statement};

use crate::forfeit_kit::witness;
use crate::pair::{DecideAt, Pair};
use crate::sim::test_key;
use crate::stallmate_kit::{all_done, deciders, quick};

/// Black attempts in his second period, but his node neither sends the attempts to the
/// referee nor leaves them with the witness: it has something else stamped in their
/// place, and publishes the attempts after the end. Runs to the end.
pub fn withheld_attempts(seed: u64) -> Pair<Stallmate> {
    let mut p = witnessed_trio(&quick(30), seed);
    let mut w = TestWitness::of(&p);
    let mut d = deciders(seed);
    run_until(&mut p, &mut w, &mut d, |p| {
        p.sessions[2]
            .engine()
            .state()
            .is_some_and(|s| s.period >= 3)
    });
    w.withheld.push(BLACK);
    p.deaf.push(Seat(2));
    run_until(&mut p, &mut w, &mut d, |p| p.sessions[2].engine().is_over());
    p.deaf.clear();
    p.held.clear();
    w.withheld.clear();
    let _ = run_witnessed(&mut p, &mut w, &mut d);
    p
}

/// Version 2 Secret Stallmate terms between the test keys (White 0, Black 1, referee
/// 2), naming the test witness.
pub fn witnessed_terms(options: &[(&str, String)], nonce: u8) -> Terms {
    let opts: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let roles = [Role::Player, Role::Player, Role::Referee];
    let mut p = crate::sim::test_proposal(VARIANT, &opts, &roles, nonce);
    p.version = VERSION_2;
    p.witness = Some(WitnessSpec {
        key: witness().public().to_bytes(),
        addrs: vec![],
    });
    Terms::from_signed(p.sign(&test_key(0))).expect("valid terms")
}

/// What a witness adds to the stamp of a deposit first left by a seat.
pub type Delay = Box<dyn FnMut(Seat, &Hash) -> u64>;

/// The witness: it holds every public envelope a seat holds (dated when it first sees
/// it, with its causal past), and stamps every deposit when first left; each time, for
/// ever. Seats hear from it between rounds, as a witness node answers their requests.
pub struct TestWitness {
    key: SecretKey,
    game: sealed_protocol::ids::GameId,
    seats: usize,
    /// Public envelopes by place: hash and time.
    public: BTreeMap<(ChainId, u64), (Hash, u64)>,
    /// Deposits' stamps.
    stamps: BTreeMap<Hash, u64>,
    /// Added to the stamp of a deposit first left while this returns something (a slow
    /// link from the depositor, a late attempt).
    pub delay: Delay,
    /// Seats it does not answer.
    pub deaf_to: Vec<Seat>,
    /// Seats that leave, in place of each deposit of their own, another one (sealed to
    /// themselves): a stamp that proves nothing reached the other seat.
    pub withheld: Vec<Seat>,
}

impl TestWitness {
    /// The witness of `p`'s game.
    pub fn of(p: &Pair<Stallmate>) -> Self {
        let terms = p.sessions[0].engine().terms();
        TestWitness {
            key: witness(),
            game: terms.game(),
            seats: terms.seat_count(),
            public: BTreeMap::new(),
            stamps: BTreeMap::new(),
            delay: Box::new(|_, _| 0),
            deaf_to: vec![],
            withheld: vec![],
        }
    }

    /// A signed ledger at `at` of what it holds, every envelope dated.
    pub fn ledger(&self, at: u64) -> Vec<u8> {
        let chains = (0..self.seats)
            .map(|i| {
                let chain = ChainId::public(Seat(i as u8));
                let times: Vec<(Hash, u64)> = (0u64..)
                    .map_while(|q| self.public.get(&(chain, q)).copied())
                    .collect();
                Held {
                    chain,
                    count: times.len() as u64,
                    head: times.last().map_or(Hash::ZERO, |t| t.0),
                    first: 0,
                    times: times.iter().map(|t| t.1).collect(),
                }
            })
            .collect();
        Statement::Ledger(Ledger {
            game: self.game,
            at,
            chains,
        })
        .sign(&self.key)
        .to_bytes()
    }

    /// A signed ledger at `at` that dates the public envelope at `place` at `time`,
    /// whatever the witness said before (a lying witness's second time, for tests).
    pub fn dating(&self, place: EnvRef, time: u64, at: u64) -> Vec<u8> {
        let mut l: sealed_protocol::witness::SignedStatement = sealed_protocol::wire::decode(
            &self.ledger(at),
            sealed_protocol::witness::MAX_STATEMENT,
        )
        .expect("a ledger");
        if let Statement::Ledger(l) = &mut l.statement {
            for h in l.chains.iter_mut().filter(|h| h.chain == place.chain) {
                if let Some(t) = h.times.get_mut(place.seq as usize) {
                    *t = time;
                }
            }
        }
        l.statement.sign(&self.key).to_bytes()
    }

    /// The time it gave the public envelope at `place`.
    pub fn time_of(&self, place: EnvRef) -> Option<u64> {
        self.public.get(&(place.chain, place.seq)).map(|t| t.1)
    }

    /// Holds what every seat holds, stamps every deposit each leaves, answers each seat
    /// with the stamps and a ledger, and lets each seat that owes its statements item
    /// and knows every time post it (as its node does).
    pub fn serve(&mut self, p: &mut Pair<Stallmate>) {
        self.hold(p);
        self.answer(p);
    }

    /// Holds (and dates) every public envelope a seat it hears holds.
    pub fn hold(&mut self, p: &Pair<Stallmate>) {
        let now = p.now;
        for i in 0..p.sessions.len() {
            if self.deaf_to.contains(&Seat(i as u8)) {
                continue;
            }
            let e = p.sessions[i].engine();
            for (chain, slots) in e
                .chains()
                .filter(|c| c.log.is_public())
                .map(|c| (c, e.processed(c)))
            {
                for seq in 0..slots {
                    if let Some(env) = e.envelope(EnvRef { chain, seq }) {
                        self.public.entry((chain, seq)).or_insert((env.hash, now));
                    }
                }
            }
        }
    }

    /// Answers every seat it hears, as in [`TestWitness::serve`].
    fn answer(&mut self, p: &mut Pair<Stallmate>) {
        let now = p.now;
        for i in 0..p.sessions.len() {
            let seat = Seat(i as u8);
            if self.deaf_to.contains(&seat) {
                continue;
            }
            let mut statements = vec![];
            // What the node reads (the session's `witness_due`), here as it does.
            let due = p.sessions[i]
                .witness_due()
                .expect("a game timed by its witness");
            for d in due.undeposited {
                let hash = if self.withheld.contains(&seat) && self.own(&p.sessions[i], &d.bytes) {
                    // Left sealed to the wrong seat: a stamp of something else.
                    Hash(
                        sealed_protocol::hash::Framed::new("withheld")
                            .field(&d.hash.0)
                            .finish()
                            .0,
                    )
                } else {
                    d.hash
                };
                let delay = (self.delay)(seat, &d.hash);
                let at = *self.stamps.entry(hash).or_insert(now + delay);
                statements.push(
                    Statement::Stamp(Stamp {
                        game: self.game,
                        deposit: hash,
                        at,
                    })
                    .sign(&self.key)
                    .to_bytes(),
                );
            }
            // And a ledger now, as a witness node's answers give: the public times and
            // the clock.
            statements.push(self.ledger(now));
            let s = &mut p.sessions[i];
            s.note_witness(&statements, now);
            let due = s.witness_due();
            let ready = due.as_ref().map(|d| d.statements);
            assert_eq!(
                ready == Some(StatementsOwed::Ready),
                s.stamps_ready() == Some(true),
                "the dues read as one answer as they read apart"
            );
            if let Some(due) = due.filter(|d| d.statements == StatementsOwed::Ready) {
                // What the node posts is the answer's, as the seat would say it apart.
                let known = s.stamps_known();
                assert_eq!(due.known, known, "the statements owed are what is known");
                s.handle_command(Command::Statements(due.known), now)
                    .expect("an honest seat posts its statements");
            }
        }
        p.collect();
    }

    /// Whether a deposit a seat wants stamped is of one of its own envelopes.
    fn own(&self, s: &Session<Stallmate>, bytes: &[u8]) -> bool {
        let e = s.engine();
        let mine: Vec<_> = e
            .chains()
            .filter(|c| !c.log.is_public() && c.seat == s.seat())
            .collect();
        mine.into_iter().any(|c| {
            (0..e.processed(c)).any(|q| {
                e.envelope(EnvRef { chain: c, seq: q }).is_some_and(|env| {
                    e.recipient(c.log, c.seat).is_some_and(|to| {
                        sealed_protocol::deposit::seal(self.game, &env.bytes, &to).bytes == bytes
                    })
                })
            })
        })
    }
}

/// Plays a witnessed game with these deciders until every seat is done (or `false`
/// after the step budget).
pub fn run_witnessed(
    p: &mut Pair<Stallmate>,
    w: &mut TestWitness,
    d: &mut [DecideAt<Stallmate>],
) -> bool {
    for _ in 0..100_000 {
        if all_done(p) {
            return true;
        }
        w.serve(p);
        p.round(
            d.len(),
            |i, s, now| d.get_mut(i).and_then(|f| f(s, now)),
            crate::pair::Pace::Clocked(50),
        );
    }
    false
}

/// A trio playing witnessed terms.
pub fn witnessed_trio(options: &[(&str, String)], seed: u64) -> Pair<Stallmate> {
    let mut p = Pair::new(witnessed_terms(options, seed as u8), seed);
    // Black and the referee sign their own names when they accept (version 2, §17.15).
    p.sessions[1].set_name("p1");
    p.sessions[2].set_name("referee");
    p
}

/// White, Black.
const WHITE: Seat = Seat(0);
const BLACK: Seat = Seat(1);

/// A seat's decision function.
type Decide = DecideAt<Stallmate>;

/// Runs rounds, with the witness serving before each, until `stop`.
fn run_until(
    p: &mut Pair<Stallmate>,
    w: &mut TestWitness,
    d: &mut [Decide],
    stop: impl Fn(&Pair<Stallmate>) -> bool,
) {
    for _ in 0..100_000 {
        if stop(p) {
            return;
        }
        w.serve(p);
        p.round(
            d.len(),
            |i, s, now| d.get_mut(i).and_then(|f| f(s, now)),
            crate::pair::Pace::Clocked(50),
        );
    }
    panic!("the scenario did not reach its point");
}

/// Black's decider, but he makes no attempt from his `after`-th attempt on: he walks
/// away from the board (his node still does its duties, reveals and closes).
pub fn stops_after(mut black: Decide, after: u32) -> Decide {
    use sealed_games::stallmate::acts::{self, Private};
    let mut attempts = 0u32;
    Box::new(move |s: &Session<Stallmate>, now| {
        let cmd = black(s, now)?;
        if let Command::PrivateAct { act, .. } = &cmd
            && matches!(acts::decode::<Private>(act), Ok(Private::Attempt(_)))
        {
            attempts += 1;
            if attempts > after {
                return None;
            }
        }
        Some(cmd)
    })
}

/// The honest deciders of `seed`, Black walking away after `after` attempts.
pub fn walker(seed: u64, after: u32) -> Vec<Decide> {
    let mut d = deciders(seed);
    let black = d.remove(1);
    d.insert(1, stops_after(black, after));
    d
}

/// The whole game in which Black walks away after three attempts: every seat done.
pub fn walk_away(seed: u64) -> Pair<Stallmate> {
    let mut p = witnessed_trio(&quick(30), seed);
    let mut w = TestWitness::of(&p);
    let mut d = walker(seed, 3);
    assert!(
        run_witnessed(&mut p, &mut w, &mut d),
        "the game did not finish"
    );
    p
}

/// Black's link to the witness is slower than a period: every deposit he leaves first
/// lands after his period's end.
pub fn slow_black(w: &mut TestWitness) {
    w.delay = Box::new(|seat, _h: &Hash| if seat == BLACK { 5_000 } else { 0 });
}

/// A referee who answers Black's attempts whatever their stamps say (truthfully), and
/// so, in the end, a late one "yes"; after that, his duties.
pub fn careless_referee() -> Decide {
    use sealed_games::stallmate::acts::{self, Private};
    use sealed_games::stallmate::peer::{mover, period_log};
    use sealed_games::stallmate::table::{duty, hidden_game};
    let mut lied = false;
    Box::new(move |s: &Session<Stallmate>, now| {
        let e = s.engine();
        let state = e.state()?;
        let log = period_log(state.period);
        let waiting = e
            .private_acts(log)
            .last()
            .and_then(|p| acts::decode::<Private>(&p.bytes).ok());
        if !lied
            && !e.is_over()
            && mover(state.period) == sealed_games::chess::Color::Black
            && let Some(Private::Attempt(a)) = waiting
        {
            let answer = hidden_game(e)?.attempt(a).ok()?;
            lied = matches!(answer, sealed_games::stallmate::Answer::Yes(_));
            return Some(Command::PrivateAct {
                log,
                act: acts::encode(&Private::Answer(answer)),
            });
        }
        duty(s, now)
    })
}

/// Black's attempts all stamped after his period; the referee `referee` (honest, or
/// [`careless_referee`]). Runs to the end (or as far as it gets).
pub fn late_attempts(seed: u64, referee: Option<Decide>) -> Pair<Stallmate> {
    let mut p = witnessed_trio(&quick(30), seed);
    let mut w = TestWitness::of(&p);
    slow_black(&mut w);
    let mut d = deciders(seed);
    if let Some(r) = referee {
        d[2] = r;
    }
    let _ = run_witnessed(&mut p, &mut w, &mut d);
    p
}

/// The referee hears nothing from Black's second period (3) on, though Black attempts
/// in it and has his attempts stamped: the referee seals without them.
pub fn left_out(seed: u64) -> Pair<Stallmate> {
    let mut p = witnessed_trio(&quick(30), seed);
    let mut w = TestWitness::of(&p);
    let mut d = deciders(seed);
    run_until(&mut p, &mut w, &mut d, |p| {
        p.sessions[2]
            .engine()
            .state()
            .is_some_and(|s| s.period >= 3)
    });
    p.deaf.push(Seat(2));
    run_until(&mut p, &mut w, &mut d, |p| p.sessions[2].engine().is_over());
    p.deaf.clear();
    p.held.clear();
    let _ = run_witnessed(&mut p, &mut w, &mut d);
    p
}

/// The walk-away, but before anyone posts, Black posts the witness's second time for
/// the close that ended the game: a witness that contradicts itself.
pub fn contradicting(seed: u64) -> Pair<Stallmate> {
    let mut p = witnessed_trio(&quick(30), seed);
    let mut w = TestWitness::of(&p);
    let mut d = walker(seed, 3);
    run_until(&mut p, &mut w, &mut d, |p| {
        p.sessions.iter().all(|s| s.engine().is_over())
    });
    let e = p.sessions[0].engine();
    let (close, _) = *e.main_line().last().expect("the close");
    w.hold(&p);
    let t = w.time_of(close).expect("dated");
    let env = p.forge(
        BLACK,
        vec![Item::Statements(vec![w.dating(close, t + 1, p.now)])],
    );
    p.inject(&env);
    assert!(run_witnessed(&mut p, &mut w, &mut d));
    p
}

/// An honest game in which White, once it is over, posts a stamp signed by his own key.
pub fn forged_stamp(seed: u64) -> Pair<Stallmate> {
    let mut p = witnessed_trio(&quick(30), seed);
    let mut w = TestWitness::of(&p);
    let mut d = deciders(seed);
    run_until(&mut p, &mut w, &mut d, |p| {
        p.sessions.iter().all(|s| s.engine().is_over())
    });
    let forged = Statement::Stamp(Stamp {
        game: p.sessions[0].engine().terms().game(),
        deposit: Hash([7; 32]),
        at: 1,
    })
    .sign(&test_key(0))
    .to_bytes();
    let env = p.forge(WHITE, vec![Item::Statements(vec![forged])]);
    p.inject(&env);
    let _ = run_witnessed(&mut p, &mut w, &mut d);
    p
}

/// A referee who answers each attempt only `delay` ms after it reached him (slow, or
/// stalling for the opponent); otherwise his duties.
pub fn slow_referee(delay: u64) -> Decide {
    use sealed_games::stallmate::acts::{self, Private};
    use sealed_games::stallmate::peer::period_log;
    use sealed_games::stallmate::table::duty;
    let mut seen: BTreeMap<sealed_protocol::ids::EnvRef, u64> = BTreeMap::new();
    Box::new(move |s: &Session<Stallmate>, now| {
        let cmd = duty(s, now)?;
        if let Command::PrivateAct { act, .. } = &cmd
            && matches!(acts::decode::<Private>(act), Ok(Private::Answer(_)))
        {
            let e = s.engine();
            let log = period_log(e.state()?.period);
            let asked = e.private_acts(log).last()?.at;
            let since = *seen.entry(asked).or_insert(now);
            if now < since + delay {
                return None;
            }
        }
        Some(cmd)
    })
}
