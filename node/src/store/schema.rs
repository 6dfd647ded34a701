//! The store's tables, its layout version, and the migration of older layouts.
//!
//! | version | what changed |
//! |---|---|
//! | 1 | games, secrets, envelopes in first-stored order with their hashes and counts, meta |
//! | 2 | + `chains`: every envelope's place in its chain, so that peers are served from the store chain by chain (spec/PROTOCOL.md §16.4); built from the envelopes when a version 1 file is opened |
//! | 3 | + `quotas`: per proposer, what the games held here for him use (games, envelopes, bytes: `quota.rs`); built from the games when an older file is opened |
//! | 4 | + `messages`: the messages of a game's computations taken from the other player (Secret Stallmate without a referee), by position; empty when an older file is opened |
//!
//! `node/tests/migrate.rs` opens homes of an older layout kept as fixtures
//! (`node/tests/fixtures/`).

use redb::{ReadableTable, TableDefinition, WriteTransaction};

use super::error::StoreError;

/// The layout this node writes; a file with a newer one is refused rather than misread.
pub(super) const SCHEMA_VERSION: u32 = 4;

/// The one row of [`SCHEMA`].
const SCHEMA_KEY: &str = "schema";

pub(super) const SCHEMA: TableDefinition<&str, u32> = TableDefinition::new("schema");
/// Game id → postcard [`GameRecord`](super::GameRecord).
pub(super) const GAMES: TableDefinition<[u8; 32], &[u8]> = TableDefinition::new("games");
/// Game id → the owner's secret bytes (opaque here).
pub(super) const SECRETS: TableDefinition<[u8; 32], &[u8]> = TableDefinition::new("secrets");
/// (game id, position in first-stored order) → envelope bytes.
pub(super) const ENVELOPES: TableDefinition<([u8; 32], u64), &[u8]> =
    TableDefinition::new("envelopes");
/// (game id, SHA-256 of the envelope bytes) → its position in [`ENVELOPES`]; makes a
/// duplicate a lookup instead of a scan.
pub(super) const ENVELOPE_HASHES: TableDefinition<([u8; 32], [u8; 32]), u64> =
    TableDefinition::new("envelope_hashes");
/// Game id → how many envelopes it has, which is also the next position.
pub(super) const ENVELOPE_COUNTS: TableDefinition<[u8; 32], u64> =
    TableDefinition::new("envelope_counts");
/// (game id, log, seat, seq, position in [`ENVELOPES`]) → nothing: where each envelope
/// stands in its chain. The position ends the key because a cheat can sign two
/// envelopes at one seq, and both are kept.
pub(super) const CHAINS: TableDefinition<([u8; 32], u32, u8, u64, u64), ()> =
    TableDefinition::new("chains");
/// Small node settings.
pub(super) const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// (game id, position) → a message of the game's computations taken from the other
/// player (`sealed_core::io::Writes::messages`).
pub(super) const MESSAGES: TableDefinition<([u8; 32], u64), &[u8]> =
    TableDefinition::new("messages");
/// Proposer key → (games, envelopes, bytes) held here for him (`quota.rs`).
pub(super) const QUOTAS: TableDefinition<[u8; 32], (u64, u64, u64)> =
    TableDefinition::new("quotas");

pub(super) use sealed_core::record::chain_place;

/// Creates every table, so that reads never meet a missing one, and brings an older
/// layout up to [`SCHEMA_VERSION`], all in `tx`. Returns the version found (`None` for
/// a new file).
pub(super) fn init(tx: &WriteTransaction) -> Result<Option<u32>, StoreError> {
    let found = {
        let schema = tx.open_table(SCHEMA)?;
        schema.get(SCHEMA_KEY)?.map(|v| v.value())
    };
    match found {
        Some(v) if v > SCHEMA_VERSION || v == 0 => return Err(StoreError::Schema { found: v }),
        _ => {}
    }
    tx.open_table(GAMES)?;
    tx.open_table(SECRETS)?;
    tx.open_table(ENVELOPES)?;
    tx.open_table(ENVELOPE_HASHES)?;
    tx.open_table(ENVELOPE_COUNTS)?;
    tx.open_table(CHAINS)?;
    tx.open_table(META)?;
    tx.open_table(QUOTAS)?;
    tx.open_table(MESSAGES)?;
    if found == Some(1) {
        index_chains(tx)?;
    }
    if found.is_some_and(|v| v < 3) {
        super::quota::build(tx)?;
    }
    if found != Some(SCHEMA_VERSION) {
        tx.open_table(SCHEMA)?.insert(SCHEMA_KEY, SCHEMA_VERSION)?;
    }
    Ok(found)
}

/// Version 1 → 2: the chain index of every stored envelope.
fn index_chains(tx: &WriteTransaction) -> Result<(), StoreError> {
    let envelopes = tx.open_table(ENVELOPES)?;
    let mut chains = tx.open_table(CHAINS)?;
    for row in envelopes.iter()? {
        let (k, v) = row?;
        let (game, pos) = k.value();
        if let Some((log, seat, seq)) = chain_place(v.value()) {
            chains.insert((game, log, seat, seq, pos), ())?;
        }
    }
    Ok(())
}
