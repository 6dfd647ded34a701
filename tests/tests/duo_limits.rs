//! The limits that keep every computation of a game without a referee within one
//! message (spec/GAMES.md §5.15): a ply limit always, at most 1000 (its default), and at
//! most 256 attempts a period; under them the largest attempt's circuit, composed from
//! the circuit files, garbles to fewer bytes than a message may hold.

use sealed_conformance::duo_kit::duo_terms;
use sealed_games::stallmate::duo::player::MAX_MESSAGE;
use sealed_games::stallmate::duo::{Duo, MAX_PLIES, MAX_TRIES};
use sealed_mpc::chain::compose::compose;
use sealed_mpc::chain::{Chain, FRESH_BITS, Flags};
use sealed_mpc::gc::Gate;
use sealed_mpc::play::game::{MAX_EARLIER, MAX_WINDOW};
use sealed_protocol::rules::Rules;

#[test]
fn a_game_without_a_referee_always_has_a_ply_limit_of_at_most_1000() {
    let limit = |options: &[(&str, &str)]| {
        Duo::from_terms(&duo_terms(options, 1)).map(|d| d.options.ply_limit)
    };
    assert_eq!(limit(&[]), Ok(Some(MAX_PLIES)), "the default");
    assert_eq!(limit(&[("ply-limit", "1000")]), Ok(Some(1000)));
    assert_eq!(limit(&[("ply-limit", "40")]), Ok(Some(40)));
    for refused in ["none", "1001", "0"] {
        let e = limit(&[("ply-limit", refused)]).expect_err(refused);
        assert!(e.0.contains("ply-limit"), "{refused}: {e:?}");
    }
}

#[test]
fn the_largest_computation_the_rules_allow_fits_one_message() {
    // A mover's window holds his moves since the last capture, and Black's the start:
    // at most ⌈1000 / 2⌉ + 1 positions; the 256th attempt of a period has 255 before it.
    assert!((MAX_PLIES as usize).div_ceil(2) < MAX_WINDOW);
    assert_eq!(MAX_TRIES, MAX_EARLIER + 1);
    let chain = Chain::from_files().expect("the embedded circuit files");
    for mover_white in [true, false] {
        let c = compose(
            &chain,
            mover_white,
            MAX_WINDOW,
            MAX_EARLIER,
            Flags::default(),
        )
        .expect("composes");
        let and = c
            .gates
            .iter()
            .filter(|g| matches!(g, Gate::And(..)))
            .count();
        // G1: the evaluator's transfers (32 bytes a fresh bit), the garbler's labels (16
        // a fresh bit), two 16-byte rows an AND gate (spec/GAMES.md §5.13.6).
        let g1 = FRESH_BITS * 32 + FRESH_BITS * 16 + and * 32;
        println!(
            "mover white {mover_white}: {} gates, {and} AND, G1 {g1} bytes",
            c.gates.len()
        );
        assert!(g1 <= MAX_MESSAGE, "{and} AND gates, G1 {g1} bytes");
        assert!(and > 200_000, "the bound is not far off: {and}");
    }
}
