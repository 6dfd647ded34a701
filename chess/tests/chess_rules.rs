//! The board on positions standard libraries refuse, the hooks card effects use, FEN
//! parsing and its errors, and move making on careless input.

mod chess_support;

use chess_support::{Rng, both, cozy_moves, our_moves};
use proptest::prelude::*;
use sealed_chess::{
    CastleSide, Color, FenError, File, Kind, Move, MoveKind, Piece, Position, Square,
    chess960_back_rank, perft,
};

fn sq(s: &str) -> Square {
    s.parse().expect("a square")
}

fn fen(s: &str) -> Position {
    Position::from_fen(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn uci(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(Move::uci).collect();
    v.sort();
    v
}

#[test]
fn side_not_to_move_in_check_is_accepted_where_cozy_chess_refuses() {
    // White to move, but Black's king is attacked by the rook on e7: between the two
    // moves of a "move twice" card this happens.
    let text = "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1";
    assert!(cozy_chess::Board::from_fen(text, false).is_err());
    let pos = fen(text);
    assert!(!pos.is_check());
    assert!(pos.king_attacked(Color::Black));
    assert_eq!(
        pos.attackers(sq("e8"), Color::White),
        [sq("e7")].into_iter().collect()
    );
    // Taking the king is generated like any capture; what it means is the variant's call.
    let moves = uci(&pos);
    assert!(moves.contains(&"e7e8".to_owned()));
    assert_eq!(moves.len(), 5 + 13);
    assert_eq!(pos.fen(), text);
}

#[test]
fn no_king_means_every_pseudo_legal_move_is_legal() {
    let pos = fen("8/8/8/8/8/8/4P3/8 w - - 0 1");
    assert_eq!(uci(&pos), ["e2e3", "e2e4"]);
    assert!(!pos.is_check() && !pos.is_checkmate() && !pos.is_stalemate());
    // A lone black rook may move anywhere, with no king of its own to guard.
    let pos = fen("8/8/8/8/8/8/8/r7 b - - 0 1");
    assert_eq!(pos.legal_moves().len(), 14);
    assert_eq!(pos.pseudo_legal_moves().len(), 14);
}

#[test]
fn several_kings_must_all_be_safe() {
    // Two white kings; the rook on a2 attacks a1, so only moves that save that king are
    // legal, and none may put the other king in danger.
    let pos = fen("7k/8/8/8/8/8/r7/K3K3 w - - 0 1");
    assert!(pos.is_check());
    assert_eq!(pos.checkers(), [sq("a2")].into_iter().collect());
    let moves = uci(&pos);
    assert_eq!(moves, ["a1a2", "a1b1"]);
    for mv in pos.legal_moves() {
        let after = pos.play(&mv).expect("legal");
        assert!(!after.king_attacked(Color::White));
    }
    // With two kings nobody may castle, whatever the FEN asked.
    assert!(matches!(
        Position::from_fen("4k3/8/8/8/8/8/8/R2KK2R w K - 0 1"),
        Err(FenError::CastlingRook { .. })
    ));
}

#[test]
fn pawns_on_back_ranks() {
    // A white pawn on its own back rank steps one square only; a black pawn on rank 1
    // (where it would promote) has no move and attacks nothing.
    let pos = fen("4k3/8/8/8/8/8/8/P1p1K3 w - - 0 1");
    assert!(cozy_chess::Board::from_fen("4k3/8/8/8/8/8/8/P1p1K3 w - - 0 1", false).is_err());
    let pawn: Vec<String> = pos
        .legal_moves_from(sq("a1"))
        .iter()
        .map(Move::uci)
        .collect();
    assert_eq!(pawn, ["a1a2"]);
    assert!(!pos.is_attacked(sq("b2"), Color::Black));
    assert!(!pos.is_attacked(sq("d2"), Color::Black));
    let black = fen("4k3/8/8/8/8/8/8/P1p1K3 b - - 0 1");
    assert!(black.legal_moves_from(sq("c1")).is_empty());
    // A white pawn on rank 8 does not move either, and is no promotion in waiting.
    let pos = fen("P3k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert!(pos.legal_moves_from(sq("a8")).is_empty());
    assert_eq!(pos.fen(), "P3k3/8/8/8/8/8/8/4K3 w - - 0 1");
}

#[test]
fn en_passant_that_uncovers_the_king_on_its_rank_is_illegal() {
    // Black just played c7-c5. bxc6 e.p. would take both pawns off the fifth rank and
    // leave the king on a5 to the rook on h5.
    let text = "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2";
    let (pos, board) = both(text);
    let moves = our_moves(&pos);
    assert_eq!(moves, cozy_moves(&board));
    assert!(!uci(&pos).contains(&"b5c6".to_owned()));
    // Without the rook, the same capture is legal and removes the c5 pawn.
    let pos = fen("8/8/8/KPp5/8/8/8/4k3 w - c6 0 2");
    let ep = pos
        .legal_moves()
        .into_iter()
        .find(|m| m.kind == MoveKind::EnPassant)
        .expect("en passant");
    let after = pos.play(&ep).expect("legal");
    assert_eq!(after.piece_at(sq("c5")), None);
    assert_eq!(
        after.piece_at(sq("c6")),
        Some(Piece::new(Color::White, Kind::Pawn))
    );
    assert_eq!(after.halfmove_clock(), 0);
}

#[test]
fn a_knight_moves_twice_and_the_turn_stays() {
    let start = Position::startpos();
    let g1f3 = Move::normal(sq("g1"), sq("f3"));
    let once = start.play_keep_turn(&g1f3).expect("legal");
    assert_eq!(once.turn(), Color::White);
    assert_eq!(once.fullmove_number(), 1);
    let f3e5 = Move::normal(sq("f3"), sq("e5"));
    let twice = once.play(&f3e5).expect("legal");
    assert_eq!(twice.turn(), Color::Black);
    assert_eq!(
        twice.fen(),
        "rnbqkbnr/pppppppp/8/4N3/8/8/PPPPPPPP/RNBQKB1R b KQkq - 2 1"
    );
    // A double step that keeps the turn opens no en passant: nobody replies at once.
    let e2e4 = start
        .legal_moves_from(sq("e2"))
        .into_iter()
        .find(|m| m.to == sq("e4"))
        .expect("double step");
    assert_eq!(e2e4.kind, MoveKind::DoubleStep);
    assert_eq!(
        start.play_keep_turn(&e2e4).expect("legal").en_passant(),
        None
    );
    assert_eq!(
        start.play(&e2e4).expect("legal").en_passant(),
        Some(sq("e3"))
    );
    // Giving check with the first of two moves leaves the side not to move in check.
    let pos = fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    let check = pos
        .play_keep_turn(&Move::normal(sq("a1"), sq("a8")))
        .expect("legal");
    assert!(check.king_attacked(Color::Black) && check.turn() == Color::White);
    assert_eq!(Position::from_fen(&check.fen()), Ok(check.clone()));
    assert!(!check.legal_moves().is_empty());
}

#[test]
fn a_piece_moves_as_another_kind_and_stays_itself() {
    let pos = fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    let as_knight: Vec<String> = pos
        .legal_moves_as(sq("a1"), Kind::Knight)
        .iter()
        .map(Move::uci)
        .collect();
    assert_eq!(as_knight, ["a1c2", "a1b3"]);
    let after = pos.play_unchecked(&pos.legal_moves_as(sq("a1"), Kind::Knight)[1]);
    assert_eq!(
        after.piece_at(sq("b3")),
        Some(Piece::new(Color::White, Kind::Rook))
    );
    // Moving the king "as a king" never castles; the rook lost its right when it moved.
    let castling = fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(
        castling
            .legal_moves_as(sq("e1"), Kind::King)
            .iter()
            .all(|m| m.castle_side().is_none())
    );
    assert_eq!(
        castling
            .legal_moves_from(sq("e1"))
            .iter()
            .filter(|m| m.castle_side().is_some())
            .count(),
        2
    );
    let rook_jumped = castling.play_unchecked(&castling.legal_moves_as(sq("a1"), Kind::Knight)[0]);
    assert_eq!(
        rook_jumped.castling().rook(Color::White, CastleSide::Long),
        None
    );
    assert_eq!(
        rook_jumped.castling().rook(Color::White, CastleSide::Short),
        Some(File::H)
    );
    // A knight moving as a pawn pushes, but does not promote on the last rank.
    let pos = fen("4k3/N7/8/8/8/8/8/4K3 w - - 0 1");
    let pushes = pos.legal_moves_as(sq("a7"), Kind::Pawn);
    assert_eq!(pushes.len(), 1);
    assert_eq!(pushes[0].promotion, None);
    // Moves of one piece only, and nothing for an empty or enemy square.
    assert_eq!(Position::startpos().legal_moves_from(sq("b1")).len(), 2);
    assert!(Position::startpos().legal_moves_from(sq("e4")).is_empty());
    assert!(Position::startpos().legal_moves_from(sq("b8")).is_empty());
    // A move that would leave the king attacked is unsafe, whatever generated it.
    let pinned = fen("4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1");
    assert!(pinned.legal_moves_from(sq("e2")).is_empty());
    assert!(!pinned.is_safe(&Move::normal(sq("e2"), sq("c3"))));
}

#[test]
fn pass_turn_and_edits_keep_the_position_consistent() {
    let mut pos = Position::startpos();
    pos.pass_turn();
    assert_eq!(pos.turn(), Color::Black);
    pos.pass_turn();
    assert_eq!(pos.fullmove_number(), 2);
    // Taking the h1 rook off the board drops White's short right.
    pos.set_piece(sq("h1"), None);
    assert_eq!(pos.castling().rook(Color::White, CastleSide::Short), None);
    assert_eq!(
        pos.castling().rook(Color::White, CastleSide::Long),
        Some(File::A)
    );
    // A right must name a rook that can castle.
    assert!(
        pos.set_castling(Color::White, CastleSide::Short, Some(File::H))
            .is_err()
    );
    pos.set_piece(sq("h1"), Some(Piece::new(Color::White, Kind::Rook)));
    assert!(
        pos.set_castling(Color::White, CastleSide::Short, Some(File::H))
            .is_ok()
    );
    assert!(pos.set_en_passant(Some(sq("e3"))).is_err());
    // Removing the pawn that stepped drops the en passant square.
    let mut after = Position::startpos()
        .play(&Move {
            from: sq("e2"),
            to: sq("e4"),
            promotion: None,
            kind: MoveKind::DoubleStep,
        })
        .expect("legal");
    assert_eq!(after.en_passant(), Some(sq("e3")));
    after.set_piece(sq("e4"), None);
    assert_eq!(after.en_passant(), None);
    // A second white king on the back rank ends castling: no single king to castle.
    let mut two = Position::startpos();
    two.set_piece(sq("d1"), Some(Piece::new(Color::White, Kind::King)));
    assert!(
        two.castling()
            .rook(Color::White, CastleSide::Short)
            .is_none()
    );
    assert!(
        two.castling()
            .rook(Color::Black, CastleSide::Short)
            .is_some()
    );
}

#[test]
fn castling_letters_kq_mean_the_outermost_rooks() {
    let pos = fen("4k3/8/8/8/8/8/8/RR2K1RR w KQ - 0 1");
    assert_eq!(
        pos.castling().rook(Color::White, CastleSide::Short),
        Some(File::H)
    );
    assert_eq!(
        pos.castling().rook(Color::White, CastleSide::Long),
        Some(File::A)
    );
    assert_eq!(pos.shredder_fen(), "4k3/8/8/8/8/8/8/RR2K1RR w HA - 0 1");
    // An inner rook keeps its letter in X-FEN.
    let inner = fen("4k3/8/8/8/8/8/8/RR2K1RR w GB - 0 1");
    assert_eq!(inner.fen(), "4k3/8/8/8/8/8/8/RR2K1RR w GB - 0 1");
    assert_eq!(fen("4k3/8/8/8/8/8/8/RR2K1RR w HA - 0 1").fen(), pos.fen());
    // Each side its own files (Secret Stallmate): White from 518, Black from 0.
    let pair = Position::chess960_pair(518, 0).expect("< 960");
    assert_eq!(
        pair.fen(),
        "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(
        pair.shredder_fen(),
        "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAhf - 0 1"
    );
    assert_eq!(fen(&pair.fen()), pair);
}

#[test]
fn chess960_numbering() {
    let names = |n| -> String {
        chess960_back_rank(n)
            .expect("< 960")
            .iter()
            .map(|k| k.upper())
            .collect()
    };
    assert_eq!(names(518), "RNBQKBNR");
    assert_eq!(names(0), "BBQNNRKR");
    assert_eq!(names(959), "RKRNNQBB");
    assert_eq!(chess960_back_rank(960), None);
    let mut seen = std::collections::BTreeSet::new();
    for n in 0..960 {
        let rank = names(n);
        assert!(seen.insert(rank.clone()), "{n} repeats {rank}");
        let b: Vec<usize> = rank.match_indices('B').map(|(i, _)| i).collect();
        assert_eq!(b.len(), 2);
        assert_ne!(b[0] % 2, b[1] % 2, "{n}: bishops on one colour");
        let r: Vec<usize> = rank.match_indices('R').map(|(i, _)| i).collect();
        let k = rank.find('K').expect("a king");
        assert!(r[0] < k && k < r[1], "{n}: king not between the rooks");
    }
    assert_eq!(Position::chess960(518), Some(Position::startpos()));
}

#[test]
fn moves_found_by_their_squares() {
    let pos = fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let castle = pos.find_legal(sq("e1"), sq("h1"), None).expect("O-O");
    assert_eq!(castle.castle_side(), Some(CastleSide::Short));
    assert_eq!(pos.find_legal(sq("e1"), sq("g1"), None), None);
    assert_eq!(
        pos.find_legal(sq("e1"), sq("f1"), None).map(|m| m.kind),
        Some(MoveKind::Normal)
    );
    let promo = fen("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert!(promo.find_legal(sq("a7"), sq("a8"), None).is_none());
    assert_eq!(
        promo
            .find_legal(sq("a7"), sq("a8"), Some(Kind::Knight))
            .map(|m| m.uci()),
        Some("a7a8n".to_owned())
    );
}

#[test]
fn checkmate_and_stalemate() {
    let mate = fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert!(mate.is_check() && mate.is_checkmate() && !mate.is_stalemate());
    let stale = fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert!(!stale.is_check() && stale.is_stalemate() && !stale.is_checkmate());
    assert_eq!(perft(&stale, 1), 0);
}

/// Recognises the error a case expects.
type ExpectedError = fn(&FenError) -> bool;

#[test]
fn fen_errors_say_why() {
    let cases: [(&str, ExpectedError); 12] = [
        ("", |e| matches!(e, FenError::FieldCount(0))),
        ("8/8/8/8/8/8/8 w - - 0 1", |e| {
            matches!(e, FenError::RankCount(7))
        }),
        ("9/8/8/8/8/8/8/8 w - - 0 1", |e| {
            matches!(e, FenError::PlacementChar('9'))
        }),
        ("8/8/8/8/8/8/8/7 w - - 0 1", |e| {
            matches!(e, FenError::RankLength('1'))
        }),
        ("8/8/8/8/8/8/8/ppppppppp w - - 0 1", |e| {
            matches!(e, FenError::RankLength('1'))
        }),
        ("8/8/8/8/8/8/8/8 x - - 0 1", |e| {
            matches!(e, FenError::SideToMove(_))
        }),
        ("4k3/8/8/8/8/8/8/4K3 w Z - 0 1", |e| {
            matches!(e, FenError::CastlingChar('Z'))
        }),
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", |e| {
            matches!(e, FenError::CastlingRook { .. })
        }),
        ("4k3/8/8/8/8/8/8/R3K3 w QA - 0 1", |e| {
            matches!(e, FenError::CastlingRepeated('A'))
        }),
        ("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", |e| {
            matches!(e, FenError::EnPassantSquare(_))
        }),
        ("4k3/8/8/8/8/8/8/4K3 w - e9 0 1", |e| {
            matches!(e, FenError::EnPassantSyntax(_))
        }),
        ("4k3/8/8/8/8/8/8/4K3 w - - -1 1", |e| {
            matches!(e, FenError::HalfmoveClock(_))
        }),
    ];
    for (text, expected) in cases {
        let err = Position::from_fen(text).expect_err(text);
        assert!(expected(&err), "{text}: {err:?}");
        assert!(!err.to_string().is_empty());
    }
    // The clocks may be left out.
    assert_eq!(
        fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"),
        Position::startpos()
    );
}

#[test]
fn careless_moves_never_panic() {
    let mut rng = Rng::new(99);
    let starts = [
        Position::startpos(),
        fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        fen("8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2"),
        fen("P1p5/8/8/8/8/8/8/p1P5 w - - 0 1"),
    ];
    let kinds = [
        MoveKind::Normal,
        MoveKind::DoubleStep,
        MoveKind::EnPassant,
        MoveKind::Castle(CastleSide::Long),
        MoveKind::Castle(CastleSide::Short),
    ];
    for start in &starts {
        let mut pos = start.clone();
        for _ in 0..2000 {
            let mv = Move {
                from: Square::from_index(rng.below(64) as u8).expect("< 64"),
                to: Square::from_index(rng.below(64) as u8).expect("< 64"),
                promotion: [None, Some(Kind::Queen), Some(Kind::King), Some(Kind::Pawn)]
                    [rng.below(4)],
                kind: kinds[rng.below(kinds.len())],
            };
            assert_eq!(pos.play(&mv).is_ok(), pos.is_legal(&mv));
            pos = pos.play_unchecked(&mv);
            // Whatever happened, the position still reads back from its own FEN.
            assert_eq!(Position::from_fen(&pos.fen()).as_ref(), Ok(&pos));
            let _ = pos.legal_moves();
        }
    }
}

/// Random placements with one king a side and no pawn on a back rank: where cozy-chess
/// accepts them (the side not to move not in check), both generate the same moves.
#[test]
fn random_placements_agree_with_cozy_chess() {
    let mut rng = Rng::new(2024);
    let mut compared = 0;
    for _ in 0..4000 {
        let mut cells = [0u8; 64];
        for (i, cell) in cells.iter_mut().enumerate() {
            if rng.below(5) == 0 {
                // Any piece but a king (6 and 12).
                let c = [1, 2, 3, 4, 5, 7, 8, 9, 10, 11][rng.below(10)];
                let pawn_on_back_rank = (c == 1 || c == 7) && !(8..56).contains(&i);
                *cell = if pawn_on_back_rank { 0 } else { c };
            }
        }
        let wk = rng.below(64);
        let bk = (wk + 1 + rng.below(63)) % 64;
        // cozy-chess does not count a king's attack as check, so it accepts kings side by
        // side, which no game reaches; leave those out.
        let (df, dr) = ((wk % 8).abs_diff(bk % 8), (wk / 8).abs_diff(bk / 8));
        if df <= 1 && dr <= 1 {
            continue;
        }
        cells[wk] = 6;
        cells[bk] = 12;
        let side = if rng.below(2) == 0 { 'w' } else { 'b' };
        let text = format!("{} {side} - - 0 1", placement(&cells));
        let pos = fen(&text);
        if let Ok(board) = cozy_chess::Board::from_fen(&text, false) {
            assert_eq!(our_moves(&pos), cozy_moves(&board), "{text}");
            assert_eq!(pos.is_check(), !board.checkers().is_empty(), "{text}");
            compared += 1;
        } else {
            // cozy-chess refused it; we still generate moves.
            let _ = pos.legal_moves();
        }
    }
    assert!(compared > 1000, "only {compared} placements compared");
    eprintln!("{compared} random placements compared with cozy-chess");
}

/// A FEN placement from 64 cells (0 = empty, 1..=12 = a piece).
fn placement(cells: &[u8]) -> String {
    const LETTERS: &[u8; 12] = b"PNBRQKpnbrqk";
    let mut out = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match cells[rank * 8 + file] {
                0 => empty += 1,
                c => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(LETTERS[usize::from(c - 1) % 12] as char);
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out
}

proptest! {
    // Integration tests have no lib.rs beside them to store failures next to.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// Any placement at all is a position we accept and write back unchanged.
    #[test]
    fn any_placement_is_accepted(
        cells in proptest::collection::vec(prop_oneof![6 => Just(0u8), 1 => 1u8..=12], 64),
        white in any::<bool>(),
    ) {
        let text = format!("{} {} - - 0 1", placement(&cells), if white { 'w' } else { 'b' });
        let pos = Position::from_fen(&text).expect("every placement is accepted");
        prop_assert_eq!(pos.fen(), text.clone());
        let _ = pos.legal_moves();
    }

    #[test]
    fn fen_parsing_never_panics(text in "\\PC{0,80}") {
        let _ = Position::from_fen(&text);
    }

    #[test]
    fn fen_like_text_never_panics(text in "[1-9pnbrqkPNBRQKx/]{0,40} [wbx] [KQkqA-Ha-h-]{1,5} [a-h1-9-]{1,2} [0-9-]{0,3} [0-9]{0,3}") {
        if let Ok(pos) = Position::from_fen(&text) {
            prop_assert_eq!(Position::from_fen(&pos.fen()), Ok(pos.clone()));
            prop_assert_eq!(Position::from_fen(&pos.shredder_fen()), Ok(pos.clone()));
            let _ = pos.legal_moves();
        }
    }
}
