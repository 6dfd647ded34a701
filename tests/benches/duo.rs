//! What a game of Secret Stallmate without a referee (spec/GAMES.md §5.15) costs to play
//! and to verify, and what its transcript holds.
//!
//! Two in-memory sessions play a game to its ply limit (`SEALED_DUO_PLIES`, default 40),
//! computing every attempt together (garbling, transfers, evaluation; the messages
//! passed in memory, no network). Printed: the computations and their messages' bytes,
//! the transcript's bytes and bytes per ply, the time to play, and the verification:
//! `check_transcript` once cold (every circuit shape compiled) and then, in alternating
//! rounds, warm against the floor of one strict signature verification per envelope.
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

fn main() {
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
    let t0 = Instant::now();
    let checked = check_transcript(&bytes).expect("checkable");
    let cold = t0.elapsed();
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
        "verify: cold {:.2} s (circuits compiled); warm {:.1} ms against {:.2} ms of raw \
         strict signature verification = {:.0}x (median per-round ratio {:.0}, {rounds} \
         alternating rounds)",
        cold.as_secs_f64(),
        m.median_a() * 1e3,
        m.median_b() * 1e3,
        m.median_a() / m.median_b(),
        m.median,
    );
}
