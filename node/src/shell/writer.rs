//! The store's writer: its own thread, so an fsync never stalls the network. It takes
//! the core's writes in order, commits them, and reports back; a reopen after a failure
//! is asked for the same way, so it is ordered with the writes.
//!
//! Writes that are already waiting when the thread comes back from a commit go in the
//! next one together ([`Store::commit_all`], at most [`GROUP`]): the fsync, not the
//! work, is what a write costs, so under load one fsync serves many games (measured in
//! docs/PERFORMANCE.md, "A public node under honest load"). A busy writer (its last
//! commit took more than one write) also waits up to [`WINDOW`] for more, so that a
//! commit's own cost is shared by more writes; an idle writer commits the first write at
//! once, alone. Each write is still reported only once it is durable, and in order.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::core::{WriteFailed, WriteId, Writes};
use crate::store::{Batch, Store, StoreError};

/// What the writer is asked to do.
pub(super) enum Job {
    /// Commit these writes (boxed: the other jobs are small, and a channel slot is the
    /// size of the largest).
    Write(WriteId, Box<Writes>),
    /// Reopen the store after a failure.
    Recover(WriteId),
    /// Keep a setting of the shell's own, which no game waits for and the core never
    /// reads (whether this node was reachable, `reach.rs`): nothing is reported back.
    /// A failure latches the store as any does: the core's next write then fails too,
    /// and the core reopens the store as after any failed write.
    Remember(&'static str, Vec<u8>),
}

/// What the writer reports: the write, and the envelopes it added or why it failed.
pub(super) type Done = mpsc::UnboundedReceiver<(WriteId, Result<usize, WriteFailed>)>;

/// Starts the writer; jobs go in the returned sender, results come out of the returned
/// receiver. The thread ends when the sender is dropped.
pub(super) fn start(
    store: Arc<Store>,
) -> (
    std::sync::mpsc::Sender<Job>,
    Done,
    std::thread::JoinHandle<()>,
) {
    let (jobs_tx, jobs) = std::sync::mpsc::channel::<Job>();
    let (most, wait) = (group_size(), window());
    let (done_tx, done) = mpsc::unbounded_channel();
    let thread = std::thread::Builder::new()
        .name("sealed-store".into())
        .spawn(move || {
            let mut next = None;
            // Whether the last commit took more than one write: the node is busy.
            let mut busy = false;
            while let Some(job) = next.take().or_else(|| jobs.recv().ok()) {
                let results = match job {
                    Job::Write(write, writes) => {
                        let until = busy.then(|| Instant::now() + wait);
                        let group;
                        (group, next) = gather((write, writes), &jobs, most, until);
                        busy = group.len() > 1;
                        commit_group(&store, &group)
                    }
                    Job::Recover(write) => {
                        vec![(write, store.recover().map(|_| 0).map_err(WriteFailed::from))]
                    }
                    Job::Remember(key, value) => {
                        if let Err(e) = store.commit(Batch::new().meta(key, &value)) {
                            tracing::warn!(key, "a setting is not kept: {e}");
                        }
                        continue;
                    }
                };
                if results.into_iter().any(|r| done_tx.send(r).is_err()) {
                    break;
                }
            }
        })
        .expect("the store's writer thread starts");
    (jobs_tx, done, thread)
}

/// One group to commit: `first` and the writes after it, up to `most` — those already
/// waiting, or, given a deadline, those that come before it too. A job that is not a
/// write ends the group and is returned to run after it, so it keeps its place.
fn gather(
    first: (WriteId, Box<Writes>),
    jobs: &std::sync::mpsc::Receiver<Job>,
    most: usize,
    until: Option<Instant>,
) -> (Vec<(WriteId, Box<Writes>)>, Option<Job>) {
    let mut group = vec![first];
    while group.len() < most {
        let job = match until {
            None => jobs.try_recv().ok(),
            Some(t) => jobs
                .recv_timeout(t.saturating_duration_since(Instant::now()))
                .ok(),
        };
        match job {
            Some(Job::Write(write, writes)) => group.push((write, writes)),
            other => return (group, other),
        }
    }
    (group, None)
}

/// The most writes one commit takes: enough that an fsync serves a busy node's writes
/// of a moment (the core holds at most `MAX_QUEUED_WRITES` in all), few enough that a
/// group's transaction stays small.
const GROUP: usize = 128;

/// How long a busy writer waits for more writes before it commits (a commit delay, as
/// databases' group commit has): what a commit costs beyond its rows — the fsync, the
/// B-trees' upper pages, the pages freed — is paid once for all the writes that came in
/// the window, instead of once for every few. An idle writer (its last commit took one
/// write) never waits. Each write is still reported only once durable; the window adds
/// at most this to a write's wait under load (docs/PERFORMANCE.md, "A public node under
/// honest load").
const WINDOW: Duration = Duration::from_millis(5);

/// [`GROUP`], or `SEALED_WRITE_GROUP` (1 to [`GROUP`]) where a benchmark sets it: 1
/// commits each write alone, the baseline the load bench compares group commit with
/// (docs/PERFORMANCE.md). Durability is the same either way.
fn group_size() -> usize {
    std::env::var("SEALED_WRITE_GROUP")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(GROUP, |n| n.clamp(1, GROUP))
}

/// [`WINDOW`], or `SEALED_WRITE_WINDOW_MS` (0 to 50) where a benchmark sets it: 0 commits
/// whatever is waiting at once, as before the window.
fn window() -> Duration {
    std::env::var("SEALED_WRITE_WINDOW_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(WINDOW, |ms| Duration::from_millis(ms.min(50)))
}

/// One result per write of `group`, in order, after one transaction of them all. If that
/// transaction fails for a reason of one write's own (not the disk's: the store did not
/// latch a failure), each is tried alone, so no write fails for another's fault.
fn commit_group(
    store: &Store,
    group: &[(WriteId, Box<Writes>)],
) -> Vec<(WriteId, Result<usize, WriteFailed>)> {
    let batches: Vec<Batch<'_>> = group.iter().map(|(_, w)| batch_of(w)).collect();
    match store.commit_all(&batches) {
        Ok(news) => group
            .iter()
            .map(|(id, _)| *id)
            .zip(news.into_iter().map(Ok))
            .collect(),
        Err(e) if group.len() == 1 || store.failure().is_some() => {
            let why = WriteFailed::from(e);
            group
                .iter()
                .map(|(id, _)| (*id, Err(why.clone())))
                .collect()
        }
        Err(_) => group
            .iter()
            .zip(&batches)
            .map(|((id, _), b)| (*id, store.commit(b).map_err(WriteFailed::from)))
            .collect(),
    }
}

/// One transaction of everything in `w`.
pub(crate) fn commit(store: &Store, w: &Writes) -> Result<usize, StoreError> {
    store.commit(&batch_of(w))
}

/// The store's batch of everything in `w`.
fn batch_of(w: &Writes) -> Batch<'_> {
    let mut b = Batch::new();
    for g in &w.games {
        b.game(g);
    }
    for (id, s) in &w.statuses {
        b.status(*id, *s);
    }
    for (id, s) in &w.secrets {
        b.secrets(*id, s);
    }
    for (id, e) in &w.envelopes {
        b.envelope(*id, e);
    }
    for (id, index, bytes) in &w.messages {
        b.message(*id, *index, bytes);
    }
    for id in &w.forget_messages {
        b.forget_messages(*id);
    }
    for (id, before) in &w.forget_messages_before {
        b.forget_messages_before(*id, *before);
    }
    for (k, v) in &w.meta {
        b.meta(k, v);
    }
    for k in &w.forget {
        b.forget_meta(k);
    }
    if let Some(day) = w.quota_day {
        b.quota_day(day);
    }
    for (who, used) in &w.charges {
        b.charge(*who, *used);
    }
    for id in &w.drop_games {
        b.drop_game(*id);
    }
    for prefix in &w.forget_under {
        b.forget_under(prefix);
    }
    b
}

/// The store's failure as the core takes it: the disk's fault, in the store's words.
impl From<StoreError> for WriteFailed {
    fn from(e: StoreError) -> WriteFailed {
        WriteFailed(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::GameId;
    use crate::store::{GameRecord, GameStatus};

    fn record(n: u8) -> GameRecord {
        GameRecord {
            id: GameId::from([n; 32]),
            terms: vec![n],
            variant: "duel".into(),
            seat: Some(0),
            created: 1,
            status: GameStatus::Active,
        }
    }

    /// Against a real store file: a group in which one write cannot be applied (its game's
    /// record is unreadable) fails only that write; the others are durable and counted.
    #[test]
    fn a_write_that_fails_for_its_own_reason_fails_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        let store = Store::open(&path).unwrap();
        store.put_game(&record(1)).unwrap();
        store
            .put_raw_record(&GameId::from([1; 32]), &[0xff; 3])
            .unwrap();
        let envelope = |n: u8| Writes {
            envelopes: vec![(GameId::from([2; 32]), vec![n; 40])],
            ..Writes::default()
        };
        let bad = Writes {
            statuses: vec![(GameId::from([1; 32]), GameStatus::Finished)],
            ..Writes::default()
        };
        let group = vec![
            (WriteId(7), Box::new(envelope(1))),
            (WriteId(8), Box::new(bad)),
            (
                WriteId(9),
                Box::new(Writes {
                    games: vec![record(3)],
                    ..envelope(2)
                }),
            ),
            (WriteId(10), Box::new(envelope(1))),
        ];
        let results = commit_group(&store, &group);
        let ids: Vec<WriteId> = results.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [7, 8, 9, 10].map(WriteId));
        assert_eq!(results[0].1, Ok(1));
        assert!(results[1].1.is_err(), "{:?}", results[1].1);
        assert_eq!(results[2].1, Ok(1));
        assert_eq!(results[3].1, Ok(0), "the first write's envelope, again");
        assert!(store.failure().is_none());
        assert_eq!(store.envelope_count(&GameId::from([2; 32])).unwrap(), 2);
        assert!(store.game(&GameId::from([3; 32])).unwrap().is_some());

        // And a group that can be applied is one transaction with every count.
        let group = vec![
            (WriteId(11), Box::new(envelope(3))),
            (WriteId(12), Box::new(envelope(3))),
        ];
        let results = commit_group(&store, &group);
        assert_eq!(results, vec![(WriteId(11), Ok(1)), (WriteId(12), Ok(0))]);
    }

    fn write(n: u64) -> Job {
        Job::Write(WriteId(n), Box::default())
    }

    fn ids(group: &[(WriteId, Box<Writes>)]) -> Vec<u64> {
        group.iter().map(|(id, _)| id.0).collect()
    }

    /// An idle writer (no deadline) takes what is already waiting and does not wait for
    /// more; a job that is not a write ends the group and keeps its place after it.
    #[test]
    fn an_idle_writer_takes_what_waits_and_nothing_more() {
        let (tx, jobs) = std::sync::mpsc::channel();
        let first = (WriteId(1), Box::default());
        let (group, next) = gather(first, &jobs, 8, None);
        assert_eq!((ids(&group), next.is_none()), (vec![1], true));

        for job in [write(2), write(3), Job::Recover(WriteId(4)), write(5)] {
            tx.send(job).unwrap();
        }
        let (group, next) = gather((WriteId(1), Box::default()), &jobs, 8, None);
        assert_eq!(ids(&group), [1, 2, 3]);
        assert!(matches!(next, Some(Job::Recover(WriteId(4)))));
        // At most `most` a group; the rest wait for the next.
        let (group, next) = gather((WriteId(6), Box::default()), &jobs, 1, None);
        assert_eq!((ids(&group), next.is_none()), (vec![6], true));
        assert!(matches!(jobs.try_recv(), Ok(Job::Write(WriteId(5), _))));
    }

    /// A busy writer (a deadline) also takes the writes that come while it waits, until
    /// its group is full; and it stops at the deadline with what it has.
    #[test]
    fn a_busy_writer_takes_the_writes_that_come_in_its_window() {
        let (tx, jobs) = std::sync::mpsc::channel();
        let later = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            tx.send(write(2)).unwrap();
            std::thread::sleep(Duration::from_millis(20));
            tx.send(write(3)).unwrap();
            tx
        });
        // A deadline far away: the group ends because it is full, not by the clock.
        let far = Some(Instant::now() + Duration::from_secs(600));
        let (group, next) = gather((WriteId(1), Box::default()), &jobs, 3, far);
        assert_eq!((ids(&group), next.is_none()), (vec![1, 2, 3], true));
        let tx = later.join().unwrap();
        // A deadline already past: what waits, and nothing more.
        tx.send(write(5)).unwrap();
        let (group, _) = gather((WriteId(4), Box::default()), &jobs, 3, Some(Instant::now()));
        assert_eq!(ids(&group), [4, 5]);
        // The sender gone, a busy writer does not wait out its window either.
        drop(tx);
        let (group, next) = gather((WriteId(6), Box::default()), &jobs, 3, far);
        assert_eq!((ids(&group), next.is_none()), (vec![6], true));
    }
}
