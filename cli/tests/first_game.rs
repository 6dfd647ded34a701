//! A first game as the README walks it, and what each step prints: who plays (names
//! and peer ids) in `games`, `show`, the PGN and `verify`; who proposed an invitation
//! and on what terms; one ply count from `show` to `move --expect`; where a move went;
//! the result in `games`; and the game commands with both nodes stopped, on their
//! stores, a move made offline reaching the opponent once the nodes are back.

mod common;

use std::path::Path;

use common::{
    TempDir, at_home as run, code, peer_of, sealed, start_node, stderr, stdout, wait_for,
};
use serde_json::Value;

/// The first plain move `show --json` offers (no card, nothing more to ask).
fn a_plain_move(home: &Path, game: &str) -> String {
    let v: Value = serde_json::from_str(&stdout(&run(home, &["show", game, "--json"]))).unwrap();
    v["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["ask"].is_null() && c["from"].is_string())
        .and_then(|c| c["text"].as_str())
        .unwrap_or_else(|| panic!("no plain move offered: {v}"))
        .to_owned()
}

/// The ply `show` prints in its header (`… · ply N · …`).
fn shown_ply(text: &str) -> usize {
    text.split(" · ")
        .find_map(|part| part.strip_prefix("ply "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no ply in {text}"))
}

#[test]
fn a_first_game_names_its_players_and_works_with_the_nodes_stopped() {
    let dir = TempDir::new("first-game");
    let (alice, bob) = (dir.path().join("alice"), dir.path().join("bob"));
    for (home, name) in [(&alice, "alice"), (&bob, "bob")] {
        assert_eq!(code(&run(home, &["init", "--name", name])), 0);
    }
    let a = start_node(&alice, "node");
    let b = start_node(&bob, "node");
    let (alice_id, bob_id) = (peer_of(&a.addr).to_owned(), peer_of(&b.addr).to_owned());

    // `new` meets the peer first: each node announces its player's name, and the
    // proposal carries both.
    let out = run(&alice, &["new", "tempete", "--peer", &b.addr]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    let short = &game[..12];
    let out = run(&alice, &["new", "duel", "--peer", &b.addr, "-o", "hand=3"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let duel = stdout(&out).trim().to_owned();

    // Bob's list says who invites him and on what terms, before he accepts.
    wait_for(&bob, short, "the invitation", |v| v["my_turn"] == true);
    let list = stdout(&run(&bob, &["games"]));
    assert!(
        list.contains(&format!("invitation from alice ({alice_id})")),
        "{list}"
    );
    assert!(list.contains("options: hand=3"), "{list}");
    // With the variant's own rules and no time terms, the invitation says so.
    assert!(
        list.contains("options: none (the variant's own rules)"),
        "{list}"
    );
    assert!(
        list.contains("clock: none (no time control: nobody loses on time)"),
        "{list}"
    );
    let out = run(&bob, &["accept", short]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("{short}: accepted; your node tells the other seats\n")
    );
    assert_eq!(code(&run(&bob, &["accept", &duel[..12]])), 0);

    // One ply count: the number `show` prints is the one `--expect` takes.
    wait_for(&alice, short, "alice's turn", |v| v["my_turn"] == true);
    let text = stdout(&run(&alice, &["show", short]));
    assert!(
        text.contains(&format!(
            "players: alice (you; {alice_id}) vs bob ({bob_id})"
        )),
        "{text}"
    );
    let ply = shown_ply(&text);
    let mv = a_plain_move(&alice, short);
    let out = run(&alice, &["move", short, &mv, "--expect", &ply.to_string()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // What was done, at which ply, where it went, and what comes next, in one line.
    let said = stdout(&out);
    assert!(
        said.starts_with(&format!(
            "{mv}: sent (ply {}), delivered to bob; waiting for your opponent bob",
            ply + 1
        )),
        "{said}"
    );
    let v = wait_for(&bob, short, "bob's turn", |v| v["my_turn"] == true);
    assert_eq!(v["ply"], ply + 1);
    assert!(
        v["waiting_for"].as_str().unwrap().starts_with("you: "),
        "{v}"
    );

    // Alice resigns; `games` says how it ended.
    assert_eq!(code(&run(&alice, &["resign", short])), 0);
    wait_for(&bob, short, "the end", |v| v["phase"] == "done");
    wait_for(&alice, short, "the end", |v| v["phase"] == "done");
    let list = stdout(&run(&alice, &["games"]));
    assert!(
        list.contains("result: alice loss, bob win (alice resigned) [verified]"),
        "{list}"
    );

    // The PGN names the players; `verify` says whose key was which seat.
    let (pgn, transcript) = (dir.path().join("g.pgn"), dir.path().join("g.sealed"));
    let out = run(
        &bob,
        &[
            "export",
            short,
            "--pgn",
            pgn.to_str().unwrap(),
            "--transcript",
            transcript.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let pgn_text = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        pgn_text.contains("[White \"alice\"]") && pgn_text.contains("[Black \"bob\"]"),
        "{pgn_text}"
    );
    let report = stdout(&sealed(&["verify", transcript.to_str().unwrap()]));
    assert!(
        report.contains(&format!("seat 0      alice, player {alice_id}"))
            && report.contains(&format!("seat 1      bob, player {bob_id}")),
        "{report}"
    );

    // Both nodes stop. Every game command that needs no network still works, on the
    // store: the list, a game, its export, its mail, and a move in the unfinished duel.
    let line = |home: &Path| -> Value {
        let all: Value = serde_json::from_str(&stdout(&run(home, &["games", "--json"]))).unwrap();
        let found = all
            .as_array()
            .and_then(|a| a.iter().find(|g| g["game"] == game.as_str()));
        found
            .cloned()
            .unwrap_or_else(|| panic!("{game} not listed: {all}"))
    };
    let before = line(&alice);
    drop(a);
    drop(b);
    let list = stdout(&run(&alice, &["games"]));
    assert!(
        list.contains("result: ") && list.contains(&duel[..12]),
        "{list}"
    );
    // The finished game, read from the store and not replayed, is listed as it was in
    // memory: its result, its acts and both names (issue 54).
    let after = line(&alice);
    for field in ["ply", "result", "players", "status"] {
        assert_eq!(
            after[field], before[field],
            "{field}: {before} then {after}"
        );
    }
    assert!(before["ply"].as_u64() >= Some(1), "{before}");
    let text = stdout(&run(&alice, &["show", short]));
    assert!(text.contains("players: alice"), "{text}");
    let offline = dir.path().join("offline.sealed");
    let out = run(
        &alice,
        &["export", short, "--transcript", offline.to_str().unwrap()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(code(&sealed(&["verify", offline.to_str().unwrap()])), 0);
    let out = run(&alice, &["mail", "export", short]);
    assert!(
        stdout(&out).contains("BEGIN SEALED MAIL"),
        "{}",
        stderr(&out)
    );
    let mail = dir.path().join("g.mail");
    let out = run(
        &alice,
        &["mail", "export", short, "--out", mail.to_str().unwrap()],
    );
    assert!(
        stdout(&out).starts_with(&format!("{} written (", mail.display())),
        "{}",
        stdout(&out)
    );
    // The commands that need the network say so.
    let out = run(&alice, &["dial", "/ip4/127.0.0.1/tcp/1"]);
    assert_eq!(code(&out), 2);
    let start = format!("start one with `sealed --home {} node`", alice.display());
    assert!(stderr(&out).contains(&start), "{}", stderr(&out));

    // Whoever leads the duel's first round (the coin chose) plays with the nodes stopped.
    let d = &duel[..12];
    let view = |home: &Path| -> Value {
        serde_json::from_str(&stdout(&run(home, &["show", d, "--json"]))).unwrap()
    };
    let (leader, other) = if view(&alice)["my_turn"] == true {
        (&alice, &bob)
    } else {
        (&bob, &alice)
    };
    let v = view(leader);
    assert_eq!(v["my_turn"], true, "{v}");
    let act = v["choices"][0]["text"].as_str().unwrap().to_owned();
    let out = run(leader, &["move", d, &act]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The command it names is the one that starts this home's node (issue 32).
    let said = format!(
        "made (ply 1), kept in the store: it goes out when `sealed --home {} node` starts",
        leader.display()
    );
    assert!(stdout(&out).contains(&said), "{}", stdout(&out));

    // Back up: the move made with the node stopped reaches the other player by itself.
    assert_eq!(view(other)["ply"], 0);
    let _a = start_node(&alice, "node");
    let _b = start_node(&bob, "node");
    wait_for(other, d, "the offline move", |v| {
        v["ply"].as_u64() >= Some(1)
    });
}

#[test]
fn a_key_file_others_can_read_is_made_owner_only_and_said() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("key-mode");
    let home = dir.path().join("h");
    assert_eq!(code(&run(&home, &["init", "--name", "h"])), 0);
    let key = home.join("key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = run(&home, &["games"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("could be read by others (mode 0644)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // Said once: the next command finds it owner-only.
    assert!(!stderr(&run(&home, &["games"])).contains("read by others"));
}

#[test]
fn completions_and_the_man_page_come_from_the_grammar() {
    let out = sealed(&["completions", "bash"]);
    assert_eq!(code(&out), 0);
    // Every subcommand is completed, the ones added last too.
    for word in ["verify", "show", "mail", "completions", "man"] {
        assert!(stdout(&out).contains(word), "{word}");
    }
    let out = sealed(&["man"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains(".TH sealed 1"), "{}", stdout(&out));
    assert_eq!(code(&sealed(&["completions", "tcsh"])), 2);
}

#[test]
fn names_in_a_transcript_from_anyone_are_shown_escaped() {
    use sealed_conformance::duel_kit::duel_proposal;
    use sealed_conformance::sim::test_key;
    use sealed_games::duel::Duel;
    use sealed_protocol::proposal::Terms;
    use sealed_protocol::transcript::TranscriptFile;

    // A proposal anyone could sign: names that would clear the screen and reverse text.
    let mut p = duel_proposal(&Duel::default(), 9);
    p.seats[0].name = "evil\u{1b}[2J".into();
    p.seats[1].name = "b\u{202e}ob".into();
    let terms = Terms::from_signed(p.sign(&test_key(0))).unwrap();
    let file = TranscriptFile {
        proposal: terms.bytes().to_vec(),
        envelopes: vec![],
        evidence: vec![],
    };
    let dir = TempDir::new("hostile-names");
    let path = dir.path().join("t.sealed");
    std::fs::write(&path, file.to_bytes()).unwrap();
    for args in [vec!["verify"], vec!["verify", "--json"]] {
        let mut args = args.clone();
        args.push(path.to_str().unwrap());
        let out = sealed(&args);
        let text = stdout(&out);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
        assert!(text.contains("u{1b}") && text.contains("u{202e}"), "{text}");
    }
}
