//! What an attempt costs in Secret Stallmate without a referee between real nodes
//! (spec/GAMES.md §5.15), beside the same game with a referee node, in one run.
//!
//! Three nodes on loopback play each game with bots to its ply limit (`SEALED_DUO_PLIES`,
//! default 40): White, Black and the witness the game without a referee needs; White, Black
//! and the referee for the other (its periods 300 ms, so a bot's attempts are answered at
//! once and its periods end soon). From each transcript, by its signers' clocks (one
//! machine, one clock): without a referee, an attempt's time is from the mover's commitment
//! to White's `Done` of its computation (four messages, each made, hashed, signed, stored
//! and sent); with a referee, from the mover's attempt to the referee's answer. Printed:
//! the median at the first moves (plies 0–4, where each new circuit shape is compiled,
//! about a second, once per process), around ply 40 and at the last ten plies, and the last
//! over those around ply 40 (the state kept between computations: no replay). Traffic per
//! attempt is the messages' bytes, counted where they are made (`cargo bench -p
//! sealed-conformance --bench duo`).
//!
//! `cargo bench -p sealed-node --bench duo` (`SEALED_DUO_PLIES=100` for ply 100)

use std::time::{Duration, Instant};

use sealed_games::stallmate::acts::{self as referee_acts, Private};
use sealed_games::stallmate::duo::acts::{self as duo_acts, Act};
use sealed_node::{Home, NodeConfig, NodeHandle, ProposeArgs};
use sealed_protocol::body::Item;
use sealed_protocol::envelope::Signed;
use sealed_protocol::proposal::Terms;
use sealed_protocol::session::Stage;
use sealed_protocol::transcript::TranscriptFile;

fn cfg(bots: bool, seed: u64) -> NodeConfig {
    let mut c = NodeConfig::default();
    c.net.mdns = false;
    c.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().expect("an address")];
    c.core.repair_every_ms = 25;
    c.core.bots = bots;
    c.core.bot_seed = seed;
    c
}

async fn addr(h: &NodeHandle) -> sealed_node::Multiaddr {
    loop {
        if let Some(a) = h.info().await.expect("info").addrs.first() {
            return a.parse().expect("an address");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Plays one game between fresh nodes (the third a witness, or the referee); its
/// transcript and how long it took.
async fn play(variant: &str, plies: u32) -> (Vec<u8>, Duration) {
    let refereed = variant == "stallmate";
    let dirs: Vec<_> = (0..3)
        .map(|_| tempfile::tempdir().expect("a directory"))
        .collect();
    let mut nodes = vec![];
    for (i, dir) in dirs.iter().enumerate() {
        let home = Home::at(dir.path());
        home.init(&format!("bench {i}")).expect("a home");
        let mut c = cfg(i < 2, 11 + i as u64);
        c.core.witness = i == 2 && !refereed;
        c.core.referee = i == 2 && refereed;
        nodes.push(sealed_node::start(&home, c).await.expect("starts"));
    }
    let mut options = vec![("ply-limit".to_owned(), plies.to_string())];
    options.push(if refereed {
        ("period".into(), "300ms".into())
    } else {
        ("time-per-move".into(), "1h".into())
    });
    let third = Some(addr(&nodes[2].0).await);
    let started = Instant::now();
    let game = nodes[0]
        .0
        .propose(ProposeArgs {
            variant: variant.into(),
            options,
            peer: addr(&nodes[1].0).await,
            mailbox: None,
            referee: third.clone().filter(|_| refereed),
            witness: third.filter(|_| !refereed),
        })
        .await
        .expect("proposed");
    loop {
        let mut done = true;
        for (h, _) in &nodes[..2] {
            done &= h
                .show(&game)
                .await
                .is_ok_and(|v| v.table.phase == Stage::Done);
        }
        if done {
            break;
        }
        if started.elapsed() > Duration::from_secs(60 + 30 * u64::from(plies)) {
            for (h, _) in &nodes[..2] {
                eprintln!("{}", h.show_text(&game).await.unwrap_or_default());
            }
            panic!("{variant}: the game did not finish");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let took = started.elapsed();
    let bytes = nodes[0].0.transcript(&game).await.expect("a transcript");
    for (h, _) in &nodes {
        let _ = h.shutdown().await;
    }
    (bytes, took)
}

/// Each act of a transcript with its signer's clock, in clock order (then chain order).
fn acts(bytes: &[u8]) -> Vec<(u64, bool, Vec<u8>)> {
    let file = TranscriptFile::from_bytes(bytes).expect("readable");
    let terms = Terms::parse(&file.proposal).expect("terms");
    let mut out: Vec<(u64, bool, Vec<u8>)> = file
        .envelopes
        .iter()
        .filter_map(|e| Signed::parse(&terms, e).ok())
        .flat_map(|s| {
            let u = s.unsigned().clone();
            let public = u.log.is_public();
            u.body.into_iter().filter_map(move |i| match i {
                Item::Act(a) => Some((u.clock, public, a)),
                _ => None,
            })
        })
        .collect();
    out.sort_by_key(|a| a.0);
    out
}

/// (ply when the attempt was made, its time in ms), without a referee.
fn duo_attempts(bytes: &[u8]) -> Vec<(u32, u64)> {
    let (mut plies, mut since, mut out) = (0u32, None, vec![]);
    for (clock, _, a) in acts(bytes) {
        match duo_acts::decode(&a) {
            Ok(Act::Attempt(_)) => since = Some(clock),
            Ok(Act::Done(d)) => {
                if let Some(t) = since.take() {
                    out.push((plies, clock - t));
                }
                plies += u32::from(d.made);
            }
            _ => {}
        }
    }
    out
}

/// (ply when the attempt was made, its time in ms), with a referee.
fn referee_attempts(bytes: &[u8]) -> Vec<(u32, u64)> {
    let (mut plies, mut since, mut out) = (0u32, None, vec![]);
    for (clock, public, a) in acts(bytes) {
        if public {
            continue;
        }
        match referee_acts::decode(&a) {
            Ok(Private::Attempt(_)) => since = Some(clock),
            Ok(Private::Answer(answer)) => {
                if let Some(t) = since.take() {
                    out.push((plies, clock - t));
                }
                plies += u32::from(matches!(answer, sealed_games::stallmate::Answer::Yes(_)));
            }
            _ => {}
        }
    }
    out
}

fn median(mut v: Vec<u64>) -> Option<u64> {
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// The medians at the first plies, around ply 40 and at the last ten.
fn at(attempts: &[(u32, u64)], last: u32) -> [Option<u64>; 3] {
    let within = |lo: u32, hi: u32| {
        median(
            attempts
                .iter()
                .filter(|(p, _)| (lo..hi).contains(p))
                .map(|a| a.1)
                .collect(),
        )
    };
    [
        within(0, 4),
        within(36, 44),
        within(last.saturating_sub(10), last),
    ]
}

fn show(v: Option<u64>) -> String {
    v.map_or("-".into(), |ms| format!("{ms} ms"))
}

/// Each act of a game without a referee with the time since the act before it: where
/// an attempt's time goes (`SEALED_DUO_TIMELINE=<transcript>`).
fn timeline(path: &str) {
    let bytes = std::fs::read(path).expect("the transcript");
    let mut last = None;
    for (clock, _, a) in acts(&bytes) {
        let gap = last.map_or(0, |l| clock - l);
        last = Some(clock);
        println!(
            "{gap:>6} ms  {:?}",
            duo_acts::decode(&a).map(|a| match a {
                Act::Attempt(_) => "attempt".to_owned(),
                Act::Step(_) => "step".to_owned(),
                Act::Done(d) => format!("done made={}", d.made),
                Act::Halt => "halt".to_owned(),
                Act::Open => "open".to_owned(),
                Act::Lacking => "lacking".to_owned(),
                Act::Deposited(_) => "deposited".to_owned(),
            })
        );
    }
}

fn main() {
    if let Ok(path) = std::env::var("SEALED_DUO_TIMELINE") {
        return timeline(&path);
    }
    let plies: u32 = std::env::var("SEALED_DUO_PLIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    // `SEALED_LOG=debug` shows what the nodes do.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SEALED_LOG")
                .unwrap_or_else(|_| "off".into()),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let (duo, duo_took) = rt.block_on(play("stallmate-duo", plies));
    let (refd, ref_took) = rt.block_on(play("stallmate", plies));
    let (d, r) = (duo_attempts(&duo), referee_attempts(&refd));
    println!("Secret Stallmate to ply {plies} between nodes on loopback, bots, one run:");
    println!(
        "  without a referee: {} attempts in {:.1} s; with a referee: {} attempts in {:.1} s",
        d.len(),
        duo_took.as_secs_f64(),
        r.len(),
        ref_took.as_secs_f64()
    );
    println!("  an attempt's time, median    plies 0-4    plies 36-44    last 10 plies");
    let [d0, d40, dn] = at(&d, plies);
    let [r0, r40, rn] = at(&r, plies);
    println!(
        "  without a referee            {:>10}   {:>12}   {:>13}",
        show(d0),
        show(d40),
        show(dn)
    );
    println!(
        "  with a referee               {:>10}   {:>12}   {:>13}",
        show(r0),
        show(r40),
        show(rn)
    );
    // The first attempts compile the circuit shapes (about a second each, once per
    // process); from ply 36 on they are all compiled, and the last plies over those say
    // whether an attempt's cost grows with the game.
    if let (Some(mid), Some(last)) = (d40, dn) {
        println!(
            "  without a referee, the last 10 plies over plies 36-44: {:.2}x",
            last as f64 / mid.max(1) as f64
        );
    }
    // The medians by ten plies, and how many attempts each holds: a new circuit shape
    // (a window grown past a multiple of 8, the ply limit's last move) costs its first
    // attempt about a second of compiling, wherever it falls.
    println!("  by ten plies     without a referee (attempts)   with a referee (attempts)");
    for lo in (0..plies).step_by(10) {
        let of = |v: &[(u32, u64)]| {
            let in_: Vec<u64> = v
                .iter()
                .filter(|(p, _)| (lo..lo + 10).contains(p))
                .map(|a| a.1)
                .collect();
            (in_.len(), median(in_))
        };
        let ((dn, dm), (rn, rm)) = (of(&d), of(&r));
        println!(
            "  plies {lo:>3}-{:<3}  {:>16} ({dn:>3})  {:>22} ({rn:>3})",
            lo + 9,
            show(dm),
            show(rm)
        );
    }
    for (name, bytes) in [("without", &duo), ("with", &refd)] {
        let c = sealed_games::variant::check_transcript(bytes).expect("checkable");
        assert!(
            c.verdict.faults.is_empty(),
            "{name}: {:?}",
            c.verdict.faults
        );
    }
}
