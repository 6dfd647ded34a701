//! Many games at once between two real nodes on loopback (real libp2p, real redb stores
//! under Cargo's target dir): what a node pair sustains, and what an idle game costs.
//! Issue 34's "Scale" goal: 10,000 concurrent games all finish, 0 lost, with the set-up
//! rate, plies per second and resident memory per idle game (goal ≤ 16 KiB per seat).
//!
//! 1. Node A proposes N Duels (default options) to node B and B accepts them, bots off,
//!    in waves of [`WAVE`] games, in two halves. Once every game of a half has settled
//!    (commitments and coins exchanged, the first deals made, nothing in flight for two
//!    polls), every game has gone to sleep, out of memory (core `sleep.rs`, after
//!    [`SLEEP`] idle), and [`QUIET`] more has passed, the process's VmRSS is read. The
//!    cost of an idle game is
//!    the growth from the first half to the second divided by the games of the second:
//!    a marginal figure, free of what the first games warm up once (allocator arenas,
//!    libp2p's buffers, the tokio workers) and of freed memory the allocator keeps
//!    from the set-up (the same in both readings once warmed). Both nodes are in this
//!    process, so a seat's cost is half a game's. Beside the RSS, the live heap bytes
//!    the same way, counted by a counting global allocator (`stats_alloc`, which needs
//!    no `unsafe` of ours): exact, free of the allocator's fragmentation, and the
//!    figure to read for where the bytes go. redb's page cache is capped per store
//!    (`node/src/store`, 32 MiB) and counts in both figures while it fills.
//! 2. Bots go on at both nodes and all N games are played to their end concurrently.
//!    Printed: acts (plies) and envelopes per second, and, per game, the envelopes each
//!    side holds against what a Duel makes, so that a lost envelope shows.
//!
//! A game is lost if it does not end finished on both sides with every envelope of a
//! Duel on both; a game that stops moving for [`STALL`] is reported with where each side
//! stands, and once every figure is printed the run exits 1 if any game was lost or a
//! sampled finished transcript does not verify.
//!
//! `nice -n 5 cargo bench -p sealed-node --bench many_games` (1000 games);
//! `SEALED_BENCH_GAMES=10000 …` for issue 34's figure (docs/PERFORMANCE.md);
//! `SEALED_BENCH_GAMES=40 …` for a quick run. `SEALED_LOG=warn` shows the streams
//! libp2p drops. Not criterion: the figures are throughputs and counts of one long run,
//! printed as `many_games:` lines.
//!
//! Over 600 lines: the set-up, the memory readings and the play are phases of one run on
//! the same two nodes, and each reading is taken against the one before it.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use futures::future::join_all;
use sealed_games::table::{self, Invitees, Table};
use sealed_node::{GameSummary, Home, NodeConfig, NodeHandle, ProposeArgs, start};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::{Action, Command};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

/// Counts every allocation of the process: the live heap bytes ([`heap`]).
#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Games by default; `SEALED_BENCH_GAMES` overrides.
const DEFAULT_GAMES: usize = 1000;

/// How often the progress is polled at most, which is also the grain of the play time.
/// Each poll makes both actors summarise every game (a few milliseconds with a thousand
/// games), so with many games the pause is four times what the last poll took.
const POLL: Duration = Duration::from_millis(250);

/// Games proposed and accepted at once while setting up. The node sends one sync
/// request per game and envelope batch, and libp2p's request/response keeps at most 100
/// streams open per connection (`request_response::Config::default()`), dropping the
/// rest, which the node never sends again while connected: a wave of W games opens
/// about 2W streams at once.
const WAVE: usize = 20;

/// A run that makes no progress for this long has stalled: six of the nodes' periodic
/// ticks, each of which sends the peer a `Heads` round that repairs what was lost or
/// refused. Not two: at 10,000 games the last envelopes came through repairs in a slow
/// tail (most likely pushes refused by the peer's rate budget, `core/src/limit.rs`,
/// 1,000 tokens a second), and 10 s declared 781 games lost in a run that, run again
/// with 30 s, finished every game.
const STALL: Duration = Duration::from_secs(30);

/// What a Duel with the default options (9 cards, 3 in hand) makes, whole: 18 plays;
/// 6 refill deals of their own (after each of the 6 rounds that leave cards, both hands
/// are owed a card, each seat's dealt by the other: the leader's rides in the
/// follower's play, whose act made it due, and the follower's takes an envelope of
/// the leader's); and per seat its opening, coin reveal with the opening deal,
/// deal-seed reveal and two closes.
const DUEL_ENVELOPES: usize = 2 * 9 + (9 - 3) + 2 * 5;

/// After a half has settled, a wait before reading the RSS, so that what the last
/// polls and ticks allocated for a moment is freed.
const QUIET: Duration = Duration::from_secs(3);

/// How long an unfinished game with nothing to do stays in memory: 2 s, where a
/// node's default is 5 minutes, so that the idle figure is that of games asleep.
const SLEEP: Duration = Duration::from_secs(2);

/// The goal of issue 34: an idle game's resident memory per seat.
const GOAL_KIB_PER_SEAT: f64 = 16.0;

fn cfg() -> NodeConfig {
    let mut c = NodeConfig::default();
    c.net.mdns = false;
    c.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
    c.core.bots = false;
    c.core.sleep_ms = SLEEP.as_millis() as u64;
    c
}

/// Waits until each node holds `k` games asleep (core `sleep.rs`); how long that took.
async fn until_asleep(a: &NodeHandle, b: &NodeHandle, k: usize) -> Duration {
    let t = Instant::now();
    loop {
        let (x, y) = tokio::join!(a.info(), b.info());
        let (x, y) = (x.unwrap(), y.unwrap());
        if x.games_asleep == k && y.games_asleep == k {
            return t.elapsed();
        }
        if t.elapsed() > STALL {
            println!(
                "many_games: not every idle game went to sleep: {} and {} of {k} asleep, \
                 {} and {} in memory, for {:?} and {:?}",
                x.games_asleep,
                y.games_asleep,
                x.games_in_memory,
                y.games_in_memory,
                x.games_awake_for,
                y.games_awake_for
            );
            return t.elapsed();
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn node(dir: &Path, seed: u8) -> NodeHandle {
    let home = Home::at(dir);
    home.init_with(&[seed; 32], &format!("p{seed}")).unwrap();
    start(&home, cfg()).await.unwrap().0
}

/// Resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Live heap bytes of this process: allocated and not yet freed (`stats_alloc` counts
/// a reallocation's growth as allocated and its shrinking as freed already).
fn heap() -> i64 {
    let s = GLOBAL.stats();
    s.bytes_allocated as i64 - s.bytes_deallocated as i64
}

/// Resident and heap memory at one moment.
#[derive(Clone, Copy)]
struct Mem {
    rss_kib: u64,
    heap: i64,
}

impl Mem {
    fn now() -> Mem {
        Mem {
            rss_kib: rss_kib(),
            heap: heap(),
        }
    }

    /// The growth since `before`, per thing of `k`: (RSS, heap), in KiB.
    fn per(self, before: Mem, k: f64) -> (f64, f64) {
        (
            self.rss_kib.saturating_sub(before.rss_kib) as f64 / k,
            (self.heap - before.heap) as f64 / 1024.0 / k,
        )
    }
}

/// Bytes of the files under `dir`.
fn du(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => du(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// Each node's summaries by game.
async fn both(a: &NodeHandle, b: &NodeHandle) -> [HashMap<String, GameSummary>; 2] {
    let by_game = |v: Vec<GameSummary>| v.into_iter().map(|g| (g.game.clone(), g)).collect();
    let (x, y) = tokio::join!(a.games(), b.games());
    [by_game(x.unwrap()), by_game(y.unwrap())]
}

/// What changes while games progress: each side's envelopes and plies in total.
fn progress(s: &[HashMap<String, GameSummary>; 2]) -> [usize; 4] {
    let sum = |m: &HashMap<String, GameSummary>, f: fn(&GameSummary) -> usize| {
        m.values().map(f).sum::<usize>()
    };
    [
        sum(&s[0], |g| g.held),
        sum(&s[1], |g| g.held),
        sum(&s[0], |g| g.ply),
        sum(&s[1], |g| g.ply),
    ]
}

/// Where the polling stopped.
struct Polled {
    /// Both sides' summaries at the end.
    s: [HashMap<String, GameSummary>; 2],
    /// Whether `done` held (else nothing changed for [`STALL`]).
    done: bool,
    /// When the counts last changed.
    last_change: Instant,
}

/// Polls until `done` holds of both sides' summaries with nothing in flight (the same
/// counts at two polls in a row), or until nothing has changed for [`STALL`]: the node
/// retries nothing while connected, so a game that lost an envelope waits forever.
async fn until(
    a: &NodeHandle,
    b: &NodeHandle,
    what: &str,
    done: impl Fn(&[HashMap<String, GameSummary>; 2]) -> bool,
) -> Polled {
    let start = Instant::now();
    let mut last_change = start;
    let (mut last, mut said) = (None, Instant::now());
    loop {
        let asked = Instant::now();
        let s = both(a, b).await;
        // A poll of ten thousand games takes its time from the nodes: at most a fifth.
        let pause = POLL.max(asked.elapsed() * 4);
        let p = progress(&s);
        if last != Some(p) {
            last_change = Instant::now();
        } else if done(&s) || last_change.elapsed() > STALL {
            return Polled {
                done: done(&s),
                s,
                last_change,
            };
        }
        last = Some(p);
        if said.elapsed() > Duration::from_secs(15) {
            said = Instant::now();
            let finished = s[0]
                .values()
                .filter(|g| g.status == sealed_node::core::GameState::Finished)
                .count();
            println!(
                "many_games:   … {what}: {:.0} s, {finished} games finished at A, \
                 envelopes held A {} B {}, plies A {} B {}",
                start.elapsed().as_secs_f64(),
                p[0],
                p[1],
                p[2],
                p[3]
            );
        }
        tokio::time::sleep(pause).await;
    }
}

/// Whether each side must act in a game: `None` where the node does not have it.
type Turns = [Option<bool>; 2];

/// Polls the games of a wave of the set-up, one by one (a poll of every game would
/// make the set-up's cost grow with the games already made), until `done` holds of
/// each, for at most five seconds: what is lost is reported by [`until`] once the
/// set-up is over. Each game's turns, in `wave`'s order.
async fn quick(
    a: &NodeHandle,
    b: &NodeHandle,
    wave: &[String],
    done: impl Fn(Turns) -> bool,
) -> Vec<Turns> {
    let deadline = Instant::now() + Duration::from_secs(5);
    let turn = |r: Result<sealed_node::core::GameView, _>| r.ok().map(|v| v.table.my_turn);
    loop {
        let s: Vec<Turns> = join_all(wave.iter().map(|id| async move {
            let (x, y) = tokio::join!(a.show(id), b.show(id));
            [turn(x), turn(y)]
        }))
        .await;
        if s.iter().all(|t| done(*t)) || Instant::now() > deadline {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Prints the games `ok` rejects (up to five), with where each side stands; returns how
/// many there are.
fn stuck(
    what: &str,
    ids: &[String],
    s: &[HashMap<String, GameSummary>; 2],
    ok: impl Fn(&GameSummary, Option<&GameSummary>) -> bool,
) -> usize {
    let bad: Vec<&String> = ids
        .iter()
        .filter(|id| !ok(&s[0][*id], s[1].get(*id)))
        .collect();
    if bad.is_empty() {
        return 0;
    }
    println!(
        "many_games: STUCK while {what}: {} games made no progress for {} s, for example:",
        bad.len(),
        STALL.as_secs()
    );
    for id in bad.iter().take(5) {
        let (ga, gb) = (&s[0][*id], s[1].get(*id));
        println!(
            "many_games:   {}: A {} ply {} held {} ({}) | B {}",
            &id[..12],
            ga.status,
            ga.ply,
            ga.held,
            ga.waiting_for,
            gb.map_or("has no such game".into(), |g| format!(
                "{} ply {} held {} ({})",
                g.status, g.ply, g.held, g.waiting_for
            ))
        );
    }
    bad.len()
}

/// Time spent in each node's set-up commands.
#[derive(Default)]
struct SetUp {
    proposing: Duration,
    accepting: Duration,
}

/// Settled: accepted, and one side may act.
fn ready(x: &GameSummary, y: Option<&GameSummary>) -> bool {
    let active = |g: &GameSummary| g.status == sealed_node::core::GameState::Active;
    y.is_some_and(|y| active(x) && active(y) && (x.my_turn || y.my_turn))
}

/// B accepts the invitations of `ids` that reached it after its wave's poll gave up
/// (the next repair round brings them), until none is left or [`STALL`] passes.
async fn accept_late(b: &NodeHandle, ids: &[String], spent: &mut SetUp) {
    let t = Instant::now();
    loop {
        let at_b: HashMap<String, GameSummary> = b
            .games()
            .await
            .unwrap()
            .into_iter()
            .map(|g| (g.game.clone(), g))
            .collect();
        let late: Vec<&String> = ids
            .iter()
            .filter(|id| {
                at_b.get(*id)
                    .is_none_or(|g| g.status == sealed_node::core::GameState::Invited)
            })
            .collect();
        if late.is_empty() || t.elapsed() > STALL {
            if !late.is_empty() {
                println!("many_games: {} invitations never reached B", late.len());
            }
            return;
        }
        let here = late.into_iter().filter(|id| at_b.contains_key(*id));
        let started = Instant::now();
        for r in join_all(here.map(|id| b.accept(id))).await {
            r.unwrap();
        }
        spent.accepting += started.elapsed();
        tokio::time::sleep(POLL).await;
    }
}

/// A proposes `count` Duels to B in waves of [`WAVE`], B accepts each once its
/// invitation is there, and each wave is given a moment to settle; the ids go in `ids`.
async fn set_up(
    a: &NodeHandle,
    b: &NodeHandle,
    b_addr: &libp2p::Multiaddr,
    count: usize,
    ids: &mut Vec<String>,
    spent: &mut SetUp,
) {
    let mut made = 0;
    while made < count {
        let k = WAVE.min(count - made);
        let t = Instant::now();
        let wave: Vec<String> = join_all((0..k).map(|_| {
            a.propose(ProposeArgs {
                variant: "duel".into(),
                options: vec![],
                peer: b_addr.clone(),
                mailbox: None,
                referee: None,
                witness: None,
            })
        }))
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
        spent.proposing += t.elapsed();
        let s = quick(a, b, &wave, |[_, y]| y == Some(true)).await;
        let at_b = wave.iter().zip(&s).filter(|(_, t)| t[1].is_some());
        let t = Instant::now();
        for r in join_all(at_b.map(|(id, _)| b.accept(id))).await {
            r.unwrap();
        }
        spent.accepting += t.elapsed();
        quick(a, b, &wave, |[x, y]| {
            y.is_some() && (x == Some(true) || y == Some(true))
        })
        .await;
        made += k;
        ids.extend(wave);
    }
}

/// The terms of Duel `n` (default options) between the seats' keys, with its nonce.
fn duel_terms(n: u64) -> (Terms, [u8; 32]) {
    let mut nonce = [0u8; 32];
    nonce[..8].copy_from_slice(&n.to_le_bytes());
    let signed = table::propose(
        "duel",
        &[],
        &seat_key(0),
        Invitees {
            opponent: seat_key(1).public().to_bytes(),
            ..Default::default()
        },
        1,
        nonce,
    )
    .expect("a proposal");
    (Terms::from_signed(signed).expect("terms"), nonce)
}

fn seat_key(seat: u8) -> SecretKey {
    SecretKey::from_seed(&[seat + 1; 32])
}

/// Seat `seat`'s table of Duel `n`, just opened: the proposer's (seat 0) has made its
/// commitments, the other's waits for its acceptance.
fn opened(n: u64, seat: u8) -> Box<dyn Table> {
    let (terms, mut entropy) = duel_terms(n);
    entropy[31] = seat + 1;
    table::open(terms, seat_key(seat), "", entropy, 1).expect("a table")
}

/// Both seats' tables of Duel `n`, accepted and exchanged until nothing moves
/// (commitments, coins and the opening deals, as a node's idle game), no act made.
fn settled(n: u64) -> [Box<dyn Table>; 2] {
    let mut t = [opened(n, 0), opened(n, 1)];
    t[1].session_mut()
        .handle_command(Command::Accept, 1)
        .expect("accepted");
    let mut moved = true;
    while moved {
        moved = false;
        for i in 0..2 {
            let out: Vec<Action> =
                std::iter::from_fn(|| t[i].session_mut().poll_action()).collect();
            for a in out {
                if let Action::Send { env, .. } = a {
                    let _ =
                        sealed_protocol::session::take_bytes(t[1 - i].session_mut(), &env.bytes, 1);
                    moved = true;
                }
            }
        }
    }
    assert!(
        t[0].turn().my_turn || t[1].turn().my_turn,
        "duel {n} did not settle"
    );
    t
}

/// Makes `2k` things into `kept` (kept to the end, so that nothing later reuses what
/// they freed) and returns the growth over the second `k` of them, per thing, in KiB:
/// (VmRSS, live heap).
fn grown<T>(k: u64, make: impl Fn(u64) -> T, kept: &mut Vec<T>) -> (f64, f64) {
    kept.extend((0..k).map(&make));
    let before = Mem::now();
    kept.extend((k..2 * k).map(&make));
    Mem::now().per(before, k as f64)
}

fn main() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SEALED_LOG")
                .unwrap_or_else(|_| "off".into()),
        )
        .try_init();
    // `cargo test --benches` runs this without `--bench`: nothing to check then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let n: usize = std::env::var("SEALED_BENCH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_GAMES);
    // Two workers, as on the 2-core machines this is sized for.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Exit 1 only once `run` has returned and removed the homes.
    if !rt.block_on(run(n)) {
        std::process::exit(1);
    }
}

/// Whether every game ended with every envelope on both sides.
async fn run(n: usize) -> bool {
    // 0. The tables alone, no node, measured as the nodes are below: what of an idle
    //    game is its seats' sessions, engines and games, step by step.
    let k = (n as u64 / 20).clamp(50, 500);
    let mut terms = vec![];
    let terms_kib = grown(k, |n| duel_terms(n).0, &mut terms);
    let mut tables = vec![];
    let waiting_kib = grown(k, |n| opened(n, 1), &mut tables);
    let committed_kib = grown(k, |n| opened(n, 0), &mut tables);
    let mut pairs = vec![];
    let (table_rss, table_heap) = grown(k, settled, &mut pairs);
    let table_kib = (table_rss / 2.0, table_heap / 2.0);
    let seats = pairs.iter().flatten();
    let envelopes: Vec<Vec<u8>> = seats.flat_map(|t| t.session().envelopes().all()).collect();
    let kib = |(rss, heap): (f64, f64)| format!("{rss:.1} KiB ({heap:.1} KiB of heap)");
    println!(
        "many_games: a Duel's table alone (in memory, no node; growth over the second {k} \
         of {}, RSS and live heap): its terms {}; a table opened, acceptance awaited {}; \
         the proposer's, its commitments made {}; a settled seat's {}, holding {:.1} \
         envelopes of {:.0} bytes in all",
        2 * k,
        kib(terms_kib),
        kib(waiting_kib),
        kib(committed_kib),
        kib(table_kib),
        envelopes.len() as f64 / (2 * pairs.len()) as f64,
        envelopes.iter().map(Vec::len).sum::<usize>() as f64 / (2 * pairs.len()) as f64,
    );

    // Not /tmp, which may be a tmpfs where fsync is free.
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let (da, db) = (
        tempfile::tempdir_in(root).unwrap(),
        tempfile::tempdir_in(root).unwrap(),
    );
    let a = node(da.path(), 1).await;
    let b = node(db.path(), 2).await;
    let b_addr: libp2p::Multiaddr = loop {
        if let Some(x) = b.info().await.unwrap().addrs.first() {
            break x.parse().unwrap();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    // Connected before the baseline, so that the connection is not counted per game.
    a.dial(b_addr.clone()).await.unwrap();
    while b.info().await.unwrap().met.is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mem0 = Mem::now();
    let rss0 = mem0.rss_kib;
    println!("many_games: {n} Duels (9 cards, 3 in hand) between two nodes on 127.0.0.1");

    // 1. Proposed, accepted and settled with bots off, in waves (all at once, the node
    //    would lose envelopes before a move is made: see `WAVE`), in two halves with a
    //    reading of the RSS after each.
    let t = Instant::now();
    let mut ids: Vec<String> = vec![];
    let mut spent = SetUp::default();
    let half = n / 2;
    set_up(&a, &b, &b_addr, half, &mut ids, &mut spent).await;
    accept_late(&b, &ids, &mut spent).await;
    let p = until(&a, &b, "settling the first half", |s| {
        ids.iter().all(|id| ready(&s[0][id], s[1].get(id)))
    })
    .await;
    let settling_half = p.last_change - t;
    let slept_half = until_asleep(&a, &b, half).await;
    tokio::time::sleep(QUIET).await;
    let mem_half = Mem::now();
    let rss_half = mem_half.rss_kib;
    let t2 = Instant::now();
    set_up(&a, &b, &b_addr, n - half, &mut ids, &mut spent).await;
    accept_late(&b, &ids, &mut spent).await;
    let p = until(&a, &b, "settling", |s| {
        ids.iter().all(|id| ready(&s[0][id], s[1].get(id)))
    })
    .await;
    let lost_setting_up = stuck("settling", &ids, &p.s, ready);
    // Until the first poll that saw everything settled, the quiet wait left out.
    let settled = settling_half + (p.last_change - t2);
    let slept = until_asleep(&a, &b, n).await;
    println!(
        "many_games: every idle game asleep on both nodes {:.1} s after the first half \
         settled, {:.1} s after the second (sleep after {} s idle; a tick every 5 s)",
        slept_half.as_secs_f64(),
        slept.as_secs_f64(),
        SLEEP.as_secs()
    );
    tokio::time::sleep(QUIET).await;
    let mem1 = Mem::now();
    let rss1 = mem1.rss_kib;
    let held_idle = progress(&p.s);
    println!(
        "many_games: set-up: {n} games proposed, accepted and settled in {:.1} s: \
         {:.1} games/s set up (in waves of {WAVE}); A's proposals {:.1} games/s \
         ({:.1} s in `propose`), B's acceptances {:.1} games/s ({:.1} s in `accept`)",
        settled.as_secs_f64(),
        n as f64 / settled.as_secs_f64(),
        n as f64 / spent.proposing.as_secs_f64(),
        spent.proposing.as_secs_f64(),
        n as f64 / spent.accepting.as_secs_f64(),
        spent.accepting.as_secs_f64(),
    );
    let second = (n - half).max(1) as f64;
    let (per_game, heap_per_game) = mem1.per(mem_half, second);
    let (per_seat, heap_per_seat) = (per_game / 2.0, heap_per_game / 2.0);
    println!(
        "many_games: RSS {:.1} MiB before, {:.1} MiB with {half} idle games, {:.1} MiB with \
         {n}, holding {} + {} envelopes; live heap {:.1} MiB, {:.1} MiB, {:.1} MiB",
        rss0 as f64 / 1024.0,
        rss_half as f64 / 1024.0,
        rss1 as f64 / 1024.0,
        held_idle[0],
        held_idle[1],
        mem0.heap as f64 / 1048576.0,
        mem_half.heap as f64 / 1048576.0,
        mem1.heap as f64 / 1048576.0,
    );
    println!(
        "many_games: RSS per idle game (growth over the second {} games): {per_game:.1} KiB, \
         both seats; {per_seat:.1} KiB per seat, goal ≤ {GOAL_KIB_PER_SEAT} KiB: {} \
         (from the start, first games' warm-up included: {:.1} KiB per seat); live heap \
         {heap_per_seat:.1} KiB per seat",
        n - half,
        if per_seat <= GOAL_KIB_PER_SEAT {
            "met"
        } else {
            "NOT met"
        },
        rss1.saturating_sub(rss0) as f64 / n as f64 / 2.0,
    );

    println!(
        "many_games: asleep, a seat holds no table (a settled one alone is {:.1} KiB, \
         above): what stays is the node's (the game's slot and its line for `games`, the \
         heads and readers it answers from, delivery, the shell, redb's cache); the stores \
         on disk {:.1} KiB per game and seat",
        table_kib.0,
        (du(da.path()) + du(db.path())) as f64 / 1024.0 / n as f64 / 2.0,
    );

    // 2. Bots on, every game played out.
    let t = Instant::now();
    let (x, y) = tokio::join!(a.bot(None, true), b.bot(None, true));
    x.unwrap();
    y.unwrap();
    let finished = |x: &GameSummary, y: Option<&GameSummary>| {
        x.status == sealed_node::core::GameState::Finished
            && y.is_some_and(|y| y.status == sealed_node::core::GameState::Finished)
    };
    let p = until(&a, &b, "playing", |s| {
        ids.iter().all(|id| finished(&s[0][id], s[1].get(id)))
    })
    .await;
    let stuck_playing = if p.done {
        0
    } else {
        stuck("playing", &ids, &p.s, finished)
    };
    // Until the first poll that saw the final counts: the polls after it only confirm
    // that nothing moves.
    let played = p.last_change - t;
    let s = p.s;
    let done = ids
        .iter()
        .filter(|id| finished(&s[0][*id], s[1].get(*id)))
        .count();
    let now = progress(&s);
    let plies = now[2] - held_idle[2];
    let envelopes = (now[0] - held_idle[0]) + (now[1] - held_idle[1]);
    let secs = played.as_secs_f64();
    println!(
        "many_games: played {done} of {n} games to the end in {secs:.1} s: {plies} plies, \
         {:.0} plies/s; {envelopes} envelopes newly held (both sides), {:.0} envelopes/s",
        plies as f64 / secs,
        envelopes as f64 / secs
    );
    let (mut differ, mut off, mut lost) = (0, 0, 0);
    for id in &ids {
        let (x, y) = (&s[0][id], s[1].get(id));
        let (yh, yp) = y.map_or((0, 0), |y| (y.held, y.ply));
        if x.held != yh || x.ply != yp {
            differ += 1;
        }
        if x.held != DUEL_ENVELOPES || yh != DUEL_ENVELOPES {
            off += 1;
        }
        if x.held != DUEL_ENVELOPES || yh != DUEL_ENVELOPES || !finished(x, y) {
            lost += 1;
        }
    }
    println!(
        "many_games: envelopes held A {} B {}, expected {} each ({n} × {DUEL_ENVELOPES}); \
         games whose sides hold different counts: {differ}; games not holding \
         {DUEL_ENVELOPES} on both sides: {off}; stuck: {stuck_playing} ({lost_setting_up} of \
         them already after the set-up)",
        now[0],
        now[1],
        n * DUEL_ENVELOPES
    );
    println!(
        "many_games: games lost (not finished on both sides with all {DUEL_ENVELOPES} \
         envelopes on each): {lost} of {n}"
    );
    // What a face pays to read the games, every game finished and its table still in
    // memory (a finished game leaves memory after five idle minutes): the list of every
    // game, and the cheapest command naming one game by a prefix of its id.
    // Apart, so that neither is timed while the node still frees what the other left.
    let mut list = vec![];
    for _ in 0..21 {
        let t = Instant::now();
        std::hint::black_box(a.games().await.unwrap());
        list.push(t.elapsed());
    }
    let mut named = vec![];
    for id in ids.iter().cycle().step_by(7).take(201) {
        let t = Instant::now();
        // Refused after the game is found: the empty text is no action.
        assert!(a.act(&id[..12], "", None).await.is_err());
        named.push(t.elapsed());
    }
    list.sort();
    named.sort();
    println!(
        "many_games: with {n} finished games in memory: the games' list {:.2} ms \
         ({:.1} us a game), a command naming one game {:.1} us (medians of 21 and 201)",
        list[10].as_secs_f64() * 1e3,
        list[10].as_secs_f64() * 1e6 / n as f64,
        named[100].as_secs_f64() * 1e6,
    );
    // Up to a hundred finished transcripts, spread over the run, checked offline as
    // `sealed verify` would.
    let sample: Vec<&String> = ids
        .iter()
        .step_by((n / 100).max(1))
        .filter(|id| finished(&s[0][*id], s[1].get(*id)))
        .collect();
    let mut ok = 0;
    for id in &sample {
        let bytes = a.transcript(id).await.unwrap();
        if sealed_games::variant::check_transcript(&bytes).is_ok_and(|c| c.exit_code() == 0) {
            ok += 1;
        }
    }
    println!(
        "many_games: {ok} of {} sampled finished transcripts verify (exit 0)",
        sample.len()
    );
    let _ = tokio::join!(a.shutdown(), b.shutdown());
    drop((terms, tables, pairs));
    // Figures printed, the run still fails: a game that cannot finish is a bug.
    lost == 0 && ok == sample.len()
}
