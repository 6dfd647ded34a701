//! What each seat holds, as the engine has replayed it: its commitments and what it
//! opened, the slots of secret decks dealt, granted and used, the draws of public pools,
//! and the setups. Read-only queries for the seats, the verdict and the games.

use std::collections::BTreeMap;

use super::Engine;
use super::ledger::DeckLedger;
use crate::body::Purpose;
use crate::commit::CommitKey;
use crate::ids::Seat;
use crate::rules::{DeckSpec, PoolSpec, Rules, SetupSpec};

impl<R: Rules> Engine<R> {
    /// Whether a seat's coin seed is revealed.
    pub fn coin_revealed(&self, seat: Seat) -> bool {
        self.ledger.coin_seeds.contains_key(&seat)
    }

    /// Commitments of a seat not yet opened.
    pub fn unopened(&self, seat: Seat) -> Vec<CommitKey> {
        self.ledger.unopened(seat).into_iter().cloned().collect()
    }

    /// How many commitments of a seat are not yet opened.
    pub fn unopened_count(&self, seat: Seat) -> usize {
        self.ledger.unopened_count(seat)
    }

    /// The revealed value of a commitment.
    pub fn opened_value(&self, seat: Seat, purpose: Purpose, index: u32) -> Option<&[u8]> {
        self.ledger.opened_value(seat, purpose, index)
    }

    /// The deck specifications.
    pub fn decks(&self) -> Vec<&DeckSpec> {
        self.ledger.decks.iter().map(|d| &d.spec).collect()
    }

    /// The public pools.
    pub fn pools(&self) -> Vec<&PoolSpec> {
        self.ledger.pools.iter().map(|p| &p.spec).collect()
    }

    /// A pool's draws so far: declared, contributed, opened.
    pub fn pool_counts(
        &self,
        owner: Seat,
        pool: &crate::ids::Name,
    ) -> Option<(usize, usize, usize)> {
        let p = &self.ledger.pools[self.ledger.pool_index(owner, pool)?];
        Some((p.declared.len(), p.contributed.len(), p.opened.len()))
    }

    /// The contributor's value for draw `index` (from 1) of a pool, once processed.
    pub fn contribution(
        &self,
        owner: Seat,
        pool: &crate::ids::Name,
        index: u32,
    ) -> Option<[u8; 32]> {
        let p = &self.ledger.pools[self.ledger.pool_index(owner, pool)?];
        p.contributed
            .get(usize::try_from(index).ok()?.checked_sub(1)?)
            .map(|(v, _)| *v)
    }

    /// The setup specifications.
    pub fn setups(&self) -> &[SetupSpec] {
        &self.setups
    }

    /// Slots of a deck dealt to its owner, in dealing order.
    pub fn dealt(&self, owner: Seat, deck: &crate::ids::Name) -> Vec<u32> {
        self.deck(owner, deck)
            .map(|d| {
                d.deals
                    .iter()
                    .flat_map(|r| r.slots.iter().copied())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Slots granted to a deck's owner other than by deals.
    pub fn granted(&self, owner: Seat, deck: &crate::ids::Name) -> Vec<u32> {
        self.deck(owner, deck)
            .map(|d| d.granted.keys().copied().collect())
            .unwrap_or_default()
    }

    /// Slots of a deck used in play, with their cards.
    pub fn used(&self, owner: Seat, deck: &crate::ids::Name) -> BTreeMap<u32, u32> {
        self.deck(owner, deck)
            .map(|d| d.used.iter().map(|(s, (c, _))| (*s, *c)).collect())
            .unwrap_or_default()
    }

    /// Slots of a deck shown and kept (version 2, `Show`), with their cards and whom
    /// they were shown to (`None`: every seat), whether played since or not.
    pub fn shown_slots(
        &self,
        owner: Seat,
        deck: &crate::ids::Name,
    ) -> BTreeMap<u32, (u32, Option<Seat>)> {
        self.deck(owner, deck)
            .map(|d| {
                d.shown
                    .iter()
                    .map(|(s, (c, _, to))| (*s, (*c, *to)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Slots the dealer owes now: everything due minus everything dealt.
    pub fn deal_due(&self, owner: Seat, deck: &crate::ids::Name) -> u32 {
        let Some(d) = self.deck(owner, deck) else {
            return 0;
        };
        let due: u32 = d.owed.iter().map(|(_, n)| *n).sum();
        let remaining = d
            .slots()
            .saturating_sub(d.dealt.len() as u32 + d.granted.len() as u32);
        due.saturating_sub(d.dealt.len() as u32).min(remaining)
    }

    fn deck(&self, owner: Seat, deck: &crate::ids::Name) -> Option<&DeckLedger> {
        self.ledger
            .deck_index(owner, deck)
            .map(|i| &self.ledger.decks[i])
    }

    /// Granted slots the dealer had acknowledged, as its stream must skip them now.
    pub fn deal_exclusions(&self, owner: Seat, deck: &crate::ids::Name) -> Vec<u32> {
        self.granted(owner, deck)
    }
}
