//! One owner of the store at a time, and the hand-over (`sealed_node::handover`): real
//! `sealed` processes on one home, a node and the game commands started together in
//! every order, and a move made with the node stopped that must go out with the next
//! node to run.
//!
//! `SEALED_HANDOVER_ROUNDS` sets how many rounds the interleaving test plays (CI: 24);
//! the long run, whose figures are in docs/RELIABILITY.md:
//! `SEALED_HANDOVER_ROUNDS=150 cargo test -p sealed-cli --test handover -- --nocapture`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{
    Node, TempDir, at_home, code, example_move, free_port, show_json, spawn_node, start_node_with,
    stderr, stdout, wait_for,
};
use sealed_node::store::{Store, StoreError};
use serde_json::Value;

/// What a starting node says while a command holds the store.
const NODE_WAITS: &str = "waiting for it to finish";
/// What a command says while the store is held and no node answers.
const COMMAND_WAITS: &str = "waiting for the node to answer or the store to be free";

/// Alice, whose node (its bots answering every move) runs throughout, and bob, whose
/// node is stopped and started around his commands.
struct Pair {
    _dir: TempDir,
    a: PathBuf,
    b: PathBuf,
    b_listen: String,
    alice: Node,
}

fn pair(label: &str) -> Pair {
    let dir = TempDir::new(label);
    let (a, b) = (dir.path().join("alice"), dir.path().join("bob"));
    for (home, name) in [(&a, "alice"), (&b, "bob")] {
        let out = at_home(home, &["init", "--name", name]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let a_listen = format!("/ip4/127.0.0.1/tcp/{}", free_port());
    let alice = start_node_with(&a, "node", &a_listen, &["--bots"], &[]);
    Pair {
        _dir: dir,
        a,
        b,
        b_listen: format!("/ip4/127.0.0.1/tcp/{}", free_port()),
        alice,
    }
}

impl Pair {
    /// Bob's node, on his fixed address; its `addr` is empty if it died before saying
    /// where it listens.
    fn bob(&self, env: &[(&str, &str)]) -> Node {
        spawn_node(&self.b, "node", &self.b_listen, &[], env)
    }

    /// A new Cardmate that bob proposes (so he moves first) and alice's bots accept,
    /// with bob's node running; waits for bob to be able to move.
    fn new_game(&self) -> String {
        let game = ok(&self.b, &["new", "cardmate", "--peer", &self.alice.addr])
            .trim()
            .to_owned();
        wait_for(&self.b, &game, "alice's acceptance", bobs_turn);
        game
    }
}

fn ok(home: &Path, args: &[&str]) -> String {
    let out = at_home(home, args);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn bobs_turn(v: &Value) -> bool {
    v["my_turn"] == true && v["phase"] == "play"
}

fn over(v: &Value) -> bool {
    !v["result"].is_null()
}

/// Stops bob's node: gracefully (`shutdown` on its socket) or as a crash does, in turn.
fn stop(mut node: Node, graceful: bool, home: &Path) {
    if graceful
        && !node.exited()
        && let Ok(mut socket) = std::os::unix::net::UnixStream::connect(home.join("node.sock"))
    {
        use std::io::{Read, Write};
        let _ = socket.write_all(b"{\"cmd\":\"shutdown\"}\n");
        let _ = socket.read_to_end(&mut vec![]);
        node.wait_exit(10);
    }
    drop(node);
}

/// Brings bob to a game of his to move, with his node stopped: starts it when bob's
/// last move has not been answered yet (or the game is over, for a new one).
fn settle(p: &Pair, game: &mut String) -> Value {
    if let Some(v) = show_json(&p.b, game)
        && bobs_turn(&v)
    {
        return v;
    }
    let node = p.bob(&[]);
    assert!(!node.addr.is_empty(), "bob's node starts on its own");
    let v = loop {
        let v = wait_for(&p.b, game, "alice's answer, or the end", |v| {
            bobs_turn(v) || over(v)
        });
        if !over(&v) {
            break v;
        }
        *game = p.new_game();
    };
    stop(node, true, &p.b);
    v
}

/// A small deterministic generator of the rounds' delays (a failing round is replayed
/// by its number).
fn delay(round: u64, actor: u64, max_ms: u64) -> Duration {
    let mut x = round
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(actor.wrapping_mul(0xbf58_476d_1ce4_e5b9));
    x ^= x >> 31;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 29;
    Duration::from_millis(x % (max_ms + 1))
}

/// When each of the four starts in round `r`, in ms from the round's start (node,
/// `games`, `show`, `move`), in turn: the node first and the commands within 0.4 s (a
/// node takes about that to bind its control socket); the commands first and the node
/// within 60 ms (while they hold the store: where the node used to die); all at random
/// within 0.4 s.
fn plan(r: u64) -> [Duration; 4] {
    let mut at = [0, 1, 2, 3].map(|i| delay(r, i, 400));
    match r % 3 {
        0 => at[0] = Duration::ZERO,
        1 => {
            at[0] = delay(r, 0, 60);
            for c in &mut at[1..] {
                *c = Duration::ZERO;
            }
        }
        _ => {}
    }
    at
}

/// The interleavings: bob's node and `games`, `show` and `move` started together, in
/// every order and with varied delays, many rounds. Every command succeeds, the node
/// never exits, and every move reaches alice (her bots answer it).
#[test]
fn node_and_commands_in_every_order() {
    let rounds: u64 = std::env::var("SEALED_HANDOVER_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let p = pair("interleave");
    let first = p.bob(&[]);
    assert!(!first.addr.is_empty(), "bob's node starts");
    let mut game = p.new_game();
    stop(first, true, &p.b);
    let mut failures = vec![];
    let (mut node_waited, mut command_waited) = (0, 0);
    let start = Instant::now();
    for r in 0..rounds {
        let before = settle(&p, &mut game);
        let m = example_move(&before);
        let at = plan(r);
        let (node, outs) = std::thread::scope(|s| {
            let node = s.spawn(|| {
                std::thread::sleep(at[0]);
                p.bob(&[])
            });
            let commands: Vec<_> = [
                ("games", vec!["games"]),
                ("show", vec!["show", game.as_str(), "--json"]),
                ("move", vec!["move", game.as_str(), m.as_str()]),
            ]
            .into_iter()
            .zip(&at[1..])
            .map(|((name, args), wait)| {
                let b = &p.b;
                s.spawn(move || {
                    std::thread::sleep(*wait);
                    (name, at_home(b, &args))
                })
            })
            .collect();
            let outs: Vec<(&str, Output)> = commands
                .into_iter()
                .map(|c| c.join().expect("a command thread"))
                .collect();
            (node.join().expect("the node thread"), outs)
        });
        let mut node = node;
        let said = std::fs::read_to_string(p.b.with_extension("err")).unwrap_or_default();
        if said.contains(NODE_WAITS) {
            node_waited += 1;
        }
        let mut bad = false;
        for (name, out) in &outs {
            if stderr(out).contains(COMMAND_WAITS) {
                command_waited += 1;
            }
            if code(out) != 0 {
                bad = true;
                failures.push((r, format!("`{name}` exit {}: {}", code(out), stderr(out))));
            }
        }
        if node.addr.is_empty() || node.exited() {
            bad = true;
            failures.push((r, format!("the node died: {said}")));
        }
        if !bad {
            // The move went out with this node: alice's bots answer it.
            let ply = before["ply"].as_u64().unwrap_or(0);
            wait_for(&p.b, &game, "alice's answer to the move", |v| {
                over(v) || (bobs_turn(v) && v["ply"].as_u64().unwrap_or(0) >= ply + 2)
            });
            wait_for(&p.a, &game, "bob's move at alice's", |v| {
                v["ply"].as_u64().unwrap_or(0) > ply
            });
        }
        stop(node, r % 2 == 0, &p.b);
    }
    eprintln!(
        "{rounds} rounds in {:.1} s: the node waited for a command in {node_waited}, a command \
         waited for the node or the store {command_waited} times; {} rounds failed",
        start.elapsed().as_secs_f64(),
        failures
            .iter()
            .map(|(r, _)| r)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A move made with bob's node stopped, by a command that holds the store while bob's
/// node starts (its commit held 2 s by a fault point), goes out with that node: the node
/// waits for the command, says so, and then offers the move to alice.
#[test]
fn a_move_kept_in_the_store_goes_out_with_the_node_starting() {
    let p = pair("kept");
    let node = p.bob(&[]);
    assert!(!node.addr.is_empty(), "bob's node starts");
    let game = p.new_game();
    stop(node, true, &p.b);
    let v = show_json(&p.b, &game).expect("show with the node stopped");
    let ply = v["ply"].as_u64().expect("a ply");
    let m = example_move(&v);
    // The move, made on the store: its commit pauses 2 s, as a slow disk would.
    let mover = slow_move(&p.b, &game, &m, 2000);
    // Once the command holds the store, bob's node starts.
    let path = p.b.join("store.redb");
    let start = Instant::now();
    loop {
        match Store::open(&path) {
            Err(StoreError::AlreadyOpen(_)) => break,
            r => drop(r),
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the move never took the store"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let node = p.bob(&[]);
    let said = std::fs::read_to_string(p.b.with_extension("err")).unwrap_or_default();
    assert!(!node.addr.is_empty(), "bob's node died: {said}");
    assert!(
        said.contains(NODE_WAITS),
        "the node did not say it waits: {said:?}"
    );
    assert_eq!(said.matches(NODE_WAITS).count(), 1, "said once: {said:?}");
    let moved = mover.wait_with_output().expect("the move ends");
    assert_eq!(code(&moved), 0, "{}", stderr(&moved));
    assert!(
        stdout(&moved).contains(&format!("ply {}", ply + 1)),
        "{}",
        stdout(&moved)
    );
    // The node offers it to alice, with nobody asking.
    wait_for(&p.a, &game, "bob's move at alice's", |v| {
        v["ply"].as_u64().unwrap_or(0) > ply
    });
    drop(node);
}

/// Two game commands at once with no node: the second waits for the first and both
/// succeed; a second node for a home whose node runs is refused at once, naming it.
#[test]
fn two_commands_at_once_and_a_second_node() {
    let p = pair("two");
    let node = p.bob(&[]);
    assert!(!node.addr.is_empty(), "bob's node starts");
    let game = p.new_game();
    let again = spawn_node(&p.b, "node", "/ip4/127.0.0.1/tcp/0", &[], &[]);
    assert!(again.addr.is_empty(), "a second node for the home ran");
    let said = std::fs::read_to_string(p.b.with_extension("err")).unwrap_or_default();
    assert!(
        said.contains("a node already runs for this home"),
        "{said:?}"
    );
    stop(node, true, &p.b);
    // A command holds the store 1 s in its commit (`move`), another only reads.
    let v = show_json(&p.b, &game).expect("show with the node stopped");
    let m = example_move(&v);
    let mover = slow_move(&p.b, &game, &m, 1000);
    let path = p.b.join("store.redb");
    while !matches!(Store::open(&path), Err(StoreError::AlreadyOpen(_))) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let games = at_home(&p.b, &["games"]);
    assert_eq!(code(&games), 0, "{}", stderr(&games));
    assert!(stdout(&games).contains(&game[..8]), "{}", stdout(&games));
    assert_eq!(
        stderr(&games).matches(COMMAND_WAITS).count(),
        1,
        "{}",
        stderr(&games)
    );
    let moved = mover.wait_with_output().expect("the move ends");
    assert_eq!(code(&moved), 0, "{}", stderr(&moved));
}

/// `sealed move` on `home` whose store commit pauses `ms` first, as a slow disk would.
fn slow_move(home: &Path, game: &str, m: &str, ms: u64) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_sealed"))
        .args(["--home", home.to_str().unwrap(), "move", game, m])
        .env("FAILPOINTS", format!("store-commit-error=sleep({ms})"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the move runs")
}
