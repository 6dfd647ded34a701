//! Secret Stallmate with a witness through the real binary: two bot players' nodes, a
//! `sealed referee` and a `sealed node --witness`, each its own process. The referee
//! answers and closes by the witness's stamps, so when the referee's and the witness's
//! processes are killed mid-game and started again (the referee's stamps were in memory
//! only; the witness's are in its store), the game goes on: the witness repeats every
//! time it gave, and the finished game verifies (exit 0) with every seat's stamps in it.

mod common;

use std::time::Duration;

use common::{TempDir, at_home, code, free_port, start_node_with, stderr, stdout, wait_for};

#[test]
fn a_witnessed_game_survives_the_referee_and_the_witness_restarting() {
    let dir = TempDir::new("stallmate-witness");
    let names = ["white", "black", "referee", "witness"];
    let [white, black, referee, witness] = names.map(|n| dir.path().join(n));
    for (home, name) in [&white, &black, &referee, &witness].into_iter().zip(names) {
        assert_eq!(code(&at_home(home, &["init", "--name", name])), 0);
    }
    let any = "/ip4/127.0.0.1/tcp/0";
    let _w = start_node_with(&white, "node", any, &["--bots"], &[]);
    let b = start_node_with(&black, "node", any, &["--bots"], &[]);
    // The referee and the witness keep their addresses across their restarts.
    let r_at = format!("/ip4/127.0.0.1/tcp/{}", free_port());
    let x_at = format!("/ip4/127.0.0.1/tcp/{}", free_port());
    let r = start_node_with(&referee, "referee", &r_at, &[], &[]);
    let x = start_node_with(&witness, "node", &x_at, &["--witness"], &[]);
    let args = [
        "new",
        "stallmate",
        "--peer",
        &b.addr,
        "--referee",
        &r.addr,
        "--witness",
        &x.addr,
        "-o",
        "period=2s",
        "-o",
        "ply-limit=8",
    ];
    let out = at_home(&white, &args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    // Black's node (bots on) accepts by itself.
    wait_for(&referee, &game, "a few periods", |v| {
        v["phase"] == "play" && v["ply"].as_u64().unwrap_or(0) >= 2
    });
    drop(r);
    drop(x);
    std::thread::sleep(Duration::from_millis(500));
    let _x = start_node_with(&witness, "node", &x_at, &["--witness"], &[]);
    let _r = start_node_with(&referee, "referee", &r_at, &[], &[]);
    for home in [&white, &black, &referee] {
        wait_for(home, &game, "the end", |v| v["phase"] == "done");
    }
    let file = dir.path().join("game.sealed");
    let f = file.to_str().expect("utf-8");
    assert_eq!(
        code(&at_home(&white, &["export", &game, "--transcript", f])),
        0
    );
    let v = common::sealed(&["verify", f]);
    assert_eq!(code(&v), 0, "{}", stdout(&v));
    // Bots that always have a move find one within each period: no forfeit.
    assert!(!stdout(&v).contains("lost on time"), "{}", stdout(&v));
    // Every seat posted its stamps before it closed, each a receipt of the game's
    // witness.
    let bytes = std::fs::read(&file).expect("the transcript");
    let t = sealed_protocol::transcript::TranscriptFile::from_bytes(&bytes).expect("readable");
    let terms = sealed_protocol::proposal::Terms::parse(&t.proposal).expect("terms");
    let mut stamped: Vec<u8> =
        t.envelopes
            .iter()
            .filter_map(|b| sealed_protocol::envelope::Signed::parse(&terms, b).ok())
            .filter(|s| {
                s.env.unsigned.body.iter().any(
                    |i| matches!(i, sealed_protocol::body::Item::Statements(st) if !st.is_empty()),
                )
            })
            .map(|s| s.at().chain.seat.0)
            .collect();
    stamped.sort_unstable();
    stamped.dedup();
    assert_eq!(stamped, vec![0, 1, 2]);
}
