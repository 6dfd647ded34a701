//! Secret Stallmate in the witness's time (protocol version 2, spec/GAMES.md §5.14):
//! periods and attempts placed by the witness's stamps, posted by every seat before it
//! closes. A period that passes without a move is then a proven forfeit (−10 / 0);
//! every way the proof could be bent — a late "yes", an attempt in time left out of the
//! seal, a witness that contradicts itself, a forged stamp — is caught, and the honest
//! side never loses by it. The scenarios are the kit's (`stallmate_witness`), shared
//! with spec/vectors/transcript-stallmate-forfeit.json.

// The table tests' PGN reader (tests/tests/table/pgn_read.rs and pgn_replay.rs); this
// test uses one variant's part of it.
#[path = "table/pgn_read.rs"]
mod pgn_read;
#[allow(dead_code)]
#[path = "table/pgn_replay.rs"]
mod pgn_replay;

use sealed_conformance::pair::{Pace, Pair};
use sealed_conformance::stallmate_kit::{REFEREE, deciders, quick};
use sealed_conformance::stallmate_witness::{
    TestWitness, careless_referee, contradicting, forged_stamp, late_attempts, left_out,
    run_witnessed, slow_referee, walk_away, walker, witnessed_trio,
};
use sealed_games::stallmate::peer::{Stallmate, period_log};
use sealed_protocol::body::Item;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::verdict::{Status, Verdict};

const WHITE: Seat = Seat(0);
const BLACK: Seat = Seat(1);

fn scores(v: &Verdict) -> Option<Vec<SeatResult>> {
    v.outcome.as_ref().map(|o| o.results.clone())
}

fn lost_on_time(v: &Verdict, seat: Seat) {
    assert!(v.faults.is_empty(), "{:#?}", v.faults);
    let o = v.outcome.as_ref().expect("a result");
    assert_eq!(o.reason, format!("{seat} lost on time"), "{o:?}");
    let mut want = vec![SeatResult::Score(0), SeatResult::Score(0)];
    want[seat.index()] = SeatResult::Score(-10);
    assert_eq!(o.results, want);
}

/// Plays a witnessed game of `plies` with the honest deciders of `seed`, the referee
/// `referee` if given, to the end: every seat verified, no fault, no one out of time,
/// and every seat's stamps posted.
fn plays_clean(
    seed: u64,
    plies: u32,
    referee: Option<sealed_conformance::pair::DecideAt<Stallmate>>,
) {
    let mut p = witnessed_trio(&quick(plies), seed);
    let mut w = TestWitness::of(&p);
    let mut d = deciders(seed);
    if let Some(r) = referee {
        d[2] = r;
    }
    assert!(
        run_witnessed(&mut p, &mut w, &mut d),
        "seed {seed}: not done"
    );
    for s in &p.sessions {
        let v = s.verdict();
        assert!(v.faults.is_empty(), "seed {seed}: {:#?}", v.faults);
        assert_eq!(v.status, Status::Verified, "seed {seed}: {v:#?}");
        assert_eq!(s.engine().stamped_by(), vec![WHITE, BLACK, REFEREE]);
        assert!(s.engine().audit().out_of_time.is_none(), "seed {seed}");
        assert!(
            !v.outcome
                .as_ref()
                .is_some_and(|o| o.reason.contains("on time")),
            "seed {seed}: {v:#?}"
        );
    }
}

#[test]
fn an_honest_witnessed_game_verifies_and_every_seat_posts_its_stamps() {
    for seed in [1, 2, 3] {
        plays_clean(seed, 30, None);
    }
}

#[test]
fn a_player_who_walks_away_from_his_period_loses_on_time_proven_by_the_stamps() {
    let p = walk_away(3);
    for s in &p.sessions {
        let v = s.verdict();
        lost_on_time(&v, BLACK);
        // Its PGN reads back in a PGN reader, every move, with the verdict's result
        // (issue 55).
        let game = sealed_games::stallmate::table::hidden_game(s.engine()).expect("the game");
        let pgn = sealed_games::stallmate::pgn::of_game(
            &game,
            s.engine().terms(),
            sealed_protocol::session::AnySession::timeline(s).started,
            v.outcome.as_ref(),
        );
        let read = pgn_read::read(&pgn).unwrap_or_else(|e| panic!("{e}\n{pgn}"));
        assert_eq!(read.result, pgn_replay::token(v.outcome.as_ref()), "{pgn}");
        pgn_replay::check_stallmate(&read, &game).unwrap_or_else(|e| panic!("{e}\n{pgn}"));
        assert_eq!(v.status, Status::Verified, "{v:#?}");
        assert!(
            s.engine()
                .audit()
                .out_of_time
                .is_some_and(|l| l.seat == BLACK && l.why.contains("witness's time"))
        );
    }
}

#[test]
fn a_walker_who_never_comes_back_loses_on_time_and_blocks_nobody() {
    let mut p = witnessed_trio(&quick(30), 4);
    let mut w = TestWitness::of(&p);
    let mut d = walker(4, 2);
    // Black goes offline for good once the game is over: no reveal, no stamps, no
    // close. The referee's publication shows his army; the others finish.
    while !p.sessions[REFEREE.index()].engine().is_over() {
        w.serve(&mut p);
        p.round(3, |i, s, now| d[i](s, now), Pace::Clocked(50));
    }
    p.silence(BLACK);
    d[1] = Box::new(|_, _| None);
    w.deaf_to.push(BLACK);
    let done = |p: &Pair<Stallmate>| {
        [WHITE, REFEREE].iter().all(|s| {
            matches!(
                p.sessions[s.index()].phase(),
                sealed_protocol::session::Phase::Done(_)
            )
        })
    };
    for _ in 0..20_000 {
        if done(&p) {
            break;
        }
        w.serve(&mut p);
        p.round(3, |i, s, now| d[i](s, now), Pace::Clocked(50));
    }
    assert!(done(&p), "White and the referee finish without Black");
    for s in [WHITE, REFEREE] {
        let v = p.sessions[s.index()].verdict();
        lost_on_time(&v, BLACK);
        assert_eq!(v.status, Status::Verified, "{v:#?}");
        assert!(v.missing_reveals.contains(&BLACK));
    }
}

#[test]
fn an_attempt_stamped_after_its_period_goes_unanswered_and_the_period_is_a_forfeit() {
    let p = late_attempts(5, None);
    for s in &p.sessions {
        // The referee's seal covers the late attempt and leaves it unanswered: not his
        // fault, it never counted.
        lost_on_time(&s.verdict(), BLACK);
    }
}

/// A referee who answers an attempt stamped after its period "yes" (giving the mover
/// time he did not have) lies: the audit names him, and there is no result.
#[test]
fn a_yes_to_an_attempt_stamped_after_its_period_is_the_referees_lie() {
    let p = late_attempts(5, Some(careless_referee()));
    let v = p.sessions[WHITE.index()].verdict();
    assert_eq!(v.outcome, None, "{v:#?}");
    assert!(
        v.faults.iter().any(|f| f.seat == REFEREE
            && f.kind == FaultKind::GameRule
            && f.detail.contains("after the period's end")),
        "{:#?}",
        v.faults
    );
    assert!(
        v.faults.iter().all(|f| f.seat == REFEREE),
        "{:#?}",
        v.faults
    );
}

/// The referee seals Black's period without the attempt Black made (and had stamped)
/// in time — it never reached him. That is the referee's silence, a claim against him:
/// the close's forfeit is not proven, and Black does not lose.
#[test]
fn an_attempt_stamped_in_time_left_out_of_the_seal_is_no_forfeit() {
    let p = left_out(6);
    let black_log = ChainId {
        log: period_log(3),
        seat: BLACK,
    };
    assert!(
        p.sessions[BLACK.index()].engine().processed(black_log) > 0,
        "Black attempted in period 3"
    );
    let v = p.sessions[WHITE.index()].verdict();
    assert!(v.faults.is_empty(), "{:#?}", v.faults);
    assert_eq!(v.outcome, None, "{v:#?}");
    assert!(
        v.board
            .as_ref()
            .is_some_and(|b| b.reason.contains("forfeit by black")),
        "{v:#?}"
    );
    assert!(
        p.sessions[WHITE.index()]
            .engine()
            .audit()
            .out_of_time
            .is_none()
    );
}

/// A witness that gives one envelope two times has lied: no time result stands, and
/// the forfeit is the referee's word again (a claim, no result); nobody is at fault.
#[test]
fn a_witness_that_contradicts_itself_leaves_no_time_result() {
    let p = contradicting(3);
    for s in &p.sessions {
        let v = s.verdict();
        assert!(v.faults.is_empty(), "{:#?}", v.faults);
        assert_eq!(v.outcome, None, "{v:#?}");
        assert!(s.engine().times().is_none());
    }
}

/// A stamp not signed by the game's witness is its poster's fault; the honest side
/// keeps its result.
#[test]
fn a_forged_stamp_is_the_posters_fault() {
    let p = forged_stamp(7);
    let v = p.sessions[BLACK.index()].verdict();
    assert!(
        v.faults
            .iter()
            .any(|f| f.seat == WHITE && f.kind == FaultKind::FalseStatement),
        "{:#?}",
        v.faults
    );
    assert_eq!(
        scores(&v),
        Some(vec![SeatResult::Score(-10), SeatResult::Score(0)])
    );
}

/// Stamps need a witness named in the terms (version 2): a version 1 envelope carrying
/// them is no version 1 envelope, refused before any engine judges it
/// (spec/PROTOCOL.md §17).
#[test]
fn stamps_without_a_witness_are_refused_in_version_1() {
    let mut p = sealed_conformance::stallmate_kit::trio(&quick(30), 2);
    let mut d = deciders(2);
    assert!(p.run_clocked(&mut d, 50, |p| {
        p.sessions[REFEREE.index()]
            .engine()
            .state()
            .is_some_and(|s| s.period >= 2)
    }));
    let env = p.forge(WHITE, vec![Item::Statements(vec![])]);
    let terms = p.sessions[BLACK.index()].engine().terms().clone();
    assert_eq!(
        sealed_protocol::envelope::Signed::parse(&terms, &env.bytes).unwrap_err(),
        sealed_protocol::envelope::EnvelopeError::Version2Item
    );
    let before = p.sessions[BLACK.index()].verdict();
    p.inject(&env);
    p.deliver_all();
    assert_eq!(p.sessions[BLACK.index()].verdict().faults, before.faults);
}

/// A referee who takes most of a period to answer each attempt (crashed and back, or
/// stalling for the opponent) cannot run a mover out of time: each wait for his answer
/// pushes the period's end back, so every mover still finds his move and the game
/// verifies with no forfeit.
#[test]
fn a_slow_referee_never_runs_a_mover_out_of_time() {
    for seed in [1, 2] {
        plays_clean(seed, 12, Some(slow_referee(700)));
    }
}
