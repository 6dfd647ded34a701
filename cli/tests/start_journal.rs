//! The start journal (issue 52, `node/src/journal.rs`): a game whose restore kills the
//! node (here an abort at a fault point, as a stack overflow would) is set aside at
//! the next start, listed as crashed with why, kept whole, and taken up again by
//! `sealed resume` — and the node starts without it, its other games with it.

mod hostile_kit;

use std::process::{Command, Stdio};
use std::time::Duration;

use hostile_kit::{Dir, bin, init, invite, random_peer_id, sealed, start};
use serde_json::Value;

fn games(home: &std::path::Path) -> Vec<Value> {
    let out = sealed(home, &["games", "--json"]);
    serde_json::from_slice::<Value>(&out.stdout)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
}

fn status_of(home: &std::path::Path, game: &str) -> Option<String> {
    games(home)
        .into_iter()
        .find(|g| g["game"] == game)
        .and_then(|g| g["status"].as_str().map(str::to_owned))
}

#[test]
fn a_game_whose_restore_stops_the_node_is_set_aside_and_taken_up_again() {
    if !sealed_node::faults::enabled() {
        eprintln!("skipped: this build has no fault points");
        return;
    }
    let dir = Dir::new("journal");
    let home = dir.home("alice");
    init(&home, "alice");
    let node = start(&home, "node", "/ip4/127.0.0.1/tcp/0", &[]);
    // Two games proposed to peers that are nowhere: both stay proposed.
    for n in 0..2 {
        let peer = format!("/ip4/127.0.0.1/tcp/9/p2p/{}", random_peer_id(7000 + n));
        invite(&home, &["duel", "--peer", &peer, "--wait", "1"]);
    }
    let ids: Vec<String> = games(&home)
        .iter()
        .filter_map(|g| g["game"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(ids.len(), 2, "two games proposed");
    let (victim, other) = (&ids[0], &ids[1]);
    drop(node);

    // A start that dies restoring the victim, as a stack overflow would kill it.
    let died = Command::new(bin())
        .arg("--home")
        .arg(&home)
        .args(["node", "--listen", "/ip4/127.0.0.1/tcp/0", "--no-mdns"])
        .env(
            "FAILPOINTS",
            format!("restore-crash=return({})", &victim[..16]),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the node runs");
    assert!(!died.success(), "the fault point stops the start");

    // The next start sets the victim aside and runs every other game.
    let node = start(&home, "node", "/ip4/127.0.0.1/tcp/0", &[]);
    assert_eq!(status_of(&home, victim).as_deref(), Some("crashed"));
    assert_eq!(status_of(&home, other).as_deref(), Some("proposed"));
    // And it stays aside across a restart that goes well (the mark is in the store).
    drop(node);
    let _node = start(&home, "node", "/ip4/127.0.0.1/tcp/0", &[]);
    assert_eq!(status_of(&home, victim).as_deref(), Some("crashed"));
    let shown = sealed(&home, &["show", &victim[..12]]);
    assert!(
        String::from_utf8_lossy(&shown.stderr).contains("sealed resume"),
        "the game says how to take it up again: {shown:?}"
    );

    // Taken up again, whole.
    let resumed = sealed(&home, &["resume", &victim[..12]]);
    assert!(resumed.status.success(), "{resumed:?}");
    assert_eq!(status_of(&home, victim).as_deref(), Some("proposed"));
    // Nothing else to resume.
    let again = sealed(&home, &["resume", &other[..12]]);
    assert!(!again.status.success(), "{again:?}");
    std::thread::sleep(Duration::from_millis(200));
}
