//! One key on two nodes (a home copied to a second machine): the copy's session must not
//! sign an envelope at a position its own chain already holds from the other node — that
//! would be an equivocation, a fault of its own seat — and must not loop owing a step it
//! can never take. It refuses, and says why.

use sealed_conformance::duel_kit::duel_terms;
use sealed_conformance::pair::sent;
use sealed_conformance::sim::test_key;
use sealed_games::duel::Duel;
use sealed_protocol::session::{Command, Session, SessionError};

#[test]
fn a_copy_of_a_seat_never_signs_where_its_key_already_signed() {
    let terms = duel_terms(&Duel::default(), 7);
    let mut a = Session::<Duel>::new(terms.clone(), test_key(0), [1; 32], 0).unwrap();
    let mut b = Session::<Duel>::new(terms.clone(), test_key(1), [3; 32], 0).unwrap();
    let mut t = 1;
    for e in sent(&mut a) {
        b.handle_envelope(&e, t).unwrap();
    }
    b.handle_command(Command::Accept, t).unwrap();
    let mut to_a = sent(&mut b);
    for _ in 0..5 {
        t += 1;
        for e in &to_a {
            let _ = a.handle_envelope(e, t);
        }
        for e in sent(&mut a) {
            let _ = b.handle_envelope(&e, t);
        }
        to_a = sent(&mut b);
    }
    // Seat 0's home is copied: a twin with the same key, secrets and envelopes.
    let held = sealed_protocol::transcript::TranscriptFile::from_engine(a.engine()).envelopes;
    let secrets = a.secrets().clone();
    let mut twin = Session::<Duel>::restore(terms, test_key(0), secrets, &held, t).unwrap();
    assert!(sent(&mut twin).is_empty());
    // Seat 1 offers a draw; the original answers with an offer of its own, which the
    // twin receives without the envelope it acknowledges, so it waits.
    t += 1;
    b.handle_command(Command::OfferDraw, t).unwrap();
    for e in sent(&mut b) {
        a.handle_envelope(&e, t).unwrap();
    }
    a.handle_command(Command::OfferDraw, t).unwrap();
    let original = sent(&mut a);
    assert_eq!(original.len(), 1);
    twin.handle_envelope(&original[0], t + 1).unwrap();
    let seq = twin
        .engine()
        .processed(sealed_protocol::ids::ChainId::public(twin.seat()));
    // The twin is asked to resign: its envelope would take that very position.
    let before = sealed_protocol::transcript::TranscriptFile::from_engine(twin.engine()).to_bytes();
    let r = twin.handle_command(Command::Resign, t + 2);
    assert_eq!(r, Err(SessionError::PositionTaken(seq)));
    assert!(sent(&mut twin).is_empty(), "the twin sent something");
    // What it tried is undone: its engine holds what it held, and no fault of its own.
    let after = sealed_protocol::transcript::TranscriptFile::from_engine(twin.engine()).to_bytes();
    assert_eq!(before, after, "the refused envelope stayed in the engine");
    assert!(twin.engine().chain_faults().is_empty());
}
