//! The referee against cozy-chess (the oracle) on every position it accepts: "yes"
//! exactly for cozy-chess's legal moves, "try" exactly when a legal pawn capture exists,
//! captures, the number of checks, mate and stalemate as cozy-chess sees them.

// The chess crate's cross-check against cozy-chess, shared rather than copied.
#[path = "../../chess/tests/chess_support/mod.rs"]
mod chess_support;

use chess_support::{Rng, Triple, capped, cozy_moves};
use sealed_games::chess::{Kind, Square};
use sealed_games::stallmate::{Answer, Attempt, BoardEnd, Options, Referee, Setup};

fn triple(a: &Attempt) -> Option<Triple> {
    let (from, to, promotion) = a.squares()?;
    Some((
        from.index(),
        to.index(),
        promotion.map(|k| k.upper().to_ascii_lowercase()),
    ))
}

fn cozy_of(t: Triple) -> cozy_chess::Move {
    let promotion = t.2.map(|c| match c {
        'n' => cozy_chess::Piece::Knight,
        'b' => cozy_chess::Piece::Bishop,
        'r' => cozy_chess::Piece::Rook,
        _ => cozy_chess::Piece::Queen,
    });
    cozy_chess::Move {
        from: cozy_chess::Square::index(usize::from(t.0)),
        to: cozy_chess::Square::index(usize::from(t.1)),
        promotion,
    }
}

fn attempt_of(t: Triple) -> Attempt {
    let sq = |i: u8| Square::from_index(i).expect("a square");
    Attempt::Move {
        from: sq(t.0),
        to: sq(t.1),
        promotion: t.2.and_then(Kind::from_char),
    }
}

/// Attempts worth comparing in a position: every legal move, and random squares with
/// and without promotions.
fn probes(rng: &mut Rng, legal: &std::collections::BTreeSet<Triple>) -> Vec<Attempt> {
    let mut out: Vec<Attempt> = legal.iter().copied().map(attempt_of).collect();
    for _ in 0..150 {
        let promo = [None, Some('q'), Some('n'), Some('k')][rng.below(4)];
        out.push(attempt_of((
            rng.below(64) as u8,
            rng.below(64) as u8,
            promo,
        )));
    }
    // Near misses: a legal move with another promotion or none.
    for t in legal.iter().take(10) {
        out.push(attempt_of((t.0, t.1, None)));
        out.push(attempt_of((t.0, t.1, Some('r'))));
    }
    out
}

#[test]
fn yes_is_exactly_cozy_chess_legality() {
    let mut rng = Rng::new(0x5eed);
    let options = Options {
        must_try: false,
        ..Options::default()
    };
    let (mut positions, mut yes_checked) = (0, 0);
    for game in 0..24u32 {
        let w = Setup::new(rng.below(960) as u16).unwrap();
        let b = Setup::new(if game % 4 == 0 {
            518
        } else {
            rng.below(960) as u16
        })
        .unwrap();
        let mut r = Referee::new(w, b, options);
        while r.ending().is_none() && r.plies() < 150 {
            let fen = capped(&r.position().shredder_fen());
            let board = cozy_chess::Board::from_fen(&fen, true)
                .unwrap_or_else(|e| panic!("cozy-chess refuses {fen}: {e:?}"));
            let legal = cozy_moves(&board);
            positions += 1;

            // "Any?" is "try" exactly when cozy-chess has a pawn move changing file.
            let mut pawn_capture = false;
            board.generate_moves(|pm| {
                for mv in pm {
                    if pm.piece == cozy_chess::Piece::Pawn && mv.from.file() != mv.to.file() {
                        pawn_capture = true;
                    }
                }
                false
            });
            let mut probe = r.clone();
            let any = probe.attempt(Attempt::Any).expect("answered");
            assert_eq!(any == Answer::Try, pawn_capture, "{fen}");

            for a in probes(&mut rng, &legal) {
                let want = triple(&a).is_some_and(|t| legal.contains(&t));
                if want {
                    let mut yes = r.clone();
                    let Ok(Answer::Yes(report)) = yes.attempt(a) else {
                        panic!("{a} is legal in {fen}");
                    };
                    yes_checked += 1;
                    let mv = cozy_of(triple(&a).expect("a move"));
                    // Castling is the king taking its own rook: no capture.
                    let captured = board.colors(!board.side_to_move()).has(mv.to)
                        || (board.piece_on(mv.from) == Some(cozy_chess::Piece::Pawn)
                            && mv.from.file() != mv.to.file());
                    assert_eq!(report.capture.is_some(), captured, "{a} in {fen}");
                    let mut after = board.clone();
                    after.play(mv);
                    assert_eq!(
                        report.checks.len(),
                        after.checkers().len() as usize,
                        "{a} in {fen}"
                    );
                    match after.status() {
                        cozy_chess::GameStatus::Won => {
                            assert_eq!(report.end, Some(BoardEnd::Checkmate))
                        }
                        cozy_chess::GameStatus::Drawn if cozy_moves(&after).is_empty() => {
                            assert!(matches!(report.end, Some(BoardEnd::Stalemate { .. })))
                        }
                        _ => assert!(!matches!(
                            report.end,
                            Some(BoardEnd::Checkmate | BoardEnd::Stalemate { .. })
                        )),
                    }
                } else {
                    assert_eq!(
                        probe.attempt(a),
                        Ok(Answer::Illegal),
                        "{a} is not legal in {fen}"
                    );
                }
            }
            // Play on with a random legal move.
            let pick: Vec<Triple> = legal.iter().copied().collect();
            let a = attempt_of(pick[rng.below(pick.len())]);
            assert!(matches!(r.attempt(a), Ok(Answer::Yes(_))));
            if r.ending().is_none() {
                r.end_period().expect("closes");
            }
        }
    }
    assert!(positions > 1_000, "{positions} positions");
    assert!(yes_checked > 20_000, "{yes_checked} legal moves");
}
