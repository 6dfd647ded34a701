//! Secret Stallmate terms, three seats and their deciders for tests: two random
//! players who see only their own armies, and an honest referee.

use sealed_games::stallmate::VARIANT;
use sealed_games::stallmate::acts::{self, PeriodEnd, Private, Public};
use sealed_games::stallmate::answer::Answer;
use sealed_games::stallmate::peer::Stallmate;
use sealed_games::stallmate::table::{bot_attempt, duty};
use sealed_protocol::ids::Seat;
use sealed_protocol::proposal::{Role, Terms, VERSION};
use sealed_protocol::session::{Command, Session};

use crate::pair::{DecideAt, Pair};
use crate::sim::test_terms;

/// The referee's seat in test games.
pub const REFEREE: Seat = Seat(2);

/// Terms of a Secret Stallmate between the fixed test keys: White (seat 0) proposes,
/// Black is seat 1, the referee seat 2.
pub fn stallmate_terms(options: &[(&str, &str)], nonce: u8) -> Terms {
    test_terms(
        VARIANT,
        options,
        &[Role::Player, Role::Player, Role::Referee],
        nonce,
    )
}

/// A player: its duties first, then the random bot, its choices drawn from `seed`.
pub fn player(seed: u64) -> DecideAt<Stallmate> {
    let mut state = seed | 1;
    Box::new(move |s: &Session<Stallmate>, now| {
        if let Some(cmd) = duty(s, now) {
            return Some(cmd);
        }
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        bot_attempt(s, state >> 33)
    })
}

/// The honest referee: its duties, nothing else.
pub fn referee() -> DecideAt<Stallmate> {
    Box::new(|s: &Session<Stallmate>, now| duty(s, now))
}

/// The three honest deciders, in seat order.
pub fn deciders(seed: u64) -> Vec<DecideAt<Stallmate>> {
    vec![
        player(seed.wrapping_mul(31).wrapping_add(7)),
        player(seed.wrapping_mul(17).wrapping_add(3)),
        referee(),
    ]
}

/// Options of a short test game: 1-second periods, at most `plies` moves.
pub fn quick(plies: u32) -> Vec<(&'static str, String)> {
    vec![("period", "1s".into()), ("ply-limit", plies.to_string())]
}

/// A pair (trio) of sessions for these options.
pub fn trio(options: &[(&str, String)], seed: u64) -> Pair<Stallmate> {
    let opts: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Pair::new(stallmate_terms(&opts, seed as u8), seed)
}

/// Whether every seat's session is done.
pub fn all_done(p: &Pair<Stallmate>) -> bool {
    p.sessions.iter().all(|s| s.phase().is_done())
}

/// Plays a whole honest game; panics if it does not finish.
pub fn play(options: &[(&str, String)], seed: u64) -> Pair<Stallmate> {
    let mut p = trio(options, seed);
    let mut d = deciders(seed);
    assert!(
        p.run_clocked(&mut d, 50, all_done),
        "the game did not finish"
    );
    p
}

/// Makes a command out of act bytes for a private log, for forged acts.
pub fn private(log: sealed_protocol::ids::LogId, act: Vec<u8>) -> Command {
    Command::PrivateAct { log, act }
}

/// A referee that does its duties but tells one lie: the first answer `answer` changes
/// (it returns `Some` of the false answer), or the first period close `close` changes.
pub fn lying_referee(
    mut answer: impl FnMut(&Answer) -> Option<Answer> + 'static,
    mut close: impl FnMut(&PeriodEnd) -> Option<PeriodEnd> + 'static,
) -> DecideAt<Stallmate> {
    let mut lied = false;
    Box::new(move |s: &Session<Stallmate>, now| {
        let cmd = duty(s, now)?;
        if lied {
            return Some(cmd);
        }
        match cmd {
            Command::PrivateAct { log, act } => {
                if let Ok(Private::Answer(a)) = acts::decode::<Private>(&act)
                    && let Some(false_answer) = answer(&a)
                {
                    lied = true;
                    return Some(Command::PrivateAct {
                        log,
                        act: acts::encode(&Private::Answer(false_answer)),
                    });
                }
                Some(Command::PrivateAct { log, act })
            }
            Command::Act { act, .. } => {
                if let Ok(Public::Period(end)) = acts::decode::<Public>(&act)
                    && let Some(false_end) = close(&end)
                {
                    lied = true;
                    return Some(Command::act(acts::encode(&Public::Period(false_end))));
                }
                Some(Command::act(act))
            }
            other => Some(other),
        }
    })
}

/// Plays a game with these deciders to its end (or `false`).
pub fn play_with(
    options: &[(&str, String)],
    seed: u64,
    mut d: Vec<DecideAt<Stallmate>>,
) -> Pair<Stallmate> {
    let mut p = trio(options, seed);
    assert!(
        p.run_clocked(&mut d, 50, all_done),
        "the game did not finish"
    );
    p
}

/// An envelope `seat` signs next in private log `log` with this body, as its own
/// session would chain it.
pub fn forge_private(
    p: &Pair<Stallmate>,
    seat: Seat,
    log: sealed_protocol::ids::LogId,
    body: Vec<sealed_protocol::body::Item>,
) -> sealed_protocol::envelope::Signed {
    let e = p.sessions[seat.index()].engine();
    let (seq, prev) = e.chain_tip(sealed_protocol::ids::ChainId { log, seat });
    let unsigned = sealed_protocol::envelope::Unsigned {
        version: VERSION,
        game: e.terms().game(),
        log,
        seat,
        seq,
        prev,
        acks: e.heads_for(seat, log),
        clock: p.now,
        body,
    };
    Pair::<Stallmate>::sign(seat, unsigned)
}
