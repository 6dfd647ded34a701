//! Two people play through the real binary, as the README tells them to: `sealed init`,
//! `sealed node` (a long-running process each), `new`, `accept`, `move`, `show`,
//! `resign`, `export`, `verify`, `replay`. Bad input at every step gets a clear error,
//! a non-zero exit, and changes nothing.

mod common;

use std::path::Path;

use common::at_home as run;
use common::show_json as show;
use common::{TempDir, code, refused, sealed, start_node, stderr, stdout, wait_for};
use serde_json::Value;

/// Polls `show --json` on `home` until `cond` holds.
fn wait(home: &Path, game: &str, cond: impl Fn(&Value) -> bool) -> Value {
    wait_for(home, game, "the awaited state", cond)
}

#[test]
fn two_people_play_a_game_through_the_command_line() {
    let dir = TempDir::new("play");
    let (alice, bob) = (dir.path().join("alice"), dir.path().join("bob"));
    for (home, name) in [(&alice, "alice"), (&bob, "bob")] {
        let out = run(home, &["init", "--name", name]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stdout(&out).contains("peer id"));
    }
    refused(&run(&alice, &["init"]), "");

    // With no node running, the game commands read the store; those that need the
    // network say so.
    assert_eq!(stdout(&run(&alice, &["games"])), "no games\n");
    refused(
        &run(&alice, &["dial", "/ip4/127.0.0.1/tcp/1"]),
        &format!("`sealed --home {} node`", alice.display()),
    );

    let _a = start_node(&alice, "node");
    let b = start_node(&bob, "node");
    assert!(b.addr.starts_with("/ip4/127.0.0.1/tcp/"), "{}", b.addr);

    // Bad proposals: unknown variant, bad option, bad address.
    refused(&run(&alice, &["new", "go", "--peer", &b.addr]), "variant");
    refused(
        &run(
            &alice,
            &["new", "cardmate", "--peer", &b.addr, "-o", "palace"],
        ),
        "key=value",
    );
    refused(
        &run(
            &alice,
            &[
                "new",
                "cardmate",
                "--peer",
                &b.addr,
                "-o",
                "time-per-move=3w",
            ],
        ),
        "unit",
    );
    refused(&run(&alice, &["new", "cardmate", "--peer", "nowhere"]), "");
    assert_eq!(stdout(&run(&alice, &["games"])), "no games\n");

    let out = run(
        &alice,
        &[
            "new",
            "cardmate",
            "--peer",
            &b.addr,
            "-o",
            "time-per-move=3d",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    assert_eq!(game.len(), 64, "{game}");
    let short = &game[..10];

    // Bob sees the invitation in his list and accepts it by a prefix of its id.
    wait(&bob, short, |v| v["my_turn"] == true);
    let list = stdout(&run(&bob, &["games"]));
    assert!(
        list.contains(&game[..12]) && list.contains("cardmate"),
        "{list}"
    );
    refused(&run(&bob, &["accept", "ffffffff"]), "no game");
    refused(&run(&alice, &["accept", short]), "you proposed this game");
    refused(
        &run(&alice, &["move", short, &"4".repeat(100_000)]),
        "longer than any move",
    );
    assert!(stderr(&run(&alice, &["move", short, &"4".repeat(100_000)])).len() < 300);
    assert_eq!(code(&run(&bob, &["accept", short])), 0);
    wait(&alice, short, |v| {
        v["my_turn"] == true && v["phase"] == "play"
    });

    // Refusals that change nothing: bad notation, an illegal move, a stale --expect,
    // not your turn, an unknown game.
    refused(&run(&alice, &["move", short, "banana"]), "");
    // Two moves in one command: one at a time, said so.
    refused(
        &run(&alice, &["move", short, "4Ci3", "4Db6"]),
        "one move at a time",
    );
    refused(&run(&alice, &["move", short, "4Ci5"]), "");
    refused(
        &run(&alice, &["move", short, "4Ci3", "--expect", "7"]),
        "nothing sent",
    );
    refused(&run(&bob, &["move", short, "4Db6"]), "");
    refused(&run(&alice, &["move", "0000", "4Ci3"]), "no game");
    refused(&run(&alice, &["draw", "maybe", short]), "offer or accept");
    let v = show(&alice, short).unwrap();
    assert_eq!(v["ply"], 0);
    assert!(
        v["clock"]["text"]
            .as_str()
            .unwrap()
            .starts_with("you to move: waited "),
        "{v}"
    );
    // No leave was agreed: none is shown.
    assert!(
        !v["clock"]["text"].as_str().unwrap().contains("leave"),
        "{v}"
    );

    // The moves, each guarded by the ply it expects; each says it was done.
    let out = run(&alice, &["move", short, "4Ci3", "--expect", "0"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("4Ci3: sent (ply 1), delivered to bob"),
        "{}",
        stdout(&out)
    );
    wait(&bob, short, |v| v["ply"] == 1 && v["my_turn"] == true);
    let text = stdout(&run(&bob, &["show", short]));
    assert!(text.contains("clock:"), "{text}");
    assert_eq!(
        code(&run(&bob, &["move", short, "4Db6", "--expect", "1"])),
        0
    );
    wait(&alice, short, |v| v["ply"] == 2);
    assert_eq!(code(&run(&alice, &["resign", short])), 0);
    let v = wait(&bob, short, |v| v["phase"] == "done");
    // A finished game has no clock to show.
    assert!(v["clock"].is_null(), "{v}");
    assert!(!stdout(&run(&bob, &["show", short])).contains("clock:"));
    assert!(
        v["verdict"]["outcome"]["reason"]
            .as_str()
            .unwrap()
            .contains("resigned"),
        "{v}"
    );

    // The transcript verifies offline; the score replays; the board draws.
    // The export goes into a folder of its own (the nodes' logs are in `dir`).
    let folder = dir.path().join("export");
    std::fs::create_dir(&folder).unwrap();
    let transcript = folder.join("game.sealed");
    let score = folder.join("game.txt");
    let svg = dir.path().join("board.svg");
    refused(&run(&bob, &["export", short]), "--transcript");
    let out = run(
        &bob,
        &[
            "export",
            short,
            "--transcript",
            transcript.to_str().unwrap(),
            "--score",
            score.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("game.sealed written") && stdout(&out).contains("game.txt written"),
        "{}",
        stdout(&out)
    );
    // Cardmate is not played on a chess board: no PGN, said; the score is written all
    // the same, and the exit code says not all was.
    let (pgn, score2) = (folder.join("game.pgn"), folder.join("again.txt"));
    let out = run(
        &bob,
        &[
            "export",
            short,
            "--score",
            score2.to_str().unwrap(),
            "--pgn",
            pgn.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("no PGN"), "{}", stderr(&out));
    assert!(!pgn.exists() && score2.exists());
    // The folder the export wrote into verifies: the score beside the transcript is
    // passed over, and said.
    let out = sealed(&["verify", folder.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("game.txt: skipped"),
        "{}",
        stderr(&out)
    );
    let out = sealed(&["verify", transcript.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let out = sealed(&["replay", "cardmate", score.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = run(&bob, &["show", short, "--svg", svg.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
}
