//! What a person reads when a command meets bad input from the opponent or the disk:
//! mail that is too large is refused at once, before the node sees a byte of it, and
//! says why. (More of issue 17's words are tested where their commands are: play.rs for
//! export and verify of a folder.)

mod common;

use common::{
    TempDir, at_home, code, peer_of, refused, start_node, start_node_with, stderr, stdout,
};

#[test]
fn mail_larger_than_any_game_is_refused_at_once() {
    let dir = TempDir::new("mail-bomb");
    let home = dir.path().join("h");
    assert_eq!(code(&at_home(&home, &["init", "--name", "h"])), 0);
    // No node runs: the refusal comes before the node is asked anything.

    // 40 MiB of text without a line break and without mail.
    let junk = dir.path().join("junk.txt");
    std::fs::write(&junk, vec![b'x'; 40 << 20]).unwrap();
    let out = at_home(&home, &["mail", "import", junk.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("more than 32 MiB of text"),
        "{}",
        stderr(&out)
    );

    // One block whose base64 would decode to more than 8 MiB.
    let mut block = String::from("-----BEGIN SEALED MAIL-----\n");
    let line = "A".repeat(76) + "\n";
    while block.len() < 12 << 20 {
        block.push_str(&line);
    }
    block.push_str("-----END SEALED MAIL-----\n");
    let big = dir.path().join("big.txt");
    std::fs::write(&big, block).unwrap();
    let out = at_home(&home, &["mail", "import", big.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("more than 8 MiB"), "{}", stderr(&out));

    // A block left open, and text with no mail, say so.
    let open = dir.path().join("open.txt");
    std::fs::write(&open, "-----BEGIN SEALED MAIL-----\nAAAA\n").unwrap();
    let out = at_home(&home, &["mail", "import", open.to_str().unwrap()]);
    assert!(stderr(&out).contains("not closed"), "{}", stderr(&out));
    let none = dir.path().join("none.txt");
    std::fs::write(&none, "Dear opponent, my move is e4.\n").unwrap();
    let out = at_home(&home, &["mail", "import", none.to_str().unwrap()]);
    assert!(stderr(&out).contains("no sealed mail"), "{}", stderr(&out));
}

#[test]
fn names_homes_and_scores_are_refused_with_the_reason() {
    let dir = TempDir::new("words-init");
    // A name a terminal would act on, or one too long for a proposal.
    let home = dir.path().join("h");
    for (name, says) in [
        ("evil\u{1b}[2J", "control or direction"),
        ("bell\u{7}", "control or direction"),
        ("abc\u{202E}fed", "control or direction"),
    ] {
        let out = at_home(&home, &["init", "--name", name]);
        assert_eq!(code(&out), 2, "{name:?}");
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(!stderr(&out).contains('\u{1b}'), "echoed the escape");
        assert!(!home.join("key").exists(), "nothing written");
    }
    let long = "n".repeat(100_000);
    let out = at_home(&home, &["init", "--name", &long]);
    assert!(
        stderr(&out).contains("longer than 64 bytes"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).len() < 300, "the name echoed whole");
    // A home that is a file.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = at_home(&file, &["init", "--name", "ok"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("is a file: a home is a folder"),
        "{}",
        stderr(&out)
    );

    // An empty score is no score; a Stallmate score without its tags names no line 0.
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "\n").unwrap();
    for variant in ["tempete", "duel", "cardmate"] {
        let out = common::sealed(&["replay", variant, empty.to_str().unwrap()]);
        assert_eq!(code(&out), 2, "{variant}");
        assert!(stderr(&out).contains("empty"), "{}", stderr(&out));
    }
    let bare = dir.path().join("bare.txt");
    std::fs::write(&bare, "1. e2-e4\n").unwrap();
    let out = common::sealed(&["replay", "stallmate", bare.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(!stderr(&out).contains("line 0"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("WhiteSetup is required"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_demo_that_cannot_write_its_transcript_plays_nothing_and_leaves_nothing() {
    let dir = TempDir::new("words-demo");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sealed"))
        .args(["demo", "duel", "--out", "/nonexistent/x.sealed"])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("/nonexistent/x.sealed"),
        "{}",
        stderr(&out)
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("game "),
        "a game was played"
    );
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "left homes behind"
    );
    // The demo's help names every game.
    let help = common::sealed(&["demo", "--help"]);
    for v in ["duel", "cardmate", "chex", "tempete", "stallmate"] {
        assert!(String::from_utf8_lossy(&help.stdout).contains(v), "{v}");
    }
}

/// Issue 32: what `verify` and `replay` say of the wrong file, and of no file at all.
#[test]
fn the_wrong_file_is_named_for_what_it_is() {
    let dir = TempDir::new("words-files");
    let whole = common::verified();
    // Cut short: said so, with what to do; not the decoder's words.
    let cut = dir.write("cut.sealed", &whole[..whole.len() / 2]);
    let out = common::sealed(&["verify", &cut]);
    refused(&out, "the transcript is cut short");
    assert!(stderr(&out).contains("get the whole file again"));
    assert!(!stderr(&out).contains("Hit the end"), "{}", stderr(&out));
    // A text file: named as text, not as "bad magic".
    let score = "[Cards \"1-10,12-21,23-70\"]\n[Hand \"5\"]\n\n1. e4 e5 2. <18 Ng1-f3 Nf3-g5> *\n";
    let text = dir.write("score.sealed", score.as_bytes());
    let out = common::sealed(&["verify", &text]);
    refused(&out, "this is a text file, not a sealed transcript");
    assert!(!stderr(&out).contains("magic"), "{}", stderr(&out));

    // A transcript given to replay: named, with the command that reads it.
    let t = dir.write("game.sealed", whole);
    let out = common::sealed(&["replay", "tempete", &t]);
    refused(&out, "this is a sealed transcript, not a score");
    assert!(
        stderr(&out).contains(&format!("`sealed verify {t}`")),
        "{}",
        stderr(&out)
    );
    // A Tempête score given to duel: the variant it is, and the command.
    let out = common::sealed(&["replay", "duel", &text]);
    refused(
        &out,
        "It is not a duel score: it replays as a tempete score",
    );
    assert!(
        stderr(&out).contains(&format!("`sealed replay tempete {text}`")),
        "{}",
        stderr(&out)
    );
    // Binary bytes that are no transcript: not text, said in words.
    let bin = dir.write("bin.txt", b"1. e4 \xff\xfe");
    refused(
        &common::sealed(&["replay", "duel", &bin]),
        "not text (byte 6 is not UTF-8): a score is a text file of moves",
    );
}

/// Issue 32: the help says what the code does: a witness serves every variant.
#[test]
fn the_help_of_new_offers_the_witness_to_every_variant() {
    let help = stdout(&common::sealed(&["new", "--help"]));
    assert!(!help.to_lowercase().contains("not yet for"), "{help}");
    assert!(help.contains("stallmate too"), "{help}");
    let help = stdout(&common::sealed(&["peers", "--help"]));
    assert!(
        help.contains("what it") && help.contains("serves"),
        "{help}"
    );
}

/// Issue 55: `sealed --help` lists every command on one line of at most 110
/// characters, and the details stay in the command's own help.
#[test]
fn the_help_lists_each_command_on_one_short_line() {
    let help = stdout(&common::sealed(&["--help"]));
    let list: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(list.len() >= 20, "{help}");
    for line in &list {
        assert!(line.chars().count() <= 110, "too long: {line}");
        // A command's line starts with its name; a wrapped paragraph would not.
        assert!(
            line.starts_with("  ") && !line.starts_with("   "),
            "wrapped: {line}"
        );
    }
    let rule = stdout(&common::sealed(&["help", "rule"]));
    assert!(rule.contains("Exit 0: listed or signed"), "{rule}");
}

/// Issue 32: a folder with no transcript in it is not "0 checked, all verified".
#[test]
fn a_folder_without_a_transcript_is_nothing_checked_not_success() {
    let dir = TempDir::new("words-empty");
    let out = common::sealed(&["verify", dir.arg()]);
    assert_eq!(code(&out), 2, "a false success: {}", stdout(&out));
    assert!(
        stderr(&out).contains("nothing to check: the folder holds no transcript"),
        "{}",
        stderr(&out)
    );
    assert!(!stdout(&out).contains("complete and verified"));
    // Only documents an export writes beside transcripts: the same, and said.
    dir.write("game.txt", b"1. 7 3\n");
    let out = common::sealed(&["verify", dir.arg()]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no transcript, only the document passed over above"),
        "{}",
        stderr(&out)
    );
}

/// Issue 32: after a walk-away, the report says who stopped, what it left unopened and
/// that it cannot change the result, naming the witness whose times decided; without a
/// witness, the claim says what one would have made of it.
#[test]
fn a_walk_away_is_told_in_a_players_words_with_the_witness_named() {
    let dir = TempDir::new("words-walk");
    let witnessed = dir.path().join("w.sealed");
    let out = common::sealed(&[
        "demo",
        "duel",
        "--walk-away",
        "--out",
        witnessed.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = common::sealed(&["verify", witnessed.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let text = stdout(&out);
    let witness = text
        .lines()
        .find_map(|l| l.strip_prefix("witness     "))
        .and_then(|l| l.split(':').next())
        .unwrap_or_else(|| panic!("no witness line: {text}"))
        .to_owned();
    assert!(witness.starts_with("12D3KooW"), "{text}");
    assert!(
        text.contains("after the end, not changing the result (2)"),
        "{text}"
    );
    assert!(
        // Seat 1 is named as it signed itself (the demo's "bot 2").
        text.contains("seat 1 (bot 2) never opened the ") && text.contains(" values it sealed"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "the witness {witness} proved seat 1 (bot 2) out of time"
        )),
        "{text}"
    );
    assert!(
        text.contains("seat 1 (bot 2) never signed the end of the game"),
        "{text}"
    );
    for jargon in [
        "withheld-reveal",
        "withheld-close",
        "commitments never opened",
        "dropped claims",
    ] {
        assert!(!text.contains(jargon), "{jargon:?} in {text}");
    }

    let alone = dir.path().join("n.sealed");
    let out = common::sealed(&[
        "demo",
        "duel",
        "--walk-away",
        "--no-witness",
        "--out",
        alone.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let out = common::sealed(&["verify", alone.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(code(&out), 3, "{text}");
    assert!(
        text.contains("says seat 1 (bot 2) let the agreed time pass"),
        "{text}"
    );
    assert!(text.contains("No witness was agreed"), "{text}");
    assert!(!text.contains("timeout against"), "{text}");
}

/// Issue 32, at the terminal with nodes running: a mistyped peer id, an invitation to
/// oneself, an unknown option, a mailbox without its peer id, the invitee's `show`, a
/// move before the game starts, the clock before it runs, the hint `games` prints (run
/// as printed, on a home that is not the default), and what each node serves.
#[test]
fn at_the_terminal_each_message_says_what_happened_and_what_to_do() {
    let dir = TempDir::new("words-node");
    let [alice, bob, boxed, carol] = ["alice", "bob", "box", "carol"].map(|n| {
        let home = dir.path().join(n);
        assert_eq!(code(&at_home(&home, &["init", "--name", n])), 0);
        home
    });
    let m = start_node_with(
        &boxed,
        "node",
        "/ip4/127.0.0.1/tcp/0",
        &["--mailbox", "--relay"],
        &[],
    );
    assert!(
        m.said.contains("serves    a mailbox: keeps and forwards"),
        "{}",
        m.said
    );
    assert!(
        m.said.contains("; a relay: carries live connections"),
        "{}",
        m.said
    );
    let a = start_node(&alice, "node");
    assert!(
        a.said.contains("serves    its own player's games only"),
        "{}",
        a.said
    );
    let b = start_node(&bob, "node");
    let alice_id = peer_of(&a.addr).to_owned();

    let out = at_home(&alice, &["new", "duel", "--peer", "12D3KooWbogus"]);
    refused(
        &out,
        "the peer \"12D3KooWbogus\" is not a whole peer id: it has 13 characters where a peer id has 52",
    );
    assert!(!stderr(&out).contains("invalid multiaddr"));
    let out = at_home(&alice, &["new", "duel", "--peer", &alice_id]);
    refused(
        &out,
        "that peer id is this node's own: you cannot invite yourself",
    );
    assert!(!stderr(&out).contains("two seats share a key"));
    refused(
        &at_home(&alice, &["new", "duel", "-o", "foo=bar", "--peer", &b.addr]),
        "duel has no option foo",
    );

    // A mailbox without its peer id is refused when it is set, node running or not.
    let out = at_home(&alice, &["mailbox", "/ip4/127.0.0.1/tcp/1"]);
    refused(&out, "it says where the mailbox is, not who: add /p2p/");
    let out = at_home(&carol, &["mailbox", "/ip4/127.0.0.1/tcp/1"]);
    refused(&out, "it says where the mailbox is, not who: add /p2p/");
    assert_eq!(
        stdout(&at_home(&carol, &["mailbox"])),
        "no default mailbox\n"
    );

    let out = at_home(
        &alice,
        &["new", "duel", "--peer", &b.addr, "-o", "time-per-move=1d"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    let short = &game[..12];
    common::wait_for(&bob, short, "the invitation", |v| v["my_turn"] == true);

    // The invitee reads whose move it is as his own decision; the clock line says why
    // no time runs; nothing in the protocol's words.
    let shown = stdout(&at_home(&bob, &["show", short]));
    assert!(
        shown.contains("\ninvitation · ply 0 · you are to accept or decline\n"),
        "{shown}"
    );
    assert!(
        shown.contains("clock: not running yet: it starts with the game's first move"),
        "{shown}"
    );
    for jargon in ["phase ", "nobody is to act", "clock: \n"] {
        assert!(!shown.contains(jargon), "{jargon:?} in {shown}");
    }
    let shown = stdout(&at_home(&alice, &["show", short]));
    assert!(
        shown.contains("\nnot started · ply 0 · no moves until it starts\n"),
        "{shown}"
    );
    let out = at_home(&alice, &["move", short, "play", "1"]);
    refused(
        &out,
        "the game has not started yet: it waits for your opponent",
    );
    assert!(!stderr(&out).contains("phase"), "{}", stderr(&out));

    // The hint names this home, and works as printed.
    let list = stdout(&at_home(&bob, &["games"]));
    let hint = format!("`sealed --home {} accept {short}`", bob.display());
    assert!(list.contains(&hint), "{list}");
    let words: Vec<&str> = hint.trim_matches('`').split(' ').collect();
    let out = common::sealed(&words[1..]);
    assert_eq!(code(&out), 0, "{hint}: {}", stderr(&out));

    // A node listening through a relay shows that address in `peers`, text and JSON.
    let c = start_node_with(
        &carol,
        "node",
        "/ip4/127.0.0.1/tcp/0",
        &["--via", &m.addr],
        &[],
    );
    let carol_id = peer_of(&c.addr).to_owned();
    let text = stdout(&at_home(&carol, &["peers"]));
    assert!(text.starts_with("this node: "), "{text}");
    assert!(
        text.contains(&format!(
            "    relayed  {}/p2p-circuit/p2p/{carol_id}\n",
            m.addr
        )),
        "{text}"
    );
    assert!(
        text.contains("    serves   its own player's games only"),
        "{text}"
    );
    assert!(
        text.contains("    games    0 in memory, 0 asleep (in the store until"),
        "{text}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&stdout(&at_home(&carol, &["peers", "--json"]))).expect("JSON");
    assert_eq!(doc["this_node"]["games"]["asleep"], 0, "{doc}");
    assert_eq!(
        doc["this_node"]["relayed"],
        serde_json::json!([format!("{}/p2p-circuit/p2p/{carol_id}", m.addr)]),
        "{doc}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&stdout(&at_home(&boxed, &["peers", "--json"]))).expect("JSON");
    assert_eq!(
        doc["this_node"]["serves"],
        serde_json::json!(["mailbox", "relay"])
    );
}
