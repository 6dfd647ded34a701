//! Chains as received: one slot per sequence number, duplicates dropped, equivocations
//! kept as evidence, and the causal clock of every processed envelope.

use std::collections::BTreeMap;

use crate::envelope::{Ack, Signed};
use crate::hash::Hash;
use crate::ids::{ChainId, EnvRef};

/// How far past the last processed envelope a chain may be filled; bounds the memory a
/// peer can make us hold for envelopes whose predecessors it never sends.
pub const MAX_AHEAD: u64 = 4096;

/// A vector clock: for each chain (by dense index), how many of its envelopes are in the
/// causal past, the envelope itself included.
pub type Clock = Vec<u64>;

#[derive(Clone, Default, Debug)]
pub(crate) struct ChainSlots {
    /// Received envelopes by seq (`None`: not received).
    pub envs: Vec<Option<Signed>>,
    /// How many envelopes from seq 0 have been processed.
    pub processed: u64,
    /// Causal clocks of the processed envelopes, by seq.
    pub clocks: Vec<Clock>,
    /// Dense index used in clocks.
    pub index: usize,
}

impl ChainSlots {
    pub fn get(&self, seq: u64) -> Option<&Signed> {
        self.envs.get(usize::try_from(seq).ok()?)?.as_ref()
    }

    /// Hash of a processed envelope.
    pub fn processed_hash(&self, seq: u64) -> Option<Hash> {
        if seq < self.processed {
            self.get(seq).map(|s| s.hash)
        } else {
            None
        }
    }

    /// The last processed envelope's acknowledgement form.
    pub fn head(&self, chain: ChainId) -> Option<Ack> {
        let seq = self.processed.checked_sub(1)?;
        Some(Ack {
            chain,
            seq,
            hash: self.processed_hash(seq)?,
        })
    }
}

/// What inserting bytes did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// New envelope, stored (processed once its causal past is present).
    Stored(EnvRef),
    /// Already had exactly this envelope.
    Duplicate(EnvRef),
    /// A second, different envelope at a filled position: kept as evidence.
    Equivocation(EnvRef),
}

#[derive(Clone, Debug)]
pub(crate) struct Store {
    pub chains: BTreeMap<ChainId, ChainSlots>,
    /// How far ahead of its chain's processing an envelope may be stored.
    pub max_ahead: u64,
    /// Validly signed envelopes at a position whose slot holds a different one, in
    /// the order of their position and then their hash ([`Store::keep_other`]): the
    /// same set of envelopes is held in the same order however it arrived, so an
    /// engine replayed from what it holds (`Engine::without`) is the engine it was.
    pub others: Vec<Signed>,
    /// The envelopes held only because a proof brought them ([`Store::insert_beside`]),
    /// never received by themselves, each with the hash of the envelope whose proof
    /// brought it: an undo of that envelope (`Engine::without`) lets go of them too.
    pub brought: Vec<(Hash, Hash)>,
    /// Envelopes that held a place until a twin that links took it (`Engine::step`),
    /// each with the hash of that twin: an undo of the twin (`Engine::without`) puts
    /// them back first, so the place holds what it held before.
    pub displaced: Vec<(Hash, Hash)>,
}

/// Refusal to store an envelope (no fault of anyone we can prove).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// Too far beyond what has been processed of its chain.
    #[error("{0} is too far ahead of its chain")]
    TooFarAhead(EnvRef),
}

impl Default for Store {
    fn default() -> Self {
        Store {
            chains: BTreeMap::new(),
            max_ahead: MAX_AHEAD,
            others: vec![],
            brought: vec![],
            displaced: vec![],
        }
    }
}

impl Store {
    pub fn insert(&mut self, signed: Signed) -> Result<Inserted, StoreError> {
        let at = signed.at();
        let next_index = self.chains.len();
        let slots = self.chains.entry(at.chain).or_insert_with(|| ChainSlots {
            index: next_index,
            ..Default::default()
        });
        if at.seq >= slots.processed.saturating_add(self.max_ahead) {
            return Err(StoreError::TooFarAhead(at));
        }
        // Whatever it was held as before, it is now received.
        self.brought.retain(|(h, _)| *h != signed.hash);
        let i = at.seq as usize;
        if slots.envs.len() <= i {
            slots.envs.resize(i + 1, None);
        }
        match &slots.envs[i] {
            None => {
                // It may have been kept beside the chains already (an envelope of a
                // proof, processed before its chain reached it): it is held once, in
                // its slot now, or a proof built from what is held would name it twice.
                self.others.retain(|o| o.hash != signed.hash);
                slots.envs[i] = Some(signed);
                Ok(Inserted::Stored(at))
            }
            Some(old) if old.hash == signed.hash => Ok(Inserted::Duplicate(at)),
            Some(_) => {
                if self.others.iter().any(|o| o.hash == signed.hash) {
                    return Ok(Inserted::Duplicate(at));
                }
                self.keep_other(signed);
                Ok(Inserted::Equivocation(at))
            }
        }
    }

    /// Keeps an envelope that the proof in envelope `by` brought beside the chains
    /// (never in a slot), unless already held.
    pub fn insert_beside(&mut self, signed: Signed, by: Hash) {
        let at = signed.at();
        let in_slot = self
            .chains
            .get(&at.chain)
            .and_then(|c| c.get(at.seq))
            .is_some_and(|s| s.hash == signed.hash);
        if !in_slot && !self.others.iter().any(|o| o.hash == signed.hash) {
            self.brought.push((signed.hash, by));
            self.keep_other(signed);
        }
    }

    /// Whether these exact bytes (signature included) are held, in their slot or
    /// beside it: what was verified when it first came need not be again.
    pub fn holds_exact(&self, signed: &Signed) -> bool {
        let at = signed.at();
        let same = |e: &Signed| e.hash == signed.hash && e.bytes == signed.bytes;
        if self
            .chains
            .get(&at.chain)
            .and_then(|c| c.get(at.seq))
            .is_some_and(same)
        {
            return true;
        }
        let key = |e: &Signed| (e.at().chain, e.at().seq, e.hash.0);
        let k = key(signed);
        let i = self.others.partition_point(|o| key(o) < k);
        self.others.get(i).is_some_and(same)
    }

    /// Puts an envelope among the others at its place in their canonical order: by
    /// chain, then position, then hash.
    pub fn keep_other(&mut self, signed: Signed) {
        let key = |e: &Signed| (e.at().chain, e.at().seq, e.hash.0);
        let k = key(&signed);
        let i = self.others.partition_point(|o| key(o) < k);
        self.others.insert(i, signed);
    }

    /// Every envelope held at a position: the slot's, then the others.
    pub fn all_at(&self, at: EnvRef) -> Vec<&Signed> {
        let slot = self.chains.get(&at.chain).and_then(|c| c.get(at.seq));
        slot.into_iter()
            .chain(self.others.iter().filter(|o| o.at() == at))
            .collect()
    }

    /// Whether `target` is in the causal past described by `clock`.
    pub fn seen(&self, clock: &Clock, target: EnvRef) -> bool {
        self.chains
            .get(&target.chain)
            .is_some_and(|c| clock.get(c.index).is_some_and(|n| *n > target.seq))
    }

    /// The clock of a processed envelope.
    pub fn clock_of(&self, at: EnvRef) -> Option<&Clock> {
        self.chains
            .get(&at.chain)?
            .clocks
            .get(usize::try_from(at.seq).ok()?)
    }

    /// Number of envelopes of `chain` in the causal past described by `clock`.
    pub fn seen_count(&self, clock: &Clock, chain: ChainId) -> u64 {
        self.chains
            .get(&chain)
            .and_then(|c| clock.get(c.index).copied())
            .unwrap_or(0)
    }
}

/// Elementwise maximum into `into`.
pub(crate) fn join(into: &mut Clock, other: &Clock) {
    if into.len() < other.len() {
        into.resize(other.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(other) {
        *a = (*a).max(*b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::Item;
    use crate::envelope::Unsigned;
    use crate::ids::{GameId, LogId, Seat};
    use crate::keys::SecretKey;

    fn at_seq_0(body: Item) -> Signed {
        Unsigned {
            version: 1,
            game: GameId(Hash([7; 32])),
            log: LogId::PUBLIC,
            seat: Seat(1),
            seq: 0,
            prev: Hash::ZERO,
            acks: vec![],
            clock: 0,
            body: vec![body],
        }
        .sign(&SecretKey::from_seed(&[2; 32]))
    }

    /// Found by the `session` fuzz target: a proof's envelopes kept beside the chains
    /// before the chain reached them, then one of them arriving in its chain, was held
    /// twice, and the equivocation proof built from what was held named it twice (a
    /// transcript whose evidence does not check, from an honest seat).
    #[test]
    fn an_envelope_kept_beside_then_arriving_in_its_chain_is_held_once() {
        let mut store = Store::default();
        let x = at_seq_0(Item::Resign);
        let y = at_seq_0(Item::OfferDraw);
        let by = Hash([9; 32]);
        store.insert_beside(x.clone(), by);
        store.insert_beside(y.clone(), by);
        assert_eq!(
            store.brought,
            vec![(x.hash, by), (y.hash, by)],
            "both brought"
        );
        assert_eq!(store.insert(x.clone()), Ok(Inserted::Stored(x.at())));
        let held: Vec<Hash> = store.all_at(x.at()).iter().map(|e| e.hash).collect();
        assert_eq!(held, vec![x.hash, y.hash]);
        assert_eq!(store.brought, vec![(y.hash, by)], "x is received now");
        assert_eq!(store.insert(y.clone()), Ok(Inserted::Duplicate(y.at())));
        assert!(store.brought.is_empty(), "y is received now");
    }

    /// Found by the `session` fuzz target: a refused command's undo replays the engine
    /// from what it holds (`Engine::without`), and the envelopes beside the chains came
    /// back in another order than they had arrived in, so the undone session held the
    /// same envelopes in another order. They are now held in one order whatever the
    /// order of arrival.
    #[test]
    fn the_others_are_held_in_one_order_whatever_the_order_of_arrival() {
        let first = at_seq_0(Item::Resign);
        let twins: Vec<Signed> = [Item::OfferDraw, Item::AcceptDraw, Item::Withdraw]
            .into_iter()
            .map(at_seq_0)
            .collect();
        let order = |s: &Store| s.others.iter().map(|e| e.hash).collect::<Vec<_>>();
        let mut seen = None;
        for perm in [[0, 1, 2], [2, 1, 0], [1, 0, 2], [2, 0, 1]] {
            let mut store = Store::default();
            store.insert(first.clone()).unwrap();
            for i in perm {
                store.insert(twins[i].clone()).unwrap();
            }
            let now = order(&store);
            assert!(
                now.windows(2).all(|w| w[0] < w[1]),
                "sorted by hash at one place"
            );
            assert_eq!(*seen.get_or_insert_with(|| now.clone()), now);
        }
    }
}
