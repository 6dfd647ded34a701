//! SAN: printing and reading back every legal move along random games, real game
//! scores, disambiguation, en passant, promotions, and the three kinds of failure.

mod chess_support;

use chess_support::{Rng, SUITE};
use proptest::prelude::*;
use sealed_chess::{MoveKind, Position, SanError};

fn fen(s: &str) -> Position {
    Position::from_fen(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Plays a game score (move numbers allowed) from `start`, checking that every move we
/// print is exactly the text read. Returns the final position.
fn replay(start: &Position, score: &str) -> Position {
    let mut pos = start.clone();
    for token in score.split_whitespace() {
        if token.ends_with('.') && token.trim_end_matches('.').parse::<u32>().is_ok() {
            continue;
        }
        let mv = pos
            .parse_san(token)
            .unwrap_or_else(|e| panic!("{token} in {}: {e}", pos.fen()));
        assert_eq!(
            pos.san(&mv).expect("legal"),
            token,
            "printing {token} in {}",
            pos.fen()
        );
        pos = pos.play(&mv).expect("legal");
    }
    pos
}

#[test]
fn famous_games_replay_and_print_identically() {
    let start = Position::startpos();
    // Morphy – Duke of Brunswick and Count Isouard, Paris 1858 (the Opera game):
    // Nbd7 disambiguation, O-O-O, mate.
    let opera = replay(
        &start,
        "1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 \
         8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 \
         14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8#",
    );
    assert!(opera.is_checkmate());
    // Réti – Tartakower, Vienna 1910: O-O-O, a double check, mate.
    let reti = replay(
        &start,
        "1. e4 c6 2. d4 d5 3. Nc3 dxe4 4. Nxe4 Nf6 5. Qd3 e5 6. dxe5 Qa5+ 7. Bd2 Qxe5 \
         8. O-O-O Nxe4 9. Qd8+ Kxd8 10. Bg5+ Kc7 11. Bd8#",
    );
    assert!(reti.is_checkmate());
    // Legall's mate.
    let legall = replay(
        &start,
        "1. e4 e5 2. Nf3 d6 3. Bc4 Bg4 4. Nc3 g6 5. Nxe5 Bxd1 6. Bxf7+ Ke7 7. Nd5#",
    );
    assert!(legall.is_checkmate());
    // Short castling on both sides.
    let italian = replay(
        &start,
        "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O",
    );
    assert_eq!(
        italian.fen(),
        "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w - - 1 6"
    );
    // A constructed game: en passant, then an underpromotion that takes a rook.
    let ep = replay(&start, "1. e4 d5 2. e5 f5 3. exf6 e6 4. fxg7 Ke7 5. gxh8=N");
    assert_eq!(
        ep.fen(),
        "rnbq1bnN/ppp1k2p/4p3/3p4/8/8/PPPP1PPP/RNBQKBNR b KQ - 0 5"
    );
}

#[test]
fn disambiguation_is_minimal_and_read_in_every_form() {
    // Rooks on e1 and e3 both reach e2: the rank tells them apart.
    let rooks = fen("k7/8/8/8/8/4R3/8/4R1K1 w - - 0 1");
    let e1e2 = rooks.parse_san("R1e2").expect("unique");
    assert_eq!(e1e2.from.to_string(), "e1");
    assert_eq!(rooks.san(&e1e2).expect("legal"), "R1e2");
    assert_eq!(
        rooks.parse_san("R3e2").map(|m| m.from.to_string()),
        Ok("e3".into())
    );
    assert_eq!(rooks.parse_san("Re1e2"), Ok(e1e2));
    for ambiguous in ["Re2", "Ree2"] {
        assert!(
            matches!(rooks.parse_san(ambiguous), Err(SanError::Ambiguous { ref candidates, .. }) if candidates.len() == 2),
            "{ambiguous}"
        );
    }
    // Three queens reach e1: h4 shares its file with h1 and its rank with e4.
    let queens = fen("1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1");
    let printed: Vec<String> = ["h4", "h1", "e4"]
        .iter()
        .map(|from| {
            let mv = queens
                .legal_moves()
                .into_iter()
                .find(|m| m.from.to_string() == *from && m.to.to_string() == "e1")
                .expect("reaches e1");
            queens.san(&mv).expect("legal")
        })
        .collect();
    assert_eq!(printed, ["Qh4e1", "Q1e1", "Qee1"]);
    for text in ["Qh4e1", "Q1e1", "Qee1", "Qh4xe1"] {
        assert!(queens.parse_san(text).is_ok() || text == "Qh4xe1", "{text}");
    }
    // "x" on a move that takes nothing names no move.
    assert!(matches!(
        queens.parse_san("Qh4xe1"),
        Err(SanError::Illegal { .. })
    ));
    for ambiguous in ["Qe1", "Qhe1", "Q4e1"] {
        assert!(
            matches!(queens.parse_san(ambiguous), Err(SanError::Ambiguous { .. })),
            "{ambiguous}"
        );
    }
    // Knights on b8 and f6 both reach d7: the file tells them apart.
    let knights = fen("rn2kb1r/p3qppp/2p2n2/1B2p1B1/4P3/1Q6/PPP2PPP/2KR3R b kq - 3 11");
    let nbd7 = knights.parse_san("Nbd7").expect("unique");
    assert_eq!(knights.san(&nbd7).expect("legal"), "Nbd7");
    assert_eq!(knights.parse_san("N8d7"), Ok(nbd7));
    assert!(matches!(
        knights.parse_san("Nd7"),
        Err(SanError::Ambiguous { .. })
    ));
}

#[test]
fn en_passant_and_promotions() {
    let ep = fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    let mv = ep.parse_san("exd6").expect("en passant");
    assert_eq!(mv.kind, MoveKind::EnPassant);
    assert_eq!(ep.san(&mv).expect("legal"), "exd6");
    for text in ["exd6 e.p.", "exd6e.p.", "exd6 ep", "exd6+ e.p.", "exd6!"] {
        assert_eq!(ep.parse_san(text), Ok(mv), "{text}");
    }
    // Claiming en passant on an ordinary capture names no move.
    let plain = fen("4k3/8/3p4/4P3/8/8/8/4K3 w - - 0 2");
    assert!(plain.parse_san("exd6").is_ok());
    assert!(matches!(
        plain.parse_san("exd6 e.p."),
        Err(SanError::Illegal { .. })
    ));

    // Underpromotion to a knight that checks the king on g7.
    let promo = fen("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1");
    let knight = promo.parse_san("e8=N+").expect("knight");
    assert_eq!(promo.san(&knight).expect("legal"), "e8=N+");
    for text in ["e8N", "e8=N", "e8N+", "e8=n"] {
        assert_eq!(promo.parse_san(text), Ok(knight), "{text}");
    }
    let queen = promo.parse_san("e8=Q").expect("queen");
    assert_eq!(promo.san(&queen).expect("legal"), "e8=Q");
    // Without the piece, four moves fit.
    assert!(matches!(
        promo.parse_san("e8"),
        Err(SanError::Ambiguous { ref candidates, .. }) if candidates.len() == 4
    ));
    assert!(matches!(
        promo.parse_san("e8=K"),
        Err(SanError::Malformed { .. })
    ));
    // A capture that promotes.
    let take = fen("3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1");
    let mv = take.parse_san("exd8=R+").expect("capture-promotion");
    assert_eq!(take.san(&mv).expect("legal"), "exd8=R+");
}

#[test]
fn chess960_castling_reads_and_prints_as_o_o() {
    // White's king on f1 with rooks b1 and g1; Black's on b8 with rooks a8 and g8.
    let pos = fen("rk4r1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBga - 0 1");
    let short = pos.parse_san("O-O").expect("short");
    assert_eq!(short.castle_side().map(|s| s.san()), Some("O-O"));
    assert_eq!(pos.san(&short).expect("legal"), "O-O");
    for text in ["0-0", "o-o", "O-O+"] {
        assert_eq!(pos.parse_san(text), Ok(short), "{text}");
    }
    // King and rook swap squares.
    let after = pos.play(&short).expect("legal");
    assert_eq!(
        after.fen(),
        "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 b kq - 1 1"
    );
    // Black castles long: the king goes from b8 to c8, the rook from a8 to d8.
    let long = after.parse_san("0-0-0").expect("long");
    assert_eq!(after.san(&long).expect("legal"), "O-O-O");
    assert_eq!(
        after.play(&long).expect("legal").fen(),
        "2kr2r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 w - - 2 2"
    );
    // White's long castling is blocked by nothing but c1..e1 must be empty: it is.
    assert!(pos.parse_san("O-O-O").is_ok());
    assert!(matches!(
        Position::startpos().parse_san("O-O"),
        Err(SanError::Illegal { .. })
    ));
}

#[test]
fn failures_are_told_apart() {
    let start = Position::startpos();
    for illegal in [
        "Nf6", "e5", "O-O", "O-O-O", "Ke2", "exd5", "Bb5", "Qh5", "Nd2", "a8=Q",
    ] {
        assert!(
            matches!(start.parse_san(illegal), Err(SanError::Illegal { .. })),
            "{illegal}: {:?}",
            start.parse_san(illegal)
        );
    }
    for malformed in [
        "", "   ", "xyz", "Zf3", "e9", "Nf3x", "P", "O-O-O-O", "Nf", "e2e4", "Nf3=Q", "exd", "K",
        "Nf3€", "!!", "+", "1. e4", "e4 e5", "Nbd7d",
    ] {
        assert!(
            matches!(start.parse_san(malformed), Err(SanError::Malformed { .. })),
            "{malformed:?}: {:?}",
            start.parse_san(malformed)
        );
    }
    for ok in [
        "e4", "e4!!", "e4?!", "Nf3", "Nf3!?", "Nf3+", "Nf3#", " Nf3 ", "Ngf3", "Ng1f3",
    ] {
        assert!(
            start.parse_san(ok).is_ok(),
            "{ok}: {:?}",
            start.parse_san(ok)
        );
    }
    // Each error says what it is about.
    let err = start.parse_san("Nd2").expect_err("illegal");
    assert!(err.to_string().contains("Nd2"));
}

/// Every legal move along seeded random games prints as SAN that reads back as the same
/// move, with `+`/`#` exactly when it checks or mates.
#[test]
fn every_legal_move_round_trips_through_san() {
    let mut starts: Vec<Position> = SUITE.iter().map(|(_, f, _)| fen(f)).collect();
    for (w, b) in [(518, 0), (226, 705), (959, 1)] {
        starts.push(Position::chess960_pair(w, b).expect("< 960"));
    }
    let mut rng = Rng::new(0x5a4);
    let mut moves_checked = 0;
    let mut games = 0;
    let mut seen = [0usize; 5]; // castles, en passant, promotions, disambiguated, mates
    for start in &starts {
        for _ in 0..12 {
            games += 1;
            let mut pos = start.clone();
            for _ in 0..150 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                for mv in &legal {
                    let san = pos.san(mv).expect("legal");
                    assert_eq!(pos.parse_san(&san), Ok(*mv), "{san} in {}", pos.fen());
                    let after = pos.play_unchecked(mv);
                    assert_eq!(san.ends_with('#'), after.is_checkmate(), "{san}");
                    assert_eq!(san.ends_with(['+', '#']), after.is_check(), "{san}");
                    seen[0] += usize::from(mv.castle_side().is_some());
                    seen[1] += usize::from(mv.kind == MoveKind::EnPassant);
                    seen[2] += usize::from(mv.promotion.is_some());
                    let body = san.trim_end_matches(['+', '#']);
                    let piece_move = body.starts_with(['N', 'B', 'R', 'Q', 'K']);
                    let plain_len = 3 + usize::from(body.contains('x'));
                    seen[3] += usize::from(piece_move && body.len() > plain_len);
                    seen[4] += usize::from(san.ends_with('#'));
                    moves_checked += 1;
                }
                pos = pos.play_unchecked(&legal[rng.below(legal.len())]);
            }
        }
    }
    eprintln!(
        "{games} games, {moves_checked} moves round-tripped; castles {}, en passant {}, \
         promotions {}, disambiguated {}, mates {}",
        seen[0], seen[1], seen[2], seen[3], seen[4]
    );
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

#[test]
fn random_text_never_panics() {
    let positions = [
        Position::startpos(),
        fen("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"),
        fen("1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1"),
        fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"),
    ];
    const ALPHABET: &[u8] = b"abcdefgh12345678NBRQKOo0-x=+#!?e.p :P9\xc3\xa9";
    let mut rng = Rng::new(1);
    for _ in 0..20_000 {
        let len = rng.below(10);
        let bytes: Vec<u8> = (0..len)
            .map(|_| ALPHABET[rng.below(ALPHABET.len())])
            .collect();
        let text = String::from_utf8_lossy(&bytes);
        for pos in &positions {
            if let Ok(mv) = pos.parse_san(&text) {
                assert!(pos.is_legal(&mv), "{text}");
            }
        }
    }
}

proptest! {
    // Integration tests have no lib.rs beside them to store failures next to.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(text in "\\PC{0,30}") {
        let pos = Position::startpos();
        if let Ok(mv) = pos.parse_san(&text) {
            prop_assert!(pos.is_legal(&mv));
        }
    }
}
