//! What the opponent does not hear: each suppression rule shown silent, beside a twin
//! attempt that is heard.

use sealed_games::chess::{Kind, Square};
use sealed_games::stallmate::{
    Answer, Attempt, FIRST_POSSIBLE_TURN, Heard, Options, Referee, Setup, Silence, heard,
    suppress::{any_silence, never_moves_so},
};

fn standard() -> Referee {
    Referee::new(Setup::STANDARD, Setup::STANDARD, Options::default())
}

fn att(text: &str) -> Attempt {
    text.parse().expect("an attempt")
}

fn play(r: &mut Referee, moves: &str) {
    for m in moves.split_whitespace().filter(|t| !t.ends_with('.')) {
        let mv = r.position().parse_san(m).expect("legal");
        let a = Attempt::Move {
            from: mv.from,
            to: mv.to,
            promotion: mv.promotion,
        };
        assert!(matches!(r.attempt(a), Ok(Answer::Yes(_))), "{m}");
        r.end_period().expect("closes");
    }
}

/// Attempts `text` (which must be illegal) and returns its silence.
fn illegal(r: &mut Referee, text: &str) -> Option<Silence> {
    assert_eq!(r.attempt(att(text)), Ok(Answer::Illegal), "{text}");
    r.current()
        .and_then(|t| t.entries.last())
        .and_then(|e| e.silence)
}

fn any(r: &mut Referee) -> Option<Silence> {
    let answer = r.attempt(Attempt::Any).expect("answered");
    assert!(matches!(answer, Answer::No | Answer::Try));
    r.current()
        .and_then(|t| t.entries.last())
        .and_then(|e| e.silence)
}

/// Ends the period with `san` and returns what the opponent hears.
fn close(r: &mut Referee, san: &str) -> Vec<Heard> {
    let mv = r.position().parse_san(san).expect("legal");
    let a = Attempt::Move {
        from: mv.from,
        to: mv.to,
        promotion: mv.promotion,
    };
    assert!(matches!(r.attempt(a), Ok(Answer::Yes(_))));
    heard(&r.end_period().expect("closes"))
}

#[test]
fn the_same_move_twice_is_heard_once() {
    let mut r = standard();
    assert_eq!(illegal(&mut r, "a1-a3"), None);
    assert_eq!(illegal(&mut r, "a1-a3"), Some(Silence::Repeated));
    assert_eq!(illegal(&mut r, "a1-a3"), Some(Silence::Repeated));
    assert_eq!(illegal(&mut r, "a1-a4"), None, "another move is heard");
    assert_eq!(close(&mut r, "e4"), [Heard::Illegal, Heard::Illegal]);
}

#[test]
fn a_repeat_in_another_turn_is_heard_again() {
    let mut r = standard();
    assert_eq!(illegal(&mut r, "a1-a3"), None);
    close(&mut r, "e4");
    close(&mut r, "e5");
    assert_eq!(illegal(&mut r, "a1-a3"), None);
}

#[test]
fn no_piece_of_the_mover_on_the_from_square_is_silent() {
    let mut r = standard();
    assert_eq!(
        illegal(&mut r, "e4-e5"),
        Some(Silence::NotOwnPiece),
        "empty"
    );
    assert_eq!(
        illegal(&mut r, "e7-e5"),
        Some(Silence::NotOwnPiece),
        "enemy"
    );
    assert_eq!(illegal(&mut r, "d1-d3"), None, "his own queen, blocked");
    assert_eq!(close(&mut r, "e4"), [Heard::Illegal]);
}

#[test]
fn a_move_no_piece_of_that_kind_can_make_is_silent() {
    // (silent attempt, heard twin with the same piece), White's first turn.
    let pairs = [
        ("a1-b2", "a1-a3"),   // rook: diagonal / along its file
        ("b1-b3", "b1-d2"),   // knight: straight / an L onto its own pawn
        ("c1-c3", "c1-e3"),   // bishop: straight / diagonal, blocked
        ("d1-f2", "d1-d3"),   // queen: an L / along its file
        ("e1-e3", "e1-e2"),   // king: two squares / one
        ("e1-e1", "e1-d1"),   // nowhere / onto its own queen
        ("e2-e5", "e2-d3"),   // pawn: three forward / a capture with nothing to take
        ("e2-d2", "e2-f3"),   // pawn: sideways / the other capture
        ("e2-e1", "e2-d3"),   // pawn: backwards
        ("e2-c4", "e2-f3"),   // pawn: diagonal by two
        ("b1-c3=Q", "b1-d2"), // a knight promoting
        ("e2-e3=Q", "e2-f3"), // a promotion short of the last rank
        ("b1-a3=N", "b1-d2"), // a legal knight move, spoilt by a promotion
    ];
    for (silent, twin) in pairs {
        let mut r = standard();
        assert_eq!(
            illegal(&mut r, silent),
            Some(Silence::NeverMovesSo),
            "{silent}"
        );
        assert_eq!(illegal(&mut r, twin), None, "{twin}");
        assert_eq!(close(&mut r, "e4"), [Heard::Illegal], "{silent} / {twin}");
    }
}

#[test]
fn a_king_may_try_castling_only_along_its_home_rank() {
    let mut r = standard();
    // From its home square, any square of its back rank could be a castling rook.
    assert_eq!(illegal(&mut r, "e1-a1"), None);
    assert_eq!(illegal(&mut r, "e1-c1"), None);
    assert_eq!(illegal(&mut r, "e1-g1"), None);
    play(&mut r, "e4 e5 Ke2 Nc6");
    // Off its home square, two squares along a rank is no move of a king.
    assert_eq!(illegal(&mut r, "e2-g2"), Some(Silence::NeverMovesSo));
    assert_eq!(illegal(&mut r, "e2-d2"), None);
}

#[test]
fn a_pawn_steps_two_only_from_its_start_rank() {
    let mut r = standard();
    play(&mut r, "e3 e5 Nc3 Nc6");
    assert_eq!(illegal(&mut r, "e3-e5"), Some(Silence::NeverMovesSo));
    assert_eq!(
        illegal(&mut r, "c2-c4"),
        None,
        "blocked by the knight, heard"
    );
    assert_eq!(
        illegal(&mut r, "e3-e2"),
        Some(Silence::NeverMovesSo),
        "back"
    );
}

#[test]
fn a_pawn_on_the_last_rank_must_name_a_real_promotion() {
    let mut r = standard();
    play(&mut r, "h4 g5 hxg5 h6 gxh6 Bg7 hxg7 Nc6");
    assert_eq!(illegal(&mut r, "g7-h8"), Some(Silence::NeverMovesSo));
    assert_eq!(illegal(&mut r, "g7-h8=K"), Some(Silence::NeverMovesSo));
    assert_eq!(illegal(&mut r, "g7-h8=P"), Some(Silence::NeverMovesSo));
    assert_eq!(illegal(&mut r, "g7-g8=Q"), None, "a knight stands there");
}

#[test]
fn any_on_a_first_turn_is_silent_and_heard_from_the_second() {
    assert_eq!(FIRST_POSSIBLE_TURN, 2);
    let mut r = standard();
    assert_eq!(any(&mut r), Some(Silence::TooEarly));
    assert_eq!(close(&mut r, "e4"), []);
    assert_eq!(any(&mut r), Some(Silence::TooEarly), "Black's first turn");
    assert_eq!(close(&mut r, "d5"), []);
    assert_eq!(any(&mut r), None, "White's second turn");
    assert_eq!(close(&mut r, "exd5")[0], Heard::AnyTry);
    assert_eq!(any(&mut r), None, "Black's second turn");
    assert_eq!(close(&mut r, "Qxd5")[0], Heard::AnyNo);
}

#[test]
fn any_asked_twice_is_heard_once() {
    let mut r = standard();
    play(&mut r, "e4 e5");
    assert_eq!(any(&mut r), None);
    assert_eq!(any(&mut r), Some(Silence::AskedAgain));
    assert_eq!(any(&mut r), Some(Silence::AskedAgain));
    assert_eq!(close(&mut r, "Nf3"), [Heard::AnyNo]);
}

#[test]
fn any_without_pawns_is_silent() {
    // A seeded capture-hungry game, stopped at the first period whose mover has no
    // pawn left and the game goes on.
    let mut rng = 0x2545_f491_4f6c_dd1d_u64;
    'games: for _ in 0..400 {
        let mut r = standard();
        while r.ending().is_none() && r.plies() < 600 {
            let mover = r.mover().expect("live");
            let pawns = |c| !r.position().pieces(c, Kind::Pawn).is_empty();
            if !pawns(mover) && pawns(!mover) {
                assert_eq!(any(&mut r), Some(Silence::NoPawns));
                assert_eq!(r.current().unwrap().entries[0].answer, Answer::No);
                let m = r.position().legal_moves()[0];
                let a = Attempt::Move {
                    from: m.from,
                    to: m.to,
                    promotion: m.promotion,
                };
                assert!(matches!(r.attempt(a), Ok(Answer::Yes(_))));
                if r.ending().is_some() {
                    continue 'games;
                }
                let heard_list = heard(&r.end_period().unwrap());
                assert!(
                    !heard_list
                        .iter()
                        .any(|h| matches!(h, Heard::AnyNo | Heard::AnyTry))
                );
                // The twin: the opponent still has pawns, and his "Any?" is heard.
                assert_eq!(any(&mut r), None);
                return;
            }
            let pos = r.position().clone();
            let moves = pos.legal_moves();
            let captures: Vec<_> = moves
                .iter()
                .filter(|m| pos.piece_at(m.to).is_some())
                .copied()
                .collect();
            let pool = if captures.is_empty() {
                &moves
            } else {
                &captures
            };
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let m = pool[(rng % pool.len() as u64) as usize];
            let a = Attempt::Move {
                from: m.from,
                to: m.to,
                promotion: m.promotion,
            };
            assert!(matches!(r.attempt(a), Ok(Answer::Yes(_))));
            if r.ending().is_none() {
                r.end_period().unwrap();
            }
        }
    }
    panic!("no game left a mover without pawns");
}

#[test]
fn silence_rules_read_only_what_the_mover_knows() {
    // any_silence: pawns, the turn's earlier entries, the turn number; nothing else.
    assert_eq!(any_silence(false, 9, &[]), Some(Silence::NoPawns));
    assert_eq!(any_silence(true, 1, &[]), Some(Silence::TooEarly));
    assert_eq!(any_silence(true, 2, &[]), None);
}

#[test]
fn a_legal_move_never_has_an_impossible_shape() {
    // Every legal move along seeded random games passes never_moves_so: the shapes
    // only refuse what no board allows.
    let mut seed = 7_u64;
    let mut checked = 0;
    for game in 0..30u16 {
        let w = Setup::new(game * 31 % 960).unwrap();
        let b = Setup::new(game * 97 % 960).unwrap();
        let mut pos = Setup::start(w, b);
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            for m in &moves {
                let piece = pos.piece_at(m.from).expect("a mover");
                let setup = if piece.color == sealed_games::chess::Color::White {
                    w
                } else {
                    b
                };
                assert!(
                    !never_moves_so(
                        piece.kind,
                        piece.color,
                        m.from,
                        m.to,
                        m.promotion,
                        setup.king_home(piece.color)
                    ),
                    "{} in {}",
                    m.uci(),
                    pos.fen()
                );
                checked += 1;
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            pos = pos.play_unchecked(&moves[(seed >> 33) as usize % moves.len()]);
        }
    }
    assert!(checked > 50_000, "{checked}");
}

#[test]
fn every_square_pair_of_a_knight_is_sorted_right() {
    let from: Square = "d4".parse().unwrap();
    let home: Square = "e1".parse().unwrap();
    let white = sealed_games::chess::Color::White;
    let l_moves = Square::all()
        .filter(|&to| !never_moves_so(Kind::Knight, white, from, to, None, home))
        .count();
    assert_eq!(l_moves, 8);
    let queen = Square::all()
        .filter(|&to| !never_moves_so(Kind::Queen, white, from, to, None, home))
        .count();
    assert_eq!(queen, 27);
}
