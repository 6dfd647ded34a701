//! A mistaken invitation taken back (issue 32, point 2; spec/PROTOCOL.md §17.14) and each
//! player's own name signed into the game (§17.15), with real nodes: `sealed withdraw`
//! shows the game withdrawn on both sides, the invitee can no longer accept it, the
//! address that never worked goes from the peer book, and an accepted game's transcript
//! carries the name the invitee signed, his node killed and started again before he
//! accepted or not.

mod common;

use common::{
    TempDir, at_home as run, code, free_port, init_peer_id, start_node, start_node_with, stderr,
    stdout, wait_for,
};
use serde_json::Value;

fn games(home: &std::path::Path) -> Vec<Value> {
    let out = run(home, &["games", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_str::<Value>(&stdout(&out))
        .unwrap()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn status(home: &std::path::Path, game: &str) -> String {
    games(home)
        .into_iter()
        .find(|g| g["game"] == game)
        .map(|g| g["status"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default()
}

/// Two homes in `dir`, initialised with the names alice and bob.
fn alice_and_bob(dir: &TempDir) -> (std::path::PathBuf, std::path::PathBuf) {
    let (alice, bob) = (dir.path().join("alice"), dir.path().join("bob"));
    for (home, name) in [(&alice, "alice"), (&bob, "bob")] {
        assert_eq!(code(&run(home, &["init", "--name", name])), 0);
    }
    (alice, bob)
}

#[test]
fn a_mistaken_invitation_is_withdrawn_and_its_address_forgotten() {
    let dir = TempDir::new("withdraw-typo");
    let alice = dir.path().join("alice");
    assert_eq!(code(&run(&alice, &["init", "--name", "alice"])), 0);
    let _a = start_node(&alice, "node");
    // A peer id whose node never runs, at an address where nothing listens: the
    // invitation cannot be delivered.
    let nobody = init_peer_id(&dir.path().join("nobody"), "nobody");
    let wrong = format!("/ip4/127.0.0.1/tcp/{}/p2p/{nobody}", free_port());
    let out = run(&alice, &["new", "duel", "--peer", &wrong, "--wait", "1"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    assert_eq!(status(&alice, &game), "proposed");
    let peers = stdout(&run(&alice, &["peers", "--json"]));
    assert!(
        peers.contains(&wrong),
        "the address given is in the book: {peers}"
    );

    let out = run(&alice, &["withdraw", &game[..12]]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("withdrawn"), "{}", stdout(&out));
    assert_eq!(status(&alice, &game), "withdrawn");
    let list = stdout(&run(&alice, &["games"]));
    assert!(list.contains("withdrawn"), "{list}");
    assert!(!list.contains("resigned"), "{list}");
    // The address that never worked went with it.
    let peers = stdout(&run(&alice, &["peers", "--json"]));
    assert!(!peers.contains(&wrong), "a dead address stayed: {peers}");
    // Once withdrawn, it is over: a second withdrawal or a resignation is refused.
    let again = run(&alice, &["withdraw", &game[..12]]);
    assert_eq!(code(&again), 2, "{}", stdout(&again));
    assert_eq!(code(&run(&alice, &["resign", &game[..12]])), 2);
}

#[test]
fn an_invitation_withdrawn_shows_so_on_both_sides_and_a_signed_name_travels() {
    let dir = TempDir::new("withdraw-both");
    let (alice, bob) = alice_and_bob(&dir);
    let _a = start_node(&alice, "node");
    let b = start_node(&bob, "node");

    let out = run(&alice, &["new", "duel", "--peer", &b.addr]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    wait_for(&bob, &game[..12], "the invitation", |v| {
        v["my_turn"] == true
    });
    // The invitee cannot withdraw what it did not propose.
    let out = run(&bob, &["withdraw", &game[..12]]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("decline"), "{}", stderr(&out));

    // Resigning before anyone accepted takes the proposal back: no loss for anyone.
    let out = run(&alice, &["resign", &game[..12]]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    wait_for(&bob, &game[..12], "the withdrawal", |v| {
        v["waiting_for"]
            .as_str()
            .is_some_and(|w| w.contains("withdrawn"))
    });
    assert_eq!(status(&bob, &game), "withdrawn");
    assert_eq!(status(&alice, &game), "withdrawn");
    let out = run(&bob, &["accept", &game[..12]]);
    assert_eq!(code(&out), 2, "accepted a withdrawn game: {}", stdout(&out));
    for home in [&alice, &bob] {
        let g = games(home).into_iter().find(|g| g["game"] == game).unwrap();
        assert!(g["result"].is_null(), "a withdrawn game has no result: {g}");
    }

    // A game Bob accepts: his acceptance carries the name he signed, and the
    // transcript says it is his own (not only Alice's word for it).
    let out = run(&alice, &["new", "duel", "--peer", &b.addr]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    wait_for(&bob, &game[..12], "the invitation", |v| {
        v["my_turn"] == true
    });
    let out = run(&bob, &["accept", &game[..12]]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    wait_for(&alice, &game[..12], "the coin", |v| v["phase"] == "play");
    let file = dir.path().join("g.sealed");
    let out = run(
        &alice,
        &[
            "export",
            &game[..12],
            "--transcript",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let c = sealed_games::variant::check_transcript(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(c.names[1].as_deref(), Some("bob"), "{:?}", c.names);
    assert_eq!(c.names[0].as_deref(), Some("alice"));
}

/// The name a node signs is given to a game's table when the node loads it again, not
/// only when the invitation came: an invitee killed before he accepted, started again
/// on the same address, accepts, and the transcript carries his own name.
#[test]
fn an_invitee_killed_before_accepting_signs_his_name_after_the_restart() {
    let dir = TempDir::new("name-restart");
    let (alice, bob) = alice_and_bob(&dir);
    let _a = start_node(&alice, "node");
    let b = start_node(&bob, "node");
    let listen = b.addr.split("/p2p/").next().unwrap_or_default().to_owned();
    let out = run(&alice, &["new", "duel", "--peer", &b.addr]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    wait_for(&bob, &game[..12], "the invitation", |v| {
        v["my_turn"] == true
    });
    drop(b); // killed: no clean shutdown
    let _b = start_node_with(&bob, "node", &listen, &[], &[]);
    let out = run(&bob, &["accept", &game[..12]]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    wait_for(&alice, &game[..12], "the coin", |v| v["phase"] == "play");
    let file = dir.path().join("g.sealed");
    let path = file.to_str().unwrap_or_default();
    let out = run(&alice, &["export", &game[..12], "--transcript", path]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let c = sealed_games::variant::check_transcript(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(c.names[1].as_deref(), Some("bob"), "{:?}", c.names);
}

#[test]
fn an_invitation_says_whom_the_invitee_would_trust_and_accept_names_them() {
    let dir = TempDir::new("trusted");
    let names = ["alice", "bob", "witness"];
    let [alice, bob, witness] = names.map(|n| dir.path().join(n));
    for (home, name) in [&alice, &bob, &witness].into_iter().zip(names) {
        assert_eq!(code(&run(home, &["init", "--name", name])), 0);
    }
    let _a = start_node(&alice, "node");
    let b = start_node(&bob, "node");
    let any = "/ip4/127.0.0.1/tcp/0";
    let x = common::start_node_with(&witness, "node", any, &["--witness"], &[]);
    let x_id = common::peer_of(&x.addr).to_owned();
    let args = [
        "new",
        "duel",
        "--peer",
        &b.addr,
        "--witness",
        &x.addr,
        "-o",
        "time-per-move=1h",
    ];
    let out = run(&alice, &args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    wait_for(&bob, &game[..12], "the invitation", |v| {
        v["my_turn"] == true
    });

    // Before he accepts: `games`, `show` and their JSON name the witness by peer id.
    let list = stdout(&run(&bob, &["games"]));
    assert!(
        list.contains(&format!("you would trust: witness {x_id}")),
        "{list}"
    );
    let show = stdout(&run(&bob, &["show", &game[..12]]));
    assert!(show.contains(&format!("trusted: witness {x_id}")), "{show}");
    let listed = games(&bob).into_iter().find(|g| g["game"] == game).unwrap();
    assert_eq!(listed["helpers"][0]["role"], "witness", "{listed}");
    assert_eq!(listed["helpers"][0]["peer"], x_id.as_str(), "{listed}");

    // Accepting says whom he now trusts, with the name the witness announces.
    let out = run(&bob, &["accept", &game[..12]]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("you trust: witness"), "{said}");
    assert!(said.contains(&x_id), "{said}");
}
