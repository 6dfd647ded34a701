//! A seat's secrets, all derived from one 32-byte entropy value.
//!
//! Deriving every nonce, seed and deck order from one value the caller draws from the
//! operating system means the node has one small thing to make durable *before* the
//! first commitment leaves it, and a crash can never leave a player unable to open what
//! it committed. These derivations are local: no other seat ever recomputes them, so
//! they are not part of the wire protocol (the spec lists them as informative).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::body::Purpose;
use crate::commit::{CommitKey, card_value, commitment};
use crate::hash::{Framed, Hash};
use crate::ids::{GameId, Name, Seat};
use crate::random::Stream;
use crate::rules::{DeckSpec, PoolSpec, SetupSpec};

const LOCAL_NONCE: &str = "sealed/v1/local/nonce";
const LOCAL_SEED: &str = "sealed/v1/local/seed";
const LOCAL_DECK: &str = "sealed/v1/local/deck";
const LOCAL_CONTRIBUTION: &str = "sealed/v1/local/contribution";
const LOCAL_DECK_SEED: &str = "sealed/v1/local/deck-seed";

/// What a seat must keep to open its commitments: the entropy, and any sealed values
/// chosen during play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Secrets {
    /// Fresh CSPRNG output, drawn once per game.
    pub entropy: [u8; 32],
    /// Sealed values chosen during play, by name and index.
    pub values: Vec<(Name, u32, Vec<u8>)>,
    /// Whether each deck's salts and order come from its own deck seed, so that the
    /// whole deck can be opened with one `OpenDeck` after the game (version 2,
    /// spec/PROTOCOL.md §17.17). Version 1 games keep the derivation they were
    /// committed with.
    pub deck_seeds: bool,
}

/// The stored form before `deck_seeds` existed: a version 1 game in progress when the
/// node was upgraded still opens what it committed.
#[derive(Serialize, Deserialize)]
struct Legacy {
    entropy: [u8; 32],
    values: Vec<(Name, u32, Vec<u8>)>,
}

impl Secrets {
    /// Secrets from fresh entropy, deriving decks as version 1 does.
    pub fn new(entropy: [u8; 32]) -> Self {
        Secrets {
            entropy,
            values: vec![],
            deck_seeds: false,
        }
    }

    /// Secrets from fresh entropy for a game of protocol `version`: in version 2 every
    /// deck is seeded.
    pub fn for_version(entropy: [u8; 32], version: u8) -> Self {
        Secrets {
            deck_seeds: crate::proposal::is_version_2(version),
            ..Secrets::new(entropy)
        }
    }

    /// Reads secrets as a node stored them (`wire::encode`), the form older nodes
    /// wrote included.
    pub fn from_stored(bytes: &[u8]) -> Result<Secrets, crate::wire::WireError> {
        let max = crate::wire::MAX_MESSAGE;
        crate::wire::decode::<Secrets>(bytes, max).or_else(|e| {
            let old: Legacy = crate::wire::decode(bytes, max).map_err(|_| e)?;
            Ok(Secrets {
                entropy: old.entropy,
                values: old.values,
                deck_seeds: false,
            })
        })
    }

    /// The seed of one of this seat's decks, opened whole after the game when
    /// `deck_seeds` (spec/PROTOCOL.md §17.17).
    pub fn deck_seed(&self, name: &Name) -> [u8; 32] {
        self.derive(LOCAL_DECK_SEED, name.as_str().as_bytes()).0
    }

    fn derive(&self, tag: &str, what: &[u8]) -> Hash {
        Framed::new(tag).field(&self.entropy).field(what).finish()
    }

    /// The nonce of a commitment.
    pub fn nonce(&self, key: &CommitKey) -> [u8; 32] {
        if let (true, Purpose::Deck(name)) = (self.deck_seeds, &key.purpose) {
            return crate::commit::deck_nonce(&self.deck_seed(name), key.index);
        }
        let mut what = vec![key.seat.0];
        what.extend(crate::wire::encode(&key.purpose));
        what.extend(key.index.to_le_bytes());
        self.derive(LOCAL_NONCE, &what).0
    }

    /// A 32-byte seed for a purpose (coin, dealer's seed, setup seed).
    pub fn seed(&self, purpose: &Purpose, index: u32) -> [u8; 32] {
        let mut what = crate::wire::encode(purpose);
        what.extend(index.to_le_bytes());
        self.derive(LOCAL_SEED, &what).0
    }

    /// The owner's secret order of a deck: slot → card.
    pub fn deck_order(&self, deck: &DeckSpec) -> Vec<u32> {
        if self.deck_seeds {
            return crate::commit::seeded_deck(&self.deck_seed(&deck.name), &deck.cards).order;
        }
        let mut cards = deck.cards.clone();
        Stream::new(&self.derive(LOCAL_DECK, deck.name.as_str().as_bytes())).shuffle(&mut cards);
        cards
    }

    /// The value committed under a key, if these secrets know it.
    pub fn value(&self, key: &CommitKey, decks: &[&DeckSpec]) -> Option<Vec<u8>> {
        match &key.purpose {
            Purpose::Coin | Purpose::DealSeed(_) | Purpose::Setup(_) => {
                Some(self.seed(&key.purpose, key.index).to_vec())
            }
            Purpose::Deck(name) => {
                let deck = decks
                    .iter()
                    .find(|d| d.owner == key.seat && &d.name == name)?;
                self.deck_order(deck)
                    .get(key.index as usize)
                    .map(|c| card_value(*c).to_vec())
            }
            Purpose::Value(name) => self
                .values
                .iter()
                .find(|(n, i, _)| n == name && *i == key.index)
                .map(|(_, _, v)| v.clone()),
            // A draw chain has a published head, not a salted commitment.
            Purpose::DrawChain(_) => None,
        }
    }

    /// The secret last value `v(n)` of this seat's draw chain for a pool.
    pub fn draw_chain_last(&self, pool: &Name) -> [u8; 32] {
        self.seed(&Purpose::DrawChain(pool.clone()), 0)
    }

    /// This seat's fresh value for draw `index` of `owner`'s pool: unpredictable to the
    /// owner, and the same after a restart.
    pub fn contribution(&self, owner: Seat, pool: &Name, index: u32) -> [u8; 32] {
        let mut what = vec![owner.0];
        what.extend(pool.as_str().as_bytes());
        what.extend(index.to_le_bytes());
        self.derive(LOCAL_CONTRIBUTION, &what).0
    }

    /// The commitment hash of a key.
    pub fn commitment(&self, game: GameId, key: &CommitKey, decks: &[&DeckSpec]) -> Option<Hash> {
        Some(commitment(
            game,
            key,
            &self.nonce(key),
            &self.value(key, decks)?,
        ))
    }
}

/// The start commitments of a seat, grouped per purpose in the order the spec gives:
/// coin, then decks owned, dealer seeds, setups, draw chain heads.
pub fn start_keys(
    seat: Seat,
    decks: &[&DeckSpec],
    setups: &[SetupSpec],
    pools: &[PoolSpec],
) -> BTreeMap<Purpose, Vec<u32>> {
    let mut out: BTreeMap<Purpose, Vec<u32>> = BTreeMap::new();
    out.insert(Purpose::Coin, vec![0]);
    for d in decks {
        if d.owner == seat {
            out.insert(
                Purpose::Deck(d.name.clone()),
                (0..d.cards.len() as u32).collect(),
            );
        }
        if d.dealer == seat {
            out.entry(Purpose::DealSeed(d.name.clone()))
                .or_default()
                .push(u32::from(d.owner.0));
        }
    }
    for s in setups {
        if s.owner == seat {
            out.insert(Purpose::Setup(s.name.clone()), vec![0]);
        }
    }
    for p in pools {
        if p.owner == seat {
            out.insert(Purpose::DrawChain(p.name.clone()), vec![0]);
        }
    }
    out
}
