//! The store's writer: its own thread, so an fsync never stalls the network. It takes
//! the core's writes in order, commits them, and reports back; a reopen after a failure
//! is asked for the same way, so it is ordered with the writes.
//!
//! Writes that are already waiting when the thread comes back from a commit go in the
//! next one together ([`Store::commit_all`], at most [`GROUP`]): the fsync, not the
//! work, is what a write costs, so under load one fsync serves many games (measured in
//! docs/PERFORMANCE.md, "A public node under honest load"). No write waits for a group
//! to fill: an idle writer commits the first write at once, alone. Each write is still
//! reported only once it is durable, and in order.

use std::sync::Arc;

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
    let most = group_size();
    let (done_tx, done) = mpsc::unbounded_channel();
    let thread = std::thread::Builder::new()
        .name("sealed-store".into())
        .spawn(move || {
            let mut next = None;
            while let Some(job) = next.take().or_else(|| jobs.recv().ok()) {
                let results = match job {
                    Job::Write(write, writes) => {
                        let mut group = vec![(write, writes)];
                        while group.len() < most {
                            match jobs.try_recv() {
                                Ok(Job::Write(write, writes)) => group.push((write, writes)),
                                // A reopen or a setting keeps its place after the group.
                                Ok(other) => {
                                    next = Some(other);
                                    break;
                                }
                                Err(_) => break,
                            }
                        }
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

/// The most writes one commit takes: enough that an fsync serves a busy node's writes
/// of a moment (the core holds at most `MAX_QUEUED_WRITES` in all), few enough that a
/// group's transaction stays small.
const GROUP: usize = 64;

/// [`GROUP`], or `SEALED_WRITE_GROUP` (1 to 64) where a benchmark sets it: 1 commits each
/// write alone, the baseline the load bench compares group commit with
/// (docs/PERFORMANCE.md). Durability is the same either way.
fn group_size() -> usize {
    std::env::var("SEALED_WRITE_GROUP")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(GROUP, |n| n.clamp(1, GROUP))
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
}
