//! What strangers have stored here (layout 3): per proposer, the games this node holds
//! on their behalf — relayed as a mailbox or witness, refereed, or invitations not
//! accepted — with their envelopes and bytes. The core decides what is charged and
//! whether a quota allows it (`core/src/quota.rs`); the store adds each charge in the same
//! transaction as what it pays for, so the ledger never runs behind the disk.

use redb::{ReadableTable, WriteTransaction};
use sealed_protocol::ids::Seat;
use sealed_protocol::proposal::{Role, Terms};

use super::error::StoreError;
use super::schema::{ENVELOPES, GAMES, META, QUOTAS};
use super::{GameStatus, record};
pub use sealed_core::record::Usage;

/// Starts the ledger of `day` in `tx`: every count of an earlier day removed, the day
/// noted (`core/src/quota.rs`: the quotas are a day's).
pub(super) fn new_day(tx: &WriteTransaction, day: u64) -> Result<(), StoreError> {
    tx.open_table(QUOTAS)?.retain(|_, _| false)?;
    tx.open_table(META)?
        .insert(sealed_core::QUOTA_DAY_KEY, day.to_le_bytes().as_slice())?;
    Ok(())
}

/// Adds charges (deltas) to the ledger, in `tx`.
pub(super) fn charge(
    tx: &WriteTransaction,
    charges: &[([u8; 32], Usage)],
) -> Result<bool, StoreError> {
    if charges.is_empty() {
        return Ok(false);
    }
    let mut t = tx.open_table(QUOTAS)?;
    for (who, add) in charges {
        let old = t.get(who)?.map(|v| v.value()).unwrap_or_default();
        let new = Usage {
            games: old.0,
            envelopes: old.1,
            bytes: old.2,
        }
        .plus(*add);
        t.insert(who, (new.games, new.envelopes, new.bytes))?;
    }
    Ok(true)
}

/// Every proposer's usage.
pub(super) fn read(tx: &redb::ReadTransaction) -> Result<Vec<([u8; 32], Usage)>, StoreError> {
    let t = tx.open_table(QUOTAS)?;
    let mut out = vec![];
    for row in t.iter()? {
        let (k, v) = row?;
        let (games, envelopes, bytes) = v.value();
        out.push((
            k.value(),
            Usage {
                games,
                envelopes,
                bytes,
            },
        ));
    }
    Ok(out)
}

/// The proposer a stored game is charged to, if it is held for someone else: relayed
/// (no seat here), refereed, or an invitation not accepted. A friend's invitation is
/// charged too: the store does not know friends, and a charge only makes a quota
/// reached sooner.
pub(super) fn charged_to(g: &super::GameRecord) -> Option<[u8; 32]> {
    let terms = Terms::parse(&g.terms).ok()?;
    let proposer = terms.key(terms.proposal().proposer)?.to_bytes();
    let held_for_others = match g.seat {
        None => true,
        Some(s) => terms.role(Seat(s)) == Some(Role::Referee) || g.status == GameStatus::Invited,
    };
    held_for_others.then_some(proposer)
}

/// Layout 2 → 3: the ledger of what every stored game held for a stranger already
/// uses.
pub(super) fn build(tx: &WriteTransaction) -> Result<(), StoreError> {
    let mut charges: std::collections::BTreeMap<[u8; 32], Usage> = Default::default();
    {
        let games = tx.open_table(GAMES)?;
        let envelopes = tx.open_table(ENVELOPES)?;
        for row in games.iter()? {
            let (k, v) = row?;
            let id = k.value();
            let Ok(g) = record::decode(&id, v.value()) else {
                continue;
            };
            let Some(who) = charged_to(&g) else { continue };
            let mut used = Usage {
                games: 1,
                ..Usage::default()
            };
            for e in envelopes.range((id, 0)..=(id, u64::MAX))? {
                let (_, b) = e?;
                used.envelopes += 1;
                used.bytes += b.value().len() as u64;
            }
            let e = charges.entry(who).or_default();
            *e = e.plus(used);
        }
    }
    let rows: Vec<([u8; 32], Usage)> = charges.into_iter().collect();
    charge(tx, &rows)?;
    Ok(())
}
