//! Two envelopes at one place of a chain, in either order: one of them acknowledging an
//! envelope that does not exist (it waits, unprocessable), the other one that links. The
//! receiver proves the equivocation and the game is over, whichever came first — before
//! the fix the engine panicked when the waiting one came first (found by the adversarial
//! simulation, seed 61: a dangling envelope and the cheater's own node's envelope at the
//! same place).

use sealed_conformance::forfeit_kit::{pair, proposal, stalled};
use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{A, B, until_turn};
use sealed_games::duel::Duel;
use sealed_protocol::body::{Claim, ClaimKind, Item};
use sealed_protocol::envelope::Ack;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::ChainId;
use sealed_protocol::session::Command;

#[test]
fn an_unprocessable_twin_and_a_linking_one_prove_an_equivocation_in_either_order() {
    for dangling_first in [true, false] {
        let mut p = stalled();
        let mut u = p.forge(B, vec![Item::OfferDraw]).unsigned().clone();
        u.acks = vec![Ack {
            chain: ChainId::public(A),
            seq: 1000,
            hash: Hash([0xda; 32]),
        }];
        let dangling = Pair::<Duel>::sign(B, u);
        let linking = p.forge(B, vec![Item::AcceptDraw]);
        assert_eq!(dangling.at(), linking.at(), "one place");
        let (first, second) = if dangling_first {
            (&dangling, &linking)
        } else {
            (&linking, &dangling)
        };
        p.deliver_to(A, first);
        p.deliver_to(A, second);
        p.deliver_all();
        let e = p.sessions[A.index()].engine();
        assert!(
            e.faults()
                .iter()
                .any(|f| f.seat == B && f.kind == FaultKind::Equivocation),
            "dangling first: {dangling_first}: {:?}",
            e.faults()
        );
        assert!(e.is_over(), "dangling first: {dangling_first}");
    }
}

/// What a seat holds, in the order it lists it: every chain's envelopes, then the
/// envelopes held beside them.
fn held(p: &Pair<Duel>, seat: sealed_protocol::ids::Seat) -> (Vec<Hash>, Vec<Hash>) {
    let (chains, others) = p.sessions[seat.index()].engine().stored();
    (
        chains.iter().map(|e| e.hash).collect(),
        others.iter().map(|e| e.hash).collect(),
    )
}

/// A game over by a proof against B's key: B's key signs an envelope out of B's
/// session (a forger with B's key), the first of a private log B never wrote in,
/// naming a predecessor it cannot have. Only A receives it, proves the broken chain and
/// posts the proof; B takes A's proof, which brings the envelope beside B's chains,
/// never received. Both reveal and close. The forged envelope is returned.
fn over_by_a_proof_against_b() -> (Pair<Duel>, sealed_protocol::envelope::Signed) {
    let mut p = pair(proposal(&[]));
    until_turn(&mut p, B, 2);
    p.deliver_all();
    let mut u = p.forge(B, vec![Item::OfferDraw]).unsigned().clone();
    u.log = sealed_protocol::ids::LogId(2);
    u.seq = 0;
    u.prev = Hash([0xd2; 32]);
    u.acks = vec![];
    let broken = Pair::<Duel>::sign(B, u);
    p.deliver_to(A, &broken);
    p.deliver_all();
    let b = &p.sessions[B.index()];
    assert!(
        b.engine().is_over(),
        "B sees the proof against its key: {:?}; refused {:?}",
        b.engine().faults(),
        p.refused
    );
    assert_eq!(b.phase().name(), "done", "B revealed and closed");
    (p, broken)
}

/// B tries a claim, the one act a closed seat's session still tries in its engine,
/// which refuses it after the close; the session undoes it by a replay of what its
/// engine holds (`Engine::without`).
fn b_claims_and_is_refused(p: &mut Pair<Duel>) {
    let refused = p.sessions[B.index()].handle_command(
        Command::Claim(Claim {
            against: A,
            kind: ClaimKind::Timeout,
        }),
        p.now,
    );
    assert!(refused.is_err(), "B may not act after its close");
}

/// Found by the `session` fuzz target: before the fix the undo took the envelope a
/// proof brought as if received, into a chain of its own, so the refused act changed
/// what B held and the order it lists it in.
#[test]
fn a_refused_act_leaves_the_envelopes_a_proof_brought_where_they_were() {
    let (mut p, broken) = over_by_a_proof_against_b();
    let before = held(&p, B);
    assert!(
        before.1.contains(&broken.hash),
        "the proof's envelope is held beside the chains: {before:?}"
    );
    b_claims_and_is_refused(&mut p);
    assert_eq!(held(&p, B), before, "the refused act changed what B holds");
}

/// Found by the `session` fuzz target: two envelopes of B's key that do not link wait
/// at B's next place, one in it and one beside; B's own act there links and takes the
/// place. Before the fix the undo of that act gave the place to whichever of the two
/// sorts first, not to the one that held it.
#[test]
fn a_refused_act_gives_the_place_it_took_back_to_the_envelope_that_held_it() {
    for order in [[0x95u8, 0x6c], [0x6c, 0x95]] {
        let (mut p, _) = over_by_a_proof_against_b();
        for garbage in order {
            let mut u = p.forge(B, vec![Item::Resign]).unsigned().clone();
            u.prev = Hash([garbage; 32]);
            p.deliver_to(B, &Pair::<Duel>::sign(B, u));
        }
        let before = held(&p, B);
        b_claims_and_is_refused(&mut p);
        assert_eq!(
            held(&p, B),
            before,
            "{order:?}: the refused act changed what B holds"
        );
    }
}

/// Found by the `session` fuzz target (`sealed_conformance::twin_kit` has the case): A
/// proves B's two twins before it can follow either, then follows `X`, the one in the
/// place, and finds its act undecodable. A's file lists `X` in the place and carries
/// both proofs. Before the fix the checker processed each envelope of the file as it
/// took it in, by ascending seq: A's proof has a lower seq than `X`, so it came first
/// and brought both twins beside the chains, and the place went to whichever sorts
/// first by hash — `Y`: the checker never judged `X` and called A's fraud proof
/// unconfirmed (exit 2, not 1).
#[test]
fn a_checked_file_follows_its_own_twin_whatever_a_proof_inside_it_brings() {
    use sealed_games::variant::check_transcript;
    use sealed_protocol::envelope::Signed;
    let (p, x) = sealed_conformance::twin_kit::proof_before_its_twin();
    let a = p.sessions[A.index()].engine();
    let undecodable = |faults: &[sealed_protocol::fault::Fault]| {
        faults
            .iter()
            .any(|f| f.kind == FaultKind::UndecodableAct && f.at == x.at())
    };
    assert!(undecodable(a.faults()), "A judged X: {:?}", a.faults());
    assert!(
        a.faults()
            .iter()
            .any(|f| f.seat == B && f.kind == FaultKind::Equivocation),
        "A holds the equivocation: {:?}",
        a.faults()
    );
    let file = p.transcript(A);
    let proof_seq = sealed_protocol::transcript::TranscriptFile::from_bytes(&file)
        .expect("A's file")
        .envelopes
        .iter()
        .map(|e| Signed::parse(a.terms(), e).expect("signed"))
        .find(|s| {
            s.unsigned()
                .body
                .iter()
                .any(|i| matches!(i, Item::Evidence(_)))
        })
        .expect("A posted its proof")
        .unsigned()
        .seq;
    assert!(
        proof_seq < x.unsigned().seq,
        "the case: the proof sorts first"
    );
    let checked = check_transcript(&file).expect("readable");
    assert!(
        checked.unconfirmed_evidence.is_empty(),
        "A's file asserts only what it shows: {:?}",
        checked.unconfirmed_evidence
    );
    assert!(
        undecodable(&checked.verdict.faults),
        "the checker follows X: {:?}",
        checked.verdict.faults
    );
    assert_eq!(checked.exit_code(), 1, "a proven fault");
    assert!(checked.verdict.faults.iter().all(|f| f.seat == B));
}
