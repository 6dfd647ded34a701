//! Secret Stallmate between the two players alone (spec/GAMES.md §5.15), two in-memory
//! sessions passing the computations' messages between them: an honest game ends with
//! a verdict both seats and the offline check agree on, and each way a player can
//! deviate — another message than his seed makes, a `Done` that lies, a commitment that
//! opens to nothing — is proven against him, and only him, at the end.

use sealed_conformance::duo_kit::*;
use sealed_conformance::pair::Pair;
use sealed_games::stallmate::duo::Duo;
use sealed_games::stallmate::duo::posted::Posted;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::Seat;
use sealed_protocol::transcript::{TranscriptFile, check};
use sealed_protocol::verdict::{Status, Verdict};

/// Every seat's verdict and the offline check of every seat's transcript.
fn verdicts(p: &Pair<Duo>) -> Vec<Verdict> {
    let mut out: Vec<Verdict> = p.sessions.iter().map(|s| s.verdict()).collect();
    for seat in 0..2u8 {
        let file = TranscriptFile::from_bytes(&p.transcript(Seat(seat))).expect("readable");
        out.push(check::<Duo>(&file).expect("checked").1.verdict);
    }
    out
}

#[test]
fn an_honest_game_between_the_two_alone_verifies_everywhere() {
    for seed in [3u64, 4] {
        let (p, table) = play(8, seed, |_| {});
        assert!(all_done(&p), "seed {seed}: the game did not finish");
        let t = table.borrow();
        println!(
            "seed {seed}: {} computations, {} messages, {} MB",
            t.computations,
            t.messages.len(),
            t.messages.iter().map(Vec::len).sum::<usize>() / 1_000_000
        );
        for v in verdicts(&p) {
            assert_eq!(v.status, Status::Verified, "seed {seed}: {v:#?}");
            assert!(v.faults.is_empty());
            assert!(v.outcome.is_some());
        }
    }
}

/// Every seat and the offline check find `culprit`, and only him, at fault with a
/// game-rule finding saying `what`; he scores −10, the other 0.
fn proven(p: &Pair<Duo>, culprit: Seat, what: &str) {
    for v in verdicts(p) {
        assert_eq!(v.status, Status::ProvenFault, "{v:#?}");
        assert!(
            v.faults.iter().all(|f| f.seat == culprit),
            "{:#?}",
            v.faults
        );
        let f = v.faults.first().expect("a fault");
        assert_eq!(f.kind, FaultKind::GameRule);
        assert!(f.detail.contains(what), "{} should say {what:?}", f.detail);
        let o = v.outcome.expect("a result");
        let score = |s: Seat| o.results[s.index()];
        use sealed_protocol::outcome::SeatResult::Score;
        assert_eq!(score(culprit), Score(-10));
        assert_eq!(score(Seat(1 - culprit.0)), Score(0));
    }
}

/// A message changed by its sender before he hashed it — so his signed hash stands for
/// it — is a message his seed does not make: proven against him at that message, whoever
/// sent it and whatever it was (rows, transfers, a request, returned labels, decoded bits).
#[test]
fn a_message_the_seed_does_not_make_is_proven_against_its_sender() {
    // Messages: 2 base OTs, then 4 a computation (the start first); the second
    // attempt's computation starts at 2 + 4 * 2.
    for (at, culprit) in [
        (10u64, Seat(1)),
        (11, Seat(0)),
        (12, Seat(1)),
        (13, Seat(0)),
        (1, Seat(0)),
    ] {
        let (p, _) = play(6, 5, |t| {
            t.tamper = Box::new(move |i, bytes| {
                if i == at {
                    let n = bytes.len();
                    bytes[n / 2] ^= 0x04;
                }
            })
        });
        proven(&p, culprit, &format!("message {at} "));
    }
}

/// White's `Done` that claims a checkmate the move did not give.
#[test]
fn a_done_that_lies_is_proven_against_white() {
    let (p, _) = play(6, 7, |t| {
        t.lie = Box::new(|k, d| {
            if k >= 2 && d.made && d.ending.is_none() {
                d.ending = Some(sealed_games::stallmate::BoardEnd::Checkmate);
            }
        })
    });
    proven(&p, Seat(0), "told: move made true");
}

/// White's `Done` that says no move was made when one was: the public record and the
/// computation part; Black, reading his G2, sees it, halts, and the audit proves White.
#[test]
fn a_done_that_hides_a_move_is_caught_by_black_and_proven() {
    let mut hidden_at = None;
    let (p, _) = play(6, 27, |t| {
        t.lie = Box::new(move |k, d| {
            if hidden_at.is_none() && k >= 2 && d.made {
                hidden_at = Some(k);
                d.made = false;
                d.capture = false;
                d.ending = None;
            }
        })
    });
    let state = p.sessions[1].engine().state().expect("started");
    assert_eq!(
        state.halted,
        Some(sealed_games::chess::Color::Black),
        "{state:?}"
    );
    proven(&p, Seat(0), "told: move made true");
}

/// A mover who commits to something his seed does not open.
#[test]
fn a_commitment_that_opens_to_nothing_is_proven_against_its_mover() {
    // Computation 2 is Black's first attempt when White's first attempt made a move;
    // whichever it is, the mover of computation 2 is the culprit.
    let (p, _) = play(6, 9, |t| {
        t.commit_to = Some(Box::new(|run| (run == 2).then_some([0x55; 32])))
    });
    let culprit = mover_of(&p, 2);
    proven(&p, culprit, "opens to no attempt");
}

/// Who committed to the attempt of computation `run`.
fn mover_of(p: &Pair<Duo>, run: u64) -> Seat {
    use sealed_games::stallmate::duo::acts::{Act, decode};
    let e = p.sessions[0].engine();
    let mut computations = 0;
    for post in e.revealed().expect("over").public {
        match decode(&post.bytes) {
            Ok(Act::Attempt(_)) if computations == run => return post.seat,
            Ok(Act::Done(_)) => computations += 1,
            _ => {}
        }
    }
    panic!("no commitment for computation {run}");
}

/// A walk-away at every act of the first computations — each message, each commitment —
/// is lost on time by whoever owed it, once the witness's ledgers prove the hour passed:
/// −10 for him, 0 for the other, and the other's verdict says so.
#[test]
fn a_walk_away_at_any_act_is_lost_on_time_by_whoever_owed_it() {
    let mut walkers = [0; 2];
    for cut in 0..16u64 {
        let (p, walker) = walk_away(cut, 21);
        walkers[walker.index()] += 1;
        let other = Seat(1 - walker.0);
        let v = p.sessions[other.index()].verdict();
        let o = v
            .outcome
            .as_ref()
            .unwrap_or_else(|| panic!("cut {cut}: {v:#?}"));
        use sealed_protocol::outcome::SeatResult::Score;
        assert_eq!(o.results[walker.index()], Score(-10), "cut {cut}: {v:#?}");
        assert_eq!(o.results[other.index()], Score(0), "cut {cut}");
        assert!(v.faults.is_empty(), "cut {cut}: {:#?}", v.faults);
        assert!(
            v.verified,
            "cut {cut}: the walker's loss stands whatever he hides: {v:#?}"
        );
    }
    // Both sides owed something among those acts.
    assert!(walkers.iter().all(|n| *n > 0), "{walkers:?}");
}

/// A player who halts an honest game: his halt is the fault.
#[test]
fn a_halt_with_nothing_false_before_it_is_the_halters_fault() {
    // Black, owing E2 of the second computation, halts instead.
    let (p, _) = play(6, 23, |t| {
        t.halt_at = Some(8);
    });
    proven(&p, Seat(1), "halted the game");
}

/// A player who plays to the end but, owing his setups — his seed among them — never
/// opens them: lost on time like any act left owed, once the witness proves the hour
/// passed. Whoever the game ended for, White (who opens first) or Black.
#[test]
fn a_player_who_never_opens_his_seed_loses_on_time() {
    use sealed_games::chess::Color;
    use sealed_games::stallmate::duo::Owed;
    for side in [Color::White, Color::Black] {
        let (p, walker) = walk_away_when(25, 6, |s| {
            s.engine().state().and_then(|st| st.owed()) == Some(Owed::Open(side))
        });
        assert_eq!(walker, sealed_games::stallmate::peer::seat(side));
        let other = Seat(1 - walker.0);
        let v = p.sessions[other.index()].verdict();
        let o = v.outcome.as_ref().expect("a result");
        use sealed_protocol::outcome::SeatResult::Score;
        assert_eq!(o.results[walker.index()], Score(-10), "{v:#?}");
        assert_eq!(o.results[other.index()], Score(0), "{v:#?}");
        assert!(v.verified, "{v:#?}");
        assert!(v.faults.is_empty(), "{v:#?}");
    }
}

/// A player who signs the `Open` act without opening his setups in its envelope: the
/// act is refused by every seat's engine, a proven fault against him.
#[test]
fn an_open_act_without_the_setups_is_his_proven_fault() {
    use sealed_games::chess::Color;
    use sealed_games::stallmate::duo::Owed;
    use sealed_games::stallmate::duo::acts::{Act, encode};
    use sealed_protocol::body::Item;
    let (mut p, _, cheat) = reach(29, 6, |s| {
        s.engine().state().and_then(|st| st.owed()) == Some(Owed::Open(Color::White))
    });
    let env = p.forge(cheat, vec![Item::Act(encode(&Act::Open))]);
    p.inject(&env);
    for v in [p.sessions[0].verdict(), p.sessions[1].verdict()] {
        assert!(
            v.faults
                .iter()
                .any(|f| f.seat == cheat && f.kind == FaultKind::IllegalAct),
            "{v:#?}"
        );
        assert!(v.faults.iter().all(|f| f.seat == cheat), "{v:#?}");
    }
}

/// The acts of `p`'s game (seat 0's view), decoded.
fn acts_of(p: &Pair<Duo>) -> Vec<sealed_games::stallmate::duo::acts::Act> {
    use sealed_games::stallmate::duo::acts::decode;
    let e = p.sessions[0].engine();
    let r = e.revealed().expect("over");
    r.public
        .iter()
        .filter_map(|a| decode(&a.bytes).ok())
        .collect()
}

/// A sender who signs a message's hash and never sends the bytes cannot make the
/// receiver owe the next message: the receiver says he lacks it, the sender owes it to
/// the witness, the receiver opens it there, and the game ends as the honest one does,
/// no fault — whichever message it was (a base transfer, G1, E2, a G2 that ends the start
/// or a move).
#[test]
fn a_withheld_message_is_taken_from_the_witness_and_the_game_ends_as_without() {
    use sealed_games::stallmate::duo::acts::Act;
    let (honest, _) = play(6, 31, |_| {});
    let want = honest.sessions[0].verdict().outcome.expect("over");
    for at in [1u64, 3, 4, 5, 13] {
        let (p, _) = play(6, 31, |t| t.withhold = Some(at));
        assert!(all_done(&p), "message {at}: the game did not finish");
        for v in verdicts(&p) {
            assert_eq!(v.status, Status::Verified, "message {at}: {v:#?}");
            assert!(v.faults.is_empty(), "message {at}: {v:#?}");
            assert_eq!(v.outcome.as_ref(), Some(&want), "message {at}");
        }
        let acts = acts_of(&p);
        assert_eq!(acts.iter().filter(|a| **a == Act::Lacking).count(), 1);
        let deposits = acts.iter().filter(|a| matches!(a, Act::Deposited(_)));
        assert_eq!(deposits.count(), 1, "message {at}");
    }
}

/// A sender who, told his message is lacked, leaves nothing with the witness: his wait,
/// lost on time once the witness's ledgers prove the hour passed — never the receiver's.
#[test]
fn a_sender_who_withholds_and_never_deposits_loses_on_time() {
    use sealed_games::stallmate::duo::Owed;
    for at in [3u64, 5] {
        let (p, walker) = walk_away_rigged(
            33,
            6,
            |t| {
                t.withhold = Some(at);
                t.deposit = Deposit::Never;
            },
            |s| s.engine().state().and_then(|st| st.owed()) == Some(Owed::Deposit(at)),
        );
        assert_eq!(walker, Seat(0), "White sent message {at}");
        let v = p.sessions[1].verdict();
        let o = v.outcome.as_ref().expect("a result");
        use sealed_protocol::outcome::SeatResult::Score;
        assert_eq!(o.results[0], Score(-10), "message {at}: {v:#?}");
        assert_eq!(o.results[1], Score(0), "message {at}: {v:#?}");
        assert!(v.verified && v.faults.is_empty(), "message {at}: {v:#?}");
    }
}

/// A sender who leaves something else with the witness — other bytes, or the message
/// sealed so that the receiver cannot open it: the receiver halts, and the audit proves
/// the deposit false against the sender, not the halt against the receiver.
#[test]
fn a_false_deposit_is_proven_against_its_sender() {
    for (deposit, at, culprit) in [
        (Deposit::Other, 3u64, Seat(0)),
        (Deposit::ToHimself, 5, Seat(0)),
        (Deposit::Other, 4, Seat(1)),
    ] {
        let (p, _) = play(6, 35, |t| {
            t.withhold = Some(at);
            t.deposit = deposit;
        });
        let state = p.sessions[0].engine().state().expect("started");
        assert_eq!(
            state.halted.map(sealed_games::stallmate::peer::seat),
            Some(Seat(1 - culprit.0)),
            "{deposit:?} at {at}: the receiver halts"
        );
        proven(
            &p,
            culprit,
            &format!("message {at} of the computations that the other"),
        );
    }
}

/// What a table reads of the public acts, to compare.
type Read = (
    Vec<([u8; 32], sealed_protocol::ids::EnvRef)>,
    Vec<(
        u64,
        sealed_games::chess::Color,
        [u8; 32],
        sealed_protocol::ids::EnvRef,
    )>,
    Vec<(
        u64,
        sealed_games::stallmate::duo::acts::Done,
        sealed_protocol::ids::EnvRef,
    )>,
    Option<(sealed_games::chess::Color, sealed_protocol::ids::EnvRef)>,
    Vec<(u64, [u8; 32], sealed_protocol::ids::EnvRef)>,
);

fn read(p: &Posted) -> Read {
    (
        p.steps.clone(),
        p.commitments.clone(),
        p.dones.clone(),
        p.halt,
        p.deposits.clone(),
    )
}

/// A player reads the public acts on from where he stopped (`Posted::follow`, so that
/// an attempt's cost does not grow with the game): at every step of a game, what he has
/// read is what reading the whole main line gives; and a line that does not start with
/// what was read (another game's, here) is read again from its start.
#[test]
fn the_acts_read_on_are_the_acts_read_whole() {
    let mut posted = [Posted::default(), Posted::default()];
    let mut checks = 0;
    let (_, _) = play_until(
        6,
        3,
        |_| {},
        |_| {},
        |p| {
            for (i, s) in p.sessions.iter().enumerate() {
                posted[i].follow(s.engine());
                assert_eq!(read(&posted[i]), read(&Posted::of_engine(s.engine())));
                checks += 1;
            }
            all_done(p)
        },
    );
    assert!(checks > 50, "{checks} steps");
    assert!(!posted[0].dones.is_empty());
    let (other, _) = play(4, 4, |_| {});
    let e = other.sessions[0].engine();
    posted[0].follow(e);
    assert_eq!(read(&posted[0]), read(&Posted::of_engine(e)));
}
