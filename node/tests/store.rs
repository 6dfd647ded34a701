//! The durable store against real files: round trips, duplicates, many games, reopening,
//! permissions, and a writer process killed with SIGKILL.

use std::path::{Path, PathBuf};

use sealed_node::core::{GameId, PeerKey};
use sealed_node::store::{GameRecord, GameStatus, Store, StoreError};

/// Set in a child process started by [`kill_dash_nine_loses_nothing_reported`]: the store
/// path the child writes to.
const WRITER_ENV: &str = "SEALED_STORE_TEST_WRITER";

/// Temporary directories go under Cargo's target dir rather than /tmp, which may be a
/// tmpfs where fsync costs nothing and proves nothing.
fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn gid(n: u64) -> GameId {
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&n.to_be_bytes());
    id[31] = 0x5e;
    GameId::from(id)
}

fn game(n: u64, created: u64) -> GameRecord {
    GameRecord {
        id: gid(n),
        terms: format!("terms of game {n}").into_bytes(),
        variant: "duel".into(),
        seat: Some((n % 2) as u8),
        created,
        status: GameStatus::Proposed,
    }
}

/// A distinct, envelope-sized byte string for (game, k).
fn env(game: u64, k: u64) -> Vec<u8> {
    let mut e = format!("envelope {game}/{k} ").into_bytes();
    e.resize(240, (k % 251) as u8);
    e
}

fn open(dir: &Path) -> (Store, PathBuf) {
    let path = dir.join("node.redb");
    (Store::open(&path).unwrap(), path)
}

#[test]
fn store_and_error_are_send_and_sync() {
    fn check<T: Send + Sync + 'static>() {}
    check::<Store>();
    check::<StoreError>();
}

#[test]
fn games_round_trip_and_sort() {
    let dir = tempdir();
    let (s, _) = open(dir.path());
    assert_eq!(s.game(&gid(1)).unwrap(), None);
    assert!(s.games().unwrap().is_empty());

    // Out of order, with a tie on `created` broken by id.
    let (a, b, c) = (game(3, 10), game(2, 20), game(1, 20));
    for g in [&b, &a, &c] {
        s.put_game(g).unwrap();
    }
    assert_eq!(s.game(&gid(3)).unwrap().as_ref(), Some(&a));
    assert_eq!(s.games().unwrap(), vec![a.clone(), c.clone(), b.clone()]);

    // Replace.
    let mut relayed = a.clone();
    relayed.seat = None;
    relayed.status = GameStatus::Relayed;
    relayed.variant = "chex".into();
    s.put_game(&relayed).unwrap();
    assert_eq!(s.game(&gid(3)).unwrap(), Some(relayed));
    assert_eq!(s.games().unwrap().len(), 3);

    s.set_status(&gid(2), GameStatus::Active).unwrap();
    s.set_status(&gid(2), GameStatus::Active).unwrap();
    assert_eq!(s.game(&gid(2)).unwrap().unwrap().status, GameStatus::Active);
    s.set_status(&gid(2), GameStatus::Finished).unwrap();
    assert_eq!(
        s.game(&gid(2)).unwrap().unwrap().status,
        GameStatus::Finished
    );
    let err = s.set_status(&gid(9), GameStatus::Active).unwrap_err();
    assert!(
        matches!(err, StoreError::NoSuchGame(id) if id == gid(9)),
        "{err}"
    );
    assert!(err.to_string().contains("0000000000000009"), "{err}");
}

#[test]
fn secrets_and_meta_round_trip() {
    let dir = tempdir();
    let (s, _) = open(dir.path());
    assert_eq!(s.secrets(&gid(1)).unwrap(), None);
    s.put_secrets(&gid(1), b"first entropy").unwrap();
    s.put_secrets(&gid(2), b"other game").unwrap();
    assert_eq!(s.secrets(&gid(1)).unwrap().unwrap(), b"first entropy");
    s.put_secrets(&gid(1), b"replaced").unwrap();
    assert_eq!(s.secrets(&gid(1)).unwrap().unwrap(), b"replaced");
    assert_eq!(s.secrets(&gid(2)).unwrap().unwrap(), b"other game");
    s.put_secrets(&gid(3), b"").unwrap();
    assert_eq!(s.secrets(&gid(3)).unwrap(), Some(vec![]));

    assert_eq!(s.meta("listen").unwrap(), None);
    s.put_meta("listen", b"/ip4/0.0.0.0/tcp/4001").unwrap();
    s.put_meta("", b"empty key").unwrap();
    assert_eq!(s.meta("listen").unwrap().unwrap(), b"/ip4/0.0.0.0/tcp/4001");
    s.put_meta("listen", b"/ip4/127.0.0.1/tcp/1").unwrap();
    assert_eq!(s.meta("listen").unwrap().unwrap(), b"/ip4/127.0.0.1/tcp/1");
    assert_eq!(s.meta("").unwrap().unwrap(), b"empty key");
}

#[test]
fn duplicates_are_stored_once_and_order_is_kept() {
    let dir = tempdir();
    let (s, _) = open(dir.path());
    let id = gid(7);
    assert_eq!(s.envelope_count(&id).unwrap(), 0);
    assert!(s.envelopes(&id).unwrap().is_empty());
    assert_eq!(s.put_envelopes(&id, &[]).unwrap(), 0);

    // Not in any sorted order, with a repeat inside the batch.
    let (e5, e1, e3) = (env(7, 5), env(7, 1), env(7, 3));
    assert_eq!(s.put_envelopes(&id, &[&e5, &e1, &e5, &e3]).unwrap(), 3);
    assert_eq!(s.envelope_count(&id).unwrap(), 3);
    assert_eq!(s.put_envelopes(&id, &[&e1, &e3]).unwrap(), 0);
    let (e0, e2) = (env(7, 0), env(7, 2));
    assert_eq!(s.put_envelopes(&id, &[&e3, &e0, &e1, &e2]).unwrap(), 2);
    assert_eq!(s.envelopes(&id).unwrap(), vec![e5, e1.clone(), e3, e0, e2]);
    assert_eq!(s.envelope_count(&id).unwrap(), 5);
    assert_eq!(s.envelopes_from(&id, 3).unwrap().len(), 2);
    assert!(s.envelopes_from(&id, 5).unwrap().is_empty());
    assert!(s.envelopes_from(&id, u64::MAX).unwrap().is_empty());
    assert!(s.has_envelope(&id, &e1).unwrap());
    assert!(!s.has_envelope(&id, &env(7, 9)).unwrap());
    assert!(!s.has_envelope(&gid(8), &e1).unwrap());

    // The empty envelope is an envelope like any other.
    assert_eq!(s.put_envelopes(&id, &[b"", b""]).unwrap(), 1);
    assert_eq!(s.envelopes(&id).unwrap().last().unwrap(), b"");
}

/// A group commit (the writer's, under load) is batches in order in one transaction: each
/// counts its own new envelopes against those before it, and one batch's failure writes
/// none of them.
#[test]
fn batches_committed_together_count_in_order_and_fail_together() {
    use sealed_node::store::Batch;
    let dir = tempdir();
    let (s, path) = open(dir.path());
    let (a, b, c) = (env(1, 0), env(1, 1), env(2, 0));
    let (g1, g2) = (game(1, 1), game(2, 2));
    let mut first = Batch::new();
    first.game(&g1).envelope(gid(1), &a);
    let mut second = Batch::new();
    second.envelope(gid(1), &a).envelope(gid(1), &b);
    let mut third = Batch::new();
    third
        .game(&g2)
        .envelope(gid(2), &c)
        .status(gid(1), GameStatus::Active);
    let news = s.commit_all(&[first, Batch::new(), second, third]).unwrap();
    assert_eq!(news, vec![1, 0, 1, 1]);
    assert_eq!(s.commit_all(&[]).unwrap(), Vec::<usize>::new());
    drop(s);
    let s = Store::open(&path).unwrap();
    assert_eq!(s.envelopes(&gid(1)).unwrap(), vec![a, b]);
    assert_eq!(s.envelopes(&gid(2)).unwrap(), vec![c]);
    assert_eq!(s.game(&gid(1)).unwrap().unwrap().status, GameStatus::Active);
    drop(s);

    // Game 1's record made unreadable behind the store's back: a status for it fails its
    // batch, and the batches around it are not written either.
    let s = Store::open(&path).unwrap();
    s.put_raw_record(&gid(1), &[0xff; 3]).unwrap();
    let (d, e) = (env(3, 0), env(2, 1));
    let mut before = Batch::new();
    before.envelope(gid(3), &d);
    let mut bad = Batch::new();
    bad.status(gid(1), GameStatus::Finished);
    let mut after = Batch::new();
    after.envelope(gid(2), &e);
    let err = s.commit_all(&[before, bad, after]).unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt { table: "games", .. }),
        "{err}"
    );
    assert!(
        s.failure().is_none(),
        "a corrupt record is not the disk's failure"
    );
    assert_eq!(s.envelope_count(&gid(3)).unwrap(), 0);
    assert_eq!(s.envelope_count(&gid(2)).unwrap(), 1);
}

#[test]
fn many_games_are_isolated() {
    const GAMES: u64 = 1_000;
    const PER_GAME: u64 = 20;
    let dir = tempdir();
    let (s, path) = open(dir.path());
    let shared = b"the same bytes in every game".to_vec();
    for g in 0..GAMES {
        s.put_game(&game(g, 1_700_000_000_000 + g)).unwrap();
        // Two batches per game, the shared envelope in each: stored once per game.
        let first: Vec<Vec<u8>> = (0..PER_GAME / 2).map(|k| env(g, k)).collect();
        let mut refs: Vec<&[u8]> = first.iter().map(Vec::as_slice).collect();
        refs.push(&shared);
        assert_eq!(s.put_envelopes(&gid(g), &refs).unwrap(), 11);
        let second: Vec<Vec<u8>> = (PER_GAME / 2..PER_GAME).map(|k| env(g, k)).collect();
        let mut refs: Vec<&[u8]> = second.iter().map(Vec::as_slice).collect();
        refs.push(&shared);
        assert_eq!(s.put_envelopes(&gid(g), &refs).unwrap(), 10);
    }
    let check = |s: &Store, deleted: &[u64]| {
        let games = s.games().unwrap();
        assert_eq!(games.len() as u64, GAMES - deleted.len() as u64);
        for g in 0..GAMES {
            if deleted.contains(&g) {
                assert_eq!(s.game(&gid(g)).unwrap(), None);
                assert_eq!(s.envelope_count(&gid(g)).unwrap(), 0);
                assert!(s.envelopes(&gid(g)).unwrap().is_empty());
                assert!(!s.has_envelope(&gid(g), &shared).unwrap());
                continue;
            }
            let mut want: Vec<Vec<u8>> = (0..PER_GAME / 2).map(|k| env(g, k)).collect();
            want.push(shared.clone());
            want.extend((PER_GAME / 2..PER_GAME).map(|k| env(g, k)));
            assert_eq!(s.envelopes(&gid(g)).unwrap(), want, "game {g}");
            assert_eq!(s.envelope_count(&gid(g)).unwrap(), PER_GAME + 1);
        }
        assert!(games.windows(2).all(|w| w[0].created < w[1].created));
    };
    check(&s, &[]);

    // Deleting one game, its first and its last neighbour untouched.
    s.put_secrets(&gid(500), b"secret").unwrap();
    s.delete_game(&gid(500)).unwrap();
    s.delete_game(&gid(0)).unwrap();
    s.delete_game(&gid(GAMES + 5)).unwrap();
    assert_eq!(s.secrets(&gid(500)).unwrap(), None);
    check(&s, &[0, 500]);

    // A deleted game starts afresh.
    assert_eq!(s.put_envelopes(&gid(500), &[&shared]).unwrap(), 1);
    assert_eq!(s.envelopes(&gid(500)).unwrap(), vec![shared.clone()]);
    s.delete_game(&gid(500)).unwrap();

    drop(s);
    let s = Store::open(&path).unwrap();
    check(&s, &[0, 500]);
}

#[test]
fn reopen_keeps_everything() {
    let dir = tempdir();
    let (s, path) = open(dir.path());
    let g = game(1, 42);
    s.put_game(&g).unwrap();
    s.set_status(&g.id, GameStatus::Active).unwrap();
    s.put_secrets(&g.id, b"entropy").unwrap();
    s.put_envelopes(&g.id, &[&env(1, 0), &env(1, 1)]).unwrap();
    s.put_meta("key", b"value").unwrap();
    drop(s);

    for round in 0..3u64 {
        let s = Store::open(&path).unwrap();
        let mut want = g.clone();
        want.status = GameStatus::Active;
        assert_eq!(s.games().unwrap(), vec![want]);
        assert_eq!(s.secrets(&g.id).unwrap().unwrap(), b"entropy");
        assert_eq!(s.meta("key").unwrap().unwrap(), b"value");
        let want: Vec<Vec<u8>> = (0..round + 2).map(|k| env(1, k)).collect();
        assert_eq!(s.envelopes(&g.id).unwrap(), want);
        // Positions continue where the last run left them.
        assert_eq!(s.put_envelopes(&g.id, &[&env(1, round + 2)]).unwrap(), 1);
    }
}

#[test]
fn a_second_open_is_refused_until_the_first_is_dropped() {
    let dir = tempdir();
    let (s, path) = open(dir.path());
    s.put_meta("k", b"v").unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(
        matches!(&err, StoreError::AlreadyOpen(p) if *p == path),
        "{err}"
    );
    assert!(err.to_string().contains("already open"), "{err}");
    drop(s);
    let s = Store::open(&path).unwrap();
    assert_eq!(s.meta("k").unwrap().unwrap(), b"v");
}

#[test]
fn a_file_that_is_not_a_store_is_refused() {
    let dir = tempdir();
    let path = dir.path().join("not.redb");
    std::fs::write(&path, vec![0x42; 64 * 1024]).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Database(_)), "{err}");
}

#[test]
fn a_corrupt_record_is_reported() {
    let dir = tempdir();
    let (s, path) = open(dir.path());
    s.put_game(&game(1, 1)).unwrap();
    s.put_game(&game(2, 2)).unwrap();
    drop(s);
    {
        // Behind the store's back: garbage for game 1, game 2 filed under game 3's id.
        let s = Store::open(&path).unwrap();
        s.put_raw_record(&gid(1), &[0xff; 3]).unwrap();
        let bytes = postcard::to_allocvec(&game(2, 2)).unwrap();
        s.put_raw_record(&gid(3), &bytes).unwrap();
    }
    let s = Store::open(&path).unwrap();
    let err = s.game(&gid(1)).unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt { table: "games", .. }),
        "{err}"
    );
    let err = s.game(&gid(3)).unwrap_err();
    assert!(err.to_string().contains("filed under"), "{err}");
    assert!(s.games().is_err());
    assert_eq!(s.game(&gid(2)).unwrap(), Some(game(2, 2)));
    // A corrupt record blocks nothing but itself: it can be replaced or deleted.
    s.delete_game(&gid(1)).unwrap();
    s.put_game(&game(3, 3)).unwrap();
    assert_eq!(s.games().unwrap().len(), 2);
}

#[cfg(unix)]
#[test]
fn the_file_and_its_directory_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let dir = tempdir();

    // Created: directories (all of them) 0700, file 0600.
    let path = dir.path().join("a/b/node.redb");
    drop(Store::open(&path).unwrap());
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&dir.path().join("a/b")), 0o700);
    assert_eq!(mode(&dir.path().join("a")), 0o700);

    // Existing and too open: tightened.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(
        dir.path().join("a/b"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let s = Store::open(&path).unwrap();
    s.put_secrets(&gid(1), b"x").unwrap();
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&dir.path().join("a/b")), 0o700);

    // An empty file left by someone else becomes a store, made private.
    drop(s);
    let other = dir.path().join("c/empty.redb");
    std::fs::create_dir(dir.path().join("c")).unwrap();
    std::fs::write(&other, b"").unwrap();
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o666)).unwrap();
    let s = Store::open(&other).unwrap();
    s.put_meta("k", b"v").unwrap();
    assert_eq!(mode(&other), 0o600);
    assert_eq!(mode(&dir.path().join("c")), 0o700);
}

/// How many envelopes the writer puts in the batch that starts at position `count`: 1 to
/// 3, so the parent can tell a whole batch from a torn one.
fn batch_len(count: u64) -> u64 {
    1 + count % 3
}

/// The game the writer child writes to.
const CRASH_GAME: u64 = 77;

/// Not a test on its own: the writer half of [`kill_dash_nine_loses_nothing_reported`],
/// run in a child process (and a no-op otherwise). Picks up where the store stands,
/// commits batches of envelopes (each with a repeat of an envelope already stored) and
/// then its count as the game's secret, and after both commits reports the count.
#[test]
fn crash_writer_child() {
    use std::io::Write;
    let Some(path) = std::env::var_os(WRITER_ENV) else {
        return;
    };
    let s = Store::open(Path::new(&path)).unwrap();
    let id = gid(CRASH_GAME);
    let mut count = s.envelope_count(&id).unwrap();
    let mut out = std::io::stdout().lock();
    writeln!(out, "start {count}").unwrap();
    out.flush().unwrap();
    // Bounded, so that an orphan cannot run for ever if its parent dies.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        let n = batch_len(count);
        let batch: Vec<Vec<u8>> = (count..count + n).map(|k| env(CRASH_GAME, k)).collect();
        let mut refs: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
        let old = count.checked_sub(1).map(|k| env(CRASH_GAME, k));
        if let Some(old) = &old {
            refs.push(old);
        }
        assert_eq!(s.put_envelopes(&id, &refs).unwrap() as u64, n);
        count += n;
        s.put_secrets(&id, &count.to_be_bytes()).unwrap();
        writeln!(out, "committed {count}").unwrap();
        out.flush().unwrap();
    }
}

/// A writer process killed with SIGKILL at arbitrary points, five times over the same
/// store: after each kill the store opens, holds every envelope the writer reported
/// committed exactly once and in order, holds no torn batch, and its secret is at least
/// the last one reported.
#[cfg(unix)]
#[test]
fn kill_dash_nine_loses_nothing_reported() {
    use std::io::BufRead;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant, SystemTime};

    let dir = tempdir();
    let path = dir.path().join("crash.redb");
    let id = gid(CRASH_GAME);
    let mut reported_total = 0u64;
    for round in 0..5u64 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "crash_writer_child", "--nocapture", "--quiet"])
            .env(WRITER_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let mut start = None;
        let mut last = None;
        let mut seen = 0;
        let wanted = 5 + 7 * round;
        while seen < wanted {
            let line = lines.next().expect("writer ended early").unwrap();
            if let Some(n) = line.strip_prefix("start ") {
                start = Some(n.parse::<u64>().unwrap());
            } else if let Some(n) = line.strip_prefix("committed ") {
                last = Some(n.parse::<u64>().unwrap());
                seen += 1;
            }
        }
        // A varying pause, so that the kill lands at varying points of a commit.
        let jitter = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
            % 3_000;
        std::thread::sleep(Duration::from_micros(u64::from(jitter)));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "round {round}: {status:?}");

        let start = start.unwrap();
        let last = last.unwrap();
        assert_eq!(
            start, reported_total,
            "round {round}: the writer resumed elsewhere"
        );
        let t = Instant::now();
        let s = Store::open(&path).unwrap();
        let reopen = t.elapsed();
        let count = s.envelope_count(&id).unwrap();
        let envs = s.envelopes(&id).unwrap();
        assert_eq!(envs.len() as u64, count, "round {round}");
        assert!(
            count >= last,
            "round {round}: reported {last}, stored {count}"
        );
        let want: Vec<Vec<u8>> = (0..count).map(|k| env(CRASH_GAME, k)).collect();
        assert!(
            envs == want,
            "round {round}: envelopes lost, repeated or reordered"
        );
        let mut boundary = 0;
        while boundary < count {
            boundary += batch_len(boundary);
        }
        assert_eq!(boundary, count, "round {round}: a torn batch");
        let secret = u64::from_be_bytes(s.secrets(&id).unwrap().unwrap().try_into().unwrap());
        assert!(
            (last..=count).contains(&secret),
            "round {round}: secret {secret}, reported {last}, stored {count}"
        );
        eprintln!(
            "round {round}: reported {last}, stored {count}, reopened in {reopen:?} after kill"
        );
        reported_total = count;
    }
}

#[test]
fn the_quotas_ledger_starts_a_new_day_in_the_same_write_as_its_first_charge() {
    use sealed_node::store::{Batch, Usage};
    let dir = tempdir();
    let (s, path) = open(dir.path());
    let used = |games| Usage {
        games,
        envelopes: 2 * games,
        bytes: 100 * games,
    };
    let (a, b) = (
        PeerKey::from_bytes([1u8; 32]),
        PeerKey::from_bytes([2u8; 32]),
    );
    s.commit(
        Batch::new()
            .quota_day(20_000)
            .charge(a, used(1))
            .charge(b, used(2)),
    )
    .unwrap();
    s.commit(Batch::new().charge(a, used(1))).unwrap();
    assert_eq!(s.quotas().unwrap(), vec![(a, used(2)), (b, used(2))]);
    // The next day: yesterday's counts go, today's first charge stays.
    s.commit(Batch::new().quota_day(20_001).charge(b, used(3)))
        .unwrap();
    drop(s);
    let s = Store::open(&path).unwrap();
    assert_eq!(s.quotas().unwrap(), vec![(b, used(3))]);
    assert_eq!(
        s.meta(sealed_node::core::QUOTA_DAY_KEY).unwrap().unwrap(),
        20_001u64.to_le_bytes()
    );
}
