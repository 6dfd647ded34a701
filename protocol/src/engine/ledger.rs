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
#[derive(Clone, Debug, Default)]
pub(crate) struct Ledger {
    pub commits: HashMap<CommitKey, (Hash, EnvRef)>,
    pub opened: HashMap<CommitKey, (Vec<u8>, EnvRef)>,
    pub decks: Vec<DeckLedger>,
    /// Each player's coin seed once validly opened.
    pub coin_seeds: BTreeMap<Seat, ([u8; 32], EnvRef)>,
    /// Every envelope that made a coin seed public, valid or premature: a commitment
    /// made after seeing one of these is void.
    pub coin_public: Vec<(Seat, EnvRef)>,
    /// The public pools.
    pub pools: Vec<PoolLedger>,
}

impl Ledger {
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
        let mut keys: Vec<&CommitKey> = self
            .commits
            .keys()
            .filter(move |k| {
                k.seat == seat
                    && !self.opened.contains_key(*k)
                    && !matches!(k.purpose, Purpose::DrawChain(_))
            })
            .collect();
        keys.sort_unstable();
        keys
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
