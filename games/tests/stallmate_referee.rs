//! Secret Stallmate's referee: every announcement kind, the "Any?" answers, `must-try`,
//! what is refused, and every ending with its points.

use sealed_games::chess::{Color, Square};
use sealed_games::stallmate::{
    Answer, Attempt, BoardEnd, Capture, Capturer, CheckKind, Ending, Heard, Options, Referee,
    Refusal, Report, Setup, Turn, heard, scores, seat_results,
};
use sealed_protocol::outcome::SeatResult;

fn sq(s: &str) -> Square {
    s.parse().expect("a square")
}

fn standard_with(options: Options) -> Referee {
    Referee::new(Setup::STANDARD, Setup::STANDARD, options)
}

fn standard() -> Referee {
    standard_with(Options::default())
}

/// The attempt of a SAN move legal on the referee's board.
fn san(r: &Referee, text: &str) -> Attempt {
    let m = r
        .position()
        .parse_san(text)
        .unwrap_or_else(|e| panic!("{text}: {e} in {}", r.position().fen()));
    Attempt::Move {
        from: m.from,
        to: m.to,
        promotion: m.promotion,
    }
}

fn att(text: &str) -> Attempt {
    text.parse().expect("an attempt")
}

/// Makes one SAN move as the period's only attempt; returns its report (the period
/// stays open).
fn yes(r: &mut Referee, text: &str) -> Report {
    let a = san(r, text);
    match r.attempt(a) {
        Ok(Answer::Yes(report)) => report,
        other => panic!("{text}: {other:?}"),
    }
}

/// Plays a whole game in SAN (move numbers allowed), one period per move; returns the
/// closed turns.
fn play(r: &mut Referee, moves: &str) -> Vec<Turn> {
    let mut turns = Vec::new();
    for m in moves.split_whitespace().filter(|t| !t.ends_with('.')) {
        yes(r, m);
        turns.push(r.end_period().expect("period closes"));
    }
    turns
}

fn last_report(turns: &[Turn]) -> Report {
    turns
        .last()
        .and_then(Turn::report)
        .cloned()
        .expect("a move")
}

#[test]
fn a_capture_is_announced_at_the_capturing_piece_square() {
    let mut r = standard();
    let turns = play(&mut r, "1. e4 d5 2. exd5");
    let report = last_report(&turns);
    assert_eq!(
        report.capture,
        Some(Capture {
            at: sq("d5"),
            en_passant: false,
            by: None
        })
    );
    assert!(report.checks.is_empty() && report.end.is_none());
    assert_eq!(
        heard(turns.last().unwrap()),
        [Heard::Capture(report.capture.unwrap())]
    );
    assert_eq!(Answer::Yes(report).to_string(), "yes, capture at d5");
}

#[test]
fn en_passant_is_named_and_placed_on_the_destination() {
    let mut r = standard();
    let turns = play(&mut r, "1. e4 a6 2. e5 d5 3. exd6");
    let report = last_report(&turns);
    // The taken pawn stood on d5; the announcement names d6, where the capturer landed.
    assert_eq!(
        report.capture,
        Some(Capture {
            at: sq("d6"),
            en_passant: true,
            by: None
        })
    );
    assert_eq!(r.position().piece_at(sq("d5")), None);
    assert_eq!(
        Answer::Yes(report).to_string(),
        "yes, capture at d6 en passant"
    );
}

#[test]
fn name_capturer_says_pawn_or_piece() {
    let options = Options {
        name_capturer: true,
        ..Options::default()
    };
    let mut r = standard_with(options);
    let turns = play(&mut r, "1. e4 d5 2. exd5 Qxd5");
    let by_pawn = turns[2].report().unwrap().capture.unwrap();
    let by_piece = turns[3].report().unwrap().capture.unwrap();
    assert_eq!(by_pawn.by, Some(Capturer::Pawn));
    assert_eq!(by_piece.by, Some(Capturer::Piece));
    assert_eq!(by_pawn.to_string(), "capture at d5 by pawn");
    assert_eq!(by_piece.to_string(), "capture at d5 by piece");
    // Off by default: the same capture names nobody.
    let mut r = standard();
    let turns = play(&mut r, "1. e4 d5 2. exd5 Qxd5");
    assert_eq!(turns[3].report().unwrap().capture.unwrap().by, None);
}

#[test]
fn check_on_file() {
    let mut r = standard();
    let turns = play(&mut r, "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qe5+");
    let report = last_report(&turns);
    assert_eq!(report.checks, [CheckKind::File]);
    assert_eq!(
        heard(turns.last().unwrap()),
        [Heard::Check(CheckKind::File)]
    );
}

#[test]
fn check_on_rank() {
    let mut r = standard();
    let turns = play(&mut r, "1. e4 a5 2. Ke2 Ra6 3. Ke3 Rh6 4. d3 Rh3+");
    assert_eq!(last_report(&turns).checks, [CheckKind::Rank]);
}

#[test]
fn checks_on_the_long_and_the_short_diagonal() {
    // King e8: the diagonal a4-e8 has 5 squares, e8-h5 has 4.
    let mut r = standard();
    let turns = play(&mut r, "1. e4 d6 2. Bb5+");
    assert_eq!(last_report(&turns).checks, [CheckKind::LongDiagonal]);
    let mut r = standard();
    let turns = play(&mut r, "1. e4 f6 2. Qh5+");
    assert_eq!(last_report(&turns).checks, [CheckKind::ShortDiagonal]);
    assert_eq!(
        Answer::Yes(last_report(&turns)).to_string(),
        "yes, check on short diagonal"
    );
}

#[test]
fn a_pawn_check_is_a_diagonal_check() {
    // King e2: the diagonal b5-e2 (through d3) has 6 squares, d1-h5 has 5.
    let mut r = standard();
    let turns = play(&mut r, "1. e4 d5 2. e5 d4 3. Ke2 d3+");
    assert_eq!(last_report(&turns).checks, [CheckKind::LongDiagonal]);
}

#[test]
fn check_by_knight() {
    let mut r = standard();
    let turns = play(&mut r, "1. Nc3 a6 2. Nd5 a5 3. Nf6+");
    assert_eq!(last_report(&turns).checks, [CheckKind::Knight]);
    assert_eq!(
        Answer::Yes(last_report(&turns)).to_string(),
        "yes, check by knight"
    );
}

/// Réti–Tartakower, Vienna 1910: 10. Bg5+ is a double check, 11. Bd8 mate.
const RETI_TARTAKOWER: &str = "1. e4 c6 2. d4 d5 3. Nc3 dxe4 4. Nxe4 Nf6 5. Qd3 e5 6. dxe5 Qa5+ \
     7. Bd2 Qxe5 8. O-O-O Nxe4 9. Qd8+ Kxd8 10. Bg5+ Kc7 11. Bd8#";

#[test]
fn a_double_check_is_two_announcements_and_mate_ends_the_game() {
    let mut r = standard();
    let turns = play(&mut r, RETI_TARTAKOWER);
    // 10. Bg5+: the rook d1 on the d-file, the bishop on d8-h4, the king's long diagonal.
    let double = turns[18].report().unwrap();
    assert_eq!(double.checks, [CheckKind::File, CheckKind::LongDiagonal]);
    assert_eq!(
        heard(&turns[18]),
        [
            Heard::Check(CheckKind::File),
            Heard::Check(CheckKind::LongDiagonal)
        ]
    );
    // 11. Bd8#: king c7, the short diagonal a5-d8.
    let mate = last_report(&turns);
    assert_eq!(mate.checks, [CheckKind::ShortDiagonal]);
    assert_eq!(mate.end, Some(BoardEnd::Checkmate));
    assert_eq!(
        heard(turns.last().unwrap()).last(),
        Some(&Heard::End(BoardEnd::Checkmate))
    );
    let ending = Ending::Board(BoardEnd::Checkmate);
    assert_eq!(r.ending(), Some(&ending));
    assert_eq!(scores(&ending), [-5, -5]);
    assert_eq!(seat_results(&ending), [SeatResult::Score(-5); 2]);
    // The 8. O-O-O of the score is the king taking its own rook.
    assert_eq!(turns[14].moved(), Some(att("e1-a1")));
    assert_eq!(r.attempt(Attempt::Any), Err(Refusal::GameOver));
}

#[test]
fn any_is_answered_no_or_try_and_heard() {
    let mut r = standard();
    play(&mut r, "1. e4 e5");
    assert_eq!(r.attempt(Attempt::Any), Ok(Answer::No));
    yes(&mut r, "Nf3");
    let t = r.end_period().unwrap();
    assert_eq!(heard(&t), [Heard::AnyNo]);

    let mut r = standard();
    play(&mut r, "1. e4 d5");
    assert_eq!(r.attempt(Attempt::Any), Ok(Answer::Try));
    yes(&mut r, "exd5");
    let t = r.end_period().unwrap();
    assert_eq!(heard(&t)[0], Heard::AnyTry);
    assert_eq!(heard(&t).len(), 2);
}

#[test]
fn try_counts_en_passant() {
    let mut r = standard();
    play(&mut r, "1. e4 a6 2. e5 d5");
    assert_eq!(r.attempt(Attempt::Any), Ok(Answer::Try));
}

#[test]
fn an_illegal_move_is_heard_without_the_move() {
    let mut r = standard();
    assert_eq!(r.attempt(att("a1-a3")), Ok(Answer::Illegal));
    assert_eq!(r.attempt(att("f1-b5")), Ok(Answer::Illegal));
    yes(&mut r, "e4");
    let t = r.end_period().unwrap();
    assert_eq!(heard(&t), [Heard::Illegal, Heard::Illegal]);
    assert_eq!(heard(&t)[0].to_string(), "illegal");
}

#[test]
fn announcements_are_heard_in_order() {
    let mut r = standard();
    play(&mut r, "1. e4 d5 2. Nc3 Nf6 3. Nf3 Bg4");
    // 4. e4-d5 would be legal; the mover first fumbles.
    assert_eq!(r.attempt(att("h1-h3")), Ok(Answer::Illegal));
    assert_eq!(r.attempt(Attempt::Any), Ok(Answer::Try));
    assert_eq!(r.attempt(att("e4-f5")), Ok(Answer::Illegal));
    assert!(matches!(r.attempt(att("e4-d5")), Ok(Answer::Yes(_))));
    let t = r.end_period().unwrap();
    let capture = Capture {
        at: sq("d5"),
        en_passant: false,
        by: None,
    };
    assert_eq!(
        heard(&t),
        [
            Heard::Illegal,
            Heard::AnyTry,
            Heard::Illegal,
            Heard::Capture(capture)
        ]
    );
}

#[test]
fn must_try_obliges_a_pawn_capture_attempt_first() {
    let mut r = standard();
    play(&mut r, "1. e4 d5");
    assert_eq!(r.attempt(Attempt::Any), Ok(Answer::Try));
    // Not a pawn capture: not judged, not made, not heard.
    assert_eq!(r.attempt(att("g1-f3")), Ok(Answer::PawnCaptureFirst));
    assert_eq!(r.attempt(att("e4-e5")), Ok(Answer::PawnCaptureFirst));
    assert_eq!(
        r.position().piece_at(sq("g1")).map(|p| p.color),
        Some(Color::White)
    );
    // An illegal pawn capture meets the obligation...
    assert_eq!(r.attempt(att("e4-f5")), Ok(Answer::Illegal));
    // ...and then any move may be tried.
    assert!(matches!(r.attempt(att("g1-f3")), Ok(Answer::Yes(_))));
    let t = r.end_period().unwrap();
    assert_eq!(heard(&t), [Heard::AnyTry, Heard::Illegal]);
    assert_eq!(
        t.entries[1].answer.to_string(),
        "pawn capture first",
        "the mover is told"
    );
}

#[test]
fn must_try_off_lets_any_move_follow_a_try() {
    let options = Options {
        must_try: false,
        ..Options::default()
    };
    let mut r = standard_with(options);
    play(&mut r, "1. e4 d5");
    assert_eq!(r.attempt(Attempt::Any), Ok(Answer::Try));
    assert!(matches!(r.attempt(att("g1-f3")), Ok(Answer::Yes(_))));
}

#[test]
fn a_legal_pawn_capture_after_try_is_made() {
    let mut r = standard();
    play(&mut r, "1. e4 d5");
    assert_eq!(r.attempt(Attempt::Any), Ok(Answer::Try));
    assert!(matches!(r.attempt(att("e4-d5")), Ok(Answer::Yes(_))));
}

#[test]
fn nothing_is_judged_after_yes() {
    let mut r = standard();
    yes(&mut r, "e4");
    assert_eq!(r.attempt(att("d2-d4")), Err(Refusal::AfterYes));
    assert_eq!(r.attempt(Attempt::Any), Err(Refusal::AfterYes));
    let t = r.end_period().unwrap();
    assert_eq!(t.entries.len(), 1, "refusals are not in the record");
    assert_eq!(r.mover(), Some(Color::Black));
    assert_eq!(r.current().map(|t| t.number), Some(1));
}

#[test]
fn promotion_is_named_and_required() {
    let mut r = standard();
    play(&mut r, "1. h4 g5 2. hxg5 h6 3. gxh6 Bg7 4. hxg7 Nc6");
    assert_eq!(r.attempt(att("g7-h8")), Ok(Answer::Illegal));
    let report = match r.attempt(att("g7-h8=N")) {
        Ok(Answer::Yes(report)) => report,
        other => panic!("{other:?}"),
    };
    assert_eq!(report.capture.map(|c| c.at), Some(sq("h8")));
    assert_eq!(
        r.position().piece_at(sq("h8")).map(|p| p.kind),
        Some(sealed_games::chess::Kind::Knight)
    );
}

#[test]
fn castling_is_the_king_taking_its_rook() {
    let mut r = standard();
    play(&mut r, "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5");
    assert_eq!(r.attempt(att("e1-g1")), Ok(Answer::Illegal));
    assert!(matches!(r.attempt(att("e1-h1")), Ok(Answer::Yes(_))));
    assert_eq!(
        r.position().piece_at(sq("g1")).map(|p| p.kind),
        Some(sealed_games::chess::Kind::King)
    );
}

/// Sam Loyd's ten-move stalemate: Black, to move, has nothing; 16 white and 10 black
/// pieces remain.
const LOYD: &str = "1. e3 a5 2. Qh5 Ra6 3. Qxa5 h5 4. h4 Rah6 5. Qxc7 f6 6. Qxd7+ Kf7 \
     7. Qxb7 Qd3 8. Qxb8 Qh7 9. Qxc8 Kg6 10. Qe6";

#[test]
fn stalemate_scores_one_per_piece_left_for_each() {
    let mut r = standard();
    let turns = play(&mut r, LOYD);
    let end = BoardEnd::Stalemate { pieces: 26 };
    assert_eq!(last_report(&turns).end, Some(end));
    assert_eq!(r.ending(), Some(&Ending::Board(end)));
    assert_eq!(scores(&Ending::Board(end)), [26, 26]);
    assert_eq!(end.to_string(), "stalemate with 26 pieces");
    assert_eq!(r.end_period(), Err(Refusal::GameOver));
}

#[test]
fn threefold_repetition_ends_the_game() {
    let mut r = standard();
    let turns = play(&mut r, "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1");
    assert!(r.ending().is_none(), "the start stands only twice so far");
    assert!(turns.iter().all(|t| t.report().unwrap().end.is_none()));
    let report = yes(&mut r, "Ng8");
    assert_eq!(report.end, Some(BoardEnd::Repetition));
    let ending = Ending::Board(BoardEnd::Repetition);
    assert_eq!(r.ending(), Some(&ending));
    assert_eq!(scores(&ending), [-8, -8]);
}

#[test]
fn an_en_passant_chance_nobody_can_take_does_not_make_positions_differ() {
    // After 1. e4 the en passant square e3 is set, but no black pawn can take: the
    // position after 3. Ng1 (no en passant square) repeats it... and so does 5. Ng1.
    let mut r = standard();
    play(&mut r, "1. e4 Nf6 2. Nf3 Ng8 3. Ng1 Nf6 4. Nf3 Ng8 5. Ng1");
    assert_eq!(r.ending(), Some(&Ending::Board(BoardEnd::Repetition)));
}

#[test]
fn bare_kings_end_the_game() {
    let (mut r, _) = capture_everything();
    assert_eq!(r.ending(), Some(&Ending::Board(BoardEnd::BareKings)));
    assert_eq!(scores(&Ending::Board(BoardEnd::BareKings)), [-6, -6]);
    assert_eq!(r.position().occupied().len(), 2);
    assert_eq!(r.attempt(Attempt::Any), Err(Refusal::AfterYes));
}

/// Plays a seeded capture-hungry game (both sides take whenever they can) until bare
/// kings; returns the referee and the number of games tried. The seed is fixed, so the
/// game is the same every run.
fn capture_everything() -> (Referee, u32) {
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for game in 1..=400 {
        let mut r = standard();
        while r.ending().is_none() {
            let pos = r.position().clone();
            let moves = pos.legal_moves();
            let captures: Vec<_> = moves
                .iter()
                .filter(|m| {
                    pos.piece_at(m.to).is_some()
                        || m.from.file() != m.to.file()
                            && pos.piece_at(m.from).map(|p| p.kind)
                                == Some(sealed_games::chess::Kind::Pawn)
                })
                .copied()
                .collect();
            let pool = if captures.is_empty() {
                &moves
            } else {
                &captures
            };
            let m = pool[(next() % pool.len() as u64) as usize];
            let a = Attempt::Move {
                from: m.from,
                to: m.to,
                promotion: m.promotion,
            };
            assert!(matches!(r.attempt(a), Ok(Answer::Yes(_))));
            if r.ending().is_none() {
                r.end_period().unwrap();
            }
            if r.plies() > 600 {
                break;
            }
        }
        if r.ending() == Some(&Ending::Board(BoardEnd::BareKings)) {
            return (r, game);
        }
    }
    panic!("no capture-hungry game reached bare kings");
}

#[test]
fn a_period_without_yes_is_a_forfeit_by_the_mover() {
    let mut r = standard();
    play(&mut r, "1. e4");
    assert_eq!(r.attempt(att("e7-e4")), Ok(Answer::Illegal));
    let t = r.end_period().unwrap();
    assert_eq!(t.mover, Color::Black);
    let ending = Ending::Forfeit { by: Color::Black };
    assert_eq!(r.ending(), Some(&ending));
    assert_eq!(scores(&ending), [0, -10]);
    assert_eq!(r.history().len(), 2);
    assert_eq!(r.attempt(Attempt::Any), Err(Refusal::GameOver));
    assert_eq!(ending.to_string(), "forfeit by black");
}

#[test]
fn resigning_is_a_forfeit_at_any_time() {
    let mut r = standard();
    play(&mut r, "1. e4");
    r.forfeit(Color::White).unwrap();
    let ending = Ending::Forfeit { by: Color::White };
    assert_eq!(r.ending(), Some(&ending));
    assert_eq!(scores(&ending), [-10, 0]);
    assert_eq!(r.forfeit(Color::Black), Err(Refusal::GameOver));
    assert_eq!(r.history().len(), 1, "an empty open period is not kept");
}

#[test]
fn the_ply_limit_ends_the_game_with_nothing_for_anyone() {
    let options = Options {
        ply_limit: Some(4),
        ..Options::default()
    };
    let mut r = standard_with(options);
    let turns = play(&mut r, "1. e4 e5 2. Nf3");
    assert!(r.ending().is_none());
    assert!(turns.iter().all(|t| t.report().unwrap().end.is_none()));
    let report = yes(&mut r, "Nc6");
    assert_eq!(report.end, Some(BoardEnd::PlyLimit));
    assert_eq!(scores(&Ending::Board(BoardEnd::PlyLimit)), [0, 0]);
    assert_eq!(r.plies(), 4);
}

#[test]
fn individual_setups_castle_with_their_own_rooks() {
    // White: 518 (RNBQKBNR); Black: 0 (BBQNNRKR): Black's king on g8, rooks f8 and h8.
    let mut r = Referee::new(Setup::STANDARD, Setup::new(0).unwrap(), Options::default());
    assert_eq!(
        r.position().fen(),
        "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    yes(&mut r, "e4");
    r.end_period().unwrap();
    // Short castling (g8 takes h8) would put the h-rook on f8, where the other rook
    // stands: illegal for now.
    assert_eq!(r.attempt(att("g8-h8")), Ok(Answer::Illegal));
    assert!(matches!(r.attempt(att("g7-g6")), Ok(Answer::Yes(_))));
}

mod arbitrary {
    use proptest::prelude::*;
    use sealed_games::chess::{Color, Kind, Square};
    use sealed_games::stallmate::{
        Answer, Attempt, Heard, MoverView, Options, Referee, Refusal, Setup, bot, heard,
    };

    #[derive(Clone, Debug)]
    enum Op {
        Try(Attempt),
        Bot(u64),
        EndPeriod,
        Forfeit(bool),
    }

    fn op() -> impl Strategy<Value = Op> {
        let attempt = prop_oneof![
            Just(Attempt::Any),
            (0u8..64, 0u8..64, proptest::option::of(0usize..6)).prop_map(|(f, t, p)| {
                Attempt::Move {
                    from: Square::from_index(f).unwrap(),
                    to: Square::from_index(t).unwrap(),
                    promotion: p.map(|i| Kind::ALL[i]),
                }
            }),
        ];
        prop_oneof![
            6 => attempt.prop_map(Op::Try),
            6 => any::<u64>().prop_map(Op::Bot),
            3 => Just(Op::EndPeriod),
            1 => any::<bool>().prop_map(Op::Forfeit),
        ]
    }

    fn any_heard() -> impl Strategy<Value = Vec<Heard>> {
        let one = prop_oneof![
            Just(Heard::Illegal),
            Just(Heard::AnyNo),
            Just(Heard::AnyTry),
            (0u8..64, any::<bool>()).prop_map(|(at, en_passant)| Heard::Capture(
                sealed_games::stallmate::Capture {
                    at: Square::from_index(at).unwrap(),
                    en_passant,
                    by: None,
                }
            )),
        ];
        proptest::collection::vec(one, 0..8)
    }

    proptest! {
        #[test]
        fn arbitrary_attempts_never_panic_and_refusals_are_clean(
            w in 0u16..960,
            b in 0u16..960,
            ops in proptest::collection::vec(op(), 0..120),
        ) {
            let (w, b) = (Setup::new(w).unwrap(), Setup::new(b).unwrap());
            let options = Options::default();
            let mut r = Referee::new(w, b, options);
            let mut views = [
                MoverView::new(Color::White, w, options),
                MoverView::new(Color::Black, b, options),
            ];
            for op in ops {
                let before = r.current().map(|t| t.entries.len());
                match op {
                    Op::Try(_) | Op::Bot(_) if r.mover().is_some() => {
                        let mover = r.mover().unwrap();
                        let a = match op {
                            Op::Bot(x) => match bot::choose(&views[mover.idx()], x) {
                                Some(a) => a,
                                None => continue,
                            },
                            Op::Try(a) => a,
                            _ => continue,
                        };
                        match r.attempt(a) {
                            Ok(answer) => {
                                views[mover.idx()].record(a, answer.clone());
                                prop_assert_eq!(r.current().map(|t| t.entries.len()), before.map(|n| n + 1));
                                if matches!(answer, Answer::Yes(_)) {
                                    prop_assert_eq!(r.attempt(Attempt::Any), Err(Refusal::AfterYes));
                                }
                            }
                            Err(_) => prop_assert_eq!(r.current().map(|t| t.entries.len()), before),
                        }
                    }
                    Op::Try(_) | Op::Bot(_) => {
                        prop_assert_eq!(r.attempt(Attempt::Any), Err(Refusal::GameOver));
                    }
                    Op::EndPeriod => {
                        if let Ok(turn) = r.end_period() {
                            let h = heard(&turn);
                            let judged = turn.entries.iter().filter(|e| e.silence.is_none()).count();
                            prop_assert!(h.len() <= judged + 4);
                            if r.ending().is_none() {
                                views[(!turn.mover).idx()].hear(&h);
                            }
                        }
                    }
                    Op::Forfeit(white) => {
                        let by = if white { Color::White } else { Color::Black };
                        let _ = r.forfeit(by);
                    }
                }
            }
        }

        #[test]
        fn a_view_takes_any_announcements_without_panic(
            lists in proptest::collection::vec(any_heard(), 0..10),
            black in any::<bool>(),
        ) {
            let color = if black { Color::Black } else { Color::White };
            let mut view = MoverView::new(color, Setup::STANDARD, Options::default());
            for list in lists {
                view.hear(&list);
                let _ = view.candidates();
                let _ = bot::choose(&view, 3);
            }
        }
    }
}
