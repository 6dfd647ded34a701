//! The node's durable store: games, their secrets and envelopes, and node settings, in one
//! redb file.
//!
//! # Durability
//!
//! Every method that writes runs one redb write transaction and commits it with redb's
//! default durability, [`redb::Durability::Immediate`]: the commit returns only after the
//! new data and the root that points at it are fsync'd. So once a write method returns
//! `Ok`, what it wrote survives `kill -9` and power loss, and a method that returns `Err`
//! wrote nothing (a transaction not committed is rolled back). The node leans on exactly
//! this (spec/PROTOCOL.md §11.2): an envelope is stored before it is sent, served or
//! acknowledged, and a secret is stored before the commitment that binds it leaves the
//! node, so a crash can never leave a player unable to reveal or make it sign twice. No
//! method here ever commits with weaker durability: a later immediate commit would make an
//! earlier non-durable one durable out of order, and the guarantee would have to be
//! reasoned about per call.
//!
//! The price is one fsync per write call; put what belongs together (a game's record,
//! its secrets and the envelopes they bind) in one [`Batch`], and batches that are ready
//! together in one [`Store::commit_all`]. Writes that change nothing (duplicate envelopes
//! only) skip the commit and cost no fsync, so a peer resending what we hold is cheap.
//!
//! # Privacy
//!
//! The file holds secrets, so [`Store::open`] makes it owner-only (0600) and its directory
//! owner-only (0700) on Unix. Give the store a directory of its own: the directory it is
//! put in is tightened. Replacing or deleting a secret does not erase it from the disk at
//! once (redb reuses freed pages later), so the whole file must be treated as secret.
//!
//! # Failure and recovery
//!
//! redb latches an I/O failure: once a write fails (a full disk, an I/O error), the open
//! database refuses every later read and write. The store then answers
//! [`StoreError::Failed`] until [`Store::recover`] reopens the file, which repairs it from
//! its last commit; the node calls it on every repair round, so games stopped by a failed
//! write go on once the disk works again. Nothing of a failed transaction is kept.
//!
//! # Layout
//!
//! The tables and their versions are in `schema.rs`; a file of an older layout is
//! migrated when opened, in one transaction, and a newer one is refused.
//!
//! # Concurrency
//!
//! [`Store`] is `Send + Sync`; reads run in parallel with each other and with a write,
//! writes are serialised by redb. One process at a time may open a file: a second open,
//! in this process or another, fails with [`StoreError::AlreadyOpen`].

mod apply;
mod backend;
mod batch;
mod durable;
mod error;
mod fs;
mod quota;
mod record;
mod schema;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError, RwLock};

use redb::{ReadableDatabase, ReadableTable, WriteTransaction};
use sha2::{Digest, Sha256};

pub use batch::Batch;
pub use error::StoreError;
pub use quota::Usage;
pub use record::{GameRecord, GameStatus};
use schema::{CHAINS, ENVELOPE_COUNTS, ENVELOPE_HASHES, ENVELOPES, GAMES, MESSAGES, META, SECRETS};
pub use sealed_core::memory::MemoryStore;

#[cfg_attr(not(feature = "failpoints"), allow(unused_imports))]
use crate::faults;
use sealed_core::GameId;

/// A game id in the store's index with its record, or why the record does not decode.
pub type GameRow = (GameId, Result<GameRecord, StoreError>);

/// The node's durable store; see the [module documentation](self) for its guarantees.
pub struct Store {
    /// `None` only between dropping a failed database and reopening it.
    db: RwLock<Option<redb::Database>>,
    /// Why the open database failed, until [`Store::recover`] reopens it.
    failed: Mutex<Option<String>>,
    path: PathBuf,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens the store at `path`, creating the file (and its directory) if absent, and
    /// migrating an older layout.
    ///
    /// On Unix the file is made mode 0600 and its parent directory 0700, also when they
    /// already existed with wider modes, because the file holds secrets. After a crash
    /// the open repairs redb's allocator state, which reads the whole file once.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let db = open_db(path)?;
        Ok(Store {
            db: RwLock::new(Some(db)),
            failed: Mutex::new(None),
            path: path.to_path_buf(),
        })
    }

    /// The file this store was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why the store is failed (a write failed and it was not reopened since), if it is.
    pub fn failure(&self) -> Option<String> {
        self.failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Reopens the file after a failure: `Ok(true)` when it was failed and works again,
    /// `Ok(false)` when nothing had failed, an error (and still failed) when the reopen
    /// fails too.
    pub fn recover(&self) -> Result<bool, StoreError> {
        if self.failure().is_none() {
            return Ok(false);
        }
        let mut db = self.db.write().unwrap_or_else(PoisonError::into_inner);
        // redb holds the file's lock until the failed database is dropped.
        drop(db.take());
        let fresh = open_db(&self.path)?;
        *db = Some(fresh);
        *self.failed.lock().unwrap_or_else(PoisonError::into_inner) = None;
        Ok(true)
    }

    /// Runs `f` on the open database, noting a storage failure.
    fn with_db<T>(
        &self,
        f: impl FnOnce(&redb::Database) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if let Some(why) = self.failure() {
            return Err(StoreError::Failed(why));
        }
        let guard = self.db.read().unwrap_or_else(PoisonError::into_inner);
        let db = guard
            .as_ref()
            .ok_or_else(|| StoreError::Failed("not reopened".into()))?;
        let r = f(db);
        if let Err(e) = &r
            && e.is_storage()
        {
            let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
            failed.get_or_insert_with(|| e.to_string());
        }
        r
    }

    /// One write transaction: `f` builds it and says whether it changed anything; only
    /// then is it committed (durable when this returns `Ok`), else aborted.
    fn write<T>(
        &self,
        f: impl FnOnce(&WriteTransaction) -> Result<(T, bool), StoreError>,
    ) -> Result<T, StoreError> {
        self.with_db(|db| {
            let tx = db.begin_write()?;
            let (out, changed) = f(&tx)?;
            if changed {
                fail::fail_point!(faults::COMMIT_ERROR, |_| Err(StoreError::Storage(
                    redb::StorageError::Io(backend::full())
                )));
                fail::fail_point!(faults::CRASH_BEFORE_COMMIT, |_| faults::crash());
                tx.commit()?;
                fail::fail_point!(faults::CRASH_AFTER_COMMIT, |_| faults::crash());
            } else {
                // Nothing new: what is there was already durable, and no fsync is paid.
                tx.abort()?;
            }
            Ok(out)
        })
    }

    /// Commits a batch; returns how many of its envelopes were new.
    pub fn commit(&self, batch: &Batch<'_>) -> Result<usize, StoreError> {
        let news = self.commit_all(std::slice::from_ref(batch))?;
        Ok(news.first().copied().unwrap_or(0))
    }

    /// Commits batches in their order in one transaction, so one fsync makes them all
    /// durable (a group commit: the writer's way to keep up when many games write at
    /// once, docs/PERFORMANCE.md). Each batch sees those before it; returns, for each,
    /// how many of its envelopes were new. All or none: on an error nothing is written.
    pub fn commit_all(&self, batches: &[Batch<'_>]) -> Result<Vec<usize>, StoreError> {
        if batches.iter().all(Batch::is_empty) {
            return Ok(vec![0; batches.len()]);
        }
        self.write(|tx| {
            let mut news = Vec::with_capacity(batches.len());
            let mut changed = false;
            for batch in batches {
                let (new, c) = apply::apply(tx, batch)?;
                news.push(new);
                changed |= c;
            }
            Ok((news, changed))
        })
    }

    /// Writes `bytes` as game `id`'s record as they are, not encoded: for tests of what
    /// the store and the node do with a record they cannot read (a damaged file). The
    /// node never calls it.
    #[doc(hidden)]
    pub fn put_raw_record(&self, id: &GameId, bytes: &[u8]) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.open_table(GAMES)?.insert(id.bytes(), bytes)?;
            Ok(((), true))
        })
    }

    /// Inserts or replaces a game record; durable when it returns.
    pub fn put_game(&self, g: &GameRecord) -> Result<(), StoreError> {
        self.commit(Batch::new().game(g)).map(drop)
    }

    /// The record of game `id`, if stored.
    pub fn game(&self, id: &GameId) -> Result<Option<GameRecord>, StoreError> {
        let id = id.bytes();
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(GAMES)?;
            let Some(v) = table.get(id)? else {
                return Ok(None);
            };
            record::decode(id, v.value()).map(Some)
        })
    }

    /// Whether a game id is in the store's index, readable or not: the one answer to
    /// "is this game known".
    pub fn knows(&self, id: &GameId) -> Result<bool, StoreError> {
        let id = id.bytes();
        self.with_db(|db| {
            let tx = db.begin_read()?;
            Ok(tx.open_table(GAMES)?.get(id)?.is_some())
        })
    }

    /// Every game record, sorted by `created`, then by id; fails on the first record
    /// that does not decode.
    pub fn games(&self) -> Result<Vec<GameRecord>, StoreError> {
        let mut games = self
            .game_rows()?
            .into_iter()
            .map(|(_, g)| g)
            .collect::<Result<Vec<_>, _>>()?;
        games.sort_by_key(|g| (g.created, g.id));
        Ok(games)
    }

    /// Every game id in the store with its record or why the record does not decode, in
    /// id order: a node sets an unreadable game aside and goes on with the others.
    pub fn game_rows(&self) -> Result<Vec<GameRow>, StoreError> {
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(GAMES)?;
            let mut rows = Vec::new();
            for row in table.iter()? {
                let (k, v) = row?;
                let id = k.value();
                rows.push((GameId::from(id), record::decode(&id, v.value())));
            }
            Ok(rows)
        })
    }

    /// Changes the status of a stored game; durable when it returns.
    pub fn set_status(&self, id: &GameId, s: GameStatus) -> Result<(), StoreError> {
        if !self.knows(id)? {
            return Err(StoreError::NoSuchGame(*id));
        }
        self.commit(Batch::new().status(*id, s)).map(drop)
    }

    /// Replaces the owner's secrets for game `id`; durable when it returns, so the
    /// commitments they open may be sent after it.
    pub fn put_secrets(&self, id: &GameId, bytes: &[u8]) -> Result<(), StoreError> {
        self.commit(Batch::new().secrets(*id, bytes)).map(drop)
    }

    /// The owner's secrets for game `id`, if stored.
    pub fn secrets(&self, id: &GameId) -> Result<Option<Vec<u8>>, StoreError> {
        let id = id.bytes();
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(SECRETS)?;
            Ok(table.get(id)?.map(|v| v.value().to_vec()))
        })
    }

    /// Adds envelopes (their exact bytes) of a game in ONE durable transaction; returns how
    /// many were new.
    ///
    /// An envelope is known by (game id, SHA-256 of its bytes), so one already stored, or
    /// repeated within `envs`, is skipped; new ones take the next positions of the game in
    /// the order given, so [`Store::envelopes`] returns them in the order first stored.
    /// When nothing is new nothing is committed: what is there was already durable.
    pub fn put_envelopes(&self, id: &GameId, envs: &[&[u8]]) -> Result<usize, StoreError> {
        let mut batch = Batch::new();
        for e in envs {
            batch.envelope(*id, e);
        }
        self.commit(&batch)
    }

    /// Every envelope of game `id`, in the order first stored.
    pub fn envelopes(&self, id: &GameId) -> Result<Vec<Vec<u8>>, StoreError> {
        self.envelopes_from(id, 0)
    }

    /// The envelopes of game `id` from position `start` on (0 is the first stored), in
    /// order: what a peer that already holds the first `start` still lacks.
    pub fn envelopes_from(&self, id: &GameId, start: u64) -> Result<Vec<Vec<u8>>, StoreError> {
        let id = id.bytes();
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(ENVELOPES)?;
            let mut out = Vec::new();
            for row in table.range((*id, start)..=(*id, u64::MAX))? {
                let (_, v) = row?;
                out.push(v.value().to_vec());
            }
            Ok(out)
        })
    }

    /// The envelopes of game `id` chain by chain, in chain and seq order: of each chain
    /// `(log, seat)` it holds, those from the seq `from(log, seat)` gives on, and none
    /// of a chain for which it gives `None`. Two envelopes a cheat signed at one seq
    /// both come, in the order stored. This is what a node serves a peer (§16.4).
    pub fn chain_envelopes(
        &self,
        id: &GameId,
        mut from: impl FnMut(u32, u8) -> Option<u64>,
    ) -> Result<Vec<Vec<u8>>, StoreError> {
        let id = id.bytes();
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let chains = tx.open_table(CHAINS)?;
            let envelopes = tx.open_table(ENVELOPES)?;
            let mut out = Vec::new();
            // Skip from chain to chain: one seek per chain, not a walk of the game.
            let mut next = Some((0u32, 0u8));
            while let Some((log, seat)) = next {
                let start = (*id, log, seat, 0, 0);
                let end = (*id, u32::MAX, u8::MAX, u64::MAX, u64::MAX);
                let Some(first) = chains.range(start..=end)?.next() else {
                    break;
                };
                let (_, log, seat, _, _) = first?.0.value();
                next = match seat.checked_add(1) {
                    Some(s) => Some((log, s)),
                    None => log.checked_add(1).map(|l| (l, 0)),
                };
                let Some(seq) = from(log, seat) else {
                    continue;
                };
                let range = chains
                    .range((*id, log, seat, seq, 0)..=(*id, log, seat, u64::MAX, u64::MAX))?;
                for row in range {
                    let (.., pos) = row?.0.value();
                    if let Some(v) = envelopes.get((*id, pos))? {
                        out.push(v.value().to_vec());
                    }
                }
            }
            Ok(out)
        })
    }

    /// How many envelopes game `id` has.
    pub fn envelope_count(&self, id: &GameId) -> Result<u64, StoreError> {
        let id = id.bytes();
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(ENVELOPE_COUNTS)?;
            Ok(table.get(id)?.map_or(0, |v| v.value()))
        })
    }

    /// Whether game `id` holds an envelope with exactly these bytes.
    pub fn has_envelope(&self, id: &GameId, env: &[u8]) -> Result<bool, StoreError> {
        let id = id.bytes();
        let h: [u8; 32] = Sha256::digest(env).into();
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(ENVELOPE_HASHES)?;
            Ok(table.get((*id, h))?.is_some())
        })
    }

    /// The messages of game `id`'s computations kept here, in order of position.
    pub fn messages(&self, id: &GameId) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let id = id.bytes();
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(MESSAGES)?;
            let mut out = Vec::new();
            for row in table.range((*id, 0)..=(*id, u64::MAX))? {
                let (k, v) = row?;
                out.push((k.value().1, v.value().to_vec()));
            }
            Ok(out)
        })
    }

    /// Removes game `id`: its record, secrets and envelopes, in one durable transaction.
    /// Removing a game that is not stored is not an error.
    pub fn delete_game(&self, id: &GameId) -> Result<(), StoreError> {
        self.write(|tx| {
            apply::remove_game(tx, id)?;
            // What the game used of a quota stays used: a deletion is not a refund.
            Ok(((), true))
        })
    }

    /// Sets a small node setting; durable when it returns.
    pub fn put_meta(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.commit(Batch::new().meta(key, value)).map(drop)
    }

    /// What every proposer's games held here for him use (`quota.rs`).
    pub fn quotas(&self) -> Result<Vec<(crate::core::PeerKey, Usage)>, StoreError> {
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let rows = quota::read(&tx)?;
            Ok(rows.into_iter().map(|(k, u)| (k.into(), u)).collect())
        })
    }

    /// A node setting, if set.
    pub fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(META)?;
            Ok(table.get(key)?.map(|v| v.value().to_vec()))
        })
    }

    /// Every node setting whose key starts with `prefix`, in key order.
    pub fn metas(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(META)?;
            let mut out = vec![];
            for row in table.range(prefix..)? {
                let (k, v) = row?;
                if !k.value().starts_with(prefix) {
                    break;
                }
                out.push((k.value().to_owned(), v.value().to_vec()));
            }
            Ok(out)
        })
    }
}

/// redb's page cache: its default is 1 GiB, which a node's memory would grow to under a
/// stream of writes (a mailbox filled to its strangers' quotas reached 151 MiB and
/// rising); the file's pages stay in the operating system's cache beyond it, so a
/// smaller cache costs a read from that cache, not from the disk (a part of the memory
/// plan, `memory.rs`).
pub const CACHE_BYTES: usize = 16 << 20;

/// Opens (or creates) the file with the fault-pointed backend and brings its layout up
/// to date.
fn open_db(path: &Path) -> Result<redb::Database, StoreError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::private_dir(dir)?;
    let file = fs::private_file(path)?;
    // The new file's name must be durable too, or a power cut could lose the whole
    // store after commits that reported success.
    fs::sync_dir(dir)?;
    let backend = backend::Backend::new(file).map_err(|e| open_error(e, path))?;
    let db = redb::Builder::new()
        .set_cache_size(CACHE_BYTES)
        .create_with_backend(backend)
        .map_err(|e| open_error(e, path))?;
    let tx = db.begin_write()?;
    schema::init(&tx)?;
    tx.commit()?;
    Ok(db)
}

fn open_error(e: redb::DatabaseError, path: &Path) -> StoreError {
    match e {
        redb::DatabaseError::DatabaseAlreadyOpen => StoreError::AlreadyOpen(path.to_path_buf()),
        e => StoreError::Database(e),
    }
}
