//! The audit at the end: both seeds, both back ranks and every attempt opened, both
//! sides are played again and every message compared with the one sent, in the order
//! they were sent. The first that differs proves its sender at fault: every message
//! before it was as the protocol makes it, so the honest side's messages after a
//! deviation, which depend on it, are never blamed.

use super::Party;
use super::game::{Black, Circuits, Options, Outcome, White};
use crate::gc::seed::Seed;

/// One message of a game, as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    /// Its sender.
    pub by: Party,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// What the players opened at the end.
#[derive(Clone, Debug)]
pub struct Opened {
    /// White's seed and back rank.
    pub white: (Seed, [u8; 8]),
    /// Black's.
    pub black: (Seed, [u8; 8]),
    /// The options.
    pub options: Options,
    /// Every attempt, in order (the mover's, computation by computation).
    pub attempts: Vec<u16>,
}

/// The audit's finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Every message is the one the protocol makes.
    Honest,
    /// The message at this position differs from the one the protocol makes: its
    /// sender is at fault.
    Deviated {
        /// Who sent it.
        by: Party,
        /// Its position among the messages.
        at: usize,
    },
    /// Fewer messages than the game needs: the sender of the first missing one owes it.
    Missing {
        /// Who owed it.
        by: Party,
        /// Its position.
        at: usize,
    },
    /// More messages than the opened attempts explain: the mover of the computation
    /// starting at this position did not open his attempt.
    Unopened {
        /// The mover who owes the opening.
        by: Party,
        /// The position of the computation's first message.
        at: usize,
    },
}

/// What a replay made: how many messages, who would move in the computation after the
/// last, and what each computation it finished told White (the start first), which his
/// `Done` must say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// Messages made.
    pub made: usize,
    /// Who moves in the next computation.
    pub next: Party,
    /// What each finished computation told the garbler, in order.
    pub told: Vec<Outcome>,
}

/// Plays both sides again from the openings and hands each honest message to `check`,
/// in order, with its position and sender, until `check` says stop or `upto` messages
/// were made. Nothing is kept but what each computation told: a long game's messages
/// (250 MB for 100 plies) need not fit in memory at once.
pub fn replay(
    opened: &Opened,
    circuits: &Circuits,
    upto: usize,
    mut check: impl FnMut(usize, &Sent) -> bool,
) -> Result<Replayed, super::game::PlayError> {
    let mut told = vec![];
    let (made, next) = replay_made(opened, circuits, upto, |m| match m {
        Made::Told(o) => {
            told.push(o);
            true
        }
        Made::Message(at, sent) => check(at, &sent),
    })?;
    Ok(Replayed { made, next, told })
}

/// What a replay makes, in order: what each computation told White, as soon as it is
/// known, then that computation's messages.
enum Made {
    Told(Outcome),
    Message(usize, Sent),
}

/// The replay itself: hands each thing made to `made_one` until it says stop at a
/// message or `upto` messages were made; gives how many were, and who moves next.
fn replay_made(
    opened: &Opened,
    circuits: &Circuits,
    upto: usize,
    mut made_one: impl FnMut(Made) -> bool,
) -> Result<(usize, Party), super::game::PlayError> {
    let mut w = White::new(opened.white.0, opened.white.1, opened.options);
    let mut b = Black::new(opened.black.0, opened.black.1, opened.options);
    let mut made = 0usize;
    let give = |made_one: &mut dyn FnMut(Made) -> bool, made: &mut usize, by, bytes| {
        let go = *made < upto && made_one(Made::Message(*made, Sent { by, bytes }));
        *made += 1;
        go
    };
    let e0 = b.base_message();
    let g0 = w.base(&e0)?;
    b.base_keys(&g0)?;
    let done = |made: usize, w: &White| (made.min(upto), next(w));
    if !give(&mut made_one, &mut made, Party::Evaluator, e0)
        || !give(&mut made_one, &mut made, Party::Garbler, g0)
    {
        return Ok(done(made, &w));
    }
    // The start, then one computation per attempt.
    for a in std::iter::once(0u16).chain(opened.attempts.iter().copied()) {
        if made >= upto {
            break;
        }
        let e1 = b.ask(a)?;
        let g1 = w.answer(circuits, &e1, a)?;
        // Both sides are played honestly here, so Black's evaluation is found from
        // White's garbling (`gc::known`): the same E2, a third of the hashing saved.
        let e2 = b.evaluate_knowing(circuits, &g1, &w)?;
        let (g2, outcome) = w.decode(&e2)?;
        b.finish(&g2)?;
        // What a computation told is no message: it never stops the replay.
        made_one(Made::Told(outcome));
        for (by, bytes) in [
            (Party::Evaluator, e1),
            (Party::Garbler, g1),
            (Party::Evaluator, e2),
            (Party::Garbler, g2),
        ] {
            if !give(&mut made_one, &mut made, by, bytes) {
                return Ok(done(made, &w));
            }
        }
    }
    Ok(done(made, &w))
}

/// Who moves in the next computation.
fn next(w: &White) -> Party {
    if w.public().white_to_move {
        Party::Garbler
    } else {
        Party::Evaluator
    }
}

/// The honest messages of a game with these openings, as many as `upto`, and who would
/// move in the computation after the last.
pub fn honest(
    opened: &Opened,
    circuits: &Circuits,
    upto: usize,
) -> Result<(Vec<Sent>, Party), super::game::PlayError> {
    let mut out = vec![];
    let r = replay(opened, circuits, upto, |_, s| {
        out.push(s.clone());
        true
    })?;
    Ok((out, r.next))
}

/// Compares what was sent with what the openings make.
pub fn audit(
    opened: &Opened,
    circuits: &Circuits,
    sent: &[Sent],
) -> Result<Finding, super::game::PlayError> {
    audit_by(opened, circuits, sent.len(), |at, want| sent[at] == *want)
}

/// The audit over anything that stands for `posted` messages: `same(at, honest)` says
/// whether the message posted at `at` is the honest one (its bytes, or its hash).
pub fn audit_by(
    opened: &Opened,
    circuits: &Circuits,
    posted: usize,
    same: impl FnMut(usize, &Sent) -> bool,
) -> Result<Finding, super::game::PlayError> {
    audit_told(opened, circuits, posted, same).map(|(f, _)| f)
}

/// [`audit_by`], with what each computation the replay finished told White: what his
/// `Done` of it must say, whatever the rules in the clear say (a fingerprint collision,
/// spec/GAMES.md §5.13.6, is the computation's answer and nobody's fault).
///
/// The replay runs on a thread of its own, up to [`AHEAD`] things ahead of `same`, which
/// runs on the caller's: `same` hashes every message (about a sixth of a long game's
/// audit), so the two halves of the work overlap on two cores. What is found is what
/// [`audit_in_step`] finds: `same` sees the same messages in the same order, and once it
/// says stop, nothing the replay made or met after is read. With no thread to be had
/// (the process at its limit), the audit is done in step.
pub fn audit_told(
    opened: &Opened,
    circuits: &Circuits,
    posted: usize,
    same: impl FnMut(usize, &Sent) -> bool,
) -> Result<(Finding, Vec<Outcome>), super::game::PlayError> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel(AHEAD);
        // One message past the posted ones tells who owed the first missing message.
        let replay = std::thread::Builder::new()
            .name("sealed-audit".into())
            .spawn_scoped(scope, move || {
                replay_made(opened, circuits, posted + 1, |m| tx.send(m).is_ok())
            });
        match replay {
            Ok(replay) => compare_ahead(rx, replay, posted, same),
            Err(_) => audit_in_step(opened, circuits, posted, same),
        }
    })
}

/// The caller's half of [`audit_told`]: each message the replay made, compared.
fn compare_ahead(
    rx: std::sync::mpsc::Receiver<Made>,
    replay: std::thread::ScopedJoinHandle<'_, Result<(usize, Party), super::game::PlayError>>,
    posted: usize,
    mut same: impl FnMut(usize, &Sent) -> bool,
) -> Result<(Finding, Vec<Outcome>), super::game::PlayError> {
    let mut told = vec![];
    let mut stopped = None;
    for m in rx.iter() {
        match m {
            Made::Told(o) => told.push(o),
            Made::Message(at, want) if at == posted => {
                stopped = Some(Finding::Missing { by: want.by, at });
                break;
            }
            Made::Message(at, want) if !same(at, &want) => {
                stopped = Some(Finding::Deviated { by: want.by, at });
                break;
            }
            Made::Message(..) => {}
        }
    }
    // The replay's next send fails, and it stops.
    drop(rx);
    let replayed = replay
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p));
    if let Some(f) = stopped {
        return Ok((f, told));
    }
    let (made, next) = replayed?;
    let finding = if made < posted {
        Finding::Unopened { by: next, at: made }
    } else {
        Finding::Honest
    };
    Ok((finding, told))
}

/// [`audit_told`] on one thread: each message made, then compared, before the next is
/// made.
pub fn audit_in_step(
    opened: &Opened,
    circuits: &Circuits,
    posted: usize,
    mut same: impl FnMut(usize, &Sent) -> bool,
) -> Result<(Finding, Vec<Outcome>), super::game::PlayError> {
    let mut finding = None;
    let mut owed = None;
    // One message past the posted ones tells who owed the first missing message.
    let Replayed { made, next, told } = replay(opened, circuits, posted + 1, |at, want| {
        if at == posted {
            owed = Some(want.by);
            return false;
        }
        if !same(at, want) {
            finding = Some(Finding::Deviated { by: want.by, at });
            return false;
        }
        true
    })?;
    let finding = match (finding, owed) {
        (Some(f), _) => f,
        _ if made < posted => Finding::Unopened { by: next, at: made },
        (None, Some(by)) => Finding::Missing { by, at: posted },
        (None, None) => Finding::Honest,
    };
    Ok((finding, told))
}

/// How far the replay may run ahead of the audit's comparisons: one computation's
/// messages and what it told (a few MB held at most).
const AHEAD: usize = 5;
