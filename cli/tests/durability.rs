//! A crash or a failed write never makes an honest seat sign two things at one position
//! (spec/PROTOCOL.md §11.2): real `sealed node` processes whose store fails, or whose
//! process dies, at a chosen write (the fault points of `sealed_node::faults`), then
//! come back; every game ends verified, with no fault against anyone.
//!
//! One test per window the node once had, each failing on the node before it was
//! closed: a restored session's new envelopes sent before they were stored; a failed
//! write whose envelope the node still served; an unreadable game re-signed with fresh
//! secrets, or stopping the node; and a sweep of crashes at commits before and after.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{
    Node, TempDir, at_home, code, failpoint, free_port, show_json, spawn_node, start_node_with,
    stderr, stdout, wait_for,
};
use sealed_node::store::Store;
use sealed_protocol::transcript::TranscriptFile;
use serde_json::Value;

/// Two homes with keys, and a fixed loopback port each (a node comes back on its own
/// address after a restart).
struct Pair {
    _dir: TempDir,
    a: PathBuf,
    b: PathBuf,
    a_listen: String,
    b_listen: String,
}

impl Pair {
    /// Alice's node, on her fixed address.
    fn alice(&self, extra: &[&str], env: &[(&str, &str)]) -> Node {
        start_node_with(&self.a, "node", &self.a_listen, extra, env)
    }

    /// Bob's node, on his fixed address.
    fn bob(&self, extra: &[&str], env: &[(&str, &str)]) -> Node {
        start_node_with(&self.b, "node", &self.b_listen, extra, env)
    }
}

fn pair(label: &str) -> Pair {
    let dir = TempDir::new(label);
    let (a, b) = (dir.path().join("alice"), dir.path().join("bob"));
    for (home, name) in [(&a, "alice"), (&b, "bob")] {
        let out = at_home(home, &["init", "--name", name]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    Pair {
        _dir: dir,
        a,
        b,
        a_listen: format!("/ip4/127.0.0.1/tcp/{}", free_port()),
        b_listen: format!("/ip4/127.0.0.1/tcp/{}", free_port()),
    }
}

fn ok(home: &Path, args: &[&str]) -> String {
    let out = at_home(home, args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Cardmate between alice (proposer) and bob, accepted, two moves made: alice to move.
fn cardmate_at_ply_2(p: &Pair, b_addr: &str) -> String {
    let game = ok(&p.a, &["new", "cardmate", "--peer", b_addr])
        .trim()
        .to_owned();
    wait_for(&p.b, &game, "the invitation", |v| v["my_turn"] == true);
    ok(&p.b, &["accept", &game]);
    wait_for(&p.a, &game, "alice's first move", |v| {
        v["my_turn"] == true && v["phase"] == "play"
    });
    ok(&p.a, &["move", &game, "4Ci3"]);
    wait_for(&p.b, &game, "bob's move", |v| v["my_turn"] == true);
    ok(&p.b, &["move", &game, "4Db6"]);
    wait_for(&p.a, &game, "alice to move at ply 2", |v| {
        v["ply"] == 2 && v["my_turn"] == true
    });
    game
}

/// The transcript a home's node holds of a game.
fn transcript(home: &Path, game: &str, into: &Path) -> Vec<u8> {
    let file = into.join(format!("{}.sealed", home.file_name().unwrap().display()));
    ok(
        home,
        &["export", game, "--transcript", file.to_str().unwrap()],
    );
    std::fs::read(&file).expect("exported")
}

/// `sealed verify` of a transcript: its exit code and what it printed.
fn verify(bytes: &[u8], dir: &Path) -> (i32, String) {
    let path = dir.join("check.sealed");
    std::fs::write(&path, bytes).unwrap();
    let out = common::sealed(&["verify", path.to_str().unwrap()]);
    (code(&out), format!("{}{}", stdout(&out), stderr(&out)))
}

/// Both seats hold the same transcript, and it verifies complete, with no fault.
fn both_verified(p: &Pair, game: &str) {
    let dir = p.a.parent().unwrap();
    let ta = transcript(&p.a, game, dir);
    let tb = transcript(&p.b, game, dir);
    let (ca, sa) = verify(&ta, dir);
    let (cb, sb) = verify(&tb, dir);
    assert_eq!(ca, 0, "alice's transcript: {sa}");
    assert_eq!(cb, 0, "bob's transcript: {sb}");
    assert_eq!(ta, tb, "the two seats hold different transcripts");
}

/// A legal move for the seat to move (`common::example_move`).
fn example_move(home: &Path, game: &str) -> String {
    common::example_move(&show_json(home, game).expect("the game shows"))
}

/// The line of `sealed games --json` for a game.
fn summary(home: &Path, game: &str) -> Value {
    let all: Value = serde_json::from_str(&ok(home, &["games", "--json"])).expect("JSON");
    all.as_array()
        .and_then(|g| g.iter().find(|x| x["game"] == game).cloned())
        .unwrap_or(Value::Null)
}

fn wait_until(secs: u64, what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(secs), "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Window 1: a node that comes back signs what its restored session owes (here the
/// reveal and close after the opponent resigned) — and once sent, that must be in the
/// store, or the next restart signs a different envelope at the same position.
#[test]
fn what_a_restored_seat_signs_is_stored_before_it_leaves() {
    let p = pair("restore");
    let a = p.alice(&[], &[]);
    let b = p.bob(&[], &[]);
    let game = cardmate_at_ply_2(&p, &b.addr);
    drop(a);
    // While alice is down, bob resigns; alice's node is as if it had stored bob's
    // resignation and crashed before answering it.
    ok(&p.b, &["resign", &game]);
    let bobs = TranscriptFile::from_bytes(&transcript(&p.b, &game, p.b.parent().unwrap()))
        .expect("bob's transcript");
    {
        let store = Store::open(&p.a.join("store.redb")).expect("alice's store");
        let id = sealed_node::core::GameId::from(
            <[u8; 32]>::try_from(hex::decode(&game).unwrap()).unwrap(),
        );
        let envs: Vec<&[u8]> = bobs.envelopes.iter().map(Vec::as_slice).collect();
        assert!(store.put_envelopes(&id, &envs).unwrap() > 0);
    }
    // Alice comes back: her session reveals and closes by itself, and bob gets it.
    let a = p.alice(&[], &[]);
    wait_for(&p.b, &game, "bob sees alice's close", |v| {
        v["phase"] == "done"
    });
    wait_for(&p.a, &game, "alice done", |v| v["phase"] == "done");
    // A second restart must find all of it in the store and sign nothing anew.
    drop(a);
    let _a = p.alice(&[], &[]);
    wait_for(&p.a, &game, "alice done again", |v| v["phase"] == "done");
    // Long enough for a repair round each way (the nodes poll every 5 s).
    std::thread::sleep(Duration::from_secs(6));
    both_verified(&p, &game);
}

/// A command whose node dies right after the move is durable, before it answers: the
/// person is told the node stopped and where to look, not a JSON parser's complaint; and
/// the move was made, as the node finds it when it comes back.
#[test]
fn a_command_cut_off_by_a_crash_says_so() {
    let p = pair("cut-off");
    let a = p.alice(&[], &[]);
    let b = p.bob(&[], &[]);
    let game = cardmate_at_ply_2(&p, &b.addr);
    let mv = example_move(&p.a, &game);
    failpoint(&p.a, sealed_node::faults::CRASH_AFTER_COMMIT, "return");
    let out = at_home(&p.a, &["move", &game, &mv]);
    assert_eq!(code(&out), 2);
    let said = stderr(&out);
    assert!(
        said.contains("the node stopped before it answered"),
        "{said}"
    );
    assert!(!said.contains("EOF"), "{said}");
    drop(a);
    let _a = p.alice(&[], &[]);
    wait_for(&p.a, &game, "the move, made before the crash", |v| {
        v["ply"] == 3
    });
    wait_for(&p.b, &game, "bob gets it", |v| v["ply"] == 3);
}

/// Window 2: a write that fails after the session signed. The game is halted (its
/// table dropped, nothing served), says why, and goes on by itself once writes work
/// — also across a crash while the store still fails.
#[test]
fn a_failed_write_halts_the_game_until_writes_work_again() {
    let p = pair("halt");
    let a = p.alice(&[], &[]);
    let b = p.bob(&[], &[]);
    let game = cardmate_at_ply_2(&p, &b.addr);
    // Alice is to move; her move's commit fails.
    failpoint(&p.a, sealed_node::faults::COMMIT_ERROR, "return");
    let mv = example_move(&p.a, &game);
    let out = at_home(&p.a, &["move", &game, &mv]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("nothing was sent"),
        "{}",
        stderr(&out)
    );
    // The game says why it waits, in the list and when shown.
    let line = summary(&p.a, &game);
    assert_eq!(line["status"], "halted", "{line}");
    assert!(
        line["waiting_for"]
            .as_str()
            .unwrap()
            .contains("the store failed"),
        "{line}"
    );
    let shown = at_home(&p.a, &["show", &game]);
    assert_ne!(code(&shown), 0);
    assert!(
        stderr(&shown).contains("the store failed"),
        "{}",
        stderr(&shown)
    );
    // Over two repair rounds bob learns nothing of the move that was never stored.
    std::thread::sleep(Duration::from_secs(11));
    let v = show_json(&p.b, &game).expect("bob's view");
    assert_eq!(v["ply"], 2, "bob got alice's unstored move: {v}");
    // Alice crashes and comes back with her disk still failing: the game stays halted.
    drop(a);
    let a = p.alice(&[], &[("FAILPOINTS", "store-commit-error=return")]);
    assert_eq!(summary(&p.a, &game)["status"], "active");
    // Her session was rebuilt at ply 2, to move: she moves, and the write fails.
    let mv = example_move(&p.a, &game);
    let out = at_home(&p.a, &["move", &game, &mv]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("nothing was sent"),
        "{}",
        stderr(&out)
    );
    assert_eq!(summary(&p.a, &game)["status"], "halted");
    // The disk works again: within a tick the game is rebuilt from the store.
    failpoint(&p.a, sealed_node::faults::COMMIT_ERROR, "off");
    wait_until(20, "the game runs again", || {
        summary(&p.a, &game)["status"] == "active"
    });
    ok(&p.a, &["move", &game, &example_move(&p.a, &game)]);
    wait_for(&p.b, &game, "bob sees the move", |v| v["ply"] == 3);
    ok(&p.b, &["resign", &game]);
    wait_for(&p.a, &game, "alice done", |v| v["phase"] == "done");
    wait_for(&p.b, &game, "bob done", |v| v["phase"] == "done");
    drop(a);
    drop(b);
    let _a = p.alice(&[], &[]);
    let _b = p.bob(&[], &[]);
    both_verified(&p, &game);
}

/// Window 3: a game the node cannot read back — secrets that do not decode, or a record
/// that does not — is set aside with a reason; the node starts and runs its other
/// games, signs nothing for it (fresh secrets would reveal values that do not open its
/// commitments: a loss it never deserved), and an offer of it is no new invitation.
#[test]
fn an_unreadable_game_is_set_aside_and_never_signed_anew() {
    let p = pair("aside");
    let a = p.alice(&[], &[]);
    let b = p.bob(&[], &[]);
    let broken = cardmate_at_ply_2(&p, &b.addr);
    let unreadable = ok(&p.a, &["new", "duel", "--peer", &b.addr])
        .trim()
        .to_owned();
    wait_for(&p.b, &unreadable, "the duel's invitation", |v| {
        v["my_turn"] == true
    });
    let mail = p.a.parent().unwrap().join("cardmate.mail");
    ok(
        &p.a,
        &["mail", "export", &broken, "--out", mail.to_str().unwrap()],
    );
    drop(b);
    let id = |g: &str| {
        sealed_node::core::GameId::from(<[u8; 32]>::try_from(hex::decode(g).unwrap()).unwrap())
    };
    let (held_before, duel_before);
    {
        let path = p.b.join("store.redb");
        let store = Store::open(&path).expect("bob's store");
        held_before = store.envelope_count(&id(&broken)).unwrap();
        duel_before = store.envelope_count(&id(&unreadable)).unwrap();
        store.put_secrets(&id(&broken), b"not secrets").unwrap();
        // Behind the store's back: the duel's record is garbage.
        store.put_raw_record(&id(&unreadable), &[0xff; 3]).unwrap();
    }
    // Bob's node starts, with bots that would accept and play anything they can.
    let _b = p.bob(&["--bots"], &[]);
    let secrets = summary(&p.b, &broken);
    assert_eq!(secrets["status"], "unreadable", "{secrets}");
    assert!(
        secrets["waiting_for"]
            .as_str()
            .unwrap()
            .contains("secrets do not decode"),
        "{secrets}"
    );
    let record = summary(&p.b, &unreadable);
    assert_eq!(record["status"], "unreadable", "{record}");
    // The offer of the game again, by mail: refused with the reason, nothing signed.
    let out = at_home(&p.b, &["mail", "import", mail.to_str().unwrap()]);
    assert_ne!(code(&out), 0);
    assert!(stderr(&out).contains("set aside"), "{}", stderr(&out));
    // Alice's node keeps offering both games on every round; bob signs nothing.
    std::thread::sleep(Duration::from_secs(6));
    assert_eq!(summary(&p.b, &broken)["status"], "unreadable");
    assert_eq!(summary(&p.b, &unreadable)["status"], "unreadable");
    drop(_b);
    let store = Store::open(&p.b.join("store.redb")).expect("bob's store");
    assert_eq!(
        store.envelope_count(&id(&broken)).unwrap(),
        held_before,
        "bob stored or signed something for a game he cannot read"
    );
    assert_eq!(store.envelope_count(&id(&unreadable)).unwrap(), duel_before);
    drop(store);
    // What alice holds accuses nobody: the game is just unfinished.
    let (c, said) = verify(
        &transcript(&p.a, &broken, p.a.parent().unwrap()),
        p.a.parent().unwrap(),
    );
    assert_eq!(c, 3, "{said}");
    drop(a);
}

/// The sweep: bots play a Chex (the game where a crash once made an honest seat a
/// cheater) while alice's node dies at every few commits — before a commit, or right
/// after one before anything is sent — and comes straight back. The game ends, both
/// seats hold the same transcript, and it verifies with no fault.
#[test]
fn crashes_at_commits_never_make_an_honest_seat_sign_twice() {
    let p = pair("sweep");
    let mut a = p.alice(&["--bots"], &[]);
    let b = p.bob(&["--bots"], &[]);
    let mut crashes = 0;
    let mut games = vec![];
    let start = Instant::now();
    // Random bots sometimes mate early: games follow one another until at least five
    // crashes have hit them.
    while crashes < 5 {
        assert!(
            games.len() < 10,
            "only {crashes} crashes in {} games",
            games.len()
        );
        // A node with no fault point armed makes the proposal.
        drop(a);
        a = p.alice(&["--bots"], &[]);
        let game = ok(
            &p.a,
            &["new", "chex", "--peer", &b.addr, "-o", "ply-limit=100"],
        )
        .trim()
        .to_owned();
        for round in 0u32.. {
            let done = |home: &Path| show_json(home, &game).is_some_and(|v| v["phase"] == "done");
            if done(&p.a) && done(&p.b) {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(240),
                "the game did not finish after {crashes} crashes: {:?}",
                show_json(&p.a, &game)
            );
            // Die at the (round % 4)-th commit from now, before or after it commits.
            let point = if round % 2 == 0 {
                sealed_node::faults::CRASH_BEFORE_COMMIT
            } else {
                sealed_node::faults::CRASH_AFTER_COMMIT
            };
            let actions = format!("{}*off->return", round % 4);
            drop(a);
            a = spawn_node(
                &p.a,
                "node",
                &p.a_listen,
                &["--bots"],
                &[("FAILPOINTS", &format!("{point}={actions}"))],
            );
            if a.wait_exit(10) {
                crashes += 1;
            }
        }
        games.push(game);
    }
    drop(a);
    let _a = p.alice(&[], &[]);
    eprintln!("{crashes} crashes at a commit in {} games", games.len());
    drop(b);
    let _b = p.bob(&[], &[]);
    for game in &games {
        both_verified(&p, game);
    }
}
