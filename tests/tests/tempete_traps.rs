//! Two traps a person sealed on one square (spec/GAMES.md §4.10): when an enemy piece
//! lands there, the turn he types opens the first only. Opening both was refused, and
//! every turn he typed with it (the node opens the traps that spring, whatever he types).

use sealed_conformance::pair::Pair;
use sealed_conformance::tempete_kit::{accepting, tempete_terms, typed};
use sealed_games::tempete::Tempete;
use sealed_games::tempete::holding::sealed_traps;
use sealed_games::tempete::rules::deck_name;
use sealed_protocol::ids::Seat;

const WHITE: Seat = Seat(0);
const BLACK: Seat = Seat(1);

#[test]
fn a_piece_landing_on_two_traps_is_taken_by_the_first_and_the_second_stays_sealed() {
    // An open-deck game whose White hand holds both trap cards (12 removes, 28 freezes).
    let options = [("cards", "1-8,12,28")];
    let mut p = (0..64u8)
        .map(|nonce| {
            let mut p = Pair::<Tempete>::new(tempete_terms(&options, nonce), u64::from(nonce));
            p.run(&mut accepting());
            p
        })
        .find(|p| {
            let hand: Vec<u32> = p.sessions[0]
                .hand(&deck_name())
                .into_iter()
                .map(|(_, n)| n)
                .collect();
            hand.contains(&12) && hand.contains(&28)
        })
        .expect("a deal with both trap cards in White's hand");
    typed(&mut p, WHITE, "card 12 trap e6 then e4");
    typed(&mut p, BLACK, "a6");
    typed(&mut p, WHITE, "card 28 trap e6 then d4");
    assert_eq!(sealed_traps(&p.sessions[0]).len(), 2, "both sealed on e6");
    // Black's pawn lands on e6, on both traps.
    typed(&mut p, BLACK, "e6");
    typed(&mut p, WHITE, "Nf3");
    assert!(p.refused.is_empty(), "{:?}", p.refused);
    let st = p.sessions[1].engine().state().expect("playing").clone();
    let e6 = sealed_games::chess::Square::from_index(44).expect("e6");
    assert!(
        st.board.position().piece_at(e6).is_none(),
        "the first trap removed the pawn"
    );
    let left = sealed_traps(&p.sessions[0]);
    assert_eq!(left.len(), 1, "the second stays sealed");
    assert_eq!(left[0].0, 1, "the freeze, sealed second");
}
