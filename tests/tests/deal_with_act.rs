//! The deals a seat's own act makes it owe ride after the act in the act's envelope
//! (spec/PROTOCOL.md §11.1): in Tempête the mover refills the other hand at the end of
//! his turn, so the next mover has his card with the move, and a ply costs one envelope.

use sealed_protocol::body::Item;
use sealed_protocol::envelope::Envelope;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::TranscriptFile;

/// Each envelope's items, by kind, in a transcript.
fn bodies(bytes: &[u8]) -> Vec<Vec<Item>> {
    let file = TranscriptFile::from_bytes(bytes).expect("readable");
    let game = Terms::parse(&file.proposal).expect("terms").game();
    file.envelopes
        .iter()
        .map(|e| Envelope::decode(e, game).expect("envelope").unsigned.body)
        .collect()
}

#[test]
fn a_tempete_act_carries_the_deal_it_makes_due_and_no_deal_goes_alone_in_play() {
    for (_, bytes) in [
        sealed_conformance::vectors::tempete_v2_transcript(),
        sealed_conformance::vectors::tempete_transcript(),
    ] {
        let checked = sealed_games::variant::check_transcript(&bytes).expect("readable");
        assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
        let bodies = bodies(&bytes);
        let with_act = bodies
            .iter()
            .filter(|b| {
                let act = b.iter().position(|i| matches!(i, Item::Act(_)));
                act.is_some_and(|a| b[a + 1..].iter().any(|i| matches!(i, Item::Deal(_))))
            })
            .count();
        // Deals alone: only the opening deals go with the coin's opening, never alone.
        let alone = bodies
            .iter()
            .filter(|b| !b.is_empty() && b.iter().all(|i| matches!(i, Item::Deal(_))))
            .count();
        assert!(with_act > 10, "{with_act} acts carried their deals");
        assert_eq!(alone, 0, "deals sent alone in play");
    }
}
