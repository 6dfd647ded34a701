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
        stderr(&out).contains("unknown variant \"chess\" (known: duel, cardmate)"),
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
