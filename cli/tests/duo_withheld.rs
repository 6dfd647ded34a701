//! A message withheld in Secret Stallmate without a referee (spec/GAMES.md §5.15, "A
//! message withheld"), through the real binary: White's node signs the hash of the
//! start's G1 (message 3, megabytes of garbled tables) and never sends the bytes (the
//! fault point `computations-withhold`). Black's node says it lacks the message a minute
//! later; White's node leaves it with the witness, sealed to Black, and posts the stamp;
//! Black's node fetches it there and the game goes on to its end, verified (exit 0),
//! with no fault against anyone — the honest receiver never owes the wait. White's node
//! is killed and started again while Black waits for the message: it makes the message
//! again from its seed for the deposit.

mod common;

use common::{TempDir, at_home, code, start_node_with, stderr, stdout, wait_for_within};
use sealed_games::stallmate::duo::acts::{Act, decode};
use sealed_protocol::body::Item;
use sealed_protocol::envelope::Signed;
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::TranscriptFile;

#[test]
fn a_message_withheld_is_taken_from_the_witness_and_the_game_verifies() {
    if !sealed_node::faults::enabled() {
        eprintln!("skipped: this build has no fault points");
        return;
    }
    let dir = TempDir::new("duo-withheld");
    let names = ["white", "black", "witness"];
    let [white, black, witness] = names.map(|n| dir.path().join(n));
    for (home, name) in [&white, &black, &witness].into_iter().zip(names) {
        assert_eq!(code(&at_home(home, &["init", "--name", name])), 0);
    }
    let any = "/ip4/127.0.0.1/tcp/0";
    let withhold = [("FAILPOINTS", "computations-withhold=return(3)")];
    let w = start_node_with(&white, "node", any, &["--bots"], &withhold);
    let b = start_node_with(&black, "node", any, &["--bots"], &[]);
    let x = start_node_with(&witness, "node", any, &["--witness"], &[]);
    let args = [
        "new",
        "stallmate",
        "--no-referee",
        "--peer",
        &b.addr,
        "--witness",
        &x.addr,
        "-o",
        "ply-limit=2",
        "-o",
        "time-per-move=1h",
    ];
    let out = at_home(&white, &args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    // Message 3 signed (Black's 0 and 2, White's 1 and 3): Black waits for its bytes.
    wait_for_within(&black, &game, "message 3 signed", 120, |v| {
        v["ply"].as_u64() >= Some(4)
    });
    drop(w);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _w = start_node_with(&white, "node", any, &["--bots"], &withhold);
    // A minute for Black to say he lacks it, then the game.
    for home in [&white, &black] {
        wait_for_within(home, &game, "the end", 400, |v| v["phase"] == "done");
    }
    let file = dir.path().join("game.sealed");
    let f = file.to_str().expect("utf-8");
    assert_eq!(
        code(&at_home(&black, &["export", &game, "--transcript", f])),
        0
    );
    let v = common::sealed(&["verify", f]);
    assert_eq!(code(&v), 0, "{}", stdout(&v));
    // The path was the witness's: Black said he lacked it, White posted the stamp.
    let bytes = std::fs::read(&file).expect("the transcript");
    let t = TranscriptFile::from_bytes(&bytes).expect("readable");
    let terms = Terms::parse(&t.proposal).expect("terms");
    let acts: Vec<Act> = t
        .envelopes
        .iter()
        .filter_map(|b| Signed::parse(&terms, b).ok())
        .flat_map(|s| s.env.unsigned.body.clone())
        .filter_map(|i| match i {
            Item::Act(a) => decode(&a).ok(),
            _ => None,
        })
        .collect();
    assert_eq!(
        acts.iter().filter(|a| **a == Act::Lacking).count(),
        1,
        "{acts:?}"
    );
    assert!(
        acts.iter().any(|a| matches!(a, Act::Deposited(_))),
        "{acts:?}"
    );
}
