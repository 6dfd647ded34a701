//! A command the engine would judge a fault of this seat's is refused, nothing is sent,
//! and the session is as it was: the session judges its envelope with its engine
//! itself and undoes what it tried (`Session::send_all`), where it once tried a copy.
//! The next honest act takes the same position and the game verifies.

use sealed_conformance::duel_kit::duel_terms;
use sealed_conformance::pair::sent;
use sealed_conformance::sim::test_key;
use sealed_games::duel::Duel;
use sealed_protocol::session::{Command, Refusal, Session, SessionError};
use sealed_protocol::transcript::TranscriptFile;

fn exchange(a: &mut Session<Duel>, b: &mut Session<Duel>, t: u64) {
    loop {
        let to_b = sent(a);
        let to_a = sent(b);
        if to_a.is_empty() && to_b.is_empty() {
            return;
        }
        for e in to_b {
            b.handle_envelope(&e, t).unwrap();
        }
        for e in to_a {
            a.handle_envelope(&e, t).unwrap();
        }
    }
}

#[test]
fn a_refused_act_leaves_the_session_as_it_was_and_play_goes_on() {
    let terms = duel_terms(&Duel::default(), 3);
    let mut a = Session::<Duel>::new(terms.clone(), test_key(0), [1; 32], 0).unwrap();
    let mut b = Session::<Duel>::new(terms, test_key(1), [2; 32], 0).unwrap();
    let t = 1;
    exchange(&mut a, &mut b, t);
    b.handle_command(Command::Accept, t).unwrap();
    exchange(&mut a, &mut b, t);
    let mover = if a.engine().to_act() == Some(a.seat()) {
        &mut a
    } else {
        &mut b
    };
    assert_eq!(
        mover.engine().to_act(),
        Some(mover.seat()),
        "someone is to act"
    );
    let before = TranscriptFile::from_engine(mover.engine()).to_bytes();
    let verdict = mover.verdict();
    // Bytes that are no act of Duel: the engine judges them the mover's fault.
    let r = mover.handle_command(Command::act(vec![0xff; 9]), t);
    assert!(
        matches!(r, Err(SessionError::Refused(Refusal::Fault(_)))),
        "{r:?}"
    );
    assert!(sent(mover).is_empty(), "a refused act went out");
    assert_eq!(
        TranscriptFile::from_engine(mover.engine()).to_bytes(),
        before
    );
    assert_eq!(mover.verdict(), verdict);
    assert!(mover.engine().faults().is_empty());
    // The position the refused envelope would have taken is free: the mover resigns
    // there, and both seats see a clean loss.
    let loser = mover.seat();
    mover.handle_command(Command::Resign, t + 1).unwrap();
    exchange(&mut a, &mut b, t + 1);
    for s in [&a, &b] {
        let v = s.verdict();
        assert!(v.faults.is_empty(), "{v:#?}");
        assert!(s.engine().is_over());
        assert!(
            format!("{:?}", v.outcome).contains(&format!("{loser}")),
            "{v:#?}"
        );
    }
}
