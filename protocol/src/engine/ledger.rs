//! Commitments, their openings, and the entitlement ledger of every secret deck.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::body::Purpose;
use crate::commit::CommitKey;
use crate::derive::{DealStream, deal_key};
use crate::hash::Hash;
use crate::ids::{EnvRef, GameId, Seat};
use crate::rules::DeckSpec;

/// A recorded deal: where it was made, what it dealt, and which granted slots its dealer
/// had acknowledged (those the dealer's stream must skip).
#[derive(Clone, Debug)]
pub(crate) struct DealRecord {
    pub at: EnvRef,
    pub slots: Vec<u32>,
    pub excluded: BTreeSet<u32>,
}

/// One secret deck's ledger.
#[derive(Clone, Debug)]
pub(crate) struct DeckLedger {
    pub spec: DeckSpec,
    pub on_list: BTreeSet<u32>,
    /// Slot → the envelope that dealt it.
    pub dealt: BTreeMap<u32, EnvRef>,
    pub deals: Vec<DealRecord>,
    /// Slot → the envelope whose act granted it.
    pub granted: BTreeMap<u32, EnvRef>,
    /// Owed deal counts with the act that made them due (`None`: the opening deal, due
    /// once the owner's commitments are acknowledged).
    pub owed: Vec<(Option<EnvRef>, u32)>,
    /// Slot → card, for slots opened while the game was on (a card used).
    pub used: BTreeMap<u32, (u32, EnvRef)>,
    /// Slot → card, where, and to whom, for slots shown and kept (version 2, `Show`).
    pub shown: BTreeMap<u32, (u32, EnvRef, Option<Seat>)>,
    /// Card → slot, for every opening or showing, in play or at the end.
    pub card_slot: BTreeMap<u32, u32>,
    /// Slot → card, for every opening.
    pub slot_card: BTreeMap<u32, u32>,
}

impl DeckLedger {
    pub fn new(spec: DeckSpec) -> Self {
        DeckLedger {
            on_list: spec.cards.iter().copied().collect(),
            spec,
            dealt: BTreeMap::new(),
            deals: vec![],
            granted: BTreeMap::new(),
            owed: vec![],
            used: BTreeMap::new(),
            shown: BTreeMap::new(),
            card_slot: BTreeMap::new(),
            slot_card: BTreeMap::new(),
        }
    }

    pub fn slots(&self) -> u32 {
        self.spec.cards.len() as u32
    }

    /// Replays the dealer's stream from its revealed seed; returns the first deal that
    /// the stream does not produce.
    pub fn first_deal_not_from_seed(&self, game: GameId, seed: &[u8; 32]) -> Option<&DealRecord> {
        let key: Hash = deal_key(
            game,
            self.spec.dealer,
            self.spec.owner,
            &self.spec.name,
            seed,
        );
        let mut stream = DealStream::new(&key, self.slots());
        self.deals
            .iter()
            .find(|d| stream.next(d.slots.len(), |s| d.excluded.contains(&s)) != d.slots)
    }
}

/// One public pool's draws.
#[derive(Clone, Debug)]
pub(crate) struct PoolLedger {
    pub spec: crate::rules::PoolSpec,
    /// The chain head from the owner's first envelope.
    pub head: Option<[u8; 32]>,
    /// The envelopes whose accepted acts declared draws 1, 2, …
    pub declared: Vec<EnvRef>,
    /// The contributor's values for draws 1, 2, …
    pub contributed: Vec<([u8; 32], EnvRef)>,
    /// The owner's chain values for draws 1, 2, …
    pub opened: Vec<([u8; 32], EnvRef)>,
}

impl PoolLedger {
    pub fn new(spec: crate::rules::PoolSpec) -> Self {
        PoolLedger {
            spec,
            head: None,
            declared: vec![],
            contributed: vec![],
            opened: vec![],
        }
    }
}

/// Every commitment and opening, and the decks.
///
/// Commitments and openings are looked up by key, three times for each slot opened (a
/// deck's 68 at the end of a game), and only [`Ledger::unopened`] lists them, sorted:
/// so hash maps, whose lookups do not compare names along a tree's path, and whose
/// order is never read.
///
/// The two maps change only through [`Ledger::commit`] and [`Ledger::open`], which keep
/// the count of each seat's commitments not yet opened: a verdict asks it of every
/// finished game each time the game's line is drawn.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ledger {
    commits: HashMap<CommitKey, (Hash, EnvRef)>,
    opened: HashMap<CommitKey, (Vec<u8>, EnvRef)>,
    /// Per seat, the commitments in `commits` that are not in `opened`, draw chain
    /// heads left out.
    unopened: BTreeMap<Seat, usize>,
    pub decks: Vec<DeckLedger>,
    /// Each player's coin seed once validly opened.
    pub coin_seeds: BTreeMap<Seat, ([u8; 32], EnvRef)>,
    /// Every envelope that made a coin seed public, valid or premature: a commitment
    /// made after seeing one of these is void.
    pub coin_public: Vec<(Seat, EnvRef)>,
    /// The public pools.
    pub pools: Vec<PoolLedger>,
}

/// Whether a commitment is one to open: draw chain heads are not (their unused values
/// stay secret and prove nothing).
fn counted(key: &CommitKey) -> bool {
    !matches!(key.purpose, Purpose::DrawChain(_))
}

impl Ledger {
    /// A ledger of these decks and pools, holding nothing yet.
    pub fn new(decks: Vec<DeckLedger>, pools: Vec<PoolLedger>) -> Ledger {
        Ledger {
            decks,
            pools,
            ..Default::default()
        }
    }

    /// Every commitment held.
    pub fn commits(&self) -> &HashMap<CommitKey, (Hash, EnvRef)> {
        &self.commits
    }

    /// Every opening held.
    pub fn opened(&self) -> &HashMap<CommitKey, (Vec<u8>, EnvRef)> {
        &self.opened
    }

    /// Holds a commitment; one held under the key already is kept, not replaced.
    pub fn commit(&mut self, key: CommitKey, value: (Hash, EnvRef)) {
        if self.commits.contains_key(&key) {
            return;
        }
        if counted(&key) && !self.opened.contains_key(&key) {
            *self.unopened.entry(key.seat).or_default() += 1;
        }
        self.commits.insert(key, value);
    }

    /// Holds an opening, replacing one held under the key.
    pub fn open(&mut self, key: CommitKey, value: (Vec<u8>, EnvRef)) {
        if counted(&key)
            && self.commits.contains_key(&key)
            && !self.opened.contains_key(&key)
            && let Some(n) = self.unopened.get_mut(&key.seat)
        {
            *n -= 1;
        }
        self.opened.insert(key, value);
    }

    pub fn deck_index(&self, owner: Seat, name: &crate::ids::Name) -> Option<usize> {
        self.decks
            .iter()
            .position(|d| d.spec.owner == owner && &d.spec.name == name)
    }

    /// Commitments of `seat` not yet opened.
    /// Draw chain heads are not commitments to open: their unused values stay secret
    /// and prove nothing.
    /// In the keys' order.
    pub fn unopened(&self, seat: Seat) -> Vec<&CommitKey> {
        let mut keys: Vec<&CommitKey> = self.unopened_keys(seat).collect();
        keys.sort_unstable();
        keys
    }

    /// How many commitments of `seat` are not yet opened, kept as they come.
    pub fn unopened_count(&self, seat: Seat) -> usize {
        self.unopened.get(&seat).copied().unwrap_or(0)
    }

    fn unopened_keys(&self, seat: Seat) -> impl Iterator<Item = &CommitKey> {
        self.commits
            .keys()
            .filter(move |k| k.seat == seat && counted(k) && !self.opened.contains_key(*k))
    }

    pub fn pool_index(&self, owner: Seat, name: &crate::ids::Name) -> Option<usize> {
        self.pools
            .iter()
            .position(|p| p.spec.owner == owner && &p.spec.name == name)
    }

    /// The revealed value of a commitment.
    pub fn opened_value(&self, seat: Seat, purpose: Purpose, index: u32) -> Option<&[u8]> {
        self.opened
            .get(&CommitKey {
                seat,
                purpose,
                index,
            })
            .map(|(v, _)| v.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{ChainId, Name};
    use proptest::prelude::*;

    fn key(seat: u8, purpose: u8, index: u32) -> CommitKey {
        let name = Name::new("d").unwrap();
        CommitKey {
            seat: Seat(seat),
            purpose: match purpose {
                0 => Purpose::Coin,
                1 => Purpose::Deck(name),
                2 => Purpose::DealSeed(name),
                3 => Purpose::Value(name),
                _ => Purpose::DrawChain(name),
            },
            index,
        }
    }

    proptest! {
        /// Commitments and openings in any order, repeated, opened before committed
        /// or never committed: the count kept is the count listed.
        #[test]
        fn the_count_kept_is_the_count_listed(
            ops in proptest::collection::vec((any::<bool>(), 0u8..3, 0u8..5, 0u32..4), 0..80)
        ) {
            let mut l = Ledger::default();
            let at = EnvRef { chain: ChainId::public(Seat(0)), seq: 0 };
            for (open, seat, purpose, index) in ops {
                let k = key(seat, purpose, index);
                if open {
                    l.open(k, (vec![1], at));
                } else {
                    l.commit(k, (Hash([0; 32]), at));
                }
                for s in 0..3 {
                    prop_assert_eq!(l.unopened_count(Seat(s)), l.unopened(Seat(s)).len());
                }
            }
        }
    }
}
