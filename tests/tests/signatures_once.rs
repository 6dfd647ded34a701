//! A signature is verified once per process (issue 34): bytes equal to an envelope a
//! seat holds are not verified again, on arrival (`Engine::insert`) or inside a proof
//! (`Proof::check_with`). What must still be refused is: the same envelope under a
//! signature that does not check, alone or in a proof.

use sealed_conformance::forfeit_kit::{pair, proposal};
use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{A, B, until_turn};
use sealed_games::duel::Duel;
use sealed_protocol::body::Item;
use sealed_protocol::engine::{InsertError, Inserted};
use sealed_protocol::envelope::{EnvelopeError, Signed};
use sealed_protocol::fault::{Fault, FaultKind};
use sealed_protocol::proof::Proof;
use sealed_protocol::session::AnySession;

/// A game some rounds in, every envelope delivered; B's last envelope as A holds it.
fn a_holds_bs_last() -> (Pair<Duel>, Signed) {
    let mut p = pair(proposal(&[]));
    until_turn(&mut p, B, 2);
    p.deliver_all();
    let (chains, _) = p.sessions[A.index()].engine().stored();
    let last = chains
        .into_iter()
        .filter(|e| e.at().chain.seat == B)
        .max_by_key(|e| e.at().seq)
        .expect("B has signed")
        .clone();
    (p, last)
}

fn with_bad_signature(bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let n = b.len();
    b[n - 1] ^= 0x40;
    b
}

#[test]
fn the_same_bytes_again_are_a_duplicate_and_change_nothing() {
    let (mut p, last) = a_holds_bs_last();
    let before = p.sessions[A.index()].envelopes().all();
    let r = p.sessions[A.index()].handle_envelope(&last.bytes, p.now);
    assert!(
        matches!(r, Ok(Inserted::Duplicate(at)) if at == last.at()),
        "{r:?}"
    );
    assert_eq!(p.sessions[A.index()].envelopes().all(), before);
}

#[test]
fn a_held_envelope_under_a_signature_that_does_not_check_is_refused() {
    let (mut p, last) = a_holds_bs_last();
    let before = p.sessions[A.index()].envelopes().all();
    let r = p.sessions[A.index()].handle_envelope(&with_bad_signature(&last.bytes), p.now);
    assert!(
        matches!(
            r,
            Err(sealed_protocol::session::SessionError::Insert(
                InsertError::Envelope(EnvelopeError::BadSignature(_))
            ))
        ),
        "{r:?}"
    );
    assert_eq!(p.sessions[A.index()].envelopes().all(), before);
}

/// A twin of B's last envelope, signed by B's key: another body at the same place.
fn twin_of(last: &Signed) -> Signed {
    let mut u = last.unsigned().clone();
    u.body = vec![Item::OfferDraw];
    Pair::<Duel>::sign(B, u)
}

/// A posts an equivocation proof of `first` and `second`; what B's judge finds.
fn posted_to_b(p: &mut Pair<Duel>, first: &[u8], second: &[u8]) -> (Signed, Vec<Fault>) {
    let proof = Proof::Equivocation {
        first: first.to_vec(),
        second: second.to_vec(),
    };
    let posted = p.forge(A, vec![Item::Evidence(proof)]);
    p.deliver_to(B, &posted);
    p.deliver_all();
    let faults = p.sessions[B.index()].engine().faults().to_vec();
    (posted, faults)
}

#[test]
fn a_proof_naming_a_held_envelope_under_a_spoiled_signature_is_false_evidence() {
    let (mut p, last) = a_holds_bs_last();
    // A true twin, and B's last envelope itself (its hash held by the judge) under a
    // signature that does not check.
    let twin = twin_of(&last);
    let (posted, faults) = posted_to_b(&mut p, &twin.bytes, &with_bad_signature(&last.bytes));
    assert!(
        faults
            .iter()
            .any(|f| f.seat == A && f.kind == FaultKind::FalseEvidence && f.at == posted.at()),
        "{faults:?}"
    );
    assert!(faults.iter().all(|f| f.seat == A), "{faults:?}");
}

#[test]
fn a_proof_of_held_envelopes_stands() {
    let (mut p, last) = a_holds_bs_last();
    let twin = twin_of(&last);
    let (_, faults) = posted_to_b(&mut p, &last.bytes, &twin.bytes);
    assert!(
        faults
            .iter()
            .any(|f| f.seat == B && f.kind == FaultKind::Equivocation),
        "{faults:?}"
    );
    assert!(faults.iter().all(|f| f.seat == B), "{faults:?}");
}
