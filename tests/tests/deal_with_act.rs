//! The deals a seat's own act makes it owe ride after the act in the act's envelope
//! (spec/PROTOCOL.md §11.1): in Tempête the mover refills the other hand at the end of
//! his turn, so the next mover has his card with the move, and a ply costs one envelope.
//! A deal goes alone only when the other seat's envelope made it due (a card that has the
//! opponent discard and draw during his own turn): it then answers an envelope of the
//! other seat that the dealer's previous envelope had not seen.

use sealed_protocol::body::Item;
use sealed_protocol::envelope::Envelope;
use sealed_protocol::ids::ChainId;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::TranscriptFile;

/// Each envelope of a transcript, decoded.
fn envelopes(bytes: &[u8]) -> Vec<Envelope> {
    let file = TranscriptFile::from_bytes(bytes).expect("readable");
    let game = Terms::parse(&file.proposal).expect("terms").game();
    file.envelopes
        .iter()
        .map(|e| Envelope::decode(e, game).expect("envelope"))
        .collect()
}

/// How far an envelope has seen the other seats' chains: the highest acknowledged
/// position of each.
fn seen(e: &Envelope) -> Vec<(ChainId, u64)> {
    e.unsigned.acks.iter().map(|a| (a.chain, a.seq)).collect()
}

#[test]
fn a_tempete_act_carries_the_deal_it_makes_due_and_no_deal_goes_alone_in_play() {
    for (_, bytes) in [
        sealed_conformance::vectors::tempete_v2_transcript(),
        sealed_conformance::vectors::tempete_transcript(),
    ] {
        let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
        assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
        let envelopes = envelopes(&bytes);
        // A deal alone answers what the other seat sent since the dealer's envelope
        // before it: never a deal the dealer's own act made due.
        for e in &envelopes {
            let b = &e.unsigned.body;
            if b.is_empty() || !b.iter().all(|i| matches!(i, Item::Deal(_))) {
                continue;
            }
            let u = &e.unsigned;
            // What the dealer's chain had seen before it, whatever each envelope lists.
            let earlier: Vec<(ChainId, u64)> = envelopes
                .iter()
                .filter(|p| {
                    let p = &p.unsigned;
                    p.seat == u.seat && p.log == u.log && p.seq < u.seq
                })
                .flat_map(seen)
                .collect();
            let newer = seen(e).iter().any(|(chain, seq)| {
                earlier
                    .iter()
                    .filter(|(c, _)| c == chain)
                    .all(|(_, s)| seq > s)
            });
            assert!(
                newer,
                "seat {:?} sent a deal alone at {} that answers nothing new: its own act owed it",
                u.seat, u.seq
            );
        }
        let with_act = envelopes
            .iter()
            .filter(|e| {
                let b = &e.unsigned.body;
                let act = b.iter().position(|i| matches!(i, Item::Act(_)));
                act.is_some_and(|a| b[a + 1..].iter().any(|i| matches!(i, Item::Deal(_))))
            })
            .count();
        assert!(with_act > 10, "{with_act} acts carried their deals");
    }
}
