//! Proof that a seat let its time pass (protocol version 2, spec/PROTOCOL.md §17.4):
//! from the witness's statements and what the accuser had seen, whether the accused
//! was out of time. Pure: no clock; every time is the witness's.
//!
//! The accuser's knowledge is a list of [`Head`]s, one per public chain of the game:
//! what its accusing envelope acknowledges of every other seat and its own chain up to
//! the envelope before. The proof reads:
//!
//! 1. The witness's statements do not contradict each other or the file
//!    ([`crate::witness::contradiction`]).
//! 2. **Since**: for every chain of the starts with an envelope, a ledger gives the time
//!    the witness first held its last one (with its whole causal past). `since` is the
//!    latest of these: by then the witness held (and served) everything that started
//!    the wait, so whatever the accused owed in that state it could have known of. A
//!    later start is never wrong against the accused, only generous to it.
//! 3. **Deadline**: `since` plus the allowance the time control gives the obligation.
//! 4. **Silence**: a ledger after the deadline that holds no more of the accused's
//!    public chain than the accuser had seen: the witness held nothing newer from the
//!    accused by then. (It may hold less: what it lacks of what the accuser had seen
//!    is idle, or `since` would have needed its time.) The earliest such ledger is the
//!    one reported.
//!
//! That the accused owed something in that state is the game engine's to judge; this
//! file knows no game.

use crate::ids::{ChainId, Seat};
use crate::witness::{Chains, Contradiction, Head, Statement, contradiction, ledgers, time_of};

/// A seat proven out of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Late {
    /// Who.
    pub seat: Seat,
    /// When the witness held everything that started the wait (ms, its clock).
    pub since: u64,
    /// `since` plus the allowance.
    pub deadline: u64,
    /// The time of the earliest ledger after the deadline that shows nothing newer
    /// from the accused.
    pub ledger: u64,
}

/// Why the statements do not prove the accused out of time.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotProven {
    /// The witness contradicted itself: it is proven to lie, and no time result stands.
    #[error("the witness contradicts itself: {0}")]
    Witness(#[from] Contradiction),
    /// No ledger says when the witness first held the last envelope of a chain of the
    /// starts.
    #[error("no ledger says when the witness held envelope {count} of {chain}")]
    NoStart {
        /// The chain.
        chain: ChainId,
        /// How many envelopes of it the accuser had seen.
        count: u64,
    },
    /// The accuser's knowledge names a chain twice, or a private one.
    #[error("the accuser's heads list {0} twice or list a private chain")]
    BadKnowledge(ChainId),
    /// No ledger after the deadline.
    #[error("no ledger after the deadline ({deadline} ms)")]
    TooEarly {
        /// The deadline.
        deadline: u64,
    },
    /// Every ledger after the deadline shows the accused sent more than the accuser had
    /// seen: it answered (perhaps late, but that is not what was claimed).
    #[error("every ledger after the deadline holds more of {0} than the accuser had seen")]
    Answered(ChainId),
}

impl NotProven {
    /// Its name in spec/vectors/witness.json.
    pub fn name(&self) -> &'static str {
        match self {
            NotProven::Witness(_) => "witness",
            NotProven::NoStart { .. } => "no-start",
            NotProven::BadKnowledge(_) => "bad-knowledge",
            NotProven::TooEarly { .. } => "too-early",
            NotProven::Answered(_) => "answered",
        }
    }
}

/// When the witness held all of `starts`: for each head with an envelope, the time a
/// ledger gives its last one, and the latest of those (0 for no envelope).
pub fn since(statements: &[Statement], starts: &[Head]) -> Result<u64, NotProven> {
    let mut since = 0;
    for h in starts.iter().filter(|h| h.count > 0) {
        let at = time_of(statements, h.chain, h.count - 1).ok_or(NotProven::NoStart {
            chain: h.chain,
            count: h.count,
        })?;
        since = since.max(at);
    }
    Ok(since)
}

/// Whether `statements` prove `accused` out of time: `known` is what the accuser had
/// seen of every public chain, `starts` the heads whose arrival started the wait (the
/// same, except that the game's engine cuts each chain back to its last envelope that
/// was a step of the game, so that idle envelopes neither restart nor delay the wait),
/// `allowance_ms` the time the control gives, `file` the envelopes the statements are
/// checked against (the accuser's causal past).
pub fn late(
    statements: &[Statement],
    starts: &[Head],
    known: &[Head],
    accused: Seat,
    allowance_ms: u64,
    file: &impl Chains,
) -> Result<Late, NotProven> {
    if let Some(c) = contradiction(statements, file) {
        return Err(NotProven::Witness(c));
    }
    for heads in [starts, known] {
        for (i, h) in heads.iter().enumerate() {
            if !h.chain.log.is_public() || heads[..i].iter().any(|k| k.chain == h.chain) {
                return Err(NotProven::BadKnowledge(h.chain));
            }
        }
    }
    let since = since(statements, starts)?;
    let deadline = since.saturating_add(allowance_ms);
    let chain = ChainId::public(accused);
    let seen = known
        .iter()
        .find(|h| h.chain == chain)
        .map_or(0, |h| h.count);
    let after: Vec<_> = ledgers(statements)
        .into_iter()
        .filter(|l| l.at > deadline)
        .collect();
    match (after.iter().find(|l| l.count(chain) <= seen), after.first()) {
        (Some(l), _) => Ok(Late {
            seat: accused,
            since,
            deadline,
            ledger: l.at,
        }),
        (None, None) => Err(NotProven::TooEarly { deadline }),
        (None, Some(_)) => Err(NotProven::Answered(chain)),
    }
}

#[cfg(test)]
mod tests;
