//! Attacks on time results (protocol version 2, spec/PROTOCOL.md §17), each by a player
//! or a witness that wants to win or frame, and each beaten: a stamp never dates a
//! public envelope, an envelope that discharges nothing restarts no wait, a Secret
//! Stallmate attempt counts only if the referee could have had it, and a victim can
//! post the witness's statements that contradict a forfeit's — then no time result
//! stands. Every test here failed on the first draft of version 2 (issue 28).

use sealed_conformance::forfeit_kit::{game, known, stalled};
use sealed_conformance::scenarios::{A, B};
use sealed_conformance::stallmate_witness::withheld_attempts;
use sealed_conformance::time_attacks::{
    dangling_acknowledgement, future_dated_ledger, late_acceptance, noop_before_the_deadline,
    prestamped,
};
use sealed_games::variant::check_transcript;
use sealed_protocol::body::{Claim, ClaimKind, Item};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::Seat;
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::verdict::ClaimAbout;
use sealed_protocol::witness::{Stamp, Statement};

/// B, silent at its turn, sends something that is not its move a minute before its
/// deadline — a draw accepted with no offer standing, a draw offer, a timeout claim,
/// an empty statements item — and the witness holds it. An hour and a millisecond after
/// the step B owed an answer to, A's forfeit stands: what B sent changed nothing.
#[test]
fn an_envelope_that_discharges_nothing_restarts_no_wait() {
    let noops = [
        vec![Item::AcceptDraw],
        vec![Item::OfferDraw],
        vec![Item::Claim(Claim {
            against: A,
            kind: ClaimKind::Timeout,
        })],
        vec![Item::Statements(vec![])],
    ];
    for body in noops {
        let p = noop_before_the_deadline(body.clone());
        let c = check_transcript(&p.transcript(A)).expect("readable");
        let o = c.verdict.outcome.clone().expect("a result");
        assert_eq!(o.reason, "seat 1 lost on time", "{body:?}");
        assert!(c.verdict.faults.is_empty(), "{:#?}", c.verdict.faults);
        assert_eq!(c.exit_code(), 0, "{body:?}: {:#?}", c.verdict);
    }
}

/// B lets his time run out with A's draw offer standing; A's forfeit stands; B, who
/// never saw it, accepts the draw. The two endings are concurrent, yet the loss on time
/// stays a loss for every holder of the record, whatever it holds (§8.14): the
/// acceptance was made after the silent ledger. (A draw on draft 8, issue 53.)
#[test]
fn a_loss_on_time_stays_a_loss_whatever_the_late_player_signs() {
    let p = late_acceptance();
    for seat in [A, B] {
        let c = check_transcript(&p.transcript(seat)).expect("readable");
        let o = c.verdict.outcome.clone().expect("a result");
        assert_eq!(o.reason, "seat 1 lost on time", "seat {seat:?}'s file");
        assert_eq!(o.results, vec![SeatResult::Win, SeatResult::Loss]);
        assert!(c.verdict.faults.is_empty(), "{:#?}", c.verdict.faults);
    }
    // Both endings are in the record: the acceptance was taken, and left out.
    let e = p.sessions[A.index()].engine();
    assert_eq!(e.forfeits().len(), 1);
    assert!(
        e.stored()
            .0
            .iter()
            .any(|s| s.unsigned().seat == B && s.unsigned().body.contains(&Item::AcceptDraw)),
        "Black's late acceptance is in White's record"
    );
}

/// A, the mover, has the witness stamp his move's hash before he sends the move, then
/// delivers it only once B's hour counted from that stamp has passed. The stamp dates
/// nothing public: B's wait starts when the witness held the move, and A's forfeit is
/// his own fault.
#[test]
fn a_stamp_never_back_dates_a_public_move() {
    let p = prestamped();
    for seat in [A, B] {
        let c = check_transcript(&p.transcript(seat)).expect("readable");
        let faults: Vec<_> = c
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
        assert!(
            c.verdict.faults[0]
                .detail
                .contains("no ledger after the deadline"),
            "{}",
            c.verdict.faults[0].detail
        );
    }
}

/// B sends, in time, an envelope that acknowledges an envelope of A's that does not
/// exist: nobody can process it, the witness never holds it, and A's forfeit stands —
/// verified, with no claim against A for the envelope B made up.
#[test]
fn an_envelope_nobody_can_process_answers_nothing() {
    let p = dangling_acknowledgement();
    let c = check_transcript(&p.transcript(A)).expect("readable");
    assert!(c.verdict.faults.is_empty(), "{:#?}", c.verdict.faults);
    assert_eq!(
        c.verdict.outcome.clone().expect("a result").reason,
        "seat 1 lost on time"
    );
    assert_eq!(c.exit_code(), 0, "{:#?}", c.verdict);
    assert!(
        c.verdict.claims.iter().all(|c| !c.open),
        "{:#?}",
        c.verdict.claims
    );
}

/// The witness, in league with A, signs a ledger dated far in the future that lacks
/// B's answer, and A posts it as a forfeit. B holds the witness's ledger dating that
/// answer (it asked after its move) and its session posts it in its defence: the
/// witness contradicted itself, so no time result stands — no loss on time for B, and
/// no result at all.
#[test]
fn the_victim_posts_the_witness_contradiction_and_no_time_result_stands() {
    let p = future_dated_ledger();
    for seat in [A, B] {
        let c = check_transcript(&p.transcript(seat)).expect("readable");
        assert!(c.verdict.outcome.is_none(), "{seat}: {:#?}", c.verdict);
        assert!(c.verdict.faults.is_empty(), "{:#?}", c.verdict.faults);
        assert_eq!(c.exit_code(), 3);
        assert!(
            c.verdict
                .claims
                .iter()
                .any(|c| c.about == ClaimAbout::WitnessLied && c.open),
            "{:#?}",
            c.verdict.claims
        );
    }
}

/// Black attempts in his period, but neither sends the attempts to the referee nor
/// leaves them with the witness (he has something else stamped in their place), and
/// publishes them after the end: they were never where the referee could have had
/// them, so they do not count, and the period passed without a move is his loss on
/// time (−10 / 0).
#[test]
fn a_stallmate_attempt_the_referee_could_not_have_had_does_not_count() {
    for seed in [3, 4] {
        let p = withheld_attempts(seed);
        let c = check_transcript(&p.transcript(Seat(0))).expect("readable");
        assert!(c.verdict.faults.is_empty(), "{:#?}", c.verdict.faults);
        let o = c.verdict.outcome.clone().expect("a result");
        assert_eq!(o.reason, "seat 1 lost on time", "seed {seed}: {o:?}");
        assert_eq!(
            o.results,
            vec![SeatResult::Score(0), SeatResult::Score(-10)]
        );
        assert_eq!(c.exit_code(), 0);
    }
}

/// A stamp of a hash that is no deposit of the envelope (its bare hash, as the first
/// draft stamped) dates nothing.
#[test]
fn a_stamp_of_an_envelopes_bare_hash_dates_nothing() {
    let p = stalled();
    let head = known(&p, A)[0].head;
    let st = [Statement::Stamp(Stamp {
        game: game(&p),
        deposit: head,
        at: 7,
    })];
    assert_ne!(head, Hash::ZERO);
    assert_eq!(
        sealed_protocol::witness::time_of(&st, sealed_protocol::ids::ChainId::public(A), 0),
        None
    );
}
