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

#[test]
fn game_2_rearhands_moves_after_23_are_all_compelled() {
    // The note: 23...8S:j7 "was Rearhand's last freely chosen move". From there on,
    // every Rearhand move must be a same-suit capture.
    let score = score("game2.txt");
    let main: String = score.split("24.").next().unwrap().to_owned();
    let rest = [
        "24. 8Hd4",
        "JH:d4",
        "25. 6Se3",
        "JH:f4",
        "26. QH:d9",
        "JH:g2",
        "27. 5D:g2",
        "27. ... 9S:e3",
        "28. QD:e3",
        "XD:a2",
        "29. QD:e8+",
        "KD:e8",
    ];
    let mut text = main;
    for (i, mv) in rest.iter().enumerate() {
        text.push(' ');
        text.push_str(mv);
        if i % 2 == 0 {
            // Rearhand moves next: every legal move is a same-suit capture.
            let (pos, _) = cardmate::replay_score(&text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(pos.to_move, Side::Rearhand);
            let legal = pos.legal_moves(&Options::default());
            assert!(
                !legal.is_empty() && legal.iter().all(|m| m.same_suit_capture()),
                "after {mv}: {legal:?}"
            );
        }
    }
}

fn unreadable(text: &str) -> String {
    match cardmate::replay_score(text) {
        Err(sealed_games::replay::ReplayError::Unreadable(why)) => why,
        other => panic!("expected unreadable, got {other:?}"),
    }
}

#[test]
fn score_format_errors_are_unreadable_with_a_reason() {
    assert!(unreadable("1. 4Ci3 3. 4Db6").contains("move number 3. out of place"));
    assert!(unreadable("1. 4Ci3 1. 4Db6").contains("the next move is 1..."));
    assert!(unreadable("1. 4Ci3 4Db6 2. JS~").contains("side line"));
    assert!(
        unreadable("[Setup \"random\"]\n[Setup \"predefined\"]\n1. 4Ci3").contains("given twice")
    );
    assert!(unreadable("1. 4Ci3 ( 1. 4Di3 1-0 ) 1... 4Db6").contains("inside a side line"));
    assert!(unreadable("1. 4Ci3 ... 4Db6").contains("'...'"));
}

#[test]
fn promotion_marks_are_explained() {
    let err = cardmate::replay_score("1. 4Ci3=A").unwrap_err();
    assert!(err.to_string().contains("cannot promote"), "{err}");
}
