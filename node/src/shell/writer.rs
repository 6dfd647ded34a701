//! The store's writer: its own thread, so an fsync never stalls the network. It takes
//! the core's writes in order, commits each in one transaction, and reports back; a
//! reopen after a failure is asked for the same way, so it is ordered with the writes.

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
    let (done_tx, done) = mpsc::unbounded_channel();
    let thread = std::thread::Builder::new()
        .name("sealed-store".into())
        .spawn(move || {
            while let Ok(job) = jobs.recv() {
                let (write, result) = match job {
                    Job::Write(write, writes) => {
                        (write, commit(&store, &writes).map_err(WriteFailed::from))
                    }
                    Job::Recover(write) => {
                        (write, store.recover().map(|_| 0).map_err(WriteFailed::from))
                    }
                    Job::Remember(key, value) => {
                        if let Err(e) = store.commit(Batch::new().meta(key, &value)) {
                            tracing::warn!(key, "a setting is not kept: {e}");
                        }
                        continue;
                    }
                };
                if done_tx.send((write, result)).is_err() {
                    break;
                }
            }
        })
        .expect("the store's writer thread starts");
    (jobs_tx, done, thread)
}

/// One transaction of everything in `w`.
pub(crate) fn commit(store: &Store, w: &Writes) -> Result<usize, StoreError> {
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
    store.commit(&b)
}

/// The store's failure as the core takes it: the disk's fault, in the store's words.
impl From<StoreError> for WriteFailed {
    fn from(e: StoreError) -> WriteFailed {
        WriteFailed(e.to_string())
    }
}
