//! The end-of-game audit: with both setups public and every period's log published,
//! replay the game the referee saw and hold each of his signed words against it
//! (spec/GAMES.md §5.11).
//!
//! With a witness (version 2), the posted stamps place each period and attempt in the
//! witness's time ([`super::timing`]): a "yes" to an attempt stamped after its period
//! is the referee's lie, and a period the referee closed as a forfeit is proven one
//! only when the stamps show it passed with no attempt in time left out.
//!
//! The replay stops at the first lie. From there on the game is not the one the
//! players were told about, so nothing later can be judged; the verdict voids the
//! result and names the referee ([`super::peer::Stallmate::adjudicate`]).

use sealed_protocol::hidden::{Audit, Finding, Gap, OutOfTime, Posted, Revealed};
use sealed_protocol::ids::{ChainId, EnvRef, Seat};

use super::acts::{self, PeriodEnd, Private, Public};
use super::announce::heard;
use super::answer::Answer;
use super::attempt::Attempt;
use super::ending::Ending;
use super::peer::{Stallmate, mover, period_log, seat, setup_name};
use super::referee::Referee;
use super::setup::Setup;
use super::timing::{Window, stamped_in_time};

/// Audits a revealed game.
pub fn audit(rules: &Stallmate, r: &Revealed<'_>) -> Audit {
    let mut out = Audit::default();
    let name = setup_name();
    let (Some(white), Some(black)) = (
        r.setup(Seat(0), name.as_str()),
        r.setup(Seat(1), name.as_str()),
    ) else {
        return out;
    };
    let mut hidden = Referee::new(
        Setup::from_seed(&white.0),
        Setup::from_seed(&black.0),
        rules.options,
    );
    // The envelope that started the running period: `Begin`, then each close.
    let mut started: Option<EnvRef> = None;
    for post in &r.public {
        let end = match acts::decode::<Public>(&post.bytes) {
            Ok(Public::Begin) => {
                started = Some(post.at);
                continue;
            }
            Ok(Public::Period(end)) => end,
            _ => continue,
        };
        let window = started.and_then(|at| Some((Window::of(r, at, rules.options.period)?, at)));
        started = Some(post.at);
        match period(rules, r, &mut hidden, post, &end, window) {
            Ok(late) => out.out_of_time = late.or(out.out_of_time),
            Err(Stop::Lie(finding)) => {
                out.findings.push(finding);
                return out;
            }
            Err(Stop::Gap(gap)) => {
                out.gaps.push(gap);
                return out;
            }
        }
    }
    out
}

/// Why the replay cannot go on.
enum Stop {
    Lie(Finding),
    Gap(Gap),
}

fn lie(referee: Seat, at: EnvRef, detail: String) -> Stop {
    Stop::Lie(Finding {
        seat: referee,
        at,
        detail,
    })
}

/// Replays one period against the referee's close of it; with the witness's `window`
/// for it and the call that started it, also says whether the close's forfeit is a
/// proven loss on time.
fn period(
    rules: &Stallmate,
    r: &Revealed<'_>,
    hidden: &mut Referee,
    post: &Posted,
    end: &PeriodEnd,
    window: Option<(Window, EnvRef)>,
) -> Result<Option<OutOfTime>, Stop> {
    let call = window.map(|(_, c)| c);
    let window = window.map(|(w, _)| w);
    let n = end.period;
    let log = period_log(n);
    let referee = rules.referee;
    let moving = seat(mover(n));
    let seal_chain = ChainId { log, seat: referee };
    let Some(seal) = r.sealed.get(&seal_chain) else {
        return Err(Stop::Gap(Gap {
            against: referee,
            what: format!("period {n}'s log is not sealed, or not published"),
        }));
    };
    // The seal covers the referee's envelopes before it and the mover's it saw: the
    // digest posted in public must stand for exactly that.
    let mover_chain = ChainId { log, seat: moving };
    let mover_count = r
        .seal_saw
        .get(&seal_chain)
        .and_then(|saw| saw.get(&mover_chain))
        .copied()
        .unwrap_or(0);
    let referee_count = seal.seq;
    let mut lengths = vec![(moving, mover_count), (referee, referee_count)];
    lengths.sort();
    if r.digest_of(log, &lengths) != Some(end.digest) {
        return Err(lie(
            referee,
            post.at,
            format!("period {n}: the digest posted does not stand for the log the referee sealed"),
        ));
    }
    let covered = |p: &&Posted| {
        let count = if p.seat == moving {
            mover_count
        } else {
            referee_count
        };
        p.at.seq < count
    };
    // The window, pushed back by each wait for an answer (`timing.rs`); `waits_known`
    // stays true while every stamp that needs is posted.
    let mut window = window;
    let mut waits_known = true;
    // An attempt's stamp after the period's end as it stands: it does not count.
    let late = |w: Option<Window>, at: EnvRef| {
        w.and_then(|w| r.stamp_of(at).filter(|t| !w.holds(*t)).map(|t| (t, w.end)))
    };
    let mut waiting: Option<(Attempt, EnvRef)> = None;
    for p in r.private.get(&log).into_iter().flatten().filter(covered) {
        match acts::decode::<Private>(&p.bytes) {
            Ok(Private::Attempt(a)) => waiting = Some((a, p.at)),
            Ok(Private::Answer(given)) => {
                // The live judgement let an answer follow only an attempt.
                let Some((a, asked)) = waiting.take() else {
                    continue;
                };
                let was_late = late(window, asked);
                if was_late.is_none() {
                    match (r.stamp_of(asked), r.stamp_of(p.at)) {
                        (Some(t), Some(u)) => window = window.map(|w| w.after_wait(t, u)),
                        _ => waits_known = false,
                    }
                }
                if let (Answer::Yes(_), Some((t, ends))) = (&given, was_late) {
                    return Err(lie(
                        referee,
                        p.at,
                        format!(
                            "period {n}: answered \"yes\" to {a}, stamped at {t} ms, after the period's end at {ends} ms in the witness's time"
                        ),
                    ));
                }
                match hidden.attempt(a) {
                    Ok(truth) if truth == given => {}
                    Ok(truth) => {
                        return Err(lie(
                            referee,
                            p.at,
                            format!(
                                "period {n}: answered \"{given}\" to {a}; the true answer is \"{truth}\""
                            ),
                        ));
                    }
                    Err(why) => {
                        return Err(lie(
                            referee,
                            p.at,
                            format!("period {n}: answered {a} although {why}"),
                        ));
                    }
                }
            }
            Err(_) => {}
        }
    }
    // An attempt the mover himself cut off by sealing his chain of the log is his doing:
    // the referee's answer would have been ignored.
    // So is one stamped after the period's end: it never counted.
    let mover_sealed = r.sealed.contains_key(&mover_chain);
    if let Some((a, _)) = waiting.filter(|(_, at)| !mover_sealed && late(window, *at).is_none()) {
        return Err(lie(
            referee,
            post.at,
            format!("period {n}: closed with the attempt {a} unanswered"),
        ));
    }
    let turn = hidden.end_period().map_err(|why| {
        lie(
            referee,
            post.at,
            format!("period {n}: closed although {why}"),
        )
    })?;
    let truth = heard(&turn);
    if end.heard != truth {
        return Err(lie(
            referee,
            post.at,
            format!(
                "period {n}: the opponent was told {}; the true announcements are {}",
                words(&end.heard),
                words(&truth)
            ),
        ));
    }
    if end.ending != hidden.ending().copied() {
        let say =
            |e: Option<super::ending::Ending>| e.map_or("no ending".to_owned(), |e| e.to_string());
        return Err(lie(
            referee,
            post.at,
            format!(
                "period {n}: reported {}; the game's is {}",
                say(end.ending),
                say(hidden.ending().copied())
            ),
        ));
    }
    Ok(match (end.ending, window, call) {
        (Some(Ending::Forfeit { .. }), Some(w), Some(call)) if waits_known => {
            on_time(r, post.at, moving, n, (w, call), mover_chain, mover_count)
        }
        _ => None,
    })
}

/// A period closed as the mover's forfeit is a proven loss on time when every wait for
/// an answer is known, the witness held the close no earlier than the period's end
/// (every wait counted), and no attempt of the mover that saw the call and whose deposit
/// was stamped inside the period was left out of the seal (the referee could have had
/// it: his silence, a claim against him, never the mover's loss). A forfeit by
/// resignation is no period's close, so every forfeit here is one of time.
fn on_time(
    r: &Revealed<'_>,
    close: EnvRef,
    moving: Seat,
    n: u32,
    (w, call): (Window, EnvRef),
    mover_chain: ChainId,
    covered: u64,
) -> Option<OutOfTime> {
    let closed = r.stamp_of(close)?;
    if closed < w.end || !stamped_in_time(r, mover_chain, covered, w, call).is_empty() {
        return None;
    }
    Some(OutOfTime {
        seat: moving,
        why: format!(
            "period {n} ran from {} ms to {} ms in the witness's time with no attempt in time left unanswered, and its close was held at {closed} ms",
            w.start, w.end
        ),
    })
}

fn words<T: std::fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        return "nothing".into();
    }
    let all: Vec<String> = items.iter().map(ToString::to_string).collect();
    format!("\"{}\"", all.join(", "))
}
