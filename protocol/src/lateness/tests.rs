//! The lateness proof on the made-up file of `witness::tests`.

use super::*;
use crate::witness::tests::{file, h, ledger};

/// The accuser (seat 0) had seen `counts` of seats 0 and 1.
fn known(counts: [u64; 2]) -> Vec<Head> {
    (0..2u8)
        .map(|s| {
            let n = counts[usize::from(s)];
            Head {
                chain: ChainId::public(Seat(s)),
                count: n,
                head: if n == 0 {
                    crate::hash::Hash::ZERO
                } else {
                    h(s, n - 1)
                },
            }
        })
        .collect()
}

#[test]
fn a_ledger_past_the_deadline_with_nothing_new_proves_the_accused_late() {
    let s = [
        ledger(35, [2, 1], &[(0, 0, 5), (0, 1, 30), (1, 0, 10)]),
        ledger(200, [2, 1], &[]),
    ];
    assert_eq!(
        late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()),
        Ok(Late {
            seat: Seat(1),
            since: 30,
            deadline: 130,
            ledger: 200
        })
    );
}

#[test]
fn at_the_deadline_exactly_is_not_after_it() {
    let s = [
        ledger(55, [2, 1], &[(0, 0, 5), (0, 1, 50), (1, 0, 10)]),
        ledger(150, [2, 1], &[]),
    ];
    assert_eq!(
        late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()),
        Err(NotProven::TooEarly { deadline: 150 })
    );
}

#[test]
fn an_accused_that_answered_is_not_late() {
    let s = [
        ledger(35, [2, 1], &[(0, 0, 5), (0, 1, 30), (1, 0, 10)]),
        ledger(200, [2, 2], &[(1, 1, 120)]),
    ];
    assert_eq!(
        late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()),
        Err(NotProven::Answered(ChainId::public(Seat(1))))
    );
}

#[test]
fn an_answer_after_a_silent_ledger_past_the_deadline_comes_too_late() {
    let s = [
        ledger(35, [2, 1], &[(0, 0, 5), (0, 1, 30), (1, 0, 10)]),
        ledger(140, [2, 1], &[]),
        ledger(200, [2, 2], &[(1, 1, 150)]),
    ];
    let l = late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()).expect("late");
    assert_eq!(l.ledger, 140);
}

#[test]
fn no_time_for_the_last_envelope_of_the_starts_proves_nothing() {
    let s = [ledger(200, [2, 1], &[(0, 1, 30)])];
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
    let s = [
        ledger(35, [2, 1], &[(0, 0, 5), (0, 1, 30), (1, 0, 10)]),
        ledger(200, [1, 1], &[]),
    ];
    assert!(matches!(
        late(&s, &known([2, 1]), &known([2, 1]), Seat(1), 100, &file()),
        Err(NotProven::Witness(
            crate::witness::Contradiction::Shrank { .. }
        ))
    ));
}

#[test]
fn a_start_cut_back_to_an_earlier_envelope_starts_the_wait_earlier() {
    // Seat 1's second envelope (an idle one, say) came at 120; the wait started with
    // seat 0's at 30 when the start is cut back to seat 1's first.
    let s = [
        ledger(35, [2, 1], &[(0, 0, 5), (0, 1, 30), (1, 0, 10)]),
        ledger(140, [2, 2], &[(1, 1, 120)]),
    ];
    let mut starts = known([2, 2]);
    starts[1] = Head {
        chain: ChainId::public(Seat(1)),
        count: 1,
        head: h(1, 0),
    };
    let l = late(&s, &starts, &known([2, 2]), Seat(1), 100, &file()).expect("late");
    assert_eq!((l.since, l.deadline, l.ledger), (30, 130, 140));
    // Not cut back, the idle envelope restarts the wait.
    assert_eq!(
        late(&s, &known([2, 2]), &known([2, 2]), Seat(1), 100, &file()),
        Err(NotProven::TooEarly { deadline: 220 })
    );
}

#[test]
fn an_accused_whose_idle_envelope_the_witness_never_held_is_still_silent() {
    // The accuser saw two of seat 1's envelopes, the second idle; the witness only
    // ever held the first.
    let s = [
        ledger(35, [2, 1], &[(0, 0, 5), (0, 1, 30), (1, 0, 10)]),
        ledger(140, [2, 1], &[]),
    ];
    let mut starts = known([2, 2]);
    starts[1] = Head {
        chain: ChainId::public(Seat(1)),
        count: 1,
        head: h(1, 0),
    };
    assert!(late(&s, &starts, &known([2, 2]), Seat(1), 100, &file()).is_ok());
}

#[test]
fn knowledge_naming_a_chain_twice_is_refused() {
    let mut k = known([2, 1]);
    k.push(k[0]);
    let s = [ledger(200, [2, 1], &[(0, 1, 30), (1, 0, 10)])];
    assert_eq!(
        late(&s, &k, &k, Seat(1), 100, &file()),
        Err(NotProven::BadKnowledge(ChainId::public(Seat(0))))
    );
}

#[test]
fn a_huge_allowance_does_not_overflow() {
    let s = [
        ledger(35, [2, 1], &[(0, 0, 5), (0, 1, 30), (1, 0, 10)]),
        ledger(u64::MAX, [2, 1], &[]),
    ];
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
