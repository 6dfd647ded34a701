//! A player who walks away, through the real binary: with a witness both players chose
//! (`sealed node --witness`, protocol version 2), the one left behind gets a proven win
//! on time that `sealed verify` confirms (exit 0); without one, the walk-away stays a
//! timeout claim (exit 3), as before. And the winner's own crash after his last move,
//! with the witness restarted meanwhile, costs him nothing. Secret Stallmate's too.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{
    Node, TempDir, at_home, code, free_port, start_node, start_node_with, stdout, wait_for,
};

const PER_MOVE: &str = "time-per-move=2s";

/// Three homes, each with its name.
fn homes(dir: &TempDir) -> [std::path::PathBuf; 3] {
    let homes = ["alice", "bob", "witness"].map(|n| dir.path().join(n));
    for (h, n) in homes.iter().zip(["alice", "bob", "witness"]) {
        assert_eq!(code(&at_home(h, &["init", "--name", n])), 0);
    }
    homes
}

/// Three homes with a node each: Alice's (with bots), Bob's, and the witness's.
fn three(dir: &TempDir) -> ([std::path::PathBuf; 3], Node, Node, Node) {
    let [alice, bob, witness] = homes(dir);
    let a = start_node_with(&alice, "node", "/ip4/127.0.0.1/tcp/0", &["--bots"], &[]);
    let b = start_node(&bob, "node");
    let w = start_node_with(
        &witness,
        "node",
        "/ip4/127.0.0.1/tcp/0",
        &["--witness"],
        &[],
    );
    ([alice, bob, witness], a, b, w)
}

/// Alice (a bot) proposes a Duel to Bob with `extra` arguments; Bob accepts and waits
/// until it is his turn. The game's id.
fn until_bobs_turn(alice: &Path, bob: &Path, b: &Node, extra: &[&str]) -> String {
    let mut args = vec!["-o", PER_MOVE];
    args.extend(extra);
    until_bobs_turn_with(alice, bob, b, &args)
}

/// As [`until_bobs_turn`], with every argument after the peer given.
fn until_bobs_turn_with(alice: &Path, bob: &Path, b: &Node, extra: &[&str]) -> String {
    let mut args = vec!["new", "duel", "--peer", &b.addr];
    args.extend(extra);
    let out = at_home(alice, &args);
    assert_eq!(code(&out), 0, "{}", common::stderr(&out));
    let game = stdout(&out).trim().to_owned();
    wait_for(bob, &game, "the invitation", |v| v["my_turn"] == true);
    assert_eq!(code(&at_home(bob, &["accept", &game])), 0);
    wait_for(bob, &game, "his turn", |v| {
        v["phase"] == "play" && v["my_turn"] == true
    });
    // Bob's node shows his turn once his coin reveal is made, maybe before it reached
    // Alice: he walks away at his turn in play only once Alice holds it too (else he
    // walked away in the coin phase, where no clock runs).
    wait_for(alice, &game, "Bob's coin reveal", |v| v["phase"] == "play");
    game
}

/// What `sealed verify` says of the transcript `home` exports now: exit code, stdout.
fn verify(home: &Path, dir: &TempDir, game: &str) -> (i32, String) {
    let file = dir.path().join(format!("{}.sealed", &game[..8]));
    let f = file.to_str().expect("utf-8");
    let out = at_home(home, &["export", game, "--transcript", f]);
    assert_eq!(code(&out), 0, "{}", common::stderr(&out));
    let v = common::sealed(&["verify", f]);
    (code(&v), stdout(&v))
}

#[test]
fn a_player_who_walks_away_loses_on_time_proven_by_the_witness() {
    let dir = TempDir::new("walk-away");
    let ([alice, bob, witness], _a, b, w) = three(&dir);
    let game = until_bobs_turn(&alice, &bob, &b, &["--witness", &w.addr]);
    drop(b); // Bob walks away: his node is gone.
    wait_for(&alice, &game, "the end", |v| v["phase"] == "done");
    let (exit, text) = verify(&alice, &dir, &game);
    assert_eq!(exit, 0, "{text}");
    assert!(
        text.contains("seat 0 win, seat 1 loss (seat 1 lost on time)"),
        "{text}"
    );
    // The witness whose times decided is named (issue 32).
    let witness_id = common::peer_of(&w.addr);
    assert!(
        text.contains(&format!("the witness {witness_id} proved seat 1")),
        "{text}"
    );
    // The witness relayed the game and holds it as such.
    let games = stdout(&at_home(&witness, &["games"]));
    assert!(games.contains("relayed"), "{games}");
}

/// The correspondence players' control, "N moves in D" (here 2 moves in 3 s): Bob
/// walks away before his first move and loses on time when the period is gone.
#[test]
fn under_n_moves_in_d_a_player_who_walks_away_loses_on_time() {
    let dir = TempDir::new("walk-away-period");
    let ([alice, bob, _], _a, b, w) = three(&dir);
    let game = until_bobs_turn_with(
        &alice,
        &bob,
        &b,
        &[
            "-o",
            "time-moves=2",
            "-o",
            "time-period=3s",
            "--witness",
            &w.addr,
        ],
    );
    drop(b);
    wait_for(&alice, &game, "the end", |v| v["phase"] == "done");
    let (exit, text) = verify(&alice, &dir, &game);
    assert_eq!(exit, 0, "{text}");
    assert!(
        text.contains("seat 0 win, seat 1 loss (seat 1 lost on time)"),
        "{text}"
    );
}

/// With a witness, `show` counts the wait in progress by the witness's times — the ones
/// a forfeit would use — on both sides: here 2 moves in 1 h, with 1 d of leave.
#[test]
fn the_clock_shown_is_the_witnesss() {
    let dir = TempDir::new("witness-clock");
    let ([alice, bob, _], _a, b, w) = three(&dir);
    let game = until_bobs_turn_with(
        &alice,
        &bob,
        &b,
        &[
            "-o",
            "time-moves=2",
            "-o",
            "time-period=1h",
            "-o",
            "time-leave=1d",
            "--witness",
            &w.addr,
        ],
    );
    for (home, who, leave) in [
        (&bob, "you", "leave: alice 1d, you 1d"),
        (&alice, "bob", "leave: you 1d, bob 1d"),
    ] {
        let v = wait_for(home, &game, "the witness's clock", |v| {
            v["clock"]["text"]
                .as_str()
                .is_some_and(|t| t.contains("by the witness's times"))
        });
        let text = v["clock"]["text"].as_str().unwrap_or_default();
        // Bob's first move: 1 h and the day of leave, less the seconds gone.
        assert!(
            text.starts_with(&format!("{who} to move: waited ")),
            "{text}"
        );
        assert!(
            text.contains(", 1d 5") && text.contains("m left by the witness's times; "),
            "{text}"
        );
        assert!(text.ends_with(leave), "{text}");
    }
    // Both players keep the witness connected, and `peers` says it is their game's
    // witness (it said "mailbox", issue 55 item 4).
    let witness_id = common::peer_of(&w.addr);
    for home in [&alice, &bob] {
        let book = stdout(&at_home(home, &["peers"]));
        let line = book
            .lines()
            .find(|l| l.starts_with(witness_id))
            .unwrap_or_else(|| panic!("the witness is in the book: {book}"));
        assert!(line.contains("witness of a game"), "{line}");
        assert!(!line.contains("mailbox"), "{line}");
    }
}

/// "N moves in D" needs protocol version 2: without a witness the proposal is refused,
/// saying why, before anything is sent.
#[test]
fn n_moves_in_d_without_a_witness_is_refused() {
    let dir = TempDir::new("period-v1");
    let [alice, bob, _] = homes(&dir);
    let _a = start_node(&alice, "node");
    let b = start_node(&bob, "node");
    let out = at_home(
        &alice,
        &[
            "new",
            "duel",
            "--peer",
            &b.addr,
            "-o",
            "time-moves=2",
            "-o",
            "time-period=3s",
        ],
    );
    assert_eq!(code(&out), 2, "{}", common::stderr(&out));
    assert!(
        common::stderr(&out).contains("time-moves and time-period need a witness"),
        "{}",
        common::stderr(&out)
    );
}

#[test]
fn without_a_witness_a_walk_away_stays_a_timeout_claim() {
    let dir = TempDir::new("walk-away-claim");
    let [alice, bob, _] = homes(&dir);
    let _a = start_node_with(&alice, "node", "/ip4/127.0.0.1/tcp/0", &["--bots"], &[]);
    let b = start_node(&bob, "node");
    let game = until_bobs_turn(&alice, &bob, &b, &[]);
    drop(b);
    let start = Instant::now();
    loop {
        let (exit, text) = verify(&alice, &dir, &game);
        if text.contains("says seat 1") && text.contains("let the agreed time pass") {
            assert_eq!(exit, 3, "{text}");
            assert!(!text.contains("lost on time"), "{text}");
            // No witness was agreed: the report says what one would have made of it.
            assert!(text.contains("No witness was agreed"), "{text}");
            assert!(text.contains("`sealed new --witness ADDR`"), "{text}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no timeout claim: {text}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn the_winner_crashing_after_his_last_move_still_wins_on_time() {
    let dir = TempDir::new("walk-away-crash");
    let [alice, bob, witness] = homes(&dir);
    let a = start_node_with(&alice, "node", "/ip4/127.0.0.1/tcp/0", &["--bots"], &[]);
    let b = start_node(&bob, "node");
    // The witness keeps its address across its restart.
    let at = format!("/ip4/127.0.0.1/tcp/{}", free_port());
    let w = start_node_with(&witness, "node", &at, &["--witness"], &[]);
    let w_addr = w.addr.clone();
    let game = until_bobs_turn(&alice, &bob, &b, &["--witness", &w_addr]);
    // Alice's node dies right after her move, then the witness's; Bob is gone for good.
    drop(a);
    drop(w);
    drop(b);
    let _w = start_node_with(&witness, "node", &at, &["--witness"], &[]);
    // Back after Bob's deadline has passed.
    std::thread::sleep(Duration::from_secs(3));
    let _a = start_node_with(&alice, "node", "/ip4/127.0.0.1/tcp/0", &["--bots"], &[]);
    wait_for(&alice, &game, "the end", |v| v["phase"] == "done");
    let (exit, text) = verify(&alice, &dir, &game);
    assert_eq!(exit, 0, "{text}");
    assert!(text.contains("(seat 1 lost on time)"), "{text}");
}

/// `sealed demo ARGS` run in a folder of its own: the demo saves its transcript in the
/// folder it runs in, and a test must leave the checkout as it found it.
fn demo(dir: &TempDir, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sealed"))
        .arg("demo")
        .args(args)
        .current_dir(dir.path())
        .output()
        .expect("the binary runs")
}

/// `sealed demo <variant> --walk-away`, as the README shows it: a proven loss on time
/// with a witness (exit 0), a timeout claim without one (exit 3).
#[test]
fn the_walk_away_demo_ends_on_time_with_a_witness_and_not_without() {
    let dir = TempDir::new("walk-demo");
    for variant in ["duel", "chex"] {
        let out = demo(&dir, &[variant, "--walk-away"]);
        assert_eq!(code(&out), 0, "{}{}", stdout(&out), common::stderr(&out));
        assert!(
            stdout(&out).contains("seat 1 lost on time"),
            "{}",
            stdout(&out)
        );
    }
    let out = demo(&dir, &["duel", "--walk-away", "--no-witness"]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("a timeout is only claimed"),
        "{}",
        stdout(&out)
    );
}

/// Secret Stallmate's walk-away demo: four nodes (two players, the referee, the
/// witness). With the witness, the stamps prove the walker's period passed without a
/// move: −10 / 0, verified (exit 0); without, the referee's close is his word on time, a
/// claim with no result (exit 3).
#[test]
fn the_stallmate_walk_away_demo_is_a_proven_forfeit_with_a_witness_and_a_claim_without() {
    let dir = TempDir::new("walk-demo-stallmate");
    let out = demo(&dir, &["stallmate", "--walk-away"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), common::stderr(&out));
    assert!(
        stdout(&out).contains("seat 0 +0, seat 1 -10 (seat 1 lost on time)"),
        "{}",
        stdout(&out)
    );
    let out = demo(&dir, &["stallmate", "--walk-away", "--no-witness"]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("the referee's word on time is a claim"),
        "{}",
        stdout(&out)
    );
}
