//! What serving peers from the store costs (spec/PROTOCOL.md §11.2 rule 4: a node
//! answers `Heads` and `Pull` from what is durable, never from memory), against the
//! baseline of serving the same envelopes from the table in memory, as the node did
//! before, measured in the same run on the same game:
//!
//! - a heads round with nothing lacking (the common case: every peer, every 5 s, for
//!   every unfinished game);
//! - half of a long game lacking (a peer back after an outage);
//! - the whole game lacking (a peer that never heard of it).
//!
//! The game is a whole Tempête between the table's bots (ply limit 300). Criterion
//! prints each time; the ratios store/memory are printed as `serve:` lines.
//! `cargo bench -p sealed-node --bench serve`.

mod common;

use std::time::{Duration, Instant};

use criterion::Criterion;
use sealed_games::table::{self, Table};
use sealed_node::store::Store;
use sealed_protocol::ids::{ChainId, Seat};
use sealed_protocol::keys::SecretKey;
use sealed_protocol::proposal::Terms;

fn key(seat: u8) -> SecretKey {
    SecretKey::from_seed(&[seat + 1; 32])
}

/// A whole Tempête between two tables whose bots play it out, every envelope delivered
/// at once: the seats' tables at the end.
fn played_game() -> Vec<Box<dyn Table>> {
    let signed = table::propose(
        "tempete",
        &table::demo_options("tempete"),
        &key(0),
        table::Invitees {
            opponent: key(1).public().to_bytes(),
            ..Default::default()
        },
        1,
        [3; 32],
    )
    .expect("a proposal");
    let terms = Terms::from_signed(signed).expect("terms");
    let mut tables: Vec<Box<dyn Table>> = (0..2u8)
        .map(|s| table::open(terms.clone(), key(s), "", [s + 9; 32], 1).expect("a table"))
        .collect();
    common::play_out(&mut tables, 7, 100_000);
    tables
}

/// Runs `f` `n` times; the time of one.
fn time(n: u32, mut f: impl FnMut() -> usize) -> Duration {
    let start = Instant::now();
    let mut sink = 0;
    for _ in 0..n {
        sink += f();
    }
    std::hint::black_box(sink);
    start.elapsed() / n
}

fn serve(c: &mut Criterion) {
    let tables = played_game();
    let t = &tables[1];
    let envs = t.session().envelopes().all();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = Store::open(&dir.path().join("serve.redb")).unwrap();
    let id = t.session().terms().game();
    let refs: Vec<&[u8]> = envs.iter().map(Vec::as_slice).collect();
    store.put_envelopes(&id, &refs).unwrap();
    let all = t.session().envelopes().counts();
    let half: Vec<(ChainId, u64)> = all.iter().map(|(c, n)| (*c, n / 2)).collect();
    let peer = Seat(0);
    let from_store = |have: &[(ChainId, u64)]| {
        store
            .chain_envelopes(&id, |log, seat| {
                let chain = ChainId {
                    log: sealed_protocol::ids::LogId(log),
                    seat: Seat(seat),
                };
                t.session().envelopes().visible(chain, peer).then(|| {
                    have.iter()
                        .find(|(c, _)| *c == chain)
                        .map_or(0, |(_, n)| *n)
                })
            })
            .unwrap()
            .len()
    };
    let from_memory = |have: &[(ChainId, u64)]| t.session().envelopes().after(have, peer).len();
    let cases: [(&str, &[(ChainId, u64)]); 3] = [
        ("nothing lacking", &all),
        ("half lacking", &half),
        ("all lacking", &[]),
    ];
    let mut g = c.benchmark_group("serve");
    for (name, have) in cases {
        assert_eq!(
            from_store(have),
            from_memory(have),
            "{name}: the same envelopes"
        );
        g.bench_function(format!("{name}/store"), |b| b.iter(|| from_store(have)));
        g.bench_function(format!("{name}/memory"), |b| b.iter(|| from_memory(have)));
    }
    g.finish();
    println!("serve: a Tempête of {} envelopes", envs.len());
    for (name, have) in cases {
        let s = time(2000, || from_store(have));
        let m = time(2000, || from_memory(have));
        println!(
            "serve: {name}: store {:.1} µs, memory {:.1} µs, ratio {:.2}",
            s.as_secs_f64() * 1e6,
            m.as_secs_f64() * 1e6,
            s.as_secs_f64() / m.as_secs_f64()
        );
    }
}

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(Duration::from_secs(2));
    serve(&mut c);
    c.final_summary();
}
