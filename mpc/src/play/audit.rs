//! The audit at the end: both seeds, both back ranks and every attempt opened, both
//! sides are played again and every message compared with the one sent, in the order
//! they were sent. The first that differs proves its sender at fault: every message
//! before it was as the protocol makes it, so the honest side's messages after a
//! deviation, which depend on it, are never blamed.

use super::Party;
use super::game::{Black, Circuits, Options, White};
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

/// The honest messages of a game with these openings, as many as `upto`, and who would
/// move in the computation after the last.
pub fn honest(
    opened: &Opened,
    circuits: &mut Circuits,
    upto: usize,
) -> Result<(Vec<Sent>, Party), super::game::PlayError> {
    let mut w = White::new(opened.white.0, opened.white.1, opened.options);
    let mut b = Black::new(opened.black.0, opened.black.1, opened.options);
    let mut out = vec![];
    let e0 = b.base_message();
    let g0 = w.base(&e0)?;
    b.base_keys(&g0)?;
    out.push(Sent {
        by: Party::Evaluator,
        bytes: e0,
    });
    out.push(Sent {
        by: Party::Garbler,
        bytes: g0,
    });
    // The start, then one computation per attempt.
    let mut attempts = std::iter::once(0u16).chain(opened.attempts.iter().copied());
    while out.len() < upto {
        let Some(a) = attempts.next() else {
            break;
        };
        let e1 = b.ask(circuits, a)?;
        let g1 = w.answer(circuits, &e1, a)?;
        let e2 = b.evaluate(circuits, &g1)?;
        let (g2, _) = w.decode(circuits, &e2)?;
        b.finish(circuits, &g2)?;
        for (by, bytes) in [
            (Party::Evaluator, e1),
            (Party::Garbler, g1),
            (Party::Evaluator, e2),
            (Party::Garbler, g2),
        ] {
            out.push(Sent { by, bytes });
        }
    }
    let next = if w.public().white_to_move {
        Party::Garbler
    } else {
        Party::Evaluator
    };
    Ok((out, next))
}

/// Compares what was sent with what the openings make.
pub fn audit(
    opened: &Opened,
    circuits: &mut Circuits,
    sent: &[Sent],
) -> Result<Finding, super::game::PlayError> {
    let (want, next) = honest(opened, circuits, sent.len() + 4)?;
    for (at, (s, w)) in sent.iter().zip(&want).enumerate() {
        if s != w {
            return Ok(Finding::Deviated { by: w.by, at });
        }
    }
    if sent.len() < want.len() {
        return Ok(Finding::Missing {
            by: want[sent.len()].by,
            at: sent.len(),
        });
    }
    if sent.len() > want.len() {
        return Ok(Finding::Unopened {
            by: next,
            at: want.len(),
        });
    }
    Ok(Finding::Honest)
}
