//! The hostile swarm (issue 52): strangers from many origins — addresses across
//! 127.0.0.0/8, many fresh keys — against real `sealed` processes, each attack one test
//! so that it can be run alone, each printing what the victim spent and how an honest
//! newcomer fared. The attacks are those that beat the budgets of the harness before it
//! (`hostile.rs`): a budget kept per key where keys are free, a total that never comes
//! back, a slot with no lifetime. Asserted: that the node lives, restarts and serves an
//! honest newcomer; counts and bounds, never times.
//!
//! `SEALED_BIN` runs them against another build (a release one, or main's).

mod hostile_kit;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hostile_kit::client::stranger;
use hostile_kit::{Dir, Peaks, Report, Spent, init, proposal, seed, start};
use sealed_node::sync::{Request, Response};
use sealed_protocol::keys::SecretKey;
use tokio::io::AsyncReadExt as _;

/// A runtime for the strangers' swarms.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn ok(r: &Result<Response, String>) -> bool {
    matches!(r, Ok(Response::Ok { .. }))
}

/// Attack 1: a referee takes every game that seats it, and reaches out to both players
/// of each. 1,280 Secret Stallmate games from 80 fresh keys, whose players are nowhere
/// to be found, made the node fail every dial at once — and each failure, handed to the
/// core from inside the dial, queued the next dial one stack level deeper, until the
/// stack overflowed; the same chain ran again at every start. Now the shell queues what
/// arises while it carries out an output (`shell/mod.rs` `drain`).
#[test]
fn unreachable_players_neither_crash_a_referee_nor_stop_its_restart() {
    const KEYS: u64 = 80;
    const PER_KEY: u64 = 16;
    let dir = Dir::new("swarm-referee");
    let home = dir.home("referee");
    let referee = init(&home, "referee").public().to_bytes();
    let mut r = start(&home, "referee", "/ip4/127.0.0.1/tcp/0", &[]);
    let rt = runtime();
    let _entered = rt.enter();
    let mut s = stranger(seed(52, 1), "127.0.0.2");
    let rp = rt.block_on(s.connect(&r.addr)).expect("connects");
    let spent = Spent::now(&r);
    let mut taken = 0;
    for k in 0..KEYS {
        let me = SecretKey::from_seed(&seed(53, k));
        // A player of its own in every game: 1,360 players the referee cannot reach.
        let reqs = (0..PER_KEY)
            .map(|i| {
                let other = SecretKey::from_seed(&seed(54, k * 100 + i))
                    .public()
                    .to_bytes();
                Request::Propose {
                    proposal: proposal("stallmate", &me, other, Some(referee), vec![], k * 100 + i)
                        .bytes()
                        .to_vec(),
                }
            })
            .collect();
        taken += rt
            .block_on(s.ask_all(rp, reqs))
            .iter()
            .filter(|a| ok(a))
            .count();
        if !r.alive() {
            break;
        }
    }
    // The referee reaches out to the players it cannot find on its next polls.
    rt.block_on(s.idle(Duration::from_secs(12)));
    let mut report = Report::default();
    let lived = r.alive();
    report.row(
        "1 Secret Stallmate games seating a referee, players unreachable",
        format!(
            "{taken} of {} taken; the referee runs: {lived}; {}",
            KEYS * PER_KEY,
            spent.since(&r)
        ),
        lived,
    );
    assert!(
        lived,
        "the referee crashed under the games it was seated in"
    );
    // And it starts again on the same home, games and all, and answers.
    let mut peaks = Peaks::default();
    let mut r = r.restart(&mut peaks);
    rt.block_on(s.idle(Duration::from_secs(8)));
    let games = r.games().len();
    let lived = r.alive();
    report.row(
        "1 … restarted on the same home",
        format!("runs: {lived}; lists {games} games"),
        lived && games >= taken,
    );
    report.print();
    assert!(report.failed().is_empty(), "{:?}", report.failed());
}

/// The TCP port of a printed address.
fn tcp_port(addr: &str) -> u16 {
    addr.split("/tcp/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .expect("a TCP port")
}

/// One silent connection after another from `from` to `to`: opened, never a byte sent,
/// held until the node closes it, then opened again, until `stop`.
async fn silent(from: Ipv4Addr, to: SocketAddr, stop: Arc<AtomicBool>, opened: Arc<AtomicUsize>) {
    while !stop.load(Ordering::Relaxed) {
        let Ok(sock) = tokio::net::TcpSocket::new_v4() else {
            return;
        };
        let connected = match sock.bind(SocketAddr::from((from, 0))) {
            Ok(()) => tokio::time::timeout(Duration::from_secs(2), sock.connect(to)).await,
            Err(_) => return,
        };
        let Ok(Ok(mut stream)) = connected else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        opened.fetch_add(1, Ordering::Relaxed);
        let mut buf = [0u8; 256];
        loop {
            match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buf)).await {
                Ok(Ok(0) | Err(_)) => break,
                Ok(Ok(_)) => {}
                Err(_) if stop.load(Ordering::Relaxed) => return,
                Err(_) => {}
            }
        }
    }
}

/// Attack 2: 16 connections from each of 8 networks (127.1.0.2 … 127.8.0.2, eight /24s)
/// that never send a byte, reopened as the node closes them, took every one of the 128
/// places for handshakes under way: no honest handshake got through. Now the door
/// (`node/src/door.rs`) gives a newcomer from a network holding fewer places the place
/// of the crowd's oldest.
#[test]
fn silent_connections_from_a_few_networks_do_not_shut_the_door() {
    const NETWORKS: u8 = 8;
    const PER_NETWORK: usize = 16;
    const NEWCOMERS: u64 = 10;
    let dir = Dir::new("swarm-door");
    let home = dir.home("mailbox");
    init(&home, "mailbox");
    let m = start(&home, "node", "/ip4/127.0.0.1/tcp/0", &["--mailbox"]);
    let to = SocketAddr::from((Ipv4Addr::LOCALHOST, tcp_port(&m.addr)));
    let rt = runtime();
    let _entered = rt.enter();
    let spent = Spent::now(&m);
    let stop = Arc::new(AtomicBool::new(false));
    let opened = Arc::new(AtomicUsize::new(0));
    let attack: Vec<_> = (1..=NETWORKS)
        .flat_map(|n| (0..PER_NETWORK).map(move |_| Ipv4Addr::new(127, n, 0, 2)))
        .map(|from| rt.spawn(silent(from, to, stop.clone(), opened.clone())))
        .collect();
    // Every place taken before the newcomers come.
    let filled = Instant::now();
    while opened.load(Ordering::Relaxed) < usize::from(NETWORKS) * PER_NETWORK
        && filled.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = opened.load(Ordering::Relaxed);
    // Honest newcomers from a network of their own: a real Noise and yamux handshake.
    let mut through = 0;
    let mut why = vec![];
    let started = Instant::now();
    for n in 0..NEWCOMERS {
        let mut s = stranger(seed(55, n), "127.9.0.2");
        match rt.block_on(s.connect(&m.addr)) {
            Ok(_) => through += 1,
            Err(e) => why.push(e),
        }
    }
    let took = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    for a in attack {
        let _ = rt.block_on(a);
    }
    let mut report = Report::default();
    report.row(
        "2 silent connections, 16 from each of 8 /24s, reopened",
        format!(
            "{before} held before the newcomers, {} opened in all; {through} of {NEWCOMERS} \
             honest handshakes from a ninth /24 got through in {:.1} s{}; {}",
            opened.load(Ordering::Relaxed),
            took.as_secs_f64(),
            why.first()
                .map(|w| format!(" (first failure: {w})"))
                .unwrap_or_default(),
            spent.since(&m)
        ),
        through == NEWCOMERS,
    );
    report.print();
    assert!(report.failed().is_empty(), "{:?}", report.failed());
}
