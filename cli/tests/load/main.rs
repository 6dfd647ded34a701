//! A public node under honest load (issue 57): one `sealed node --mailbox --witness`
//! process, and many players beside it in this process, each its own key and its own
//! connection from its own address (`player.rs`), two by two in Duel games that name the
//! node as mailbox and witness. Each player moves once every `SEALED_LOAD_EVERY_MS` in
//! one of its games, round robin, pushes the move to the node, and asks the witness
//! for its ledgers after it, and sends the node its heads every repair round as a
//! seat's node does; the node relays each move to the other seat and dates it.
//!
//! Printed each second: envelopes pushed and relayed, ledgers signed, the relay's
//! latency (from one seat's push to the other seat's arrival: p50, p99, max), the
//! node's resident memory and store size, its CPU in that second and per envelope
//! relayed, and refusals. Then a summary over the steady part (after the games are
//! set up), and the node's CPU per envelope beside the floor measured in this same run:
//! one Ed25519 signature check and one ledger signature, each timed here on this
//! machine (`floor`); and beside it the transport's own floor, three round trips of a
//! bare libp2p stream timed before the node starts (`transport.rs`), which no work of
//! the node's can remove while each message is a frame of its own.
//!
//! Players come from 127.20.0.0/16, [`PER_NETWORK`] to an address block of 256 (a /24
//! is a network to the node's budgets, `core/src/origin.rs`), so that the load is many
//! players of many networks, as a public node's is, not one network: the door shares its
//! handshakes under way between networks, and 200 players of one /24 connecting in the
//! same second are, to it, one network's flood. The node is the test's own build unless `SEALED_BIN`
//! names another (a release build for figures: a debug node's costs are not a release
//! node's).
//!
//! The players speak the sync protocol on long-lived streams, as real nodes do
//! (`player.rs`); `SEALED_LOAD_TRANSPORT=rr` makes them speak request-response, a
//! substream per request, to compare.
//!
//! `cargo test -p sealed-cli --test load -- --nocapture` runs a short load (20 players,
//! 4 games each, 10 s) and asserts only counts: every move relayed, ledgers signed,
//! nothing refused for good (a push refused for a moment, the node busy, is sent again
//! as a seat's node would, and counted), the node alive. The figures come from a long run:
//! `SEALED_BIN=target/release/sealed SEALED_LOAD_PLAYERS=1000 SEALED_LOAD_GAMES=20
//! SEALED_LOAD_EVERY_MS=1000 SEALED_LOAD_SECONDS=60 SEALED_LOAD_WARM_S=45 cargo test --release -p sealed-cli
//! --test load -- --nocapture` (docs/PERFORMANCE.md, *A public node under honest load*).

#[path = "../hostile_kit/mod.rs"]
mod hostile_kit;
mod player;
mod transport;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hostile_kit::client::stranger;
use hostile_kit::flood::terms;
use hostile_kit::{Dir, cpu_seconds, init, seed, start, status_kib};
use player::{Load, Seated, Tally, Transport};
use sealed_protocol::keys::SecretKey;

/// Players of one /24 network.
const PER_NETWORK: usize = 8;

/// Round trips timed for the transport's floor (`transport.rs`): fewer in a debug
/// build, where the short run only checks that it is measured.
const TRANSPORT_TRIPS: u32 = if cfg!(debug_assertions) {
    2_000
} else {
    20_000
};

/// A frame's size for the transport's floor: about a Duel move's push.
const ENVELOPE_BYTES: usize = 400;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One second's line, and what the summary adds up.
#[derive(Default, Clone, Copy)]
struct Second {
    pushed: u64,
    relayed: u64,
    ledgers: u64,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    rss_mib: f64,
    store_mib: f64,
    cpu: f64,
}

fn percentile(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// The floor of a relayed, dated envelope's CPU on this machine: one Ed25519
/// signature checked and one signed, timed over many (a node checks each envelope's
/// signature once and signs ledgers that date many at once, so one of each is above
/// the floor's true value).
fn floor() -> Duration {
    let key = SecretKey::from_seed(&[7; 32]);
    let msg = [0x5a; 200];
    let sig = key.sign(&msg);
    let n = 2_000;
    let start = Instant::now();
    for _ in 0..n {
        assert!(key.public().verify(&msg, &sig));
        std::hint::black_box(key.sign(&msg));
    }
    start.elapsed() / n
}

#[test]
fn a_public_node_carries_players_moves() {
    let players = env("SEALED_LOAD_PLAYERS", 20).max(2) as usize & !1;
    let games = env("SEALED_LOAD_GAMES", 4).clamp(1, 32) as usize;
    let every = Duration::from_millis(env("SEALED_LOAD_EVERY_MS", 500).max(10));
    let seconds = env("SEALED_LOAD_SECONDS", 10);
    // A seat's node sends its heads every repair round (5 s by default): 0 for never.
    let repair =
        Some(Duration::from_millis(env("SEALED_LOAD_REPAIR_MS", 5_000))).filter(|d| !d.is_zero());
    // Measured before the node starts, so that nothing else runs beside it.
    let carried = transport::floor(TRANSPORT_TRIPS, ENVELOPE_BYTES);
    let dir = Dir::new("load");
    let home = dir.home("public");
    let node_key = init(&home, "public");
    let open = (players * games).to_string();
    let mut node = start(
        &home,
        "node",
        "/ip4/127.0.0.1/tcp/0",
        &["--mailbox", "--witness", "--open-total", &open],
    );
    let addr = node.addr.clone();
    let pid = node.pid().to_string();
    let public = node_key.public().to_bytes();

    // Each pair's games: half proposed by each, so that a player proposes at most
    // `games / 2` (the node holds 16 open games a proposer).
    let keys: Vec<SecretKey> = (0..players)
        .map(|i| SecretKey::from_seed(&seed(0x4c, i as u64)))
        .collect();
    let mut seated: Vec<Vec<Seated>> = (0..players).map(|_| vec![]).collect();
    for pair in 0..players / 2 {
        let (a, b) = (2 * pair, 2 * pair + 1);
        for g in 0..games {
            let (p, q) = if g % 2 == 0 { (a, b) } else { (b, a) };
            let t = terms(
                "duel",
                &keys[p],
                keys[q].public().to_bytes(),
                None,
                Some((public, &addr)),
                true,
            );
            seated[q].push(Seated {
                terms: t.clone(),
                proposer: false,
            });
            seated[p].push(Seated {
                terms: t,
                proposer: true,
            });
        }
    }

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let tally = Arc::new(Tally::default());
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    // Every proposal is taken before any invitee pushes its acceptance: an invitee
    // learns of a game from the mailbox, after its proposal, and the node refuses
    // envelopes of a game it does not hold.
    let proposed = Arc::new(tokio::sync::Barrier::new(players));
    let transport = match std::env::var("SEALED_LOAD_TRANSPORT").as_deref() {
        Ok("rr") => Transport::RequestResponse,
        _ => Transport::Stream,
    };
    let load = Load {
        node: addr.clone(),
        transport,
        every,
        repair,
        proposed,
        tally: tally.clone(),
        stop: stop.clone(),
    };
    let tasks: Vec<_> = rt.block_on(async {
        seated
            .into_iter()
            .enumerate()
            .map(|(i, mine)| {
                let ip = format!("127.20.{}.{}", i / PER_NETWORK, i % PER_NETWORK + 1);
                let s = stranger(seed(0x4c, i as u64), &ip);
                rt.spawn(player::run(s, seed(0x4c, i as u64), mine, load.clone()))
            })
            .collect()
    });

    // Each second's line, from when every player has connected.
    let mut lines: Vec<Second> = vec![];
    let (mut last_cpu, mut last) = (cpu_seconds(&pid), [0u64; 5]);
    let store0 = node.store_bytes();
    let warm = Duration::from_secs(env("SEALED_LOAD_WARM_S", 5));
    println!(
        "{players} players, {} games, a move every {} ms each, {transport:?}; node {}",
        players / 2 * games,
        every.as_millis(),
        hostile_kit::bin().display()
    );
    println!(
        "   s | pushed/s | relayed/s | ledgers/s | p50 ms | p99 ms | max ms | RSS MiB | store MiB | node CPU % | CPU µs/relayed | sent again/s | ended/s"
    );
    let end = started + warm + Duration::from_secs(seconds);
    let mut tick = Instant::now();
    while Instant::now() < end {
        tick += Duration::from_secs(1);
        std::thread::sleep(tick.saturating_duration_since(Instant::now()));
        let now = [
            tally.pushed.load(Ordering::Relaxed),
            tally.relayed.load(Ordering::Relaxed),
            tally.ledgers.load(Ordering::Relaxed),
            tally.retried.lock().expect("not poisoned").values().sum(),
            tally.ended.lock().expect("not poisoned").values().sum(),
        ];
        let mut lat = std::mem::take(&mut *tally.latencies.lock().expect("not poisoned"));
        lat.sort_unstable();
        let cpu = cpu_seconds(&pid);
        let s = Second {
            pushed: now[0] - last[0],
            relayed: now[1] - last[1],
            ledgers: now[2] - last[2],
            p50_ms: percentile(&lat, 0.5),
            p99_ms: percentile(&lat, 0.99),
            max_ms: lat.last().map_or(0.0, |v| *v as f64 / 1000.0),
            rss_mib: status_kib(node.pid(), "VmRSS") as f64 / 1024.0,
            store_mib: node.store_bytes().saturating_sub(store0) as f64 / (1 << 20) as f64,
            cpu: cpu - last_cpu,
        };
        let (again, ended) = (now[3] - last[3], now[4] - last[4]);
        (last, last_cpu) = (now, cpu);
        println!(
            "{:4} | {:8} | {:9} | {:9} | {:6.1} | {:6.1} | {:6.1} | {:7.1} | {:9.1} | {:10.0} | {:14.0} | {:12} | {:7}",
            started.elapsed().as_secs(),
            s.pushed,
            s.relayed,
            s.ledgers,
            s.p50_ms,
            s.p99_ms,
            s.max_ms,
            s.rss_mib,
            s.store_mib,
            s.cpu * 100.0,
            if s.relayed > 0 {
                s.cpu * 1e6 / s.relayed as f64
            } else {
                0.0
            },
            again,
            ended,
        );
        if started.elapsed() >= warm {
            lines.push(s);
        }
    }
    stop.store(true, Ordering::Relaxed);
    rt.block_on(async {
        for t in tasks {
            let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
        }
    });
    rt.shutdown_timeout(Duration::from_secs(2));

    let n = lines.len().max(1) as f64;
    let relayed: u64 = lines.iter().map(|s| s.relayed).sum();
    let pushed: u64 = lines.iter().map(|s| s.pushed).sum();
    let ledgers: u64 = lines.iter().map(|s| s.ledgers).sum();
    let cpu: f64 = lines.iter().map(|s| s.cpu).sum();
    let worst_p99 = lines.iter().map(|s| s.p99_ms).fold(0.0, f64::max);
    let mut p99s: Vec<f64> = lines.iter().map(|s| s.p99_ms).collect();
    p99s.sort_by(f64::total_cmp);
    let median_p99 = p99s.get(p99s.len() / 2).copied().unwrap_or(0.0);
    let max = lines.iter().map(|s| s.max_ms).fold(0.0, f64::max);
    let rss = lines.iter().map(|s| s.rss_mib).fold(0.0, f64::max);
    let floor = floor();
    let per = if relayed > 0 {
        cpu / relayed as f64
    } else {
        0.0
    };
    let refused = tally.refused.lock().expect("not poisoned").clone();
    println!(
        "steady {n:.0} s: {:.0} pushed/s, {:.0} relayed/s, {:.0} ledgers/s; p99 {median_p99:.1} ms in the median second, {worst_p99:.1} ms in the worst, max {max:.1} ms; peak RSS {rss:.1} MiB; store +{:.1} MiB; node CPU {:.0} µs per relayed envelope, floor {:.0} µs (one signature checked and one made), {:.1}x; the transport's floor {:.0} µs (three frames in and three out, {:.0} µs a round trip at one end), with the signatures' {:.0} µs, {:.1}x; heads sent by the players {}; games over {}; failed {}; pushes sent again {:?}; ended during the run {:?}; refused {refused:?}",
        pushed as f64 / n,
        relayed as f64 / n,
        ledgers as f64 / n,
        lines.last().map_or(0.0, |s| s.store_mib),
        per * 1e6,
        floor.as_secs_f64() * 1e6,
        per / floor.as_secs_f64().max(1e-9),
        3.0 * carried.as_secs_f64() * 1e6,
        carried.as_secs_f64() * 1e6,
        (floor + 3 * carried).as_secs_f64() * 1e6,
        per / (floor + 3 * carried).as_secs_f64().max(1e-9),
        tally.heads.load(Ordering::Relaxed),
        tally.over.load(Ordering::Relaxed),
        tally.failed.load(Ordering::Relaxed),
        tally.retried.lock().expect("not poisoned"),
        tally.ended.lock().expect("not poisoned"),
    );

    assert!(node.alive(), "the public node lives");
    assert!(
        carried > Duration::ZERO,
        "the transport's floor was measured"
    );
    assert_eq!(
        tally.connected.load(Ordering::Relaxed) as usize,
        players,
        "every player connected"
    );
    assert!(
        relayed > 0 && ledgers > 0,
        "moves relayed ({relayed}) and ledgers signed ({ledgers})"
    );
    assert!(
        refused.is_empty(),
        "an honest load is refused nothing: {refused:?}"
    );
    drop(node);
}
