//! Secret Stallmate with a witness (protocol version 2, spec/GAMES.md §5.14) for
//! tests and vectors: version 2 terms naming the test witness, a witness that stamps
//! what each seat holds between rounds (as a witness node answers the seats' stamp
//! requests), and the scenarios: a walk-away, late attempts (with an honest and a
//! careless referee), an attempt left out of the seal, a self-contradicting witness, a
//! forged stamp.

use std::collections::BTreeMap;

use sealed_games::stallmate::peer::{Stallmate, VARIANT};
use sealed_protocol::body::Item;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::Seat;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::{Role, Terms, VERSION_2, WitnessSpec};
use sealed_protocol::session::{Command, Session};
use sealed_protocol::witness::{Receipt, Statement};

use crate::forfeit_kit::witness;
use crate::pair::{DecideAt, Pair};
use crate::sim::test_key;
use crate::stallmate_kit::{all_done, deciders, quick};

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

/// What a witness adds to the time of a hash first asked about by a seat.
pub type Delay = Box<dyn FnMut(Seat, &Hash) -> u64>;

/// The witness: the first time anyone asked about each hash is its time for ever.
pub struct TestWitness {
    key: SecretKey,
    game: sealed_protocol::ids::GameId,
    times: BTreeMap<Hash, u64>,
    /// Added to the time of a hash first asked about while this returns something
    /// (a slow link from the asker, a late attempt).
    pub delay: Delay,
    /// Seats it does not answer.
    pub deaf_to: Vec<Seat>,
}

impl TestWitness {
    /// The witness of `p`'s game.
    pub fn of(p: &Pair<Stallmate>) -> Self {
        TestWitness {
            key: witness(),
            game: p.sessions[0].engine().terms().game(),
            times: BTreeMap::new(),
            delay: Box::new(|_, _| 0),
            deaf_to: vec![],
        }
    }

    /// A signed receipt of `h` at `at`, whatever the witness said before (a lying
    /// witness's second time, for tests).
    pub fn receipt(&self, h: Hash, at: u64) -> Vec<u8> {
        Statement::Receipt(Receipt {
            game: self.game,
            envelope: h,
            at,
        })
        .sign(&self.key)
        .to_bytes()
    }

    /// Stamps `h` now unless it has a time already; its time.
    pub fn stamp(&mut self, h: Hash, now: u64) -> u64 {
        *self.times.entry(h).or_insert(now)
    }

    /// The time it gave `h`, if asked.
    pub fn time_of(&self, h: &Hash) -> Option<u64> {
        self.times.get(h).copied()
    }

    /// Answers every seat's unstamped envelopes, and lets each seat that owes its
    /// stamps item and knows them all post it (as its node does).
    pub fn serve(&mut self, p: &mut Pair<Stallmate>) {
        let now = p.now;
        for i in 0..p.sessions.len() {
            let seat = Seat(i as u8);
            if self.deaf_to.contains(&seat) {
                continue;
            }
            let hashes = p.sessions[i].unstamped();
            let mut statements = vec![];
            for h in hashes {
                let delay = (self.delay)(seat, &h);
                let at = *self.times.entry(h).or_insert(now + delay);
                statements.push(self.receipt(h, at));
            }
            // And a view now, as a witness node's answer ends: it tells the clock.
            statements.push(
                Statement::View(sealed_protocol::witness::View {
                    game: self.game,
                    at: now,
                    heads: vec![],
                })
                .sign(&self.key)
                .to_bytes(),
            );
            let s = &mut p.sessions[i];
            s.note_stamps(&statements, now);
            if s.stamps_wanted().is_some_and(|w| w.is_empty()) {
                let known = s.stamps_known();
                s.handle_command(Command::Stamps(known), now)
                    .expect("an honest seat posts its stamps");
            }
        }
        p.collect();
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
    Pair::new(witnessed_terms(options, seed as u8), seed)
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

/// Black's link to the witness is slower than a period: every envelope he has stamped
/// first lands after his period's end.
pub fn slow_black(w: &mut TestWitness) {
    w.delay = Box::new(|seat, _h: &Hash| if seat == BLACK { 5_000 } else { 0 });
}

/// A referee who answers Black's attempts whatever their stamps say (truthfully), and
/// so, in the end, a late one "yes"; after that, his duties.
pub fn careless_referee() -> Decide {
    use sealed_games::stallmate::acts::{self, Private};
    use sealed_games::stallmate::peer::{mover, period_log};
    use sealed_games::stallmate::seat::{duty, hidden_game};
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
    let h = e.envelope(close).expect("held").hash;
    let t = w.stamp(h, p.now);
    let env = p.forge(BLACK, vec![Item::Stamps(vec![w.receipt(h, t + 1)])]);
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
    let forged = Statement::Receipt(Receipt {
        game: p.sessions[0].engine().terms().game(),
        envelope: Hash([7; 32]),
        at: 1,
    })
    .sign(&test_key(0))
    .to_bytes();
    let env = p.forge(WHITE, vec![Item::Stamps(vec![forged])]);
    p.inject(&env);
    let _ = run_witnessed(&mut p, &mut w, &mut d);
    p
}

/// A referee who answers each attempt only `delay` ms after it reached him (slow, or
/// stalling for the opponent); otherwise his duties.
pub fn slow_referee(delay: u64) -> Decide {
    use sealed_games::stallmate::acts::{self, Private};
    use sealed_games::stallmate::peer::period_log;
    use sealed_games::stallmate::seat::duty;
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
