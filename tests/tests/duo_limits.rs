//! What the terms of a game without a referee must say (spec/GAMES.md §5.15): the circuit
//! files it garbles, by their manifest's SHA-256, and the limits that keep every
//! computation within one message — a ply limit always, at most 1000 (its default), and
//! at most 256 attempts a period; under them the largest attempt's circuit, composed from
//! the circuit files, garbles to fewer bytes than a message may hold.

use sealed_conformance::duo_kit::{duo_terms, duo_terms_as_given};
use sealed_conformance::sim::test_key;
use sealed_games::stallmate::duo::player::MAX_MESSAGE;
use sealed_games::stallmate::duo::{CIRCUITS, Duo, MAX_PLIES, MAX_TRIES, VARIANT};
use sealed_mpc::chain::compose::compose;
use sealed_mpc::chain::files::MANIFEST_SHA256;
use sealed_mpc::chain::{Chain, FRESH_BITS, Flags};
use sealed_mpc::gc::Gate;
use sealed_mpc::play::game::{MAX_EARLIER, MAX_WINDOW};
use sealed_protocol::proposal::{Terms, WitnessSpec};
use sealed_protocol::rules::Rules;

/// Version 2 terms naming `circuits` (none: left out).
fn terms_naming(circuits: Option<&str>) -> Terms {
    let opts: Vec<(&str, &str)> = circuits.map(|c| (CIRCUITS, c)).into_iter().collect();
    duo_terms_as_given(&opts, 3)
}

#[test]
fn terms_naming_no_circuits_or_other_ones_are_refused() {
    assert!(Duo::from_terms(&terms_naming(Some(MANIFEST_SHA256))).is_ok());
    let e = Duo::from_terms(&terms_naming(None)).expect_err("no circuits named");
    assert!(e.0.contains("name no circuits"), "{e:?}");
    // One hex digit changed: files that leak, or merely differ, are another game.
    let mut other = MANIFEST_SHA256.to_owned();
    other.replace_range(0..1, if other.starts_with('0') { "1" } else { "0" });
    let e = Duo::from_terms(&terms_naming(Some(&other))).expect_err("other circuits");
    assert!(
        e.0.contains(&other) && e.0.contains(MANIFEST_SHA256),
        "{e:?}"
    );
    let upper = MANIFEST_SHA256.to_uppercase();
    assert!(
        Duo::from_terms(&terms_naming(Some(&upper))).is_err(),
        "hex is lowercase"
    );
}

#[test]
fn the_proposer_writes_the_circuits_into_the_terms() {
    use sealed_games::registry::{Invitees, propose};
    let signed = propose(
        VARIANT,
        &[("time-per-move".to_owned(), "1h".to_owned())],
        &test_key(0),
        Invitees {
            opponent: test_key(1).public().to_bytes(),
            witness: Some(WitnessSpec {
                key: sealed_conformance::forfeit_kit::witness()
                    .public()
                    .to_bytes(),
                addrs: vec![],
            }),
            ..Invitees::default()
        },
        0,
        [7; 32],
    )
    .expect("proposed");
    let terms = Terms::from_signed(signed).expect("valid");
    let named: Vec<_> = terms
        .proposal()
        .rule_options()
        .into_iter()
        .filter(|(k, _)| k.as_str() == CIRCUITS)
        .map(|(_, v)| v)
        .collect();
    assert_eq!(named, vec![MANIFEST_SHA256.to_owned()]);
}

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
