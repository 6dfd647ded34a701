//! The kill -9 soak: real `sealed node --bots` processes (two players) and a `sealed
//! referee` play many games of Tempête, Cardmate, Chex and Secret Stallmate while the
//! soak kills them with SIGKILL at random moments — one node, both players at once, or a
//! node while a `sealed` command is talking to it — and restarts them at once on the same
//! address. Then every game must finish; every seat's transcript of every game must be
//! the same bytes and verify with no fault against anyone (spec/PROTOCOL.md §11.2).
//!
//! `cargo test -p sealed-cli --test soak` runs the short version (about 20 kills, 8
//! games); the long one is
//! `SEALED_SOAK=long cargo test --release -p sealed-cli --test soak -- --nocapture`
//! (250 kills, 36 games), whose figures are in docs/RELIABILITY.md. `SEALED_SOAK_SEED`
//! replays the soak's choices (the games themselves differ: their secrets come from the
//! operating system); `SEALED_SOAK_KILLS` and `SEALED_SOAK_GAMES` override the sizes.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{Node, TempDir, at_home, code, free_port, spawn_node, stderr, stdout};
use serde_json::Value;

/// How big a soak is.
struct Plan {
    kills: usize,
    games: usize,
    /// Games running at once.
    parallel: usize,
    /// Secret Stallmate's move period: longer than any outage the soak causes (a
    /// restart takes well under a second), so no period ends for want of a node.
    period: &'static str,
    /// The longest pause between two kills, in ms.
    max_pause: u64,
    /// How long the games may take after the last kill.
    finish: Duration,
}

impl Plan {
    fn from_env() -> Plan {
        let long = std::env::var("SEALED_SOAK").is_ok_and(|v| v == "long");
        let number = |name: &str, default: usize| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        Plan {
            kills: number("SEALED_SOAK_KILLS", if long { 250 } else { 20 }),
            games: number("SEALED_SOAK_GAMES", if long { 36 } else { 8 }),
            parallel: if long { 6 } else { 4 },
            period: "4s",
            max_pause: 1200,
            finish: Duration::from_secs(if long { 1200 } else { 360 }),
        }
    }
}

/// The options of each variant's games: short, so many games fit in a soak.
fn options(variant: &str, plan: &Plan) -> Vec<String> {
    let o = |pairs: &[&str]| pairs.iter().map(|p| (*p).to_owned()).collect();
    match variant {
        "tempete" => o(&["ply-limit=40"]),
        "cardmate" => o(&["setup=random", "ply-limit=40"]),
        "chex" => o(&["ply-limit=40"]),
        _ => vec![format!("period={}", plan.period), "ply-limit=8".into()],
    }
}

const VARIANTS: [&str; 4] = ["tempete", "cardmate", "chex", "stallmate"];

/// A small deterministic chooser for the soak's own choices.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// One node of the soak: its home, its fixed address, its command and the process.
struct Peer {
    name: &'static str,
    home: PathBuf,
    listen: String,
    args: Vec<&'static str>,
    node: Option<Node>,
    addr: String,
    restarts: usize,
}

impl Peer {
    fn new(dir: &Path, name: &'static str, args: Vec<&'static str>) -> Peer {
        let home = dir.join(name);
        let out = at_home(&home, &["init", "--name", name]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let mut p = Peer {
            name,
            home,
            listen: format!("/ip4/127.0.0.1/tcp/{}", free_port()),
            args,
            node: None,
            addr: String::new(),
            restarts: 0,
        };
        p.start();
        p
    }

    fn start(&mut self) {
        let (command, extra) = self.args.split_first().expect("a command");
        let node = spawn_node(&self.home, command, &self.listen, extra, &[]);
        assert!(!node.addr.is_empty(), "{} did not start", self.name);
        self.addr = node.addr.clone();
        self.node = Some(node);
    }

    /// SIGKILL (dropping a node kills it), then straight back.
    fn kill(&mut self) {
        drop(self.node.take());
    }

    fn restart(&mut self) {
        self.restarts += 1;
        self.start();
    }

    fn games(&self) -> Vec<Value> {
        let out = at_home(&self.home, &["games", "--json"]);
        if code(&out) != 0 {
            return vec![];
        }
        serde_json::from_str::<Value>(&stdout(&out))
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }
}

/// What the soak saw, for the report.
#[derive(Default)]
struct Tally {
    kills: BTreeMap<&'static str, usize>,
    commands_in_flight: usize,
    command_exits: BTreeMap<i32, usize>,
    proposals_tried: usize,
}

/// Runs `sealed --home HOME ARGS` in a thread; the node is killed while it runs.
fn in_flight(home: &Path, args: Vec<String>) -> mpsc::Receiver<i32> {
    let (tx, rx) = mpsc::channel();
    let home = home.to_owned();
    std::thread::spawn(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let _ = tx.send(code(&at_home(&home, &args)));
    });
    rx
}

#[test]
fn kill_dash_nine_soak() {
    let plan = Plan::from_env();
    let seed = std::env::var("SEALED_SOAK_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        });
    eprintln!(
        "soak: seed {seed}, {} kills, {} games",
        plan.kills, plan.games
    );
    let mut rng = Rng(seed);
    let dir = TempDir::new("soak");
    let mut peers = [
        Peer::new(dir.path(), "alice", vec!["node", "--bots"]),
        Peer::new(dir.path(), "bob", vec!["node", "--bots"]),
        Peer::new(dir.path(), "referee", vec!["referee"]),
    ];
    let (alice, bob, referee) = (0, 1, 2);
    let start = Instant::now();
    let mut tally = Tally::default();
    let mut kills = 0;
    let mut last_kill = None;
    loop {
        let (proposed, running) = progress(&peers[..2]);
        // Keep `parallel` games going, proposed by either player in turn.
        if proposed.len() < plan.games && running < plan.parallel && kills < plan.kills {
            let variant = VARIANTS[tally.proposals_tried % VARIANTS.len()];
            let (from, to) = if tally.proposals_tried % 2 == 0 {
                (alice, bob)
            } else {
                (bob, alice)
            };
            let mut args = vec!["new".to_owned(), variant.to_owned()];
            args.extend(["--peer".to_owned(), peers[to].addr.clone()]);
            if variant == "stallmate" {
                args.extend(["--referee".to_owned(), peers[referee].addr.clone()]);
            }
            for o in options(variant, &plan) {
                args.extend(["-o".to_owned(), o]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let _ = at_home(&peers[from].home, &args);
            tally.proposals_tried += 1;
            continue;
        }
        if kills >= plan.kills {
            if !proposed.is_empty() && every_seat_done(&proposed, &peers) {
                break;
            }
            assert!(
                last_kill.is_none_or(|t: Instant| t.elapsed() < plan.finish),
                "games unfinished {:?} after the last kill: {:#?}",
                plan.finish,
                peers.iter().map(Peer::games).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(500));
            continue;
        }
        std::thread::sleep(Duration::from_millis(rng.below(plan.max_pause)));
        let player = rng.below(2) as usize;
        match rng.below(10) {
            // Both players at once.
            0 => {
                peers[alice].kill();
                peers[bob].kill();
                *tally.kills.entry("both players").or_default() += 1;
                peers[alice].restart();
                peers[bob].restart();
                kills += 2;
            }
            1 => {
                peers[referee].kill();
                *tally.kills.entry("referee").or_default() += 1;
                peers[referee].restart();
                kills += 1;
            }
            // A player while a command talks to its node: a listing, a game shown, or
            // a proposal (made, or not, by the time the node dies).
            2 | 3 => {
                let args = match rng.below(3) {
                    0 => vec!["games".to_owned(), "--json".into()],
                    1 => vec![
                        "show".to_owned(),
                        proposed.iter().next().cloned().unwrap_or_default(),
                    ],
                    _ => {
                        tally.proposals_tried += 1;
                        let other = peers[1 - player].addr.clone();
                        ["new", "chex", "--peer", &other, "-o", "ply-limit=40"]
                            .map(str::to_owned)
                            .to_vec()
                    }
                };
                let rx = in_flight(&peers[player].home, args);
                std::thread::sleep(Duration::from_millis(rng.below(15)));
                peers[player].kill();
                let exit = rx
                    .recv_timeout(Duration::from_secs(30))
                    .expect("a command hung when its node was killed");
                *tally.command_exits.entry(exit).or_default() += 1;
                tally.commands_in_flight += 1;
                *tally.kills.entry("player, command in flight").or_default() += 1;
                peers[player].restart();
                kills += 1;
            }
            _ => {
                peers[player].kill();
                *tally.kills.entry("one player").or_default() += 1;
                peers[player].restart();
                kills += 1;
            }
        }
        last_kill = Some(Instant::now());
    }
    let played = start.elapsed();
    // Every seat's transcript of every game: the same bytes, verified, no fault.
    let games = finished_games(&peers[..2]);
    assert!(
        games.len() >= plan.games,
        "only {} games were played",
        games.len()
    );
    let mut variants: BTreeMap<String, usize> = BTreeMap::new();
    let mut endings: BTreeMap<String, usize> = BTreeMap::new();
    let mut claims = 0;
    for (game, variant) in &games {
        *variants.entry(variant.clone()).or_default() += 1;
        let seats = &peers[..if variant == "stallmate" { 3 } else { 2 }];
        let mut files = vec![];
        for p in seats {
            let file = dir.path().join(format!("{game}-{}.sealed", p.name));
            let out = at_home(
                &p.home,
                &["export", game, "--transcript", file.to_str().unwrap()],
            );
            assert_eq!(code(&out), 0, "{}: {}", p.name, stderr(&out));
            files.push(std::fs::read(&file).unwrap());
        }
        assert!(
            files.windows(2).all(|w| w[0] == w[1]),
            "game {game} ({variant}): the seats hold different transcripts"
        );
        let file = dir.path().join(format!("{game}-alice.sealed"));
        let out = common::sealed(&["verify", file.to_str().unwrap(), "--json"]);
        let report: Value = serde_json::from_str(&stdout(&out)).expect("verify --json");
        let verdict = &report["verdict"];
        assert_eq!(
            verdict["faults"],
            Value::Array(vec![]),
            "game {game} ({variant}): a fault: {report:#}"
        );
        match code(&out) {
            0 => {}
            // Only a deadline that passed while a node was down may leave a claim.
            3 => {
                let timing = verdict["claims"].as_array().is_some_and(|c| {
                    c.iter()
                        .all(|c| c["about"] == "timeout" || c["about"] == "abandoned")
                });
                assert!(timing, "game {game} ({variant}) unconfirmed: {report:#}");
                claims += 1;
            }
            other => panic!("game {game} ({variant}): verify exit {other}: {report:#}"),
        }
        let reason = verdict["outcome"]["reason"]
            .as_str()
            .unwrap_or("none")
            .to_owned();
        *endings.entry(reason).or_default() += 1;
    }
    eprintln!(
        "soak: seed {seed}; {} kills ({:?}); {} commands in flight when killed (exits {:?}); \
         restarts alice {} bob {} referee {}; {} games ({variants:?}) finished and verified, \
         {} transcripts identical across seats, {claims} with a time claim; endings {endings:?}; \
         {:.0} s",
        kills,
        tally.kills,
        tally.commands_in_flight,
        tally.command_exits,
        peers[alice].restarts,
        peers[bob].restarts,
        peers[referee].restarts,
        games.len(),
        games.len(),
        played.as_secs_f64(),
    );
}

/// The games the players proposed (as their own lists say), and how many of them are
/// not finished yet on both sides.
fn progress(players: &[Peer]) -> (BTreeSet<String>, usize) {
    let lists: Vec<Vec<Value>> = players.iter().map(Peer::games).collect();
    // The proposer holds seat 0.
    let proposed: BTreeSet<String> = lists
        .iter()
        .flatten()
        .filter(|g| g["seat"] == 0)
        .filter_map(|g| g["game"].as_str().map(str::to_owned))
        .collect();
    let finished = |g: &String| {
        lists.iter().all(|list| {
            list.iter()
                .any(|x| x["game"] == g.as_str() && x["status"] == "finished")
        })
    };
    let running = proposed.iter().filter(|g| !finished(g)).count();
    (proposed, running)
}

/// Whether every seat of every game says it is finished.
fn every_seat_done(games: &BTreeSet<String>, peers: &[Peer]) -> bool {
    let lists: Vec<Vec<Value>> = peers.iter().map(|p| p.games()).collect();
    games.iter().all(|g| {
        let lines: Vec<&Value> = lists
            .iter()
            .flatten()
            .filter(|x| x["game"] == g.as_str())
            .collect();
        // Two players at least, and a referee too for Secret Stallmate.
        let seats = if lines.first().is_some_and(|l| l["variant"] == "stallmate") {
            3
        } else {
            2
        };
        lines.len() >= seats && lines.iter().all(|l| l["status"] == "finished")
    })
}

/// Every game the players hold, with its variant.
fn finished_games(players: &[Peer]) -> BTreeMap<String, String> {
    players
        .iter()
        .flat_map(|p| p.games())
        .filter_map(|g| {
            Some((
                g["game"].as_str()?.to_owned(),
                g["variant"].as_str()?.to_owned(),
            ))
        })
        .collect()
}
