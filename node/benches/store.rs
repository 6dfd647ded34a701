//! What durability costs (spec/PROTOCOL.md §11.2: an envelope is durable before it is
//! sent, so each costs an fsync): one durable commit of one envelope, of 100 envelopes in one transaction, and, as
//! the floor, the same bytes appended to a plain file with `File::sync_data`, in the same
//! run on the same file system.
//!
//! `cargo bench -p sealed-node --bench store`. Files go under Cargo's target dir, not
//! /tmp, which may be a tmpfs where fsync is free.

use std::cell::Cell;
use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};

use criterion::{BatchSize, Criterion, Throughput};
use sealed_node::core::GameId;
use sealed_node::store::Store;

/// About the size of a signed envelope carrying one act.
const ENVELOPE: usize = 256;

fn envelope(n: u64) -> Vec<u8> {
    let mut e = vec![0xa5; ENVELOPE];
    e[..8].copy_from_slice(&n.to_le_bytes());
    e
}

/// Envelopes per game before the bench moves on to the next game: a long game's worth.
/// One game with every envelope of the run would make its hash index, keyed by random
/// hashes, far larger than any real game's, and each insert would dirty a page of its own.
const PER_GAME: u64 = 400;

fn game_of(n: u64) -> GameId {
    let mut id = [7u8; 32];
    id[..8].copy_from_slice(&(n / PER_GAME).to_be_bytes());
    GameId::from(id)
}

fn durable_commit(c: &mut Criterion) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = Store::open(&dir.path().join("bench.redb")).unwrap();
    let id = GameId::from([9u8; 32]);
    let next = Cell::new(0u64);
    let stored = Cell::new(0u64);
    // A fresh batch of `n` envelopes, all of one game.
    let fresh = |n: u64| {
        let mut first = next.get();
        if first / PER_GAME != (first + n - 1) / PER_GAME {
            first = (first / PER_GAME + 1) * PER_GAME;
        }
        next.set(first + n);
        stored.set(stored.get() + n);
        (
            game_of(first),
            (first..first + n).map(envelope).collect::<Vec<_>>(),
        )
    };

    let mut g = c.benchmark_group("durable_commit");
    g.sample_size(50);

    g.throughput(Throughput::Elements(1));
    g.bench_function("redb_1_envelope", |b| {
        b.iter_batched(
            || fresh(1),
            |(game, batch)| assert_eq!(store.put_envelopes(&game, &[&batch[0]]).unwrap(), 1),
            BatchSize::SmallInput,
        )
    });

    g.bench_function("redb_secret_32_bytes", |b| {
        b.iter(|| store.put_secrets(&id, &[0x5e; 32]).unwrap())
    });

    // Already stored: no commit, so no fsync.
    let dup = envelope(0);
    g.bench_function("redb_duplicate_envelope", |b| {
        b.iter(|| assert_eq!(store.put_envelopes(&game_of(0), &[&dup]).unwrap(), 0))
    });

    g.throughput(Throughput::Elements(100));
    g.bench_function("redb_100_envelopes_one_tx", |b| {
        b.iter_batched(
            || fresh(100),
            |(game, batch)| {
                let refs: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
                assert_eq!(store.put_envelopes(&game, &refs).unwrap(), 100);
            },
            BatchSize::SmallInput,
        )
    });

    // The floor for a store that rewrites space it already owns, as redb mostly does:
    // overwriting allocated blocks, so that fdatasync need not commit a new file size.
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(dir.path().join("bench.slot"))
        .unwrap();
    let hundred: Vec<u8> = (0..100).flat_map(envelope).collect();
    file.write_all(&hundred).unwrap();
    file.sync_all().unwrap();
    let one = envelope(1);
    g.throughput(Throughput::Elements(1));
    g.bench_function("file_overwrite_sync_data_1_envelope", |b| {
        b.iter(|| {
            file.seek(SeekFrom::Start(0)).unwrap();
            file.write_all(&one).unwrap();
            file.sync_data().unwrap();
        })
    });
    g.throughput(Throughput::Elements(100));
    g.bench_function("file_overwrite_sync_data_100_envelopes", |b| {
        b.iter(|| {
            file.seek(SeekFrom::Start(0)).unwrap();
            file.write_all(&hundred).unwrap();
            file.sync_data().unwrap();
        })
    });

    // An append-only log, the other way to make envelopes durable: every append grows the file,
    // so each fdatasync also commits the new size (on ext4, a journal commit).
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.path().join("bench.log"))
        .unwrap();
    g.throughput(Throughput::Elements(1));
    g.bench_function("file_append_sync_data_1_envelope", |b| {
        b.iter(|| {
            file.write_all(&one).unwrap();
            file.sync_data().unwrap();
        })
    });
    g.throughput(Throughput::Elements(100));
    g.bench_function("file_append_sync_data_100_envelopes", |b| {
        b.iter(|| {
            file.write_all(&hundred).unwrap();
            file.sync_data().unwrap();
        })
    });
    g.finish();
    drop(store);
    let len = std::fs::metadata(dir.path().join("bench.redb"))
        .unwrap()
        .len();
    let n = stored.get().max(1);
    println!(
        "store file after the run: {} KiB for {n} envelopes of {ENVELOPE} bytes ({} bytes each)",
        len / 1024,
        len / n
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    durable_commit(&mut c);
    c.final_summary();
}
