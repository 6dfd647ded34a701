//! What full verification of a transcript costs next to its signatures alone.
//!
//! A finished game of Duel with 200 envelopes is checked end to end by
//! `sealed_games::variant::check_transcript` (decode, strict signatures, chains, replay,
//! verdict), and compared with the bare floor: 200 strict Ed25519 verifications of the
//! same messages and signatures. Signatures should dominate; the goal is a ratio of at
//! most 1.25. After the criterion groups the ratio is measured again in-process and
//! printed on one line, followed by a rough split of the time by phase, and then the
//! same ratio for every variant's reference game in spec/vectors (medians of
//! alternating rounds); `-- --vectors` prints those alone.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};

mod common {
    pub mod alternate;
    pub mod raw;
}

use sealed_conformance::duel_kit::{duel_terms, random_bot};
use sealed_conformance::sim::{NetConfig, Sim};
use sealed_games::duel::Duel;
use sealed_games::variant::check_transcript;
use sealed_protocol::engine::Engine;
use sealed_protocol::envelope::{Envelope, Signed};
use sealed_protocol::proposal::Terms;
use sealed_protocol::transcript::TranscriptFile;
use sealed_protocol::verdict::verdict;

/// The envelope count we aim for. `Duel { cards: 48, hand: 1 }` makes exactly this many
/// (the workload asserts it): 96 plays, 94 refill deals (one per seat after every round
/// but the last), and per seat the opening, the coin reveal with the opening deal, the
/// deal-seed reveal and two closes.
const ENVELOPES: usize = 200;
const RULES: Duel = Duel { cards: 48, hand: 1 };

/// The transcript under test and the raw signature checks it contains.
struct Workload {
    bytes: Vec<u8>,
    raw: Vec<common::raw::Check>,
}

fn workload() -> Workload {
    let terms = duel_terms(&RULES, 1);
    let mut sim = Sim::new(
        terms,
        vec![random_bot(), random_bot()],
        NetConfig::perfect(),
        1,
    );
    sim.run(100_000_000);
    assert!(sim.quiet(), "the game did not finish");
    let bytes = sim.transcripts().swap_remove(0);
    let checked = check_transcript(&bytes).expect("checkable");
    assert_eq!(checked.exit_code(), 0, "{:#?}", checked.verdict);
    let file = TranscriptFile::from_bytes(&bytes).expect("readable");
    println!(
        "workload: Duel {{ cards: {}, hand: {} }}, {} envelopes in the file, {} processed, \
         {} bytes",
        RULES.cards,
        RULES.hand,
        file.envelopes.len(),
        checked.verdict.envelopes,
        bytes.len()
    );
    assert_eq!(file.envelopes.len(), ENVELOPES);
    assert_eq!(checked.verdict.envelopes, ENVELOPES as u64);

    let raw = common::raw::checks(&file);
    Workload { bytes, raw }
}

fn full(w: &Workload) {
    let checked = check_transcript(black_box(&w.bytes)).expect("checkable");
    black_box(checked);
}

fn raw(w: &Workload) {
    common::raw::verify_all(&w.raw);
}

fn bench(c: &mut Criterion, w: &Workload) {
    let mut g = c.benchmark_group("verify");
    g.throughput(Throughput::Elements(ENVELOPES as u64));
    g.sample_size(30);
    g.measurement_time(Duration::from_secs(8));
    g.bench_function("check_transcript 200 envelopes", |b| b.iter(|| full(w)));
    g.bench_function("verify_strict x200 raw", |b| b.iter(|| raw(w)));
    g.finish();
}

/// Mean time of one call of `f`, over `iters` calls.
fn mean(iters: u32, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed() / iters
}

/// Both workloads measured in alternation (`common::alternate`). Prints the ratio of
/// the means, and the median of the per-round ratios as a check on noise.
fn ratio(w: &Workload) {
    let rounds = 300;
    let m = common::alternate::alternate(rounds, || full(w), || raw(w));
    println!(
        "verify {ENVELOPES}-envelope transcript / {ENVELOPES} raw verify_strict = {:.2} \
         (goal <= 1.25): means {:.3} ms / {:.3} ms over {rounds} alternating rounds, \
         median per-round ratio {:.2}",
        m.ratio(),
        m.a.as_secs_f64() * 1e3,
        m.b.as_secs_f64() * 1e3,
        m.median,
    );
}

/// A named piece of work to time.
type Step<'a> = (&'static str, Box<dyn Fn() + 'a>);

/// Where the time of a full check goes, phase by phase: the same work `check` does,
/// done step by step, all phases measured round-robin like [`ratio`]. The phases add
/// up to roughly, not exactly, one `check_transcript`.
fn phases(w: &Workload) {
    let file = TranscriptFile::from_bytes(&w.bytes).expect("readable");
    let terms = Terms::parse(&file.proposal).expect("terms");
    let signed: Vec<Signed> = file
        .envelopes
        .iter()
        .map(|e| Signed::parse(&terms, e).expect("signed"))
        .collect();
    let game = terms.game();
    let mut engine: Engine<Duel> = Engine::new(terms.clone()).expect("duel");
    for s in &signed {
        engine.insert_signed(s.clone()).expect("stored");
    }
    let mut steps: Vec<Step<'_>> = vec![
        ("whole check_transcript", Box::new(|| full(w))),
        ("raw verify_strict x200", Box::new(|| raw(w))),
        (
            "TranscriptFile::from_bytes",
            Box::new(|| {
                black_box(TranscriptFile::from_bytes(black_box(&w.bytes)).expect("readable"));
            }),
        ),
        (
            "Terms::parse (once per check)",
            Box::new(|| {
                black_box(Terms::parse(black_box(&file.proposal)).expect("terms"));
            }),
        ),
        (
            "Envelope::decode x200 (part of Signed::parse)",
            Box::new(|| {
                for e in &file.envelopes {
                    black_box(Envelope::decode(black_box(e), game).expect("ok"));
                }
            }),
        ),
        (
            "Signed::parse x200 (decode, verify, hash)",
            Box::new(|| {
                for e in &file.envelopes {
                    black_box(Signed::parse(&terms, black_box(e)).expect("signed"));
                }
            }),
        ),
        (
            "Engine::insert_signed x200 (store, replay, judge)",
            Box::new(|| {
                let mut engine: Engine<Duel> = Engine::new(terms.clone()).expect("duel");
                for s in &signed {
                    engine.insert_signed(s.clone()).expect("stored");
                }
                black_box(&engine);
            }),
        ),
        (
            "verdict",
            Box::new(|| {
                black_box(verdict(black_box(&engine)));
            }),
        ),
    ];
    let mut total = vec![Duration::ZERO; steps.len()];
    let rounds = 40;
    for _ in 0..rounds {
        for (i, (_, f)) in steps.iter_mut().enumerate() {
            total[i] += mean(1, f);
        }
    }
    let whole = total[0].as_secs_f64();
    for ((name, _), t) in steps.iter().zip(&total) {
        let t = t.as_secs_f64();
        println!(
            "phase {name:<58} {:>8.3} ms  {:>5.1}% of the whole check",
            t * 1e3 / f64::from(rounds),
            100.0 * t / whole
        );
    }
}

/// The reference game of every variant in spec/vectors, Stallmate's with its audit
/// and the witnessed forfeits: each file's `check_transcript` against one strict
/// verification of each of its envelopes' signatures, in alternation.
const VECTORS: &[&str] = &[
    "duel-game.sealed",
    "cardmate-game.sealed",
    "chex-game.sealed",
    "tempete-game.sealed",
    "stallmate-game.sealed",
    "forfeit-game.sealed",
    "stallmate-forfeit-game.sealed",
];

fn vectors(rounds: usize) {
    // `-- --vectors chex` measures only the vectors whose names contain "chex".
    let only: Vec<String> = std::env::args()
        .skip_while(|a| a != "--vectors")
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for name in VECTORS
        .iter()
        .filter(|n| only.is_empty() || only.iter().any(|o| n.contains(o.as_str())))
    {
        let path = format!("{}/../spec/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).expect("a vector");
        let file = TranscriptFile::from_bytes(&bytes).expect("readable");
        let raw = common::raw::checks(&file);
        let m = common::alternate::alternate(
            rounds,
            || {
                black_box(check_transcript(black_box(&bytes)).expect("checkable"));
            },
            || common::raw::verify_all(&raw),
        );
        // The proposal's signature and the witness's statements' are beyond the
        // envelopes': with them, the ratio that verifying each signature once would
        // cost and nothing else.
        let statements = common::raw::statements(&file);
        println!(
            "vector {name:<30} {:>4} envelopes: check_transcript / raw verify_strict = {:.2} \
             (goal <= 1.25; medians {:.3} ms / {:.3} ms, median per-round ratio {:.2}, \
             {rounds} alternating rounds; with the proposal and {statements} witness \
             statements, signatures alone {:.2})",
            file.envelopes.len(),
            m.median_a() / m.median_b(),
            m.median_a() * 1e3,
            m.median_b() * 1e3,
            m.median,
            (file.envelopes.len() + 1 + statements) as f64 / file.envelopes.len() as f64,
        );
    }
}

fn main() {
    if std::env::args().any(|a| a == "--vectors") {
        // Only the vectors' ratios: `cargo bench -p sealed-conformance --bench verify
        // -- --vectors [name ...]`.
        vectors(200);
        return;
    }
    let w = workload();
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &w);
    c.final_summary();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`) criterion only
    // runs each benchmark once as a test, and the timing below is skipped as well.
    if std::env::args().any(|a| a == "--bench") {
        ratio(&w);
        phases(&w);
        vectors(200);
    }
}
