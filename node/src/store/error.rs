//! Why a store operation failed, and whose fault that is: the disk's (an I/O error, a
//! full disk: retry once [`Store::recover`](super::Store::recover) succeeds), the file's
//! (corrupt, another layout), or the caller's (no such game).

use std::fmt;
use std::io;
use std::path::PathBuf;

use super::schema::SCHEMA_VERSION;

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
    /// An earlier write failed and the store has not been reopened since: nothing is
    /// read or written until [`Store::recover`](super::Store::recover) succeeds.
    #[error("the store failed earlier ({0}) and is not reopened yet")]
    Failed(String),
    /// A record does not decode, or does not match its key.
    #[error("corrupt record in store table {table}: {reason}")]
    Corrupt {
        /// The table holding the record.
        table: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The file was written with a table layout this node does not know.
    #[error("store layout version {found}; this node knows versions 1 to {SCHEMA_VERSION}")]
    Schema {
        /// The version found in the file.
        found: u32,
    },
    /// The game is not in the store.
    #[error("no game {} in the store", Hex(.0.bytes()))]
    NoSuchGame(sealed_core::GameId),
}

impl StoreError {
    /// Whether the error came from redb or the disk, after which redb refuses every
    /// further operation of the open database (it latches I/O failures) until it is
    /// reopened.
    pub fn is_storage(&self) -> bool {
        matches!(
            self,
            StoreError::Transaction(_)
                | StoreError::Table(_)
                | StoreError::Storage(_)
                | StoreError::Commit(_)
                | StoreError::Failed(_)
        )
    }
}

/// Lower-case hex for error messages, without a dependency for it.
pub(super) struct Hex<'a>(pub(super) &'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}
