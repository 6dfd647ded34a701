//! Secret Stallmate through the real binary, as README.md's "Play a friend" tells it:
//! three homes, two `sealed node`s and a `sealed referee`; White proposes naming the
//! referee, Black accepts, and both type attempts (`any?`, `a2-a3`) and read the
//! referee's answers in `sealed show`. The game ends at its ply limit on all three
//! homes, whose transcripts are one and the same file; it verifies, and the score a
//! player exports after the end replays.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{
    TempDir, at_home, code, refused, sealed, show_json, start_node, stderr, stdout, wait_for,
};
use serde_json::Value;

/// The agreed move period: short, yet room for a few commands (the referee closes a
/// period only once it is over, so it may last longer).
const PERIOD: &str = "period=3s";

/// The attempts of the running period and their answers, as `show` lists them under
/// the board (`a2-a3: yes`).
fn answers(v: &Value) -> Vec<(String, String)> {
    v["board"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(": "))
        .filter(|(a, _)| *a == "any?" || (a.len() == 5 && a.as_bytes()[2] == b'-'))
        .map(|(a, answer)| (a.to_owned(), answer.to_owned()))
        .collect()
}

/// The board diagram's eight rank lines (`8 n r q …`).
fn diagram(v: &Value) -> Vec<String> {
    v["board"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .filter(|l| l.len() == 17 && l.starts_with(|c: char| ('1'..='8').contains(&c)))
        .map(str::to_owned)
        .collect()
}

/// The pieces on one rank line of a diagram, as letters.
fn rank_letters(line: &str) -> String {
    line[2..].split(' ').collect()
}

/// What a player types next in his period, given what he tried in it already: `any?`
/// once, then one-square pushes of his pawns from the a-file on. Every period holds a
/// "yes" (a push from the home rank whose pawn is still there) before it runs out of
/// pushes, and no pawn can capture in the few moves this game lasts.
fn next_attempt(white: bool, tried: &[(String, String)]) -> String {
    let mut pushes = ('a'..='h').map(|f| {
        if white {
            format!("{f}2-{f}3")
        } else {
            format!("{f}7-{f}6")
        }
    });
    std::iter::once("any?".to_owned())
        .chain(pushes.by_ref())
        .find(|a| !tried.iter().any(|(t, _)| t == a))
        .expect("a push is left")
}

/// Types `attempt` and waits for the referee's answer in the player's own `show`.
fn attempt(home: &Path, game: &str, attempt: &str) -> String {
    let before = show_json(home, game).map_or(0, |v| answers(&v).len());
    let out = at_home(home, &["move", game, attempt]);
    assert_eq!(code(&out), 0, "{attempt}: {}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!("{attempt}: sent")),
        "{}",
        stdout(&out)
    );
    let v = wait_for(home, game, &format!("the answer to {attempt}"), |v| {
        answers(v).len() > before
    });
    let (tried, answer) = answers(&v).pop().expect("an answer");
    assert_eq!(tried, attempt, "{v}");
    answer
}

#[test]
fn two_players_and_a_referee_play_stallmate_through_the_command_line() {
    let dir = TempDir::new("stallmate");
    let [white, black, referee] = ["white", "black", "referee"].map(|n| dir.path().join(n));
    for (home, name) in [(&white, "white"), (&black, "black"), (&referee, "referee")] {
        let out = at_home(home, &["init", "--name", name]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let _w = start_node(&white, "node");
    let b = start_node(&black, "node");
    let r = start_node(&referee, "referee");
    assert!(r.addr.starts_with("/ip4/127.0.0.1/tcp/"), "{}", r.addr);

    // Without a referee there is no game: the proposal is refused and nothing is made.
    let opts = ["-o", PERIOD, "-o", "ply-limit=4"];
    let mut propose = vec!["new", "stallmate", "--peer", &b.addr];
    propose.extend(opts);
    refused(&at_home(&white, &propose), "stallmate needs a referee seat");
    for home in [&white, &black, &referee] {
        assert_eq!(stdout(&at_home(home, &["games"])), "no games\n");
    }

    propose.extend(["--referee", &r.addr]);
    let out = at_home(&white, &propose);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let game = stdout(&out).trim().to_owned();
    assert_eq!(game.len(), 64, "{game}");
    let short = &game[..10];

    // The referee's node accepted by itself; Black accepts by a prefix of the id.
    wait_for(&black, short, "the invitation", |v| v["my_turn"] == true);
    wait_for(&referee, short, "the referee's seat", |v| {
        v["side"] == "Referee"
    });
    assert_eq!(code(&at_home(&black, &["accept", short])), 0);

    // Once both armies are shown to the referee, White's first period runs. Each player
    // knows his own army and nothing of the other's.
    let w = wait_for(&white, short, "White's first period", |v| {
        v["phase"] == "play" && v["my_turn"] == true
    });
    // Black's node may learn a moment later that play began.
    let bl = wait_for(&black, short, "Black in play", |v| v["phase"] == "play");

    // Refusals that change nothing: Black in White's period, notation that is not an
    // attempt, a score before the end (nobody has seen both armies yet).
    refused(&at_home(&black, &["move", short, "a7-a6"]), "not your turn");
    refused(
        &at_home(&white, &["move", short, "e9-e4"]),
        "not an attempt",
    );
    let no_score = dir.path().join("early.txt");
    let early = ["export", short, "--score", no_score.to_str().unwrap()];
    refused(&at_home(&white, &early), "score");
    assert!(!no_score.exists());
    assert_eq!(show_json(&white, short).unwrap()["board"], w["board"]);
    assert_eq!(show_json(&black, short).unwrap()["board"], bl["board"]);

    let mut armies = vec![];
    for (v, own) in [
        (&w, char::is_ascii_uppercase as fn(&char) -> bool),
        (&bl, char::is_ascii_lowercase),
    ] {
        let army = v["hand"]["army"]
            .as_str()
            .expect("a player's hand names his army");
        let mut sorted: Vec<char> = army.chars().collect();
        sorted.sort_unstable();
        assert_eq!(sorted.into_iter().collect::<String>(), "BBKNNQRR", "{v}");
        let pieces: String = diagram(v).iter().map(|l| rank_letters(l)).collect();
        assert!(pieces.chars().filter(|c| *c != '.').all(|c| own(&c)), "{v}");
        assert_eq!(pieces.chars().filter(|c| *c != '.').count(), 16, "{v}");
        assert!(answers(v).is_empty(), "{v}");
        armies.push(army.to_owned());
    }
    assert_eq!(w["my_turn"], true);
    assert_eq!(bl["my_turn"], false);

    // Play: whoever's period is open types attempts until one is answered yes. The
    // referee closes each period at its end and the other player's opens.
    let mut log: Vec<(bool, String, String)> = vec![];
    let started = Instant::now();
    loop {
        let views = [(true, &white), (false, &black)].map(|(is_white, home)| {
            (
                is_white,
                home,
                show_json(home, short).expect("the node answers"),
            )
        });
        if views.iter().all(|(_, _, v)| v["phase"] == "done") {
            break;
        }
        for (is_white, home, v) in views {
            if v["my_turn"] != true {
                continue;
            }
            let pieces: String = diagram(&v).iter().map(|l| rank_letters(l)).collect();
            assert!(
                pieces
                    .chars()
                    .all(|c| c == '.' || c.is_ascii_uppercase() == is_white),
                "a player sees only his own army during play: {v}"
            );
            let next = next_attempt(is_white, &answers(&v));
            let answer = attempt(home, short, &next);
            let first_yes = is_white && answer.starts_with("yes") && log.len() == 1;
            log.push((is_white, next, answer));
            if first_yes {
                // Nothing after a "yes": the period's move is made (or, should the period
                // have closed already, it is Black's turn). Refused, changing nothing.
                let before = answers(&show_json(&white, short).expect("the node answers"));
                let out = at_home(&white, &["move", short, "b2-b3"]);
                refused(&out, "");
                let why = stderr(&out);
                assert!(
                    why.contains("your move is made") || why.contains("not your turn"),
                    "{why}"
                );
                let after = answers(&show_json(&white, short).expect("the node answers"));
                assert_eq!(after, before);
            }
        }
        // A guard against a hang, not a time limit: the game takes four periods.
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the game never ended: {log:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let log: Vec<String> = log
        .iter()
        .map(|(w, a, answer)| format!("{} {a}: {answer}", if *w { "White" } else { "Black" }))
        .collect();
    assert_eq!(
        log,
        [
            "White any?: no",
            "White a2-a3: yes",
            "Black any?: no",
            "Black a7-a6: yes",
            "White any?: no",
            "White a2-a3: illegal",
            "White b2-b3: yes",
            "Black any?: no",
            "Black a7-a6: illegal",
            "Black b7-b6: yes, ply limit",
        ],
        "a period ran out before its yes?"
    );

    // The game is over on all three homes, and each now shows the same board: both
    // armies, as they were dealt, and the four pushes.
    let ends =
        [&white, &black, &referee].map(|h| wait_for(h, short, "the end", |v| v["phase"] == "done"));
    for v in &ends {
        assert_eq!(diagram(v), diagram(&ends[0]), "{v}");
        let reason = v["verdict"]["outcome"]["reason"]
            .as_str()
            .unwrap_or_default();
        assert!(reason.contains("ply limit"), "{v}");
    }
    let board = diagram(&ends[0]);
    assert_eq!(rank_letters(&board[7]), armies[0], "{board:?}");
    assert_eq!(
        rank_letters(&board[0]),
        armies[1].to_ascii_lowercase(),
        "{board:?}"
    );
    assert_eq!(rank_letters(&board[5]), "PP......", "{board:?}");
    assert_eq!(rank_letters(&board[6]), "..PPPPPP", "{board:?}");
    assert_eq!(rank_letters(&board[2]), "pp......", "{board:?}");
    assert_eq!(rank_letters(&board[1]), "..pppppp", "{board:?}");

    // Every home exports the same transcript, and it verifies offline.
    let files = [("white", &white), ("black", &black), ("referee", &referee)].map(|(n, h)| {
        let f = dir.path().join(format!("{n}.sealed"));
        let out = at_home(h, &["export", short, "--transcript", f.to_str().unwrap()]);
        assert_eq!(code(&out), 0, "{n}: {}", stderr(&out));
        std::fs::read(&f).expect("the transcript is written")
    });
    assert!(
        files.iter().all(|f| *f == files[0]),
        "the three transcripts differ"
    );
    let transcript = dir.path().join("white.sealed");
    let out = sealed(&["verify", transcript.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out)
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["status", "verified"]),
        "{}",
        stdout(&out)
    );

    // After the end a player can write the whole game's score, and it replays.
    let score = dir.path().join("game.txt");
    let out = at_home(
        &black,
        &["export", short, "--score", score.to_str().unwrap()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = sealed(&["replay", "stallmate", score.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}
