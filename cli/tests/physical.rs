//! Tempête with the cards the players own (issue 33; spec/GAMES.md §4.20), between two
//! real nodes, with an arbiter who has a home but no node: every card outside the seed's
//! ten states its effect with `sealed move`; the opponent's `show` lists the claims
//! waiting for his answer; a continuing effect is cited; a dispute goes to the arbiter,
//! who lists it and signs a ruling from the exported transcript (`sealed rule`), which a
//! player posts; a second dispute is left to its deadline; `sealed verify` exits 0.
//! Then the arbiter with a node of his own, named with `--arbiter`: it holds the game as
//! its mailbox, lists the disputes (`sealed rule`), and sends his ruling to the
//! players' nodes, which post it by themselves — also to a player's node that was down
//! when he ruled.

mod common;

use std::path::Path;

use common::{
    TempDir, at_home as run, code, init_peer_id, start_node, start_node_with, stderr, stdout,
    wait_for,
};
use serde_json::Value;

/// The number of a card in the seat's hand whose effect it states.
fn stated_card(v: &Value) -> u64 {
    v["hand"]["cards"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["effect"] == "stated")
        .and_then(|c| c["card"].as_u64())
        .unwrap_or_else(|| panic!("no stated card in {}", v["hand"]))
}

/// `home` makes `action` in `game`, then waits until `other` is to act.
fn play(home: &Path, other: &Path, game: &str, action: &str) {
    let before = common::show_json(other, game).map_or(0, |v| v["ply"].as_u64().unwrap_or(0));
    let out = run(home, &["move", game, action]);
    assert_eq!(code(&out), 0, "{action}: {}", stderr(&out));
    wait_for(other, game, action, |v| {
        v["ply"].as_u64().unwrap_or(0) > before
    });
}

/// What `args` print at `home`, which must exit 0.
fn said(home: &Path, args: &[&str]) -> String {
    let out = run(home, args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn export(home: &Path, game: &str, file: &Path) {
    let out = run(
        home,
        &["export", game, "--transcript", file.to_str().unwrap()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn a_physical_deck_game_with_claims_a_citation_a_ruling_and_a_lapsed_dispute_verifies() {
    let dir = TempDir::new("physical");
    let [alice, bob, arbiter] = ["alice", "bob", "arbiter"].map(|n| dir.path().join(n));
    for (home, name) in [(&alice, "alice"), (&bob, "bob")] {
        assert_eq!(code(&run(home, &["init", "--name", name])), 0);
    }
    let judge = init_peer_id(&arbiter, "arbiter");
    let _a = start_node(&alice, "node");
    let b = start_node(&bob, "node");
    let out = run(
        &alice,
        &[
            "new",
            "tempete",
            "--peer",
            &b.addr,
            "-o",
            "deck=physical",
            "-o",
            &format!("arbiter={judge}"),
            "-o",
            "ruling-plies=6",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim()[..12].to_owned();
    wait_for(&bob, &game, "the invitation", |v| v["my_turn"] == true);
    // Issue 55: the invitee is told whom he would trust to rule, by peer id, beside
    // the terms, not as a key in hex among the options.
    let listed = stdout(&run(&bob, &["games"]));
    assert!(
        listed.contains(&format!("you would trust: arbiter {judge}")),
        "{listed}"
    );
    assert!(!listed.contains("arbiter="), "{listed}");
    assert_eq!(code(&run(&bob, &["accept", &game])), 0);
    let v = wait_for(&alice, &game, "alice's hand", |v| {
        v["my_turn"] == true && v["hand"]["cards"].as_array().is_some_and(|c| c.len() == 5)
    });

    // Act 0: a continuing effect, stated; Bob sees it waiting for his answer.
    let card = stated_card(&v);
    play(
        &alice,
        &bob,
        &game,
        &format!("card {card} then g1h4 for 6 note knights move as camels for three turns"),
    );
    let shown = stdout(&run(&bob, &["show", &game]));
    assert!(
        shown.contains("claims waiting for your answer")
            && shown.contains("alice (White) plays card"),
        "{shown}"
    );
    assert!(shown.contains("knights move as camels"), "{shown}");
    // Act 1 accepts it; act 2 cites it; act 3 disputes act 2, act 4 plays on.
    play(&bob, &alice, &game, "e5");
    play(
        &alice,
        &bob,
        &game,
        "cite 0 then h4e5 note the camel takes on e5",
    );
    let out = run(&bob, &["move", &game, "dispute 2 note camels do not take"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    play(&bob, &alice, &game, "Nc6");

    // The arbiter reads the transcript Alice sends him, and rules: the capture stands.
    let file = dir.path().join("g.sealed");
    export(&alice, &game, &file);
    let list = said(&arbiter, &["rule", file.to_str().unwrap()]);
    assert!(list.contains("dispute 0 of act 2"), "{list}");
    let ruled = run(
        &arbiter,
        &[
            "rule",
            file.to_str().unwrap(),
            "0",
            "note",
            "the card lets the camel take",
        ],
    );
    assert_eq!(code(&ruled), 0, "{}", stderr(&ruled));
    let line = stdout(&ruled)
        .lines()
        .find_map(|l| l.trim().strip_prefix("sealed move <game> '"))
        .and_then(|l| l.strip_suffix('\''))
        .expect("the ruling line")
        .to_owned();
    // Bob cannot sign as the arbiter: his home's key is not the one the terms name.
    let not_him = run(&bob, &["rule", file.to_str().unwrap(), "0"]);
    assert_eq!(code(&not_him), 2);
    assert!(
        stderr(&not_him).contains("not this game's arbiter"),
        "{}",
        stderr(&not_him)
    );
    let out = run(&alice, &["move", &game, &line]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    play(&alice, &bob, &game, "d4");

    // Bob states a card; Alice disputes it; nobody rules, and after six plies the
    // dispute lapses: the claim stands.
    let v = common::show_json(&bob, &game).unwrap();
    let card = stated_card(&v);
    play(
        &bob,
        &alice,
        &game,
        &format!("card {card} then d7d5 remove d4 note the charge clears d4"),
    );
    let out = run(
        &alice,
        &["move", &game, "dispute 7 note no card removes a pawn so"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for (w, bl) in [("a3", "a6"), ("b3", "b6"), ("c3", "h6")] {
        play(&alice, &bob, &game, w);
        play(&bob, &alice, &game, bl);
    }
    export(&alice, &game, &file);
    let late = run(&arbiter, &["rule", file.to_str().unwrap(), "1"]);
    assert_eq!(code(&late), 2, "{}", stdout(&late));

    assert_eq!(code(&run(&bob, &["resign", &game])), 0);
    wait_for(&alice, &game, "the end", |v| v["phase"] == "done");
    wait_for(&bob, &game, "the end", |v| v["phase"] == "done");
    export(&bob, &game, &file);
    let out = common::sealed(&["verify", file.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

/// The state of dispute `d` as `home` shows it.
fn dispute_state(home: &Path, game: &str, d: usize) -> String {
    common::show_json(home, game).map_or_else(String::new, |v| {
        v["hand"]["claims"]["disputes"][d]["state"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    })
}

#[test]
fn an_arbiters_node_lists_the_disputes_and_the_players_nodes_post_its_ruling() {
    let dir = TempDir::new("physical-arbiter");
    let [alice, bob, arbiter] = ["alice", "bob", "arbiter"].map(|n| dir.path().join(n));
    for (home, name) in [(&alice, "alice"), (&bob, "bob"), (&arbiter, "arbiter")] {
        assert_eq!(code(&run(home, &["init", "--name", name])), 0);
    }
    let j = start_node_with(
        &arbiter,
        "node",
        "/ip4/127.0.0.1/tcp/0",
        &["--mailbox"],
        &[],
    );
    let _a = start_node(&alice, "node");
    let mut b = Some(start_node(&bob, "node"));
    let bob_addr = b.as_ref().unwrap().addr.clone();
    // Nothing to rule on yet.
    let empty = said(&arbiter, &["rule"]);
    assert!(empty.contains("no game your node relays"), "{empty}");
    let out = run(
        &alice,
        &[
            "new",
            "tempete",
            "--peer",
            &bob_addr,
            "--arbiter",
            &j.addr,
            "-o",
            "deck=physical",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim()[..12].to_owned();
    wait_for(&bob, &game, "the invitation", |v| v["my_turn"] == true);
    assert_eq!(code(&run(&bob, &["accept", &game])), 0);
    let v = wait_for(&alice, &game, "alice's hand", |v| {
        v["my_turn"] == true && v["hand"]["cards"].as_array().is_some_and(|c| c.len() == 5)
    });
    // The terms name the arbiter, shown with those the players trust, by peer id.
    let trusted = v["helpers"].to_string();
    let judge = j.addr.rsplit('/').next().unwrap();
    assert!(
        trusted.contains("\"arbiter\"") && trusted.contains(judge),
        "the terms name the arbiter: {trusted}"
    );

    // Act 0: a card's stated effect; Bob disputes it (dispute 0) and plays on (act 2).
    let card = stated_card(&v);
    play(
        &alice,
        &bob,
        &game,
        &format!("card {card} then g1f5 note the knight vaults"),
    );
    let out = run(&bob, &["move", &game, "dispute 0 note no knight vaults"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    play(&bob, &alice, &game, "e5");

    // The arbiter's node holds the game as its mailbox: every dispute of every game
    // naming him is listed, and so are those of the game named.
    let listed = |what: &[&str]| {
        let start = std::time::Instant::now();
        loop {
            let out = run(&arbiter, what);
            if code(&out) == 0 && stdout(&out).contains("dispute 0 of act 0") {
                return stdout(&out);
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(60),
                "the arbiter never saw the dispute: {}{}",
                stdout(&out),
                stderr(&out)
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    };
    let all = listed(&["rule"]);
    assert!(all.contains(&format!("game {game}")), "{all}");
    let one = listed(&["rule", &game]);
    assert!(one.contains("no knight vaults"), "{one}");
    // Bob cannot rule from his node: the terms name another key.
    let not_him = run(&bob, &["rule", &game, "0", "note", "mine"]);
    assert_eq!(code(&not_him), 2);

    // Bob's node is down when the arbiter rules: the knight goes back. Alice's node,
    // to act, posts the ruling by itself.
    drop(b.take());
    let ruled = run(
        &arbiter,
        &[
            "rule",
            &game,
            "0",
            "then",
            "f5g1",
            "note",
            "the card does not let it vault",
        ],
    );
    assert_eq!(code(&ruled), 0, "{}", stderr(&ruled));
    assert!(
        stdout(&ruled).contains("your node has it"),
        "{}",
        stdout(&ruled)
    );
    let start = std::time::Instant::now();
    while dispute_state(&alice, &game, 0) != "ruled" {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "alice's node never posted the ruling: {:?}",
            common::show_json(&alice, &game)
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let v = common::show_json(&alice, &game).unwrap();
    assert_eq!(v["my_turn"], true, "posting the ruling took no turn: {v}");
    // Her `show` says the ruling applied, as the last act (issue 55).
    let shown = stdout(&run(&alice, &["show", &game]));
    assert!(
        shown.contains("last act (you): <ruling 0 then f5g1 note the card does not let it vault>"),
        "the ruling applied, in show:\n{shown}"
    );
    // Bob's node, back, learns the ruling with the game.
    let _b = start_node(&bob, "node");
    play(&alice, &bob, &game, "d4");
    wait_for(&bob, &game, "the ruling", |v| {
        v["hand"]["claims"]["disputes"][0]["state"] == "ruled"
    });
    assert_eq!(code(&run(&bob, &["resign", &game])), 0);
    wait_for(&alice, &game, "the end", |v| v["phase"] == "done");
    let file = dir.path().join("g.sealed");
    export(&alice, &game, &file);
    let out = common::sealed(&["verify", file.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

/// `sealed demo tempete --deck physical` plays a whole physical-deck game between bots
/// and verifies it; `sealed demo tempete -o cards=1-9,73` deals a list short enough
/// that the show-hand card is played, and a hand is shown with `Show` items.
#[test]
fn the_demos_play_the_physical_deck_and_the_show_hand_card() {
    let dir = TempDir::new("physical-demo");
    let file = dir.path().join("p.sealed");
    let out = common::sealed(&[
        "demo",
        "tempete",
        "--deck",
        "physical",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("deck=physical"), "{}", stdout(&out));
    // The short list: a few seeds, until one game shows a hand (nearly every one does).
    let shown = (1..=5).any(|seed| {
        let file = dir.path().join(format!("s{seed}.sealed"));
        let out = common::sealed(&[
            "demo",
            "tempete",
            "-o",
            "cards=1-9,73",
            "-o",
            "ply-limit=80",
            "--seed",
            &seed.to_string(),
            "--out",
            file.to_str().unwrap(),
        ]);
        assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
        let bytes = std::fs::read(&file).unwrap();
        let t = sealed_protocol::transcript::TranscriptFile::from_bytes(&bytes).unwrap();
        let game = sealed_protocol::proposal::Terms::parse(&t.proposal)
            .unwrap()
            .game();
        t.envelopes.iter().any(|b| {
            sealed_protocol::envelope::Envelope::decode(b, game).is_ok_and(|e| {
                e.unsigned
                    .body
                    .iter()
                    .any(|i| matches!(i, sealed_protocol::body::Item::Show(_)))
            })
        })
    });
    assert!(shown, "no demo game showed a hand");
    let bad = common::sealed(&["demo", "duel", "--deck", "physical"]);
    assert_eq!(code(&bad), 2);
}
