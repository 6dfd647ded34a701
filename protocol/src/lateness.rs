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
//! 2. **Since**: for every chain of that knowledge with an envelope, the witness held
//!    its last one at a known time — the time of a receipt of it, or of a view that
//!    covers it, whichever is earliest. `since` is the latest of these: by then the
//!    witness held (and served) everything the accuser had seen, so whatever the
//!    accused owed in that state it could have known of. A later start is never
//!    wrong against the accused, only generous to it: an accuser who sent something
//!    unrelated in between only delays its own claim.
//! 3. **Deadline**: `since` plus the allowance the time control gives the obligation.
//! 4. **Silence**: a view after the deadline that shows every public chain of the
//!    accused exactly as the accuser had seen it (same count): the witness held nothing
//!    newer from the accused by then.
//!
//! That the accused owed something in that state is the game engine's to judge; this
//! file knows no game.

use crate::hash::Hash;
use crate::ids::{ChainId, Seat};
use crate::witness::{Chains, Contradiction, Head, Statement, View, contradiction};

/// A seat proven out of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Late {
    /// Who.
    pub seat: Seat,
    /// When the witness held everything the accuser had seen (ms, the witness's clock).
    pub since: u64,
    /// `since` plus the allowance.
    pub deadline: u64,
    /// The time of the view that shows nothing newer from the accused.
    pub view: u64,
}

/// Why the statements do not prove the accused out of time.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotProven {
    /// The witness contradicted itself: it is proven to lie, and no time result stands.
    #[error("the witness contradicts itself: {0}")]
    Witness(#[from] Contradiction),
    /// Nothing says when the witness held the last envelope the accuser had seen of a
    /// chain.
    #[error("no receipt or view says when the witness held envelope {count} of {chain}")]
    NoStart {
        /// The chain.
        chain: ChainId,
        /// How many envelopes of it the accuser had seen.
        count: u64,
    },
    /// The accuser's knowledge names a chain twice, or a private one.
    #[error("the accuser's heads list {0} twice or list a private chain")]
    BadKnowledge(ChainId),
    /// No view after the deadline.
    #[error("no view after the deadline ({deadline} ms)")]
    TooEarly {
        /// The deadline.
        deadline: u64,
    },
    /// Every view after the deadline shows the accused sent more than the accuser had
    /// seen: it answered (perhaps late, but that is not what was claimed).
    #[error("every view after the deadline holds more of {0} than the accuser had seen")]
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

/// How many envelopes of `chain` a view holds.
fn count_in(view: &View, chain: ChainId) -> u64 {
    view.heads
        .iter()
        .find(|h| h.chain == chain)
        .map_or(0, |h| h.count)
}

/// When the witness first held the envelope `head` of `chain`, the `count`-th: a
/// receipt of it, or a view holding at least `count` of the chain, the earliest.
fn held_at(statements: &[Statement], chain: ChainId, count: u64, head: &Hash) -> Option<u64> {
    statements
        .iter()
        .filter_map(|s| match s {
            Statement::Receipt(r) if r.envelope == *head => Some(r.at),
            Statement::View(v) if count_in(v, chain) >= count => Some(v.at),
            _ => None,
        })
        .min()
}

/// The time of the witness's receipt of `envelope`, if the statements hold one (they
/// hold at most one time for it unless they contradict each other).
pub fn receipt_of(statements: &[Statement], envelope: &Hash) -> Option<u64> {
    statements.iter().find_map(|s| match s {
        Statement::Receipt(r) if r.envelope == *envelope => Some(r.at),
        _ => None,
    })
}

/// When the witness held all of `starts`: for each head with an envelope, the earliest
/// time a statement shows it held, and the latest of those (0 for no envelope).
pub fn since(statements: &[Statement], starts: &[Head]) -> Result<u64, NotProven> {
    let mut since = 0;
    for h in starts.iter().filter(|h| h.count > 0) {
        let at = held_at(statements, h.chain, h.count, &h.head).ok_or(NotProven::NoStart {
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
/// `allowance_ms` the time the control gives, `file` the envelopes the transcript holds
/// (against which the statements are checked).
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
    let after: Vec<&View> = statements
        .iter()
        .filter_map(|s| match s {
            Statement::View(v) if v.at > deadline => Some(v),
            _ => None,
        })
        .collect();
    let mine: Vec<&Head> = known.iter().filter(|h| h.chain.seat == accused).collect();
    let silent = after.iter().find(|v| {
        mine.iter().all(|h| count_in(v, h.chain) == h.count)
            // A chain of the accused the accuser never saw must be empty in the view too.
            && v.heads
                .iter()
                .filter(|x| x.chain.seat == accused && x.count > 0)
                .all(|x| mine.iter().any(|h| h.chain == x.chain))
    });
    match (silent, after.first()) {
        (Some(v), _) => Ok(Late {
            seat: accused,
            since,
            deadline,
            view: v.at,
        }),
        (None, None) => Err(NotProven::TooEarly { deadline }),
        (None, Some(v)) => {
            let chain = v
                .heads
                .iter()
                .find(|x| {
                    x.chain.seat == accused
                        && x.count
                            != mine
                                .iter()
                                .find(|h| h.chain == x.chain)
                                .map_or(0, |h| h.count)
                })
                .map_or(ChainId::public(accused), |x| x.chain);
            Err(NotProven::Answered(chain))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::witness::tests::{file, h, receipt, view};

    /// The accuser (seat 0) had seen two envelopes of its own chain and one of seat 1's.
    fn known(counts: [u64; 2]) -> Vec<Head> {
        (0..2u8)
            .map(|s| Head {
                chain: ChainId::public(Seat(s)),
                count: counts[usize::from(s)],
                head: h(s, counts[usize::from(s)] - 1),
            })
            .collect()
    }

    #[test]
    fn a_view_past_the_deadline_with_nothing_new_proves_the_accused_late() {
        let s = [
            receipt(1, 0, 10),
            receipt(0, 1, 30),
            view(35, [2, 1]),
            view(200, [2, 1]),
        ];
        assert_eq!(
            late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()),
            Ok(Late {
                seat: Seat(1),
                since: 30,
                deadline: 130,
                view: 200
            })
        );
    }

    #[test]
    fn the_start_is_the_earliest_time_the_witness_held_the_last_envelope() {
        // No receipt of seat 0's second envelope: the first view holding it starts it.
        let s = [receipt(1, 0, 10), view(50, [2, 1]), view(151, [2, 1])];
        let l = late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()).expect("late");
        assert_eq!((l.since, l.deadline), (50, 150));
        // At the deadline exactly is not after it.
        let s = [receipt(1, 0, 10), view(50, [2, 1]), view(150, [2, 1])];
        assert_eq!(
            late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()),
            Err(NotProven::TooEarly { deadline: 150 })
        );
    }

    #[test]
    fn an_accused_that_answered_is_not_late() {
        let s = [
            receipt(0, 1, 30),
            receipt(1, 0, 10),
            receipt(1, 1, 120),
            view(200, [2, 2]),
        ];
        assert_eq!(
            late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()),
            Err(NotProven::Answered(ChainId::public(Seat(1))))
        );
    }

    #[test]
    fn an_answer_after_a_silent_view_past_the_deadline_comes_too_late() {
        let s = [
            receipt(0, 1, 30),
            receipt(1, 0, 10),
            view(140, [2, 1]),
            receipt(1, 1, 150),
            view(200, [2, 2]),
        ];
        let l = late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()).expect("late");
        assert_eq!(l.view, 140);
    }

    #[test]
    fn no_time_for_the_last_envelope_seen_proves_nothing() {
        // Seat 1's envelope is neither receipted nor covered by any view.
        let s = [receipt(0, 1, 30), view(200, [2, 0])];
        assert_eq!(
            late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()),
            Err(NotProven::NoStart {
                chain: ChainId::public(Seat(1)),
                count: 1
            })
        );
    }

    #[test]
    fn a_witness_that_contradicts_itself_proves_nothing() {
        // The view after the receipt lacks what was receipted.
        let s = [receipt(1, 0, 10), receipt(0, 1, 30), view(200, [1, 1])];
        assert!(matches!(
            late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()),
            Err(NotProven::Witness(Contradiction::ViewLacksReceipted { .. }))
        ));
    }

    #[test]
    fn a_start_cut_back_to_an_earlier_envelope_starts_the_wait_earlier() {
        // Seat 1's second envelope (an idle one, say) came at 120; the wait started
        // with seat 0's at 30 when the start is cut back to seat 1's first.
        let s = [
            receipt(0, 1, 30),
            receipt(1, 0, 10),
            receipt(1, 1, 120),
            view(140, [2, 2]),
        ];
        let mut starts = known([2, 2]);
        starts[1] = Head {
            chain: ChainId::public(Seat(1)),
            count: 1,
            head: h(1, 0),
        };
        let l = late(&s, &starts, &known([2, 2]), Seat(1), 100, &file()).expect("late");
        assert_eq!((l.since, l.deadline, l.view), (30, 130, 140));
        // Not cut back, the idle envelope restarts the wait.
        assert_eq!(
            late(&s, &known([2, 2]), &known([2, 2]), Seat(1), 100, &file()),
            Err(NotProven::TooEarly { deadline: 220 })
        );
        assert_eq!(receipt_of(&s, &h(1, 1)), Some(120));
        assert_eq!(receipt_of(&s, &h(0, 0)), None);
    }

    #[test]
    fn knowledge_naming_a_chain_twice_is_refused() {
        let mut k = known([2, 1]);
        k.push(k[0]);
        let s = [receipt(1, 0, 10), receipt(0, 1, 30), view(200, [2, 1])];
        assert_eq!(
            late(&s, &k, &k, Seat(1), 100, &file()),
            Err(NotProven::BadKnowledge(ChainId::public(Seat(0))))
        );
    }

    #[test]
    fn a_huge_allowance_does_not_overflow() {
        let s = [receipt(1, 0, 10), receipt(0, 1, 30), view(u64::MAX, [2, 1])];
        assert_eq!(
            late(
                &s,
                &known([2, 1]),
                &known([2, 1]),
                Seat(1),
                u64::MAX,
                &file()
            ),
            Err(NotProven::TooEarly { deadline: u64::MAX })
        );
    }
}
