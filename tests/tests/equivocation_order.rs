//! Two envelopes at one place of a chain, in either order: one of them acknowledging an
//! envelope that does not exist (it waits, unprocessable), the other one that links. The
//! receiver proves the equivocation and the game is over, whichever came first — before
//! the fix the engine panicked when the waiting one came first (found by the adversarial
//! simulation, seed 61: a dangling envelope and the cheater's own node's envelope at the
//! same place).

use sealed_conformance::forfeit_kit::stalled;
use sealed_conformance::pair::Pair;
use sealed_conformance::scenarios::{A, B};
use sealed_games::duel::Duel;
use sealed_protocol::body::Item;
use sealed_protocol::envelope::Ack;
use sealed_protocol::fault::FaultKind;
use sealed_protocol::hash::Hash;
use sealed_protocol::ids::ChainId;

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
