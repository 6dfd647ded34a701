//! The seed's two sample games are the acceptance test of the reconstructed rules:
//! both replay legally, move by move, to their stated results, and the moves the notes
//! call forced are the only legal moves.

use sealed_games::cardmate::{self, Options, Position, Side};

fn score(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/scores/cardmate/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("score file")
}

#[test]
fn game_1_replays_to_a_rearhand_win() {
    let (pos, plies) =
        cardmate::replay_score(&score("game1.txt")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plies, 40);
    assert_eq!(
        pos.end.and_then(|e| e.winner()),
        Some(Side::Rearhand),
        "{:?}",
        pos.end
    );
}

#[test]
fn game_2_replays_to_a_forehand_win() {
    let (pos, plies) =
        cardmate::replay_score(&score("game2.txt")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plies, 59);
    assert_eq!(
        pos.end.and_then(|e| e.winner()),
        Some(Side::Forehand),
        "{:?}",
        pos.end
    );
}

const GAME_1_MAIN: &str = "1. 4Ci3 4Db6 2. 8Dj2 8Ca7 3. 8Dh3 8Cc6 4. 7Cb1 7Di8 5. 3Cd3 3Di6 6. 8Hc2 4Dc5 \
    7. JSf3 9Sa7 8. 9H:c5 9S:c5 9. 2Sa3 9S:a3 10. 1D:a3 8Sh7 11. 3Cd4 8C:d4 12. 8H:d4 8Sg5 \
    13. JS:g5 3Hc6 14. JS:g7 6H:g7 15. 8H:c6 JH:c6 16. 1Da4 QSh8 17. 8Di5 QS:h2 18. 8D:j7 7Dh8";

fn only_move(pos: &Position) -> String {
    let moves = pos.legal_moves(&Options::default());
    assert_eq!(
        moves.len(),
        1,
        "forced means one legal move, got {}",
        moves.len()
    );
    cardmate::write_move(&moves[0], cardmate::Mark::None)
}

#[test]
fn game_1_forehands_moves_19_and_20_are_forced() {
    let (pos, _) = cardmate::replay_score(GAME_1_MAIN).unwrap();
    // 18. ... 7Dh8 offers the Eight a same-suit capture it must take.
    assert_eq!(only_move(&pos), "8D:h8");
    let (pos, _) = cardmate::replay_score(&format!("{GAME_1_MAIN} 19. 8D:h8 QS:f0+")).unwrap();
    assert_eq!(only_move(&pos), "8D:i6");
}

#[test]
fn the_notes_side_lines_are_legal_and_wrong_ones_are_not() {
    // The note's better 18th move for Forehand, and its sub-line with any Queen move.
    let line = format!(
        "{} 18. 7Si1 QS:i1 19. XC:j7 XH:j7 20. 6D:i1",
        GAME_1_MAIN.rsplit_once(" 18.").unwrap().0
    );
    assert!(cardmate::replay_score(&line).is_ok());
    // A move the rules forbid inside a side line is reported, with its ply.
    let bad = format!(
        "{} 18. 8D:j7 ( 18. 7Si1 QS:i1 19. XC:j9 ) 7Dh8",
        GAME_1_MAIN.rsplit_once(" 18.").unwrap().0
    );
    let err = cardmate::replay_score(&bad).unwrap_err();
    assert!(
        matches!(&err, sealed_games::replay::ReplayError::Illegal { ply: 37, reason } if reason.contains("side line")),
        "{err:?}"
    );
}
