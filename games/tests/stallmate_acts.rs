//! Secret Stallmate's acts on the wire: whatever bytes arrive, decoding and the live
//! judgement of a private act answer without panicking, the same way every time, and
//! what they accept is a well-formed exchange (spec/GAMES.md §5.10–§5.11).

use proptest::prelude::*;

use sealed_games::stallmate::Options;
use sealed_games::stallmate::acts::{self, Private, Public};
use sealed_games::stallmate::answer::{Answer, Report};
use sealed_games::stallmate::attempt::Attempt;
use sealed_games::stallmate::peer::{Stallmate, period_log};
use sealed_protocol::hidden::Posted;
use sealed_protocol::ids::{ChainId, EnvRef, LogId, Seat};
use sealed_protocol::rules::Rules;

fn posted(log: LogId, seat: Seat, seq: u64, act: &Private) -> Posted {
    Posted {
        at: EnvRef {
            chain: ChainId { log, seat },
            seq,
        },
        seat,
        clock: 0,
        bytes: acts::encode(act),
    }
}

fn any_private() -> impl Strategy<Value = Private> {
    prop_oneof![
        (0u8..64, 0u8..64).prop_map(|(f, t)| {
            let sq = |i| sealed_games::chess::Square::from_index(i).expect("below 64");
            Private::Attempt(Attempt::go(sq(f), sq(t)))
        }),
        Just(Private::Attempt(Attempt::Any)),
        Just(Private::Answer(Answer::Illegal)),
        Just(Private::Answer(Answer::Yes(Report::default()))),
        Just(Private::Answer(Answer::No)),
        Just(Private::Answer(Answer::Try)),
        Just(Private::Answer(Answer::PawnCaptureFirst)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any bytes, in any log, by any seat, after any earlier act: an answer, never a
    /// panic, and the same answer twice.
    #[test]
    fn any_bytes_are_judged_without_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..48),
        before in proptest::collection::vec(any::<u8>(), 0..24),
        log in 0u32..9,
        seat in 0u8..4,
    ) {
        let rules = Stallmate::new(Options::default());
        let _ = rules.decode_act(&bytes);
        let _ = acts::decode::<Public>(&bytes);
        let earlier = [Posted {
            at: EnvRef { chain: ChainId { log: LogId(log), seat: Seat(2) }, seq: 0 },
            seat: Seat(2),
            clock: 0,
            bytes: before,
        }];
        let first = rules.private_act(LogId(log), Seat(seat), &bytes, &earlier);
        prop_assert_eq!(first, rules.private_act(LogId(log), Seat(seat), &bytes, &earlier));
        let _ = rules.private_act(LogId(log), Seat(seat), &bytes, &[]);
    }

    /// A line of well-formed acts is accepted exactly when it alternates: the mover's
    /// attempt, the referee's fitting answer, and nothing after a "yes".
    #[test]
    fn a_period_log_accepts_exactly_an_alternating_exchange(
        line in proptest::collection::vec((0u8..3, any_private()), 0..12),
    ) {
        let rules = Stallmate::new(Options::default());
        let log = period_log(0);
        let mut earlier: Vec<Posted> = vec![];
        for (seat, act) in line {
            let seat = Seat(seat);
            let verdict = rules.private_act(log, seat, &acts::encode(&act), &earlier);
            let last = earlier.last().map(|p| acts::decode::<Private>(&p.bytes).unwrap());
            let expected = match (&act, &last) {
                (Private::Attempt(_), _) if seat != Seat(0) => false,
                (Private::Attempt(_), Some(Private::Attempt(_))) => false,
                (Private::Attempt(_), Some(Private::Answer(Answer::Yes(_)))) => false,
                (Private::Attempt(_), _) => true,
                (Private::Answer(_), _) if seat != Seat(2) => false,
                (Private::Answer(a), Some(Private::Attempt(Attempt::Any))) => {
                    matches!(a, Answer::No | Answer::Try)
                }
                (Private::Answer(a), Some(Private::Attempt(Attempt::Move { .. }))) => {
                    matches!(a, Answer::Illegal | Answer::Yes(_) | Answer::PawnCaptureFirst)
                }
                (Private::Answer(_), _) => false,
            };
            prop_assert_eq!(verdict.is_ok(), expected, "{:?} by {:?} after {:?}", act, seat, last);
            if verdict.is_ok() {
                let seq = earlier.iter().filter(|p| p.seat == seat).count() as u64;
                earlier.push(posted(log, seat, seq, &act));
            }
        }
    }
}

/// The setup logs hold no acts at all.
#[test]
fn setup_logs_hold_no_acts() {
    let rules = Stallmate::new(Options::default());
    let act = acts::encode(&Private::Attempt(Attempt::Any));
    for log in [LogId(1), LogId(2)] {
        for seat in 0..3 {
            assert!(rules.private_act(log, Seat(seat), &act, &[]).is_err());
        }
    }
}
