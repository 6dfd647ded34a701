//! The hostile swarm's table (issue 52): for every request kind a stranger can send,
//! against every public role, one row with what the victim spent per unit the
//! attacker spent, and how an honest newcomer fared during the attack.
//!
//! The victims are real `sealed` processes: a public node (`sealed node --mailbox
//! --witness --relay`: mailbox, witness, relay, lookup point and arbiter at once), a
//! referee (`sealed referee`) and a player (`sealed node --bots`). The attackers are
//! strangers (`hostile_kit::client`) from many origins: each row's from eight /24s of
//! 127.0.0.0/8 of its own, two addresses in each, and fresh keys (a row's /24s are its
//! own so that what one row spent of a network's day is not the next row's). A request
//! about a game is about the attacker's own: he first proposes a game naming the
//! victim (as mailbox and witness, as referee, as opponent), both seats his own keys
//! where the victim does not play, and signs its envelopes, deposits and rulings.
//! Sizes are near the limits: pushes of 128 envelopes of 60 KiB (8 MiB a message),
//! `Heads` of 16,384 entries, 7 MiB deposits.
//!
//! Each row floods for a fixed time (2 s; 20 s in the long run), every stranger keeping
//! a window of requests in flight on its own connection, then waits for the answers
//! still due: 32 strangers (two keys on each of the sixteen addresses), or 16 or 8 for
//! the requests whose answers or work are large (`Kind::shape`); in the short run the
//! large writes are two a stranger (`Kind::cap`). The public node's games are filled
//! first with what the flood reads: 48 envelopes of 60 KiB to pull (and to ask twice in
//! each `Heads`), 4,096 small ones to be witnessed, a 7 MiB deposit to fetch; the
//! referee and the player play theirs, and take no stranger's envelope into them before
//! the flood. Measured over that window: the victim's CPU seconds per CPU second of
//! this process (the attacker: its strangers, building and signing what they send, and
//! the newcomer; not the setup before the window — the games proposed and filled),
//! the victim's peak resident set (VmHWM, reset before each row), what its store grew,
//! and the answers counted. Meanwhile, 40% into the flood, an honest newcomer from a
//! clean /24 of its own shakes hands and asks one useful thing (a game naming the
//! public node as mailbox, a Secret Stallmate game seating the referee, an invitation
//! to the player); a refusal that passes (a budget spent, a queue full) it asks again
//! 100 ms later, as a node does, within its goal of 5 s, and the flood lasts until it
//! is done.
//!
//! Asserted in every run (counts, no time): every victim lives after every row, and
//! restarts on its home and lists its games (every newcomer's among them). Printed in
//! every run and asserted in the long run only, as issue 52's goals: each victim's peak
//! resident set within 256 MiB; each newcomer shaken hands and answered within 5 s; each
//! row's victim CPU per attacker CPU at most 10. Every row runs before anything is
//! asserted, and the table says which goal each row missed.
//!
//! `cargo test --workspace --test swarm_table -- --nocapture` runs it (about three
//! minutes in a debug build on two cores); the long run is
//! `SEALED_SWARM=long cargo test --workspace --test swarm_table -- --nocapture`, and
//! `SEALED_BIN=target/release/sealed` runs either against a release build (the ratios
//! of a debug build of `sealed` against this test's optimised dependencies are not a
//! release node's); `SEALED_SWARM_ONLY=Propose` runs only the rows of the request kinds
//! whose names contain the word.

#[path = "../hostile_kit/mod.rs"]
mod hostile_kit;
mod kinds;

use kinds::*;

use std::collections::BTreeSet;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hostile_kit::client::{Stranger, stranger};
use hostile_kit::flood::{
    Newcomer, Next, Tally, envelope, hold_silent, newcomer, nonce, pump, register_again,
    reset_peak, settle, terms,
};
use hostile_kit::{
    Dir, Peaks, Proc, cpu_seconds, init, proposal, random_peer_id, seed, start, status_kib,
};
use libp2p::PeerId;
use sealed_node::sync::{Request, Response};
use sealed_protocol::ids::GameId;
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;

/// The bar for the bytes a victim holds, in byte-seconds per byte the attacker
/// sent: a request's timeout (`NetConfig::request_timeout`, 30 s).
const HELD_BAR: f64 = 30.0;

/// The bar for a node's peak resident set under attack.
const RSS_BAR_KIB: u64 = 256 * 1024;
/// The bar for the victim's CPU seconds per attacker CPU second.
const CPU_BAR: f64 = 10.0;
/// The newcomer's goal: shaken hands and answered within it.
const GOAL: Duration = Duration::from_secs(5);
/// An envelope near its cap (64 KiB, in acts of at most 16 KiB).
const BIG: usize = 60 * 1024;
/// Envelopes of a large push: 128 of [`BIG`], under a message's 8 MiB.
const BIG_PUSH: u64 = 128;
/// A deposit of the largest size a witness takes alone (a computation's message).
const DEPOSIT: usize = 7 << 20;
/// Entries of a large `Heads` (half a message's item cap).
const HEADS: usize = 16_384;
/// Strangers of a row: two keys on each of sixteen addresses.
const UNITS: usize = 32;

/// Runs one row: sets up its strangers, floods, and measures.
#[allow(clippy::too_many_arguments)]
fn run_row(
    rt: &tokio::runtime::Runtime,
    plan: &Plan,
    v: &mut Victims,
    peaks: &mut Peaks,
    role: Role,
    kind: Kind,
    index: usize,
    row: usize,
) -> Row {
    let began = Instant::now();
    let tag = 20 + row as u8;
    let base = 10 + 8 * index as u8;
    let (units, window) = kind.shape();
    let addr = v.get(role).addr.clone();
    let who: Vec<([u8; 32], Ipv4Addr)> = (0..units)
        .map(|u| (seed(tag, u as u64), origin(base, u)))
        .collect();

    // The setup, outside the measured window.
    let mut pairs = match kind {
        Kind::Silent => vec![],
        _ => rt.block_on(connect_all(addr.clone(), who.clone())),
    };
    let mut unit_list: Vec<Unit> = pairs
        .iter()
        .map(|(s, _)| {
            let u = who
                .iter()
                .position(|(sd, _)| *sd == s.seed)
                .expect("one of the row's");
            let me = SecretKey::from_seed(&s.seed);
            let other = SecretKey::from_seed(&seed(tag, 10_000 + u as u64))
                .public()
                .to_bytes();
            let games = (0..kind.games(role))
                .map(|_| game_for(role, kind, v, &me, other))
                .collect();
            Unit {
                u,
                me,
                games,
                seq: 0,
            }
        })
        .collect();
    let (proposed, filled, fill_bytes) =
        rt.block_on(set_up(kind, role, &mut pairs, &mut unit_list));
    let setup = match kind {
        Kind::Silent => "8 silent connections from each of 16 addresses, reopened".to_owned(),
        _ => format!(
            "{} of {units} strangers connected, {proposed} games proposed, {filled} fills taken",
            pairs.len()
        ),
    };
    let nexts: Vec<Next> = unit_list
        .into_iter()
        .map(|unit| {
            let mut next = next_of(kind, role, v, tag, unit);
            match kind.cap(plan.long) {
                Some(cap) => Box::new(move |n| if n < cap { next(n) } else { None }) as Next,
                None => next,
            }
        })
        .collect();

    // The newcomer's request, ready before the window.
    let nc_seed = seed(7, row as u64);
    let nc_key = SecretKey::from_seed(&nc_seed);
    let nc_terms = newcomer_game(role, v, &nc_key);
    let nc_req = Request::Propose {
        proposal: nc_terms.bytes().to_vec(),
    };
    let nc_ip = Ipv4Addr::new(127, 200 + row as u8, 0, 2).to_string();

    // The window.
    let set = began.elapsed();
    let victim = v.get(role);
    let pid = victim.pid();
    peaks.note(victim);
    reset_peak(pid);
    let (v0, a0, s0) = (
        cpu_seconds(&pid.to_string()),
        cpu_seconds("self"),
        victim.store_bytes(),
    );
    let to = SocketAddr::from((Ipv4Addr::LOCALHOST, tcp_port(&addr)));
    let (tally, nc, held_kib_s) = rt.block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        // The victim's memory over the window, above where it began.
        let sampler = {
            let stop = stop.clone();
            let base = status_kib(pid, "VmRSS");
            tokio::spawn(async move {
                let mut kib_s = 0.0;
                while !stop.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    kib_s += status_kib(pid, "VmRSS").saturating_sub(base) as f64 * 0.1;
                }
                kib_s
            })
        };
        let opened = Arc::new(AtomicU64::new(0));
        let mut handles: Vec<tokio::task::JoinHandle<Tally>> = vec![];
        match kind {
            Kind::Silent => {
                // Eight from each of the sixteen addresses: the 128 places for
                // handshakes under way.
                for u in 0..16 {
                    for _ in 0..8 {
                        let (stop, opened) = (stop.clone(), opened.clone());
                        handles.push(tokio::spawn(async move {
                            hold_silent(origin(base, u), to, stop, opened).await;
                            Tally::default()
                        }));
                    }
                }
            }
            Kind::Lookup => {
                for (s, p) in pairs {
                    handles.push(tokio::spawn(register_again(s, p, stop.clone())));
                }
            }
            _ => {
                for ((s, p), next) in pairs.into_iter().zip(nexts) {
                    handles.push(tokio::spawn(pump(
                        s,
                        p,
                        window,
                        next,
                        stop.clone(),
                        plan.drain,
                    )));
                }
            }
        }
        let flood = plan.flood;
        let nc = tokio::spawn(async move {
            tokio::time::sleep(flood * 2 / 5).await;
            newcomer(nc_seed, nc_ip, addr, nc_req, good, GOAL).await
        });
        tokio::time::sleep(flood).await;
        let nc = nc.await.expect("the newcomer's task");
        stop.store(true, Ordering::Relaxed);
        let mut tally = Tally::default();
        for h in handles {
            tally.add(&h.await.expect("a stranger's task"));
        }
        tally.sent += opened.load(Ordering::Relaxed);
        let held = sampler.await.expect("the sampler's task");
        (tally, nc, held)
    });
    // The strangers' requests, and what they stored in the setup (the fills a `Pull`
    // or a `Deposits` answer reads back were sent then).
    let sent_bytes = tally.bytes + fill_bytes;
    let victim = v.get(role);
    let victim_cpu = cpu_seconds(&pid.to_string()) - v0;
    let attacker_cpu = cpu_seconds("self") - a0;
    let store_kib = (victim.store_bytes() as i64 - s0 as i64) / 1024;
    let peak_kib = victim.peak_kib();
    let rss_kib = victim.rss_kib();
    peaks.note(victim);
    let dead = v.dead();
    Row {
        role,
        kind,
        tally,
        victim_cpu,
        attacker_cpu,
        peak_kib,
        rss_kib,
        store_kib,
        held_kib_s,
        sent_bytes,
        newcomer: nc,
        newcomer_game: hex::encode(nc_terms.game()),
        took: (set, began.elapsed() - set),
        dead,
        setup,
    }
}

/// The TCP port of a printed address.
fn tcp_port(addr: &str) -> u16 {
    addr.split("/tcp/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .expect("a TCP port")
}

fn print_row(r: &Row) {
    let t = &r.tally;
    eprintln!(
        "{:<11} | {:<19} | {:>6} | {:>17} | {:>14} | {:>6.2} | {:>13} | {:>9} | {:>10} | {}",
        r.role.name(),
        r.kind.name(),
        t.sent,
        format!("{}/{}/{}", t.answered, t.refused, t.failed),
        format!("{:.2}/{:.2}", r.victim_cpu, r.attacker_cpu),
        r.ratio(),
        format!(
            "{:.1}/{:.1}",
            r.peak_kib as f64 / 1024.0,
            r.rss_kib as f64 / 1024.0
        ),
        r.store_kib,
        r.held_per_byte()
            .map_or("—".to_owned(), |h| format!("{h:.3}")),
        r.newcomer.text(),
    );
}

fn print_header() {
    eprintln!(
        "{:<11} | {:<19} | {:>6} | {:>17} | {:>14} | {:>6} | {:>13} | {:>9} | {:>10} | newcomer (dial to answer)",
        "role",
        "request kind",
        "sent",
        "ok/refused/failed",
        "CPU vict/att s",
        "ratio",
        "peak/end MiB",
        "store +KiB",
        "held B·s/B",
    );
    eprintln!("{}", "-".repeat(162));
}

/// A share of a bound, in words (a newcomer never answered: past it).
fn share_text(share: f64) -> String {
    if share.is_finite() {
        format!("{:.0}% of its bound", share * 100.0)
    } else {
        "past its bound (never answered)".into()
    }
}

#[test]
fn the_hostile_swarms_table() {
    let plan = Plan::from_env();
    let dir = Dir::new("swarm-table");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let _entered = rt.enter();
    let mut peaks = Peaks::default();

    let listen = "/ip4/127.0.0.1/tcp/0";
    let (ph, rh, vh) = (dir.home("public"), dir.home("referee"), dir.home("player"));
    let keys = [
        init(&ph, "public").public().to_bytes(),
        init(&rh, "referee").public().to_bytes(),
        init(&vh, "player").public().to_bytes(),
    ];
    let mut v = Victims {
        procs: [
            Some(start(
                &ph,
                "node",
                listen,
                &["--mailbox", "--witness", "--relay"],
            )),
            Some(start(&rh, "referee", listen, &[])),
            Some(start(&vh, "node", listen, &["--bots"])),
        ],
        keys,
    };
    eprintln!(
        "the swarm's table ({} run): floods of {} s; peaks reset before each row: {}",
        if plan.long { "long" } else { "short" },
        plan.flood.as_secs(),
        reset_peak(v.get(Role::Public).pid()),
    );
    let started = Instant::now();
    let mut rows: Vec<Row> = vec![];
    // What breaks the test in every run: a victim dead, or not starting again with its
    // games. What misses a goal of issue 52 (memory, CPU, the newcomer): printed in every
    // run, asserted in the long run only — those goals are not all met yet
    // (docs/RELIABILITY.md lists the rows that miss them), and a short run on a loaded
    // machine is no measure of them.
    let mut failures: Vec<String> = vec![];
    let mut missed: Vec<String> = vec![];
    let mut newcomer_games = vec![];
    let mut row = 0;
    for role in [Role::Public, Role::Referee, Role::Player] {
        for (index, kind) in Kind::of(role).into_iter().enumerate() {
            if plan
                .only
                .as_ref()
                .is_some_and(|o| !kind.name().contains(o.as_str()))
            {
                continue;
            }
            let r = run_row(&rt, &plan, &mut v, &mut peaks, role, kind, index, row);
            row += 1;
            if rows.is_empty() {
                print_header();
            }
            print_row(&r);
            eprintln!(
                "            setup {:.1} s: {}; flood and drain {:.1} s; {} envelopes new; answers: {}",
                r.took.0.as_secs_f64(),
                r.setup,
                r.took.1.as_secs_f64(),
                r.tally.new,
                r.tally.reasons(3)
            );
            if r.newcomer.ok() {
                newcomer_games.push((role, r.newcomer_game.clone()));
            }
            let what = format!("{} / {}", r.role.name(), r.kind.name());
            if !r.dead.is_empty() {
                failures.push(format!("{what}: dead after it: {:?}", r.dead));
            }
            if r.peak_kib > RSS_BAR_KIB {
                missed.push(format!("{what}: peak RSS {} KiB", r.peak_kib));
            }
            if let Some(held) = r.held_per_byte().filter(|h| *h > HELD_BAR) {
                missed.push(format!("{what}: {held:.1} B·s held per B sent"));
            }
            if !r.newcomer.ok() {
                missed.push(format!("{what}: newcomer {}", r.newcomer.text()));
            }
            if r.ratio() > CPU_BAR {
                missed.push(format!(
                    "{what}: victim CPU per attacker CPU {:.2} ({:.2} s for {:.2} s)",
                    r.ratio(),
                    r.victim_cpu,
                    r.attacker_cpu
                ));
            }
            rows.push(r);
            if !v.dead().is_empty() {
                break;
            }
        }
        // It starts again on the same home, and lists its games: the newcomers' too.
        let Some(p) = v.procs[role as usize].take() else {
            continue;
        };
        let before = p.games().len();
        let rss_before = p.rss_kib();
        let mut p = p.restart(&mut peaks);
        let lived = p.alive();
        let listed: BTreeSet<String> = p
            .games()
            .iter()
            .filter_map(|g| g["game"].as_str().map(str::to_owned))
            .collect();
        let theirs = newcomer_games.iter().filter(|(r, _)| *r == role);
        let missing = theirs.filter(|(_, g)| !listed.contains(g)).count();
        eprintln!(
            "{} restarted: runs {lived}; lists {} games ({before} before the restart); newcomers' games missing: {missing}; resident {:.1} MiB (before the restart {:.1} MiB)",
            role.name(),
            listed.len(),
            p.rss_kib() as f64 / 1024.0,
            rss_before as f64 / 1024.0,
        );
        if !lived || listed.len() < before || missing > 0 {
            failures.push(format!(
                "{} restarted: runs {lived}, lists {} of {before} games, {missing} newcomers' games missing",
                role.name(),
                listed.len()
            ));
        }
        v.procs[role as usize] = Some(p);
    }
    for (name, role) in [
        ("public node", Role::Public),
        ("referee", Role::Referee),
        ("player", Role::Player),
    ] {
        let peak = peaks.of(v.get(role));
        if peak > RSS_BAR_KIB {
            missed.push(format!("{name}: peak RSS over the run {peak} KiB"));
        }
    }

    eprintln!(
        "\nThe hostile swarm's table ({} s in all):\n",
        started.elapsed().as_secs()
    );
    print_header();
    for r in &rows {
        print_row(r);
    }
    // How near each bound came, as a share of it.
    let near = |f: &dyn Fn(&Row) -> f64| {
        rows.iter()
            .map(|r| (f(r), r))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    };
    let cpu = near(&|r| r.ratio() / CPU_BAR);
    let rss = near(&|r| r.peak_kib as f64 / RSS_BAR_KIB as f64);
    let held = near(&|r| r.held_per_byte().map_or(0.0, |h| h / HELD_BAR));
    let late = near(&|r| {
        r.newcomer
            .request
            .as_ref()
            .map_or(f64::INFINITY, |d| d.as_secs_f64() / GOAL.as_secs_f64())
    });
    eprintln!();
    for (goal, n) in [
        ("victim CPU per attacker CPU ≤ 10", cpu),
        ("peak RSS ≤ 256 MiB", rss),
        (
            "byte-seconds held per byte sent ≤ 30 (the request timeout)",
            held,
        ),
        ("newcomer answered within 5 s", late),
    ] {
        if let Some((share, r)) = n {
            eprintln!(
                "closest to its goal ({goal}): {} / {} at {}",
                r.role.name(),
                r.kind.name(),
                share_text(share)
            );
        }
    }
    let closest = [cpu, rss, held, late]
        .into_iter()
        .flatten()
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((share, r)) = closest {
        eprintln!(
            "closest of all: {} / {} at {}",
            r.role.name(),
            r.kind.name(),
            share_text(share)
        );
    }
    eprintln!("\n{} goals missed:", missed.len());
    for m in &missed {
        eprintln!("  {m}");
    }
    assert!(
        failures.is_empty(),
        "{} bounds broken:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        !plan.long || missed.is_empty(),
        "{} goals missed in the long run",
        missed.len()
    );
}
