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
//! this (DESIGN.md §4): an envelope is stored before it is sent or acknowledged, and a
//! secret is stored before the commitment that binds it leaves the node, so a crash can
//! never leave a player unable to reveal. No method here ever commits with weaker
//! durability: a later immediate commit would make an earlier non-durable one durable out
//! of order, and the guarantee would have to be reasoned about per call.
//!
//! The price is one fsync per write call; batch envelopes that arrive together into one
//! [`Store::put_envelopes`] call. Writes that change nothing (duplicate envelopes only)
//! skip the commit and cost no fsync, so a peer resending what we hold is cheap.
//!
//! # Privacy
//!
//! The file holds secrets, so [`Store::open`] makes it owner-only (0600) and its directory
//! owner-only (0700) on Unix. Give the store a directory of its own: the directory it is
//! put in is tightened. Replacing or deleting a secret does not erase it from the disk at
//! once (redb reuses freed pages later), so the whole file must be treated as secret.
//!
//! # Concurrency
//!
//! [`Store`] is `Send + Sync`; reads run in parallel with each other and with a write,
//! writes are serialised by redb. One process at a time may open a file: a second open,
//! in this process or another, fails with [`StoreError::AlreadyOpen`].

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use redb::{ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The layout of the tables below; a file written with another layout is refused rather
/// than misread.
const SCHEMA_VERSION: u32 = 1;

/// The one row of [`SCHEMA`].
const SCHEMA_KEY: &str = "schema";

const SCHEMA: TableDefinition<&str, u32> = TableDefinition::new("schema");
/// Game id → postcard [`GameRecord`].
const GAMES: TableDefinition<[u8; 32], &[u8]> = TableDefinition::new("games");
/// Game id → the owner's secret bytes (opaque here).
const SECRETS: TableDefinition<[u8; 32], &[u8]> = TableDefinition::new("secrets");
/// (game id, position in first-stored order) → envelope bytes.
const ENVELOPES: TableDefinition<([u8; 32], u64), &[u8]> = TableDefinition::new("envelopes");
/// (game id, SHA-256 of the envelope bytes) → its position in [`ENVELOPES`]; makes a
/// duplicate a lookup instead of a scan.
const ENVELOPE_HASHES: TableDefinition<([u8; 32], [u8; 32]), u64> =
    TableDefinition::new("envelope_hashes");
/// Game id → how many envelopes it has, which is also the next position.
const ENVELOPE_COUNTS: TableDefinition<[u8; 32], u64> = TableDefinition::new("envelope_counts");
/// Small node settings.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// What the node knows about one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game id.
    pub id: [u8; 32],
    /// The signed proposal's bytes.
    pub terms: Vec<u8>,
    /// The variant's name.
    pub variant: String,
    /// Our seat; `None` when this node only relays the game (mailbox).
    pub seat: Option<u8>,
    /// When this node first stored the game, in ms since the Unix epoch.
    pub created: u64,
    /// Where the game stands.
    pub status: GameStatus,
}

/// Where a game stands, as far as this node is concerned.
///
/// Stored by variant position (postcard): add new variants at the end only, or records
/// written by an older node would be misread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameStatus {
    /// We proposed it; the opponent has not accepted yet.
    Proposed,
    /// We were invited; we have not accepted yet.
    Invited,
    /// Being played.
    Active,
    /// Over; kept for verification and export.
    Finished,
    /// One side declined the proposal.
    Declined,
    /// We hold it for others as a mailbox; we have no seat.
    Relayed,
}

/// Why a store operation failed.
///
/// Each redb error type keeps its own variant so that a caller can tell an I/O failure
/// (retry, or stop the node) from a corrupt file (stop, and tell the user).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Creating, opening or setting permissions on the file or its directory failed.
    #[error("store {path}: {source}")]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// Another handle, in this process or another, has the file open.
    #[error("store {0} is already open (by this process or another node)")]
    AlreadyOpen(PathBuf),
    /// redb could not open the file (not a redb file, unreadable, needs an upgrade).
    #[error("opening the store: {0}")]
    Database(#[source] redb::DatabaseError),
    /// redb could not start a transaction.
    #[error("starting a store transaction: {0}")]
    Transaction(#[from] redb::TransactionError),
    /// redb could not open a table.
    #[error("opening a store table: {0}")]
    Table(#[from] redb::TableError),
    /// redb failed reading or writing (I/O error or corruption).
    #[error("store storage: {0}")]
    Storage(#[from] redb::StorageError),
    /// redb could not commit; nothing of the transaction was stored.
    #[error("committing to the store: {0}")]
    Commit(#[from] redb::CommitError),
    /// A record does not decode, or does not match its key.
    #[error("corrupt record in store table {table}: {reason}")]
    Corrupt {
        /// The table holding the record.
        table: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The file was written with a table layout this node does not know.
    #[error("store layout version {found}; this node knows version {SCHEMA_VERSION}")]
    Schema {
        /// The version found in the file.
        found: u32,
    },
    /// The game is not in the store.
    #[error("no game {} in the store", Hex(.0))]
    NoSuchGame([u8; 32]),
}

/// Lower-case hex for error messages, without a dependency for it.
struct Hex<'a>(&'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// The node's durable store; see the [module documentation](self) for its guarantees.
pub struct Store {
    db: redb::Database,
    path: PathBuf,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens the store at `path`, creating the file (and its directory) if absent.
    ///
    /// On Unix the file is made mode 0600 and its parent directory 0700, also when they
    /// already existed with wider modes, because the file holds secrets. After a crash
    /// the open repairs redb's allocator state, which reads the whole file once.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        private_dir(dir)?;
        let file = private_file(path)?;
        // The new file's name must be durable too, or a power cut could lose the whole
        // store after commits that reported success.
        sync_dir(dir)?;
        let backend = redb::backends::FileBackend::new(file).map_err(|e| open_error(e, path))?;
        let db = redb::Builder::new()
            .create_with_backend(backend)
            .map_err(|e| open_error(e, path))?;
        let store = Store {
            db,
            path: path.to_path_buf(),
        };
        store.init()?;
        Ok(store)
    }

    /// The file this store was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates every table, so that reads never meet a missing one, and checks the layout
    /// version.
    fn init(&self) -> Result<(), StoreError> {
        let tx = self.db.begin_write()?;
        {
            let mut schema = tx.open_table(SCHEMA)?;
            let found = schema.get(SCHEMA_KEY)?.map(|v| v.value());
            match found {
                Some(SCHEMA_VERSION) => {}
                Some(found) => return Err(StoreError::Schema { found }),
                None => {
                    schema.insert(SCHEMA_KEY, SCHEMA_VERSION)?;
                }
            }
            tx.open_table(GAMES)?;
            tx.open_table(SECRETS)?;
            tx.open_table(ENVELOPES)?;
            tx.open_table(ENVELOPE_HASHES)?;
            tx.open_table(ENVELOPE_COUNTS)?;
            tx.open_table(META)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Inserts or replaces a game record; durable when it returns.
    pub fn put_game(&self, g: &GameRecord) -> Result<(), StoreError> {
        let bytes = postcard::to_allocvec(g).map_err(|e| StoreError::Corrupt {
            table: "games",
            reason: format!("cannot encode: {e}"),
        })?;
        let tx = self.db.begin_write()?;
        tx.open_table(GAMES)?.insert(g.id, bytes.as_slice())?;
        tx.commit()?;
        Ok(())
    }

    /// The record of game `id`, if stored.
    pub fn game(&self, id: &[u8; 32]) -> Result<Option<GameRecord>, StoreError> {
        let tx = self.db.begin_read()?;
        let table = tx.open_table(GAMES)?;
        let Some(v) = table.get(id)? else {
            return Ok(None);
        };
        decode_game(id, v.value()).map(Some)
    }

    /// Every game record, sorted by `created`, then by id.
    pub fn games(&self) -> Result<Vec<GameRecord>, StoreError> {
        let tx = self.db.begin_read()?;
        let table = tx.open_table(GAMES)?;
        let mut games = Vec::new();
        for row in table.iter()? {
            let (k, v) = row?;
            games.push(decode_game(&k.value(), v.value())?);
        }
        games.sort_by_key(|g| (g.created, g.id));
        Ok(games)
    }

    /// Changes the status of a stored game; durable when it returns.
    pub fn set_status(&self, id: &[u8; 32], s: GameStatus) -> Result<(), StoreError> {
        let tx = self.db.begin_write()?;
        {
            let mut table = tx.open_table(GAMES)?;
            let mut g = match table.get(id)? {
                Some(v) => decode_game(id, v.value())?,
                None => return Err(StoreError::NoSuchGame(*id)),
            };
            if g.status == s {
                // Already so, and already durable: no commit, no fsync.
                return Ok(());
            }
            g.status = s;
            let bytes = postcard::to_allocvec(&g).map_err(|e| StoreError::Corrupt {
                table: "games",
                reason: format!("cannot encode: {e}"),
            })?;
            table.insert(id, bytes.as_slice())?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Replaces the owner's secrets for game `id`; durable when it returns, so the
    /// commitments they open may be sent after it.
    pub fn put_secrets(&self, id: &[u8; 32], bytes: &[u8]) -> Result<(), StoreError> {
        let tx = self.db.begin_write()?;
        tx.open_table(SECRETS)?.insert(id, bytes)?;
        tx.commit()?;
        Ok(())
    }

    /// The owner's secrets for game `id`, if stored.
    pub fn secrets(&self, id: &[u8; 32]) -> Result<Option<Vec<u8>>, StoreError> {
        let tx = self.db.begin_read()?;
        let table = tx.open_table(SECRETS)?;
        Ok(table.get(id)?.map(|v| v.value().to_vec()))
    }

    /// Adds envelopes (their exact bytes) of a game in ONE durable transaction; returns how
    /// many were new.
    ///
    /// An envelope is known by (game id, SHA-256 of its bytes), so one already stored, or
    /// repeated within `envs`, is skipped; new ones take the next positions of the game in
    /// the order given, so [`Store::envelopes`] returns them in the order first stored.
    /// When nothing is new nothing is committed: what is there was already durable.
    pub fn put_envelopes(&self, id: &[u8; 32], envs: &[&[u8]]) -> Result<usize, StoreError> {
        let tx = self.db.begin_write()?;
        let mut new = 0;
        {
            let mut envelopes = tx.open_table(ENVELOPES)?;
            let mut hashes = tx.open_table(ENVELOPE_HASHES)?;
            let mut counts = tx.open_table(ENVELOPE_COUNTS)?;
            let mut next = counts.get(id)?.map_or(0, |v| v.value());
            for env in envs {
                let h: [u8; 32] = Sha256::digest(env).into();
                if hashes.get((*id, h))?.is_some() {
                    continue;
                }
                hashes.insert((*id, h), next)?;
                envelopes.insert((*id, next), *env)?;
                next += 1;
                new += 1;
            }
            if new > 0 {
                counts.insert(id, next)?;
            }
        }
        if new == 0 {
            tx.abort()?;
        } else {
            tx.commit()?;
        }
        Ok(new)
    }

    /// Every envelope of game `id`, in the order first stored.
    pub fn envelopes(&self, id: &[u8; 32]) -> Result<Vec<Vec<u8>>, StoreError> {
        self.envelopes_from(id, 0)
    }

    /// The envelopes of game `id` from position `start` on (0 is the first stored), in
    /// order: what a peer that already holds the first `start` still lacks.
    pub fn envelopes_from(&self, id: &[u8; 32], start: u64) -> Result<Vec<Vec<u8>>, StoreError> {
        let tx = self.db.begin_read()?;
        let table = tx.open_table(ENVELOPES)?;
        let mut out = Vec::new();
        for row in table.range((*id, start)..=(*id, u64::MAX))? {
            let (_, v) = row?;
            out.push(v.value().to_vec());
        }
        Ok(out)
    }

    /// How many envelopes game `id` has.
    pub fn envelope_count(&self, id: &[u8; 32]) -> Result<u64, StoreError> {
        let tx = self.db.begin_read()?;
        let table = tx.open_table(ENVELOPE_COUNTS)?;
        Ok(table.get(id)?.map_or(0, |v| v.value()))
    }

    /// Whether game `id` holds an envelope with exactly these bytes.
    pub fn has_envelope(&self, id: &[u8; 32], env: &[u8]) -> Result<bool, StoreError> {
        let h: [u8; 32] = Sha256::digest(env).into();
        let tx = self.db.begin_read()?;
        let table = tx.open_table(ENVELOPE_HASHES)?;
        Ok(table.get((*id, h))?.is_some())
    }

    /// Removes game `id`: its record, secrets and envelopes, in one durable transaction.
    /// Removing a game that is not stored is not an error.
    pub fn delete_game(&self, id: &[u8; 32]) -> Result<(), StoreError> {
        let tx = self.db.begin_write()?;
        {
            tx.open_table(GAMES)?.remove(id)?;
            tx.open_table(SECRETS)?.remove(id)?;
            tx.open_table(ENVELOPE_COUNTS)?.remove(id)?;
            let mut envelopes = tx.open_table(ENVELOPES)?;
            let keys = envelopes
                .range((*id, 0)..=(*id, u64::MAX))?
                .map(|row| row.map(|(k, _)| k.value()))
                .collect::<Result<Vec<_>, _>>()?;
            for k in keys {
                envelopes.remove(k)?;
            }
            let mut hashes = tx.open_table(ENVELOPE_HASHES)?;
            let keys = hashes
                .range((*id, [0u8; 32])..=(*id, [0xff; 32]))?
                .map(|row| row.map(|(k, _)| k.value()))
                .collect::<Result<Vec<_>, _>>()?;
            for k in keys {
                hashes.remove(k)?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Sets a small node setting; durable when it returns.
    pub fn put_meta(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let tx = self.db.begin_write()?;
        tx.open_table(META)?.insert(key, value)?;
        tx.commit()?;
        Ok(())
    }

    /// A node setting, if set.
    pub fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let tx = self.db.begin_read()?;
        let table = tx.open_table(META)?;
        Ok(table.get(key)?.map(|v| v.value().to_vec()))
    }
}

/// Decodes a game record, refusing trailing bytes and a record filed under another id.
fn decode_game(key: &[u8; 32], bytes: &[u8]) -> Result<GameRecord, StoreError> {
    let corrupt = |reason: String| StoreError::Corrupt {
        table: "games",
        reason,
    };
    let (g, rest) = postcard::take_from_bytes::<GameRecord>(bytes)
        .map_err(|e| corrupt(format!("game {}: {e}", Hex(key))))?;
    if !rest.is_empty() {
        return Err(corrupt(format!(
            "game {}: {} trailing bytes",
            Hex(key),
            rest.len()
        )));
    }
    if g.id != *key {
        return Err(corrupt(format!(
            "game {} filed under {}",
            Hex(&g.id),
            Hex(key)
        )));
    }
    Ok(g)
}

fn open_error(e: redb::DatabaseError, path: &Path) -> StoreError {
    match e {
        redb::DatabaseError::DatabaseAlreadyOpen => StoreError::AlreadyOpen(path.to_path_buf()),
        e => StoreError::Database(e),
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(unix)]
fn private_dir(dir: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_error(dir))?;
    // The umask may have narrowed the mode further, and an existing directory keeps its
    // own: set it exactly, but only when needed, so a directory we may not chmod but that
    // is already private is accepted.
    let mode = std::fs::metadata(dir)
        .map_err(io_error(dir))?
        .permissions()
        .mode();
    if mode & 0o777 != 0o700 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(io_error(dir))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn private_dir(dir: &Path) -> Result<(), StoreError> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))
}

#[cfg(unix)]
fn private_file(path: &Path) -> Result<File, StoreError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    // Created 0600 from the start, so the file is never readable by others, not even
    // between its creation and a chmod.
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
        .map_err(io_error(path))?;
    let mode = file
        .metadata()
        .map_err(io_error(path))?
        .permissions()
        .mode();
    if mode & 0o777 != 0o600 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(io_error(path))?;
    }
    Ok(file)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> Result<File, StoreError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_error(path))
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_error(dir))
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<(), StoreError> {
    // Windows has no directory handle to fsync; NTFS journals the name itself.
    Ok(())
}
