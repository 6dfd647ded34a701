//! Move text: the one grammar every game reads moves with. Whatever it reads prints as
//! text that reads back as the same value; it never panics; and each form a game writes
//! (SAN, long algebraic, coordinates) reads as what was meant.

use proptest::prelude::*;
use sealed_chess::{CastleSide, Kind, Move, MoveKind, MoveText, Position, Square};

fn sq(s: &str) -> Square {
    s.parse().expect("a square")
}

#[test]
fn every_form_reads_as_meant() {
    let squares = |t: &str| MoveText::read(t).ok().and_then(|m| m.squares());
    assert_eq!(squares("Ng1-f3"), Some((sq("g1"), sq("f3"), None)));
    assert_eq!(squares("g1f3"), Some((sq("g1"), sq("f3"), None)));
    assert_eq!(
        squares("e7xd8=Q"),
        Some((sq("e7"), sq("d8"), Some(Kind::Queen)))
    );
    assert_eq!(
        squares("e7e8q"),
        Some((sq("e7"), sq("e8"), Some(Kind::Queen)))
    );
    assert_eq!(squares("Nf3"), None);
    for (t, side) in [
        ("O-O", CastleSide::Short),
        ("0-0-0", CastleSide::Long),
        ("o-o+", CastleSide::Short),
    ] {
        assert_eq!(MoveText::read(t), Ok(MoveText::Castle(side)), "{t}");
    }
    for bad in [
        "", "e9", "i2-e4", "e2--e4", "-e4", "e2-e4 q", "Nf3=", "Zf3", "e4€",
    ] {
        assert!(MoveText::read(bad).is_err(), "{bad:?}");
    }
    // SAN is the strict subset.
    for not_san in ["e2e4", "Pe4", "Ng1-f3", "Nf3=Q", "e8=K", "xd5"] {
        let read = MoveText::read(not_san);
        assert!(
            read.is_err() || read.is_ok_and(|t| t.san_form().is_err()),
            "{not_san}"
        );
    }
}

#[test]
fn coordinates_name_any_piece_and_a_letter_must_match() {
    let pos = Position::startpos();
    let g1f3 = pos.parse_san("Nf3").expect("legal");
    let fits = |t: &str| MoveText::read(t).is_ok_and(|m| m.fits(&pos, &g1f3, false));
    assert!(fits("g1f3") && fits("Ng1-f3") && fits("Nf3") && fits("Ngf3"));
    assert!(!fits("Bg1-f3") && !fits("f3") && !fits("Nxf3"));
}

#[test]
fn the_writer_round_trips_every_move_of_random_games() {
    // SAN and long algebraic of every legal move along a few games read back as the move.
    let mut pos = Position::startpos();
    let mut seed = 0x9e37_79b9_u64;
    for _ in 0..120 {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let takes = |m: &Move| {
            m.kind == MoveKind::EnPassant
                || (m.castle_side().is_none() && pos.piece_at(m.to).is_some())
        };
        for mv in &legal {
            let san = pos.san_among(mv, &legal, takes);
            let read = MoveText::read(&san.to_string()).expect("reads");
            assert_eq!(
                pos.find_move("", &read, &legal, takes).ok(),
                Some(*mv),
                "{san}"
            );
            let capture = takes(mv);
            if mv.castle_side().is_none() {
                let kind = pos.piece_at(mv.from).map(|p| p.kind);
                let long = MoveText::long(kind, mv.from, mv.to, capture, mv.promotion);
                let read = MoveText::read(&long.to_string()).expect("reads");
                assert_eq!(read, long);
                assert_eq!(read.squares(), Some((mv.from, mv.to, mv.promotion)));
            }
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        pos = pos
            .play(&legal[(seed >> 33) as usize % legal.len()])
            .expect("legal");
    }
}

proptest! {
    #[test]
    fn any_text_reads_without_panic_and_round_trips(text in "\\PC{0,30}") {
        if let Ok(m) = MoveText::read(&text) {
            prop_assert_eq!(MoveText::read(&m.to_string()), Ok(m));
        }
    }

    #[test]
    fn move_shaped_text_round_trips(text in "[NBRQKP]?[a-h]?[1-8]?[x:-]?[a-h][1-8](=[NBRQKP])?(e\\.p\\.)?[+#!?]{0,2}") {
        if let Ok(m) = MoveText::read(&text) {
            prop_assert_eq!(MoveText::read(&m.to_string()), Ok(m));
        }
    }
}
