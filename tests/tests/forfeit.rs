//! Time forfeits (protocol version 2, spec/PROTOCOL.md §17): a player who lets its time
//! pass loses on time once the witness's statements prove it, and every way of posting
//! a forfeit that does not prove it is the poster's fault. Duel between the test keys,
//! `time-per-move=1h`, the witness signing with test key 9.

use sealed_conformance::duel_kit::duel_proposal;
use sealed_conformance::forfeit_kit::{
    HOUR, dated, game, known, pair, proof, proposal, signed, stalled, view, witness,
};
use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{A, B, honest_pair, until_turn};
use sealed_conformance::sim::test_key;
use sealed_games::duel::Duel;
use sealed_games::variant::check_transcript;
use sealed_protocol::body::{Forfeit, Item};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::{Name, Seat};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::proposal::{Proposal, Terms, VERSION_2, WitnessSpec};
use sealed_protocol::session::Command;
use sealed_protocol::transcript::Checked;
use sealed_protocol::witness::Head;

/// `by` posts a forfeit against `against` with these statement bytes, and the game
/// runs out (reveals and closes included) with what is delivered.
fn post(p: &mut Pair<Duel>, by: Seat, against: Seat, statements: Vec<Vec<u8>>) -> Checked {
    p.sessions[by.index()]
        .handle_command(
            Command::Forfeit(Forfeit {
                against,
                statements,
            }),
            p.now,
        )
        .expect("the session sends it");
    p.deliver_all();
    p.run(&mut honest_pair());
    check_transcript(&p.transcript(by)).expect("readable")
}

/// As [`post`], for a forfeit that does not stand: an honest session refuses to sign
/// it (naming the fault it would be), so a cheater's forged envelope carries it.
fn cheat(
    p: &mut Pair<Duel>,
    by: Seat,
    against: Seat,
    statements: Vec<Vec<u8>>,
    kind: FaultKind,
) -> Checked {
    let f = Forfeit {
        against,
        statements,
    };
    let refused = p.sessions[by.index()]
        .handle_command(Command::Forfeit(f.clone()), p.now)
        .expect_err("an honest session does not sign it");
    assert!(refused.to_string().contains(kind.name()), "{refused}");
    let env = p.forge(by, vec![Item::Forfeit(f)]);
    p.inject(&env);
    p.deliver_all();
    p.run(&mut honest_pair());
    let c = check_transcript(&p.transcript(against)).expect("readable");
    assert_eq!(faults(&c), vec![(by, kind)], "{:#?}", c.verdict);
    c
}

fn faults(c: &Checked) -> Vec<(Seat, FaultKind)> {
    c.verdict
        .faults
        .iter()
        .map(|f| (f.seat, f.kind.clone()))
        .collect()
}

#[test]
fn a_player_silent_past_its_deadline_loses_on_time_and_the_result_is_verified() {
    let mut p = stalled();
    let statements = signed(&proof(&p, A, HOUR + 1), &witness());
    let c = post(&mut p, A, B, statements);
    assert_eq!(c.exit_code(), 0, "{:#?}", c.verdict);
    let o = c.verdict.outcome.clone().expect("a result");
    assert_eq!(o.results, vec![SeatResult::Win, SeatResult::Loss]);
    assert_eq!(o.reason, "seat 1 lost on time");
    // B's withheld reveals and closes are recorded, and block nothing.
    assert!(c.verdict.claims.iter().all(|c| c.against == B && !c.open));
    assert_eq!(p.sessions[0].engine().forfeits().len(), 1);
}

#[test]
fn a_forfeit_at_the_deadline_exactly_is_the_posters_fault() {
    let mut p = stalled();
    let statements = signed(&proof(&p, A, HOUR), &witness());
    let c = cheat(&mut p, A, B, statements, FaultKind::FalseForfeit);
    assert_eq!(c.exit_code(), 1);
    let o = c.verdict.outcome.clone().expect("a result");
    assert_eq!(o.results, vec![SeatResult::Loss, SeatResult::Win]);
}

#[test]
fn statements_not_signed_by_the_witness_are_the_posters_fault() {
    let mut p = stalled();
    // A signs the "witness" statements itself.
    let statements = signed(&proof(&p, A, 2 * HOUR), &test_key(0));
    cheat(&mut p, A, B, statements, FaultKind::FalseForfeit);
}

#[test]
fn a_witness_that_contradicts_itself_proves_no_forfeit() {
    let mut p = stalled();
    let mut st = proof(&p, A, 2 * HOUR);
    // A second ledger that dates A's envelopes at another time.
    st.push(dated(game(&p), 900, known(&p, A)));
    cheat(
        &mut p,
        A,
        B,
        signed(&st, &witness()),
        FaultKind::FalseForfeit,
    );
}

#[test]
fn a_forfeit_against_an_accused_the_witness_saw_answer_is_the_posters_fault() {
    let mut p = stalled();
    let mut later = known(&p, A);
    later[1].count += 1;
    later[1].head = Hash([0xbb; 32]);
    let st = vec![
        dated(game(&p), 1_000, known(&p, A)),
        view(game(&p), 1_000 + 2 * HOUR, later),
    ];
    cheat(
        &mut p,
        A,
        B,
        signed(&st, &witness()),
        FaultKind::FalseForfeit,
    );
}

#[test]
fn the_player_to_act_cannot_make_its_opponent_lose_on_time() {
    let mut p = pair(proposal(&[("time-per-move", "1h")]));
    until_turn(&mut p, B, 2);
    p.deliver_all();
    // B, to act, accuses A, who owes nothing.
    let k = known(&p, B);
    let st = vec![
        dated(game(&p), 1_000, k.clone()),
        view(game(&p), 9 * HOUR, k),
    ];
    let c = cheat(
        &mut p,
        B,
        A,
        signed(&st, &witness()),
        FaultKind::FalseForfeit,
    );
    assert_eq!(
        c.verdict.outcome.expect("a result").results,
        vec![SeatResult::Win, SeatResult::Loss]
    );
}

#[test]
fn a_forfeit_needs_a_witness_and_a_time_control() {
    // Version 2 without a time control: a fault of the poster's.
    let mut p = pair(proposal(&[]));
    until_turn(&mut p, B, 2);
    p.deliver_all();
    p.silence(B);
    let statements = signed(&proof(&p, A, 2 * HOUR), &witness());
    cheat(&mut p, A, B, statements, FaultKind::OutOfPhase);

    // Version 1 has no forfeit item: an envelope carrying one is no version 1 envelope
    // (spec/PROTOCOL.md §17), refused before any engine judges it.
    let mut v1 = duel_proposal(&Duel::default(), 41);
    v1.options
        .push((Name::new("time-per-move").unwrap(), "1h".into()));
    v1.options.sort();
    let mut p = pair(v1);
    until_turn(&mut p, B, 2);
    p.deliver_all();
    p.silence(B);
    let statements = signed(&proof(&p, A, 2 * HOUR), &witness());
    let env = p.forge(
        A,
        vec![Item::Forfeit(Forfeit {
            against: B,
            statements,
        })],
    );
    let terms = p.sessions[1].engine().terms().clone();
    assert_eq!(
        sealed_protocol::envelope::Signed::parse(&terms, &env.bytes).unwrap_err(),
        sealed_protocol::envelope::EnvelopeError::Version2Item
    );
}

/// B answers after the deadline, concurrently with A's forfeit (neither saw the
/// other's envelope), and backdates it: its clock reading says it was made at once. The
/// forfeit stands in both seats' replays, whatever arrived first, because it is judged
/// against what A had seen and the witness's times, never a player's own clock.
#[test]
fn a_late_backdated_answer_concurrent_with_the_forfeit_does_not_save_the_accused() {
    let mut p = pair(proposal(&[("time-per-move", "1h")]));
    until_turn(&mut p, B, 2);
    p.deliver_all();
    let statements = signed(&proof(&p, A, HOUR + 1), &witness());
    // B's move, made now, is not yet delivered when A posts.
    let mut d = honest_pair();
    let cmd = d[1](&p.sessions[1]).expect("B has a move");
    p.sessions[1].handle_command(cmd, p.now).expect("B moves");
    let answer = p.sessions[1]
        .engine()
        .stored()
        .0
        .last()
        .map(|e| e.unsigned().clock);
    assert!(
        answer.is_some_and(|c| c < 1_000 + HOUR),
        "B's reading says it answered in time: {answer:?}"
    );
    let c = post(&mut p, A, B, statements);
    assert!(faults(&c).is_empty(), "{:#?}", c.verdict);
    let o = c.verdict.outcome.clone().expect("a result");
    assert_eq!(o.reason, "seat 1 lost on time");
    let in_b = check_transcript(&p.transcript(B)).expect("readable");
    assert_eq!(in_b.verdict.outcome, c.verdict.outcome);
    assert_eq!(in_b.verdict.status, c.verdict.status);
}

/// The reserve (`time-leave`) is allowed on top of the time per move.
#[test]
fn the_reserve_is_allowed_on_top_of_the_time_per_move() {
    for (after, stands) in [(2 * HOUR, false), (2 * HOUR + 1, true)] {
        let mut p = pair(proposal(&[("time-leave", "1h"), ("time-per-move", "1h")]));
        until_turn(&mut p, B, 2);
        p.deliver_all();
        p.silence(B);
        let statements = signed(&proof(&p, A, after), &witness());
        if stands {
            let c = post(&mut p, A, B, statements);
            assert_eq!(c.exit_code(), 0, "{:#?}", c.verdict);
        } else {
            cheat(&mut p, A, B, statements, FaultKind::FalseForfeit);
        }
    }
}

/// The seed's rule (Tempête, and the default adjudication): a cheat and a loss on time
/// make a draw. Here the winner on time signs a fault after the forfeit stood.
#[test]
fn a_cheat_by_the_winner_on_time_makes_a_draw() {
    let mut p = stalled();
    let statements = signed(&proof(&p, A, HOUR + 1), &witness());
    let c = post(&mut p, A, B, statements);
    assert_eq!(c.exit_code(), 0);
    let bogus = Item::Open(sealed_protocol::body::Open {
        purpose: sealed_protocol::body::Purpose::Coin,
        index: 7,
        nonce: [0; 32],
        value: vec![0; 32],
    });
    let env = p.forge(A, vec![bogus]);
    p.inject(&env);
    let c = check_transcript(&p.transcript(A)).expect("readable");
    assert_eq!(c.verdict.faults.len(), 1, "{:#?}", c.verdict.faults);
    assert_eq!(c.verdict.faults[0].seat, A);
    assert_eq!(
        c.verdict.outcome.expect("a result").results,
        vec![SeatResult::Draw, SeatResult::Draw]
    );
}

/// Chex: the player to move waits for his opponent's draw value (the opponent owes an
/// automatic step). The one late is the opponent, not the player "to act": the player
/// to act proves the opponent late, and the opponent cannot turn it round.
#[test]
fn in_chex_the_player_who_owes_a_draw_value_is_the_late_one() {
    use sealed_conformance::chex_kit::chex_deciders;
    use sealed_games::chex::{self, Chex};
    use sealed_protocol::verdict::{Awaited, awaited};

    let seats = (0..2)
        .map(|i| sealed_protocol::proposal::SeatSpec {
            role: sealed_protocol::proposal::Role::Player,
            key: test_key(i).public().to_bytes(),
            name: format!("p{i}"),
        })
        .collect();
    let mut options = vec![
        (Name::new("ply-limit").unwrap(), "40".to_owned()),
        (Name::new("time-per-move").unwrap(), "1h".to_owned()),
    ];
    options.sort();
    let proposal = Proposal {
        version: VERSION_2,
        variant: Name::new(chex::VARIANT).unwrap(),
        options,
        seats,
        mailboxes: vec![],
        proposer: Seat(0),
        clock: 0,
        nonce: [3; 32],
        witness: Some(WitnessSpec {
            key: witness().public().to_bytes(),
            addrs: vec![],
        }),
    };
    let terms = Terms::from_signed(proposal.sign(&test_key(0))).unwrap();
    let mut p: Pair<Chex> = Pair::new(terms, 4);
    let mut d = chex_deciders();
    // A few turns, then Black's node stops sending; White goes on until it waits for
    // Black's draw value while White itself is the one to place.
    p.run_until(&mut d, |p| {
        let e = p.sessions[0].engine();
        e.main_line().len() >= 4 && e.to_act() == Some(A) && awaited(e).len() == 1
    });
    p.deliver_all();
    p.silence(B);
    assert_eq!(p.sessions[0].engine().to_act(), Some(A), "White's turn");
    let owes_value = |p: &Pair<Chex>| {
        awaited(p.sessions[0].engine())
            .iter()
            .any(|(s, a)| *s == B && matches!(a, Awaited::DrawValue { .. }))
    };
    // White declares a draw: its placement then waits for Black's value.
    let now = p.now;
    p.sessions[0]
        .handle_command(Command::act(chex::Act::Draw.bytes()), now)
        .expect("White draws");
    p.deliver_all();
    assert!(
        owes_value(&p),
        "White never waited for Black's draw value: {:?} to act {:?}",
        awaited(p.sessions[0].engine()),
        p.sessions[0].engine().to_act()
    );
    assert_eq!(p.sessions[0].engine().to_act(), Some(A), "White is to act");

    let g = p.sessions[0].engine().terms().game();
    let st = |k: Vec<Head>| {
        signed(
            &[dated(g, 1_000, k.clone()), view(g, 1_000 + HOUR + 1, k)],
            &witness(),
        )
    };
    // Black, whose value never reached the witness, cannot make White lose on time.
    // The witness holds what White holds: Black's value never left Black's node.
    let held = st(known(&p, A));
    let (by_black, by_white) = (held.clone(), held);
    let now = p.now;
    let refused = p.sessions[1]
        .handle_command(
            Command::Forfeit(Forfeit {
                against: A,
                statements: by_black,
            }),
            now,
        )
        .expect_err("Black's own clock runs");
    assert!(refused.to_string().contains("false-forfeit"), "{refused}");
    // White proves Black late.
    p.sessions[0]
        .handle_command(
            Command::Forfeit(Forfeit {
                against: B,
                statements: by_white,
            }),
            now,
        )
        .expect("White's forfeit stands");
    p.deliver_all();
    let c = check_transcript(&p.transcript(A)).expect("readable");
    assert!(c.verdict.faults.is_empty(), "{:#?}", c.verdict.faults);
    assert_eq!(
        c.verdict.outcome.expect("a result").reason,
        "seat 1 lost on time"
    );
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    /// A forfeit's statements as an opponent might forge them: real signed statements
    /// with bytes flipped, cut or appended, or bytes from nowhere.
    fn statements() -> impl Strategy<Value = (Vec<Vec<u8>>, u8)> {
        (
            prop::collection::vec(
                prop_oneof![
                    (0usize..2, any::<usize>(), any::<u8>()).prop_map(|(k, i, b)| (
                        k,
                        Some((i, b)),
                        None
                    )),
                    (0usize..2, any::<usize>()).prop_map(|(k, cut)| (k, None, Some(cut))),
                    prop::collection::vec(any::<u8>(), 0..80).prop_map(|v| (
                        usize::MAX,
                        None,
                        Some(v.len())
                    )),
                ],
                1..4,
            ),
            0u8..3,
        )
            .prop_map(|(picks, against)| {
                let p = stalled();
                let real = signed(&proof(&p, A, 2 * HOUR), &witness());
                let out = picks
                    .into_iter()
                    .map(|(k, flip, cut)| {
                        if k == usize::MAX {
                            return vec![0x5a; cut.unwrap_or(0)];
                        }
                        let mut b = real[k].clone();
                        if let Some((i, x)) = flip {
                            let n = b.len();
                            b[i % n] ^= x | 1;
                        }
                        if let Some(c) = cut {
                            b.truncate(c % (b.len() + 1));
                        }
                        b
                    })
                    .collect();
                (out, against)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Whatever the statements, judging never panics, and a forfeit that does not
        /// stand is the poster's fault alone: Black, who only stopped, is never blamed.
        #[test]
        fn a_hostile_forfeit_is_judged_without_panic_and_blames_its_poster((st, against) in statements()) {
            let mut p = stalled();
            // The clock a seat shows from the same answer: no panic either, whoever's.
            for seat in [A, B] {
                let _ = p.sessions[0].engine().witness_wait(&st, seat);
            }
            let env = p.forge(A, vec![Item::Forfeit(Forfeit { against: Seat(against), statements: st })]);
            p.inject(&env);
            p.run(&mut honest_pair());
            let c = check_transcript(&p.transcript(B)).expect("readable");
            prop_assert!(c.verdict.faults.iter().all(|f| f.seat == A), "{:#?}", c.verdict.faults);
            let stood = c.verdict.outcome.as_ref().is_some_and(|o| o.reason == "seat 1 lost on time");
            prop_assert!(stood || !c.verdict.faults.is_empty(), "{:#?}", c.verdict);
        }
    }
}
