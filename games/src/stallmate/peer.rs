//! Secret Stallmate on the protocol: three seats (White, Black, and the referee both
//! chose), a private log per move period, and the end-of-game audit that catches a
//! referee's lie with his own signature (spec/GAMES.md §5.9–§5.12).
//!
//! # Logs
//!
//! | log | audience | holds |
//! |---|---|---|
//! | 0 | everyone | the referee's `Begin` and period closes; resignations, draws, reveals |
//! | 1 | White, referee | White's setup seed, shown to the referee |
//! | 2 | Black, referee | Black's setup seed, shown to the referee |
//! | 3 + n | the mover of period n (White when n is even), referee | period n's attempts and answers, then the referee's seal |
//!
//! Live, a private act is judged only by its form (an attempt, then its answer, nothing
//! after a "yes"); whether each answer was true is the audit's business
//! ([`super::audit`]), once both setups are public.

use sealed_protocol::hidden::{Audit, Posted, Revealed};
use sealed_protocol::ids::{LogId, Name, Seat};
use sealed_protocol::outcome::{Outcome, SeatResult};
use sealed_protocol::proposal::{Role, Terms};
use sealed_protocol::rules::{ActCtx, Applied, OptionError, Rules, SetupSpec, Violation, agreeing};

use crate::chess::Color;

use super::acts::{self, MAX_HEARD, Private, Public};
use super::answer::Answer;
use super::attempt::Attempt;
use super::ending::{self, Ending};
use super::options::Options;

/// The log where White shows his setup to the referee.
pub const WHITE_SETUP_LOG: LogId = LogId(1);
/// The log where Black shows his setup to the referee.
pub const BLACK_SETUP_LOG: LogId = LogId(2);
/// The first move period's log.
const FIRST_PERIOD_LOG: u32 = 3;

/// The most attempts one period may hold: far more than the moves a side can try, so
/// only a flood is refused.
pub const MAX_ATTEMPTS: usize = 1024;

/// The name of each player's private setup.
pub fn setup_name() -> Name {
    Name::new("army").expect("a valid name")
}

/// The seat of a side.
pub fn seat(color: Color) -> Seat {
    match color {
        Color::White => Seat(0),
        Color::Black => Seat(1),
    }
}

/// The side of a player's seat.
pub fn color(seat: Seat) -> Color {
    if seat.0 == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// The private log of move period `n`.
pub fn period_log(n: u32) -> LogId {
    LogId(FIRST_PERIOD_LOG.saturating_add(n))
}

/// The move period a log belongs to, if it is a period log.
pub fn log_period(log: LogId) -> Option<u32> {
    log.0.checked_sub(FIRST_PERIOD_LOG)
}

/// Who moves in period `n`: White in even periods.
pub fn mover(n: u32) -> Color {
    if n.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

/// The log where a side shows its setup.
pub fn setup_log(color: Color) -> LogId {
    match color {
        Color::White => WHITE_SETUP_LOG,
        Color::Black => BLACK_SETUP_LOG,
    }
}

/// The rules of one game: its options and its referee's seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stallmate {
    /// The agreed options.
    pub options: Options,
    /// The referee's seat.
    pub referee: Seat,
}

/// The public state: what everyone knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// The clock reading of the referee's `Begin`, once posted.
    pub begun: Option<u64>,
    /// The period now running (the number of periods closed).
    pub period: u32,
    /// When the running period ends, once begun: the previous close (or `Begin`)
    /// plus the agreed period.
    pub ends_at: Option<u64>,
    /// Every closed period's announcements, in order.
    pub heard: Vec<acts::PeriodEnd>,
    /// How the game ended, if the referee said it did.
    pub ending: Option<Ending>,
}

impl Stallmate {
    /// The rules for these options with the referee in seat 2.
    pub fn new(options: Options) -> Stallmate {
        Stallmate {
            options,
            referee: Seat(2),
        }
    }

    fn period_ms(&self) -> u64 {
        self.options.period.millis()
    }
}

impl Rules for Stallmate {
    type State = State;
    type Act = Public;

    fn from_terms(terms: &Terms) -> Result<Self, OptionError> {
        if terms.players() != 2 {
            return Err(OptionError("stallmate is for two players".into()));
        }
        let referee = terms
            .referee()
            .ok_or_else(|| OptionError("stallmate needs a referee seat".into()))?;
        debug_assert_eq!(terms.role(referee), Some(Role::Referee));
        let options = Options::from_proposal(&terms.proposal().rule_options())?;
        Ok(Stallmate { options, referee })
    }

    fn setups(&self) -> Vec<SetupSpec> {
        // Each army mixes the owner's committed seed with the opponent's coin seed:
        // the owner cannot choose it (he commits before seeing the opponent's seed),
        // and the opponent cannot see it (he never learns the owner's seed until the end).
        [Color::White, Color::Black]
            .into_iter()
            .map(|c| SetupSpec {
                owner: seat(c),
                name: setup_name(),
                contributor: seat(!c),
            })
            .collect()
    }

    fn start(&self, _coin: &sealed_protocol::hash::Hash) -> State {
        State {
            begun: None,
            period: 0,
            ends_at: None,
            heard: vec![],
            ending: None,
        }
    }

    fn decode_act(&self, bytes: &[u8]) -> Result<Public, Violation> {
        acts::decode(bytes)
    }

    fn to_act(&self, state: &State) -> Option<Seat> {
        state.ending.is_none().then_some(self.referee)
    }

    fn apply(
        &self,
        state: &State,
        _seat: Seat,
        act: &Public,
        ctx: &ActCtx<'_>,
    ) -> Result<Applied<State>, Violation> {
        let mut next = state.clone();
        match act {
            Public::Begin => {
                if state.begun.is_some() {
                    return Err("the clock has already started".into());
                }
                next.begun = Some(ctx.clock);
                next.ends_at = Some(ctx.clock.saturating_add(self.period_ms()));
                Ok(Applied::state(next))
            }
            Public::Period(end) => {
                let Some(ends_at) = state.ends_at else {
                    return Err("a period closed before the clock started".into());
                };
                if end.period != state.period {
                    return Err(format!(
                        "period {} closed while period {} runs",
                        end.period, state.period
                    )
                    .into());
                }
                // A close before the fixed end would tell the opponent how long the
                // mover took: the referee's own clock reading proves it.
                if ctx.clock < ends_at {
                    return Err(format!(
                        "period {} closed at {} before its end at {ends_at}",
                        end.period, ctx.clock
                    )
                    .into());
                }
                if end.heard.len() > MAX_HEARD {
                    return Err("too many announcements".into());
                }
                if let Some(Ending::Forfeit { by }) = end.ending
                    && by != mover(end.period)
                {
                    return Err("only the mover forfeits a period".into());
                }
                next.period = state.period.saturating_add(1);
                next.ends_at = Some(ctx.clock.saturating_add(self.period_ms()));
                next.ending = end.ending;
                next.heard.push(end.clone());
                let mut applied = Applied::state(next);
                applied.outcome = end.ending.as_ref().map(ending::outcome);
                Ok(applied)
            }
        }
    }

    fn audience(&self, log: LogId) -> Option<Vec<Seat>> {
        let player = match log {
            WHITE_SETUP_LOG => Color::White,
            BLACK_SETUP_LOG => Color::Black,
            l => mover(log_period(l)?),
        };
        Some(vec![seat(player), self.referee])
    }

    fn private_act(
        &self,
        log: LogId,
        seat_: Seat,
        act: &[u8],
        earlier: &[Posted],
    ) -> Result<(), Violation> {
        let Some(n) = log_period(log) else {
            return Err("a setup log holds the setup only".into());
        };
        let act: Private = acts::decode(act)?;
        let last: Option<Private> = match earlier.last() {
            Some(p) => Some(acts::decode(&p.bytes)?),
            None => None,
        };
        match act {
            Private::Attempt(_) => {
                if seat_ != seat(mover(n)) {
                    return Err("only the mover attempts".into());
                }
                match last {
                    Some(Private::Attempt(_)) => Err("an attempt waits for its answer".into()),
                    Some(Private::Answer(Answer::Yes(_))) => {
                        Err("the move is final: no attempt after a yes".into())
                    }
                    _ if earlier.len() >= 2 * MAX_ATTEMPTS => {
                        Err("too many attempts in one period".into())
                    }
                    _ => Ok(()),
                }
            }
            Private::Answer(answer) => {
                if seat_ != self.referee {
                    return Err("only the referee answers".into());
                }
                let Some(Private::Attempt(attempt)) = last else {
                    return Err("an answer follows an attempt".into());
                };
                let fits = match attempt {
                    Attempt::Any => matches!(answer, Answer::No | Answer::Try),
                    Attempt::Move { .. } => matches!(
                        answer,
                        Answer::Illegal | Answer::Yes(_) | Answer::PawnCaptureFirst
                    ),
                };
                if fits {
                    Ok(())
                } else {
                    Err(format!("{answer} is no answer to {attempt}").into())
                }
            }
        }
    }

    fn audit(&self, revealed: &Revealed<'_>) -> Audit {
        super::audit::audit(self, revealed)
    }

    /// Endings made concurrently, each as a score first: a resignation is a forfeit
    /// (−10 for the resigner, 0 for the other), a draw agreed scores 0 each.
    fn combine(&self, players: u8, endings: &[Outcome]) -> Outcome {
        let scored: Vec<Outcome> = endings.iter().map(as_scores).collect();
        agreeing(&scored).unwrap_or_else(|| Outcome {
            results: vec![SeatResult::Score(0); usize::from(players)],
            reason: "concurrent endings disagree".into(),
        })
    }

    /// A player proven out of time (his period passed without a move in the witness's
    /// time, §5.14) forfeits: −10 for him, 0 for the other.
    fn on_time(&self, players: u8, late: Seat) -> Outcome {
        Outcome {
            results: (0..players)
                .map(|p| SeatResult::Score(if p == late.0 { -10 } else { 0 }))
                .collect(),
            reason: format!("{late} lost on time"),
        }
    }

    /// A player's proven fault is a forfeit (both at fault: −10 each), whatever the
    /// referee did. A referee's proven lie voids the result: there is none. And a
    /// forfeit for a period that passed without a move is the referee's word about
    /// time, a claim: the verdict gives no result for it; with a witness the audit may
    /// prove it, and the verdict then asks [`Rules::on_time`] instead.
    fn adjudicate(
        &self,
        players: u8,
        outcome: Option<&Outcome>,
        faulty: &[Seat],
    ) -> Option<Outcome> {
        let cheats: Vec<Seat> = faulty.iter().copied().filter(|s| s.0 < players).collect();
        if !cheats.is_empty() {
            let results = (0..players)
                .map(|p| SeatResult::Score(if cheats.contains(&Seat(p)) { -10 } else { 0 }))
                .collect();
            return Some(Outcome {
                results,
                reason: "proven fault".into(),
            });
        }
        if faulty.contains(&self.referee) {
            return None;
        }
        let outcome = outcome?;
        if outcome.reason.starts_with(FORFEIT_BY_TIME) {
            return None;
        }
        Some(outcome.clone())
    }
}

/// How the reason of a forfeit by time begins ([`Ending::Forfeit`]'s words).
const FORFEIT_BY_TIME: &str = "forfeit";

/// A generic ending (resignation, draw agreed) in the game's scores.
fn as_scores(o: &Outcome) -> Outcome {
    let loser = o.results.iter().position(|r| *r == SeatResult::Loss);
    let results: Vec<SeatResult> = o
        .results
        .iter()
        .enumerate()
        .map(|(i, r)| match r {
            SeatResult::Score(_) => *r,
            _ if Some(i) == loser => SeatResult::Score(-10),
            _ => SeatResult::Score(0),
        })
        .collect();
    Outcome {
        results,
        reason: o.reason.clone(),
    }
}
