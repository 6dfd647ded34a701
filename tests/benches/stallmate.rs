//! What the end-of-game audit of Secret Stallmate costs next to the signatures alone.
//!
//! The workload is the conformance vector spec/vectors/stallmate-game.sealed: three
//! seats, every move period's private log published. It is checked end to end
//! (`check_transcript`: decode, strict signatures, chains, replay, the audit that
//! replays the hidden game against every referee answer, the verdict), and the audit is
//! also timed alone on an engine that already holds everything. Both are compared with
//! the floor: one strict Ed25519 verification per envelope of the same file.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};

mod common {
    pub mod raw;
}
use sealed_games::stallmate::peer::Stallmate;
use sealed_games::variant::check_transcript;
use sealed_protocol::engine::Engine;
use sealed_protocol::envelope::Envelope;
use sealed_protocol::transcript::{TranscriptFile, check};

struct Workload {
    bytes: Vec<u8>,
    engine: Engine<Stallmate>,
    raw: Vec<common::raw::Check>,
}

fn workload() -> Workload {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/vectors/stallmate-game.sealed"
    );
    let bytes = std::fs::read(path).expect("the vector");
    let checked = check_transcript(&bytes).expect("checkable");
    assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
    let file = TranscriptFile::from_bytes(&bytes).expect("readable");
    let (engine, _) = check::<Stallmate>(&file).expect("checks");
    let raw = common::raw::checks(&file);
    let private = file
        .envelopes
        .iter()
        .filter(|e| {
            Envelope::decode(e, engine.terms().game())
                .is_ok_and(|env| !env.unsigned.log.is_public())
        })
        .count();
    println!(
        "workload: stallmate-game.sealed, {} envelopes ({private} in private logs), {} periods, {} bytes",
        raw.len(),
        engine.state().map_or(0, |s| s.period),
        bytes.len()
    );
    Workload { bytes, engine, raw }
}

fn full(w: &Workload) {
    black_box(check_transcript(black_box(&w.bytes)).expect("checkable"));
}

fn audit(w: &Workload) {
    let a = black_box(&w.engine).audit();
    assert!(a.findings.is_empty() && a.gaps.is_empty());
    black_box(a);
}

fn raw(w: &Workload) {
    common::raw::verify_all(&w.raw);
}

fn time(f: impl Fn()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// The three measured in alternation, one call each per round, so that drift in the
/// machine's speed hits them alike; prints the ratios of the means.
fn ratios(w: &Workload) {
    for _ in 0..10 {
        full(w);
        audit(w);
        raw(w);
    }
    let rounds = 200u32;
    let (mut f, mut a, mut r) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for _ in 0..rounds {
        f += time(|| full(w));
        a += time(|| audit(w));
        r += time(|| raw(w));
    }
    let n = w.raw.len();
    println!(
        "stallmate: check_transcript / {n} raw verify_strict = {:.2}; audit alone / the same = {:.2} \
         (means {:.3} ms, {:.3} ms, {:.3} ms over {rounds} alternating rounds; audit {:.1} µs per envelope)",
        f.as_secs_f64() / r.as_secs_f64(),
        a.as_secs_f64() / r.as_secs_f64(),
        f.as_secs_f64() * 1e3 / f64::from(rounds),
        a.as_secs_f64() * 1e3 / f64::from(rounds),
        r.as_secs_f64() * 1e3 / f64::from(rounds),
        a.as_secs_f64() * 1e6 / f64::from(rounds) / n as f64,
    );
}

fn main() {
    let w = workload();
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("stallmate");
    g.throughput(Throughput::Elements(w.raw.len() as u64));
    g.sample_size(20);
    g.measurement_time(Duration::from_secs(5));
    g.bench_function("check_transcript", |b| b.iter(|| full(&w)));
    g.bench_function("audit", |b| b.iter(|| audit(&w)));
    g.bench_function("verify_strict raw", |b| b.iter(|| raw(&w)));
    g.finish();
    c.final_summary();
    if std::env::args().any(|a| a == "--bench") {
        ratios(&w);
    }
}
