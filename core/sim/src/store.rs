//! The simulation's store: only what was committed survives a crash. A commit is
//! all-or-nothing, like redb's (the core's own in-memory store, `memory::MemoryStore`);
//! a full disk fails commits, and like redb the store then refuses every read and write
//! until it is reopened.

use sealed_core::memory::MemoryStore;
use sealed_core::record::{GameRecord, GameRow, ReadError, Usage};
use sealed_core::{Durable, GameId, PeerKey, WriteFailed, Writes};

/// One node's durable state.
#[derive(Default)]
pub struct SimStore {
    inner: MemoryStore,
    /// The disk is full: commits fail.
    pub full: bool,
    /// A commit failed and the store was not reopened since.
    failed: bool,
    /// Commits that took effect.
    pub commits: u64,
}

impl SimStore {
    /// Commits `w` at once, or nothing of it.
    pub fn commit(&mut self, w: &Writes) -> Result<usize, WriteFailed> {
        if self.failed {
            return Err(WriteFailed(
                "the store failed earlier and is not reopened yet".into(),
            ));
        }
        if self.full {
            self.failed = true;
            return Err(WriteFailed("no space left on device (simulated)".into()));
        }
        self.commits += 1;
        Ok(self.inner.commit(w))
    }

    /// Reopens after a failure; fails while the disk is still full.
    pub fn recover(&mut self) -> Result<usize, WriteFailed> {
        if self.full {
            return Err(WriteFailed("no space left on device (simulated)".into()));
        }
        self.failed = false;
        Ok(0)
    }

    /// What a new process opening the file finds: the failure latch is gone (the disk
    /// may still be full).
    pub fn reopen(&mut self) {
        self.failed = false;
    }

    fn check(&self) -> Result<(), ReadError> {
        if self.failed {
            // As the node's store says it (`StoreError::Failed`).
            Err(ReadError {
                storage: true,
                text: "the store failed earlier (a commit failed) and is not reopened yet".into(),
            })
        } else {
            Ok(())
        }
    }

    /// Every game id committed, for the checks (whatever the failure state).
    pub fn game_ids(&self) -> Vec<GameId> {
        self.inner.game_ids()
    }

    /// A meta value committed, whatever state the store is in (a test reads what
    /// survived, even from a store failed and not reopened yet).
    pub fn committed_meta(&self, key: &str) -> Option<Vec<u8>> {
        self.inner.setting(key)
    }

    /// Every envelope of a game, for the checks (whatever the failure state).
    pub fn all_envelopes(&self, id: &GameId) -> Vec<Vec<u8>> {
        self.inner.all_envelopes(id)
    }
}

impl Durable for SimStore {
    fn game_rows(&self) -> Result<Vec<GameRow>, ReadError> {
        self.check()?;
        self.inner.game_rows()
    }

    fn game(&self, id: &GameId) -> Result<Option<GameRecord>, ReadError> {
        self.check()?;
        self.inner.game(id)
    }

    fn knows(&self, id: &GameId) -> Result<bool, ReadError> {
        self.check()?;
        self.inner.knows(id)
    }

    fn secrets(&self, id: &GameId) -> Result<Option<Vec<u8>>, ReadError> {
        self.check()?;
        self.inner.secrets(id)
    }

    fn envelopes(&self, id: &GameId) -> Result<Vec<Vec<u8>>, ReadError> {
        self.check()?;
        self.inner.envelopes(id)
    }

    fn messages(&self, id: &GameId) -> Result<Vec<(u64, Vec<u8>)>, ReadError> {
        self.check()?;
        self.inner.messages(id)
    }

    fn chain_envelopes(
        &self,
        id: &GameId,
        from: &mut dyn FnMut(u32, u8) -> Option<u64>,
    ) -> Result<Vec<Vec<u8>>, ReadError> {
        self.check()?;
        self.inner.chain_envelopes(id, from)
    }

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, ReadError> {
        self.check()?;
        self.inner.meta(key)
    }

    fn metas(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
        self.check()?;
        self.inner.metas(prefix)
    }

    fn metas_from(
        &self,
        prefix: &str,
        from: &str,
        max_entries: usize,
        max_bytes: usize,
    ) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
        self.check()?;
        self.inner.metas_from(prefix, from, max_entries, max_bytes)
    }

    fn quotas(&self) -> Result<Vec<(PeerKey, Usage)>, ReadError> {
        self.check()?;
        self.inner.quotas()
    }
}
