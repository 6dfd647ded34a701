//! What a game of Secret Stallmate without a referee (spec/GAMES.md §5.15) costs to play
//! and to verify, and what its transcript holds.
//!
//! Two in-memory sessions play a game to its ply limit (`SEALED_DUO_PLIES`, default 40),
//! computing every attempt together (garbling, transfers, evaluation; the messages
//! passed in memory, no network). Printed: the computations and their messages' bytes,
//! the transcript's bytes and bytes per ply, the time to play, and the verification:
//! `check_transcript` once cold (in a fresh process: the circuit files read, every
//! computation garbled and evaluated again) and then, in alternating rounds, warm against
//! the floor of one strict signature verification per envelope. `SEALED_DUO_SAVE=path`
//! also keeps the transcript there, to check again under a profiler or with `sealed
//! verify`.
//!
//! `cargo bench -p sealed-conformance --bench duo`

use std::hint::black_box;
use std::time::Instant;

use sealed_conformance::duo_kit::play;
use sealed_games::variant::check_transcript;
use sealed_protocol::ids::Seat;
use sealed_protocol::transcript::TranscriptFile;

mod common {
    pub mod alternate;
    pub mod raw;
}

/// In a child process that has read nothing yet: one check of the transcript in this
/// file, and its time.
fn verify_cold(path: &str) {
    let bytes = std::fs::read(path).expect("the transcript");
    let t = Instant::now();
    let checked = check_transcript(&bytes).expect("checkable");
    println!("{:.3}", t.elapsed().as_secs_f64());
    assert!(checked.verdict.faults.is_empty());
}

fn main() {
    if let Ok(path) = std::env::var("SEALED_DUO_VERIFY") {
        return verify_cold(&path);
    }
    let plies: u32 = std::env::var("SEALED_DUO_PLIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let t = Instant::now();
    let (p, table) = play(plies, 41, |_| {});
    let played = t.elapsed();
    let t = table.borrow();
    let bytes = p.transcript(Seat(0));
    let file = TranscriptFile::from_bytes(&bytes).expect("readable");
    let state = p.sessions[0].engine().state().expect("started").clone();
    let traffic: usize = t.messages.iter().map(Vec::len).sum();
    println!(
        "duo game of {} plies: {} computations ({} attempts), {} messages, {:.1} MB of \
         messages; played in {:.2} s (both sides in one process, no network)",
        state.plies,
        t.computations,
        t.computations.saturating_sub(1),
        t.messages.len(),
        traffic as f64 / 1e6,
        played.as_secs_f64(),
    );
    println!(
        "transcript: {} bytes, {} envelopes, {:.0} bytes per ply",
        bytes.len(),
        file.envelopes.len(),
        bytes.len() as f64 / f64::from(state.plies.max(1)),
    );
    if let Ok(keep) = std::env::var("SEALED_DUO_SAVE") {
        std::fs::write(&keep, &bytes).expect("the transcript kept");
    }
    // Cold: a fresh process, the circuit files read anew (this one read them while it
    // played, and the sessions' own verdicts at the end ran the audit).
    let dir = std::env::temp_dir().join(format!("sealed-duo-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let path = dir.join("duo.sealed");
    std::fs::write(&path, &bytes).expect("written");
    let out = std::process::Command::new(std::env::current_exe().expect("this bench"))
        .env("SEALED_DUO_VERIFY", &path)
        .output()
        .expect("the child runs");
    let _ = std::fs::remove_dir_all(&dir);
    let cold: f64 = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .expect("the child's time");
    let checked = check_transcript(&bytes).expect("checkable");
    assert!(checked.verdict.faults.is_empty(), "{:#?}", checked.verdict);
    let raw = common::raw::checks(&file);
    let rounds = 10;
    let m = common::alternate::alternate(
        rounds,
        || {
            black_box(check_transcript(black_box(&bytes)).expect("checkable"));
        },
        || common::raw::verify_all(&raw),
    );
    println!(
        "verify: cold {:.2} s (a fresh process); warm {:.1} ms against {:.2} ms of raw \
         strict signature verification = {:.0}x (median per-round ratio {:.0}, {rounds} \
         alternating rounds)",
        cold,
        m.median_a() * 1e3,
        m.median_b() * 1e3,
        m.median_a() / m.median_b(),
        m.median,
    );
}
