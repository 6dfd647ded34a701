//! The accused's clock in a time forfeit (protocol version 2, spec/PROTOCOL.md §17):
//! what its earlier waits cost it is counted from the witness's ledgers — the leave
//! under a per-move pace, every wait under "N moves in D" — and never from anyone's
//! own clock readings; envelopes that are not moves do not hold its clock back; and an
//! answer after the deadline that the sender had not seen does not save the accused.
//!
//! The witness's times here are the envelopes' own readings scaled to minutes, plus a
//! delay put on one answer of Black's (and on everything after it), so that the
//! witness's times say that answer was slow.

use sealed_conformance::forfeit_kit::{
    HOUR, at, game, known, pair, proposal, receipts, signed, view, witness,
};
use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{A, B, honest_pair, until_turn};
use sealed_games::duel::Duel;
use sealed_games::variant::check_transcript;
use sealed_protocol::body::{Forfeit, Item};
use sealed_protocol::envelope::Signed;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::{ChainId, EnvRef, Seat};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::session::Command;
use sealed_protocol::transcript::Checked;
use sealed_protocol::witness::Statement;

const MINUTE: u64 = 60_000;

/// Black's first envelope that carries a move.
fn first_move_of_black(p: &Pair<Duel>) -> Signed {
    let e = p.sessions[0].engine();
    let chain = ChainId::public(B);
    (0..e.processed(chain))
        .filter_map(|seq| e.envelope(EnvRef { chain, seq }))
        .find(|s| {
            s.env
                .unsigned
                .body
                .iter()
                .any(|i| matches!(i, Item::Act(_)))
        })
        .cloned()
        .expect("Black moved")
}

/// The witness's time for `env`: its reading in minutes, and `delay` more when it is
/// `slow` or came after it (Black's later envelopes, White's that acknowledge it).
fn timed(slow: &Signed, delay: u64) -> impl Fn(&Signed) -> u64 + '_ {
    move |env| {
        let u = &env.env.unsigned;
        let s = &slow.env.unsigned;
        let after = if u.seat == s.seat {
            u.seq >= s.seq
        } else {
            u.acks
                .iter()
                .any(|a| a.chain == ChainId::public(s.seat) && a.seq >= s.seq)
        };
        u.clock * MINUTE + if after { delay } else { 0 }
    }
}

/// The receipts of everything White holds (each at `time`), and a view `after` ms past
/// the last of them showing nothing new from Black.
fn statements(p: &Pair<Duel>, time: impl Fn(&Signed) -> u64, after: u64) -> Vec<Statement> {
    let dated = receipts(p, A, time);
    let last = at(&dated);
    vec![dated, view(game(p), last + after, known(p, A))]
}

/// The statements with the ledgers' times of `env`'s chain cut to those after it: no
/// statement says when the witness held `env`, or anything before it in its chain.
fn undated(mut st: Vec<Statement>, env: &Signed) -> Vec<Statement> {
    let at = env.at();
    for s in &mut st {
        if let Statement::Ledger(l) = s {
            for h in l.chains.iter_mut().filter(|h| h.chain == at.chain) {
                let cut = (at.seq + 1)
                    .saturating_sub(h.first)
                    .min(h.times.len() as u64);
                h.times.drain(..cut as usize);
                h.first = h.first.max(at.seq + 1).min(h.count);
            }
        }
    }
    st
}

/// White posts a forfeit against Black; the game runs out.
fn post(p: &mut Pair<Duel>, statements: &[Statement]) -> Checked {
    p.sessions[0]
        .handle_command(
            Command::Forfeit(Forfeit {
                against: B,
                statements: signed(statements, &witness()),
            }),
            p.now,
        )
        .expect("White's forfeit stands");
    p.deliver_all();
    p.run(&mut honest_pair());
    check_transcript(&p.transcript(A)).expect("readable")
}

/// White's honest session refuses to post it: it would be White's `false-forfeit`.
fn refused(p: &mut Pair<Duel>, statements: &[Statement]) {
    let e = p.sessions[0]
        .handle_command(
            Command::Forfeit(Forfeit {
                against: B,
                statements: signed(statements, &witness()),
            }),
            p.now,
        )
        .expect_err("not proven");
    assert!(e.to_string().contains("false-forfeit"), "{e}");
}

fn stalled(options: &[(&str, &str)]) -> Pair<Duel> {
    let mut p = pair(proposal(options));
    until_turn(&mut p, B, 2);
    p.deliver_all();
    p.silence(B);
    p
}

fn lost_on_time(c: &Checked) {
    assert!(c.verdict.faults.is_empty(), "{:#?}", c.verdict.faults);
    assert_eq!(c.exit_code(), 0, "{:#?}", c.verdict);
    let o = c.verdict.outcome.clone().expect("a result");
    assert_eq!(o.results, vec![SeatResult::Win, SeatResult::Loss]);
    assert_eq!(o.reason, "seat 1 lost on time");
}

/// 1 h per move and 1 h of leave. Black's first move took 90 minutes by the witness's
/// receipts: half the leave is gone, and the wait in progress has at most 1 h 30.
#[test]
fn leave_spent_on_an_earlier_move_is_counted_from_the_receipts() {
    let options = [("time-leave", "1h"), ("time-per-move", "1h")];
    let p = stalled(&options);
    let slow = first_move_of_black(&p);
    let time = timed(&slow, 90 * MINUTE);
    // With the receipt of that move, 1 h 30 and a millisecond of silence prove it.
    let mut q = stalled(&options);
    lost_on_time(&post(&mut q, &statements(&p, &time, 90 * MINUTE + 1)));
    // Without it nothing says the leave was spent: the whole 2 h are allowed.
    let st = undated(statements(&p, &time, 90 * MINUTE + 1), &slow);
    refused(&mut stalled(&options), &st);
    // And 2 h and a millisecond prove it whether or not the receipts say so.
    let mut q = stalled(&options);
    lost_on_time(&post(&mut q, &statements(&p, &time, 2 * HOUR + 1)));
}

/// The players' own clock readings count for nothing: Black's reading on its slow move
/// says it was instant, and the witness's receipts still charge it.
#[test]
fn a_backdated_reading_does_not_hide_a_slow_move() {
    let options = [("time-leave", "1h"), ("time-per-move", "1h")];
    let p = stalled(&options);
    let slow = first_move_of_black(&p);
    let previous_white = {
        let e = p.sessions[0].engine();
        let chain = ChainId::public(A);
        (0..e.processed(chain))
            .filter_map(|seq| e.envelope(EnvRef { chain, seq }))
            .filter(|w| w.env.unsigned.clock <= slow.env.unsigned.clock)
            .map(|w| w.env.unsigned.clock)
            .max()
            .expect("White went first")
    };
    assert!(
        slow.env.unsigned.clock - previous_white < 60,
        "Black's reading: a few ms after White's"
    );
    let time = timed(&slow, 90 * MINUTE);
    let mut q = stalled(&options);
    lost_on_time(&post(&mut q, &statements(&p, &time, 90 * MINUTE + 1)));
}

/// Two moves in 3 h, no leave. Black's first move took 2 h 30 by the receipts; the
/// clock grants 3 h for every two moves, so what is left is 3 h (or 6 h once two moves
/// are made) less everything Black spent.
#[test]
fn n_moves_in_d_charges_every_wait() {
    let options = [("time-moves", "2"), ("time-period", "3h")];
    let p = stalled(&options);
    let moves = {
        let e = p.sessions[0].engine();
        let chain = ChainId::public(B);
        (0..e.processed(chain))
            .filter_map(|seq| e.envelope(EnvRef { chain, seq }))
            .filter(|s| {
                s.env
                    .unsigned
                    .body
                    .iter()
                    .any(|i| matches!(i, Item::Act(_)))
            })
            .count() as u64
    };
    let budget = (moves / 2 + 1) * 3 * HOUR;
    let slow = first_move_of_black(&p);
    let time = timed(&slow, 150 * MINUTE);
    // Black's other waits took a few minutes each by the scaled readings, so the
    // allowance is a little under budget − 2 h 30.
    let mut q = stalled(&options);
    lost_on_time(&post(
        &mut q,
        &statements(&p, &time, budget - 150 * MINUTE + 1),
    ));
    // Without the slow move's time, the most it proves is a few minutes: not enough.
    let st = undated(statements(&p, &time, budget - 150 * MINUTE + 1), &slow);
    refused(&mut stalled(&options), &st);
}

/// A staller who sends a draw offer now and then, and never moves, does not restart
/// his clock: the wait runs from what he had to answer, not from his offer.
#[test]
fn draw_offers_do_not_hold_a_stallers_clock_back() {
    let mut p = pair(proposal(&[("time-per-move", "1h")]));
    until_turn(&mut p, B, 2);
    p.deliver_all();
    let before = known(&p, A);
    let now = p.now;
    p.sessions[1]
        .handle_command(Command::OfferDraw, now)
        .expect("Black offers a draw");
    p.deliver_all();
    p.silence(B);
    let offer = {
        let e = p.sessions[0].engine();
        let chain = ChainId::public(B);
        e.envelope(EnvRef {
            chain,
            seq: e.processed(chain) - 1,
        })
        .cloned()
        .expect("the offer reached White")
    };
    assert!(
        offer
            .env
            .unsigned
            .body
            .iter()
            .all(|i| matches!(i, Item::OfferDraw)),
        "{:?}",
        offer.env.unsigned.body
    );
    let g = game(&p);
    assert_eq!(before[1].count + 1, known(&p, A)[1].count);
    // The witness held everything but the offer at 1 s, the offer 50 minutes later,
    // and nothing newer an hour after the start.
    let st = [
        receipts(&p, A, |e| {
            if e.hash == offer.hash {
                1_000 + 50 * MINUTE
            } else {
                1_000
            }
        }),
        view(g, 1_000 + HOUR + 1, known(&p, A)),
    ];
    lost_on_time(&post(&mut p, &st));
}

/// An answer the accused sent after its deadline, which the sender had not seen, does
/// not save it: the witness's later ledger holds it, and its earlier one past the
/// deadline shows the silence. An answer the witness held before the deadline does:
/// then the forfeit is the sender's fault.
#[test]
fn a_late_answer_the_sender_had_not_seen_does_not_save_the_accused() {
    for in_time in [false, true] {
        let mut p = pair(proposal(&[("time-per-move", "1h")]));
        until_turn(&mut p, B, 2);
        p.deliver_all();
        p.silence(B);
        let k = known(&p, A);
        let mut st = vec![receipts(&p, A, |_| 1_000)];
        let now = p.now;
        let cmd = honest_pair()[1](&p.sessions[1]).expect("Black has a move");
        p.sessions[1].handle_command(cmd, now).expect("Black moves");
        let answer = p.sessions[1]
            .engine()
            .stored()
            .0
            .into_iter()
            .filter(|e| e.at().chain == ChainId::public(B))
            .max_by_key(|e| e.at().seq)
            .cloned()
            .expect("Black's answer");
        let answered_at = if in_time {
            1_000 + HOUR
        } else {
            1_000 + HOUR + 2
        };
        let mut later = k.clone();
        later[1].count += 1;
        later[1].head = answer.hash;
        if !in_time {
            st.push(view(game(&p), 1_000 + HOUR + 1, k.clone()));
        }
        st.push(Statement::Ledger(sealed_protocol::witness::Ledger {
            game: game(&p),
            at: answered_at + 5,
            chains: later
                .iter()
                .map(|h| sealed_protocol::witness::Held {
                    chain: h.chain,
                    count: h.count,
                    head: h.head,
                    first: if h.chain == answer.at().chain {
                        h.count - 1
                    } else {
                        h.count
                    },
                    times: if h.chain == answer.at().chain {
                        vec![answered_at]
                    } else {
                        vec![]
                    },
                })
                .collect(),
        }));
        if !in_time {
            lost_on_time(&post(&mut p, &st));
            assert_eq!(p.sessions[0].engine().forfeits().len(), 1);
        } else {
            refused(&mut p, &st);
            let f = Forfeit {
                against: B,
                statements: signed(&st, &witness()),
            };
            let env = p.forge(A, vec![Item::Forfeit(f)]);
            p.inject(&env);
            p.deliver_all();
            p.run(&mut honest_pair());
            let c = check_transcript(&p.transcript(B)).expect("readable");
            let faults: Vec<(Seat, FaultKind)> = c
                .verdict
                .faults
                .iter()
                .map(|f| (f.seat, f.kind.clone()))
                .collect();
            assert_eq!(
                faults,
                vec![(A, FaultKind::FalseForfeit)],
                "{:#?}",
                c.verdict
            );
        }
    }
}
