//! `sealed replay` on Duel score texts, run as the real binary.

mod common;

use common::{TempDir, code, sealed, stderr, stdout};

fn replay(variant: &str, text: &[u8]) -> std::process::Output {
    let dir = TempDir::new("replay");
    let f = dir.write("score.txt", text);
    sealed(&["replay", variant, &f])
}

#[test]
fn a_legal_finished_game_exits_0() {
    let out = replay(
        "duel",
        b"[Cards \"3\"]\n[Hand \"2\"]\n[Leader \"1\"]\n1. 3 1 2. 2 3 {a comment} 3. 2 1 1-0\n",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("plies     6\n"), "{text}");
    assert!(text.contains("round 3 of 3"), "{text}");
    assert!(text.contains("seat 0 win, seat 1 loss"), "{text}");
}

#[test]
fn a_legal_unfinished_game_exits_0_without_a_result() {
    let out = replay("duel", b"[Cards \"4\"]\n1. 4 1 2. 2\n");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("plies     3\n"), "{text}");
    assert!(text.contains("the game is not over"), "{text}");
}

#[test]
fn an_illegal_ply_exits_1_and_names_it() {
    let out = replay("duel", b"[Cards \"3\"]\n1. 2 1 2. 2 3\n");
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out),
        "illegal: ply 3: seat 0 already played card 2\n"
    );
}

#[test]
fn a_card_off_the_list_exits_1() {
    let out = replay("duel", b"[Cards \"3\"]\n1. 7 1\n");
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).starts_with("illegal: ply 1: "),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_false_result_exits_1() {
    let out = replay("duel", b"[Cards \"2\"]\n[Hand \"1\"]\n1. 2 1 2. 1 2 1-0\n");
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("the score says 1-0"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn unreadable_scores_exit_2() {
    let cases: [&[u8]; 5] = [
        b"1. x y\n",
        b"{ never closed\n",
        b"[Leader \"2\"]\n",
        b"[Cards \"3\"]\n1. 1 2 5. 3 1\n",
        b"[Cards \"3\"]\n1. \xff\xfe 2\n",
    ];
    for text in cases {
        let out = replay("duel", text);
        assert_eq!(code(&out), 2, "{:?}", String::from_utf8_lossy(text));
        assert!(stdout(&out).is_empty());
        assert!(stderr(&out).starts_with("sealed: "), "{}", stderr(&out));
    }
}

#[test]
fn non_utf8_input_says_so() {
    let out = replay("duel", b"[Cards \"3\"]\n\xc3\x28\n");
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("not UTF-8"), "{}", stderr(&out));
}

#[test]
fn an_unknown_variant_exits_2() {
    let out = replay("chess", b"[Cards \"3\"]\n1. 2 1\n");
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(
            "unknown variant \"chess\" (known: duel, cardmate, chex, tempete, stallmate, stallmate-duo)"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_missing_file_exits_2() {
    let dir = TempDir::new("replay-missing");
    let f = dir.path().join("absent.txt");
    let out = sealed(&["replay", "duel", f.to_str().expect("UTF-8")]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("cannot open"), "{}", stderr(&out));
}

#[test]
fn a_folder_is_not_a_score() {
    let dir = TempDir::new("replay-folder");
    let out = sealed(&["replay", "duel", dir.arg()]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).starts_with("sealed: "), "{}", stderr(&out));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(code(&sealed(&[])), 2);
    assert_eq!(code(&sealed(&["replay", "duel"])), 2);
    assert_eq!(code(&sealed(&["verify"])), 2);
    assert_eq!(code(&sealed(&["frobnicate"])), 2);
    assert_eq!(code(&sealed(&["--help"])), 0);
}

#[test]
fn the_cardmate_sample_games_replay_and_draw_their_final_position() {
    for (game, result) in [("game1.txt", "0-1"), ("game2.txt", "1-0")] {
        let score = std::fs::read(format!(
            "{}/../games/scores/cardmate/{game}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("sample score");
        let dir = TempDir::new("replay-cardmate");
        let f = dir.write("score.txt", &score);
        let svg = dir.path().join("final.svg");
        let out = sealed(&[
            "replay",
            "cardmate",
            &f,
            "--svg",
            svg.to_str().expect("utf-8 path"),
        ]);
        assert_eq!(code(&out), 0, "{game}: {}", stderr(&out));
        assert!(
            stdout(&out).contains(&format!("result    {result}")),
            "{}",
            stdout(&out)
        );
        let drawing = std::fs::read_to_string(&svg).expect("svg written");
        assert!(drawing.starts_with("<svg") && drawing.trim_end().ends_with("</svg>"));
    }
}

#[test]
fn an_illegal_cardmate_move_names_its_ply() {
    // 2. 4Ci2: the Four's quiet step back needs an empty square, and i2 holds the
    // Deuce of Diamonds.
    let out = replay("cardmate", b"1. 4Ci3 4Db6 2. 4Ci2 *\n");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stdout(&out).contains("ply 3"), "{}", stdout(&out));
}

#[test]
fn svg_of_a_game_without_a_board_is_refused() {
    let dir = TempDir::new("replay-svg");
    let f = dir.write("score.txt", b"[Cards \"2\"]\n[Hand \"1\"]\n1. 2 1\n");
    let svg = dir.path().join("x.svg");
    let out = sealed(&[
        "replay",
        "duel",
        &f,
        "--svg",
        svg.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code(&out), 2);
    assert!(!svg.exists());
}

#[test]
fn the_chex_score_files_replay_and_draw_their_final_position() {
    let dir_path = format!("{}/../games/scores/chex", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for entry in std::fs::read_dir(&dir_path).expect("score folder") {
        let path = entry.expect("entry").path();
        let dir = TempDir::new("replay-chex");
        let svg = dir.path().join("final.svg");
        let out = sealed(&[
            "replay",
            "chex",
            path.to_str().expect("utf-8"),
            "--svg",
            svg.to_str().expect("utf-8"),
        ]);
        assert_eq!(code(&out), 0, "{}: {}", path.display(), stderr(&out));
        assert!(
            std::fs::read_to_string(&svg)
                .expect("svg")
                .starts_with("<svg")
        );
        n += 1;
    }
    assert!(n >= 2);
}
