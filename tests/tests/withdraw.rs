//! Withdrawal and signed names (protocol version 2, spec/PROTOCOL.md §17.14–§17.15): the
//! proposer takes a proposal back before it has seen an acceptance; an acceptance that
//! crossed it does not revive the game; a proposer who pretends not to have seen an
//! acceptance learns nothing by it; each seat that did not propose signs its own name.

use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{A, B, honest_pair};
use sealed_conformance::sim::test_key;
use sealed_games::duel::Duel;
use sealed_protocol::body::{Item, Purpose};
use sealed_protocol::envelope::{EnvelopeError, Signed, Unsigned};
use sealed_protocol::fault::FaultKind;
use sealed_protocol::ids::{ChainId, LogId, Seat};
use sealed_protocol::outcome::SeatResult;
use sealed_protocol::session::{Command, Phase, Refusal, SessionError};
use sealed_protocol::verdict::Status;

use sealed_conformance::withdraw_kit::{crossed, pair, withdrawn_after_acceptance};

/// The envelopes `seat` has signed in its public chain, as `viewer` holds them.
fn chain(p: &Pair<Duel>, viewer: Seat, seat: Seat) -> Vec<Signed> {
    let e = p.sessions[viewer.index()].engine();
    let n = e.processed(ChainId::public(seat));
    (0..n)
        .filter_map(|seq| {
            e.envelope(sealed_protocol::ids::EnvRef {
                chain: ChainId::public(seat),
                seq,
            })
            .cloned()
        })
        .collect()
}

fn opened_coin(envs: &[Signed]) -> bool {
    envs.iter().any(|e| {
        e.unsigned()
            .body
            .iter()
            .any(|i| matches!(i, Item::Open(o) if o.purpose == Purpose::Coin))
    })
}

/// Delivers until nothing is pending, with no decisions.
fn quiet(p: &mut Pair<Duel>) {
    while !p.pending.is_empty() {
        p.deliver();
    }
}

fn settle(p: &mut Pair<Duel>) {
    let mut d = honest_pair();
    p.run(&mut d);
}

/// Every seat's verdict: withdrawn, no game, verified, complete, no fault.
fn assert_withdrawn(p: &Pair<Duel>) {
    for s in &p.sessions {
        let v = s.verdict();
        assert!(v.withdrawn, "{v:#?}");
        assert!(!v.declined);
        assert_eq!(v.outcome, None, "{v:#?}");
        assert!(v.faults.is_empty(), "{v:#?}");
        assert_eq!(v.status, Status::Verified, "{v:#?}");
        assert!(v.complete, "{v:#?}");
    }
    // The offline check agrees, on either seat's file.
    for seat in [A, B] {
        let c = sealed_games::variant::check_transcript(&p.transcript(seat)).unwrap();
        assert_eq!(c.exit_code(), 0, "{:#?}", c.verdict);
        assert!(c.verdict.withdrawn);
    }
}

#[test]
fn a_proposal_withdrawn_before_anyone_answered_is_no_game_on_both_sides() {
    let mut p = pair(1);
    p.deliver();
    assert!(matches!(p.sessions[1].phase(), Phase::Decide(_)));
    p.sessions[0].handle_command(Command::Withdraw, 1).unwrap();
    p.collect();
    settle(&mut p);
    assert_withdrawn(&p);
    // The invitee can no longer accept: there is nothing to decide.
    assert!(
        p.sessions[1].phase().is_done(),
        "{:?}",
        p.sessions[1].phase()
    );
    assert!(p.sessions[1].handle_command(Command::Accept, 2).is_err());
}

#[test]
fn resigning_before_anyone_accepted_withdraws_instead_of_losing() {
    let mut p = pair(2);
    p.deliver();
    p.sessions[0].handle_command(Command::Resign, 1).unwrap();
    p.collect();
    settle(&mut p);
    assert_withdrawn(&p);
}

#[test]
fn an_acceptance_that_crossed_the_withdrawal_does_not_revive_the_game() {
    // Both at once: B accepts, A withdraws, neither has seen the other's. The acceptance
    // reaches A first, then the withdrawal reaches B: any order gives the same verdict,
    // since the withdrawal's own past decides.
    let p = crossed();
    assert_withdrawn(&p);
    // B showed nothing but its commitments while A was free to leave: its coin seed
    // waited for an envelope of A's that had seen the acceptance, and the first such
    // came after the withdrawal (the end's reveals, of a game that never was).
    for e in chain(&p, A, B)
        .iter()
        .filter(|e| opened_coin(std::slice::from_ref(e)))
    {
        let seen_of_a = e
            .unsigned()
            .acks
            .iter()
            .find(|k| k.chain == ChainId::public(A));
        assert!(
            seen_of_a.is_some_and(|k| k.seq >= 1),
            "B opened its coin before it had seen the withdrawal: {:?}",
            e.unsigned()
        );
    }
}

#[test]
fn the_acceptor_opens_its_coin_only_once_the_proposer_has_seen_the_acceptance() {
    let mut p = pair(4);
    p.deliver();
    p.sessions[1].handle_command(Command::Accept, 1).unwrap();
    p.collect();
    // B's acceptance is out; B has signed nothing else yet.
    assert_eq!(p.sessions[1].engine().processed(ChainId::public(B)), 1);
    p.deliver(); // A gets the acceptance and opens its coin, acknowledging it.
    assert!(opened_coin(&chain(&p, A, A)));
    assert!(!opened_coin(&chain(&p, B, B)));
    p.deliver(); // B sees A bound, and opens its own.
    assert!(opened_coin(&chain(&p, B, B)));
    // From here the proposer may no longer withdraw, and the game plays to its end.
    let r = p.sessions[0].handle_command(Command::Withdraw, 2);
    assert!(
        matches!(r, Err(SessionError::Refused(Refusal::Accepted(s))) if s == B),
        "{r:?}"
    );
    settle(&mut p);
    let v = p.sessions[0].verdict();
    assert!(!v.withdrawn && v.outcome.is_some(), "{v:#?}");
    assert_eq!(v.status, Status::Verified);
}

#[test]
fn a_withdrawal_signed_after_seeing_the_acceptance_is_the_proposers_fault() {
    // A holds B's acceptance; a cheating proposer signs, in place of its coin opening,
    // a withdrawal that acknowledges it.
    let p = withdrawn_after_acceptance();
    let v = p.sessions[1].verdict();
    assert!(!v.withdrawn, "{v:#?}");
    assert!(
        v.faults
            .iter()
            .any(|f| f.seat == A && f.kind == FaultKind::OutOfPhase),
        "{v:#?}"
    );
    assert_eq!(v.status, Status::ProvenFault);
    let o = v.outcome.expect("a result");
    assert_eq!(o.results, vec![SeatResult::Loss, SeatResult::Win]);
}

#[test]
fn a_proposer_who_pretends_not_to_have_seen_the_acceptance_withdraws_having_learned_nothing() {
    let mut p = pair(6);
    p.deliver();
    p.sessions[1].handle_command(Command::Accept, 1).unwrap();
    p.collect();
    let accept = p.pending.iter().find(|(to, _)| *to == A).unwrap().1.clone();
    p.pending.clear();
    // All A has of B is its acceptance: commitments, nothing opened.
    let b_sent = Signed::parse(p.sessions[0].engine().terms(), &accept).unwrap();
    assert!(
        b_sent
            .unsigned()
            .body
            .iter()
            .all(|i| matches!(i, Item::Accept | Item::Commit(_) | Item::Named(_)))
    );
    // A signs a withdrawal that acknowledges none of it: it stands (its past decides).
    let (seq, prev) = p.sessions[0].engine().chain_tip(ChainId::public(A));
    let terms = p.sessions[0].engine().terms().clone();
    let w = Unsigned {
        version: terms.version(),
        game: terms.game(),
        log: LogId::PUBLIC,
        seat: A,
        seq,
        prev,
        acks: vec![],
        clock: 2,
        body: vec![Item::Withdraw],
    }
    .sign(&test_key(0));
    p.inject(&w);
    p.sessions[0].handle_envelope(&accept, 2).unwrap();
    p.collect();
    settle(&mut p);
    assert_withdrawn(&p);
}

#[test]
fn only_the_proposer_withdraws_and_only_in_version_2() {
    let mut p = pair(7);
    p.deliver();
    p.sessions[1].handle_command(Command::Accept, 1).unwrap();
    let r = p.sessions[1].handle_command(Command::Withdraw, 1);
    assert!(
        matches!(r, Err(SessionError::Refused(Refusal::NotProposer))),
        "{r:?}"
    );
    // A forged withdrawal by the invitee is its fault.
    p.collect();
    quiet(&mut p);
    let w = p.forge(B, vec![Item::Withdraw]);
    p.inject(&w);
    let v = p.sessions[0].verdict();
    assert!(
        v.faults
            .iter()
            .any(|f| f.seat == B && f.kind == FaultKind::OutOfPhase)
    );
    assert!(!v.withdrawn);

    // Version 1 has no withdrawal: refused by the session, and an envelope carrying one
    // is no version 1 envelope.
    let mut v1 = sealed_conformance::scenarios::new_pair(8);
    v1.deliver();
    let r = v1.sessions[0].handle_command(Command::Withdraw, 1);
    assert!(
        matches!(r, Err(SessionError::Refused(Refusal::NoWithdrawal))),
        "{r:?}"
    );
    let w = v1.forge(A, vec![Item::Withdraw]);
    let e = Signed::parse(v1.sessions[1].engine().terms(), &w.bytes).unwrap_err();
    assert_eq!(e, EnvelopeError::Version2Item);
}

#[test]
fn each_seat_signs_its_own_name_and_a_name_elsewhere_is_a_fault() {
    let mut p = pair(9);
    p.deliver();
    p.sessions[1].set_name("bob the invitee"); // in place of the kit's "p1"
    p.sessions[1].handle_command(Command::Accept, 1).unwrap();
    p.collect();
    settle(&mut p);
    for s in &p.sessions {
        let e = s.engine();
        // The proposer's name is the one in the proposal it signed; B's is its own.
        assert_eq!(e.signed_name(A), Some("p0"));
        assert_eq!(e.signed_name(B), Some("bob the invitee"));
    }
    let c = sealed_games::variant::check_transcript(&p.transcript(A)).unwrap();
    assert_eq!(c.names[1].as_deref(), Some("bob the invitee"));

    // A name after the first envelope, or the proposer's, is out of phase.
    for seat in [A, B] {
        let mut q = pair(10 + u64::from(seat.0));
        q.deliver();
        q.sessions[1].handle_command(Command::Accept, 1).unwrap();
        q.collect();
        quiet(&mut q);
        let n = q.forge(seat, vec![Item::Named("mallory".into())]);
        q.inject(&n);
        let other = Seat(1 - seat.0);
        let v = q.sessions[other.index()].verdict();
        assert!(
            v.faults
                .iter()
                .any(|f| f.seat == seat && f.kind == FaultKind::OutOfPhase),
            "{v:#?}"
        );
        assert_ne!(
            q.sessions[other.index()].engine().signed_name(seat),
            Some("mallory")
        );
    }
    // Too long a name: over the body's limits.
    let mut q = pair(12);
    q.deliver();
    q.sessions[1].set_name(&"x".repeat(65)); // not signed: over 64 bytes
    q.sessions[1].handle_command(Command::Accept, 1).unwrap();
    q.collect();
    settle(&mut q);
    assert_eq!(q.sessions[0].engine().signed_name(B), None);
    assert!(sealed_protocol::body::check_limits(&[Item::Named("x".repeat(65))]).is_err());
}
