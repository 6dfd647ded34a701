//! The circuits a game without a referee meets first are compiled ahead
//! (`sealed_games::stallmate::duo::warm_up`, run by the node as soon as it holds such a
//! game: issue 57, the first attempts waited for a compiler). Its own test binary, so
//! that the process's circuits start empty.

use sealed_conformance::duo_kit::{all_done, duo_terms, play};
use sealed_games::stallmate::duo::item::mpc_options;
use sealed_games::stallmate::duo::{circuits, warm_up};
use sealed_games::stallmate::options::Options;
use sealed_mpc::play::game::EARLIER_STEP;
use sealed_mpc::play::public::first_shapes;

#[test]
fn the_shapes_a_game_meets_first_are_compiled_ahead_and_the_game_finds_them() {
    assert!(
        !circuits().has_start() && circuits().shapes() == 0,
        "a fresh process"
    );
    let terms = duo_terms(&[("ply-limit", "4")], 3);
    let made = warm_up(&terms).expect("compiled");
    let options = Options::from_proposal(&terms.proposal().rule_options()).expect("options");
    let shapes = first_shapes(mpc_options(&options));
    assert_eq!(
        made,
        shapes.len() + 1,
        "the start and {} shapes",
        shapes.len()
    );
    assert!(circuits().has_start());
    for s in &shapes {
        assert!(circuits().has(s), "{s:?}");
    }
    // Done once: a second game of the same options compiles nothing.
    assert_eq!(warm_up(&terms).expect("nothing to do"), 0);
    // A game of those terms (the kit's, ply limit 4) then finds every shape of its
    // turns that came at most a padding's worth of attempts after a move.
    let (p, _) = play(4, 3, |_| {});
    assert!(all_done(&p), "the game finished");
    for s in circuits().compiled() {
        if s.earlier <= EARLIER_STEP {
            assert!(shapes.contains(&s), "compiled during the game: {s:?}");
        }
    }
}
