//! What a node's start costs with many finished games in its store, and what it would
//! cost if it replayed them all, as the node before issue 14 did (baseline measured in
//! the same run, on the same store):
//!
//! - **empty**: a node whose store holds no game (the fixed cost: key, store, swarm);
//! - **dormant**: today's node over N finished games: it reads their index and records
//!   and replays none (spec: ARCHITECTURE.md, "finished games stay dormant");
//! - **active**: the same, with unfinished Duels beside them (a few moves each), which
//!   the node restores or lets sleep as it does any game in play;
//! - **eager**: the same start, then every game asked for (`show`), so each is replayed
//!   from its envelopes and kept in memory: what the node before did at every start
//!   (plus one JSON rendering per game, a small part of a replay).
//!
//! Each case runs in a child process of its own, so the resident memory it reports
//! (VmHWM, the peak) is its own; each runs [`RUNS`] times and the median is printed.
//! The store is N whole Duels (default options) played between two tables in this
//! process, seat 0's side written as a node writes it: record, secrets, envelopes.
//!
//! `cargo bench -p sealed-node --bench startup` (10,000 games);
//! `SEALED_BENCH_GAMES=500 cargo bench …` for a quick run. Not criterion: one start is
//! one sample and the figures are memory as well as time; printed as `startup:` lines.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::{Duration, Instant};

use sealed_games::table::{self, Invitees, Table};
use sealed_node::store::{Batch, GameRecord, GameStatus, Store};
use sealed_node::{Home, NodeConfig, start};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;

/// Games by default; `SEALED_BENCH_GAMES` overrides.
const DEFAULT_GAMES: usize = 10_000;

/// Unfinished games beside them in the `active` case (issue 57's goal: a node with
/// 10,000 finished and 1,000 active games answers ≤ 1 s after it starts);
/// `SEALED_BENCH_ACTIVE` overrides.
const DEFAULT_ACTIVE: usize = 1_000;

/// Starts per case; the median is printed.
const RUNS: usize = 3;

/// Games written per store transaction while building the store.
const PER_COMMIT: usize = 200;

/// The child's environment variable: `<home> <case>`.
const CHILD: &str = "SEALED_STARTUP_CHILD";

fn key(seat: u8) -> SecretKey {
    SecretKey::from_seed(&[seat + 1; 32])
}

/// A Duel between two tables, game `n`: seat 0's table at its end, or, with `steps`,
/// after that many rounds of play, unfinished.
fn played_duel(n: u64, steps: Option<u64>) -> Box<dyn Table> {
    let mut nonce = [0u8; 32];
    nonce[..8].copy_from_slice(&n.to_le_bytes());
    let signed = table::propose(
        "duel",
        &[],
        &key(0),
        Invitees {
            opponent: key(1).public().to_bytes(),
            ..Default::default()
        },
        1,
        nonce,
    )
    .expect("a proposal");
    let terms = Terms::from_signed(signed).expect("terms");
    let mut tables: Vec<Box<dyn Table>> = (0..2u8)
        .map(|s| {
            let mut entropy = nonce;
            entropy[31] = s + 1;
            table::open(terms.clone(), key(s), "", entropy, 1).expect("a table")
        })
        .collect();
    common::play_out(&mut tables, n.wrapping_add(7), steps.unwrap_or(10_000));
    assert_eq!(
        tables[0].session().phase().is_done(),
        steps.is_none(),
        "duel {n}: ended only when played out"
    );
    tables.swap_remove(0)
}

/// A game as the node stores it: its record, secrets and envelopes.
struct Stored {
    record: GameRecord,
    secrets: Vec<u8>,
    envelopes: Vec<Vec<u8>>,
}

fn stored(t: &dyn Table) -> Stored {
    let secrets = t.session().phase().secrets().clone();
    Stored {
        record: GameRecord {
            id: t.session().terms().game(),
            terms: t.session().terms().bytes().to_vec(),
            variant: t.session().terms().variant().to_owned(),
            seat: Some(t.session().seat().0),
            created: 1,
            status: if t.session().phase().is_done() {
                GameStatus::Finished
            } else {
                GameStatus::Active
            },
        },
        secrets: sealed_protocol::wire::encode(&secrets),
        envelopes: t.session().envelopes().all(),
    }
}

/// Rounds of play of an unfinished game: a few moves each, its clocks and chains begun.
const ACTIVE_STEPS: u64 = 12;

/// Seat 0's home with `games` finished Duels and `active` unfinished ones in its store.
fn build_home(dir: &Path, games: usize, active: usize) -> Home {
    let home = Home::at(dir);
    home.init_with(&[1; 32], "startup").expect("a home");
    let store = Store::open(&home.store_path()).expect("a store");
    let start = Instant::now();
    let mut envelopes = 0;
    let all = (0..(games + active) as u64).collect::<Vec<_>>();
    for chunk in all.chunks(PER_COMMIT) {
        let steps = |n: u64| (n >= games as u64).then_some(ACTIVE_STEPS);
        let games: Vec<Stored> = chunk
            .iter()
            .map(|&n| stored(&*played_duel(n, steps(n))))
            .collect();
        let mut batch = Batch::new();
        for g in &games {
            batch.game(&g.record).secrets(g.record.id, &g.secrets);
            for e in &g.envelopes {
                batch.envelope(g.record.id, e);
            }
            envelopes += g.envelopes.len();
        }
        store.commit(&batch).expect("stored");
    }
    let size = std::fs::metadata(home.store_path()).map_or(0, |m| m.len());
    println!(
        "startup: built {games} finished and {active} unfinished Duels ({envelopes} envelopes, store {:.1} MB) in {:.1} s",
        size as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    home
}

/// A line of /proc/self/status, in KiB.
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The child: starts a node on `home`, waits until it answers, wakes every game if the
/// case is `eager`, and prints `<ms> <peak KiB>`.
fn child(home: &Path, case: &str) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let mut cfg = NodeConfig::default();
        cfg.net.mdns = false;
        cfg.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().expect("an address")];
        let home = Home::at(home);
        let began = Instant::now();
        let (node, task) = start(&home, cfg).await.expect("the node starts");
        node.info().await.expect("the node answers");
        if case == "eager" {
            for g in node.games().await.expect("the games") {
                node.show(&g.game).await.expect("a game shown");
            }
        }
        let took = began.elapsed();
        let games = node.games().await.expect("the games").len();
        println!(
            "{} {} {games}",
            took.as_secs_f64() * 1e3,
            status_kib("VmHWM:")
        );
        node.shutdown().await.expect("shut down");
        let _ = task.await;
    });
}

/// One case: [`RUNS`] children; the median time and peak memory.
fn case(home: &Path, name: &str, games: usize) -> (Duration, u64) {
    let mut times = Vec::new();
    let mut peaks = Vec::new();
    for _ in 0..RUNS {
        let out = Process::new(std::env::current_exe().expect("this bench"))
            .env(CHILD, format!("{} {name}", home.display()))
            .output()
            .expect("the child runs");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let f: Vec<f64> = text
            .split_whitespace()
            .map(|w| w.parse().expect("a figure"))
            .collect();
        assert_eq!(f[2] as usize, games, "{name}: every game listed");
        times.push(Duration::from_secs_f64(f[0] / 1e3));
        peaks.push(f[1] as u64);
    }
    times.sort();
    peaks.sort();
    (times[RUNS / 2], peaks[RUNS / 2])
}

fn main() {
    if let Ok(arg) = std::env::var(CHILD) {
        let (home, case) = arg.rsplit_once(' ').expect("<home> <case>");
        child(Path::new(home), case);
        return;
    }
    let games: usize = std::env::var("SEALED_BENCH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_GAMES);
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a directory");
    let active: usize = std::env::var("SEALED_BENCH_ACTIVE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_ACTIVE);
    let empty: PathBuf = dir.path().join("empty");
    let full: PathBuf = dir.path().join("full");
    let busy: PathBuf = dir.path().join("busy");
    build_home(&empty, 0, 0);
    build_home(&full, games, 0);
    build_home(&busy, games, active);
    let (t0, m0) = case(&empty, "empty", 0);
    let (td, md) = case(&full, "dormant", games);
    let (ta, ma) = case(&busy, "active", games + active);
    let (te, me) = case(&full, "eager", games);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mb = |k: u64| k as f64 / 1024.0;
    println!("startup: median of {RUNS} starts, each in its own process; peak resident memory");
    println!("startup: empty store: {:.0} ms, {:.1} MiB", ms(t0), mb(m0));
    println!(
        "startup: {games} finished games, dormant (today): {:.0} ms, {:.1} MiB",
        ms(td),
        mb(md)
    );
    println!(
        "startup: {games} finished and {active} unfinished games: {:.0} ms, {:.1} MiB",
        ms(ta),
        mb(ma)
    );
    println!(
        "startup: {games} finished games, every one replayed (before): {:.0} ms, {:.1} MiB",
        ms(te),
        mb(me)
    );
    println!(
        "startup: replayed/dormant: time {:.1}×, memory above the empty node {:.1}×",
        te.as_secs_f64() / td.as_secs_f64(),
        (me.saturating_sub(m0)) as f64 / (md.saturating_sub(m0)).max(1) as f64
    );
}
