//! The end-of-game audit: with both setups public and every period's log published,
//! replay the game the referee saw and hold each of his signed words against it
//! (spec/GAMES.md §5.11).
//!
//! The replay stops at the first lie. From there on the game is not the one the
//! players were told about, so nothing later can be judged; the verdict voids the
//! result and names the referee ([`super::peer::Stallmate::adjudicate`]).

use sealed_protocol::hidden::{Audit, Finding, Gap, Posted, Revealed};
use sealed_protocol::ids::{ChainId, EnvRef, Seat};

use super::acts::{self, PeriodEnd, Private, Public};
use super::announce::heard;
use super::attempt::Attempt;
use super::peer::{Stallmate, mover, period_log, seat, setup_name};
use super::referee::Referee;
use super::setup::Setup;

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
    for post in &r.public {
        let Ok(Public::Period(end)) = acts::decode::<Public>(&post.bytes) else {
            continue;
        };
        match period(rules, r, &mut hidden, post, &end) {
            Ok(()) => {}
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

/// Replays one period against the referee's close of it.
fn period(
    rules: &Stallmate,
    r: &Revealed<'_>,
    hidden: &mut Referee,
    post: &Posted,
    end: &PeriodEnd,
) -> Result<(), Stop> {
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
    let mut waiting: Option<Attempt> = None;
    for p in r.private.get(&log).into_iter().flatten().filter(covered) {
        match acts::decode::<Private>(&p.bytes) {
            Ok(Private::Attempt(a)) => waiting = Some(a),
            Ok(Private::Answer(given)) => {
                // The live judgement let an answer follow only an attempt.
                let Some(a) = waiting.take() else { continue };
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
    let mover_sealed = r.sealed.contains_key(&mover_chain);
    if let Some(a) = waiting.filter(|_| !mover_sealed) {
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
    Ok(())
}

fn words<T: std::fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        return "nothing".into();
    }
    let all: Vec<String> = items.iter().map(ToString::to_string).collect();
    format!("\"{}\"", all.join(", "))
}
